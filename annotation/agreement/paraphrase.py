"""Are two annotators' atomic facts the same fact in other words? A similarity in [0, 1] read from
meaning, word by word, and a verdict: surely the same, surely different, or a question for a person.

A fact is read as its *content words* in order, after what people change when they reword is made
one: citations, case and punctuation; meta-talk ("the video shows", "we can see", "can be heard");
articles, pronouns and prepositions ("against" / "on"); number words ("two" → 2); British and
American spelling; short forms ("goalie", "mic", "St.", "TV"); irregular tenses ("caught" →
catch); a few phrasal verbs ("picks up" → lift); and voice — "X is V-ed by Y" is read "Y V-s X",
so a passive meets its active. Compound spelling ("score board" / "scoreboard") is joined when the
other wording has the joined word.

Two content words mean the same when they are equal after light stemming, one spelling apart
(rapidfuzz ratio ≥ SPELLING_RATIO: a typo, "theatre" / "theater"), listed as synonyms
(`_SYNONYMS`, a small list of plain everyday pairs) — else as much as wordllama's meaning vectors
say (`meaning.py`, a cosine). The words of the two facts are paired one to one (Hungarian) and the
similarity is the *weakest link*: the least alike pair, a word without a partner counting 0. A
fact is the same fact only when every one of its words is said by the other, so a part never
passes for the whole ("oil" / "olive oil", one fact / two merged) and another object never passes
for the object ("onions" / "carrots": their vectors are far apart, synonyms' are close).

Rules veto a join whatever the similarity (`conflict`): numbers, colours (a misspelt colour is
still its colour), times of day and days, quoted text, negation, opposites ("before" / "after"),
and roles swapped around a verb — read after the voice, so "The woman faces the students." /
"The woman is faced by the students." is refused and "The cat is fed by the woman." / "The woman
feeds the cat." is joined. The citation subsets are compared by the clusters (`clusters.py`).

`verdict` turns the similarity into three answers with two thresholds chosen on the tuning half of
tests/data/fact_pairs.jsonl (benchmarks/paraphrase_alignment.py reports both halves): at or above
SAME_FACT_THRESHOLD surely the same; below ASK_THRESHOLD surely different; between them a
one-key "Same fact?" question for the adjudicator (`same_fact.py`), whose answer the clusters use
from then on.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein
from scipy.optimize import linear_sum_assignment

from annotation.agreement import meaning
from annotation.agreement.alignment import normalise_fact_text

SAME_FACT_THRESHOLD = 0.65  # chosen on the tuning half (`choose_thresholds`: 0.6497)
ASK_THRESHOLD = 0.285  # chosen on the tuning half (`choose_thresholds`: 0.2857): below, surely different
SPELLING_RATIO = 85  # rapidfuzz ratio (0–100) at which two content words are one word spelt apart
SAME, ASK, DIFFERENT = "same", "ask", "different"

_FUNCTION_WORDS = frozenset(
    """a an the is are was were be been being am there here it its this that these those of in on at
    to toward towards into onto upon for with by from as and or but so then while when has have had
    having do does did can could may might will would shall should also just very some any which who
    whom whose what ca wo against off out up down over about he she they him her them his their my our
    your we i you one each other another next top beside around through across along past""".split()
)
# The verbs and places of showing: "is shown", "appears on screen", "can be heard", "plays".
_META_WORDS = frozenset(
    """video clip footage frame frames image picture onscreen scene audio soundtrack show shows
    shown showing display displays displayed displaying appear appears appeared appearing visible
    seen see sees heard hear hears audible play plays playing played present presented depict
    depicts depicted observe observed viewer written contain contains""".split()
)
# Nouns that only stand for a more specific one ("the shape on screen is red" = "a red shape").
_GENERIC_WORDS = frozenset(
    """shape shapes figure figures object objects thing things item items colour color number numbers
    word words time times someone somebody something""".split()
)
_NEGATIONS = frozenset("no not never none nothing nobody neither nor without cannot".split())
# meta-talk said as a clause: "the video shows (that)", "we can see", "it is visible that"
_META_PHRASES = re.compile(
    r"\b(?:the )?(?:video|clip|footage|scene|camera|audio|recording|image|frame)s? (?:clearly )?"
    r"(?:shows|depicts|contains|captures|displays|features|reveals)(?: that)?\b"
    r"|\b(?:we|you|one|the viewer) (?:can |could )?(?:see|hear|observe|notice)s?(?: that)?\b"
    r"|\bit is (?:visible|shown|seen|heard|clear|evident) that\b"
    r"|\bin the (?:video|clip|footage|scene|recording)\b",
    re.IGNORECASE,
)
# "on screen" is where everything is shown; "points at the screen" keeps its screen.
_SCREEN_PHRASES = re.compile(
    r"\b(?:on|across|in)(?: the)? screen\b|\bthe screen (?:has|shows)\b", re.IGNORECASE
)
# Silence is said as an absence as often as a state: "nothing can be heard" is "it is silent".
_SILENCE_PHRASES = re.compile(
    r"\b(?:nothing|no sound|no audio)(?: (?:can|could) be| is)? (?:heard|audible)\b|\bno sound\b",
    re.IGNORECASE,
)
_CONTRACTED_NOT = re.compile(r"n['’]t\b", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“”«»]([^\"“”«»]+)[\"“”«»]")
_QUOTE_MARKS = tuple('"“”«»')
# phrasal verbs and set phrases that say one thing ("picks up" → lift); the particle matters
_PHRASES = [
    (re.compile(r"\b(?:pick|picks|picked|picking) (?:\w+ )?up\b"), "lift"),
    (re.compile(r"\b(?:turn|turns|turned|turning|switch|switches|switched|shut|shuts) off\b"), "switchoff"),
    (re.compile(r"\b(?:turn|turns|turned|turning|switch|switches|switched) on\b"), "switchon"),
    (re.compile(r"\bnext to\b"), "beside"),
    (re.compile(r"\b(?:cell|mobile) ?phone\b"), "telephone"),
    (re.compile(r"\bon top of\b"), "on"),
    (re.compile(r"\bout loud\b"), ""),
    (re.compile(r"\b(?:(?:say|says|said|saying) )?(?:thank you|thanks)\b"), "thank"),
    (re.compile(r"\b(?:fall|falls|fell|go|goes|went) (?:to sleep|asleep)\b"), "sleep"),
    (re.compile(r"\bo clock\b"), "oclock"),
]
# Pieces every match of a group of patterns holds: a fact holding none of them (most facts) skips
# the group, whose ten scans were a third of reading a fact. The meta-talk patterns ignore case, so
# their pieces are looked for in the lower-cased text, and only in an ASCII one (Unicode case
# folding matches more: 'ſ' is an 's').
_META_PIECES = (
    "video", "clip", "footage", "scene", "camera", "audio", "recording", "image", "frame", "see", "hear",
    "observe", "notice", "it is", "screen", "audible", "no sound", "n't",
)  # fmt: skip
_PHRASE_PIECES = (
    "pick", "turn", "switch", "shut", "next to", "phone", "on top of", "out loud", "thank", "sleep", "o clock",
)  # fmt: skip


def _holds_any(text: str, pieces: tuple[str, ...]) -> bool:
    for piece in pieces:
        if piece in text:
            return True
    return False


_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {w: str(10 * v) for v, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), start=3)}
_NUMBER_WORDS |= {"once": "1", "twice": "2", "thrice": "3"}
_ORDINALS = {w: f"#{n}" for n, w in enumerate("first second third fourth fifth sixth".split(), start=1)}
_COLOURS = frozenset(
    """red orange yellow green blue purple violet pink brown black white grey cyan magenta turquoise
    beige gold silver""".split()
)
# real words one letter away from a colour name: never read as a misspelt colour
_NOT_COLOURS = frozenset("block while write whit blur glue clue greet grew greed bread reed rod".split())
# named times: two wordings of one fact name the same ones
_TIMES = frozenset(
    """morning afternoon evening night noon midnight dawn dusk day today yesterday tomorrow monday
    tuesday wednesday thursday friday saturday sunday spring summer autumn winter""".split()
)
# short forms and common abbreviations → the full word (a small list)
_SHORT_FORMS = {
    "goalie": "goalkeeper", "mic": "microphone", "mike": "microphone", "st": "street", "rd": "road",
    "ave": "avenue", "tv": "television", "telly": "television", "ref": "referee", "prof": "professor",
    "dr": "doctor", "fridge": "refrigerator", "bike": "bicycle", "photo": "photograph",
    "pic": "picture", "lab": "laboratory", "sax": "saxophone", "min": "minute", "mins": "minutes",
    "sec": "second", "secs": "seconds", "hr": "hour", "hrs": "hours", "km": "kilometer",
    "kg": "kilogram", "cm": "centimeter", "amp": "amplifier", "ad": "advertisement",
    "cam": "camera", "vid": "video", "info": "information", "uni": "university", "exam":
    "examination", "maths": "mathematics", "math": "mathematics", "gym": "gymnasium",
    "phone": "telephone", "ok": "okay",
}  # fmt: skip
# British spellings (and a few other variants) → one spelling
_SPELLINGS = {
    "gray": "grey", "colour": "color", "colours": "colors", "colourful": "colorful", "theatre": "theater",
    "centre": "center", "metre": "meter", "metres": "meters", "kilometre": "kilometer",
    "kilometres": "kilometers", "litre": "liter", "favourite": "favorite", "neighbour": "neighbor",
    "tyre": "tire", "tyres": "tires", "kerb": "curb", "moustache": "mustache", "doughnut": "donut",
    "jewellery": "jewelry", "programme": "program", "travelled": "traveled", "cheque": "check",
    "pyjamas": "pajamas", "aluminium": "aluminum", "aeroplane": "airplane", "plough": "plow",
    "silence": "silent", "practise": "practice", "grey": "grey",
}  # fmt: skip
_ISE = re.compile(r"(?<=\w{3})is(e|es|ed|ing)$")  # organise → organize


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """A light suffix strip so inflections meet: 'waves', 'waving', 'waved' → 'wav'."""
    for suffix, keep in (("ing", 3), ("ed", 3), ("es", 3), ("s", 3)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # stopped / stops → stop
    return word


# plain everyday synonyms (each pair both ways, not transitive); stems as `_stem` leaves them
_SYNONYM_PAIRS = """start begin|leave exit|shout yell|big large|kid child|couch sofa|applaud clap
    talk speak|lift raise|finish complete|small little|cut chop|cut slice|grin smile|film movie
    man guy|woman lady|car automobile|pavement sidewalk|lorry truck|rubbish trash|bin trashcan
    shop store|pitch field|match game|jumper sweater|tap faucet|postman mailman|cooker stove
    autumn fall|holiday vacation|queue line|trousers pants|photograph picture|look glance
    stare gaze|quick fast|rapid fast|sprint dash|hurry rush|sofa settee|teacher instructor
    bin dustbin""".replace("\n", "|").split("|")
_SYNONYMS = frozenset(frozenset(_stem(w) for w in pair.split()) for pair in _SYNONYM_PAIRS)
# opposites: one wording with a word of one side and the other with a word of the other side
_OPPOSITES = [
    tuple(frozenset(_stem(w) for w in side.split(",")) for side in pair.split("/"))
    for pair in """before/after left/right up/down open/close,shut enter/leave,exit start,begin/end,finish
    #1/last top/bottom front/back,behind above/below,under,beneath inside/outside win/lose buy/sell
    push/pull more/less,fewer fast,quick/slow loud/quiet,soft high/low big,large/small,little,tiny
    full/empty hot/cold early/late increase/decrease rise/fall arrive/leave,depart give/take
    throw/catch sit/stand smile/frown laugh/cry switchon/switchoff man/woman boy/girl""".split()
]
_BE = frozenset("is are was were be been being gets get got".split())
# irregular past tenses and participles → the base verb
_IRREGULAR = {
    form: base
    for base, forms in (
        ("hold", "held"), ("catch", "caught"), ("throw", "threw thrown"), ("take", "took taken"),
        ("eat", "ate eaten"), ("see", "saw"), ("drive", "drove driven"), ("write", "wrote written"),
        ("build", "built"), ("buy", "bought"), ("bring", "brought"), ("give", "gave given"),
        ("ride", "rode ridden"), ("strike", "struck stricken"), ("shoot", "shot"),
        ("sing", "sang sung"), ("run", "ran"), ("sit", "sat"), ("stand", "stood"),
        ("fall", "fell fallen"), ("go", "went gone"), ("come", "came"), ("make", "made"),
        ("say", "said"), ("tell", "told"), ("speak", "spoke spoken"), ("break", "broke broken"),
        ("choose", "chose chosen"), ("begin", "began begun"),
        ("drink", "drank drunk"), ("swim", "swam swum"), ("fly", "flew flown"), ("grow", "grew grown"),
        ("know", "knew known"), ("wear", "wore worn"), ("tear", "tore torn"), ("teach", "taught"),
        ("fight", "fought"), ("feel", "felt"), ("keep", "kept"), ("sleep", "slept"),
        ("sweep", "swept"), ("lead", "led"), ("feed", "fed"), ("meet", "met"), ("light", "lit"),
        ("hang", "hung"), ("win", "won"), ("spin", "spun"), ("dig", "dug"), ("stick", "stuck"),
        ("swing", "swung"), ("blow", "blew blown"), ("draw", "drew drawn"), ("hide", "hid hidden"),
        ("bite", "bit bitten"), ("beat", "beaten"), ("steal", "stole stolen"), ("wake", "woke woken"),
        ("freeze", "froze frozen"), ("forget", "forgot forgotten"), ("find", "found"),
        ("lose", "lost"), ("send", "sent"), ("spend", "spent"), ("lend", "lent"), ("bend", "bent"),
        ("sell", "sold"), ("think", "thought"), ("seek", "sought"), ("shake", "shook shaken"),
        ("rise", "rose risen"), ("lie", "lay lain"), ("lay", "laid"), ("pay", "paid"),
        ("hear", "heard"), ("show", "shown"), ("do", "did done"), ("have", "had"),
        ("get", "got gotten"), ("become", "became"), ("feed", "fed"), ("slide", "slid"),
        ("shine", "shone"), ("tie", "tied"), ("die", "died"),
    )
    for form in forms.split()
}  # fmt: skip
# a word after one of these is a place or a time, not who does what to whom (roles)
_PLACE_WORDS = frozenset(
    """on in at into onto across under over near inside outside above below behind beside along
    through around while when after before during past""".split()
)


@lru_cache(maxsize=1 << 16)
def _colour(word: str) -> str | None:
    """The colour a word names, a one-letter slip of a colour name included ('wite' → white)."""
    if word in _COLOURS:
        return word
    if word == "gray":
        return "grey"
    if len(word) >= 4 and word not in _NOT_COLOURS:
        for colour in _COLOURS:
            if len(colour) >= 4 and Levenshtein.distance(word, colour) == 1:
                return colour
    return None


@lru_cache(maxsize=1 << 16)
def _plain_word(word: str) -> str:
    """One spelling of a word: short forms, British spelling, number words, ordinals, colours."""
    word = _SHORT_FORMS.get(word, word)
    word = _SPELLINGS.get(word, word)
    word = _ISE.sub(lambda m: "iz" + m.group(1), word)
    word = _NUMBER_WORDS.get(word, _ORDINALS.get(word, word))
    return _colour(word) or word


def _active_voice(words: list[str]) -> list[str]:
    """'X is V-ed (…) by Y' → 'Y V-ed X (…)': a passive read as its active, so roles compare."""
    for k, word in enumerate(words):
        if word not in _BE:
            continue
        p = k + 1
        while p < len(words) and (words[p] == "being" or words[p].endswith("ly")):
            p += 1
        if p >= len(words) or not (words[p].endswith(("ed", "en", "wn")) or words[p] in _IRREGULAR):
            continue
        if "by" not in words[p + 1 :]:
            continue
        by = words.index("by", p + 1)
        return words[by + 1 :] + [words[p]] + words[:k] + words[p + 1 : by]
    return words


@lru_cache(maxsize=1 << 15)
def _words(text: str) -> tuple[str, ...]:
    """The normalised words of a fact in active voice, meta-talk and set phrases made one."""
    plain = text
    if not text.isascii() or _holds_any(text.lower(), _META_PIECES):
        plain = _CONTRACTED_NOT.sub(" not", plain)
        plain = _SILENCE_PHRASES.sub(" silent ", _SCREEN_PHRASES.sub(" ", _META_PHRASES.sub(" ", plain)))
    plain = normalise_fact_text(plain.replace("’", "'").replace("'s ", " "))
    if _holds_any(plain, _PHRASE_PIECES):
        for pattern, replacement in _PHRASES:
            plain = pattern.sub(replacement, plain)
    words = [_plain_word(w) for w in plain.split()]
    return tuple(_active_voice(words))


_SKIPPED_WORDS = _FUNCTION_WORDS | _META_WORDS | _GENERIC_WORDS | _NEGATIONS  # not content words


@lru_cache(maxsize=1 << 15)
def _tokens(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(stem, surface, in a place phrase?) of each content word, in order."""
    out, place = [], False
    for word in _words(text):
        if word in _PLACE_WORDS:
            place = True
        if word in _SKIPPED_WORDS:
            continue
        base = _IRREGULAR.get(word, word)
        stem = word if word.isdigit() or word.startswith("#") or word in _COLOURS else _stem(base)
        out.append((stem, base, place))
        place = False
    return tuple(out)


