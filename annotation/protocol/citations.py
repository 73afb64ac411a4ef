"""Parse, format and validate MURGAT citations: `(visual, 0:12; audio, 0:12-0:14)`.

The one citation parser of the project. A malformed citation is never dropped:
it comes back with `valid=False`, its text in `raw` and the reason.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field, replace

MODALITIES = ("visual", "audio")
_SYNONYMS = {
    "visual": "visual",
    "video": "visual",
    "vision": "visual",
    "image": "visual",
    "audio": "audio",
    "speech": "audio",
    "sound": "audio",
}
_DASHES = "-\u2013\u2014"  # hyphen-minus, en dash, em dash
_ASCII_DIGITS = frozenset("0123456789")
_MAX_WHOLE_DIGITS = 6  # hours or minutes: up to 999,999, far past any media
_MAX_FRACTION_DIGITS = 9
# A group is an innermost pair of parentheses. `[^()]*` stops at the next parenthesis, so a failed
# attempt never rescans what an earlier one read: matching is linear in the text's length.
_GROUP_RE = re.compile(r"\(([^()]*)\)")
_SPACE_BEFORE_PUNCTUATION_RE = re.compile(r"\s+([.,;:!?])")
_SPACE_RUN_RE = re.compile(r"\s{2,}")
# Files repeat the same times and groups over and over (a fact restates its sentence's group, a
# judgement key restates one citation), so parsing is memoised; results are immutable.
_CACHE_SIZE = 8192


@dataclass(frozen=True)
class Citation:
    """One cited segment. `start`/`end` are seconds; a point has start == end.

    When `valid` is False, `reason` says why and `start`/`end` mean nothing
    (they may be None). Equality (and hash) ignores `raw`, which `to_dict` drops for a valid
    citation: two invalid citations that differ only in `raw` compare equal too.
    """

    modality: str
    start: float | None
    end: float | None
    valid: bool = True
    raw: str | None = field(default=None, compare=False)
    reason: str | None = None

    @property
    def is_point(self) -> bool:
        return self.valid and self.start == self.end

    def to_dict(self) -> dict:
        out: dict = {"modality": self.modality, "start": self.start, "end": self.end}
        if not self.valid:
            out.update(valid=False, raw=self.raw, reason=self.reason)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Citation:
        start = data.get("start")
        end = data.get("end", start)
        return cls(
            modality=str(data.get("modality", "")),
            start=None if start is None else float(start),
            end=None if end is None else float(end),
            valid=bool(data.get("valid", True)),
            raw=data.get("raw"),
            reason=data.get("reason"),
        )


@dataclass(frozen=True)
class CitationGroup:
    """A parenthesised group found in text, with its character offsets [start, end)."""

    start: int
    end: int
    citations: tuple[Citation, ...]


def shown(text: str) -> str:
    """`text` as a reason quotes it: characters a person cannot see (zero-width spaces, controls,
    direction marks) written as `<U+200B>`, and very long text shortened in the middle."""
    if len(text) > 60:
        text = text[:28] + "…" + text[-28:]
    return "".join(ch if ch.isprintable() or ch == " " else f"<U+{ord(ch):04X}>" for ch in text)


def _time_problem(text: str) -> str | None:
    """Why `text` (already stripped) is not an ASCII `M:SS`, `MM:SS` or `H:MM:SS` time, or None."""
    odd = next((ch for ch in text if ch not in _ASCII_DIGITS and ch not in ":."), None)
    if odd is not None and odd.isdigit():
        return f"time '{shown(text)}' has the digit '{odd}' (U+{ord(odd):04X}); write times with 0-9"
    if odd is not None and not odd.isprintable():
        return f"time '{shown(text)}' holds an invisible character (U+{ord(odd):04X})"
    parts = text.split(":")
    if odd is not None or len(parts) not in (2, 3) or any(p == "" for p in parts):
        return f"time '{shown(text)}' is not M:SS, MM:SS or H:MM:SS"
    *whole, seconds = parts
    if any("." in p for p in whole):
        return f"time '{shown(text)}' is not M:SS, MM:SS or H:MM:SS"
    if any(len(p) > _MAX_WHOLE_DIGITS for p in whole):
        return f"time '{shown(text)}' is too large"
    integer, dot, fraction = seconds.partition(".")
    if len(integer) != 2 or "." in fraction or (dot and not fraction):
        return f"time '{shown(text)}': seconds must have two digits"
    if len(fraction) > _MAX_FRACTION_DIGITS:
        return f"time '{shown(text)}' has more than {_MAX_FRACTION_DIGITS} decimal places"
    if int(integer) >= 60:
        return f"time '{shown(text)}': seconds must be below 60"
    if len(whole) == 2 and int(whole[1]) >= 60:
        return f"time '{shown(text)}': minutes must be below 60 in H:MM:SS"
    return None


@functools.lru_cache(maxsize=_CACHE_SIZE)
def parse_time(text: str) -> float:
    """`M:SS`, `MM:SS` or `H:MM:SS` in ASCII digits (seconds may carry up to 9 decimals) → seconds.

    Raises ValueError with a reason a person can act on (never a message from Python itself).
    """
    text = text.strip()
    problem = _time_problem(text)
    if problem:
        raise ValueError(problem)
    *whole, seconds_text = text.split(":")
    minutes = int(whole[0]) * 60 + int(whole[1]) if len(whole) == 2 else int(whole[0])
    # One exact integer division, so '1:00:00.1' is the float nearest 3600.1
    # and format_time/parse_time round-trip exactly.
    whole_text, _, frac_text = seconds_text.partition(".")
    scale = 10 ** len(frac_text)
    total = (minutes * 60 + int(whole_text)) * scale + (int(frac_text) if frac_text else 0)
    return total / scale


def format_time(seconds: float) -> str:
    """Seconds → `M:SS` (or `H:MM:SS` from one hour on), to the millisecond.

    A fractional part is kept without trailing zeros (`0:12.5`); it is rounded
    to whole milliseconds first, so 12.9999 becomes `0:13`, never `0:121.`.
    """
    millis = round(seconds * 1000)
    whole, frac_ms = divmod(millis, 1000)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    sec_text = f"{secs:02d}"
    if frac_ms:
        sec_text += f".{frac_ms:03d}".rstrip("0")
    if hours:
        return f"{hours}:{minutes:02d}:{sec_text}"
    return f"{minutes}:{sec_text}"


def _span_problem(time_text: str, ends: list[str]) -> str | None:
    if len(ends) == 1:
        return None if ends[0] else "the time is missing"
    if ends[0] == "" and len(ends) == 2:
        return f"span '{shown(time_text)}' has no start (a time cannot be negative)"
    if "" in ends:
        return f"span '{shown(time_text)}' has an empty end"
    if len(ends) > 2:
        return f"span '{shown(time_text)}' has more than two ends"
    return None


def parse_citation(modality_text: str, time_text: str, raw: str | None = None) -> Citation:
    """One citation from its two parts; invalid ones carry the reason."""
    raw = raw if raw is not None else f"{modality_text}, {time_text}"
    word = modality_text.strip()
    modality = _SYNONYMS.get(word.lower())
    if modality is None:
        return Citation(word.lower(), None, None, False, raw, f"unknown modality '{shown(word)}'")
    time_text = time_text.strip()
    ends = [end.strip() for end in re.split(f"[{_DASHES}]", time_text)]
    problem = _span_problem(time_text, ends)
    if problem:
        return Citation(modality, None, None, False, raw, problem)
    try:
        start = parse_time(ends[0])
        end = parse_time(ends[1]) if len(ends) == 2 else start
    except ValueError as exc:
        return Citation(modality, None, None, False, raw, str(exc))
    if end < start:
        return Citation(modality, start, end, False, raw, "end before start")
    return Citation(modality, start, end, True, raw)


def _parse_part(part: str) -> Citation:
    """One `;`-separated part of a citation group (stripped, not empty) → a Citation."""
    word, comma, time_text = part.partition(",")
    if comma:
        return parse_citation(word, time_text, raw=part)
    lead = _lead_modality(part)
    if lead is not None:
        reason = f"no comma between the modality and the time in '{shown(part)}'"
        return Citation(lead, None, None, False, part, reason)
    return Citation("", None, None, False, part, "not of the form 'modality, time'")


def parse_citation_group(inner: str) -> list[Citation]:
    """The text inside one group's parentheses → its citations, in order.

    Parts that do not have the `modality, time` shape come back invalid; empty parts (a
    trailing ';') are not citations.
    """
    return list(_parsed_group(inner)[0])


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _parsed_group(inner: str) -> tuple[tuple[Citation, ...], bool]:
    """`parse_citation_group(inner)` as a tuple, and whether the group is a citation group."""
    parts = [part.strip() for part in inner.split(";")]
    parts = [part for part in parts if part]
    return tuple(_parse_part(part) for part in parts), any(_citation_shaped(p) for p in parts)


def _visible(text: str) -> str:
    """`text` without invisible format characters (zero-width spaces, direction marks)."""
    return text if text.isprintable() else "".join(ch for ch in text if ch.isprintable() or ch.isspace())


def _lead_modality(part: str) -> str | None:
    """The modality a part starts with when a known modality word (or synonym) is followed by
    something other than a letter (`visual 0:05`, `audio,`), else None (`video games`)."""
    bare = _visible(part).lstrip()
    head = bare[:7].lower()  # 'visual', 'vision', 'speech': the longest words are 6 letters
    for word, modality in _SYNONYMS.items():
        if head.startswith(word):
            after = bare[len(word) :].lstrip()
            return modality if after and not after[0].isalpha() else None
    return None


def _citation_shaped(part: str) -> bool:
    """A part makes its group a citation group (see `find_citation_groups`)."""
    bare = _visible(part)
    if _lead_modality(bare) is not None:
        word, _, time_text = bare.partition(",")
        time_text = time_text.strip()
        return not time_text or not time_text[0].isalpha()
    word, comma, time_text = bare.partition(",")
    word, time_text = word.strip(" "), time_text.strip()  # a line break inside the name: not one
    return bool(
        comma
        and word
        and word[0].isascii()
        and word[0].isalpha()
        and all(ch.isascii() and (ch.isalpha() or ch in "_- ") for ch in word)
        and ":" in time_text
        and all(ch.isdigit() or ch in ":." or ch in _DASHES or ch.isspace() for ch in time_text)
    )


def find_citation_groups(text: str) -> list[CitationGroup]:
    """Every citation group in `text`, with offsets [start, end), left to right.

    The grammar, scanned in time linear in the text's length: a group is an innermost `(…)`;
    its parts are separated by `;` (empty parts ignored). It is a citation group when some part
    is citation-shaped: it starts with a known modality word (or synonym, any case) followed by
    something other than a letter, and the text after its first comma (if any) does not start
    with a letter (`visual, 0:05`, `visual 0:05`, `audio, -0:05`, `Visual, 1e3`, `visual, `);
    or it reads `word, clock` where the word is ASCII letters, spaces, '_' or '-' and the clock
    holds a ':' and only digits, ':', '.', dashes and spaces (`smell, 0:12`). Invisible format
    characters are ignored for this decision. Every part of a citation group is a citation; one
    that does not parse is invalid with the reason. Parenthesised prose is skipped:
    `(see above)`, `(e.g., red)`, `(3 times)`, `(Option A, 2)`, `(video games)`, `(0:12)`.
    """
    return list(_groups_in(text))


@functools.lru_cache(maxsize=1024)  # smaller: texts may be whole responses; repeats come close together
def _groups_in(text: str) -> tuple[CitationGroup, ...]:
    groups = []
    for m in _GROUP_RE.finditer(text):
        citations, is_group = _parsed_group(m.group(1))
        if is_group:
            groups.append(CitationGroup(m.start(), m.end(), citations))
    return tuple(groups)


def parse_citations(text: str) -> list[Citation]:
    """All citations of all groups in `text`, in order of appearance."""
    return [c for g in _groups_in(text) for c in g.citations]


def strip_citations(text: str) -> str:
    """`text` without its citation groups, white space tidied."""
    pieces, last = [], 0
    for group in _groups_in(text):
        pieces.append(text[last : group.start])
        last = group.end
    stripped = "".join(pieces) + text[last:]
    stripped = _SPACE_BEFORE_PUNCTUATION_RE.sub(_punctuation_only, stripped)
    return _SPACE_RUN_RE.sub(" ", stripped).strip()


def _punctuation_only(match: re.Match) -> str:
    return match.group(1)  # a function, not r"\1": re expands a template far more slowly


def format_citation(citation: Citation) -> str:
    """The text inside a group for one citation: `visual, 0:12` / `audio, 0:12-0:14`."""
    if not citation.valid:
        return citation.raw or f"{citation.modality}, ?"
    if citation.start == citation.end:
        return f"{citation.modality}, {format_time(citation.start)}"
    return f"{citation.modality}, {format_time(citation.start)}-{format_time(citation.end)}"


def format_citation_group(citations: list[Citation] | tuple[Citation, ...]) -> str:
    """`(visual, 0:12; audio, 0:12-0:14)`; empty string for no citations."""
    if not citations:
        return ""
    return "(" + "; ".join(format_citation(c) for c in citations) + ")"


def validate_against_duration(citation: Citation, duration_s: float | None) -> Citation:
    """Mark a citation invalid when it reaches past the media's end.

    Citations are written to whole seconds, so a span may end at the duration
    rounded up (a 9.6 s clip may be cited as 0:09-0:10). Unknown duration: unchanged.
    """
    if duration_s is None or not citation.valid:
        return citation
    limit = math.ceil(duration_s - 1e-9)
    if citation.end > limit + 1e-9:
        return replace(
            citation,
            valid=False,
            raw=citation.raw or format_citation(citation),
            reason=f"beyond the media's duration ({format_time(duration_s)})",
        )
    return citation


def validate_against_media(
    citation: Citation,
    duration_s: float | None,
    *,
    has_audio: bool | None = None,
    has_video: bool | None = None,
) -> Citation:
    """`validate_against_duration`, then: an audio citation of media without an audio track
    (`has_audio` False) is invalid, "the media has no audio track"; a visual one of media without
    a video track likewise. None (not known) checks nothing; an invalid citation keeps its reason."""
    citation = validate_against_duration(citation, duration_s)
    if not citation.valid:
        return citation
    for modality, present, track in (("audio", has_audio, "audio"), ("visual", has_video, "video")):
        if citation.modality == modality and present is False:
            raw = citation.raw or format_citation(citation)
            return replace(citation, valid=False, raw=raw, reason=f"the media has no {track} track")
    return citation
