"""The guidelines describe the player that is there: every key they name is one the key script or
the decision's legend handles, every setting they name is one the player reads, and what they say
is shown (the cited band, the lead-in) exists in the player's code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GUIDELINES = (ROOT / "assets" / "guidelines.md").read_text()
KEYS_JS = (ROOT / "assets" / "keys.js").read_text()
PLAYER_JS = (ROOT / "assets" / "player.js").read_text()
PLAYER_PY = (ROOT / "pages" / "widgets" / "player.py").read_text()
DECISIONS_PY = (ROOT / "pages" / "widgets" / "decisions.py").read_text()


def test_every_player_key_the_guidelines_name_is_handled_by_the_key_script():
    named = set(re.findall(r"\*\*([A-Z,.])\*\* (?:loops|plays|switches|step|and|for)", GUIDELINES))
    assert {"L", "O", "S", ",", "P"} <= named
    for key in named - {"P"}:
        assert re.search(rf'^\s*"?{re.escape(key.lower())}"?: \(keys\)', KEYS_JS, re.M), key
    assert '"p"' in KEYS_JS and '"."' in KEYS_JS


def test_every_setting_the_guidelines_name_is_one_the_player_reads():
    settings = set(re.findall(r"`([a-z_]+_s)`", GUIDELINES))
    assert settings == {"pad_s", "lead_in_s"}
    assert '"lead_in_s"' in PLAYER_PY and "lead_in_s" in PLAYER_JS
    assert "pad_s" in PLAYER_PY


def test_the_guidelines_promise_no_caption_the_player_does_not_draw():
    assert "▶ cited" not in GUIDELINES  # an old promise: the player has a marked band, not a caption
    assert "murgat-player-cited" in PLAYER_JS  # the yellow band on the scrub bar


def test_the_cant_tell_key_and_the_stage_two_keys_are_the_ones_the_page_binds():
    assert re.search(r'CANT_TELL_KEY = "T"', DECISIONS_PY) and "**Can't tell (T)**" in GUIDELINES
    assert "**Enter** adds the next fact" in GUIDELINES and "nextFact" in KEYS_JS
    assert "**Escape**" in GUIDELINES and '"Escape"' in KEYS_JS
