"""Shared by the calibration simulations: MURGAT-S-like populations with a known correlation, made
with the project's own generator, judges and scorer, and bivariate normal data.

MURGAT-S-like: the demo's world (annotation/demo): synthetic videos (`make_video_truth`, nothing
rendered), model responses written from them (`make_response`) and split by the importer's
splitter, gold from the ground truth (`gold_record`), and judges of known noise — the demo's
`Labeller`, whose per-stage error rates (verifier flips, decomposition merges/splits/drops,
entailment flips) are those of the demo's `sim-strong` judge times a factor. Every record is scored
by `calibration.scoring.murgat_s.score_records`, so values are bounded in [0, 1] and tied (exact
rationals). A share of responses cites nothing (`ZERO_SHARE`): their coverage is 0, so gold and
every judge score exactly 0 — the zero inflation of real MURGAT-S.

A *population* is a large pool of responses; a simulated calibration set draws responses from it
with replacement, so the population correlation is exactly the pool's.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.demo.ground_truth import align_plan, gold_record
from annotation.demo.labellers import Labeller, judge_labeller, label_response, labelled_record
from annotation.demo.texts import make_response
from annotation.demo.videos import make_video_truth
from annotation.protocol.records import EvaluationRecord, Sentence
from annotation.protocol.sentences import sentences_for_response
from calibration.scoring.murgat_s import score_records

ZERO_SHARE = 0.08  # responses that cite nothing
RESPONSES_PER_VIDEO = 8


def scaled_judge(factor: float) -> Labeller:
    """The demo's sim-strong judge with every error rate times `factor` (capped: 0.5 is a coin)."""
    base = judge_labeller(("strong", "strong", "strong"))
    return Labeller(
        min(0.5, base.verify_error * factor),
        min(1.0, base.merge_rate * factor),
        min(1.0, base.split_rate * factor),
        base.reword_rate,
        min(1.0, base.drop_rate * factor),
        min(0.5, base.entail_error * factor),
    )


def _uncited(record: EvaluationRecord, source: str) -> EvaluationRecord:
    """The response as if it cited nothing: no sentence can be in R_vc."""
    return EvaluationRecord(
        record.response_id, source, [Sentence(s.text, s.verifiable, []) for s in record.sentences]
    )


def _responses(rng: random.Random):
    """Endless (truth, aligned gold sentences) of demo-world responses."""
    video = 0
    while True:
        truth = make_video_truth(f"v{video}.mp4", random.Random(rng.random()))
        for k in range(RESPONSES_PER_VIDEO):
            plan = make_response(
                f"v{video}-{k}", truth, video * RESPONSES_PER_VIDEO + k, random.Random(rng.random())
            )
            yield truth, align_plan(plan, sentences_for_response(plan.response.text, truth.duration_s))
        video += 1


def murgat_judges(factors, size: int, seed: int, mode: str = "individual") -> tuple[np.ndarray, np.ndarray]:
    """Gold MURGAT-S (size,) and one row per judge error factor (k × size), on the same responses.
    Responses undetermined on any side (none in this world: every question is answered) are skipped."""
    rng = random.Random(seed)
    judges = [scaled_judge(f) for f in factors]
    gold, rows = [], []
    for truth, aligned in _responses(rng):
        if len(gold) == size:
            break
        records = [gold_record("r", truth, aligned)]
        records += [
            labelled_record("r", "judge:x", aligned, label_response(truth, aligned, j, rng)) for j in judges
        ]
        if rng.random() < ZERO_SHARE:
            records = [_uncited(r, r.source) for r in records]
        scores = [s.murgat_s for s in score_records(records, [mode])]
        if all(s is not None for s in scores):
            gold.append(scores[0])
            rows.append(scores[1:])
    return np.array(gold), np.array(rows).T.reshape(len(judges), -1)


def factor_for_correlation(target: float, size: int = 6000, seed: int = 1) -> float:
    """The error factor whose judge correlates `target` with gold in a pool (bisection, ±0.005)."""
    low, high = 0.0, 12.0
    for _ in range(16):
        middle = (low + high) / 2
        gold, (judge,) = murgat_judges([middle], size, seed)
        r = float(np.corrcoef(gold, judge)[0, 1])
        if abs(r - target) < 0.005:
            return middle
        low, high = (middle, high) if r > target else (low, middle)
    return (low + high) / 2


def normal_pairs(rho: float, n: int, reps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(reps × n) bivariate standard normal pairs with correlation `rho`."""
    x = rng.standard_normal((reps, n))
    y = rho * x + np.sqrt(1 - rho**2) * rng.standard_normal((reps, n))
    return x, y
