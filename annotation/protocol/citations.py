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

# One citation inside a group: a word (the modality), a comma, a time or span.
_TIME = r"\d[\d:.]*"
_PART = rf"\s*([A-Za-z][A-Za-z_\- ]*?)\s*,\s*({_TIME}(?:\s*[-\u2013\u2014]\s*{_TIME})?)\s*"
_GROUP_RE = re.compile(rf"\(({_PART}(?:;{_PART})*)\)")
_PART_RE = re.compile(rf"^{_PART}$")
_SPAN_SPLIT_RE = re.compile(r"\s*[-\u2013\u2014]\s*")
_SECONDS_RE = re.compile(r"\d{2}(\.\d+)?")
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


@functools.lru_cache(maxsize=_CACHE_SIZE)
def parse_time(text: str) -> float:
    """`M:SS`, `MM:SS` or `H:MM:SS` (seconds may carry a decimal part) → seconds.

    Raises ValueError with a reason a person can act on.
    """
    text = text.strip()
    parts = text.split(":")
    if len(parts) not in (2, 3) or any(p == "" for p in parts):
        raise ValueError(f"time '{text}' is not M:SS, MM:SS or H:MM:SS")
    try:
        *whole, seconds_text = parts
        numbers = [int(p) for p in whole]
        seconds = float(seconds_text)
    except ValueError:
        raise ValueError(f"time '{text}' is not M:SS, MM:SS or H:MM:SS") from None
    if not _SECONDS_RE.fullmatch(seconds_text):
        raise ValueError(f"time '{text}': seconds must have two digits")
    if seconds >= 60:
        raise ValueError(f"time '{text}': seconds must be below 60")
    if len(numbers) == 2:
        hours, minutes = numbers
        if minutes >= 60:
            raise ValueError(f"time '{text}': minutes must be below 60 in H:MM:SS")
        numbers = [hours * 60 + minutes]
    # One exact integer division, so '1:00:00.1' is the float nearest 3600.1
    # and format_time/parse_time round-trip exactly.
    whole_text, _, frac_text = seconds_text.partition(".")
    scale = 10 ** len(frac_text)
    total = (numbers[0] * 60 + int(whole_text)) * scale + (int(frac_text) if frac_text else 0)
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


def parse_citation(modality_text: str, time_text: str, raw: str | None = None) -> Citation:
    """One citation from its two parts; invalid ones carry the reason."""
    raw = raw if raw is not None else f"{modality_text}, {time_text}"
    word = modality_text.strip().lower()
    modality = _SYNONYMS.get(word)
    if modality is None:
        return Citation(word, None, None, False, raw, f"unknown modality '{modality_text.strip()}'")
    ends = _SPAN_SPLIT_RE.split(time_text.strip())
    try:
        start = parse_time(ends[0])
        end = parse_time(ends[1]) if len(ends) == 2 else start
    except ValueError as exc:
        return Citation(modality, None, None, False, raw, str(exc))
    if len(ends) > 2:
        return Citation(modality, None, None, False, raw, f"span '{time_text}' has more than two ends")
    if end < start:
        return Citation(modality, start, end, False, raw, "end before start")
    return Citation(modality, start, end, True, raw)


def parse_citation_group(inner: str) -> list[Citation]:
    """The text inside one group's parentheses → its citations, in order.

    Parts that do not have the `modality, time` shape come back invalid.
    """
    return list(_parsed_group(inner)[0])


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _parsed_group(inner: str) -> tuple[tuple[Citation, ...], bool]:
    """`parse_citation_group(inner)` as a tuple, and whether the group is a citation group."""
    out = []
    for part in inner.split(";"):
        match = _PART_RE.match(part)
        if match:
            out.append(parse_citation(match.group(1), match.group(2), raw=part.strip()))
        else:
            out.append(Citation("", None, None, False, part.strip(), "not of the form 'modality, time'"))
    return tuple(out), _is_citation_group(out)


def _is_citation_group(citations: list[Citation]) -> bool:
    # `(Option A, 2)` has the shape but is prose: a group counts when some part
    # names a known modality or writes a clock time (`(smell, 0:12)` is a citation, invalid).
    return any(c.modality in MODALITIES or ":" in (c.raw or "").rpartition(",")[2] for c in citations)


def find_citation_groups(text: str) -> list[CitationGroup]:
    """Every citation group in `text`, with offsets [start, end), left to right.

    Parenthesised prose is skipped: `(see above)`, `(e.g., red)`, `(3 times)`,
    and `(Option A, 2)` (no part has a known modality or a clock time).
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
