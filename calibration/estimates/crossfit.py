"""Gold used once: a PPI mean whose judge configuration was chosen on the same gold, cross-fitted
(cross-prediction-powered inference, Zrnic & Candès, PNAS 2024).

Choosing the configuration with the highest r on the gold and then correcting model scores with
the same gold reuses it: the chosen configuration is the one whose errors happened to be small on
exactly these responses, so the rectifier's spread is underestimated and the interval undercovers
(benchmarks/choose_then_estimate.py: k = 12 configurations, n = 24). Cross-fitting: split the
labelled responses into K folds; for each fold, choose the configuration on the other K − 1 folds
(the same rule: highest Pearson r against gold), use its scores on the held-out fold's labelled
responses and on every unlabelled response; then

    f_i  = the score of the configuration chosen without i's fold, on labelled response i
    g̃_u = the mean over the K folds' choices of their scores on unlabelled response u

and the estimate is `ppi.ppi_mean(y, f, g̃)` — PPI with the cross-fitted predictions: no label is
used both to choose the configuration that scores it and to correct it. Pure: arrays in, numbers out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.estimates.ppi import MeanEstimate, ppi_mean
from calibration.stats.correlation import MIN_PAIRS, pearson_rows
from calibration.stats.selection import kfold_indices

MIN_GOLD = 2 * MIN_PAIRS  # the fewest labelled responses `cross_fit_mean` splits into two folds

METHOD = (
    "cross-fitted (cross-prediction-powered inference): chosen on K − 1 folds, corrected on the held-out one"
)


@dataclass(frozen=True)
class CrossFitEstimate:
    """The cross-fitted estimate, the folds used, and which configuration (row) each fold chose."""

    estimate: MeanEstimate | None
    folds: int
    chosen: tuple[int, ...]
    method: str = METHOD


def choose_highest_r(scores: np.ndarray, gold: np.ndarray) -> int:
    """The row of `scores` (k × m) with the highest Pearson r against `gold` (ties and an undefined
    r everywhere: the first row)."""
    r = pearson_rows(scores, gold)
    return int(np.nanargmax(r)) if np.isfinite(r).any() else 0


def cross_fit_mean(
    y, judge_labelled, judge_unlabelled, alpha: float, folds: int = 5, seed: int = 0
) -> CrossFitEstimate:
    """The cross-fitted PPI mean (module doc) of gold `y` (n,), every candidate configuration's
    scores on the labelled responses `judge_labelled` (k × n) and on the unlabelled ones
    `judge_unlabelled` (k × N). Folds shrink so that each training part keeps MIN_PAIRS responses;
    with fewer than two folds possible the estimate is None."""
    y = np.asarray(y, dtype=float)
    F = np.atleast_2d(np.asarray(judge_labelled, dtype=float))
    U = np.atleast_2d(np.asarray(judge_unlabelled, dtype=float))
    n = len(y)
    folds = min(folds, n // MIN_PAIRS) if n else 0
    if folds < 2:
        return CrossFitEstimate(None, folds, ())
    f = np.empty(n)
    imputed = np.zeros(U.shape[1])
    chosen = []
    everything = np.arange(n)
    for held_out in kfold_indices(n, folds, seed):
        train = np.setdiff1d(everything, held_out)
        row = choose_highest_r(F[:, train], y[train])
        chosen.append(row)
        f[held_out] = F[row, held_out]
        imputed += U[row] / folds
    return CrossFitEstimate(ppi_mean(y, f, imputed, alpha), folds, tuple(chosen))


@dataclass(frozen=True)
class ModelCrossFit:
    """What `cross_fit_report` did with one model's PPI++ mean: the model's labelled responses
    (`gold`), how many of them the configuration was chosen on (`chosen_on`), the candidate
    configurations that score every one of its responses, and the folds of its cross-fitted mean
    (0 when it was not cross-fitted: `chosen_on` is 0, no candidate, or fewer than MIN_GOLD gold)."""

    gold: int
    chosen_on: int
    candidates: tuple[str, ...]
    folds: int

    @property
    def cross_fitted(self) -> bool:
        return self.folds > 0


def cross_fit_report(report, rows, candidate_rows: dict, used_ids: set[str], metric: str, alpha: float):
    """`report` (models.EstimateReport of the calibrated configuration's scored `rows`) with each model's PPI++
    estimate cross-fitted when its labelled responses include gold the configuration was chosen on
    (`used_ids`): candidates are the configurations of `candidate_rows` ({name: scored rows}) that
    score every one of the model's responses. Returns (report, {model: ModelCrossFit} of every model
    with a PPI++ estimate, cross-fitted or not). Differences are left as they are."""
    from dataclasses import replace

    from calibration.estimates.inputs import metric_value
    from calibration.estimates.models import model_samples
    from calibration.estimates.ppi import ess_gain

    values = {
        name: {row.response_id: metric_value(row.judge, metric) for row in rows}
        for name, rows in candidate_rows.items()
    }
    samples = model_samples(rows, metric)
    outcomes, models = {}, []
    for m in report.models:
        sample = samples.get(m.model)
        if sample is None or m.ppi is None:
            models.append(m)
            continue
        chosen_on = len(used_ids & set(sample.labelled_ids))
        ids = sample.labelled_ids + sample.unlabelled_ids
        usable = tuple(name for name, v in values.items() if all(v.get(rid) is not None for rid in ids))
        fitted = None
        if chosen_on and usable:
            F = np.array([[values[name][rid] for rid in sample.labelled_ids] for name in usable])
            U = np.array([[values[name][rid] for rid in sample.unlabelled_ids] for name in usable])
            fitted = cross_fit_mean(sample.gold, F, U, alpha)
        if fitted is None or fitted.estimate is None:
            outcomes[m.model] = ModelCrossFit(len(sample.labelled_ids), chosen_on, usable, 0)
            models.append(m)
            continue
        outcomes[m.model] = ModelCrossFit(len(sample.labelled_ids), chosen_on, usable, fitted.folds)
        models.append(replace(m, ppi=fitted.estimate, ess_gain=ess_gain(m.human, fitted.estimate)))
    return replace(report, models=models), outcomes
