"""The sweep: every judge configuration's MURGAT-S against gold, with the evidence to choose one.

A configuration is (judge source, precision mode); gold is scored in the same mode. All
configurations sit in one (configurations × gold responses) matrix X with the matching gold
scores in Y (NaN where a source lacks a response), so every statistic is one vectorised call
of `calibration.stats.correlation`, and every bootstrap uses the SAME resampled responses.

Choosing `best`: the highest held-out r (k-fold mean, same folds for every configuration);
ties go to the higher in-sample r, then to the earlier row (sources sorted by name, modes in
the order given). Every other configuration is tested against it: Williams' test when both
are compared with the same gold scores (same mode, or modes whose gold scores coincide),
else the paired bootstrap (Williams needs one shared human variable); Holm-adjusted across
the sweep. "Indistinguishable from best" means the adjusted p is at least `alpha`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np

from annotation.formats.json_values import json_safe
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.ids import Source, source_kind
from annotation.protocol.records import EvaluationRecord
from calibration.scoring.murgat_s import PRECISION_MODES, score_records
from calibration.stats import bootstrap, comparison, correlation
from calibration.stats.selection import (
    CrossValidatedSelection,
    crossvalidated_selection,
    heldout_pearson,
    kfold_indices,
)
from calibration.sweep.stages import StageLoss, stage_losses


@dataclass
class ConfigResult:
    """One configuration against gold over the `n` responses both have (`missing_ids`: gold
    responses this source lacks). `system_score` is the judge's mean MURGAT-S over those
    responses, `gold_system_score` gold's mean over the same ones."""

    source: str
    precision_mode: str
    n: int
    missing_ids: list[str]
    pearson: float
    pearson_ci: tuple[float, float]
    spearman: float
    spearman_ci: tuple[float, float]
    kendall: float
    kendall_ci: tuple[float, float]
    mae: float
    system_score: float
    gold_system_score: float
    heldout_pearson: float
    undefined_reason: str | None = None
    bootstrap_undefined: int = 0  # resamples in which r was undefined (left out of the CI)
    p_vs_best: float | None = None  # Holm-adjusted; None for the best itself
    p_vs_best_raw: float | None = None  # one-sided, before Holm
    p_vs_best_test: str | None = None  # "williams" or "bootstrap"
    p_boot_vs_best: float | None = None  # paired bootstrap, one-sided, not adjusted
    indistinguishable_from_best: bool | None = None
    vs_annotators: dict[str, dict] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.source} [{self.precision_mode}]"

    def to_dict(self) -> dict:
        return json_safe(asdict(self))


@dataclass
class SweepReport:
    """Everything `run_sweep` found; `to_dict()` is the `sweep --json` object."""

    configs: list[ConfigResult]
    best: ConfigResult | None
    selection: dict
    sources: list[dict]
    gold: dict
    annotators: list[dict]
    human_ceiling: dict[str, float]
    stages: list[StageLoss]
    settings: dict
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return json_safe(
            {
                "configs": [c.to_dict() for c in self.configs],
                "best": None if self.best is None else self.best.to_dict(),
                "selection": self.selection,
                "sources": self.sources,
                "gold": self.gold,
                "annotators": self.annotators,
                "human_ceiling": self.human_ceiling,
                "stages": [s.to_dict() for s in self.stages],
                "settings": self.settings,
                "notes": self.notes,
            }
        )


def _by_source(records: list[EvaluationRecord], what: str, problems: list[Problem]) -> dict[str, dict]:
    out: dict[str, dict[str, EvaluationRecord]] = {}
    for position, record in enumerate(records):
        seen = out.setdefault(record.source, {})
        if record.response_id in seen:
            problems.append(
                Problem(
                    f"<{what}>",
                    position,
                    "response_id",
                    f"response '{record.response_id}' appears twice for source '{record.source}'",
                    entry=True,
                )
            )
        seen[record.response_id] = record
    return out


