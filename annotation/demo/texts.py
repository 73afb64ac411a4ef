"""The demo's model responses, written from a video's scene list with templates and a seeded RNG.

Each response answers a multiple-choice question and carries observation sentences whose
citations are correct, at the wrong time, missing, redundant or malformed, and whose content is
sometimes false; plus reasoning sentences that are not verifiable. Alongside the text comes the
plan: per sentence its verifiability and its atomic facts as claims, so the truth of every
(fact, citations) pair follows from the scene list (`supported`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from annotation.demo.videos import (
    BACKGROUNDS,
    FIGURE_COLOURS,
    SHAPES,
    WORDS,
    Claim,
    SoundSegment,
    VideoTruth,
    VisualScene,
    claim_holds_at,
    claim_intervals,
)
from annotation.protocol.citations import Citation, format_time
from annotation.protocol.records import Response

_PITCH = {"low": "low-pitched", "middle": "mid-pitched", "high": "high-pitched"}
_SOUND_OPTIONS = {
    "a low-pitched tone": Claim("tone", "low"),
    "a mid-pitched tone": Claim("tone", "middle"),
    "a high-pitched tone": Claim("tone", "high"),
    "a burst of noise": Claim("noise"),
    "silence": Claim("silence"),
}
# One response in eight per video shows each of these, so the demo always has them all.
FEATURES = (
    "malformed:seconds",
    "malformed:reversed",
    "malformed:beyond",
    "malformed:modality",
    "wrong_time",
    "redundant",
    "missing",
    "three",
)
LETTERS = "ABCD"


@dataclass(frozen=True)
class PlannedFact:
    """An atomic fact as the gold decomposition writes it; `citations` index its sentence's
    citations. `alternatives` are other wordings, `split` a finer decomposition (if any)."""

    text: str
    claims: tuple[Claim, ...]
    citations: tuple[int, ...]
    alternatives: tuple[str, ...] = ()
    split: tuple[PlannedFact, ...] = ()


@dataclass(frozen=True)
class PlannedSentence:
    """A sentence as written, with what gold says about it; `kind` names how it was made
    (correct, wrong_time, wrong_content, missing, redundant, three, malformed:*, reasoning)."""

    text: str
    verifiable: bool
    facts: tuple[PlannedFact, ...] = ()
    n_citations: int = 0
    kind: str = "reasoning"


@dataclass(frozen=True)
class Plan:
    """A response and, in order, the sentences the importer will split it into; `quality` is the
    share of correct citations it was written with (and its chance of the right answer)."""

    response: Response
    sentences: tuple[PlannedSentence, ...] = ()
    quality: float = 0.5


def supported(truth: VideoTruth, claims: tuple[Claim, ...], citations: list[Citation]) -> bool:
    """E(fact, S): every claim of the fact is shown by at least one of the citations.
    A fact without claims (a sentence nobody decomposed) is supported by nothing."""
    return bool(claims) and all(any(claim_holds_at(truth, claim, c) for c in citations) for claim in claims)


def _an(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def claim_texts(claim: Claim) -> tuple[str, ...]:
    """Stand-alone wordings of a claim; the first is the gold one."""
    v = claim.value
    match claim.kind:
        case "figure":
            return (f"{_cap(_an(v[0]))} {v[1]} is on screen.", f"There is {_an(v[0])} {v[1]} on screen.")
        case "shape":
            return (f"{_cap(_an(v))} is on screen.", f"The shape on screen is {_an(v)}.")
        case "figure_colour":
            return (f"The shape on screen is {v}.", f"{_cap(_an(v))} shape is shown.")
        case "background":
            return (f"The background is {v}.", f"The screen has {_an(v)} background.")
        case "number":
            return (f"The number {v} is displayed.", f"The number {v} appears on screen.")
        case "word":
            return (f'The word "{v}" is displayed.', f'The word "{v}" appears on screen.')
        case "tone":
            return (f"A {_PITCH[v]} tone is heard.", f"A {_PITCH[v]} tone plays.")
        case "noise":
            return ("A burst of noise is heard.", "There is a burst of noise.")
    return ("The audio is silent.", "Nothing can be heard.")


def planned_fact(claim: Claim, citations) -> PlannedFact:
    texts, citations = claim_texts(claim), tuple(citations)
    split: tuple[PlannedFact, ...] = ()
    if claim.kind == "figure":
        split = (
            planned_fact(Claim("shape", claim.value[1]), citations),
            planned_fact(Claim("figure_colour", claim.value[0]), citations),
        )
    return PlannedFact(texts[0], (claim,), citations, texts[1:], split)


def _clause(claims: list[Claim]) -> str:
    """The observation, as a model would write it, without citations or final period."""
    v = {c.kind: c.value for c in claims}
    match tuple(c.kind for c in claims):
        case ("figure", "background"):
            return (
                f"{_cap(_an(v['figure'][0]))} {v['figure'][1]} appears on {_an(v['background'])} background"
            )
        case ("number", "word"):
            return f'The number {v["number"]} is shown above the word "{v["word"]}"'
        case ("number", "shape"):
            return f"The number {v['number']} appears next to {_an(v['shape'])}"
        case ("word", "background"):
            return f'The word "{v["word"]}" appears on {_an(v["background"])} background'
        case ("figure", "number"):
            return f"{_cap(_an(v['figure'][0]))} {v['figure'][1]} is shown with the number {v['number']}"
        case ("figure",):
            return f"{_cap(_an(v['figure'][0]))} {v['figure'][1]} is visible"
        case ("number",):
            return f"The video shows the number {v['number']}"
        case ("word",):
            return f'The word "{v["word"]}" is written on screen'
        case ("tone",):
            return f"A {_PITCH[v['tone']]} tone is heard"
        case ("noise",):
            return "A burst of noise can be heard"
        case ("silence",):
            return "The soundtrack goes silent"
    raise ValueError(f"no template for claims {claims}")


def _part_claims(part: VisualScene | SoundSegment, rng: random.Random) -> list[Claim]:
    if isinstance(part, SoundSegment):
        return [Claim(part.kind, part.pitch)]
    options = [
        [Claim("figure", (part.colour, part.shape)), Claim("background", part.background)],
        [Claim("number", part.number), Claim("word", part.word)],
        [Claim("figure", (part.colour, part.shape))],
        [Claim("number", part.number)],
        [Claim("word", part.word)],
    ]
    return rng.choice(options)


def _falsify(claim: Claim, truth: VideoTruth, rng: random.Random) -> Claim:
    """The same kind of claim with a value the cited part does not show."""

    def other(options, value):
        return rng.choice([o for o in options if o != value])

    v = claim.value
    match claim.kind:
        case "figure":
            return Claim("figure", (other(list(FIGURE_COLOURS), v[0]), other(SHAPES, v[1])))
        case "background":
            return Claim("background", other(list(BACKGROUNDS), v))
        case "number":
            return Claim("number", other([s.number for s in truth.scenes] + [rng.randint(10, 99)], v))
        case "word":
            return Claim("word", other(WORDS, v))
        case "tone":
            return Claim("tone", other(list(_PITCH), v))
    return Claim("noise") if claim.kind == "silence" else Claim("silence")


def _span(rng: random.Random, start: int, end: int) -> tuple[int, int]:
    """A point strictly inside [start, end) when there is room, or a span within it."""
    if end - start >= 2 and rng.random() < 0.4:
        a = rng.randint(start, end - 2)
        return a, rng.randint(a + 1, end)
    t = rng.randint(start + 1, end - 1) if end - start >= 2 else start
    return t, t


def _spec(modality: str, a: int, b: int, rng: random.Random) -> str:
    word = rng.choices(
        [modality, modality.capitalize(), "video" if modality == "visual" else "sound"], weights=[8, 1, 1]
    )[0]
    return f"{word}, {format_time(a)}" + ("" if a == b else f"-{format_time(b)}")


def _group(truth: VideoTruth, part, claim: Claim, kind: str, rng: random.Random) -> list[str]:
    """Citation texts for one group about `claim`, shown in `part`, of the given kind."""
    modality, other_modality = claim.modality, ("audio" if claim.modality == "visual" else "visual")
    parts = truth.sounds if modality == "audio" else truth.scenes
    true_here = set(claim_intervals(truth, claim))
    elsewhere = [p for p in parts if (p.start_s, p.end_s) not in true_here] or [part]

    def correct():
        return _spec(modality, *_span(rng, part.start_s, part.end_s), rng)

    def wrong_time():
        away = rng.choice(elsewhere)
        return _spec(modality, *_span(rng, away.start_s, away.end_s), rng)

    def other_modality_same_time():
        return _spec(other_modality, *_span(rng, part.start_s, part.end_s), rng)

    if kind == "missing":
        return []
    if kind == "wrong_time":
        return [wrong_time()]
    if kind == "redundant":
        pair = [correct(), rng.choice([other_modality_same_time, wrong_time])()]
        return pair if rng.random() < 0.7 else pair[::-1]
    if kind == "three":
        return [correct(), other_modality_same_time(), wrong_time()]
    if kind.startswith("malformed:"):
        t = rng.randint(1, truth.duration_s - 2)
        bad = {
            "seconds": f"{modality}, 0:{rng.randint(60, 99)}",
            "reversed": f"{modality}, {format_time(t + 1)}-{format_time(t)}",
            "beyond": f"{modality}, {format_time(truth.duration_s + rng.randint(10, 40))}",
            "modality": f"{rng.choice(['subtitles', 'caption', 'text'])}, {format_time(t)}",
        }
        spec = bad[kind.split(":", 1)[1]]
        return rng.choice([[spec], [correct(), spec], [spec, correct()]])
    specs = [correct()]
    if rng.random() < 0.2 and part.end_s - part.start_s >= 2:
        second = correct()
        if second != specs[0]:
            specs.append(second)
    return specs


def _cited(clause: str, specs: list[str], rng: random.Random) -> str:
    if not specs:
        return clause + "."
    group = "(" + "; ".join(specs) + ")"
    return f"{clause}. {group}" if rng.random() < 0.15 else f"{clause} {group}."


def _observation(
    truth: VideoTruth, part, claims: list[Claim], kind: str, rng: random.Random
) -> PlannedSentence:
    if kind == "wrong_content":
        claims = [_falsify(claims[0], truth, rng)] + claims[1:]
        kind_for_group = "correct"
    else:
        kind_for_group = kind
    specs = _group(truth, part, claims[0], kind_for_group, rng)
    facts = tuple(planned_fact(c, range(len(specs))) for c in claims) if specs else ()
    return PlannedSentence(_cited(_clause(claims), specs, rng), True, facts, len(specs), kind)


def _cross_modal(truth: VideoTruth, scene: VisualScene, kind: str, rng: random.Random) -> PlannedSentence:
    """`A red circle is visible (visual, 0:03) while a high-pitched tone plays (audio, 0:03).`:
    two groups inside one sentence, each fact carrying only its own group's citations."""
    sound = next(s for s in truth.sounds if s.start_s <= scene.start_s < s.end_s)
    figure, heard = Claim("figure", (scene.colour, scene.shape)), Claim(sound.kind, sound.pitch)
    if kind == "wrong_content":
        figure = _falsify(figure, truth, rng)
    seen_specs = _group(truth, scene, figure, kind, rng)
    heard_specs = _group(truth, sound, heard, rng.choice(["correct", "correct", "wrong_time"]), rng)
    phrase = {
        "tone": f"a {_PITCH.get(sound.pitch or '')} tone plays",
        "noise": "a burst of noise is heard",
        "silence": "the audio is silent",
    }[sound.kind]
    n = len(seen_specs)
    colour, shape = figure.value
    text = (
        f"{_cap(_an(colour))} {shape} is visible ({'; '.join(seen_specs)}) "
        f"while {phrase} ({'; '.join(heard_specs)})."
    )
    facts = (planned_fact(figure, range(n)), planned_fact(heard, range(n, n + len(heard_specs))))
    return PlannedSentence(text, True, facts, n + len(heard_specs), kind)


