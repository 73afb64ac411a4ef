"""The demo project: synthetic videos, MURGAT-style responses about them, complete labels from
three simulated annotators, an adjudicator's rulings wherever their majority misses the ground
truth, and records from simulated judge configurations of known quality — built offline and
deterministically from a seed.

Every fact is true or false by construction: responses are written from the scene list
(`videos.py`), and the ground truth, annotators and judges all ask the same oracle
(`claim_holds_at`); annotators and judges then make errors at known per-stage rates. The
project's gold is derived from labels and rulings as in any project, and equals the truth.
The ground truth per sentence is `ground_truth.py`, the simulated people and judges `labellers.py`;
this module is the adjudicator who rules to the truth and the build.
"""

from __future__ import annotations

import json
import random
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path

from annotation.agreement.adjudication import adjudicate
from annotation.agreement.clusters import same_facts
from annotation.agreement.gold import GoldValue
from annotation.agreement.paraphrase import SAME_FACT_THRESHOLD, paraphrase_similarity
from annotation.demo.ground_truth import align_plan, gold_record
from annotation.demo.labellers import (
    ANNOTATORS,
    JUDGE_CONFIGS,
    judge_labeller,
    judge_source,
    label_response,
    labelled_record,
    write_label_events,
)
from annotation.demo.models import MODELS, RESPONSES_PER_MODEL, labelled_model, quality_of
from annotation.demo.texts import Plan, make_response
from annotation.demo.videos import VideoTruth, make_video_truth, render_video, write_truth
from annotation.project import register_media
from annotation.project_settings import DEFAULT_PAD_S, write_settings
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.ids import model_response_id
from annotation.protocol.records import EvaluationRecord, Response, Sentence
from annotation.protocol.sentences import sentences_for_response
from annotation.state import project_state
from annotation.store.accounts import check_new_account_name
from annotation.store.project_store import DB_NAME, ProjectStore
from annotation.work.sample_queues import create_sample_queue, set_annotation_scope

VIDEO_NAMES = ("demo-a.mp4", "demo-b.mp4", "demo-c.mp4")
RESPONSES_PER_VIDEO = 8
TRUTH_FILE = "demo_ground_truth.json"
LABELLED_QUEUE = "labelled in the demo"  # the 24 responses people are asked
ACCOUNTS = (
    ("admin", "admin"),
    ("ada", "adjudicator"),
    ("alice", "annotator"),
    ("bob", "annotator"),
    ("carol", "annotator"),
    ("dana", "annotator"),
)  # password = name
# Their scrypt hashes (SCRYPT_N), made once with annotation.store.accounts.hash_password: hashing six
# public passwords took ≈ 3 of a build's ≈ 7 CPU s, and signing in still checks them with scrypt.
PASSWORD_HASHES = {
    "admin": "scrypt$131072$8$1$hp5ZsqaR0tL6WADPMXcwSA==$jTyoI6Zz/9ZMVxALQAGsa+dyutw5PFdGkx/+1eIANIg=",
    "ada": "scrypt$131072$8$1$D2ieJP3fdZOoglt1LQGTFw==$0v6VD21AB3m/1zTzdB7frFaxoC/1S40Sj470NaWdDyI=",
    "alice": "scrypt$131072$8$1$y4HcWv9DgSsUVDTjKhQKRA==$UDAveWOg620//WE4Por5qYOFk2OrEAl5So4/LUNkhqQ=",
    "bob": "scrypt$131072$8$1$DtrXoZwgi6fnaHxUEURxPw==$OBTuwGQEJHaLwVAwUFxcAlPJ7wDSJsmm+hi6E0lhxG4=",
    "carol": "scrypt$131072$8$1$yeFnMKco9BP2eDmpNBWdlg==$QUHqcRRXT6gf8LK3BQ9RGvdvEUku9cVtwSyK43OT3Nw=",
    "dana": "scrypt$131072$8$1$437PJodHVhjJAr0W1vPflQ==$/isSO7eMfOPSGZvGNkLR1SzsRKrbxmxK2Wz77W7vmPw=",
}
SETTINGS = {
    "project_name": "MURGAT demo (synthetic data)",
    "synthetic": True,
    "campaign_mode": "end_to_end",
    # four people per response: alice, bob and carol labelled all 24, so dana, the fourth, has work
    "overlap": 4,
    "pad_s": DEFAULT_PAD_S,
}


