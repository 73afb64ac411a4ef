"""What to ask one person next on one response, and the writes a decision makes.

The plan of a response is: stage 1 for every sentence, then stage 2 (facts) for each
verifiable sentence with a valid citation, then stage 3 (entailment) for each fact —
asking only what PROTOCOL §2 cannot derive, so a one-citation fact is one click.

Campaign modes (project setting `campaign_mode`):
- `end_to_end`: stage 2 follows the person's own verifiability labels and stage 3 their
  own facts (a per-annotator MURGAT-S and human parity need this);
- `staged`: stage 2 follows the gold verifiability and stage 3 the gold facts, so everyone
  judges the same units (agreement on entailment needs this); until the gold of the previous
  stage is settled the response waits.

Pure logic over (sentences, this person's current labels, gold); the few functions that
write take the store as an argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.protocol.ids import DONE_TASK, FACTS_TASK, VERIFIABLE_TASK, QuestionKey, Task, Unit
from annotation.protocol.questions import entailment_questions, question_citations
from annotation.protocol.records import EvaluationRecord, Fact, Sentence
from annotation.protocol.same_sentence import same_sentence, sentence_at
from annotation.work.drafts import discard_draft
from annotation.work.labels import CANT_TELL, cant_tell_reason, labels_by_unit
from annotation.work.proposals import may_seed_a_proposal

CAMPAIGN_MODES = ("end_to_end", "staged")
DEFAULT_CAMPAIGN_MODE = "end_to_end"


def normalise_campaign_mode(value) -> str:
    """'staged' or 'end_to_end' ('end-to-end', 'End to end' accepted); anything else is
    the default, end to end (each person's own units need no gold to proceed)."""
    text = str(value or "").strip().lower().replace("-", "_").replace(" ", "_")
    return text if text in CAMPAIGN_MODES else DEFAULT_CAMPAIGN_MODE


@dataclass(frozen=True)
class Question:
    """One decision to ask. `segments` are indices into the sentence's citations: the
    media the question is about (what its play control plays)."""

    stage: int
    sentence_index: int
    unit: Unit
    task: Task
    kind: str  # 'verifiable' | 'facts' | 'all' | 'alone' | 'without'
    segments: tuple[int, ...] = ()
    fact: Fact | None = None
    j: int | None = None  # position within the fact's own citations (alone/without)

    def key(self, response_id: str) -> str:
        """This question of `response_id` as one string (widget keys, timers)."""
        return str(QuestionKey(response_id, self.unit, self.task))


@dataclass(frozen=True)
class Waiting:
    """Nothing to ask until the gold of `stage` is settled (staged campaigns)."""

    stage: int
    message: str


def own_facts(labels: dict, index: int) -> list[Fact] | None:
    """The person's confirmed fact list for sentence `index`, or None when not given."""
    value = labels.get((Unit.of_sentence(index), FACTS_TASK))
    if value is None:
        return None
    return [Fact(item["text"], [int(c) for c in item.get("citations", [])]) for item in value]


def plan(
    sentences: list[Sentence],
    labels: dict,
    mode: str = DEFAULT_CAMPAIGN_MODE,
    gold: EvaluationRecord | None = None,
) -> tuple[list[Question], Waiting | None]:
    """Every question of the response that is known now, in asking order, and what it
    waits for (staged mode: a later stage whose gold is not settled), else None.

    Questions of a later stage appear only once the units they are about are known (the
    person's own labels or the gold, by mode); `labels` is {(unit, task): value}.
    """
    mode = normalise_campaign_mode(mode)
    questions = [
        Question(1, i, Unit.of_sentence(i), VERIFIABLE_TASK, "verifiable", tuple(range(len(s.citations))))
        for i, s in enumerate(sentences)
    ]
    # stage 2: which sentences get facts
    to_split: list[int] = []
    for i, sentence in enumerate(sentences):
        if mode == "staged":
            gold_sentence = sentence_at(gold, i, sentence)
            if gold_sentence is None or gold_sentence.verifiable is None:
                return questions, Waiting(
                    2, "waiting for the adjudicated verifiability of this response (staged campaign)"
                )
            verifiable = gold_sentence.verifiable
        else:
            verifiable = labels.get((Unit.of_sentence(i), VERIFIABLE_TASK))
            if verifiable is None:
                return questions, None  # stage 1 not finished: later stages are not known yet
        if verifiable and sentence.has_valid_citation:
            to_split.append(i)
    questions += [
        Question(2, i, Unit.of_sentence(i), FACTS_TASK, "facts", tuple(range(len(sentences[i].citations))))
        for i in to_split
    ]
    # stage 3: which facts get entailment questions
    waiting = None
    for i in to_split:
        if mode == "staged":
            gold_sentence = sentence_at(gold, i, sentences[i])
            facts = gold_sentence.facts if gold_sentence is not None else []
            if not facts:
                waiting = Waiting(3, "waiting for the adjudicated facts of this response (staged campaign)")
                continue
        else:
            facts = own_facts(labels, i)
            if facts is None:
                continue
        for fact in facts:
            unit = Unit.of_fact(i, fact.text, fact.citations)
            bare = Fact(fact.text, list(fact.citations))
            for task, kind, j in entailment_questions(bare, sentences[i]):
                questions.append(
                    Question(3, i, unit, task, kind, question_citations(bare.citations, kind, j), bare, j)
                )
    return questions, waiting


def next_question(
    sentences: list[Sentence],
    labels: dict,
    mode: str = DEFAULT_CAMPAIGN_MODE,
    gold: EvaluationRecord | None = None,
) -> Question | Waiting | None:
    """The first unanswered question, a Waiting when the rest depends on unsettled gold,
    or None when the response is complete for this person."""
    questions, waiting = plan(sentences, labels, mode, gold)
    for question in questions:
        if (question.unit, question.task) not in labels:
            return question
    return waiting


@dataclass(frozen=True)
class ResponseWork:
    """One person's work on one response as read once: its sentences, their labels on it
    ({(unit, task): value}) and the plan those give (`plan`). A page run builds it once, and an
    answer returns the next one (`answer`), so a key press reads the labels once and plans once."""

    response_id: str
    sentences: list[Sentence]
    labels: dict
    questions: list[Question]
    waiting: Waiting | None
    mode: str = DEFAULT_CAMPAIGN_MODE
    gold: EvaluationRecord | None = None

    @classmethod
    def planned(cls, response_id: str, sentences, labels: dict, mode: str, gold=None) -> ResponseWork:
        questions, waiting = plan(sentences, labels, mode, gold)
        return cls(response_id, sentences, labels, questions, waiting, normalise_campaign_mode(mode), gold)

    @property
    def question(self) -> Question | None:
        """The first unanswered question, or None."""
        return next((q for q in self.questions if (q.unit, q.task) not in self.labels), None)

    @property
    def next(self) -> Question | Waiting | None:
        """What `next_question` gives: the open question, else what the rest waits for, else None."""
        return self.question or self.waiting

    @property
    def answered(self) -> int:
        return sum((q.unit, q.task) in self.labels for q in self.questions)

    @property
    def done(self) -> bool:
        return is_done(self.labels)


def open_response(store, who: str, response_id: str, mode: str, gold: EvaluationRecord | None = None):
    """`who`'s work on `response_id` now: their labels read once, planned once."""
    labels = labels_by_unit(store.events.current_labels(who, response_id))
    return ResponseWork.planned(response_id, store.response_sentences(response_id), labels, mode, gold)


def answer(store, who: str, work: ResponseWork, question: Question, value, spent_ms: int | None = None):
    """Record `who`'s answer to `question` of `work`'s response and return the work after it: the
    labels read once (a label already in force refuses the answer, as `record_answer` does: None,
    nothing written), the new label added to them and the response planned once; the answer that
    leaves nothing to ask writes the `done` mark too."""
    labels = labels_by_unit(store.events.current_labels(who, work.response_id))
    stored = _recorded(store, who, work.response_id, question, value, spent_ms, labels)
    if stored is None:
        return None
    labels[(question.unit, question.task)] = stored
    after = ResponseWork.planned(work.response_id, work.sentences, labels, work.mode, work.gold)
    if after.next is None and not is_done(labels):
        mark_done(store, who, work.response_id)
        labels[(Unit.response(), DONE_TASK)] = True
    return after


def response_progress(
    sentences: list[Sentence],
    labels: dict,
    mode: str = DEFAULT_CAMPAIGN_MODE,
    gold: EvaluationRecord | None = None,
) -> tuple[int, int]:
    """(answered, known questions) on this response, for a progress bar; the total grows
    as later stages become known."""
    questions, _ = plan(sentences, labels, mode, gold)
    answered = sum((q.unit, q.task) in labels for q in questions)
    return answered, len(questions)


def propose_facts(
    sentence_index: int, sentence: Sentence, judge_records: list[EvaluationRecord], rule_based, split=None
) -> list[dict]:
    """A starting fact list [{'text', 'citations'}] for stage 2: the first judge record
    that decomposed this sentence (same index and text), each of its facts passed through
    `split` (a function (Fact, the sentence's citations) -> list[Fact], e.g. splitting merged
    observations) when given; else `rule_based(sentence)` (a function Sentence -> list[Fact]).
    Citation indices outside the sentence, and invalid citations (they support nothing, so a
    fact never starts with one ticked), are dropped; a fact left with none gets every valid
    citation of the sentence, as the rule-based split gives (the person unticks what is not its).
    A record that used gold is never used (`proposals.may_seed_a_proposal`: the annotator stays
    blind to gold)."""
    judge_records = [record for record in judge_records if may_seed_a_proposal(record)]
    n = len(sentence.citations)
    judged = next(
        (
            record.sentences[sentence_index].facts
            for record in judge_records
            if sentence_index < len(record.sentences)
            and same_sentence(record.sentences[sentence_index], sentence)
            and record.sentences[sentence_index].facts
        ),
        None,
    )
    if judged is None:
        facts = rule_based(sentence)
    else:
        facts = [Fact(f.text, [c for c in f.citations if 0 <= c < n]) for f in judged]
        if split is not None:
            facts = [part for fact in facts for part in split(fact, sentence.citations)]
    valid = sentence.valid_citation_indices
    return [
        {"text": f.text, "citations": [c for c in f.citations if c in valid] or list(valid)} for f in facts
    ]


def undone_fact_list(store, who: str, response_id: str, question: Question) -> list[dict] | None:
    """The fact list `who` last confirmed for the stage-2 `question`, when that label was undone
    (None when they never confirmed one): after an undo they start from their own words."""
    confirmed = [
        e.value
        for e in store.events.log(who=who, response_id=response_id, kind="label")
        if (e.unit, e.task) == (question.unit, question.task)
    ]
    return confirmed[-1] if confirmed else None


# The reasons offered for "can't tell" (PROTOCOL §2); a person may write their own.
CANT_TELL_REASONS = ("the audio is inaudible", "the text is unreadable", "the segment fails to play")


def cant_tell_answer(reason: str) -> dict:
    """The answer "can't tell" to a stage-3 question, with its reason (whitespace folded); recorded
    as null for that value (labels → records). ValueError when the reason is empty."""
    reason = " ".join(str(reason).split())
    if not reason:
        raise ValueError("say why you cannot tell")
    return {CANT_TELL: reason}


# -- writes: every decision goes to the event log at once --------------------------------------
def record_answer(
    store, who: str, response_id: str, question: Question, value, spent_ms: int | None = None
) -> int | None:
    """Append the person's answer to `question` (bool; a `cant_tell_answer` for stage 3; the fact
    list for stage 2); the new
    event's id. None, and nothing written, when the person has already answered it (a label in
    force for its unit and task): a second click that reached a button still on screen from
    the question before — a double click, or a click while the page redraws — must neither
    answer again nor answer a question the person has not seen. Undo reopens a question.
    A confirmed fact list discards the person's stage-2 draft of that sentence."""
    labels = labels_by_unit(store.events.current_labels(who, response_id))
    recorded = _recorded(store, who, response_id, question, value, spent_ms, labels, event_id=True)
    return None if recorded is None else recorded[1]


def _recorded(store, who, response_id, question, value, spent_ms, labels: dict, event_id: bool = False):
    """The write of `record_answer`, given the person's `labels` in force: the value stored (with
    the new event's id when `event_id`), or None when the question is answered already."""
    if (question.unit, question.task) in labels:
        return None
    if question.kind != "facts":
        reason = cant_tell_reason(value)
        if reason is not None and question.stage != 3:
            raise ValueError("only a stage-3 question can be answered “can't tell”")
        stored = bool(value) if reason is None else cant_tell_answer(reason)
        new_id = store.events.append(
            who, response_id, question.unit, question.task, stored, spent_ms=spent_ms
        )
        return (stored, new_id) if event_id else stored
    stored = [
        {"text": str(f["text"]).strip(), "citations": sorted({int(c) for c in f["citations"]})} for f in value
    ]
    with store.database.transaction():  # the confirmed list replaces the draft, all or nothing
        new_id = store.events.append(
            who, response_id, question.unit, question.task, stored, spent_ms=spent_ms
        )
        discard_draft(store, who, response_id, question.unit)
    return (stored, new_id) if event_id else stored


def is_done(labels: dict) -> bool:
    return bool(labels.get((Unit.response(), DONE_TASK)))


def mark_done(store, who: str, response_id: str) -> int:
    """Record that the person finished the response (the queue's notion of done)."""
    return store.events.append(who, response_id, Unit.response(), DONE_TASK, True)


def undo_last_decision(store, who: str):
    """Undo the person's most recent annotation decision, wherever it was; when that was the
    automatic 'done' mark, the decision before it is undone too (so undo always takes back a choice
    the person made). An adjudicator's rulings are never taken back here: they are the Disputes
    page's. Returns the undone decision's Event, or None when there is nothing to undo."""
    target = store.events.undo_last(who, rulings=False)
    if target is not None and target.unit.is_response and target.task == DONE_TASK:
        target = store.events.undo_last(who, target.response_id, rulings=False)
    return target


def skip_response(store, who: str, response_id: str, reason: str) -> int:
    """Set the response aside with a reason (required, so adjudicators learn why)."""
    reason = reason.strip()
    if not reason:
        raise ValueError("say why you skip this response")
    return store.events.append(
        who, response_id, Unit.response(), Task("skip"), {"reason": reason}, kind="skip"
    )


def flag_for_guidelines(store, who: str, response_id: str, text: str, unit: Unit | None = None) -> int:
    """Note a case the guidelines do not settle (free text, required), about `unit` (default: the
    whole response)."""
    text = text.strip()
    if not text:
        raise ValueError("describe what the guidelines should settle")
    unit = Unit.response() if unit is None else unit
    return store.events.append(who, response_id, unit, Task("flag"), {"text": text}, kind="flag")
