"""Keys that never die: the decision keys work whatever has the focus except a text field.

Streamlit's own `st.button(shortcut=...)` binds the keys and shows each button's key; its
listener ignores a key aimed at any <input> (a toggle, a checkbox) and never hears one while a
native media control has the focus. `assets/keys.js`, mounted once per page by
`pages.widgets.frame.run_page`, gives a pointer-focused media element's focus back and presses
the right button for a key aimed at a non-text control. (streamlit-shortcuts 1.2.2 was not
used: its listener also fires inside text fields, so typing "n" in a fact would answer "No",
and it does not reach keys swallowed by media controls.)

`legend` shows the compact list of the page's keys, and guards a question: for `cooldown_ms`
after a new question appears its keys are ignored, and the legend shows when it is ready.
The script is a components-v2 module: it runs in the page itself, loaded from the page's
own memory (a blob URL), so nothing is fetched from anywhere.
"""

from __future__ import annotations

import streamlit as st

from annotation.project_settings import DEFAULT_COOLDOWN_MS
from pages.widgets.context import APP_DIR

_KEYS = st.components.v2.component(
    "murgat_keys", js=(APP_DIR / "assets" / "keys.js").read_text(), isolate_styles=False
)


def install_keys() -> None:
    """The page-wide key fix, out of sight (see module doc)."""
    with st.container(key="murgat_keys"):
        _KEYS(data={}, key="murgat_keys_script", height=0)


def legend(
    keys: list[tuple[str, str]],
    question: str,
    *,
    cooldown_ms: int = DEFAULT_COOLDOWN_MS,
    play_all: bool = False,
    header: dict | None = None,
) -> None:
    """The keys of this decision as a strip ('V verifiable · N not verifiable · …'), with a
    'Play all together' button when `play_all`. A new `question` ignores keys for `cooldown_ms`.
    `header` ({'stage', 'where', 'wording', 'subject', 'subject_class', 'note'}) puts the
    decision's own words above the strip, set as text: one element for both, not five."""
    runs = st.session_state["key_legend_runs"] = st.session_state.get("key_legend_runs", 0) + 1
    _KEYS(
        data={
            "legend": [list(pair) for pair in keys],
            "question": question,
            "cooldown_ms": int(cooldown_ms),
            "play_all": play_all,
            "header": header,
            "run": runs,  # new data each run, so the script learns that the page has answered a key
        },
        key="murgat_key_legend",
    )