# -- adjudication ------------------------------------------------------------------------------
def _true_value(truth: EvaluationRecord, value: GoldValue):
    """What the ground truth says for one gold value; None when the truth does not know the unit
    (a fact only the annotators stated: it disappears once the fact list is ruled). A gold fact is
    the truth's fact with its citations that it rewords (the canonical wording may be anyone's)."""
    if value.sentence >= len(truth.sentences):
        return None
    sentence = truth.sentences[value.sentence]
    task = value.task
    if task.question == "verifiable":
        return sentence.verifiable
    if task.question == "facts":
        return [{"text": f.text, "citations": sorted(set(f.citations))} for f in sentence.facts]
    alike = [
        (paraphrase_similarity(f.text, value.fact), f)
        for f in sentence.facts
        if tuple(sorted(set(f.citations))) == value.citations
    ]
    similarity, fact = max(alike, key=lambda pair: pair[0], default=(0.0, None))
    if fact is None or similarity < SAME_FACT_THRESHOLD:
        return None
    entailment = derive_entailment(fact, sentence)
    if task.j is None:
        return entailment.all
    # j is a position in the gold fact's citations; the truth's fact may order them otherwise
    return getattr(entailment, task.question)[list(fact.citations).index(value.citations[task.j])]


def _agrees(answer, value) -> bool:
    """Does the gold value say what the truth says? Fact lists in any wording (`same_facts`)."""
    if isinstance(answer, list):
        return isinstance(value, list) and same_facts(answer, value)
    return answer == value


def rule_to_the_truth(store: ProjectStore, truth: dict[str, EvaluationRecord], rng: random.Random) -> int:
    """The adjudicator `ada` rules wherever the annotators' gold is unresolved or differs from the
    ground truth, so the project's gold (derived from labels and rulings, as in any project) is
    the truth — fact lists in whatever wording the clusters chose. Stage by stage: a ruled fact
    list brings new stage-3 questions. Returns the rulings."""
    ruled = 0
    for _ in range(4):
        wrong = [
            (value, answer)
            for value in project_state(store).gold.values
            if value.task is not None
            and value.ruling is None
            and (answer := _true_value(truth[value.response_id], value)) is not None
            and not _agrees(answer, value.value)
        ]
        for value, answer in wrong:
            adjudicate(
                store,
                "ada",
                value.response_id,
                value.unit,
                value.task,
                answer,
                "annotator error" if value.values else None,
                spent_ms=rng.randint(3000, 20000),
            )
        ruled += len(wrong)
        if not wrong:
            return ruled
    raise RuntimeError("adjudicating the demo to its ground truth did not settle")


# -- the build --------------------------------------------------------------------------------
def _existing_demo(directory: Path, seed: int) -> bool:
    """True when `directory` holds a complete demo built with `seed`; False when it is empty
    or absent. ValueError for anything else (read-only look: a real project is not touched)."""
    if not directory.exists() or not any(directory.iterdir()):
        return False
    db = directory / DB_NAME
    demo = None
    if db.exists():
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'demo'").fetchone()
            demo = None if row is None else json.loads(row[0])
        except sqlite3.DatabaseError:
            demo = None
        finally:
            conn.close()
    if not isinstance(demo, dict):
        raise ValueError(f"{directory}: not empty and not a demo project; choose an empty directory")
    if demo.get("seed") != seed:
        raise ValueError(
            f"{directory}: holds a demo built with seed {demo.get('seed')}, not {seed}; "
            "choose an empty directory"
        )
    if not demo.get("complete"):
        raise ValueError(f"{directory}: holds an interrupted demo build; delete it and build again")
    return True


def build_demo(directory: Path, *, seed: int = 0) -> ProjectStore:
    """Build the demo project in `directory` (see module doc) and return its store.

    An empty or absent directory is filled; a directory that already holds a complete demo
    built with the same seed is returned unchanged (labels made since are kept). Raises
    ValueError for any other non-empty directory. Same seed → same media, responses and
    records (event timestamps differ).
    """
    directory = Path(directory)
    if _existing_demo(directory, seed):
        return ProjectStore.open(directory)
    store = ProjectStore.open(directory, create=True)
    store.set_setting("demo", {"seed": seed, "complete": False, "ground_truth": TRUTH_FILE})
    write_settings(store, SETTINGS)

    videos = [make_video_truth(name, random.Random(f"{seed}:video:{name}")) for name in VIDEO_NAMES]
    judged = render_videos(store, videos, seed)
    write_truth(directory / TRUTH_FILE, videos, seed)

    plans = add_labelled_responses(store, videos, seed)
    for name, role in ACCOUNTS:
        # Hashes made beforehand instead of `add_account` (six full scrypts), the same name rules.
        store.add_user(check_new_account_name(store, name), role, PASSWORD_HASHES[name])

    golds = {}
    for truth, plan in plans:
        rid = plan.response.response_id
        golds[rid] = (truth, align_plan(plan, store.response_sentences(rid)))
    for name, who in ANNOTATORS.items():
        for rid, (truth, gold) in golds.items():
            rng = random.Random(f"{seed}:human:{name}:{rid}")
            write_label_events(store, name, rid, who, label_response(truth, gold, who, rng), rng)
    rule_to_the_truth(
        store,
        {rid: gold_record(rid, truth, gold) for rid, (truth, gold) in golds.items()},
        random.Random(f"{seed}:adjudication"),
    )
    for stages in JUDGE_CONFIGS:
        source, who = judge_source(stages), judge_labeller(stages)
        store.add_records(
            [
                labelled_record(
                    rid,
                    source,
                    gold,
                    label_response(truth, gold, who, random.Random(f"{seed}:{source}:{rid}")),
                )
                for rid, (truth, gold) in golds.items()
            ],
            imported_from="demo",
        )
    add_judged_responses(store, videos, judged, seed)
    create_sample_queue(store, LABELLED_QUEUE, [(p.response.response_id, p.response.model) for _, p in plans])
    set_annotation_scope(store, "queues")  # people are asked the labelled responses, not the judged ones
    store.set_setting("demo", {"seed": seed, "complete": True, "ground_truth": TRUTH_FILE})
    return store


