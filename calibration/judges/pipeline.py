"""One configuration on one response: the three stages as calls, and the evaluation record.

The pipeline only describes calls (`CallSpec`) and hands them to `ask`, which the runner
provides: from the cache, over the network, or — when planning — not at all ("pending").
What a call is asked depends only on its content, never on the configuration, so
configurations that need the same call share it.

Stage by stage (PROTOCOL §2):
1. V on every sentence (text only); `gold` → the gold record's `verifiable`.
2. D on every sentence V calls verifiable that has ≥ 1 valid citation; `gold` → the gold facts.
   Where V says verifiable but gold has no facts for the sentence (gold: not verifiable, or
   not decomposed), the sentence gets no facts and a provenance note saying so: nothing
   is invented, and the scorer then sees a cited sentence without facts.
3. E on each fact: `all` with every valid cited part; `alone[j]` / `without[j]` only where
   `derive_entailment` cannot fill them. Invalid citations are never sent; a set with no
   valid part entails nothing (False, no call). Identical part sets are one call.
A reply that does not parse leaves its value null, with the call key and the reply text in provenance.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import annotation.media.clips as media_recipe
from annotation.project import media_source
from annotation.protocol.citations import Citation
from annotation.protocol.derivation import derive_entailment
from annotation.protocol.records import Entailment, EvaluationRecord, Fact, Response, Sentence
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.store.rows import MediaFile
from calibration.judges import prompts
from calibration.judges.adapters import MediaPart
from calibration.judges.cache import call_key
from calibration.judges.judges_file import GOLD, Configuration, JudgeConfig
from calibration.judges.parsing import ParsedAnswer


@dataclass(frozen=True)
class MediaPartSpec:
    """What one media part will be, before it is cut: enough to hash and to describe it.

    `start_s`/`end_s` are the cited span (what `cut_clip` takes); `shown_end_s` is where the
    part really ends once `cut_clip` has widened an audio point to its second, truncated to
    `max_clip_s` and clamped to the duration — that is what the judge is told.
    """

    media_path: str
    media_sha256: str
    modality: str  # visual | audio (the citation's)
    kind: str  # video | audio | frame (what the judge gets)
    start_s: float
    end_s: float
    shown_end_s: float
    max_height: int | None = None
    fps: float | None = None
    max_clip_s: float | None = None

    @property
    def hash(self) -> str:
        """Content address of the part: the source's hash, the span, the limits that apply and
        the clip recipe's version (a new recipe sends the judge other bytes)."""
        fields = [
            self.media_sha256,
            self.kind,
            round(self.start_s, 3),
            round(self.end_s, 3),
            self.max_height if self.kind != "audio" else None,
            self.fps if self.kind == "video" else None,
            self.max_clip_s if self.kind != "frame" else None,
            media_recipe.CLIP_FORMAT,
        ]
        return hashlib.sha256(json.dumps(fields).encode()).hexdigest()

    @property
    def description(self) -> str:
        return prompts.segment_description(self.kind, self.start_s, self.shown_end_s)

    def cut(self, cache_dir: Path) -> MediaPart:
        """Cut (or find cached) the part from the original media, no padding.
        Raises media.MediaError (ffmpeg) or ValueError (span beyond the media)."""
        from annotation.media.clips import cut_clip

        clip = cut_clip(
            Path(self.media_path),
            self.media_sha256,
            self.modality,
            self.start_s,
            self.end_s,
            0.0,
            cache_dir,
            max_height=self.max_height,
            fps=self.fps,
            max_clip_s=self.max_clip_s,
        )
        return MediaPart(Path(clip.path), clip.kind)


def media_part_spec(citation: Citation, media: MediaFile, judge: JudgeConfig) -> MediaPartSpec:
    """The part a valid citation becomes for `judge`: visual point → one frame, visual span →
    muted video, audio → audio only; the judge's limits apply (see `cut_clip`)."""
    from annotation.media.clips import AUDIO_POINT_S

    start, end = float(citation.start), float(citation.end)
    kind = ("frame" if start == end else "video") if citation.modality == "visual" else "audio"
    shown_end = end + AUDIO_POINT_S if kind == "audio" and start == end else end
    if judge.max_clip_s is not None and kind != "frame":
        shown_end = min(shown_end, start + judge.max_clip_s)
    duration = media.duration_s
    if duration is not None:
        shown_end = max(start, min(shown_end, float(duration)))
    return MediaPartSpec(
        media.path,
        media.sha256,
        citation.modality,
        kind,
        start,
        end,
        shown_end,
        judge.max_height,
        judge.fps,
        judge.max_clip_s,
    )


