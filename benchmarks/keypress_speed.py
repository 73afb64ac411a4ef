"""Key press → settled page, in Chromium: the annotate page and the disputes page's ruling key against
a one-button Streamlit page.

    .venv/bin/python benchmarks/keypress_speed.py [--presses 60] [--json] [--keep DIR]

Both pages are served by `streamlit run` on 127.0.0.1 and opened in two tabs of the same
Chromium; presses alternate between them, so machine load falls on both alike.

- project: the demo project (built fresh), the annotator dana labelling by keys as a person
  would (V in stage 1, Ctrl+Enter in stage 2, Y in stage 3), each press made once the page shows
  it is ready (the new question's short key pause is not counted);
- ruling: the adjudicator ada on the disputes page of the same app, ruling the dispute on screen by
  its first key (V, Y or 1) as soon as the page shows it is ready; settled when the next dispute
  shows. Her tab has its own browser context (her own session cookie);
- baseline: a script with one `st.button(shortcut="Y")` whose callback counts the presses,
  served with Streamlit's own settings (a folder without .streamlit/config.toml), usage
  statistics off (benchmarks/_app_server.py: no request leaves the machine);
- baseline, app settings: the same script served with this app's .streamlit/config.toml (which
  turns off Streamlit's full garbage collection after every run), so the ratio to it is the
  page's own cost, the server's settings aside.

A press is timed inside the page: from its keydown (performance.now(), in a capture listener)
to the first animation frame at which the app's script has finished its run, no element is
still marked stale, and the page shows the answer (a new question, or the new count).
Reported: median, p90 and max per page, the machine's load average before and after, the ratios project / baseline (target ≤ 2 for both
the median and the p90) and ruling / project (the adjudicator's key against the annotator's, same
run; target ≤ 2).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _app_server import served  # noqa: E402

from annotation.demo.project import build_demo  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
WHO = "dana"
ADJUDICATOR = "ada"
BASELINE_SCRIPT = """
import streamlit as st

st.session_state.setdefault("presses", 0)


def count():
    st.session_state.presses += 1


st.button("Yes", key="yes", shortcut="Y", on_click=count)
with st.container(key="count"):
    st.markdown(f"presses: {st.session_state.presses}")
