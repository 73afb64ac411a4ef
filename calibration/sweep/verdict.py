"""The sweep's verdict over configurations: the best (highest full-sample Pearson r, the paper's
criterion), the 95 % confidence set of best configurations (calibration.stats.confidence_set), each
configuration's bootstrap win share (how often it has the highest r over the resamples — not the
probability that it is the best), the optional "cheapest in the set" rule, and whether the gold can
decide at all (`decision`), with the gold expected to separate the top two when it cannot."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.stats.confidence_set import model_confidence_set, probability_best
from calibration.stats.distributions import normal_quantile


@dataclass
class Verdict:
    """`best`: row index of the highest r (ties to the earlier row), None when no r is defined;
    per row: `in_best_set`, `mcs_p` (NaN for undefined r), `p_best`; `resamples_used` by the set."""

    best: int | None
    in_best_set: np.ndarray
    mcs_p: np.ndarray
    p_best: np.ndarray
    resamples_used: int


def verdict(pearson: np.ndarray, boot_pearson: np.ndarray, alpha: float = 0.05) -> Verdict:
    """The verdict from each row's full-sample r and its r in each shared bootstrap resample (B × k).
    Rows are ordered by the caller's tie-break (sources by name, modes in the order given)."""
    defined = np.isfinite(pearson)
    best = int(np.argmax(np.where(defined, pearson, -np.inf))) if defined.any() else None
    confidence_set = model_confidence_set(pearson, boot_pearson, alpha)
    p_best = probability_best(np.where(defined, boot_pearson, np.nan))
    return Verdict(best, confidence_set.in_set, confidence_set.p_value, p_best, confidence_set.resamples_used)


def cheapest_in_best_set(report, cost_by_source: dict[str, float]):
    """The optional rule: the cheapest configuration of the 95 % confidence set of best ones, by
    `cost_by_source` (e.g. dollars per response from prices × recorded tokens). Sources without a
    price are not candidates; ties go to the higher r, then sweep order. None when no member of the
    set has a price."""
    candidates = [
        (cost_by_source[c.source], -c.pearson if math.isfinite(c.pearson) else math.inf, i, c)
        for i, c in enumerate(report.configs)
        if c.in_best_set and c.source in cost_by_source
    ]
    return min(candidates, key=lambda item: item[:3])[3] if candidates else None


# -- can the gold decide? ------------------------------------------------------------------------
POWER = 0.8


def responses_to_separate(difference: float, se: float, n: int, alpha: float = 0.05, power: float = POWER):
    """How many gold responses in all a paired test of two configurations' r at level α would need
    to find a true difference `difference` with probability `power`, when the difference's standard
    error is `se` over `n` responses and shrinks as 1/√n: n·((z_{1−α/2} + z_power)·se/difference)².
    None when the difference is not positive or the SE is unknown."""
    if not (math.isfinite(difference) and math.isfinite(se)) or difference <= 0 or se <= 0:
        return None
    z = normal_quantile(1 - alpha / 2) + normal_quantile(power)
    return math.ceil(n * (z * se / difference) ** 2)


def separation(names: list[str], pearson: np.ndarray, boot_pearson: np.ndarray, n: int, alpha: float = 0.05):
    """The top two configurations by r, their difference, its paired-bootstrap SE and the gold
    responses expected to separate them (`responses_to_separate`); None with fewer than two r."""
    finite = np.flatnonzero(np.isfinite(pearson))
    if finite.size < 2:
        return None
    first, second = finite[np.argsort(-pearson[finite], kind="stable")[:2]]
    both = np.isfinite(boot_pearson[:, first]) & np.isfinite(boot_pearson[:, second])
    gap = boot_pearson[both, first] - boot_pearson[both, second]
    se = float(np.std(gap, ddof=1)) if gap.size > 1 else math.nan
    difference = float(pearson[first] - pearson[second])
    needed = responses_to_separate(difference, se, n, alpha)
    return {
        "first": names[first],
        "second": names[second],
        "r_first": float(pearson[first]),
        "r_second": float(pearson[second]),
        "difference": difference,
        "difference_se": se,
        "n": n,
        "power": POWER,
        "responses_needed": needed,
        "more_gold_needed": None if needed is None else max(0, needed - n),
    }


@dataclass
class Decision:
    """Whether the gold decides the choice: `undecided` when the 95 % confidence set of the best
    holds more than half of the configurations or the chosen one's r CI includes 0; `reasons` say
    which, with the numbers; `sentence` is the first sentence the page and `sweep` print."""

    undecided: bool
    reasons: list[str]
    sentence: str

    def to_dict(self) -> dict:
        return {"undecided": self.undecided, "reasons": self.reasons, "sentence": self.sentence}


def _n(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:.3f}"


def decision(report, choice=None) -> Decision:
    """The decision about `choice` (default: the sweep's best) from the sweep report (module doc)."""
    choice = report.best if choice is None else choice
    k, in_set, n = len(report.configs), len(report.best_set), report.gold.get("n_responses", 0)
    if choice is None:
        return Decision(
            True,
            ["no configuration has a defined r"],
            "Nothing can be chosen: no configuration has a defined correlation with gold.",
        )
    reasons = []
    if in_set > k / 2:
        reasons.append(f"the 95 % confidence set of the best holds {in_set} of {k} configurations")
    low, high = choice.pearson_ci
    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 <= high:
        reasons.append(
            f"{choice.name}'s r {_n(choice.pearson)} has a 95 % CI [{_n(low)}, {_n(high)}] that "
            + ("includes 0" if math.isfinite(low) else "is undefined")
        )
    if not reasons:
        return Decision(
            False,
            [],
            f"{choice.name} is chosen: r {_n(choice.pearson)} [{_n(low)}, {_n(high)}] over {choice.n} gold "
            f"responses; the 95 % confidence set of the best holds {in_set} of {k} configurations.",
        )
    sentence = f"These {n} gold responses cannot separate the configurations: " + " and ".join(reasons) + "."
    s = getattr(report, "separation", None)
    if s is not None and s["more_gold_needed"] is not None:
        sentence += (
            f" About {s['more_gold_needed']} more gold responses ({s['responses_needed']} in all) would be "
            f"expected to separate the top two, {s['first']} (r {_n(s['r_first'])}) and {s['second']} "
            f"(r {_n(s['r_second'])}), with {round(100 * s['power'])} % power."
        )
    elif s is not None:
        sentence += f" The top two, {s['first']} and {s['second']}, have the same r: more gold cannot be planned to separate them."
    return Decision(True, reasons, sentence)


def export_refusal(decided: Decision, acknowledged: bool) -> str | None:
    """Why an export of an undecided choice is refused without an acknowledgement, or None."""
    if not decided.undecided or acknowledged:
        return None
    return (
        decided.sentence
        + " Exporting this choice needs an explicit acknowledgement (--allow-undecided on the command "
        "line, the checkbox on the Calibrate page); it is recorded in the exported evidence."
    )
