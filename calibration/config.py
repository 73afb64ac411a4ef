"""The calibrated MURGAT-SCORE configuration file: build it from a sweep, write, read, validate.

The file (schema in assets/calibrated-config.md, `schema_version` 1) names, per stage, the judge
that runs it (adapter, model, the parameters that change its answers, the prompt file and its
sha256), the precision mode, and the evidence that chose it. `score --config` runs exactly
that: it refuses a judges file or a prompt that no longer matches. A stage done by `gold`
(human labels) is not exportable: new responses have no human labels.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from annotation.errors import InputError, Problem
from annotation.records import EvaluationRecord
from annotation.rows import read_input_text
from annotation.store import utc_now
from calibration.judges.config import ADAPTERS, GOLD, JudgeConfig, parse_configuration
from calibration.judges.prompts import PROMPT_DIR, load_prompt
from calibration.score import PRECISION_MODES
from calibration.sweep import ConfigResult, SweepReport, _json_safe

SCHEMA_VERSION = 1
STAGES = ("verifier", "decomposer", "entailer")
PROMPT_STAGE = {"verifier": "verifiability", "decomposer": "decompose", "entailer": "entailment"}
_REPO_ROOT = PROMPT_DIR.parents[1]
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_TOP_KEYS = ("schema_version", "configuration", "precision_mode", *STAGES, "evidence", "created_at",
             "tool_version")
_STAGE_KEYS = ("stage", "name", "adapter", "model", "parameters", "prompt_file", "prompt_hash")


def judge_parameters(judge: JudgeConfig) -> dict:
    """What besides prompt and media changes a judge's answers: the answer parameters of the
    cache key plus the media limits (they change the parts the judge sees)."""
    return {**judge.answer_parameters(), **judge.media_limits()}


def _prompt_file_name(stage: str) -> str:
    path = PROMPT_DIR / f"{PROMPT_STAGE[stage]}.md"
    try:
        return path.relative_to(_REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


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
        return cls(stage, judge.name, judge.adapter, judge.model, judge_parameters(judge),
                   _prompt_file_name(stage), load_prompt(PROMPT_STAGE[stage]).sha256)

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
                out.append((key, f"is {now_params.get(key)!r} but the calibrated configuration used "
                                 f"{self.parameters.get(key)!r}"))
        return out

    def prompt_mismatch(self) -> str | None:
        """Why the prompt the runner would use now differs from the calibrated one, or None."""
        current = load_prompt(PROMPT_STAGE[self.stage]).sha256
        if current == self.prompt_hash:
            return None
        return (f"the {PROMPT_STAGE[self.stage]} prompt changed since calibration (sha256 {current[:12]}…, "
                f"calibrated {self.prompt_hash[:12]}…): re-run the sweep and export again")

    def to_dict(self) -> dict:
        return {key: getattr(self, key) for key in _STAGE_KEYS}

    @classmethod
    def from_dict(cls, data: dict) -> StageJudge:
        return cls(**{key: data[key] for key in _STAGE_KEYS})


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
        return f"judge:{self.configuration}"

    @property
    def stages(self) -> tuple[StageJudge, StageJudge, StageJudge]:
        return self.verifier, self.decomposer, self.entailer

    def to_dict(self) -> dict:
        return {"schema_version": self.schema_version, "configuration": self.configuration,
                "precision_mode": self.precision_mode,
                **{stage.stage: stage.to_dict() for stage in self.stages},
                "evidence": _json_safe(self.evidence), "created_at": self.created_at,
                "tool_version": self.tool_version}

    @classmethod
    def from_dict(cls, data: dict) -> CalibratedConfig:
        """From a dict already validated by `validate_calibrated_dict` (KeyError otherwise)."""
        return cls(data["schema_version"], data["configuration"], data["precision_mode"],
                   *(StageJudge.from_dict(data[stage]) for stage in STAGES),
                   evidence=dict(data["evidence"]), created_at=data["created_at"],
                   tool_version=data["tool_version"])


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def gold_sha256(gold_records: list[EvaluationRecord]) -> str:
    """sha256 of the gold set: canonical JSON (sorted keys, no spaces) of the records sorted by
    response_id (then source) — the same whatever order they were read in."""
    dicts = sorted((r.to_dict() for r in gold_records), key=lambda d: (d["response_id"], d["source"],
                                                                        _canonical(d)))
    return hashlib.sha256(_canonical(dicts).encode("utf-8")).hexdigest()


def _rank_key(c: ConfigResult, index: int):
    """The sweep's order for choosing: held-out r, then in-sample r, then sweep order."""
    h, p = c.heldout_pearson, c.pearson
    return (-h if math.isfinite(h) else math.inf, -p if math.isfinite(p) else math.inf, index)


