"""The schema of the calibrated-configuration file (assets/calibrated-config.md): every problem
of a candidate object, each with its field and, given the file's text, its line. Pure checks:
calibration.config.calibrated builds, writes and reads the file."""

from __future__ import annotations

import re

from annotation.protocol.errors import Problem
from annotation.protocol.ids import configuration_name
from calibration.judges.judges_file import ADAPTERS, GOLD
from calibration.scoring.murgat_s import PRECISION_MODES

SCHEMA_VERSION = 2  # written; READABLE_VERSIONS are read (version 1's evidence had other keys)
READABLE_VERSIONS = (1, 2)
STAGES = ("verifier", "decomposer", "entailer")
STAGE_KEYS = ("stage", "name", "adapter", "model", "parameters", "prompt_file", "prompt_hash")
# Each stage's prompt template (calibration/judges/prompts.py's name) and its file, relative to the
# repository: a stage always runs its own template, so a file naming another is not this tool's.
PROMPT_STAGE = {"verifier": "verifiability", "decomposer": "decompose", "entailer": "entailment"}
PROMPT_FILES = {stage: f"assets/prompts/{name}.md" for stage, name in PROMPT_STAGE.items()}
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_TOP_KEYS = (
    "schema_version",
    "configuration",
    "precision_mode",
    *STAGES,
    "evidence",
    "created_at",
    "tool_version",
)


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


def _check_stage(stage: str, value, add) -> str | None:
    """The stage judge's name when its keys and types are right (its values may still be wrong)."""
    if not isinstance(value, dict):
        add(stage, "must be an object with " + ", ".join(STAGE_KEYS))
        return None
    ok = True
    for key in STAGE_KEYS:
        if key not in value:
            add(f"{stage}.{key}", "missing (required)")
            ok = False
    for key in value:
        if key not in STAGE_KEYS:
            add(f"{stage}.{key}", f"unknown key (known: {', '.join(STAGE_KEYS)})")
    for key in ("stage", "name", "adapter", "model", "prompt_file", "prompt_hash"):
        if key in value and not isinstance(value[key], str):
            add(f"{stage}.{key}", f"must be a string, got {value[key]!r}")
            ok = False
    if not ok:
        return None
    if value["stage"] != stage:
        add(f"{stage}.stage", f"must be '{stage}', got '{value['stage']}'")
    if value["name"] == GOLD:
        add(
            f"{stage}.name",
            "is 'gold' (human labels): a calibrated configuration needs a judge for "
            "every stage, since new responses have no human labels",
        )
    elif not _NAME_RE.match(value["name"]):
        add(f"{stage}.name", f"'{value['name']}' is not a judge name (letters, digits, '.', '_', '-')")
    if value["adapter"] not in ADAPTERS:
        add(f"{stage}.adapter", f"must be one of {', '.join(ADAPTERS)}, got '{value['adapter']}'")
    if not value["model"].strip():
        add(f"{stage}.model", "must not be empty")
    if not isinstance(value["parameters"], dict):
        add(f"{stage}.parameters", f"must be an object, got {value['parameters']!r}")
    if value["prompt_file"] != PROMPT_FILES[stage]:
        add(
            f"{stage}.prompt_file",
            f"must be '{PROMPT_FILES[stage]}' (the {stage}'s prompt template, whose sha256 is "
            f"prompt_hash), got '{value['prompt_file']}'",
        )
    if not _is_hash(value["prompt_hash"]):
        add(f"{stage}.prompt_hash", "must be a sha256 (64 lowercase hex digits)")
    return value["name"]


def _is_hash(value) -> bool:
    return isinstance(value, str) and bool(_HEX64.match(value))


def _numbers_or_null(count: int):
    return lambda v: isinstance(v, list) and len(v) == count and all(x is None or _is_number(x) for x in v)


def _summary_check(keys: set[str]):
    return (
        "null or an object with " + ", ".join(sorted(keys)),
        lambda v: v is None or isinstance(v, dict) and keys <= v.keys(),
    )


_NUMBER = ("a number or null", lambda v: v is None or _is_number(v))
_COMMON_EVIDENCE = {
    "pearson": _NUMBER,
    "pearson_ci": ("[low, high] (numbers or null)", _numbers_or_null(2)),
    "n": ("a whole number ≥ 0", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
    "gold": (
        "an object whose sha256 is the gold set's (64 lowercase hex digits)",
        lambda v: isinstance(v, dict) and _is_hash(v.get("sha256")),
    ),
    "date": ("a string", lambda v: isinstance(v, str)),
    "tool_version": ("a string", lambda v: isinstance(v, str)),
}
_EVIDENCE_CHECKS = {  # per schema version, the required evidence: key → (what it must be, check)
    1: {
        **_COMMON_EVIDENCE,
        "heldout_pearson": _NUMBER,
        "human_ceiling": _NUMBER,
        "runner_up": _summary_check({"source", "precision_mode", "pearson", "p_vs_best"}),
    },
    2: {
        **_COMMON_EVIDENCE,
        "runner_up": _summary_check({"source", "precision_mode", "pearson", "in_best_set"}),
        "best_set": (
            "a list of objects with source and precision_mode",
            lambda v: (
                isinstance(v, list)
                and all(isinstance(m, dict) and {"source", "precision_mode"} <= m.keys() for m in v)
            ),
        ),
        "selection": (
            "an object with method, expected_r and optimism",
            lambda v: isinstance(v, dict) and {"method", "expected_r", "optimism"} <= v.keys(),
        ),
        "parity": (
            "an object with advantage, advantage_ci, winning_rate and annotators",
            lambda v: (
                isinstance(v, dict)
                and {"advantage", "advantage_ci", "winning_rate", "annotators"} <= v.keys()
            ),
        ),
    },
}


def _check_evidence(value, version: int, add) -> None:
    if not isinstance(value, dict):
        add("evidence", "must be an object")
        return
    for key, (what, ok) in _EVIDENCE_CHECKS[version].items():
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
        add("schema_version", f"missing or not a whole number (this tool writes version {SCHEMA_VERSION})")
        return problems
    if version not in READABLE_VERSIONS:
        newer = "a newer version of this tool" if version > SCHEMA_VERSION else "an unknown version"
        readable = " and ".join(map(str, READABLE_VERSIONS))
        add("schema_version", f"is {version}: written by {newer}; this tool reads versions {readable}")
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
        expected = configuration_name(*(stages[s] for s in STAGES))
        if configuration != expected:
            add("configuration", f"is '{configuration}' but its stages say '{expected}'")
    if "evidence" in data:
        _check_evidence(data["evidence"], version, add)
    for key in ("created_at", "tool_version"):
        if key in data and not isinstance(data[key], str):
            add(key, f"must be a string, got {data[key]!r}")
    return problems
