"""The calibrated MURGAT-SCORE configuration file: build it from a sweep, write, read (the
checks of its schema live in calibration/config/schema.py).

The file (schema in assets/calibrated-config.md, `schema_version` 2; version 1 files are still
read) names, per stage, the judge
that runs it (adapter, model, the parameters that change its answers, the prompt file and its
sha256), the precision mode, and the evidence that chose it. `score --config` runs exactly
that: it refuses a judges file or a prompt that no longer matches. A stage done by `gold`
(human labels) is not exportable: new responses have no human labels.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from annotation.formats import strict_json
from annotation.formats.atomic_file import write_text_atomically
from annotation.formats.json_values import json_safe
from annotation.formats.rows import read_input_text
from annotation.protocol.errors import InputError
from annotation.protocol.ids import Source, configuration_parts, source_kind
from annotation.protocol.records import EvaluationRecord
from annotation.store.event_log import utc_now
from calibration.config.schema import (
    PROMPT_FILES,
    PROMPT_STAGE,
    SCHEMA_VERSION,
    STAGE_KEYS,
    STAGES,
    validate_calibrated_dict,
)
from calibration.judges.judges_file import GOLD, JudgeConfig, parse_configuration
from calibration.judges.prompts import load_prompt
from calibration.sweep.run import ConfigResult, SweepReport


def judge_parameters(judge: JudgeConfig) -> dict:
    """What besides prompt and media changes a judge's answers: the answer parameters of the
    cache key plus the media limits (they change the parts the judge sees)."""
    return {**judge.answer_parameters(), **judge.media_limits()}


@dataclass(frozen=True)
class StageJudge:
    """The judge of one stage (`verifier`, `decomposer` or `entailer`) as calibrated."""

    stage: str
    name: str
    adapter: str
    model: str
    parameters: dict
    prompt_file: str
    prompt_hash: str

    @classmethod
    def from_judge(cls, stage: str, judge: JudgeConfig) -> StageJudge:
        """The stage as `judge` runs it now, with the current prompt file's hash.
        Raises ValueError for an unknown stage or the name 'gold'."""
        if stage not in STAGES:
            raise ValueError(f"unknown stage '{stage}' (expected one of {', '.join(STAGES)})")
        if judge.name == GOLD:
            raise ValueError(f"the {stage} is 'gold' (human labels): not exportable")
        return cls(
            stage,
            judge.name,
            judge.adapter,
            judge.model,
            judge_parameters(judge),
            PROMPT_FILES[stage],
            load_prompt(PROMPT_STAGE[stage]).sha256,
        )

    def mismatches(self, judge: JudgeConfig) -> list[tuple[str, str]]:
        """[(field, message)] where `judge` would not answer as the calibrated judge did
        (adapter, model, each parameter); empty when it matches."""
        out = []
        for key, now in (("adapter", judge.adapter), ("model", judge.model)):
            then = getattr(self, key)
            if now != then:
                out.append((key, f"is '{now}' but the calibrated configuration used '{then}'"))
        now_params = judge_parameters(judge)
        for key in sorted(set(now_params) | set(self.parameters)):
            if _canonical(now_params.get(key)) != _canonical(self.parameters.get(key)):
                out.append(
                    (
                        key,
                        f"is {now_params.get(key)!r} but the calibrated configuration used "
                        f"{self.parameters.get(key)!r}",
                    )
                )
        return out

    def prompt_mismatch(self) -> str | None:
        """Why the prompt the runner would use now differs from the calibrated one, or None."""
        current = load_prompt(PROMPT_STAGE[self.stage]).sha256
        if current == self.prompt_hash:
            return None
        return (
            f"the {PROMPT_STAGE[self.stage]} prompt changed since calibration (sha256 {current[:12]}…, "
            f"calibrated {self.prompt_hash[:12]}…): re-run the sweep and export again"
        )

    def to_dict(self) -> dict:
        return {key: getattr(self, key) for key in STAGE_KEYS}

    @classmethod
    def from_dict(cls, data: dict) -> StageJudge:
        return cls(**{key: data[key] for key in STAGE_KEYS})


@dataclass
class CalibratedConfig:
    """A calibrated MURGAT-SCORE configuration; `to_dict()` is the file's JSON object."""

    schema_version: int
    configuration: str  # "V+D+E", judge names
    precision_mode: str
    verifier: StageJudge
    decomposer: StageJudge
    entailer: StageJudge
    evidence: dict = field(default_factory=dict)
    created_at: str = ""
    tool_version: str = ""

    @property
    def source(self) -> str:
        """The records' source when this configuration scores: `judge:V+D+E`."""
        return str(Source.judge(self.configuration))

    @property
    def stages(self) -> tuple[StageJudge, StageJudge, StageJudge]:
        return self.verifier, self.decomposer, self.entailer

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "configuration": self.configuration,
            "precision_mode": self.precision_mode,
            **{stage.stage: stage.to_dict() for stage in self.stages},
            "evidence": json_safe(self.evidence),
            "created_at": self.created_at,
            "tool_version": self.tool_version,
        }

    @classmethod
    def from_dict(cls, data: dict) -> CalibratedConfig:
        """From a dict already validated by `validate_calibrated_dict` (KeyError otherwise)."""
        return cls(
            data["schema_version"],
            data["configuration"],
            data["precision_mode"],
            *(StageJudge.from_dict(data[stage]) for stage in STAGES),
            evidence=dict(data["evidence"]),
            created_at=data["created_at"],
            tool_version=data["tool_version"],
        )


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def gold_sha256(gold_records: list[EvaluationRecord]) -> str:
    """sha256 of the gold set: canonical JSON (sorted keys, no spaces) of the records sorted by
    response_id (then source) — the same whatever order they were read in."""
    dicts = sorted(
        (r.to_dict() for r in gold_records), key=lambda d: (d["response_id"], d["source"], _canonical(d))
    )
    return hashlib.sha256(_canonical(dicts).encode("utf-8")).hexdigest()


