"""The citation scanner against a small reference parser written for this test (PROTOCOL §1).

The reference follows the grammar in `find_citation_groups`'s docstring with regular expressions
and a stack, quadratic and simple; on short citation-like texts both must find the same groups
at the same offsets, with the same citations (validity, modality of valid ones, start, end).
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from annotation.protocol.citations import find_citation_groups

SYNONYMS = {"visual": "visual", "video": "visual", "vision": "visual", "image": "visual"}
SYNONYMS |= {"audio": "audio", "speech": "audio", "sound": "audio"}
WORDS = "|".join(SYNONYMS)
INVISIBLE = "\u200b\u200e\u2060\ufeff"
LEAD = re.compile(rf"\s*({WORDS})\s*(\S)", re.I | re.S)
CLOCK_SHAPED = re.compile(r"\s*[A-Za-z][A-Za-z_\- ]*,\s*[\d:.\s\-\u2013\u2014]*", re.S)
TIME = r"(\d{1,6}):(\d\d(?:\.\d{1,9})?)|(\d{1,6}):(\d\d):(\d\d(?:\.\d{1,9})?)"
SPAN = re.compile(rf"\s*(?P<a>{TIME})\s*(?:[-\u2013\u2014]\s*(?P<b>{TIME})\s*)?", re.S | re.A)


def ref_seconds(text: str) -> float | None:
    match = re.fullmatch(TIME, text, re.A)
    if match is None:
        return None
    numbers = [g for g in match.groups() if g is not None]
    *whole, seconds = numbers
    if float(seconds) >= 60 or (len(whole) == 2 and int(whole[1]) >= 60):
        return None
    minutes = int(whole[0]) * 60 + int(whole[1]) if len(whole) == 2 else int(whole[0])
    return minutes * 60 + float(seconds)


def ref_citation(part: str) -> tuple:
    word, comma, time_text = part.partition(",")
    modality = SYNONYMS.get(word.strip().lower())
    span = SPAN.fullmatch(time_text) if comma and modality else None
    if span is None:
        return (False,)
    start = ref_seconds(span.group("a"))
    end = start if span.group("b") is None else ref_seconds(span.group("b"))
    if start is None or end is None or end < start:
        return (False,)
    return (True, modality, round(start, 6), round(end, 6))


def ref_shaped(part: str) -> bool:
    bare = "".join(ch for ch in part if ch not in INVISIBLE)
    lead = LEAD.match(bare)
    if lead and not lead.group(2).isalpha():
        after_comma = bare.partition(",")[2].strip()
        return not after_comma or not after_comma[0].isalpha()
    return bool(CLOCK_SHAPED.fullmatch(bare)) and ":" in bare.partition(",")[2]


def ref_groups(text: str) -> list[tuple]:
    found, open_at = [], None
    for i, ch in enumerate(text):
        if ch == "(":
            open_at = i
        elif ch == ")" and open_at is not None:
            parts = [p.strip() for p in text[open_at + 1 : i].split(";")]
            parts = [p for p in parts if p]
            if any(ref_shaped(p) for p in parts):
                found.append((open_at, i + 1, [ref_citation(p) for p in parts]))
            open_at = None
    return found


def scanned(text: str) -> list[tuple]:
    def key(c):
        return (True, c.modality, round(c.start, 6), round(c.end, 6)) if c.valid else (False,)

    return [(g.start, g.end, [key(c) for c in g.citations]) for g in find_citation_groups(text)]


TOKENS = [
    "(", ")", "(", ")", ";", ",", ", ", " ", "  ", "\n", "-", "\u2013", "\u2014", ":", ".",
    "visual", "Audio", "video", "SOUND", "image", "smell", "on-screen text", "games", "see above",
    "0:05", "0:12", "1:02:03", "12:30", "0:75", "1:60:00", "0:5", "0:12.5", "1e3", "75", "00",
    "1234567:00", "0:01.1234567890", "\u0660:\u0660\u0663", "\uff10:\uff10\uff13", "\u200b", "x", "e",
]  # fmt: skip
MODALITY_WORDS = [
    "visual",
    "Audio",
    "video",
    "SOUND",
    "image",
    "vision",
    "speech",
    "smell",
    "on-screen",
    "games",
]
TIMES = ["0:05", "0:12", "1:02:03", "12:30", "0:75", "1:60:00", "0:5", "0:12.5", "1e3", "75", "", "-0:05"]
TIMES += ["1234567:00", "123456:00", "0:01.123456789", "0:01.1234567890", "\u0660:\u0660\u0663", "0:0\uff13"]
TIMES += ["\u200b0:05", "0:05\u200b", "00:00", "0:59.9", "59:59:59"]
noise = st.lists(st.sampled_from(TOKENS), max_size=6).map("".join)
time_text = st.one_of(
    st.sampled_from(TIMES),
    st.tuples(
        st.sampled_from(TIMES),
        st.sampled_from(["-", " - ", "\u2013", "\u2014", "--"]),
        st.sampled_from(TIMES),
    ).map("".join),
)
part = st.one_of(
    st.tuples(
        st.sampled_from(["", " ", "\u200b"]),
        st.sampled_from(MODALITY_WORDS),
        st.sampled_from([", ", ",", " ", ": ", "", " , "]),
        time_text,
        st.sampled_from(["", " ", "\n"]),
    ).map("".join),
    noise,
)
group = st.tuples(
    st.lists(part, min_size=1, max_size=3).map(lambda parts: ";".join(parts)),
    st.sampled_from([")", ")", ")", ""]),
).map(lambda g: "(" + g[0] + g[1])
texts = st.lists(st.one_of(group, noise), max_size=6).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(texts)
@example("He waves (visual, 0:12; audio, 0:12-0:14).")
@example("(visual 0:05)(smell, 0:12)(Option A, 2)(e.g., red)(video games)(0:12)")
@example("(visual,\u200b0:05; audio, -0:05; visual, 0:03--0:01; audio, 0:01-0:02-0:03)")
@example("(visual, 0:05;visual, 0:05;(smell\n,:)")  # a line break inside the name: no citation
def test_the_scanner_finds_what_the_reference_parser_finds(text):
    assert scanned(text) == ref_groups(text)
