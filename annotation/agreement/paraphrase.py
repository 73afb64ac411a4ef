"""Are two annotators' atomic facts the same fact in other words? A similarity in [0, 1] that sees
through rewording and refuses the hard negatives a character or token ratio lets through.

Two wordings of one fact share their *content words*; what people change when they reword is the
rest: articles and auxiliaries ("There is a red triangle" / "A red triangle is"), the verbs of
showing ("appears", "is shown", "is heard", "plays" — PROTOCOL §2 calls it meta-talk), generic
nouns that only stand for the specific one ("the shape on screen is a triangle"), word order and
inflection — and silence, said as an absence as often as a state ("nothing can be heard" / "the
audio is silent"). So a text is reduced to its content words (lower-cased, numbers as digits, light
suffix stripping so "waves", "waving" and "waved" meet), and the similarity is the Dice overlap
of the two content-word multisets, words matching when equal or when rapidfuzz's ratio says they
are one spelling apart ("colour" / "color", a typo).

Some pairs share nearly every word and still state different facts; those are refused outright
(similarity 0): different numbers ("83 is shown" / "38 is shown"), different colours, different
quoted text, one side negated and not the other, and two shared words that trade places around a
third ("the man hands the woman a cup" / "the woman hands the man a cup").

What it cannot see is a synonym ("points" / "gestures"): such rewordings stay apart and reach
the adjudicator as a dispute — the safe direction, since a wrongly merged fact would silently
count one person's answers for another claim. `SAME_FACT_THRESHOLD` was chosen on the labelled
paraphrase set of tests/annotation/agreement/paraphrase_pairs.py (`choose_threshold`); the
benchmark benchmarks/paraphrase_alignment.py reports its precision and recall.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from rapidfuzz import fuzz

from annotation.agreement.alignment import normalise_fact_text

SAME_FACT_THRESHOLD = 0.9  # chosen on the labelled paraphrase set (see module doc)
SPELLING_RATIO = 85  # rapidfuzz ratio (0–100) at which two content words are one word spelt apart

_FUNCTION_WORDS = frozenset(
    """a an the is are was were be been being am there here it its this that these those of in on at
    to toward towards into onto for with by from as and or but so then while when has have had having
    do does did can could may might will would shall should also just very some any which who whom
    whose what ca wo""".split()
)
# The verbs and places of showing: "is shown", "appears on screen", "can be heard", "plays".
_META_WORDS = frozenset(
    """video clip footage frame frames image picture onscreen scene audio soundtrack show shows
    shown showing display displays displayed displaying appear appears appeared appearing visible
    seen see sees heard hear hears audible play plays playing played present presented depict
    depicts depicted observe observed viewer we you written""".split()
)
# Nouns that only stand for a more specific one ("the shape on screen is red" = "a red shape").
_GENERIC_WORDS = frozenset(
    "shape shapes figure figures object objects thing things item items colour color number numbers word "
    "words time times".split()
)
# "on screen" is where everything is shown; "points at the screen" keeps its screen.
_SCREEN_PHRASES = re.compile(
    r"\b(?:on|across|in)(?: the)? screen\b|\bthe screen (?:has|shows)\b", re.IGNORECASE
)
_SPELLINGS = {"gray": "grey", "once": "1", "twice": "2", "thrice": "3", "silence": "silent"}
# Silence is said as an absence as often as a state: "nothing can be heard" is "it is silent".
_SILENCE_PHRASES = re.compile(
    r"\b(?:nothing|no sound|no audio)(?: (?:can|could) be| is)? (?:heard|audible)\b|\bno sound\b",
    re.IGNORECASE,
)
_NEGATIONS = frozenset("no not never none nothing nobody neither nor without cannot".split())
_COLOURS = frozenset(
    """red orange yellow green blue purple violet pink brown black white grey gray cyan magenta
    turquoise beige gold silver""".split()
)
_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {w: str(10 * v) for v, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), start=3)}
_QUOTED = re.compile(r"[\"“”«»]([^\"“”«»]+)[\"“”«»]")
_CONTRACTED_NOT = re.compile(r"n['’]t\b", re.IGNORECASE)


def _stem(word: str) -> str:
    """A light suffix strip so inflections meet: 'waves', 'waving', 'waved' → 'wav'."""
    for suffix, keep in (("ing", 3), ("ed", 3), ("es", 3), ("s", 3)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


@lru_cache(maxsize=1 << 14)
def _words(text: str) -> tuple[str, ...]:
    """The normalised words (`alignment.normalise_fact_text`), "n't" as "not", "on screen" dropped,
    "nothing is heard" as "silent", number words as digits and a few spellings made one ("gray" →
    "grey", "twice" → "2")."""
    plain = _SILENCE_PHRASES.sub(" silent ", _SCREEN_PHRASES.sub(" ", _CONTRACTED_NOT.sub(" not", text)))
    return tuple(_SPELLINGS.get(w, _NUMBER_WORDS.get(w, w)) for w in normalise_fact_text(plain).split())


@lru_cache(maxsize=1 << 14)
def content_words(text: str) -> tuple[str, ...]:
    """The content words of a fact in order (module doc): function words, meta-talk, generic nouns
    and negations left out, the rest lightly stemmed (numbers and colours kept as they are). Any
    string is accepted; a fact of function words only gives ()."""
    skipped = _FUNCTION_WORDS | _META_WORDS | _GENERIC_WORDS | _NEGATIONS
    return tuple(w if w.isdigit() or w in _COLOURS else _stem(w) for w in _words(text) if w not in skipped)


@lru_cache(maxsize=1 << 14)
def _markers(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool]:
    """(numbers, colours, quoted texts, negated?) — what two wordings of one fact must share."""
    words = _words(text)
    return (
        frozenset(w for w in words if w.isdigit()),
        frozenset(w for w in words if w in _COLOURS),
        frozenset(normalise_fact_text(q) for q in _QUOTED.findall(text)),
        sum(w in _NEGATIONS for w in words) % 2 == 1,
    )


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.isdigit() or b.isdigit() or a in _COLOURS or b in _COLOURS:
        return False  # numbers and colours are exact or different
    return fuzz.ratio(a, b) >= SPELLING_RATIO


def _matched_pairs(a: tuple[str, ...], b: tuple[str, ...]) -> list[tuple[int, int]]:
    """Positions (i in a, j in b) of words paired one to one: equal words first, then spellings."""
    pairs, free_b = [], list(range(len(b)))
    for exact in (True, False):
        for i, word in enumerate(a):
            if any(i == p for p, _ in pairs):
                continue
            j = next((j for j in free_b if (b[j] == word if exact else _same_word(word, b[j]))), None)
            if j is not None:
                pairs.append((i, j))
                free_b.remove(j)
    return sorted(pairs)


def _swapped(pairs: list[tuple[int, int]]) -> bool:
    """True when two shared words trade places around a third shared word (x < v < y in one text,
    y < v < x in the other): who does what to whom has changed."""
    for x in range(len(pairs)):
        for v in range(x + 1, len(pairs)):
            for y in range(v + 1, len(pairs)):
                (_, bx), (_, bv), (_, by) = pairs[x], pairs[v], pairs[y]
                if by < bv < bx:
                    return True
    return False


def conflict(a: str, b: str) -> str | None:
    """Why two wordings cannot state the same fact ('numbers differ', 'colours differ', 'quoted
    text differs', 'negation differs', 'roles swapped'), or None."""
    numbers_a, colours_a, quoted_a, negated_a = _markers(a)
    numbers_b, colours_b, quoted_b, negated_b = _markers(b)
    if numbers_a != numbers_b:
        return "numbers differ"
    if colours_a != colours_b:
        return "colours differ"
    if quoted_a and quoted_b and quoted_a != quoted_b:
        return "quoted text differs"
    if negated_a != negated_b:
        return "negation differs"
    if _swapped(_matched_pairs(content_words(a), content_words(b))):
        return "roles swapped"
    return None


@lru_cache(maxsize=1 << 16)  # the same pairs come back for every sentence's clustering
def paraphrase_similarity(a: str, b: str) -> float:
    """Dice overlap in [0, 1] of the two texts' content words (module doc); 0.0 when `conflict`
    finds a reason they differ. Two texts without content words are the same fact (1.0) when their
    normalised texts are equal, else 0.0; one without content words against one with gives 0.0."""
    words_a, words_b = content_words(a), content_words(b)
    if not words_a or not words_b:
        return (
            1.0 if not words_a and not words_b and normalise_fact_text(a) == normalise_fact_text(b) else 0.0
        )
    if conflict(a, b) is not None:
        return 0.0
    return 2 * len(_matched_pairs(words_a, words_b)) / (len(words_a) + len(words_b))


def contains(longer: str, shorter: str) -> bool:
    """True when every content word of `shorter` is among `longer`'s and nothing conflicts beyond
    what `longer` adds: the longer fact states the shorter one (and maybe more)."""
    words_long, words_short = content_words(longer), content_words(shorter)
    if not words_short or len(_matched_pairs(words_short, words_long)) < len(words_short):
        return False
    numbers_l, colours_l, _, negated_l = _markers(longer)
    numbers_s, colours_s, _, negated_s = _markers(shorter)
    return numbers_s <= numbers_l and colours_s <= colours_l and negated_s == negated_l


def choose_threshold(scored: list[tuple[float, bool]]) -> float:
    """The threshold that separates a labelled set of (similarity, same fact?) pairs best: the one
    with the highest F0.5 (precision weighs double: a false merge silently mixes two facts' answers,
    a missed rewording only costs the adjudicator a look). Candidates are the midpoints between
    neighbouring distinct similarities; among equally good ones, the middle of the widest gap (the
    most margin on both sides), then the lowest. ValueError when fewer than two similarities occur."""
    levels = sorted({score for score, _ in scored})
    if len(levels) < 2:
        raise ValueError("a labelled set needs at least two distinct similarities to choose a threshold")
    gaps = {(low + high) / 2: high - low for low, high in zip(levels, levels[1:], strict=False)}

    def f_half(threshold: float) -> float:
        counts = Counter((score >= threshold, same) for score, same in scored)
        tp, fp, fn = counts[True, True], counts[True, False], counts[False, True]
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        return 1.25 * precision * recall / (0.25 * precision + recall) if precision + recall else 0.0

    return max(gaps, key=lambda t: (round(f_half(t), 12), round(gaps[t], 12), -t))