"""
# Installed in each tab: stamps each keydown, then watches frames until the page has settled.
TIMER_JS = """(shown) => { window.__keypressTiming = new Promise((resolve) => {
  const idle = () => document.querySelector('[data-test-script-state]')
      ?.getAttribute('data-test-script-state') === 'notRunning';
  let pressedAt = null;
  const armedAt = performance.now();
  const tick = () => {
    const now = performance.now();
    if (pressedAt === null && window.__lastKeydown > armedAt) pressedAt = window.__lastKeydown;
    if (pressedAt === null && now - armedAt > 30000) {
      resolve(-2);  // the key never reached the page: reported, not waited for
      return;
    }
    if (pressedAt !== null && now - pressedAt > 30000) {
      resolve(-1);  // never settled: reported, not waited for
      return;
    }
    if (pressedAt !== null) {
      const changed = (SHOWN)() !== shown;
      if (changed && idle() && !document.querySelector('[data-stale="true"]')) {
        resolve(now - pressedAt);
        return;
      }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}); }"""
# Added before any page script, so it sees each keydown first (the app's key script stops the event).
KEYDOWN_STAMP_JS = (
    "window.addEventListener('keydown', () => { window.__lastKeydown = performance.now(); }, true);"
)
PROJECT_SHOWN = "() => window.__murgatKeys?.question ?? null"
BASELINE_SHOWN = "() => document.querySelector('.st-key-count')?.innerText ?? null"
IDLE_JS = """() => document.querySelector('[data-test-script-state]')?.getAttribute('data-test-script-state')
    === 'notRunning' && !document.querySelector('[data-stale="true"]')"""
READY_JS = """() => document.querySelector('[data-test-script-state]')?.getAttribute('data-test-script-state')
    === 'notRunning' && document.body.dataset.murgatReady === '1' && !!window.__murgatKeys?.question"""


def key_for(page) -> str:
    """The key a person presses for the decision on screen."""
    stage = page.locator("text=/Stage \\d ·/").first.inner_text()
    return {"1": "v", "2": "Control+Enter", "3": "y"}[stage.split("Stage ", 1)[1][0]]


def ruling_key(page) -> str:
    """The first key of the dispute on screen's legend (rule yes/verifiable, or the first list)."""
    return page.locator(".murgat-legend kbd").first.inner_text().lower()


def signed_in(browser_context, url: str, who: str):
    page = browser_context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    page.get_by_role("textbox", name="Name").fill(who)
    page.get_by_role("textbox", name="Password").fill(who)
    page.get_by_role("button", name="Sign in").click()
    return page


def timed_press(page, key: str, shown_js: str) -> float:
    shown = page.evaluate(shown_js)
    page.evaluate(TIMER_JS.replace("(SHOWN)", f"({shown_js})"), shown)
    page.keyboard.press(key)
    return float(page.evaluate("() => window.__keypressTiming"))


def measure(
    project_url: str, baseline_urls: dict[str, str], presses: int, warm_up: int
) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    samples: dict[str, list[float]] = {name: [] for name in ("project", "ruling", *baseline_urls)}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        browser_context = browser.new_context(viewport={"width": 1440, "height": 900})
        browser_context.add_init_script(KEYDOWN_STAMP_JS)
        project = signed_in(browser_context, project_url, WHO)
        adjudicator_context = browser.new_context(viewport={"width": 1440, "height": 900})
        adjudicator_context.add_init_script(KEYDOWN_STAMP_JS)
        disputes = signed_in(adjudicator_context, project_url, ADJUDICATOR)  # lands on Disputes
        baselines = {}
        for name, url in baseline_urls.items():
            baselines[name] = browser_context.new_page()
            baselines[name].set_default_timeout(60_000)
            baselines[name].goto(url)
            baselines[name].get_by_text("presses: 0").wait_for()
        for i in range(warm_up + presses):
            project.bring_to_front()
            project.wait_for_function(READY_JS)
            key = key_for(project)
            took = {"project": timed_press(project, key, PROJECT_SHOWN)}
            disputes.bring_to_front()
            disputes.wait_for_function(READY_JS)
            took["ruling"] = timed_press(disputes, ruling_key(disputes), PROJECT_SHOWN)
            for name, page in baselines.items():
                page.bring_to_front()
                page.wait_for_function(IDLE_JS)
                took[name] = timed_press(page, "y", BASELINE_SHOWN)
            if min(took.values()) < 0:
                raise RuntimeError(
                    f"press {i}: a key never arrived (-2) or a page never settled (-1) in 30 s: {took}"
                )
            if i >= warm_up:
                for name, value in took.items():
                    samples[name].append(value)
            if os.environ.get("KEYPRESS_TRACE"):
                print(
                    f"press {i} ({key}): " + ", ".join(f"{k} {v:.0f} ms" for k, v in took.items()),
                    file=sys.stderr,
                )
        browser.close()
    return samples


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presses", type=int, default=60)
    parser.add_argument("--warm-up", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    args = parser.parse_args()
    load_before = os.getloadavg()  # the machine is shared: the figures are read beside its load
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        build_demo(folder / "demo")
        baseline_script = folder / "one_button.py"
        baseline_script.write_text(BASELINE_SCRIPT)
        with (
            served(ROOT / "app.py", folder / "demo", folder / "app.log") as project_url,
            served(baseline_script, folder / "demo", folder / "baseline.log", cwd=folder) as stock_url,
            served(baseline_script, folder / "demo", folder / "baseline_app.log") as app_settings_url,
        ):
            baselines = {"baseline": stock_url, "baseline, app settings": app_settings_url}
            samples = measure(project_url, baselines, args.presses, args.warm_up)
    result = {"presses": args.presses, **{name: summary(values) for name, values in samples.items()}}
    result["load average (1, 5, 15 min)"] = {"before": load_before, "after": os.getloadavg()}
    for name in ("baseline", "baseline, app settings"):
        result[f"ratio to {name}"] = {
            "median": round(result["project"]["median_ms"] / result[name]["median_ms"], 2),
            "p90": round(result["project"]["p90_ms"] / result[name]["p90_ms"], 2),
        }
    result["ruling / project"] = {
        "median": round(result["ruling"]["median_ms"] / result["project"]["median_ms"], 2),
        "p90": round(result["ruling"]["p90_ms"] / result["project"]["p90_ms"], 2),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name in samples:
        s = result[name]
        print(
            f"{name:23s} median {s['median_ms']:7.1f} ms   p90 {s['p90_ms']:7.1f} ms   max {s['max_ms']:7.1f} ms"
        )
    for name in ("baseline", "baseline, app settings"):
        ratio = result[f"ratio to {name}"]
        print(f"project / {name:13s} median {ratio['median']:.2f}×   p90 {ratio['p90']:.2f}×   (target ≤ 2×)")
    load = result["load average (1, 5, 15 min)"]
    print("load average (1, 5, 15 min): before " + ", ".join(f"{x:.2f}" for x in load["before"]), end="")
    print(", after " + ", ".join(f"{x:.2f}" for x in load["after"]))
    ratio = result["ruling / project"]
    print(
        f"ruling / project (annotator key) median {ratio['median']:.2f}×   p90 {ratio['p90']:.2f}×   (target ≤ 2×)"
    )


if __name__ == "__main__":
    main()
