"""The sweep: every judge configuration's MURGAT-S against gold, with the evidence to choose one.

A configuration is (judge source, precision mode); gold is scored in the same mode. The responses
are the gold records'; a response whose MURGAT-S is undetermined (judge or gold, PROTOCOL §3) is
left out of that configuration's numbers and listed — never scored 0. All configurations sit in one
(configurations × responses) matrix X with the matching gold scores in Y (NaN = missing), so every
statistic is one vectorised call, and every bootstrap uses the SAME resampled responses.

What each number is:
- `pearson`, `pearson_ci`: the full-sample r and its 95 % CI (Fisher z with a jackknife standard
  error, calibration/stats/jackknife.py — chosen because it covers; benchmarks/pearson_ci_coverage.py);
  `spearman`, `kendall` with 95 % percentile paired-bootstrap CIs.
- `best`: the highest full-sample r (the paper's criterion; ties to the earlier row — sources by
  name, modes in the order given).
- `in_best_set` / `best_set`: the 95 % model confidence set of best configurations (Hansen, Lunde &
  Nason), selection-aware; `p_best`: the bootstrap win share — the share of resamples in which the
  configuration has the highest r (not the probability that it is the best: with 12 equal
  configurations the winner's share averages .42, not 1/12); `mcs_p`: its MCS p-value.
- `separation`: the top two by r, their difference with its paired-bootstrap SE, and the gold
  responses a paired test would need to separate them with 80 % power (verdict.py).
- `selection`: the r that the rule "take the highest r" can be expected to reach on responses it
  was not chosen on (nested cross-validation, pooled within-fold correlation), its bootstrap SE
  (`expected_r_se`: the procedure rerun on resamples of the responses), the rule's `pick` on all
  the gold and its in-sample r, and the optimism.
- `parity` and `annotators`: human parity (calibration/sweep/parity.py).
"""

from __future__ import annotations

import math
import threading
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from annotation.agreement.gold import awaiting_note
from annotation.formats.json_values import json_safe
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.ids import source_kind
from annotation.protocol.records import EvaluationRecord
from annotation.store.bulk import without_cycle_collection
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.stats import bootstrap, correlation
from calibration.stats.jackknife import fisher_jackknife_ci
from calibration.stats.selection import expected_r_se, expected_selected_r
from calibration.sweep.parity import DEFAULT_EPSILON, annotator_rows, config_parity, parity_tables
from calibration.sweep.scores import ScoreRows, score_rows
from calibration.sweep.stages import StageLoss, stage_losses
from calibration.sweep.verdict import Verdict, separation, verdict

CI_LEVEL = 0.95
CV_REPEATS = 10


@dataclass
class ConfigResult:
    """One configuration against gold over the `n` responses where both MURGAT-S are determined.
    `missing_ids`: gold responses this source has no record for; `undetermined_ids` (counted in
    `n_undetermined`): those whose judge MURGAT-S is undetermined in this mode. `system_score` is
    the judge's mean MURGAT-S over the `n` responses, `gold_system_score` gold's over the same."""

    source: str
    precision_mode: str
    n: int
    missing_ids: list[str]
    undetermined_ids: list[str]
    n_undetermined: int
    pearson: float
    pearson_ci: tuple[float, float]
    spearman: float
    kendall: float
    mae: float
    system_score: float
    gold_system_score: float
    in_best_set: bool
    p_best: float
    mcs_p: float
    parity: dict
    undefined_reason: str | None = None
    bootstrap_undefined: int = 0  # resamples in which r was undefined (no p_best share, no set test)
    # the rank correlations' bootstrap intervals, worked out when first asked (`RankIntervals`)
    rank_intervals: RankIntervals | None = field(default=None, repr=False, compare=False)
    row: int = field(default=0, repr=False, compare=False)

    @property
    def name(self) -> str:
        return f"{self.source} [{self.precision_mode}]"

    @property
    def spearman_ci(self) -> tuple[float, float]:
        """Spearman ρ's 95 % percentile paired-bootstrap interval (NaN: no resamples to say)."""
        return self._rank_intervals()[0]

    @property
    def kendall_ci(self) -> tuple[float, float]:
        """Kendall τ-b's 95 % percentile paired-bootstrap interval (NaN: no resamples to say)."""
        return self._rank_intervals()[1]

    def _rank_intervals(self) -> tuple[tuple[float, float], tuple[float, float]]:
        if self.rank_intervals is None:
            return (math.nan, math.nan), (math.nan, math.nan)
        return self.rank_intervals.of(self.row)

    def to_dict(self, rank_intervals: bool = True) -> dict:
        """The configuration as JSON values; without `spearman_ci` and `kendall_ci` when not
        `rank_intervals` (their bootstraps are not worked out for it)."""
        out = {}
        for f in fields(self):
            if f.name in ("rank_intervals", "row"):
                continue
            out[f.name] = getattr(self, f.name)
            if rank_intervals and f.name in ("spearman", "kendall"):  # each interval beside its correlation
                out[f"{f.name}_ci"] = getattr(self, f"{f.name}_ci")
        return json_safe(out)