def meaning_texts(text: str) -> list[str]:
    """The texts whose meaning vectors comparing `text` may need: its content words as written
    (to embed a campaign's words in one batch, `meaning.vectors`)."""
    return [surface for _, surface, _ in _tokens(text)]


def content_words(text: str) -> tuple[str, ...]:
    """The content words of a fact in order (module doc), lightly stemmed; numbers and colours kept
    as they are. Any string is accepted; a fact of function words only gives ()."""
    return tuple(stem for stem, _, _ in _tokens(text))


@lru_cache(maxsize=1 << 15)
def _markers(text: str):
    """(numbers, colours, named times, quoted texts, negated?) — what two wordings of one fact share."""
    words = _words(text)
    quoted = _QUOTED.findall(text) if _holds_any(text, _QUOTE_MARKS) else ()  # most facts quote nothing
    return (
        tuple(sorted(w for w in words if w.isdigit() or w.startswith("#"))),
        _COLOURS.intersection(words),
        _TIMES.intersection(words),
        frozenset(normalise_fact_text(q) for q in quoted),
        len([w for w in words if w in _NEGATIONS]) % 2 == 1,
    )


@lru_cache(maxsize=1 << 16)
def _exactly_alike(a: str, b: str) -> bool:
    """Equal stems, listed synonyms, or one spelling apart (numbers and colours: equal only)."""
    if a == b or frozenset((a, b)) in _SYNONYMS:
        return True
    if a[0].isdigit() or b[0].isdigit() or a in _COLOURS or b in _COLOURS or "#" in a + b:
        return False
    return min(len(a), len(b)) >= 4 and fuzz.ratio(a, b) >= SPELLING_RATIO


