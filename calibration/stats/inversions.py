"""Counting discordant pairs: Σ w_i w_j over the pairs i < j whose ranks are out of order, for many
weight vectors at once (`InversionCount`), the core of Kendall's τ-b in the full sample
(correlation.py, weights of one) and in every bootstrap resample (bootstrap.py, the multiplicities)."""

from __future__ import annotations

import numpy as np


def cumulative(W: np.ndarray) -> np.ndarray:
    """Each row's running sums with a 0 in front: the weight of columns [a, b) is C[:, b] − C[:, a]."""
    # counts of a narrow type (`multiplicities`) are summed as int64: their running sums outgrow it
    dtype = W.dtype if W.dtype.kind == "f" or W.dtype.itemsize >= 4 else np.int64
    C = np.zeros((W.shape[0], W.shape[1] + 1), dtype=dtype)
    np.cumsum(W, axis=1, out=C[:, 1:])
    return C


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """Where each run of equal (keys…) begins, the keys sorted."""
    return np.flatnonzero(np.r_[True, np.any([k[1:] != k[:-1] for k in keys], axis=0)])


class InversionCount:
    """Σ w_i w_j over the pairs i < j with rank[i] > rank[j], for many weight vectors w at once, in
    O(n log R) per vector (R distinct ranks): a pair is counted at the highest bit where the ranks
    differ — among the items that agree above that bit, a 1-bit item before a 0-bit item."""

    def __init__(self, rank: np.ndarray):
        self.levels = []
        for bit in range(max(int(rank.max(initial=0)).bit_length(), 1)):
            prefix = rank >> (bit + 1)
            order = np.argsort(prefix, kind="stable")  # items of one prefix together, in order
            ones = ((rank[order] >> bit) & 1).astype(bool)
            ones_before = np.r_[0, np.cumsum(ones)]  # 1-bit items before each position
            starts = run_starts(prefix[order])
            group_start = np.repeat(starts, np.diff(np.r_[starts, rank.size]))
            zeros = np.flatnonzero(~ones)
            zeros = zeros[ones_before[zeros] > ones_before[group_start[zeros]]]  # a 1-bit item before
            self.levels.append(
                (order[ones], order[zeros], ones_before[zeros], ones_before[group_start[zeros]])
            )

    def __call__(self, W: np.ndarray) -> np.ndarray:
        """The count for each row of `W` (weight vectors × items)."""
        total = np.zeros(W.shape[0], dtype=np.int64)
        for one_items, zero_items, upto, group_from in self.levels:
            before = cumulative(W[:, one_items])
            # each 0-bit item times the 1-bit weight of its group that comes before it
            total += (W[:, zero_items] * (before[:, upto] - before[:, group_from])).sum(1, dtype=np.int64)
        return total