def _question(truth: VideoTruth, rng: random.Random):
    """(question, option values, index of the true value, key part, key claims builder)."""
    scenes = truth.scenes
    family = rng.randrange(5)
    if family == 0:
        s = rng.choice(scenes)
        values = rng.sample(SHAPES, 4)
        return (
            f"Which shape is shown together with the number {s.number}?",
            values,
            values.index(s.shape),
            s,
            lambda v: [Claim("number", s.number), Claim("shape", v)],
        )
    if family == 1:
        s = rng.choice(scenes)
        values = rng.sample([b for b in BACKGROUNDS if b != s.background], 3) + [s.background]
        rng.shuffle(values)
        return (
            f'What colour is the background when the word "{s.word}" appears?',
            values,
            values.index(s.background),
            s,
            lambda v: [Claim("word", s.word), Claim("background", v)],
        )
    if family == 2:
        p = rng.choice(truth.sounds)
        t = p.start_s if p.end_s - p.start_s < 2 else rng.randint(p.start_s + 1, p.end_s - 1)
        true_label = next(k for k, c in _SOUND_OPTIONS.items() if c == Claim(p.kind, p.pitch))
        values = rng.sample([k for k in _SOUND_OPTIONS if k != true_label], 3) + [true_label]
        rng.shuffle(values)
        return (
            f"What is heard at {format_time(t)}?",
            values,
            values.index(true_label),
            p,
            lambda v: [_SOUND_OPTIONS[v]],
        )
    if family == 3:
        figures = [(x.colour, x.shape) for x in scenes]
        s = rng.choice([x for x in scenes if figures.count((x.colour, x.shape)) == 1] or scenes)
        others = [x.number for x in scenes if x.number != s.number]
        while len(others) < 3:  # a video of three scenes: invent a number it never shows
            others.append(rng.choice([n for n in range(10, 100) if n not in others and n != s.number]))
        values = rng.sample(others, 3) + [s.number]
        rng.shuffle(values)
        return (
            f"Which number is displayed while the {s.colour} {s.shape} is visible?",
            values,
            values.index(s.number),
            s,
            lambda v: [Claim("figure", (s.colour, s.shape)), Claim("number", v)],
        )
    i = rng.randrange(len(scenes) - 1)
    s = scenes[i + 1]
    values = rng.sample([w for w in WORDS if w != s.word], 3) + [s.word]
    rng.shuffle(values)
    return (
        f'Which word appears right after "{scenes[i].word}"?',
        values,
        values.index(s.word),
        s,
        lambda v: [Claim("word", v)],
    )


