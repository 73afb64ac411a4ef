"""Gold used once (calibration/estimates/crossfit.py): the configuration is chosen on the other
folds of the gold, the held-out fold corrects with it, and the whole is PPI on those predictions."""

import numpy as np
import pytest

from calibration.estimates.crossfit import choose_highest_r, cross_fit_mean
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