def _check_inputs(gold, judges, humans, modes) -> tuple[dict, dict, dict]:
    problems: list[Problem] = []
    for mode in modes:
        if mode not in PRECISION_MODES:
            problems.append(Problem("<settings>", None, "precision", f"unknown precision mode '{mode}'"))
    gold_by = _by_source(gold, "gold", problems)
    judges_by = _by_source(judges, "judges", problems)
    humans_by = _by_source(humans, "humans", problems)
    if not gold_by:
        problems.append(Problem("<gold>", None, None, "no gold records"))
    elif len(gold_by) > 1:
        problems.append(
            Problem(
                "<gold>",
                None,
                "source",
                "gold records come from several sources: " + ", ".join(sorted(gold_by)),
            )
        )
    if not judges_by:
        problems.append(Problem("<judges>", None, None, "no judge records"))
    if "gold" in judges_by:
        problems.append(Problem("<judges>", None, "source", "gold records among the judges"))
    for source in humans_by:
        if source_kind(source) != "human":
            problems.append(Problem("<humans>", None, "source", f"'{source}' is not a human:<name> source"))
    if problems:
        raise InputError(problems)
    return gold_by, judges_by, humans_by


def _score_matrix(records_by_source: dict, ids: list[str], modes) -> dict[tuple[str, str], np.ndarray]:
    """(source, mode) → MURGAT-S over `ids`, NaN where the source has no record."""
    column = {rid: i for i, rid in enumerate(ids)}
    out: dict[tuple[str, str], np.ndarray] = {}
    for source, records in records_by_source.items():
        for mode in modes:
            out[(source, mode)] = np.full(len(ids), np.nan)
        try:
            scores = score_records(list(records.values()), modes)
        except ValueError as exc:  # the scorer names response, sentence and fact
            raise InputError(Problem(f"<{source}>", None, "sentences", str(exc))) from None
        for score in scores:
            if score.response_id in column and score.murgat_s is not None:
                out[(source, score.precision_mode)][column[score.response_id]] = score.murgat_s
    return out


def _pick_best(heldout: np.ndarray, pearson: np.ndarray) -> int | None:
    def key(i):
        h, p = heldout[i], pearson[i]
        return (-h if math.isfinite(h) else math.inf, -p if math.isfinite(p) else math.inf, i)

    finite = [i for i in range(len(pearson)) if math.isfinite(heldout[i]) or math.isfinite(pearson[i])]
    return min(finite, key=key) if finite else None


def _compare_with_best(b: int, i: int, X, Y, W, boot) -> tuple[float, str, float]:
    """(raw one-sided p, test name, bootstrap p) for "best's r exceeds row i's"."""
    both = np.isfinite(X[b]) & np.isfinite(X[i]) & np.isfinite(Y[b]) & np.isfinite(Y[i])
    own_b, own_i = np.isfinite(X[b]) & np.isfinite(Y[b]), np.isfinite(X[i]) & np.isfinite(Y[i])
    if (own_b == both).all() and (own_i == both).all():
        p_boot = bootstrap.bootstrap_p_not_greater(boot[:, b], boot[:, i])
    else:  # pair them on the responses both have
        Xp = np.where(both, X[[b, i]], np.nan)
        pair = bootstrap.bootstrap_pearson(Xp, Y[[b, i]], W)
        p_boot = bootstrap.bootstrap_p_not_greater(pair[:, 0], pair[:, 1])
    if not np.allclose(Y[b, both], Y[i, both], rtol=0, atol=1e-12):
        return p_boot, "bootstrap", p_boot
    gold = Y[b, both]
    r12, r13 = correlation.pearson_rows(np.vstack([X[b, both], X[i, both]]), gold)
    r23 = correlation.pearson_rows(X[b, both], X[i, both])[0]
    return comparison.williams_test(r12, r13, r23, int(both.sum())).p_one_sided, "williams", p_boot


def _annotator_block(
    humans: list[EvaluationRecord], humans_scores, gold_scores, ids, modes
) -> tuple[list[dict], dict]:
    """Each annotator against gold and against the mean of the others; the ceiling and the
    leave-one-out r are `calibration.sweep.ceiling.human_ceiling`'s (over the gold responses every
    annotator completed), so the sweep and the pages draw the same line."""
    from calibration.sweep.ceiling import human_ceilings

    names = sorted({source for source, _ in humans_scores})
    ceilings = human_ceilings(humans, modes, response_ids=ids)
    rows, ceiling = [], {}
    for mode in modes:
        found = ceilings[mode]
        loo = {str(Source.human(a.annotator)): a for a in found.per_annotator}
        for name in names:
            h = humans_scores[(name, mode)]
            mine = loo.get(name)
            rows.append(
                {
                    "source": name,
                    "precision_mode": mode,
                    "n": int(np.isfinite(h).sum()),
                    "pearson_vs_gold": float(correlation.pearson_rows(h, gold_scores[mode])[0]),
                    "pearson_vs_others": math.nan if mine is None or mine.pearson is None else mine.pearson,
                    "n_shared": len(found.response_ids),
                    "reason": (mine.reason if mine is not None else found.reason),
                }
            )
        ceiling[mode] = math.nan if found.ceiling is None else found.ceiling
    return rows, ceiling