def _joined_compounds(tokens, other) -> list:
    """`tokens` with two neighbours joined where the other wording has the joined word
    ('score', 'board' → 'scoreboard')."""
    others = {surface for _, surface, _ in other} | {stem for stem, _, _ in other}
    out, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens):
            joined = tokens[i][1] + tokens[i + 1][1]
            if joined in others or _stem(joined) in others:
                out.append((_stem(joined), joined, tokens[i][2]))
                i += 2
                continue
        out.append(tokens[i])
        i += 1
    return out


def _word_matrix(tokens_a, tokens_b) -> np.ndarray:
    """How alike each word of a is to each word of b: 1 when `_exactly_alike`, else the cosine of
    their meaning vectors (at least 0; numbers, colours and named times: 1 when equal, else 0)."""
    stems_a, stems_b = [t[0] for t in tokens_a], [t[0] for t in tokens_b]
    alike = np.array([[_exactly_alike(x, y) for y in stems_b] for x in stems_a], dtype=bool)
    (marks_a, va), (marks_b, vb) = _word_arrays(tuple(tokens_a)), _word_arrays(tuple(tokens_b))
    markers = marks_a[:, None] | marks_b
    if (alike | markers).all():
        return alike.astype(float)
    return np.where(alike, 1.0, np.where(markers, 0.0, np.maximum(va @ vb.T, 0.0)))


