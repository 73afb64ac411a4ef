"""The demo project: synthetic videos, MURGAT-style responses about them, complete labels from
three simulated annotators, an adjudicator's rulings wherever their majority misses the ground
truth, and records from simulated judge configurations of known quality — built offline and
deterministically from a seed.

Every fact is true or false by construction: responses are written from the scene list
(`videos.py`), and the ground truth, annotators and judges all ask the same oracle
(`claim_holds_at`); annotators and judges then make errors at known per-stage rates. The
project's gold is derived from labels and rulings as in any project, and equals the truth.
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from annotation.agreement.clusters import same_facts
from annotation.agreement.gold import GoldValue, adjudicate, gold_from_store
from annotation.agreement.paraphrase import SAME_FACT_THRESHOLD, paraphrase_similarity
from annotation.demo.models import MODELS, RESPONSES_PER_MODEL, labelled_model, quality_of
from annotation.demo.texts import Plan, PlannedFact, make_response, supported
from annotation.demo.videos import VideoTruth, make_video_truth, render_video, write_truth
from annotation.project import register_media
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.ids import (
    PER_CITATION,
    RESPONSE_UNIT,
    Source,
    Task,
    entailment_task,
    fact_key,
    fact_unit,
    model_response_id,
    sentence_unit,
)
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from annotation.protocol.sentences import sentences_for_response
from annotation.store.accounts import add_account
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
SETTINGS = {
    "project_name": "MURGAT demo (synthetic data)",
    "synthetic": True,
    "campaign_mode": "end_to_end",
    "overlap": 3,
    "pad_s": 1.0,
}
GOLD_PROVENANCE = "demo ground truth"


@dataclass(frozen=True)
class Labeller:
    """Error rates of a simulated person or judge, per stage.

    Stage 1: `verify_error` flips a verifiability decision. Stage 2: `merge_rate` joins a
    sentence's first two facts, `split_rate` splits a coloured figure into shape + colour,
    `reword_rate` words a fact differently, `drop_rate` leaves one fact out. Stage 3:
    `entail_error` flips an answer (0.5 = a coin). `fast_rate` is the share of quick (< 2 s)
    decisions; `correct_rate` the share of stage-1 clicks first made wrong, then relabelled.
    """

    verify_error: float
    merge_rate: float
    split_rate: float
    reword_rate: float
    drop_rate: float
    entail_error: float
    fast_rate: float = 0.05
    correct_rate: float = 0.0


ANNOTATORS = {
    "alice": Labeller(0.04, 0.05, 0.10, 0.30, 0.02, 0.06, fast_rate=0.05, correct_rate=0.05),
    "bob": Labeller(0.08, 0.15, 0.05, 0.40, 0.05, 0.10, fast_rate=0.15),
    "carol": Labeller(0.15, 0.30, 0.00, 0.20, 0.15, 0.20, fast_rate=0.65),  # careless and fast
}
_VERIFIER = {"strong": 0.07, "good": 0.1, "weak": 0.3, "random": 0.5}
_DECOMPOSER = {
    "strong": (0.05, 0.05, 0.2, 0.0),
    "good": (0.15, 0.05, 0.4, 0.05),
    "weak": (0.3, 0.1, 0.5, 0.2),
    "random": (0.5, 0.2, 0.6, 0.4),
}
_ENTAILER = {"strong": 0.1, "good": 0.12, "weak": 0.3, "random": 0.5}
# (verifier, decomposer, entailment judge), best first: the order the demo promises.
JUDGE_CONFIGS = (
    ("strong", "strong", "strong"),
    ("weak", "good", "good"),
    ("good", "good", "weak"),
    ("random", "random", "random"),
)


def judge_source(stages: tuple[str, str, str]) -> str:
    return str(Source.judge_configuration(*(f"sim-{quality}" for quality in stages)))


def judge_labeller(stages: tuple[str, str, str]) -> Labeller:
    verifier, decomposer, entailer = stages
    return Labeller(_VERIFIER[verifier], *_DECOMPOSER[decomposer], _ENTAILER[entailer])


# -- gold -------------------------------------------------------------------------------------
@dataclass
class GoldSentence:
    """A stored sentence with what the plan says about it (facts as claims)."""

    sentence: Sentence
    verifiable: bool
    facts: tuple[PlannedFact, ...]


def align_plan(plan: Plan, sentences: list[Sentence]) -> list[GoldSentence]:
    """Pair the sentences the importer split with the planned ones. Raises RuntimeError when
    they differ, which means the templates wrote something the splitter reads otherwise."""
    texts = [s.text for s in plan.sentences]
    if texts != [s.text for s in sentences]:
        raise RuntimeError(
            f"demo response '{plan.response.response_id}' splits differently than "
            f"planned:\n{texts}\n{[s.text for s in sentences]}"
        )
    out = []
    for planned, sentence in zip(plan.sentences, sentences, strict=True):
        if planned.n_citations != len(sentence.citations):
            raise RuntimeError(
                f"'{sentence.text}': {len(sentence.citations)} citations parsed, "
                f"{planned.n_citations} planned"
            )
        facts = planned.facts if planned.verifiable and sentence.has_valid_citation else ()
        out.append(GoldSentence(sentence, planned.verifiable, facts))
    return out


def _true_entailment(truth: VideoTruth, sentence: Sentence, fact: PlannedFact) -> Entailment:
    cited = [sentence.citations[i] for i in fact.citations]
    rest = [[c for i, c in enumerate(cited) if i != j] for j in range(len(cited))]
    return Entailment(
        all=supported(truth, fact.claims, cited),
        alone=[supported(truth, fact.claims, [c]) for c in cited],
        without=[supported(truth, fact.claims, r) for r in rest],
    )


def gold_record(response_id: str, truth: VideoTruth, gold: list[GoldSentence]) -> EvaluationRecord:
    """Every value known from the ground truth, each marked as coming from it."""
    sentences = []
    for g in gold:
        facts = []
        for fact in g.facts:
            k = len(fact.citations)
            provenance = {
                name: GOLD_PROVENANCE
                for name in ["text", "all", *(Task(q, j).value_name for q in PER_CITATION for j in range(k))]
            }
            facts.append(
                Fact(fact.text, list(fact.citations), _true_entailment(truth, g.sentence, fact), provenance)
            )
        sentences.append(
            Sentence(
                g.sentence.text,
                g.verifiable,
                list(g.sentence.citations),
                facts,
                g.sentence.start,
                g.sentence.end,
                {"verifiable": GOLD_PROVENANCE},
            )
        )
    return EvaluationRecord(response_id, "gold", sentences)


# -- simulated labelling ----------------------------------------------------------------------
@dataclass
class LabelledFact:
    text: str
    citations: list[int]
    answers: dict[str, bool]  # stage-3 task → answer, only the questions PROTOCOL §2 cannot derive
    claims: tuple = ()  # what the simulated person meant: lets a benchmark align wordings by meaning


@dataclass
class LabelledSentence:
    verifiable: bool
    facts: list[LabelledFact] | None  # None: no stage 2 (not verifiable or no valid citation)


def _merge(a: PlannedFact, b: PlannedFact) -> PlannedFact:
    text = a.text.rstrip(".") + " and " + b.text[0].lower() + b.text[1:]
    return PlannedFact(text, a.claims + b.claims, tuple(sorted(set(a.citations) | set(b.citations))))


def _decompose(gold: GoldSentence, who: Labeller, rng: random.Random) -> list[PlannedFact]:
    """The labeller's fact list for a sentence: gold's, merged, split, reworded or thinned."""
    facts = list(gold.facts) or [
        PlannedFact(gold.sentence.text, (), tuple(gold.sentence.valid_citation_indices))
    ]
    if len(facts) >= 2 and rng.random() < who.merge_rate:
        facts[:2] = [_merge(facts[0], facts[1])]
    out: list[PlannedFact] = []
    for fact in facts:
        alternatives = fact.alternatives
        if fact.split and rng.random() < who.split_rate:
            out.extend(fact.split)
        elif alternatives and rng.random() < who.reword_rate:
            out.append(PlannedFact(rng.choice(alternatives), fact.claims, fact.citations))
        else:
            out.append(fact)
    if len(out) >= 2 and rng.random() < who.drop_rate:
        out.pop(rng.randrange(len(out)))
    unique = {fact_key(f.text, list(f.citations)): f for f in out}  # one fact per key (labels.py)
    return list(unique.values())


def _questions(sentence: Sentence, citations: tuple[int, ...]) -> list[tuple[str, int | None]]:
    """Stage-3 questions a person is asked: `all`, and `alone`/`without` per valid citation
    only where PROTOCOL §2 cannot derive them (alone from k = 2, without from k = 3)."""
    k = len(citations)
    valid = [j for j, index in enumerate(citations) if sentence.citations[index].valid]
    return (
        [("all", None)] + [("alone", j) for j in valid if k >= 2] + [("without", j) for j in valid if k >= 3]
    )


def label_response(
    truth: VideoTruth, gold: list[GoldSentence], who: Labeller, rng: random.Random
) -> list[LabelledSentence]:
    """What `who` answers on one response, stage by stage, errors included."""
    out = []
    for g in gold:
        verifiable = g.verifiable != (rng.random() < who.verify_error)
        if not (verifiable and g.sentence.has_valid_citation):
            out.append(LabelledSentence(verifiable, None))
            continue
        facts = []
        for fact in _decompose(g, who, rng):
            cited = [g.sentence.citations[i] for i in fact.citations]
            answers = {}
            for question, j in _questions(g.sentence, fact.citations):
                subset = (
                    cited
                    if question == "all"
                    else [cited[j]]
                    if question == "alone"
                    else cited[:j] + cited[j + 1 :]
                )
                answer = supported(truth, fact.claims, subset) != (rng.random() < who.entail_error)
                answers[entailment_task(question, j)] = answer
            facts.append(LabelledFact(fact.text, list(fact.citations), answers, fact.claims))
        out.append(LabelledSentence(verifiable, facts))
    return out


def labelled_record(
    response_id: str, source: str, gold: list[GoldSentence], labels: list[LabelledSentence]
) -> EvaluationRecord:
    """The record of a labelling, the same one `labels.record_from_labels` derives from events."""
    sentences = []
    for g, labelled in zip(gold, labels, strict=True):
        facts = [
            Fact(
                f.text,
                list(f.citations),
                Entailment(
                    f.answers.get("all"),
                    [f.answers.get(entailment_task("alone", j)) for j in range(len(f.citations))],
                    [f.answers.get(entailment_task("without", j)) for j in range(len(f.citations))],
                ),
            )
            for f in labelled.facts or []
        ]
        sentences.append(
            Sentence(
                g.sentence.text,
                labelled.verifiable,
                list(g.sentence.citations),
                facts,
                g.sentence.start,
                g.sentence.end,
            )
        )
    return EvaluationRecord(response_id, source, sentences)


def _spent_ms(who: Labeller, stage: str, rng: random.Random) -> int:
    """Plausible time on one decision; a fast click takes under two seconds."""
    if rng.random() < who.fast_rate:
        return rng.randint(3000, 8000) if stage == "facts" else rng.randint(600, 1900)
    typical = {"verifiable": 4500, "facts": 20000, "entailment": 7000}[stage]
    return int(typical * math.exp(rng.gauss(0, 0.45)))


def write_label_events(
    store: ProjectStore,
    name: str,
    response_id: str,
    who: Labeller,
    labels: list[LabelledSentence],
    rng: random.Random,
) -> None:
    """Append one person's labels as events, stage by stage as the app records them, then `done`."""
    for i, labelled in enumerate(labels):
        if rng.random() < who.correct_rate:  # a slip, relabelled at once; the later label wins
            store.events.append(
                name,
                response_id,
                sentence_unit(i),
                "verifiable",
                not labelled.verifiable,
                spent_ms=rng.randint(500, 1500),
            )
        store.events.append(
            name,
            response_id,
            sentence_unit(i),
            "verifiable",
            labelled.verifiable,
            spent_ms=_spent_ms(who, "verifiable", rng),
        )
    for i, labelled in enumerate(labels):
        if labelled.facts is not None:
            store.events.append(
                name,
                response_id,
                sentence_unit(i),
                "facts",
                [{"text": f.text, "citations": f.citations} for f in labelled.facts],
                spent_ms=_spent_ms(who, "facts", rng),
            )
    for i, labelled in enumerate(labels):
        for fact in labelled.facts or []:
            unit = fact_unit(i, fact.text, fact.citations)
            for task, answer in fact.answers.items():
                store.events.append(
                    name, response_id, unit, task, answer, spent_ms=_spent_ms(who, "entailment", rng)
                )
    store.events.append(name, response_id, RESPONSE_UNIT, "done", True, spent_ms=rng.randint(500, 2500))


