"""calibration.stats.regression: the least-squares line and the confidence band of its mean."""

import pytest

from calibration.stats.regression import regression_band


def test_regression_band_is_the_least_squares_line_with_its_t_interval():
    # (0,0), (1,1), (2,3): slope 3/2, intercept −1/6, residual SD √(1/6), t(0.975, 1) = 12.7062
    fit, low, high = regression_band([0, 1, 2], [0, 1, 3], [1.0])
    assert fit[0] == pytest.approx(4 / 3)
    assert high[0] - fit[0] == pytest.approx(12.7062 * (1 / 6) ** 0.5 * (1 / 3) ** 0.5, rel=1e-4)
    assert fit[0] - low[0] == pytest.approx(high[0] - fit[0])


def test_regression_band_needs_three_points_and_varying_gold():
    assert regression_band([0, 1], [0, 1], [0.5]) is None
    assert regression_band([0.5, 0.5, 0.5], [0, 1, 0], [0.5]) is None