@lru_cache(maxsize=1 << 10)  # a wording is compared with the others of its sentence in a row
def _word_arrays(tokens: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(which content words are markers, their meaning vectors, a row each) of a wording's tokens."""
    return (
        np.array([_marker_word(stem) for stem, _, _ in tokens], dtype=bool),
        meaning.vectors([surface for _, surface, _ in tokens]),
    )


@lru_cache(maxsize=1 << 16)
def _marker_word(stem: str) -> bool:
    return stem[0].isdigit() or stem.startswith("#") or stem in _COLOURS or stem in _TIMES


@lru_cache(maxsize=1 << 16)
def _compared_tokens(a: str, b: str):
    """The content words of a and of b, compounds joined where the other has the joined word."""
    tokens_a, tokens_b = list(_tokens(a)), list(_tokens(b))
    return _joined_compounds(tokens_a, tokens_b), _joined_compounds(tokens_b, tokens_a)


@lru_cache(maxsize=1 << 16)
def _pair_matrix(a: str, b: str) -> np.ndarray:
    """`_word_matrix` of the two wordings' compared content words."""
    return _word_matrix(*_compared_tokens(a, b))


@lru_cache(maxsize=1 << 16)
def _alignment(a: str, b: str):
    """(tokens of a, tokens of b, [(i, j, similarity)] one to one) of the two wordings' content words."""
    tokens_a, tokens_b = _compared_tokens(a, b)
    if not tokens_a or not tokens_b:
        return tokens_a, tokens_b, []
    matrix = _pair_matrix(a, b)
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    return (
        tokens_a,
        tokens_b,
        [(int(i), int(j), float(matrix[i, j])) for i, j in zip(rows, cols, strict=True)],
    )


def _swapped(pairs: list[tuple[int, int]]) -> bool:
    """True when two shared words trade places around a third shared word (x < v < y in one text,
    y < v < x in the other): who does what to whom has changed. `pairs` are sorted by a's index:
    some middle word has a word before it placed after it in b and a word after it placed before."""
    places = [j for _, j in pairs]
    return any(max(places[:v]) > places[v] > min(places[v + 1 :]) for v in range(1, len(places) - 1))


_OPPOSITE_WORDS = frozenset().union(*(one | other for one, other in _OPPOSITES))


def _opposed(stems_a: set[str], stems_b: set[str]) -> bool:
    if stems_a.isdisjoint(_OPPOSITE_WORDS) or stems_b.isdisjoint(_OPPOSITE_WORDS):
        return False  # most pairs: no word of either side of any opposite
    for one, other in _OPPOSITES:
        if (stems_a & one and stems_b & other and not stems_a & other and not stems_b & one) or (
            stems_a & other and stems_b & one and not stems_a & one and not stems_b & other
        ):
            return True
    return False


@lru_cache(maxsize=1 << 16)
def conflict(a: str, b: str) -> str | None:
    """Why two wordings cannot state the same fact ('numbers differ', 'colours differ', 'times
    differ', 'quoted text differs', 'negation differs', 'opposites', 'roles swapped'), or None."""
    numbers_a, _, times_a, quoted_a, negated_a = _markers(a)
    numbers_b, _, times_b, quoted_b, negated_b = _markers(b)
    tokens_a, tokens_b, pairs = _alignment(a, b)
    if numbers_a != numbers_b:
        return "numbers differ"
    # colours of the words as compared: the 'white' of 'white board' / 'whiteboard' is no colour
    if {t[0] for t in tokens_a if t[0] in _COLOURS} != {t[0] for t in tokens_b if t[0] in _COLOURS}:
        return "colours differ"
    if times_a != times_b:
        return "times differ"
    if quoted_a and quoted_b and quoted_a != quoted_b:
        return "quoted text differs"
    if negated_a != negated_b:
        return "negation differs"
    if _opposed({t[0] for t in tokens_a}, {t[0] for t in tokens_b}):
        return "opposites"
    roles = sorted(
        (i, j) for i, j, s in pairs if s >= SAME_FACT_THRESHOLD and not tokens_a[i][2] and not tokens_b[j][2]
    )
    if _swapped(roles):
        return "roles swapped"
    return None


def paraphrase_similarity(a: str, b: str) -> float:
    """How surely two wordings state one fact, in [0, 1]: the weakest link of their content words
    paired one to one (module doc), a word without a partner counting 0; 0.0 when `conflict` finds
    a reason they differ (consulted only when every word has a partner at least ASK_THRESHOLD alike:
    below, the pair is surely different already and the similarity is that bound). Two texts without content words are the same fact (1.0) when their
    normalised texts are equal, else 0.0; one without content words against one with gives 0.0.
    The measure reads both wordings alike (equal in either order on every pair of the labelled set
    and of benchmarks/cluster_speed.py's campaign, checked when this was written), and
    clustering asks for a pair in both orders a third of the time: each pair is computed once."""
    return _similarity(a, b) if a <= b else _similarity(b, a)


@lru_cache(maxsize=1 << 16)  # the same pairs come back for every sentence's clustering
def _similarity(a: str, b: str) -> float:
    """`paraphrase_similarity` of two wordings in the order given."""
    if normalise_fact_text(a) == normalise_fact_text(b):
        return 1.0  # the same words: nothing to compare
    counted_a, counted_b = _compared_tokens(a, b)
    if len(counted_a) != len(counted_b):
        return 0.0  # a word without a partner: the weakest link is 0
    if not counted_a:
        return 0.0
    matrix = _pair_matrix(a, b)
    # a word whose best partner is below the ask threshold is surely not said by the other wording
    bound = min(matrix.max(axis=1).min(), matrix.max(axis=0).min())
    if bound < ASK_THRESHOLD:
        return round(float(bound), 6)
    if conflict(a, b) is not None:
        return 0.0
    return round(min(s for _, _, s in _alignment(a, b)[2]), 6)


def verdict(similarity: float) -> str:
    """SAME at or above SAME_FACT_THRESHOLD, DIFFERENT below ASK_THRESHOLD, else ASK (a person)."""
    if similarity >= SAME_FACT_THRESHOLD:
        return SAME
    return ASK if similarity >= ASK_THRESHOLD else DIFFERENT


@lru_cache(maxsize=1 << 16)  # every pair of a sentence's clusters is asked, some twice
def contains(longer: str, shorter: str) -> bool:
    """True when every content word of `shorter` is said by `longer` and nothing conflicts beyond
    what `longer` adds: the longer fact states the shorter one (and maybe more)."""
    tokens_short, tokens_long, pairs = _alignment(shorter, longer)
    if not tokens_short or sum(s >= SAME_FACT_THRESHOLD for _, _, s in pairs) < len(tokens_short):
        return False
    numbers_l, colours_l, _, _, negated_l = _markers(longer)
    numbers_s, colours_s, _, _, negated_s = _markers(shorter)
    return not (Counter(numbers_s) - Counter(numbers_l)) and colours_s <= colours_l and negated_s == negated_l


def misspelt_words(text: str, others) -> list[str]:
    """The words of `text` that another wording spells otherwise, more plausibly: one spelling apart
    (rapidfuzz ratio ≥ SPELLING_RATIO) and written so by more of the wordings, or by as many and
    more plausible to the vocabulary (`meaning.spelling_cost`: 'squirel' against 'squirrel'). Listed
    spellings of one word (British and American: 'colour' / 'color') are both right."""
    losing = _losing_spellings(tuple(sorted([text, *others])))
    return [word for word in normalise_fact_text(text).split() if word in losing]


def misspelt_counts(texts) -> list[int]:
    """How many words of each of `texts` another of them spells otherwise, more plausibly
    (`misspelt_words` of each against all the others), the wordings' spellings weighed once."""
    losing = _losing_spellings(tuple(sorted(texts)))
    return [sum(word in losing for word in normalise_fact_text(text).split()) for text in texts]


@lru_cache(maxsize=1 << 14)
def _losing_spellings(texts: tuple[str, ...]) -> frozenset[str]:
    """The words of these wordings that lose to another's spelling of them (`misspelt_words`)."""
    vocabulary = Counter(w for t in texts for w in set(normalise_fact_text(t).split()))
    candidates = [w for w in vocabulary if len(w) >= 4 and not w.isdigit()]
    out = set()
    for word in candidates:
        for other in candidates:
            if other == word or fuzz.ratio(word, other) < SPELLING_RATIO:
                continue
            if _SPELLINGS.get(word, word) == _SPELLINGS.get(other, other):
                continue  # listed spellings of one word ('programme' / 'program'): neither is a slip
            if vocabulary[other] > vocabulary[word] or (
                vocabulary[other] == vocabulary[word]
                and meaning.spelling_cost(other) < meaning.spelling_cost(word)
            ):
                out.add(word)
                break
    return frozenset(out)


def choose_thresholds(scored: list[tuple[float, bool]]) -> tuple[float, float]:
    """(SAME_FACT_THRESHOLD, ASK_THRESHOLD) from a labelled set of (similarity, same fact?) pairs.

    The ask threshold keeps every different-fact pair surely different: the midpoint between the
    highest similarity of a different pair and the next similarity above it (a false join silently
    mixes two facts' answers; a question only costs the adjudicator a key). The same threshold is
    the middle of the widest gap between neighbouring similarities from the ask threshold up to 1:
    what falls between the two is asked, with the most margin on both sides. ValueError when a
    different pair scores 1 (no threshold can keep it apart) or the set has no different pair."""
    different = [score for score, same in scored if not same]
    if not different:
        raise ValueError("a labelled set needs different-fact pairs to choose thresholds")
    top = max(different)
    above = sorted({score for score, _ in scored if score > top} | {1.0})
    if top >= 1.0:
        raise ValueError("a different-fact pair scores 1.0: no threshold keeps it apart")
    ask = (top + above[0]) / 2
    levels = [ask, *[score for score in above if score > ask]]
    if len(levels) < 2:
        return 1.0, ask
    gaps = [(high - low, (low + high) / 2) for low, high in zip(levels, levels[1:], strict=False)]
    return max(gaps)[1], ask
