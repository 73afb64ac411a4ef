"""Gold used once (calibration/estimates/crossfit.py): the configuration is chosen on the other
folds of the gold, the held-out fold corrects with it, and the whole is PPI on those predictions."""

import numpy as np
import pytest
from estimate_support import model_rows

from calibration.estimates.crossfit import (
    MIN_GOLD,
    ModelCrossFit,
    choose_highest_r,
    cross_fit_mean,
    cross_fit_report,
)
from calibration.estimates.models import estimate_models
from calibration.estimates.ppi import ppi_mean
from calibration.stats.correlation import pearson_rows
from calibration.stats.selection import kfold_indices


def candidates(seed: int, n: int, N: int, k: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.beta(2, 2, n + N)
    scores = np.clip(y + rng.normal(0, 1, (k, n + N)) * np.linspace(0.1, 0.4, k)[:, None], 0, 1)
    return y[:n], scores[:, :n], scores[:, n:]


def test_with_one_candidate_cross_fitting_is_plain_ppi_on_its_scores():
    y, F, U = candidates(0, 30, 200, k=1)
    fitted = cross_fit_mean(y, F, U, 0.05)
    assert fitted.chosen == (0,) * 5
    assert fitted.estimate == ppi_mean(y, F[0], U[0], 0.05)


def test_each_fold_is_corrected_by_the_configuration_chosen_without_it():
    y, F, U = candidates(1, 24, 100)
    fitted = cross_fit_mean(y, F, U, 0.05, folds=4, seed=3)
    f, g = np.empty(24), np.zeros(100)
    expected_choices = []
    for held_out in kfold_indices(24, 4, 3):
        train = np.setdiff1d(np.arange(24), held_out)
        row = int(np.nanargmax(pearson_rows(F[:, train], y[train])))
        expected_choices.append(row)
        f[held_out], g = F[row, held_out], g + U[row] / 4
    assert fitted.chosen == tuple(expected_choices)
    assert fitted.estimate == ppi_mean(y, f, g, 0.05)


def test_the_highest_r_rule_picks_the_best_tracking_row():
    gold = np.array([0.1, 0.4, 0.35, 0.8, 0.9])
    scores = np.array([[0.9, 0.1, 0.5, 0.2, 0.3], gold + 0.05, gold[::-1]])
    assert choose_highest_r(scores, gold) == 1


def test_too_few_gold_responses_for_two_folds_give_no_estimate():
    y, F, U = candidates(2, 5, 50)
    assert cross_fit_mean(y, F, U, 0.05).estimate is None


@pytest.mark.parametrize("seed", range(2))
def test_the_cross_fitted_mean_stays_near_the_plain_one_when_the_candidates_agree(seed):
    y, F, U = candidates(seed, 60, 500, k=3)
    same = np.vstack([F[0]] * 3), np.vstack([U[0]] * 3)
    assert cross_fit_mean(y, *same, 0.05).estimate.mean == pytest.approx(ppi_mean(y, F[0], U[0], 0.05).mean)


def two_models_rows():
    """Model a: 7 gold responses (a-0 … a-6) and 3 unlabelled; model b: 6 gold (b-0 … b-5) and 3
    unlabelled; the judge tracks the gold."""
    gold_a = [0.1, 0.3, 0.2, 0.6, 0.5, 0.9, 0.7]
    gold_b = [0.2, 0.4, 0.8, 0.3, 0.6, 0.5]
    return model_rows("a", gold_a + [None] * 3, [g + 0.05 for g in gold_a] + [0.4, 0.5, 0.6]) + model_rows(
        "b", gold_b + [None] * 3, [g - 0.05 for g in gold_b] + [0.3, 0.4, 0.5]
    )


def test_each_model_counts_only_its_own_gold_the_configuration_was_chosen_on():
    rows = two_models_rows()
    used = {"a-0", "a-1", "a-2", "a-3", "b-0", "b-1", "elsewhere"}  # 7 in all: 4 of a's, 2 of b's
    _, outcomes = cross_fit_report(estimate_models(rows), rows, {"j": rows}, used, "murgat_s", 0.05)
    assert outcomes == {
        "a": ModelCrossFit(gold=7, chosen_on=4, candidates=("j",), folds=2),  # 7 // 3 folds
        "b": ModelCrossFit(gold=6, chosen_on=2, candidates=("j",), folds=2),
    }


def test_a_model_none_of_whose_gold_was_chosen_on_keeps_its_ppi_mean():
    rows = two_models_rows()
    report = estimate_models(rows)
    fitted, outcomes = cross_fit_report(report, rows, {"j": rows}, {"a-0", "a-1"}, "murgat_s", 0.05)
    assert outcomes["b"] == ModelCrossFit(gold=6, chosen_on=0, candidates=("j",), folds=0)
    assert [m for m in fitted.models if m.model == "b"] == [m for m in report.models if m.model == "b"]


def test_a_model_with_fewer_gold_than_two_folds_need_is_not_cross_fitted():
    rows = model_rows("c", [0.1, 0.5, 0.4, 0.9, 0.6, None, None], [0.2, 0.4, 0.5, 0.8, 0.5, 0.3, 0.6])
    report = estimate_models(rows)
    fitted, outcomes = cross_fit_report(report, rows, {"j": rows}, {"c-0"}, "murgat_s", 0.05)
    assert MIN_GOLD == 6 and outcomes["c"] == ModelCrossFit(gold=5, chosen_on=1, candidates=("j",), folds=0)
    assert fitted.models == report.models


def test_a_model_no_candidate_scores_entirely_is_not_cross_fitted():
    rows = two_models_rows()
    partial = [r for r in rows if r.response_id != "a-8"]  # the candidate never scored a-8
    report = estimate_models(rows)
    fitted, outcomes = cross_fit_report(report, rows, {"j": partial}, {"a-0", "b-0"}, "murgat_s", 0.05)
    assert outcomes["a"] == ModelCrossFit(gold=7, chosen_on=1, candidates=(), folds=0)
    assert outcomes["b"].cross_fitted and not outcomes["a"].cross_fitted