@dataclass
class CallSpec:
    """One call to make (or find in the cache): who, which stage, what prompt, which parts."""

    judge: JudgeConfig
    stage: str
    template_sha256: str
    prompt: str
    parts: tuple[MediaPartSpec, ...] = ()
    n_citations: int = 0  # stage 2 parsing needs the sentence's citation count
    key: str = field(init=False)

    def __post_init__(self):
        self.key = call_key(
            self.judge.adapter,
            self.judge.model,
            self.judge.answer_parameters(),
            self.template_sha256,
            self.prompt,
            [p.hash for p in self.parts],
        )

    def request_description(self) -> dict:
        """What was asked, for the judge_calls row: no media bytes, no endpoint, no key."""
        return {
            "adapter": self.judge.adapter,
            "model": self.judge.model,
            "stage": self.stage,
            "parameters": self.judge.answer_parameters(),
            "prompt_sha256": self.template_sha256,
            "prompt": self.prompt,
            "parts": [
                {
                    "hash": p.hash,
                    "kind": p.kind,
                    "start_s": p.start_s,
                    "end_s": p.end_s,
                    "media_sha256": p.media_sha256,
                }
                for p in self.parts
            ],
        }


@dataclass
class Answer:
    """What `ask` returns for a spec. status: answered | failed | pending (planning) |
    media_failed (the part could not be cut: the value is undetermined, not a call)."""

    key: str
    status: str
    parsed: ParsedAnswer | None = None
    error: str | None = None
    raw: str | None = None  # the reply text, kept where the value is undetermined

    @property
    def value(self):
        return self.parsed.value if self.parsed is not None else None


class IncompleteResponse(Exception):
    """A call failed after its retries, or the inputs do not fit: no record for this response."""


Ask = Callable[[list[CallSpec]], list[Answer]]


RAW_KEPT_CHARS = 2000  # of an unreadable reply, in the record (the whole text stays in judge_calls)


def _undetermined(answer: Answer) -> dict:
    """Provenance of a null value: why, which call, and what the judge actually said."""
    reason = answer.error or (answer.parsed.error if answer.parsed else None) or "undetermined"
    note = {"undetermined": reason, "call": answer.key}
    if answer.raw is not None:
        note["raw"] = answer.raw[:RAW_KEPT_CHARS]
    return note


def undetermined_reasons(records) -> Counter:
    """{why: how many values} of the values `records` leave null because the judge's answer could
    not give them (the notes `_undetermined` writes in a sentence's or a fact's provenance)."""
    found: Counter = Counter()
    for record in records:
        for sentence in record.sentences:
            for holder in (sentence, *sentence.facts):
                for note in (holder.provenance or {}).values():
                    if isinstance(note, dict) and "undetermined" in note:
                        found[str(note["undetermined"])] += 1
    return found


