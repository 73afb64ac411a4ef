"""Human parity: could a judge configuration stand in for an annotator? (It replaces the "human
ceiling", r(annotator, mean of the others), which was compared with r(judge, gold): two different
targets, so it bounded nothing.)

For each annotator i, the target gold₋ᵢ is built from the OTHER annotators only: per response, the
mean MURGAT-S of the other annotators who finished it. On the responses i finished where gold₋ᵢ
and the judge are determined, the paired advantage is d_i = r(judge, gold₋ᵢ) − r(annotator i,
gold₋ᵢ): the judge and the annotator are measured against the same target on the same responses.
Per configuration:
- `advantage`: the mean of d_i over annotators, with a 95 % CI from the jackknife over responses
  (each response left out of every d_i at once; t on m − 1 df, m the responses used);
- `winning_rate`: the alternative-annotator test (Calderon, Reichart & Dror 2025): the share of
  annotators for whom H0: d_i ≤ −ε is rejected — one-sided, jackknife SE of d_i, t on n_i − 1 df,
  Benjamini–Yekutieli-adjusted over the annotators at level α. The judge may replace the
  annotators when the winning rate is ≥ .5 at the stated ε.

The margin ε is in r, not on the test's own scale: Calderon et al. compare per-instance alignment
scores (an annotator's agreement with the others on each instance) and put ε on that win rate; a
response here has no per-instance alignment, only one MURGAT-S per person, so the comparison is of
correlations over responses and ε is a difference in r (0.1: a judge may trail an annotator by a
tenth of a correlation). Their test asks 50–100 instances; below PARITY_MINIMUM responses the
jackknife SE of a difference of correlations is itself unstable, so the block carries a `warning`.

Why the others' mean score and not a gold record derived from the others' labels by the project's
gold rule: with the rule (majority: more than half agree) and no adjudication, the others' labels
rarely settle a response — on the demo, 22 to 24 of the 24 responses of every gold₋ᵢ hold an
unresolved verifiability or fact list (two annotators word a fact differently, or split 1–1), even
with the adjudicator's rulings added — and an unresolved fact list scores as "no facts", 0; r(alice,
that gold) came out .09 for the most careful annotator. The mean of the others' scores is defined
for any number of others and needs no adjudication (which, made with i's labels in view, would not
be independent of i anyway).

An annotator counts on the responses they finished (`is_finished`: every question answered, "can't tell" too), and
only finished records enter anyone's gold₋ᵢ, so partial work never shrinks or shifts what the
others count on. With two annotators each one's gold₋ᵢ is the other's score (the comparison still
holds); with fewer there is no one else, and the reason says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from annotation.protocol.derivation import derive_entailment
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.ids import annotator_name
from annotation.protocol.questions import entailment_questions
from annotation.protocol.records import EvaluationRecord
from annotation.store.record_form import NOT_CITED, NOT_VERIFIABLE, fact_code, fact_of_code
from calibration.stats.comparison import benjamini_yekutieli
from calibration.stats.correlation import correlation_undefined_reason, pearson_rows
from calibration.stats.distributions import t_quantile, t_survival
from calibration.stats.jackknife import jackknife_se, leave_one_out_pearson
from calibration.sweep.scores import score_rows

DEFAULT_EPSILON = 0.1
PARITY_MINIMUM = 30
PARITY_WARNING = (
    "warning: human parity rests on {n} responses, fewer than 30: its test is unreliable at this size "
    "(Calderon et al.'s alternative-annotator test asks 50–100)"
)


# fact code (annotation/store/record_form.py) → finished: a few hundred codes cover a campaign, so
# each is derived once, not every fact of every annotator's record
_finished_codes: dict[str, bool] = {}


def _code_finished(code: str) -> bool:
    """Whether a fact of this code has every entailment value given or derived."""
    if "|" not in code:
        return False  # no entailment: stage 3 not done
    derived = derive_entailment(*fact_of_code(code))
    return derived.all is not None and None not in derived.alone and None not in derived.without


def _open_only_where_told(fact, sentence) -> bool:
    """Whether each question the person was asked about the fact that holds no value was answered
    "can't tell" (PROTOCOL §2: null, its reason in the fact's provenance): a question answered so is
    answered, and leaves its value undetermined for the scorer (§3), not the fact unfinished."""
    given, notes = fact.entailment, fact.provenance or {}
    if given is None:
        return False
    for task, kind, j in entailment_questions(fact, sentence):
        values = getattr(given, kind)
        value = values if j is None else (values[j] if j < len(values) else None)
        if value is None and not str(notes.get(task.value_name, "")).startswith("can't tell"):
            return False
    return True


def is_finished(record: EvaluationRecord) -> bool:
    """Every question of the protocol answered (what PROTOCOL §2 derives counts as answered, and so
    does "can't tell"): each
    sentence's verifiability, a fact list for each verifiable sentence with a valid citation, and
    `all`/`alone`/`without` of each fact with a valid citation. Raises ValueError on a malformed fact
    (as the scorer does: `annotation.store.record_form.fact_code`)."""
    return finished_form(record) is not None


def finished_form(record: EvaluationRecord) -> list | None:
    """The record's score form (`annotation.store.record_form.record_form`) when it is finished
    (`is_finished`), else None: an annotator's record walked once, each fact's code made once for
    both. ValueError as `is_finished`."""
    form: list = []
    for sentence in record.sentences:
        verifiable = sentence.verifiable
        if verifiable is None:
            return None
        if not (verifiable and sentence.has_valid_citation):
            form.append(NOT_CITED if verifiable is True else NOT_VERIFIABLE)
            continue
        if not sentence.facts:
            return None
        codes = []
        for fact in sentence.facts:
            code = fact_code(fact, sentence)
            if code is None:
                continue  # nothing is asked about a fact with no valid citation (PROTOCOL §2)
            finished = _finished_codes.get(code)
            if finished is None:
                finished = _finished_codes[code] = _code_finished(code)
            if not finished and not _open_only_where_told(fact, sentence):
                return None
            codes.append(code)
        form.append(codes if verifiable is True else NOT_VERIFIABLE)
    return form


@dataclass
class ParityTable:
    """One precision mode: `names` (human:* sources with finished work), `annotator` and `gold_without`
    (a × n): each annotator's MURGAT-S and their gold₋ᵢ (the others' mean) over the sweep's
    responses (NaN: not finished, no other annotator, or undetermined); `reason` when there is no
    parity."""

    names: list[str]
    annotator: np.ndarray
    gold_without: np.ndarray
    reason: str | None = None


def finished_forms(humans: list[EvaluationRecord]) -> list[tuple[EvaluationRecord, list]]:
    """(record, its score form) of the `human:*` records that are finished (`finished_form`).
    Raises InputError naming the source and response of a record with a malformed fact."""
    out = []
    for record in humans:
        try:
            if annotator_name(record.source) is not None:
                form = finished_form(record)
                if form is not None:
                    out.append((record, form))
        except ValueError as exc:
            raise InputError(
                Problem(f"<{record.source}>", None, "sentences", f"response '{record.response_id}': {exc}")
            ) from None
    return out


def _others_mean(scores: np.ndarray) -> np.ndarray:
    """(a × n): row i is the mean of the other rows' finite values per column (NaN where none)."""
    finite = np.isfinite(scores)
    values = np.where(finite, scores, 0.0)
    total, count = values.sum(axis=0) - values, finite.sum(axis=0) - finite
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def parity_tables(humans: list[EvaluationRecord], ids: list[str], modes) -> dict[str, ParityTable]:
    """{mode: ParityTable} from the annotators' records (unfinished ones ignored). Raises InputError
    for a record the scorer or `is_finished` rejects."""
    by_name: dict[str, dict[str, EvaluationRecord]] = {}
    forms: dict[tuple[str, str], list] = {}
    for record, form in finished_forms(humans):
        by_name.setdefault(record.source, {})[record.response_id] = record
        forms[(record.source, record.response_id)] = form
    names = sorted(by_name)
    own = score_rows(by_name, ids, modes, forms).values
    reason = None
    if len(names) < 2:
        reason = (
            f"needs two annotators with finished work ({len(names)} found): "
            "with fewer, there is no one else to compare the annotator with"
        )
    tables = {}
    for mode in modes:
        scores = np.array([own[(name, mode)] for name in names]) if names else np.empty((0, len(ids)))
        tables[mode] = ParityTable(names, scores, _others_mean(scores), reason)
    return tables