def run_sweep(
    gold: list[EvaluationRecord],
    judges: list[EvaluationRecord],
    modes=PRECISION_MODES,
    humans: list[EvaluationRecord] | None = None,
    n_boot: int = 2000,
    folds: int = 5,
    seed: int = 0,
    alpha: float = 0.05,
) -> SweepReport:
    """Sweep every judge source × precision mode against gold (see the module docstring).

    Responses are those of the gold records; a source missing some is compared on the ones
    it has and the rest are listed (`missing_ids`, `sources`); judge records for responses
    without gold are listed too, never used. Raises InputError (locations like
    '<judges>, entry 3') for: no gold or no judges, gold from several sources, a gold record
    among the judges, a non-human source among `humans`, a repeated (response, source), an
    unknown mode, or a record the scorer rejects; ValueError for n_boot < 1 or folds < 2.
    """
    modes = tuple(modes)
    humans = list(humans or [])
    if n_boot < 1 or folds < 2:
        raise ValueError(f"need n_boot >= 1 and folds >= 2, got n_boot={n_boot}, folds={folds}")
    gold_by, judges_by, humans_by = _check_inputs(gold, judges, humans, modes)
    ((gold_source, gold_records),) = gold_by.items()
    ids = sorted(gold_records)
    n_all = len(ids)
    notes: list[str] = []
    gold_scores = {mode: v for (_, mode), v in _score_matrix(gold_by, ids, modes).items()}
    judge_scores = _score_matrix(judges_by, ids, modes)
    rows = [(source, mode) for source in sorted(judges_by) for mode in modes]
    X = np.vstack([judge_scores[row] for row in rows])
    Y = np.vstack([gold_scores[mode] for _, mode in rows])
    pairs = np.isfinite(X) & np.isfinite(Y)

    W = bootstrap.multiplicities(bootstrap.resample_indices(n_all, n_boot, seed), n_all)
    pearson, spearman, kendall = (
        correlation.pearson_rows(X, Y),
        correlation.spearman_rows(X, Y),
        correlation.kendall_rows(X, Y),
    )
    boot_pearson = bootstrap.bootstrap_pearson(X, Y, W)
    cis = {
        "pearson": bootstrap.percentile_ci(boot_pearson),
        "spearman": bootstrap.percentile_ci(bootstrap.bootstrap_spearman(X, Y, W)),
        "kendall": bootstrap.percentile_ci(bootstrap.bootstrap_kendall(X, Y, W)),
    }

    folds_used = min(folds, n_all // correlation.MIN_PAIRS)
    if folds_used < 2:
        notes.append(
            f"{n_all} gold responses are too few for {folds}-fold cross-validation "
            f"(each fold needs {correlation.MIN_PAIRS}); held-out r is undefined"
        )
        heldout = np.full(len(rows), np.nan)
        selection = CrossValidatedSelection(math.nan, math.nan, math.nan)
    else:
        if folds_used < folds:
            notes.append(f"cross-validation used {folds_used} folds, not {folds}: {n_all} responses")
        fold_index = kfold_indices(n_all, folds_used, seed)
        heldout = heldout_pearson(X, Y, fold_index)
        selection = crossvalidated_selection(X, Y, fold_index)

    configs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a source with no shared response → NaN
        mae = np.nanmean(np.where(pairs, np.abs(X - Y), np.nan), axis=1)
    for i, (source, mode) in enumerate(rows):
        m = pairs[i]
        configs.append(
            ConfigResult(
                source=source,
                precision_mode=mode,
                n=int(m.sum()),
                missing_ids=[ids[j] for j in np.flatnonzero(~m)],
                pearson=float(pearson[i]),
                pearson_ci=(float(cis["pearson"][0][i]), float(cis["pearson"][1][i])),
                spearman=float(spearman[i]),
                spearman_ci=(float(cis["spearman"][0][i]), float(cis["spearman"][1][i])),
                kendall=float(kendall[i]),
                kendall_ci=(float(cis["kendall"][0][i]), float(cis["kendall"][1][i])),
                mae=float(mae[i]) if m.any() else math.nan,
                system_score=float(X[i, m].mean()) if m.any() else math.nan,
                gold_system_score=float(Y[i, m].mean()) if m.any() else math.nan,
                heldout_pearson=float(heldout[i]),
                undefined_reason=correlation.correlation_undefined_reason(X[i], Y[i]),
                bootstrap_undefined=int(np.isnan(boot_pearson[:, i]).sum()),
            )
        )

    b = _pick_best(heldout, pearson)
    if b is not None:
        others = [i for i in range(len(rows)) if i != b]
        compared = [_compare_with_best(b, i, X, Y, W, boot_pearson) for i in others]
        adjusted = comparison.holm_adjust([p for p, _, _ in compared])
        for i, (p_raw, test, p_boot), p_adj in zip(others, compared, adjusted, strict=True):
            c = configs[i]
            c.p_vs_best_raw, c.p_vs_best_test, c.p_boot_vs_best = p_raw, test, p_boot
            c.p_vs_best = float(p_adj)
            c.indistinguishable_from_best = bool(p_adj >= alpha) if math.isfinite(p_adj) else None
        configs[b].indistinguishable_from_best = True

    annotator_rows, ceiling = [], {}
    if humans_by:
        human_scores = _score_matrix(humans_by, ids, modes)
        for name in sorted(humans_by):
            H = np.vstack([human_scores[(name, mode)] for _, mode in rows])
            r = correlation.pearson_rows(X, H)
            lo, hi = bootstrap.percentile_ci(bootstrap.bootstrap_pearson(X, H, W))
            n = (np.isfinite(X) & np.isfinite(H)).sum(1)
            for i, c in enumerate(configs):
                c.vs_annotators[name] = {
                    "pearson": float(r[i]),
                    "pearson_ci": (float(lo[i]), float(hi[i])),
                    "n": int(n[i]),
                }
        annotator_rows, ceiling = _annotator_block(humans, human_scores, gold_scores, ids, modes)

    gold_ids = set(ids)
    sources = [
        {
            "source": s,
            "n_records": len(recs),
            "missing": [r for r in ids if r not in recs],
            "not_in_gold": sorted(set(recs) - gold_ids),
        }
        for s, recs in sorted(judges_by.items())
    ]
    for human, recs in sorted(humans_by.items()):
        outside = sorted(set(recs) - gold_ids)
        if outside:
            notes.append(f"{human}: {len(outside)} responses without gold are left out")
    for s in sources:
        if s["missing"] or s["not_in_gold"]:
            notes.append(
                f"{s['source']}: {len(s['missing'])} gold responses missing, "
                f"{len(s['not_in_gold'])} responses without gold ignored"
            )
    selection_dict = asdict(selection)
    selection_dict["chosen"] = [configs[i].name if i >= 0 else None for i in selection.chosen]
    return SweepReport(
        configs=configs,
        best=None if b is None else configs[b],
        selection=selection_dict,
        sources=sources,
        gold={"source": gold_source, "n_responses": n_all},
        annotators=annotator_rows,
        human_ceiling=ceiling,
        stages=stage_losses(list(gold_records.values()), judges),
        settings={
            "modes": list(modes),
            "n_boot": n_boot,
            "folds": folds,
            "folds_used": max(folds_used, 0),
            "seed": seed,
            "alpha": alpha,
            "ci_level": 0.95,
            "williams": "one-sided, Graham & Baldwin (2014)",
            "multiple_testing": "holm",
        },
        notes=notes,
    )


def cheapest_not_worse(report: SweepReport, cost_by_source: dict[str, float]) -> ConfigResult | None:
    """The optional rule: the cheapest configuration not significantly worse than the best
    (the best itself or one flagged indistinguishable), by `cost_by_source` (e.g. dollars per
    response from prices × recorded tokens). Sources without a price are not candidates;
    ties go to the higher held-out r, then sweep order. None when no candidate has a price."""
    candidates = [
        (cost_by_source[c.source], i, c)
        for i, c in enumerate(report.configs)
        if c.indistinguishable_from_best and c.source in cost_by_source
    ]
    if not candidates:
        return None

    def key(item):
        cost, i, c = item
        return cost, -c.heldout_pearson if math.isfinite(c.heldout_pearson) else math.inf, i

    return min(candidates, key=key)[2]