def _summary(c: ConfigResult) -> dict:
    return {"source": c.source, "precision_mode": c.precision_mode, "pearson": c.pearson,
            "heldout_pearson": c.heldout_pearson, "n": c.n, "p_vs_best": c.p_vs_best,
            "p_vs_best_test": c.p_vs_best_test}


def exportable_configuration(source: str, judges: dict[str, JudgeConfig]) -> tuple[str | None, str | None]:
    """(configuration id 'V+D+E', None) when `source` can be exported with `judges`, else
    (None, why): not a `judge:V+D+E` source, an unknown judge, or a stage done by gold."""
    if not source.startswith("judge:"):
        return None, f"'{source}' is not a judge configuration (judge:V+D+E)"
    text = source.removeprefix("judge:")
    try:
        configuration = parse_configuration(text, judges)
    except InputError as exc:
        return None, "; ".join(p.message for p in exc.problems)
    gold_stages = [stage for stage, name in zip(STAGES, (configuration.verifier, configuration.decomposer,
                                                         configuration.entailer), strict=True) if name == GOLD]
    if gold_stages:
        return None, (f"configuration '{text}' uses the gold labels as its {' and '.join(gold_stages)}: "
                      "gold is human work that new responses do not have, so it cannot be exported")
    return configuration.id, None


def build_calibrated_config(report: SweepReport, choice: ConfigResult | None, judges: dict[str, JudgeConfig],
                            gold_records: list[EvaluationRecord], *, tool_version: str | None = None,
                            chosen_by: str | None = None) -> CalibratedConfig:
    """The calibrated configuration for `choice` (default: the sweep's best) with its evidence,
    numbers taken from the report unchanged (assets/calibrated-config.md lists them).

    Raises ValueError when there is no choice (no configuration has a defined r), when
    `choice` is not one of the report's configurations, or when it is not exportable (not a
    judge:V+D+E source, a judge missing from `judges`, or a stage done by 'gold').
    """
    choice = report.best if choice is None else choice
    if choice is None:
        raise ValueError("nothing to export: no configuration has a defined correlation with gold")
    indices = [i for i, c in enumerate(report.configs)
               if c is choice or (c.source, c.precision_mode) == (choice.source, choice.precision_mode)]
    if not indices:
        raise ValueError(f"{choice.name} is not a configuration of this sweep")
    choice = report.configs[indices[0]]
    configuration_id, why = exportable_configuration(choice.source, judges)
    if configuration_id is None:
        raise ValueError(f"{choice.name} cannot be exported: {why}")
    names = configuration_id.split("+")
    stages = [StageJudge.from_judge(stage, judges[name]) for stage, name in zip(STAGES, names, strict=True)]
    ranked = sorted(((c, i) for i, c in enumerate(report.configs) if i != indices[0]),
                    key=lambda item: _rank_key(*item))
    if tool_version is None:
        from annotation import __version__ as tool_version
    created_at = utc_now()
    ceiling = report.human_ceiling.get(choice.precision_mode)
    evidence = {
        "chosen_by": chosen_by or ("heldout" if choice is report.best else "given"),
        "is_best": choice is report.best,
        "pearson": choice.pearson, "pearson_ci": list(choice.pearson_ci),
        "spearman": choice.spearman, "spearman_ci": list(choice.spearman_ci),
        "kendall": choice.kendall, "kendall_ci": list(choice.kendall_ci),
        "heldout_pearson": choice.heldout_pearson, "n": choice.n, "missing_ids": list(choice.missing_ids),
        "mae": choice.mae, "system_score": choice.system_score, "gold_system_score": choice.gold_system_score,
        "p_vs_best": choice.p_vs_best, "p_vs_best_test": choice.p_vs_best_test,
        "human_ceiling": ceiling,
        "best": None if report.best is None or choice is report.best else _summary(report.best),
        "runner_up": _summary(ranked[0][0]) if ranked else None,
        "runner_up_other_judges": next((_summary(c) for c, _ in ranked if c.source != choice.source), None),
        "indistinguishable_from_best": [c.name for c in report.configs
                                        if c.indistinguishable_from_best and c is not choice],
        "selection": {k: report.selection.get(k) for k in ("in_sample_r", "heldout_r", "optimism")},
        "gold": {"sha256": gold_sha256(gold_records), "n_responses": report.gold.get("n_responses"),
                 "source": report.gold.get("source")},
        "settings": {k: report.settings.get(k) for k in ("n_boot", "folds", "folds_used", "seed", "alpha",
                                                         "ci_level")},
        "n_configurations": len(report.configs),
        "date": created_at[:10],
        "tool_version": tool_version,
    }
    return CalibratedConfig(SCHEMA_VERSION, configuration_id, choice.precision_mode, *stages,
                            evidence=_json_safe(evidence), created_at=created_at, tool_version=tool_version)