def annotator_rows(tables: dict[str, ParityTable]) -> list[dict]:
    """Each annotator against gold₋ᵢ (the others' mean score), per mode: r, n (responses with both
    determined), n_finished (responses finished) and why r is undefined."""
    rows = []
    for mode, table in tables.items():
        r = pearson_rows(table.annotator, table.gold_without) if table.names else []
        for i, name in enumerate(table.names):
            a, g = table.annotator[i], table.gold_without[i]
            rows.append(
                {
                    "source": name,
                    "precision_mode": mode,
                    "r_vs_gold_without": float(r[i]),
                    "n": int((np.isfinite(a) & np.isfinite(g)).sum()),
                    "n_finished": int(np.isfinite(a).sum()),
                    "reason": table.reason or correlation_undefined_reason(a, g),
                }
            )
    return rows


def _one_sided_p(d: np.ndarray, se: np.ndarray, n: np.ndarray, epsilon: float) -> np.ndarray:
    """p of H0: d ≤ −ε per annotator (t on n − 1 df); a zero SE decides by the sign alone."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t_survival((d + epsilon) / se, np.maximum(n - 1, 1))
    p = np.where(se == 0, np.where(d + epsilon > 0, 0.0, 1.0), p)
    return np.where(np.isfinite(d) & np.isfinite(se), p, np.nan)


def _mean_advantage_ci(d, loo, used, level: float) -> tuple[float, float, float]:
    """(mean d, CI low, CI high): jackknife over the responses any annotator's d uses."""
    defined = np.isfinite(d)
    if not defined.any():
        return math.nan, math.nan, math.nan
    mean = float(d[defined].mean())
    without_j = np.where(used[defined], loo[defined], d[defined][:, None]).mean(axis=0)
    union = used[defined].any(axis=0)
    se = jackknife_se(np.array([mean]), without_j[None, :], union[None, :])[0]
    half = t_quantile(0.5 + level / 2, max(int(union.sum()) - 1, 1)) * se
    return mean, mean - half, mean + half


