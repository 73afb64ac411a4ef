"""Agreement between two lists of labels (a judge's and the gold's, stage by stage): accuracy,
Cohen's κ, and precision / recall / F1 of the positive class. NaN where a value is undefined."""

from __future__ import annotations

import math


def _pairs(a, b):
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"label lists differ in length: {len(a)} vs {len(b)}")
    return a, b


def accuracy(predicted, reference) -> float:
    """Share of equal labels; NaN for empty lists."""
    a, b = _pairs(predicted, reference)
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a) if a else math.nan


def cohen_kappa(labels_a, labels_b) -> float:
    """Cohen's κ for two raters' labels (any hashable categories).

    NaN for empty lists and when chance agreement is 1 (both raters used one and the
    same category throughout: κ is 0/0 there)."""
    a, b = _pairs(labels_a, labels_b)
    if not a:
        return math.nan
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    categories = set(a) | set(b)
    expected = sum((a.count(c) / n) * (b.count(c) / n) for c in categories)
    return math.nan if expected >= 1.0 else (observed - expected) / (1.0 - expected)


def binary_prf(predicted, reference) -> tuple[float, float, float]:
    """Precision, recall, F1 of the positive (truthy) class.

    Precision is NaN with no predicted positive, recall NaN with no reference
    positive, F1 = 2TP/(2TP+FP+FN) NaN when neither side has a positive."""
    a, b = _pairs(predicted, reference)
    tp = sum(1 for x, y in zip(a, b, strict=True) if x and y)
    fp = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    fn = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    precision = tp / (tp + fp) if tp + fp else math.nan
    recall = tp / (tp + fn) if tp + fn else math.nan
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else math.nan
    return precision, recall, f1