def write_calibrated_config(cfg: CalibratedConfig, path: str | Path) -> None:
    """Write `cfg` as indented JSON (NaN written as null). Raises ValueError when `cfg` would
    not read back (the same validation as `read_calibrated_config`), OSError on write."""
    data = cfg.to_dict()
    problems = validate_calibrated_dict(data, str(path))
    if problems:
        raise ValueError("the configuration is not valid: " + "; ".join(str(p) for p in problems))
    Path(path).write_text(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n",
                          encoding="utf-8")


def read_calibrated_config(path: str | Path) -> CalibratedConfig:
    """Read and fully validate a calibrated-configuration file. Raises InputError with every
    problem located (file, line where found, field such as 'decomposer.prompt_hash'): missing
    file, invalid JSON, an unknown schema version, missing/unknown keys, wrong types or values,
    a 'gold' stage, a configuration that disagrees with its stages."""
    where = str(path)
    text = read_input_text(Path(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", path=where, line=exc.lineno) from None
    problems = validate_calibrated_dict(data, where, text)
    if problems:
        raise InputError(problems)
    return CalibratedConfig.from_dict(data)


# -- validation ------------------------------------------------------------------------------------

def _key_line(text: str | None, dotted: str) -> int | None:
    """Best-effort line of a dotted key in indented JSON: each part searched after the last."""
    if not text:
        return None
    position = 0
    for part in dotted.split("."):
        found = text.find(f'"{part}"', position)
        if found < 0:
            return None
        position = found + 1
    return text.count("\n", 0, position) + 1


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_stage(stage: str, value, add) -> StageJudge | None:
    if not isinstance(value, dict):
        add(stage, "must be an object with " + ", ".join(_STAGE_KEYS))
        return None
    ok = True
    for key in _STAGE_KEYS:
        if key not in value:
            add(f"{stage}.{key}", "missing (required)")
            ok = False
    for key in value:
        if key not in _STAGE_KEYS:
            add(f"{stage}.{key}", f"unknown key (known: {', '.join(_STAGE_KEYS)})")
    for key in ("stage", "name", "adapter", "model", "prompt_file", "prompt_hash"):
        if key in value and not isinstance(value[key], str):
            add(f"{stage}.{key}", f"must be a string, got {value[key]!r}")
            ok = False
    if not ok:
        return None
    if value["stage"] != stage:
        add(f"{stage}.stage", f"must be '{stage}', got '{value['stage']}'")
    if value["name"] == GOLD:
        add(f"{stage}.name", "is 'gold' (human labels): a calibrated configuration needs a judge for "
                             "every stage, since new responses have no human labels")
    elif not _NAME_RE.match(value["name"]):
        add(f"{stage}.name", f"'{value['name']}' is not a judge name (letters, digits, '.', '_', '-')")
    if value["adapter"] not in ADAPTERS:
        add(f"{stage}.adapter", f"must be one of {', '.join(ADAPTERS)}, got '{value['adapter']}'")
    if not value["model"].strip():
        add(f"{stage}.model", "must not be empty")
    if not isinstance(value["parameters"], dict):
        add(f"{stage}.parameters", f"must be an object, got {value['parameters']!r}")
    if not _is_hash(value["prompt_hash"]):
        add(f"{stage}.prompt_hash", "must be a sha256 (64 lowercase hex digits)")
    return StageJudge.from_dict(value)


def _is_hash(value) -> bool:
    return isinstance(value, str) and bool(_HEX64.match(value))


_RUNNER_UP_KEYS = {"source", "precision_mode", "pearson", "p_vs_best"}
_EVIDENCE_CHECKS = {  # the required evidence: key → (what it must be, check)
    **{key: ("a number or null", lambda v: v is None or _is_number(v))
       for key in ("pearson", "heldout_pearson", "human_ceiling")},
    "pearson_ci": ("[low, high] (numbers or null)",
                   lambda v: isinstance(v, list) and len(v) == 2 and all(x is None or _is_number(x) for x in v)),
    "n": ("a whole number ≥ 0", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
    "runner_up": ("null or an object with " + ", ".join(sorted(_RUNNER_UP_KEYS)),
                  lambda v: v is None or isinstance(v, dict) and _RUNNER_UP_KEYS <= v.keys()),
    "gold": ("an object whose sha256 is the gold set's (64 lowercase hex digits)",
             lambda v: isinstance(v, dict) and _is_hash(v.get("sha256"))),
    "date": ("a string", lambda v: isinstance(v, str)),
    "tool_version": ("a string", lambda v: isinstance(v, str)),
}


def _check_evidence(value, add) -> None:
    if not isinstance(value, dict):
        add("evidence", "must be an object")
        return
    for key, (what, ok) in _EVIDENCE_CHECKS.items():
        if key not in value:
            add(f"evidence.{key}", "missing (required)")
        elif not ok(value[key]):
            add(f"evidence.{key}", f"must be {what}, got {value[key]!r}")


def validate_calibrated_dict(data, path: str = "<config>", text: str | None = None) -> list[Problem]:
    """Every problem of a calibrated-configuration object (empty list when valid); `text`, the
    file's JSON, lets problems carry line numbers."""
    problems: list[Problem] = []

    def add(field_name: str, message: str) -> None:
        problems.append(Problem(path, _key_line(text, field_name), field_name, message))

    if not isinstance(data, dict):
        return [Problem(path, None, None, "must be a JSON object (a calibrated configuration)")]
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        add("schema_version", f"missing or not a whole number (this tool reads version {SCHEMA_VERSION})")
        return problems
    if version != SCHEMA_VERSION:
        newer = "a newer version of this tool" if version > SCHEMA_VERSION else "an unknown version"
        add("schema_version", f"is {version}: written by {newer}; this tool reads version {SCHEMA_VERSION}")
        return problems
    for key in _TOP_KEYS:
        if key not in data:
            add(key, "missing (required)")
    for key in data:
        if key not in _TOP_KEYS:
            add(key, f"unknown key (known: {', '.join(_TOP_KEYS)})")
    if "precision_mode" in data and data["precision_mode"] not in PRECISION_MODES:
        add("precision_mode", f"must be one of {', '.join(PRECISION_MODES)}, got {data['precision_mode']!r}")
    stages = {stage: _check_stage(stage, data[stage], add) for stage in STAGES if stage in data}
    configuration = data.get("configuration")
    if "configuration" in data and not isinstance(configuration, str):
        add("configuration", f"must be a string 'V+D+E', got {configuration!r}")
    elif isinstance(configuration, str) and all(stages.get(s) is not None for s in STAGES):
        expected = "+".join(stages[s].name for s in STAGES)
        if configuration != expected:
            add("configuration", f"is '{configuration}' but its stages say '{expected}'")
    if "evidence" in data:
        _check_evidence(data["evidence"], add)
    for key in ("created_at", "tool_version"):
        if key in data and not isinstance(data[key], str):
            add(key, f"must be a string, got {data[key]!r}")
    return problems


# cost of a configuration lives in its own module; kept importable from here
from calibration.costs import ConfigurationCost, cheapest_choice, configuration_costs  # noqa: E402,F401