# -- adjudication ------------------------------------------------------------------------------
def _true_value(truth: EvaluationRecord, value: GoldValue):
    """What the ground truth says for one gold value; None when the truth does not know the unit
    (a fact only the annotators stated: it disappears once the fact list is ruled). A gold fact is
    the truth's fact with its citations that it rewords (the canonical wording may be anyone's)."""
    if value.sentence >= len(truth.sentences):
        return None
    sentence = truth.sentences[value.sentence]
    task = Task.parse(value.task)
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
            for value in gold_from_store(store).values
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
    records (event timestamps and password salts differ).
    """
    directory = Path(directory)
    if _existing_demo(directory, seed):
        return ProjectStore.open(directory)
    store = ProjectStore.open(directory, create=True)
    store.set_setting("demo", {"seed": seed, "complete": False, "ground_truth": TRUTH_FILE})
    for key, value in SETTINGS.items():
        store.set_setting(key, value)

    videos = [make_video_truth(name, random.Random(f"{seed}:video:{name}")) for name in VIDEO_NAMES]
    judged = render_videos(store, videos, seed)
    write_truth(directory / TRUTH_FILE, videos, seed)

    plans = add_labelled_responses(store, videos, seed)
    for name, role in ACCOUNTS:
        add_account(store, name, role, name)

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
    probed = {truth.name: store.media(truth.name)["info"].get("duration_s") for truth in videos}
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
        duration = register_media(store, truth.name)["info"].get("duration_s")
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