def _kind(quality: float, rng: random.Random) -> str:
    kind = rng.choices(
        ["correct", "wrong_time", "wrong_content", "missing", "redundant", "malformed"],
        weights=[quality, *((1 - quality) * w for w in (0.3, 0.2, 0.15, 0.2, 0.15))],
    )[0]
    if kind == "malformed":
        kind = rng.choice([f for f in FEATURES if f.startswith("malformed:")])
    return kind


def make_response(
    response_id: str,
    truth: VideoTruth,
    index: int,
    rng: random.Random,
    model: str | None = None,
    quality_of: Callable[[float], float] | None = None,
) -> Plan:
    """One question about the video and `model`'s response to it, with its plan. The response's
    quality (share of correct citations, chance of the right answer) is drawn per response so
    scores spread: uniform on [0.05, 0.95], mapped through `quality_of` when given (a model's
    own spread); response `index` fixes one FEATURES kind it always shows."""
    quality = rng.uniform(0.05, 0.95)
    if quality_of is not None:
        quality = quality_of(quality)
    question, values, true_index, key_part, key_claims = _question(truth, rng)
    model_index = (
        true_index
        if rng.random() < 0.35 + 0.6 * quality
        else rng.choice([i for i in range(len(values)) if i != true_index])
    )
    letter = LETTERS[model_index]
    wrong = [LETTERS[i] for i in range(len(values)) if i != model_index]

    feature = FEATURES[index % len(FEATURES)]
    observations = [_observation(truth, key_part, key_claims(values[model_index]), _kind(quality, rng), rng)]
    # distinct parts, so no observation is written twice
    parts = rng.sample([p for p in truth.scenes + truth.sounds if p is not key_part], rng.randint(3, 5))
    for n, part in enumerate(parts):
        kind = feature if n == 0 else _kind(quality, rng)
        if isinstance(part, VisualScene) and kind != "missing" and rng.random() < 0.35:
            observations.append(_cross_modal(truth, part, kind, rng))
        else:
            observations.append(_observation(truth, part, _part_claims(part, rng), kind, rng))
    rng.shuffle(observations)

    def reasoning(text: str) -> PlannedSentence:
        return PlannedSentence(text, False)

    opening = [
        "Let me go through the video step by step.",
        "I will check the frames and the soundtrack in order.",
        "First, I look at what is shown and heard.",
    ]
    ruled_out = rng.sample(wrong, 2)
    bookkeeping = [
        f"Option {ruled_out[0]} does not match what was observed.",
        f"This rules out option {ruled_out[1]}.",
        "Shapes and tones like these are typical of a test pattern.",
        "The other options mention things that do not appear at that moment.",
    ]
    closing = [
        f"Therefore, the answer is {letter}.",
        f"So option {letter} is the best match.",
        f"Only option {letter} fits these observations.",
    ]
    sentences = ([reasoning(rng.choice(opening))] if rng.random() < 0.5 else []) + observations
    sentences += [reasoning(t) for t in rng.sample(bookkeeping, rng.randint(1, 2))]
    sentences.append(reasoning(rng.choice(closing)))

    body = sentences[0].text
    for s in sentences[1:]:
        body += ("\n" if rng.random() < 0.3 else " ") + s.text
    text = ("Reasoning: " if rng.random() < 0.6 else "") + body + f"\nAnswer: {letter}"
    if index % 4 == 1 or rng.random() < 0.15:
        text = (
            f"<think>The question is: {question} I should look at the frames and listen to the "
            f"audio before deciding. Maybe {values[model_index]}?</think>\n"
        ) + text
    options = [f"{LETTERS[i]}. {v}" for i, v in enumerate(values)]
    response = Response(
        response_id,
        text,
        truth.name,
        question,
        options,
        LETTERS[true_index],
        {"synthetic": True},
        model,
    )
    return Plan(response, tuple(sentences), quality)
