"""The reference code's scoring of a metric-file entry (`src/run_metric.py`, `calculate_entry_scores`),
reproduced exactly so imported judge runs keep the numbers their authors reported (PROTOCOL §3–§4)."""

from __future__ import annotations

from calibration.scoring.murgat_s import ResponseScore, response_score

# metric-file `response_score` key → ResponseScore attribute
REFERENCE_FIELDS = (
    ("coverage", "coverage"),
    ("attribution_precision", "precision"),
    ("attribution_recall", "recall"),
    ("citation_f1", "f1"),
    ("final_score", "murgat_s"),
)


def _reference_value(value, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool | int | float):
        return float(value)
    raise ValueError(f"{where} is {value!r}, not a number or null")


def score_metric_entry(entry: dict, response_id: str, source: str) -> ResponseScore:
    """Score a metric-file entry exactly as the reference `calculate_entry_scores` does.

    Individual mode only, from the stored per-fact `scores` (the reference never recomputes them):
    a sentence is verifiable when `verification_worthy.prediction` is truthy; it counts as cited
    when at least one of its facts has a non-empty `citation_judgments`; only those facts enter
    the pools; a null stored `precision`/`recall` (or a missing one) is skipped and counted as
    undetermined, and a pool left empty counts as 0 (the reference rule). Parts that are not objects are treated as absent. Raises ValueError naming the
    sentence when a stored precision or recall is neither a number nor null.
    """
    evaluations = entry.get("evaluations")
    if not isinstance(evaluations, dict):
        evaluations = {}
    n_verifiable = n_cited = 0
    precisions: list[float | None] = []
    recalls: list[float | None] = []
    for sentence_text, sentence_data in evaluations.items():
        sentence_data = sentence_data if isinstance(sentence_data, dict) else {}
        worthiness = sentence_data.get("verification_worthy")
        if not (isinstance(worthiness, dict) and worthiness.get("prediction", False)):
            continue
        n_verifiable += 1
        cited = False
        facts = sentence_data.get("atomic_facts")
        for f_index, fact in enumerate(facts if isinstance(facts, list) else []):
            scores = fact.get("scores") if isinstance(fact, dict) else None
            if not (isinstance(scores, dict) and scores.get("citation_judgments")):
                continue
            cited = True
            where = f"sentence '{sentence_text}', fact {f_index}"
            precisions.append(_reference_value(scores.get("precision"), f"{where}: precision"))
            recalls.append(_reference_value(scores.get("recall"), f"{where}: recall"))
        n_cited += cited
    return response_score(
        response_id, source, "individual", n_verifiable, n_cited, precisions, recalls, empty_pool_is_zero=True
    )


def compare_reference(entry: dict, computed: ResponseScore, tol: float = 1e-9) -> list[str]:
    """Differences between the entry's stored `response_score` and `computed`, one line each.

    Empty when the entry stores none. A stored field that is missing is not compared; one that
    is not a number is reported.
    """
    stored = entry.get("response_score")
    if not isinstance(stored, dict):
        return []
    out = []
    for key, attribute in REFERENCE_FIELDS:
        if key not in stored:
            continue
        value = stored[key]
        mine = getattr(computed, attribute)  # never None: the reference rule scores every pool
        if isinstance(value, bool) or not isinstance(value, int | float):
            out.append(f"{key}: stored {value!r} is not a number (computed {mine:.6g})")
        elif abs(value - mine) > tol:
            out.append(f"{key}: stored {value:.6g}, computed {mine:.6g}")
    return out
