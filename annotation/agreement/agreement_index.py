"""What the agreement figures need of a project state — every stage's units
(`reliability.response_units`), each annotator's tally against gold and their "can't tell"
answers — kept per response: the project state keeps an unchanged response's share as the same
object from one revision to the next (as `dispute_index` relies on), so a new label re-reads only
the responses whose share changed (their fact clusters included), and a revision costs about what
one response costs plus adding the shares up, not the project.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

from annotation.agreement.adjudication import rulings_from_events
from annotation.agreement.annotator_stats import (
    AnnotatorTally,
    annotator_rows_of,
    annotator_tallies,
    cant_tell_tallies,
    counts_added,
    impossible_tallies,
)
from annotation.agreement.reliability import STAGES, Units, records_by_response, response_units


@dataclass(frozen=True)
class ResponseAgreement:
    """One response's part: its units per stage, their digest, the annotators with a gold value
    of it, its tallies."""

    units: dict[str, Units]
    digest: bytes
    names: frozenset[str]
    tallies: dict[str, AnnotatorTally]
    cant_tell: dict[str, tuple[int, int]]
    impossible: dict[str, tuple[int, int]]


@dataclass(frozen=True)
class AgreementInputs:
    """A revision's units per stage, single-coded ones included (as `reliability.labelled_units`
    gives them for the state's annotators and rulings), `name` a digest of their content (equal
    units, equal name: a label undone names the units measured before), the annotators' rows
    against gold (`annotator_stats.annotator_rows`), their "can't tell" rates
    (`annotator_stats.cant_tell_rates`) and their facts answered in contradiction
    (`annotator_stats.impossible_tallies`, added up)."""

    revision: object
    units: dict[str, Units]
    name: str
    annotators: list[dict]
    cant_tell: dict[str, tuple[int, int]]
    impossible: dict[str, tuple[int, int]]


def _canonical(value):
    """A set of facts in a fixed order (a frozenset's own order depends on how it was built)."""
    return sorted(value) if isinstance(value, frozenset) else value


def units_digest(units: dict[str, Units]) -> bytes:
    """A digest of units' content, whatever order their dicts were filled in."""
    text = repr(
        [
            (
                stage,
                sorted(
                    (repr(key), sorted((n, _canonical(v)) for n, v in values.items()))
                    for key, values in units[stage].items()
                ),
            )
            for stage in STAGES
        ]
    )
    return hashlib.sha256(text.encode()).digest()


def response_agreement(response_id: str, share) -> ResponseAgreement:
    """The part of one response's share of the state (`annotation.state.ResponseState`, its label
    events read)."""
    rulings = rulings_from_events(share.labels)
    by_name = records_by_response(share.annotators).get(response_id, {})
    units = response_units(response_id, by_name, rulings)
    return ResponseAgreement(
        units,
        units_digest(units),
        frozenset(name for v in share.gold.values for name in v.values),
        annotator_tallies(share.gold.values, share.labels),
        cant_tell_tallies(share.labels),
        impossible_tallies(by_name),
    )


class AgreementIndex:
    """The `AgreementInputs` of a project's states, re-reading only the responses whose share of
    the state changed since the last (see module doc). Safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[str, tuple[object, ResponseAgreement]] = {}
        self._last: AgreementInputs | None = None

    def inputs(self, state, pause: Callable[[], None] | None = None) -> AgreementInputs:
        """The inputs of `state`; `pause()` is called before each response read again (a
        background caller gives way to others there)."""
        with self._lock:
            if self._last is not None and self._last.revision == state.revision:
                return self._last
            if any(share.labels is None for share in state.responses.values()):
                state.labels  # noqa: B018 - shares read from the project file get their label events
            parts: dict[str, tuple[object, ResponseAgreement]] = {}
            for rid in sorted(state.responses, key=lambda rid: state.order.get(rid, 0)):
                share = state.responses[rid]
                known = self._parts.get(rid)
                if known is None or known[0] is not share:
                    if pause is not None:
                        pause()
                    known = (share, response_agreement(rid, share))
                parts[rid] = known
            self._parts = parts  # responses gone from the state are forgotten
            if pause is not None:
                pause()
            units: dict[str, Units] = {stage: {} for stage in STAGES}
            digest = hashlib.sha256()
            for _, part in parts.values():
                for stage in STAGES:
                    units[stage].update(part.units[stage])
                digest.update(part.digest)
            names = set().union(*(part.names for _, part in parts.values()))
            self._last = AgreementInputs(
                state.revision,
                units,
                digest.hexdigest(),
                annotator_rows_of([part.tallies for _, part in parts.values()], names),
                counts_added([part.cant_tell for _, part in parts.values()]),
                counts_added([part.impossible for _, part in parts.values()]),
            )
            return self._last