def _rank_key(c: ConfigResult, index: int):
    """The sweep's order for choosing: full-sample r, then sweep order."""
    return (-c.pearson if math.isfinite(c.pearson) else math.inf, index)


def _summary(c: ConfigResult) -> dict:
    return {
        "source": c.source,
        "precision_mode": c.precision_mode,
        "pearson": c.pearson,
        "pearson_ci": list(c.pearson_ci),
        "n": c.n,
        "in_best_set": c.in_best_set,
        "p_best": c.p_best,
    }


def exportable_configuration(source: str, judges: dict[str, JudgeConfig]) -> tuple[str | None, str | None]:
    """(configuration id 'V+D+E', None) when `source` can be exported with `judges`, else
    (None, why): not a `judge:V+D+E` source, an unknown judge, or a stage done by gold."""
    parsed = Source.parse(source) if source_kind(source) != "other" else None
    if parsed is None or parsed.kind != "judge":
        return None, f"'{source}' is not a judge configuration (judge:V+D+E)"
    text = parsed.name
    try:
        configuration = parse_configuration(text, judges)
    except InputError as exc:
        return None, "; ".join(p.message for p in exc.problems)
    gold_stages = [
        stage
        for stage, name in zip(
            STAGES, (configuration.verifier, configuration.decomposer, configuration.entailer), strict=True
        )
        if name == GOLD
    ]
    if gold_stages:
        return None, (
            f"configuration '{text}' uses the gold labels as its {' and '.join(gold_stages)}: "
            "gold is human work that new responses do not have, so it cannot be exported"
        )
    return configuration.id, None


def exportable_sources(sources, judges: dict[str, JudgeConfig]) -> tuple[list[str], dict[str, str]]:
    """(the `sources` exportable with `judges`, in order, once each; {each other source: why not})
    — the configurations an export chooses among (`calibration export`, the Calibrate page): new
    responses can only be scored by a configuration the judges file describes."""
    exportable, left_out = [], {}
    for source in dict.fromkeys(sources):
        why = exportable_configuration(source, judges)[1]
        if why is None:
            exportable.append(source)
        else:
            left_out[source] = why
    return exportable, left_out


def _located_choice(report: SweepReport, choice: ConfigResult | None) -> tuple[ConfigResult, int]:
    """The report's own ConfigResult for `choice` (default: the best) and its index. ValueError
    when there is none or it is not one of the report's configurations."""
    choice = report.best if choice is None else choice
    if choice is None:
        raise ValueError("nothing to export: no configuration has a defined correlation with gold")
    for i, c in enumerate(report.configs):
        if c is choice or (c.source, c.precision_mode) == (choice.source, choice.precision_mode):
            return c, i
    raise ValueError(f"{choice.name} is not a configuration of this sweep")


def _choice_evidence(choice: ConfigResult) -> dict:
    """What the sweep found about the chosen configuration itself."""
    keys = ("pearson", "spearman", "kendall", "n", "n_undetermined", "mae", "system_score")
    return {
        **{key: getattr(choice, key) for key in keys},
        "pearson_ci": list(choice.pearson_ci),
        "spearman_ci": list(choice.spearman_ci),
        "kendall_ci": list(choice.kendall_ci),
        "missing_ids": list(choice.missing_ids),
        "undetermined_ids": list(choice.undetermined_ids),
        "gold_system_score": choice.gold_system_score,
        "in_best_set": choice.in_best_set,
        "p_best": choice.p_best,
        "mcs_p": choice.mcs_p,
        "parity": choice.parity,
    }