class RankIntervals:
    """Spearman's and Kendall's percentile paired-bootstrap intervals of a sweep's rows, worked out
    when first asked, a row at a time (the page and the export show the chosen configuration's) or
    all at once (`all`, for `sweep --json`): the same resamples (`n_boot`, `seed`) and the same
    numbers as working every row out in the sweep, since each row's are its own."""

    def __init__(self, X: np.ndarray, Y: np.ndarray, n_boot: int, seed: int):
        self._X, self._Y, self._n_boot, self._seed = X, Y, n_boot, seed
        self._found: dict[int, tuple] = {}
        self._lock = threading.Lock()

    def of(self, row: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """(Spearman's interval, Kendall's) of `row`."""
        with self._lock:
            if row not in self._found:
                self._work_out([row])
            return self._found[row]

    def all(self, weights: np.ndarray | None = None) -> None:
        """Work out every row's not yet worked out (one set of resamples for them all; `weights`:
        their multiplicity matrix, when the caller has it)."""
        with self._lock:
            rows = [i for i in range(self._X.shape[0]) if i not in self._found]
            if rows:
                self._work_out(rows, weights)

    def _work_out(self, rows: list[int], W: np.ndarray | None = None) -> None:
        X, Y = self._X[rows], self._Y[rows]
        n = X.shape[1]
        if W is None:  # drawn again (16 MB at 2,000 × 4,000) rather than kept with every report
            W = bootstrap.resample_multiplicities(n, self._n_boot, self._seed)
        spearman = bootstrap.percentile_ci(bootstrap.bootstrap_spearman(X, Y, W), CI_LEVEL)
        kendall = bootstrap.percentile_ci(bootstrap.bootstrap_kendall(X, Y, W), CI_LEVEL)
        for k, row in enumerate(rows):
            self._found[row] = (_pair(spearman, k), _pair(kendall, k))


@dataclass
class SweepReport:
    """Everything `run_sweep` found; `to_dict()` is the `sweep --json` object."""

    configs: list[ConfigResult]
    best: ConfigResult | None
    best_set: list[dict]
    selection: dict
    sources: list[dict]
    gold: dict
    annotators: list[dict]
    stages: list[StageLoss]
    settings: dict
    notes: list[str] = field(default_factory=list)
    # {(source, mode): {response_id: MURGAT-S or None when undetermined}} of gold and every judge
    # over the gold responses each has a record for: the scatter reads them (not in `to_dict`)
    scores: dict[tuple[str, str], dict[str, float | None]] = field(default_factory=dict, repr=False)
    separation: dict | None = None

    def to_dict(self, rank_intervals: bool = True) -> dict:
        """The report as JSON values: `sweep --json`'s object. Every configuration's rank
        correlations' intervals are worked out for it (one set of resamples for them all), or,
        when not `rank_intervals`, left out (a quarter of a sweep's CPU at 4,000 gold responses)."""
        if rank_intervals:
            for ranks in {
                id(c.rank_intervals): c.rank_intervals for c in self.configs if c.rank_intervals
            }.values():
                ranks.all()  # every row's resamples drawn once
        return json_safe(
            {
                "configs": [c.to_dict(rank_intervals) for c in self.configs],
                "best": None if self.best is None else self.best.to_dict(rank_intervals),
                "best_set": self.best_set,
                "selection": self.selection,
                "sources": self.sources,
                "gold": self.gold,
                "annotators": self.annotators,
                "stages": [s.to_dict() for s in self.stages],
                "settings": self.settings,
                "notes": self.notes,
                "separation": self.separation,
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


def _check_inputs(gold, judges, humans, modes, judged) -> tuple[dict, dict, dict]:
    problems: list[Problem] = []
    for mode in modes:
        if mode not in PRECISION_MODES:
            problems.append(Problem("<settings>", None, "precision", f"unknown precision mode '{mode}'"))
    gold_by = _by_source(gold, "gold", problems)
    judges_by = _by_source(judges, "judges", problems)
    for source in judged or {}:  # a source with no record of a gold response is still a row
        judges_by.setdefault(source, {})
    judges_by = dict(sorted(judges_by.items()))
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


def _correlations(X: np.ndarray, Y: np.ndarray, n_boot: int, seed: int, rank_intervals_now: bool) -> dict:
    """Every correlation and interval of every row (the rank correlations' when asked), and the rows'
    r in each shared resample."""
    n = X.shape[1]
    W = bootstrap.resample_multiplicities(n, n_boot, seed)
    boot_pearson = bootstrap.bootstrap_pearson(X, Y, W)
    ranks = RankIntervals(X, Y, n_boot, seed)
    if rank_intervals_now:
        ranks.all(W)
    return {
        "pearson": correlation.pearson_rows(X, Y),
        "spearman": correlation.spearman_rows(X, Y),
        "kendall": correlation.kendall_rows(X, Y),
        "pearson_ci": fisher_jackknife_ci(X, Y, CI_LEVEL),
        "boot_pearson": boot_pearson,
        "rank_intervals": ranks,
    }


def _pair(bounds, i: int) -> tuple[float, float]:
    return float(bounds[0][i]), float(bounds[1][i])


def _config_result(i: int, row, X, Y, found: dict, decided: Verdict, ids, judges_by, judge_scores, parity):
    """Row i's ConfigResult from the sweep's matrices, correlations, verdict and parity block."""
    m = np.isfinite(X[i]) & np.isfinite(Y[i])
    undetermined = judge_scores.undetermined[row]
    return ConfigResult(
        source=row[0],
        precision_mode=row[1],
        n=int(m.sum()),
        missing_ids=[rid for rid in ids if rid not in judges_by[row[0]]],
        undetermined_ids=undetermined,
        n_undetermined=len(undetermined),
        pearson=float(found["pearson"][i]),
        pearson_ci=_pair(found["pearson_ci"], i),
        spearman=float(found["spearman"][i]),
        kendall=float(found["kendall"][i]),
        mae=float(np.abs(X[i, m] - Y[i, m]).mean()) if m.any() else math.nan,
        system_score=float(X[i, m].mean()) if m.any() else math.nan,
        gold_system_score=float(Y[i, m].mean()) if m.any() else math.nan,
        in_best_set=bool(decided.in_best_set[i]),
        p_best=float(decided.p_best[i]),
        mcs_p=float(decided.mcs_p[i]),
        parity=parity,
        undefined_reason=correlation.correlation_undefined_reason(X[i], Y[i]),
        bootstrap_undefined=int(np.isnan(found["boot_pearson"][:, i]).sum()),
        rank_intervals=found["rank_intervals"],
        row=i,
    )


def _selection(X, Y, folds: int, seed: int, names: list[str], notes: list[str]) -> dict:
    found = expected_selected_r(X, Y, folds, CV_REPEATS, seed)
    if found.folds < folds:
        notes.append(
            f"nested cross-validation used {found.folds} folds, not {folds}: {X.shape[1]} gold responses"
            + ("" if found.folds >= 2 else " — too few, so the expected r is undefined")
        )
    found.expected_r_se = expected_r_se(X, Y, folds, seed=seed)
    out = asdict(found)
    out["chosen"] = {names[i]: count for i, count in enumerate(found.chosen) if count}
    out["pick"] = (
        names[int(np.nanargmax(correlation.pearson_rows(X, Y)))] if math.isfinite(found.in_sample_r) else None
    )
    return out


def _sources_and_notes(judges_by, humans_by, ids, notes: list[str], judged) -> list[dict]:
    gold_ids = set(ids)
    sources = [
        {
            "source": s,
            "n_records": len((judged or {}).get(s, recs)),
            "missing": [r for r in ids if r not in recs],
            "not_in_gold": sorted(set((judged or {}).get(s, recs)) - gold_ids),
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
    return sources


def _undetermined_notes(gold_undetermined: dict[str, list[str]], parity_reason, notes: list[str]) -> None:
    for mode, listed in gold_undetermined.items():
        if listed:
            notes.append(f"gold [{mode}]: {len(listed)} responses with undetermined MURGAT-S left out")
    if parity_reason:
        notes.append(f"human parity: {parity_reason}")


def _settings(modes, n_boot, folds, seed, alpha, epsilon) -> dict:
    return {
        "modes": list(modes),
        "n_boot": n_boot,
        "folds": folds,
        "repeats": CV_REPEATS,
        "seed": seed,
        "alpha": alpha,
        "ci_level": CI_LEVEL,
        "pearson_ci": "Fisher z, jackknife standard error, t on n - 1 df",
        "rank_ci": "percentile paired bootstrap",
        "best_set": "Hansen-Lunde-Nason model confidence set, range statistic, paired bootstrap",
        "parity_gold": "mean MURGAT-S of the other annotators' finished records",
        "parity_epsilon": epsilon,
        "parity_test": "one-sided jackknife t per annotator, Benjamini-Yekutieli over annotators",
    }


# scoring and comparing allocate many small objects, none in a cycle: beside a project's state, the
# cyclic collector would walk the whole heap again and again for nothing
@without_cycle_collection()
def run_sweep(
    gold: list[EvaluationRecord],
    judges: list[EvaluationRecord],
    modes=PRECISION_MODES,
    humans: list[EvaluationRecord] | None = None,
    n_boot: int = 2000,
    folds: int = 5,
    seed: int = 0,
    alpha: float = 0.05,
    epsilon: float = DEFAULT_EPSILON,
    judged: dict[str, list[str]] | None = None,
    rank_intervals_now: bool = False,
    judge_forms: dict[tuple[str, str], list] | None = None,
    awaiting_gold: list[str] | None = None,
) -> SweepReport:
    """Sweep every judge source × precision mode against gold (see the module docstring).

    Responses are those of the gold records; a source missing some is compared on the ones it has
    and the rest are listed (`missing_ids`, `sources`); judge records for responses without gold
    are listed too, never used. `judged` ({judge source: every response it has a record for}) is
    given when `judges` holds only the gold responses' records (a project's sweep decodes no
    more): the responses without gold are counted and listed from it, and each of its sources is
    a configuration. `humans` (human:* records, finished or not) give human parity;
    `rank_intervals_now`: work the rank correlations' intervals out now, with the sweep's
    resamples (for a caller that shows them all), not when first asked; `judge_forms`
    ({(source, response): score form}, a project's stored forms of `judges`) scores those records
    from their forms, the same numbers without walking them; `awaiting_gold` (a project's labelled
    responses whose gold awaits a stage-1 or stage-2 decision, `GoldSet.awaiting`) are counted in
    `gold` and a note: they have no gold record, so they are left out;
    Raises InputError (locations like '<judges>,
    entry 3') for: no gold or no judges, gold from several sources, a gold record among the judges,
    a non-human source among `humans`, a repeated (response, source), an unknown mode, or a record
    the scorer rejects; ValueError for n_boot < 1 or folds < 2.
    """
    modes, humans = tuple(modes), list(humans or [])
    if n_boot < 1 or folds < 2:
        raise ValueError(f"need n_boot >= 1 and folds >= 2, got n_boot={n_boot}, folds={folds}")
    awaiting_gold = sorted(awaiting_gold or ())
    gold_by, judges_by, humans_by = _check_inputs(gold, judges, humans, modes, judged)
    ((gold_source, gold_records),) = gold_by.items()
    ids, notes = sorted(gold_records), []
    rows = [(source, mode) for source in sorted(judges_by) for mode in modes]
    gold_scores, judge_scores = (
        score_rows(gold_by, ids, modes),
        score_rows(judges_by, ids, modes, judge_forms),
    )
    X = np.vstack([judge_scores.values[row] for row in rows])
    Y = np.vstack([gold_scores.values[(gold_source, mode)] for _, mode in rows])
    found = _correlations(X, Y, n_boot, seed, rank_intervals_now)
    decided = verdict(found["pearson"], found["boot_pearson"], alpha)
    tables = parity_tables(humans, ids, modes)
    parity = [config_parity(X[i], tables[mode], epsilon, alpha, CI_LEVEL) for i, (_, mode) in enumerate(rows)]
    configs = [
        _config_result(i, row, X, Y, found, decided, ids, judges_by, judge_scores, parity[i])
        for i, row in enumerate(rows)
    ]
    gold_undetermined = {mode: gold_scores.undetermined[(gold_source, mode)] for mode in modes}
    _undetermined_notes(gold_undetermined, tables[modes[0]].reason, notes)
    if awaiting_gold:
        notes.append(f"gold: {awaiting_note(len(awaiting_gold))}")
    return SweepReport(
        configs=configs,
        best=None if decided.best is None else configs[decided.best],
        best_set=[{"source": c.source, "precision_mode": c.precision_mode} for c in configs if c.in_best_set],
        selection=_selection(X, Y, folds, seed, [c.name for c in configs], notes),
        sources=_sources_and_notes(judges_by, humans_by, ids, notes, judged),
        gold={
            "source": gold_source,
            "n_responses": len(ids),
            "undetermined": gold_undetermined,
            "awaiting": awaiting_gold,
        },
        annotators=annotator_rows(tables),
        stages=stage_losses(list(gold_records.values()), judges, judged=judged),
        settings=_settings(modes, n_boot, folds, seed, alpha, epsilon),
        notes=notes,
        scores=_response_scores({**gold_by, **judges_by}, ids, gold_scores, judge_scores),
        separation=separation(
            [c.name for c in configs], found["pearson"], found["boot_pearson"], len(ids), alpha
        ),
    )


def _response_scores(by_source: dict, ids: list[str], *rows: ScoreRows) -> dict:
    """{(source, mode): {response_id: MURGAT-S, None when undetermined}} over the responses of
    `ids` each source has a record for."""
    out = {}
    for found in rows:
        for (source, mode), values in found.values.items():
            have = by_source[source]
            out[(source, mode)] = {
                rid: None if np.isnan(value) else float(value)
                for rid, value in zip(ids, values, strict=True)
                if rid in have
            }
    return out
