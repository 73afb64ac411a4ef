"""Script time of one label click on the annotate page, in a generated 10,000-response project.

    .venv/bin/python benchmarks/label_click_speed.py [--responses 10000] [--clicks 60] [--keep DIR]

The project: N responses of five cited sentences over one small generated video, the demo's
roles, overlap 3, and a realistic event log (three annotators have finished half of their
queues: ~25 events per finished response). The person clicking has finished half of theirs.

Measured in this one run, each as a median over `--clicks` clicks of "Not verifiable" (after a
warm-up that fills the clip cache, as the page's background prefetch does while a person reads):
- page script: the time the annotate page's script takes on the rerun a click causes (the
  frame, the queue, the response, the players, the controls), timed around
  `pages.widgets.frame.run_page`; clicks that finish a response (mark done, re-read the
  queue, open the next) are also reported apart;
- AppTest click: the wall time of `click().run()` (callback + rerun + AppTest's own overhead),
  against the baseline: the same click on a one-button script whose callback writes the same
  event (what Streamlit + AppTest + one SQLite write cost with no page at all);
- the functions a click runs, timed directly: record_answer, then the labels, sentences and
  next question of the response.
Target: page script median ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from media_fixtures import make_pattern_video
from streamlit.testing.v1 import AppTest

from annotation.project import register_media
from annotation.protocol.ids import Unit
from annotation.protocol.records import Response
from annotation.protocol.sentences import sentences_for_response
from annotation.store.accounts import add_account
from annotation.store.event_log import utc_now
from annotation.store.project_store import ProjectStore
from annotation.work.labels import labels_by_unit
from annotation.work.queues import assigned_response_ids, next_unfinished, pool
from annotation.work.session import next_question, record_answer

WHO = "ann"
SPANS = ("0:02", "0:03-0:05", "0:07", "0:10-0:12", "0:14")
BASELINE_SCRIPT = """
import streamlit as st
from annotation.store.project_store import ProjectStore
store = ProjectStore.open({directory!r})
def write():
    store.events.append("ann", {response_id!r}, "s0", "verifiable", False, spent_ms=1)
