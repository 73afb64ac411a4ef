"""What the model estimates read from a project: per response, its model, the question it
answered, and its gold and judge scores in one precision mode. The project's records come from
the project state (`annotation.state.project_state`: the one gold set, the judge records); scores from the one
scorer. An undetermined score (MURGAT-S null, PROTOCOL §3) is missing, as in the sweep."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.state import project_state
from calibration.scoring.murgat_s import ResponseScore, score_records

METRICS = ("murgat_s", "coverage", "precision", "recall")
METRIC_NAMES = {"murgat_s": "MURGAT-S", "coverage": "coverage", "precision": "precision", "recall": "recall"}


@dataclass(frozen=True)
class ScoredResponse:
    """One response: its model (None when the project was not told), the question it answered
    (video, question, options: the same tuple means the same question), and its gold and judge
    scores (None: no record)."""

    response_id: str
    model: str | None
    question: tuple
    gold: ResponseScore | None
    judge: ResponseScore | None


def metric_value(score: ResponseScore | None, metric: str) -> float | None:
    """The score's `metric` (METRICS), or None when there is no score, its MURGAT-S is
    undetermined (the response is left out of every mean) or the part itself is."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric '{metric}' (expected one of {', '.join(METRICS)})")
    if score is None or score.murgat_s is None:
        return None
    return getattr(score, metric)


def judge_sources(store) -> list[tuple[str, int]]:
    """(judge source, responses it has a record for), most responses first, then by name."""
    counts = store.record_counts("judge")
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def scored_responses(store, source: str, mode: str) -> list[ScoredResponse]:
    """Every response of the project in import order, with gold and `source`'s scores in `mode`.
    ValueError (naming the response) for a record the scorer rejects."""
    state = project_state(store)
    gold = {s.response_id: s for s in score_records(state.gold.records, [mode])}
    judged = {
        s.response_id: s for s in score_records([r for r in state.judges if r.source == source], [mode])
    }
    out = []
    for response_id, model in store.response_models():
        response = store.response(response_id)
        question = (response.video, response.question, tuple(response.options))
        out.append(
            ScoredResponse(response_id, model, question, gold.get(response_id), judged.get(response_id))
        )
    return out
