"""The annotators' flags — questions and remarks about a response or the guidelines, written on the
Annotate page by `session.flag_for_guidelines` — read back for those who act on them (the Disputes
page, `python -m annotation flags`). A flag is never undone: every 'flag' event is one flag."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from annotation.protocol.ids import Unit


@dataclass(frozen=True)
class Flag:
    """One flag: its event id and time (`at`, ISO 8601 UTC as the event log writes it), who wrote
    it, the response, the unit it is about (the whole response unless the writer named one) and
    the text as typed."""

    event_id: int
    at: str
    who: str
    response_id: str
    unit: Unit
    text: str

    @property
    def sentence(self) -> int | None:
        """The index of the sentence the flag is about, None for the whole response."""
        return self.unit.sentence

    @property
    def where(self) -> str:
        """'r1' or 'r1, sentence 3' (counted from 1, as the pages count sentences)."""
        return (
            self.response_id if self.sentence is None else f"{self.response_id}, sentence {self.sentence + 1}"
        )

    @property
    def when(self) -> str:
        """`at` to the minute, 'YYYY-MM-DD HH:MM UTC'; `at` as stored when it does not parse."""
        try:
            return datetime.fromisoformat(self.at).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        except ValueError:
            return self.at


def project_flags(store) -> list[Flag]:
    """Every flag of the project in `store`, newest first. A flag event whose value holds no text
    (not written by `flag_for_guidelines`) is kept with the text '' rather than dropped: someone
    flagged something. InputError (from the event log) for an event whose unit does not parse."""
    flags = [
        Flag(
            event.id,
            event.at,
            event.who,
            event.response_id,
            event.unit,
            str(event.value.get("text", "")) if isinstance(event.value, dict) else "",
        )
        for event in store.events.log(kind="flag")
    ]
    return flags[::-1]