def _sweep_evidence(report: SweepReport, choice: ConfigResult, index: int, gold_records) -> dict:
    """What the sweep found around the choice: the best, the runners-up, the set, the selection."""
    ranked = sorted(
        ((c, i) for i, c in enumerate(report.configs) if i != index), key=lambda item: _rank_key(*item)
    )
    mode = choice.precision_mode
    return {
        "best": None if report.best is None or choice is report.best else _summary(report.best),
        "runner_up": _summary(ranked[0][0]) if ranked else None,
        "runner_up_other_judges": next((_summary(c) for c, _ in ranked if c.source != choice.source), None),
        "best_set": [_summary(c) for c in report.configs if c.in_best_set],
        "selection": {
            k: report.selection.get(k)
            for k in (
                "method",
                "expected_r",
                "expected_r_se",
                "pick",
                "in_sample_r",
                "optimism",
                "folds",
                "repeats",
            )
        },
        "annotators": [row for row in report.annotators if row["precision_mode"] == mode],
        "gold": {
            "sha256": gold_sha256(gold_records),
            "n_responses": report.gold.get("n_responses"),
            "source": report.gold.get("source"),
            "n_undetermined": len(report.gold.get("undetermined", {}).get(mode, [])),
            "response_ids": sorted({r.response_id for r in gold_records}),  # chosen on these: gold used once
        },
        "settings": dict(report.settings),
        "n_configurations": len(report.configs),
    }


def build_calibrated_config(
    report: SweepReport,
    choice: ConfigResult | None,
    judges: dict[str, JudgeConfig],
    gold_records: list[EvaluationRecord],
    *,
    tool_version: str | None = None,
    chosen_by: str | None = None,
    decision: dict | None = None,
) -> CalibratedConfig:
    """The calibrated configuration for `choice` (default: the sweep's best) with its evidence,
    numbers taken from the report unchanged (assets/calibrated-config.md lists them).

    `decision` (verdict.Decision.to_dict() with `acknowledged` and, for a choice by hand, its
    `reason`) is recorded as the evidence's `decision`.
    Raises ValueError when there is no choice (no configuration has a defined r), when
    `choice` is not one of the report's configurations, or when it is not exportable (not a
    judge:V+D+E source, a judge missing from `judges`, or a stage done by 'gold').
    """
    choice, index = _located_choice(report, choice)
    configuration_id, why = exportable_configuration(choice.source, judges)
    if configuration_id is None:
        raise ValueError(f"{choice.name} cannot be exported: {why}")
    names = configuration_parts(configuration_id)
    stages = [StageJudge.from_judge(stage, judges[name]) for stage, name in zip(STAGES, names, strict=True)]
    if tool_version is None:
        from annotation import __version__ as tool_version
    created_at = utc_now()
    evidence = {
        "chosen_by": chosen_by or ("best" if choice is report.best else "given"),
        "is_best": choice is report.best,
        **_choice_evidence(choice),
        **_sweep_evidence(report, choice, index, gold_records),
        "decision": decision,
        "date": created_at[:10],
        "tool_version": tool_version,
    }
    return CalibratedConfig(
        SCHEMA_VERSION,
        configuration_id,
        choice.precision_mode,
        *stages,
        evidence=json_safe(evidence),
        created_at=created_at,
        tool_version=tool_version,
    )


def write_calibrated_config(cfg: CalibratedConfig, path: str | Path) -> None:
    """Write `cfg` as indented JSON (NaN written as null). Raises ValueError when `cfg` would
    not read back (the same validation as `read_calibrated_config`), OSError on write."""
    data = cfg.to_dict()
    problems = validate_calibrated_dict(data, str(path))
    if problems:
        raise ValueError("the configuration is not valid: " + "; ".join(str(p) for p in problems))
    write_text_atomically(path, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def read_calibrated_config(path: str | Path) -> CalibratedConfig:
    """Read and fully validate a calibrated-configuration file. Raises InputError with every
    problem located (file, line where found, field such as 'decomposer.prompt_hash'): missing
    file, invalid JSON, an unknown schema version, missing/unknown keys, wrong types or values,
    a 'gold' stage, a configuration that disagrees with its stages."""
    where = str(path)
    text = read_input_text(Path(path))
    try:
        data = strict_json.loads(text)
    except strict_json.StrictJSONError as exc:
        raise InputError(exc.message, path=where, line=exc.line) from None
    problems = validate_calibrated_dict(data, where, text)
    if problems:
        raise InputError(problems)
    return CalibratedConfig.from_dict(data)
