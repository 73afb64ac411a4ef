"""calibration.stats.label_metrics: agreement between two label lists, against hand-computed values."""

import math

import pytest

from calibration.stats import label_metrics


def test_cohen_kappa_hand_computed():
    # observed 3/4; chance (1/2)(1/4) + (1/2)(3/4) = 1/2; κ = (3/4 − 1/2) / (1 − 1/2)
    assert label_metrics.cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)


def test_cohen_kappa_is_undefined_when_both_raters_always_say_the_same_label():
    assert math.isnan(label_metrics.cohen_kappa([True, True], [True, True]))


def test_binary_prf_of_the_positive_label():
    # TP = 1, FP = 1, FN = 2
    assert label_metrics.binary_prf([1, 1, 0, 0, 0], [1, 0, 1, 1, 0]) == pytest.approx((0.5, 1 / 3, 0.4))


def test_accuracy_of_nothing_is_undefined():
    assert math.isnan(label_metrics.accuracy([], []))