class ResponsePipeline:
    """Runs one configuration over one response through `ask` and builds the record."""

    def __init__(
        self,
        configuration: Configuration,
        judges: dict[str, JudgeConfig],
        response: Response,
        sentences: list[Sentence],
        media: MediaFile | None,
        gold: EvaluationRecord | None,
        ask: Ask,
        on_unknown_facts: Callable[[JudgeConfig, Sentence, Sentence | None, str], None] | None = None,
    ):
        self.configuration = configuration
        self.judges = judges
        self.response = response
        self.sentences = sentences
        self.media = media
        self.gold = gold
        self.ask = ask
        self.on_unknown_facts = on_unknown_facts
        if GOLD in (configuration.verifier, configuration.decomposer) and gold is None:
            raise IncompleteResponse("no gold record for this response")
        if gold is not None and [s.text for s in gold.sentences] != [s.text for s in sentences]:
            if GOLD in (configuration.verifier, configuration.decomposer):
                raise IncompleteResponse("the gold record's sentences differ from the response's")

    def run(self) -> EvaluationRecord:
        """The record, or IncompleteResponse; the runner's interruptions pass through."""
        out = [Sentence(s.text, None, list(s.citations), [], s.start, s.end) for s in self.sentences]
        self._verify(out)
        to_decompose = [i for i, s in enumerate(out) if s.verifiable is True and s.has_valid_citation]
        self._decompose(out, to_decompose)
        self._entail(out, to_decompose)
        return EvaluationRecord(self.response.response_id, self.configuration.source, out)

    # -- stage 1 -----------------------------------------------------------------------------
    def _verify(self, out: list[Sentence]) -> None:
        if self.configuration.verifier == GOLD:
            for sentence, gold in zip(out, self.gold.sentences, strict=True):
                sentence.verifiable = gold.verifiable
            return
        judge = self.judges[self.configuration.verifier]
        specs = []
        for i in range(len(self.sentences)):
            template, text = prompts.verifiability_prompt(self.response, self.sentences, i)
            specs.append(CallSpec(judge, "verifiability", template.sha256, text))
        for sentence, answer in zip(out, self._ask(specs), strict=True):
            if answer.status == "pending":
                sentence.verifiable = True  # planning: count the upper bound
            else:
                sentence.verifiable = answer.value
                if answer.value is None:
                    sentence.provenance = {"verifiable": _undetermined(answer)}

    # -- stage 2 -----------------------------------------------------------------------------
    def _decompose(self, out: list[Sentence], indices: list[int]) -> None:
        if self.configuration.decomposer == GOLD:
            for i in indices:
                gold = self.gold.sentences[i]
                if gold.verifiable is True and gold.facts:
                    out[i].facts = [Fact(f.text, list(f.citations), f.entailment) for f in gold.facts]
                else:
                    note = "gold has no facts for this sentence (not verifiable or not decomposed in gold)"
                    out[i].provenance = {**(out[i].provenance or {}), "facts": {"undetermined": note}}
            return
        judge = self.judges[self.configuration.decomposer]
        specs = []
        for i in indices:
            template, text = prompts.decompose_prompt(self.response, self.sentences, i)
            specs.append(
                CallSpec(
                    judge, "decompose", template.sha256, text, n_citations=len(self.sentences[i].citations)
                )
            )
        for i, answer in zip(indices, self._ask(specs), strict=True):
            if answer.status == "pending":
                if self.on_unknown_facts is not None and self.configuration.entailer != GOLD:
                    self.on_unknown_facts(
                        self.judges[self.configuration.entailer],
                        self.sentences[i],
                        self._gold_sentence(i),
                        answer.key,
                    )
            elif answer.value is None:
                out[i].provenance = {**(out[i].provenance or {}), "facts": _undetermined(answer)}
            else:
                out[i].facts = [Fact(text, cites) for text, cites in answer.value]

    def _gold_sentence(self, i: int) -> Sentence | None:
        """Gold's sentence `i` of this response when gold holds the same sentences, else None."""
        if self.gold is None or [s.text for s in self.gold.sentences] != [s.text for s in self.sentences]:
            return None
        return self.gold.sentences[i]

    # -- stage 3 -----------------------------------------------------------------------------
    def _entail(self, out: list[Sentence], indices: list[int]) -> None:
        if self.configuration.entailer == GOLD:
            return  # gold facts came with their gold entailment
        judge = self.judges[self.configuration.entailer]
        facts = [(out[i], fact) for i in indices for fact in out[i].facts]
        if not facts:
            return
        states = [_FactQuestions(sentence, fact, judge, self.media) for sentence, fact in facts]
        # pass A: `all`, and `alone[j]` where k ≥ 2 (k = 1 derives alone from all)
        self._answer([q for s in states for q in s.first_questions()], states)
        # pass B: `without[j]` that the derivations still leave open
        self._answer([q for s in states for q in s.second_questions()], states)
        for state in states:
            state.finish()

    def _answer(
        self,
        questions: list[tuple[_FactQuestions, str, int | None, CallSpec | None]],
        states: list[_FactQuestions],
    ) -> None:
        specs = [spec for _, _, _, spec in questions if spec is not None]
        answers = iter(self._ask(specs))
        for state, name, j, spec in questions:
            state.store(name, j, next(answers) if spec is not None else None)

    def _ask(self, specs: list[CallSpec]) -> list[Answer]:
        if not specs:
            return []
        answers = self.ask(specs)
        failure = failed_calls(answers)
        if failure is not None:
            raise failure
        return answers


def failed_calls(answers: list[Answer]) -> IncompleteResponse | None:
    """Why a response is left without a record when some of its calls failed after their
    retries (how many, and the first one's error); None when none failed."""
    failed = [a for a in answers if a.status == "failed"]
    if not failed:
        return None
    return IncompleteResponse(f"{len(failed)} call(s) failed after retries: {failed[0].error}")


