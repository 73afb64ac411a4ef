"""Which configurations could be the best: Hansen, Lunde & Nason's (2011) Model Confidence Set on
paired-bootstrap correlations, and each configuration's bootstrap probability of being best.

The 95 % model confidence set (MCS) contains every configuration whose population r equals the
highest one with probability ≥ 95 % — a guarantee about the *set*, chosen on the same data, which
the old "not significantly worse than the best by a one-sided test against the best" list lacked
(it compared against a best picked on the same data, and failed to reject ≠ indistinguishable).

Algorithm (HLN's range statistic T_R and its elimination rule, with r as the performance and every
statistic from one shared resampling of the responses): start with every configuration whose r is
defined; for the set M, t_ij = (r_j − r_i) / se_ij (se_ij the bootstrap standard deviation of
r*_j − r*_i) and T = max_{i,j∈M} |t_ij|; the bootstrap null distribution of T is
max_{i,j∈M} |(r*_j − r*_i) − (r_j − r_i)| / se_ij; p = share of resamples with T* ≥ T (+1 in both
counts). When p < α the configuration that trails another the most (largest max_j t_ij) is
eliminated and the test repeats on the rest; a configuration's MCS p-value is the largest p seen
up to its elimination (1 for the last one). The set is {i : MCS p ≥ α}.

Why the range: HLN's other statistic, T_max, compares each configuration with the set's average,
which one better configuration among many equal ones barely moves (12 configurations, one better by
.2 at n = 60: T_max excluded 0.2 % of the inferior ones over 200 simulated sets, the range 40 %). Pre-pivoting each pair into its own bootstrap tail probability
(Westfall–Young min-p) was tried too: with B resamples it cannot resolve tail probabilities below
1/B, far above α over k(k − 1)/2 pairs, and lost half the range's power.
benchmarks/confidence_set.py measures how often the set drops a true best (target ≤ α) and its
power. Cost: O(B·k²) for k configurations and B resamples (kept O(B·k) per elimination).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class ConfidenceSet:
    """`in_set[i]`: configuration i is in the (1 − α) MCS; `p_value[i]` its MCS p-value (NaN for
    rows with undefined r, never in the set); `resamples_used`: resamples where every candidate's r
    was defined (the others are left out)."""

    in_set: np.ndarray
    p_value: np.ndarray
    resamples_used: int


class _RangeStatistic:
    """T_R's bootstrap side over the live configurations: for each resample b and configuration i,
    the largest |c_bj − c_bi| / se_ij over live j (c = r* − r), kept up to date as configurations are
    eliminated (only the entries whose maximum was the eliminated one are recomputed)."""

    def __init__(self, centred: np.ndarray, se: np.ndarray):
        self.centred, self.se = centred, np.where(se > 0, se, np.inf)  # identical rows: ratio 0
        self.live = np.ones(se.shape[0], bool)
        B, m = centred.shape
        self.best, self.arg = np.empty((B, m)), np.empty((B, m), int)
        chunk = max(1, 4_000_000 // (m * m))
        for start in range(0, B, chunk):
            c = centred[start : start + chunk]
            ratio = np.abs(c[:, None, :] - c[:, :, None])
            ratio /= self.se
            arg = ratio.argmax(axis=2)
            self.arg[start : start + chunk] = arg
            self.best[start : start + chunk] = np.take_along_axis(ratio, arg[:, :, None], axis=2)[:, :, 0]

    def eliminate(self, e: int) -> None:
        self.live[e] = False
        self.best[:, e] = -np.inf
        rows, cols = np.nonzero((self.arg == e) & self.live)
        if rows.size:
            live = np.flatnonzero(self.live)
            c = self.centred[rows]
            ratio = np.abs(c[:, live] - c[np.arange(rows.size), cols][:, None]) / self.se[cols][:, live]
            self.arg[rows, cols] = live[ratio.argmax(axis=1)]
            self.best[rows, cols] = ratio.max(axis=1)

    def null_maxima(self) -> np.ndarray:
        return self.best.max(axis=1)


def _pairwise_se(centred: np.ndarray) -> np.ndarray:
    """se_ij = √(mean_b (c_bj − c_bi)²) from the Gram matrix (one matrix product)."""
    gram = centred.T @ centred / len(centred)
    diagonal = np.diag(gram)
    return np.sqrt(np.maximum(diagonal[:, None] + diagonal[None, :] - 2 * gram, 0.0))


def _eliminations(
    r: np.ndarray, boot: np.ndarray, alpha: float
) -> tuple[list[tuple[int, float]], list[int], float]:
    """([(eliminated index, its p)], the survivors, the last test's p) over rows of `r`/`boot`."""
    centred = boot - r
    se = _pairwise_se(centred)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(se > 0, (r[None, :] - r[:, None]) / se, 0.0)  # t[i, j]: how far i trails j
    bootstrap = _RangeStatistic(centred, se)
    live, eliminated, p = list(range(len(r))), [], 1.0
    while len(live) > 1:
        block = t[np.ix_(live, live)]
        observed = np.abs(block).max()
        p = float((1 + np.sum(bootstrap.null_maxima() >= observed - 1e-12)) / (1 + len(boot)))
        if p >= alpha:
            break
        worst = live[int(block.max(axis=1).argmax())]
        eliminated.append((worst, p))
        bootstrap.eliminate(worst)
        live.remove(worst)
    return eliminated, live, p


def model_confidence_set(r, boot, alpha: float = 0.05) -> ConfidenceSet:
    """The (1 − α) MCS of the rows with the highest r (module doc). `r` (k,) full-sample r, `boot`
    (B × k) the same rows' r in each resample of one shared resampling. Rows with NaN r are not
    candidates; resamples where a candidate's r is NaN are dropped. One candidate → it alone."""
    r, boot = np.asarray(r, float), np.atleast_2d(np.asarray(boot, float))
    candidates = np.flatnonzero(np.isfinite(r))
    p_value = np.full(r.shape, np.nan)
    usable = np.all(np.isfinite(boot[:, candidates]), axis=1)
    if candidates.size:
        eliminated, live, last_p = _eliminations(r[candidates], boot[usable][:, candidates], alpha)
        running = 0.0
        for index, p in eliminated:
            running = max(running, p)
            p_value[candidates[index]] = running
        p_value[candidates[live]] = 1.0 if len(live) == 1 else max(running, last_p)
    in_set = np.zeros(r.shape, bool)
    in_set[candidates] = p_value[candidates] >= alpha
    return ConfidenceSet(in_set, p_value, int(usable.sum()))


def probability_best(boot) -> np.ndarray:
    """(k,): the share of resamples in which each row has the highest r (NaN counts as lowest; rows
    tied at the top share the resample). All-NaN resamples are left out; zeros when none is left."""
    boot = np.atleast_2d(np.asarray(boot, float))
    filled = np.where(np.isfinite(boot), boot, -np.inf)
    usable = np.isfinite(boot).any(axis=1)
    filled = filled[usable]
    if not len(filled):
        return np.zeros(boot.shape[1])
    top = filled == filled.max(axis=1, keepdims=True)
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