def annotators_tested(parity: dict) -> int:
    """How many annotators a parity block's winning rate is a share of: those whose advantage could
    be tested (one who finished no response the judge and the others scored has none)."""
    return sum(math.isfinite(a["p_adjusted"]) for a in parity["annotators"])


def config_parity(
    judge: np.ndarray, table: ParityTable, epsilon: float, alpha: float, level: float = 0.95
) -> dict:
    """The parity block of one configuration (module doc): `judge` its MURGAT-S over the sweep's
    responses in the table's mode. Undefined parts are NaN, with `reason` when there is no parity."""
    if table.reason is not None:
        return {
            "advantage": math.nan,
            "advantage_ci": [math.nan, math.nan],
            "winning_rate": math.nan,
            "epsilon": epsilon,
            "annotators": [],
            "reason": table.reason,
        }
    J = np.broadcast_to(judge, table.annotator.shape)
    used = np.isfinite(J) & np.isfinite(table.annotator) & np.isfinite(table.gold_without)
    judge_rows, annotator_rows_ = np.where(used, J, np.nan), np.where(used, table.annotator, np.nan)
    r_judge = pearson_rows(judge_rows, table.gold_without)
    r_annotator = pearson_rows(annotator_rows_, table.gold_without)
    d = r_judge - r_annotator
    loo = leave_one_out_pearson(judge_rows, table.gold_without) - leave_one_out_pearson(
        annotator_rows_, table.gold_without
    )
    n = used.sum(axis=1)
    p = _one_sided_p(d, jackknife_se(d, loo, used), n, epsilon)
    adjusted = benjamini_yekutieli(p)
    wins = adjusted < alpha
    tested = np.isfinite(adjusted)
    mean, low, high = _mean_advantage_ci(d, loo, used, level)
    return {
        "advantage": mean,
        "advantage_ci": [low, high],
        "winning_rate": float(wins[tested].mean()) if tested.any() else math.nan,
        "epsilon": epsilon,
        "annotators": [
            {
                "source": name,
                "advantage": float(d[i]),
                "r_judge": float(r_judge[i]),
                "r_annotator": float(r_annotator[i]),
                "n": int(n[i]),
                "p": float(p[i]),
                "p_adjusted": float(adjusted[i]),
                "wins": bool(wins[i]),
            }
            for i, name in enumerate(table.names)
        ],
        "reason": None if tested.any() else "no annotator's advantage is defined",
        "warning": None
        if used.any(axis=0).sum() >= PARITY_MINIMUM
        else PARITY_WARNING.format(n=int(used.any(axis=0).sum())),
    }
