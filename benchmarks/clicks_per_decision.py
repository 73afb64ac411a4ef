"""Actions per decision, by stage, before and after issue 14, measured on the real pages.

    .venv/bin/python benchmarks/clicks_per_decision.py [--before e9653e6] [--responses 2] [--json]

The app as it was at `--before` (exported with `git archive` into a temporary folder) and the app
as it is now are served one after the other, each on the demo project its own code builds (same
seed; the older code cannot open a newer project file); in Chromium at
1440×900 the demo annotator dana labels her first `--responses` responses in each, answering
"verifiable" / confirming the proposed facts / "yes, supported" throughout. At every decision the
page is inspected before answering:

- players: how many media controls the decision shows for its segments (a person plays each);
- below the fold: whether the answer control is outside the viewport without scrolling.

From these, per decision, the actions a person needs:
- before: a click on each player's play button, a scroll when the answer is below the fold, and a
  click on the answer (the answer key dies once an <audio> play button has been clicked, so the
  answer is counted as a click whenever an audio player is there, else as a key);
- after: one key (P) to play every segment together when there is any, and the answer key.
Reported per stage: decisions, mean players, share below the fold, mean clicks, mean keys, mean
scrolls, before and after.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _app_server import served  # noqa: E402
from keypress_speed import CHROMIUM, READY_JS, WHO  # noqa: E402

from annotation.demo.project import build_demo  # noqa: E402

IDLE_JS = """() => document.querySelector('[data-test-script-state]')?.getAttribute('data-test-script-state')
    === 'notRunning' && !document.querySelector('[data-stale="true"]')"""
# What changes with every decision: the question's key (now), the progress caption (before).
MARKER_JS = {
    True: "() => window.__murgatKeys?.question ?? ''",
    False: """() => [...document.querySelectorAll('h3, [data-testid="stCaptionContainer"]')]
                 .map(e => e.innerText).filter(t => /Stage|decisions known/.test(t)).join(' | ')""",
}
BUILD_DEMO = "import sys; from pathlib import Path; from annotation.demo.project import build_demo; build_demo(Path(sys.argv[1]))"
ANSWER_NAMES = {1: "^(Verifiable)", 2: "^Confirm facts", 3: "^Yes, supported"}


def export(revision: str, into: Path) -> Path:
    """The tree of `revision` as files in `into` (git archive; the working tree is not touched)."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def inspect(page, stage: int, new_app: bool) -> dict:
    """The decision on screen: its players and whether its answer control is below the fold."""
    players = ".murgat-player" if new_app else "[data-testid='stMain'] video, [data-testid='stMain'] audio"
    audio = ".murgat-kind-audio" if new_app else "[data-testid='stMain'] audio"
    answer = page.get_by_role("button", name=re.compile(ANSWER_NAMES[stage])).first
    box = answer.bounding_box()
    return {
        "players": page.locator(players).count(),
        "audio": page.locator(audio).count() > 0,
        "below_fold": box is None or box["y"] + box["height"] > 900,
    }


def actions(decision: dict, new_app: bool) -> dict:
    if new_app:
        return {"clicks": 0, "keys": (1 if decision["players"] else 0) + 1, "scrolls": 0}
    answer_is_click = decision["audio"] or decision["below_fold"]
    return {
        "clicks": decision["players"] + (1 if answer_is_click else 0),
        "keys": 0 if answer_is_click else 1,
        "scrolls": 1 if decision["below_fold"] else 0,
    }


def walk(url: str, responses: int, new_app: bool) -> list[dict]:
    """Label dana's first `responses` responses; one row per decision."""
    from playwright.sync_api import sync_playwright

    rows: list[dict] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_default_timeout(60_000)
        page.goto(url)
        page.get_by_role("textbox", name="Name").fill(WHO)
        page.get_by_role("textbox", name="Password").fill(WHO)
        page.get_by_role("button", name="Sign in").click()
        seen: list[str] = []
        for _ in range(400):
            # One predicate: idle, a question on screen and ready (checked apart, a rerun between
            # the checks could show 'ready' from the page before the question)
            page.wait_for_function(READY_JS if new_app else IDLE_JS)
            text = page.locator("text=/Stage \\d ·/").first.inner_text()
            stage = int(text.split("Stage ", 1)[1][0])
            response = page.locator("text=/demo-[a-z]-\\d+/").first.inner_text()
            rid = next(word for word in response.replace("·", " ").split() if word.startswith("demo-"))
            if rid not in seen:
                seen.append(rid)
                if len(seen) > responses:
                    break
            decision = {"stage": stage, **inspect(page, stage, new_app)}
            rows.append({**decision, **actions(decision, new_app)})
            shown = page.evaluate(MARKER_JS[new_app])
            if new_app:
                page.keyboard.press({1: "v", 2: "Control+Enter", 3: "y"}[stage])
            else:
                page.get_by_role("button", name=re.compile(ANSWER_NAMES[stage])).first.click()
            try:
                page.wait_for_function(f"shown => ({MARKER_JS[new_app]})() !== shown", arg=shown)
            except Exception as exc:  # say which decision did not move on, and keep what the page showed
                page.screenshot(path=str(Path(tempfile.gettempdir()) / "clicks_per_decision_stuck.png"))
                raise RuntimeError(
                    f"decision {len(rows)} (stage {stage}, {shown!r}) did not move on"
                ) from exc
        browser.close()
    return rows


def summary(rows: list[dict]) -> dict:
    by_stage = defaultdict(list)
    for row in rows:
        by_stage[row["stage"]].append(row)
    out = {}
    for stage, items in sorted(by_stage.items()):
        n = len(items)
        out[f"stage {stage}"] = {
            "decisions": n,
            "players": round(sum(r["players"] for r in items) / n, 2),
            "below_fold": round(sum(r["below_fold"] for r in items) / n, 2),
            "clicks": round(sum(r["clicks"] for r in items) / n, 2),
            "keys": round(sum(r["keys"] for r in items) / n, 2),
            "scrolls": round(sum(r["scrolls"] for r in items) / n, 2),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="e9653e6", help="the revision before issue 14's work")
    parser.add_argument("--responses", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        old_app = export(args.before, folder / "before")
        build_demo(folder / "demo")
        # The older code cannot open a project of a newer schema: it builds its own demo (same seed).
        subprocess.run(
            [sys.executable, "-c", BUILD_DEMO, str(folder / "demo_before")], cwd=old_app, check=True
        )
        with served(old_app / "app.py", folder / "demo_before", folder / "before.log", cwd=old_app) as url:
            before = summary(walk(url, args.responses, new_app=False))
        with served(ROOT / "app.py", folder / "demo", folder / "after.log") as url:
            after = summary(walk(url, args.responses, new_app=True))
    result = {"responses": args.responses, "before": before, "after": after}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, table in (("before", before), ("after", after)):
        print(name)
        for stage, s in table.items():
            print(
                f"  {stage}: {s['decisions']:3d} decisions, players {s['players']:.2f}, below the fold "
                f"{s['below_fold']:.0%}; per decision {s['clicks']:.2f} clicks, {s['keys']:.2f} keys, "
                f"{s['scrolls']:.2f} scrolls"
            )


if __name__ == "__main__":
    main()
