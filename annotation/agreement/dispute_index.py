"""The disputes of a project state as an adjudicator lists them — lowest agreement first, a
rewording never one (`same_fact.wording_only`) — with the "Same fact?" questions asked before them
and the counts that add up, kept per response: the project state keeps an unchanged response's
share, and so its gold, as the same object from one revision to the next (a share given its label
events later keeps its gold), so a new label or ruling re-reads only the responses whose gold
changed, and the list costs about what one response costs, not the project.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from annotation.agreement.gold import GoldValue
from annotation.agreement.same_fact import SameFactQuestion, open_questions, wording_only


@dataclass(frozen=True)
class DisputeRow:
    """One dispute with what a list filters and counts by, read once from its value."""

    value: GoldValue
    key: str  # GoldValue.key
    stage: str  # GoldValue.stage
    needs_ruling: bool
    ruled: bool


@dataclass(frozen=True)
class DisputeView:
    """Every dispute of one revision (`rows`, ordered as `GoldSet.disputes`), the open "Same fact?"
    questions (as `open_questions` orders them) and the response ids that have disputes, sorted."""

    rows: tuple[DisputeRow, ...]
    questions: tuple[SameFactQuestion, ...]
    responses: tuple[str, ...]

    def counts(self) -> dict[str, int]:
        """Every dispute is in exactly one of three states, so the counts add up: it needs a ruling
        (no majority or rule settles it), a majority settles it until someone rules, or it is ruled."""
        ruled = sum(1 for row in self.rows if row.ruled)
        need = sum(1 for row in self.rows if row.needs_ruling)
        return {
            "disputes": len(self.rows),
            "need a ruling": need,
            "settled by a majority": len(self.rows) - ruled - need,
            "ruled": ruled,
        }


def response_disputes(values) -> tuple[DisputeRow, ...]:
    """The disputes among one response's gold values, in their order."""
    return tuple(
        DisputeRow(v, v.key, v.stage, v.needs_ruling, v.ruling is not None)
        for v in values
        if v.disputed and not wording_only(v)
    )


class DisputeIndex:
    """The `DisputeView` of a project's states, re-reading only the responses whose share of the
    state changed since the last view (see module doc). Safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._shares: dict[str, tuple[object, tuple[DisputeRow, ...], list[SameFactQuestion]]] = {}
        self._last: tuple[object, DisputeView] | None = None

    def view(self, state) -> DisputeView:
        with self._lock:
            if self._last is not None and self._last[0] == state.revision:
                return self._last[1]
            rows: list[DisputeRow] = []
            questions: list[SameFactQuestion] = []
            shares = {}
            for rid in sorted(state.responses, key=lambda rid: state.order.get(rid, 0)):
                gold = state.responses[rid].gold  # a share given its label events keeps its gold
                known = self._shares.get(rid)
                if known is None or known[0] is not gold:
                    known = (gold, response_disputes(gold.values), open_questions(gold))
                shares[rid] = known
                rows.extend(known[1])
                questions.extend(known[2])
            self._shares = shares  # responses gone from the state are forgotten
            rows.sort(key=lambda row: row.value.agreement)  # stable: ties keep the state's order
            view = DisputeView(
                tuple(rows), tuple(questions), tuple(sorted({row.value.response_id for row in rows}))
            )
            self._last = (state.revision, view)
            return view