st.button("Not verifiable", key="answer:False", on_click=write)
"""


def response_text(i: int) -> str:
    parts = []
    for k in range(5):
        modality = "visual" if (i + k) % 3 else "audio"
        parts.append(f"Observation {k} of item {i} holds ({modality}, {SPANS[(i + k) % len(SPANS)]}).")
    return " ".join(parts) + " So the answer is A.\nAnswer: A"


def generate(directory: Path, n_responses: int) -> ProjectStore:
    store = ProjectStore.open(directory, create=True)
    store.media_root.mkdir(parents=True, exist_ok=True)
    make_pattern_video(store.media_root / "clip.mp4", width=320, height=240, fps=25, duration_s=20)
    duration = register_media(store, "clip.mp4").duration_s
    store.add_responses(
        [
            (
                Response(f"r{i:05d}", response_text(i), "clip.mp4", "Which holds?", ["A. x", "B. y"], "A"),
                sentences_for_response(response_text(i), duration),
            )
            for i in range(n_responses)
        ]
    )
    for name, role in (
        ("admin", "admin"),
        ("ann", "annotator"),
        ("bob", "annotator"),
        ("carol", "annotator"),
        ("dana", "annotator"),
    ):
        add_account(store, name, role, name)
    store.set_setting("overlap", 3)
    store.set_setting("pad_s", 1.0)
    members, ids = pool(store), store.response_ids()
    rows, now = [], utc_now()
    for who in ("ann", "bob", "carol"):
        mine = assigned_response_ids(store, who, response_ids=ids, members=members)
        for rid in mine[: len(mine) // 2]:
            for s in range(6):  # five sentences and the reasoning line
                rows.append((now, who, rid, str(Unit.of_sentence(s)), "verifiable", "false", 3000))
                rows.append((now, who, rid, str(Unit.of_sentence(s)), "verifiable", "true", 2500))  # relabel
            rows += [(now, who, rid, f"s0/f{k}", "all", "true", 4000) for k in range(12)]
            rows.append((now, who, rid, "response", "done", "true", 900))
    store.database.connection.execute("BEGIN")
    store.database.connection.executemany(
        "INSERT INTO events(at, who, response_id, unit, task, kind, value, spent_ms) "
        "VALUES (?, ?, ?, ?, ?, 'label', ?, ?)",
        rows,
    )
    store.database.connection.execute("COMMIT")
    return store


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


class ScriptTimer:
    """Times every run of the page frame (pages.widgets.frame.run_page: sign-in check, sidebar,
    banner and the whole annotate page) — the page script's own work, without AppTest's."""

    def __init__(self):
        import pages.widgets.frame as frame

        self.frame, self.original, self.samples = frame, frame.run_page, []

    def __enter__(self) -> ScriptTimer:
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return self.original(*args, **kwargs)
            finally:
                self.samples.append(time.perf_counter() - started)

        self.frame.run_page = timed
        return self

    def __exit__(self, *exc) -> None:
        self.frame.run_page = self.original


def time_page_clicks(directory: Path, clicks: int, warm_up: int) -> dict[str, list[float]]:
    """Per measured click (seconds): AppTest wall time, the page script's time, and whether the
    click finished a response (mark done, re-read the queue, open the next one)."""
    os.environ["MURGAT_PROJECT"] = str(directory)
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    app.text_input(key="sign_in_name").input(WHO)
    app.text_input(key="sign_in_password").input(WHO)
    next(b for b in app.button if b.label == "Sign in").click().run()
    out: dict[str, list[float]] = {"wall": [], "script": [], "script_within": [], "script_finishing": []}
    with ScriptTimer() as timer:
        for n in range(warm_up + clicks):
            before = app.session_state["current_response"]
            timer.samples.clear()
            started = time.perf_counter()
            # The answer buttons carry their question in the key: 'answer:False:<rid>|<unit>|<task>'.
            next(b for b in app.button if str(b.key).startswith("answer:False:")).click().run()
            wall = time.perf_counter() - started
            if app.exception:
                raise RuntimeError(app.exception[0].value)
            if n < warm_up:
                continue
            script = sum(timer.samples)
            out["wall"].append(wall)
            out["script"].append(script)
            finished = app.session_state["current_response"] != before
            out["script_finishing" if finished else "script_within"].append(script)
    return out


def time_baseline_clicks(directory: Path, response_id: str, clicks: int, warm_up: int) -> list[float]:
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "baseline.py"
        script.write_text(BASELINE_SCRIPT.format(directory=str(directory), response_id=response_id))
        app = AppTest.from_file(str(script), default_timeout=60).run()
        samples = []
        for n in range(warm_up + clicks):
            started = time.perf_counter()
            app.button(key="answer:False").click().run()
            if n >= warm_up:
                samples.append(time.perf_counter() - started)
        return samples


def time_click_functions(store: ProjectStore, clicks: int) -> list[float]:
    """What a click costs outside Streamlit: write the answer, then find the next question."""
    samples = []
    rid = next_unfinished(store, "bob")
    for _ in range(clicks):
        started = time.perf_counter()
        sentences = store.response_sentences(rid)
        question = next_question(sentences, labels_by_unit(store.events.current_labels("bob", rid)))
        if question is None:
            store.events.append("bob", rid, "response", "done", True)
            rid = next_unfinished(store, "bob")
            continue
        record_answer(store, "bob", rid, question, False, spent_ms=1)
        next_question(store.response_sentences(rid), labels_by_unit(store.events.current_labels("bob", rid)))
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--responses", type=int, default=10_000)
    parser.add_argument("--clicks", type=int, default=60)
    parser.add_argument("--warm-up", type=int, default=40)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or Path(scratch) / "project"
        started = time.perf_counter()
        store = generate(directory, args.responses)
        built_s = time.perf_counter() - started
        n_events = store.database.connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        page = time_page_clicks(directory, args.clicks, args.warm_up)
        baseline = time_baseline_clicks(directory, store.response_ids()[0], args.clicks, args.warm_up)
        functions = time_click_functions(store, args.clicks)
        result = {
            "responses": args.responses,
            "events": n_events,
            "project_built_s": round(built_s, 1),
            "clicks": len(page["wall"]),
            "page_script_median_ms": median_ms(page["script"]),
            "page_script_p90_ms": round(sorted(page["script"])[int(0.9 * len(page["script"]))] * 1000, 1),
            "page_script_within_response_median_ms": median_ms(page["script_within"]),
            "page_script_finishing_response_median_ms": (
                median_ms(page["script_finishing"]) if page["script_finishing"] else None
            ),
            "apptest_click_median_ms": median_ms(page["wall"]),
            "baseline_apptest_click_median_ms": median_ms(baseline),
            "ratio_click_to_baseline": round(
                statistics.median(page["wall"]) / statistics.median(baseline), 2
            ),
            "click_functions_median_ms": median_ms(functions),
            "target_page_script_median_ms": 50,
            "page_script_all_ms": [round(x * 1000, 1) for x in page["script"]],
        }
        result["meets_target"] = result["page_script_median_ms"] <= 50
        print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