class _FactQuestions:
    """The entailment questions of one fact and their answers (None = not yet / undetermined)."""

    def __init__(self, sentence: Sentence, fact: Fact, judge: JudgeConfig, media: MediaFile | None):
        self.sentence, self.fact, self.judge, self.media = sentence, fact, judge, media
        self.k = len(fact.citations)
        self.valid = [
            j
            for j, i in enumerate(fact.citations)
            if 0 <= i < len(sentence.citations) and sentence.citations[i].valid
        ]
        self.values = {"all": None, "alone": [None] * self.k, "without": [None] * self.k}
        self.notes: dict = {}
        self.media_missing = bool(self.valid) and not media

    def _spec(self, positions: list[int]) -> CallSpec | None:
        """The call for the set of the fact's own citations `positions` (valid ones only);
        None when the set is empty (entails nothing) or media is missing."""
        if not positions or self.media_missing:
            return None
        parts = tuple(
            media_part_spec(self.sentence.citations[self.fact.citations[j]], self.media, self.judge)
            for j in positions
        )
        template, text = prompts.entailment_prompt(self.fact.text, [p.description for p in parts])
        return CallSpec(self.judge, "entailment", template.sha256, text, parts)

    def first_questions(self):
        out = [(self, "all", None, self._spec(self.valid))]
        if self.k >= 2:
            out += [(self, "alone", j, self._spec([j])) for j in self.valid]
        return out

    def second_questions(self):
        # planning: a pending answer will be known, which is all derivability depends on
        known = Entailment(
            True if self.values["all"] == "pending" else self.values["all"],
            [True if v == "pending" else v for v in self.values["alone"]],
            [None] * self.k,
        )
        derived = derive_entailment(Fact(self.fact.text, self.fact.citations, known), self.sentence)
        return [
            (self, "without", j, self._spec([v for v in self.valid if v != j]))
            for j in self.valid
            if derived.without[j] is None
        ]

    def store(self, name: str, j: int | None, answer: Answer | None) -> None:
        if answer is None:  # no call: an empty set entails nothing, unless media is missing
            value = None if self.media_missing else False
            if self.media_missing:
                self.notes[name if j is None else f"{name}[{j}]"] = {
                    "undetermined": "the response's media is not registered in the project"
                }
        elif answer.status == "pending":
            value = "pending"
        else:
            value = answer.value
            if value is None:
                self.notes[name if j is None else f"{name}[{j}]"] = _undetermined(answer)
        if j is None:
            self.values[name] = value
        else:
            self.values[name][j] = value

    def finish(self) -> None:
        clean = {
            k: (None if v == "pending" else v)
            if not isinstance(v, list)
            else [None if x == "pending" else x for x in v]
            for k, v in self.values.items()
        }
        given = Entailment(clean["all"], clean["alone"], clean["without"])
        self.fact.entailment = derive_entailment(
            Fact(self.fact.text, self.fact.citations, given), self.sentence
        )
        if self.notes:
            self.fact.provenance = {**(self.fact.provenance or {}), **self.notes}


def select_responses(store: ProjectStore, responses: str | list[str]) -> tuple[list[str], dict]:
    """(response ids, {id: gold record}) for 'gold' (responses with a gold record), 'all',
    or an explicit list of ids (unknown ids raise ValueError)."""
    gold = project_state(store).gold_by_response()
    all_ids = store.response_ids()
    if responses == "gold":
        return [i for i in all_ids if i in gold], gold
    if responses == "all":
        return all_ids, gold
    unknown = [i for i in responses if i not in set(all_ids)]
    if unknown:
        raise ValueError(f"unknown response id(s): {', '.join(unknown)}")
    return list(responses), gold


def project_pipelines(
    store: ProjectStore,
    judges: dict[str, JudgeConfig],
    configurations: list[Configuration],
    responses: str | list[str],
    ask: Ask | None,
    on_unknown_facts: Callable[[JudgeConfig, Sentence, Sentence | None, str], None] | None = None,
):
    """(configuration, response id, pipeline or the reason there is none), response-major so
    configurations sharing calls meet them close together."""
    ids, gold = select_responses(store, responses)
    for response_id in ids:
        response = store.response(response_id)
        sentences = store.response_sentences(response_id)
        media = store.media(response.video) if response.video else None
        if media is not None:  # the file is checked again inside the media root on every read
            try:
                media = replace(media, path=str(media_source(store, media)))
            except (ValueError, FileNotFoundError):
                media = None  # escaped or gone: the judge is not shown it (the fact is undetermined)
        for configuration in configurations:
            try:
                yield (
                    configuration,
                    response_id,
                    ResponsePipeline(
                        configuration,
                        judges,
                        response,
                        sentences,
                        media,
                        gold.get(response_id),
                        ask,
                        on_unknown_facts,
                    ),
                )
            except IncompleteResponse as exc:
                yield configuration, response_id, str(exc)