def render_videos(store: ProjectStore, videos: list[VideoTruth], seed: int) -> list[tuple]:
    """Render the videos into the media root (ffmpeg, two at a time) and meanwhile, in this thread,
    write the models' judged responses against the planned durations (`model_responses`)."""
    store.media_root.mkdir(parents=True, exist_ok=True)

    def render(truth: VideoTruth) -> None:
        noise_seed = random.Random(f"{seed}:noise:{truth.name}").getrandbits(32)
        render_video(truth, store.media_root / truth.name, noise_seed)

    planned = {truth.name: float(truth.duration_s) for truth in videos}
    with ThreadPoolExecutor(max_workers=2) as pool:  # the work is in ffmpeg processes: 2 cores
        rendering = [pool.submit(render, truth) for truth in videos]
        judged = model_responses(videos, planned, JUDGE_CONFIGS[0], seed)
        for done in rendering:
            done.result()
    return judged


def add_judged_responses(
    store: ProjectStore, videos: list[VideoTruth], judged: list[tuple], seed: int
) -> None:
    """Store the models' judged responses (written again should a probed duration differ from
    the planned one: citations are validated against the probed duration)."""
    planned = {truth.name: float(truth.duration_s) for truth in videos}
    probed = {truth.name: store.media(truth.name).duration_s for truth in videos}
    if probed != planned:
        judged = model_responses(videos, probed, JUDGE_CONFIGS[0], seed)
    with store.database.transaction():
        store.add_responses(
            [(response, sentences) for response, sentences, _ in judged], imported_from="demo"
        )
        store.add_records([record for _, _, record in judged], imported_from="demo")


def add_labelled_responses(store: ProjectStore, videos: list[VideoTruth], seed: int) -> list[tuple]:
    """The 24 responses people label, eight per video, each given a model (models.py); returns
    (video truth, plan) pairs in import order."""
    plans: list[tuple[VideoTruth, Plan]] = []
    for truth in videos:
        duration = register_media(store, truth.name).duration_s
        for k in range(RESPONSES_PER_VIDEO):
            rid = f"{Path(truth.name).stem}-{k + 1:02d}"
            plan = make_response(rid, truth, len(plans), random.Random(f"{seed}:response:{rid}"))
            model = labelled_model(plan.quality, random.Random(f"{seed}:model:{rid}"))
            plan = replace(plan, response=replace(plan.response, model=model))
            store.add_responses(
                [(plan.response, sentences_for_response(plan.response.text, duration))], imported_from="demo"
            )
            plans.append((truth, plan))
    return plans


def model_responses(
    videos: list[VideoTruth], durations: dict[str, float | None], judge: tuple[str, str, str], seed: int
) -> list[tuple[Response, list[Sentence], EvaluationRecord]]:
    """RESPONSES_PER_MODEL responses per model (models.py) over the three videos, split against
    the videos' `durations`, with the `judge` configuration's record of each: nobody labels them."""
    source, who = judge_source(judge), judge_labeller(judge)
    out = []
    for model in MODELS:
        for k in range(RESPONSES_PER_MODEL):
            truth = videos[k % len(videos)]
            rid = model_response_id(model, f"{Path(truth.name).stem}-q{k + 1:03d}")
            plan = make_response(
                rid, truth, k, random.Random(f"{seed}:response:{rid}"), model, partial(quality_of, model)
            )
            sentences = sentences_for_response(plan.response.text, durations[truth.name])
            gold = align_plan(plan, sentences)
            labels = label_response(truth, gold, who, random.Random(f"{seed}:{source}:{rid}"))
            out.append((plan.response, sentences, labelled_record(rid, source, gold, labels)))
    return out
