"""The judges file (TOML, read with the standard library) and judge configurations `V+D+E`.

A judge is one model behind one adapter with its limits and prices:

    [judges.qwen-omni]
    adapter = "openai"
    model = "Qwen/Qwen3-Omni-30B-A3B-Instruct"
    base_urls = ["http://127.0.0.1:8000/v1"]   # used round-robin
    api_key_env = "VLLM_API_KEY"               # the variable's name, never the key
    max_concurrency = 16

The API key itself is read from the environment only when a call is made
(`api_key`); it is never kept on the config, printed, or stored.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from annotation.formats.rows import read_input_text
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.ids import Source, configuration_name, configuration_parts

ADAPTERS = ("openai", "gemini")
GOLD = "gold"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class JudgeConfig:
    """One configured judge. Only `name`, `adapter` and `model` are required in the file."""

    name: str
    adapter: str
    model: str
    base_urls: tuple[str, ...] = ()
    api_key_env: str | None = None
    max_concurrency: int = 4
    temperature: float = 0.0
    max_tokens: int | None = None
    price_in_per_1k: float = 0.0
    price_out_per_1k: float = 0.0
    # limits on the media parts the judge sees (cut from the original media)
    max_height: int | None = None
    fps: float | None = None
    max_clip_s: float | None = None
    timeout_s: float = 120.0
    max_retries: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    # "data": base64 data URLs; "file": file:// URLs (vLLM --allowed-local-media-path)
    media_transport: str = "data"
    # vLLM takes {"type": "audio_url"}; OpenAI's own API takes {"type": "input_audio"}
    audio_part: str = "audio_url"
    # send the answer's JSON schema as response_format (turn off for endpoints that reject it)
    response_format: bool = True
    extra_body: dict = field(default_factory=dict)
    # where the judge was written, for messages: its judges file, and the line of each key it
    # set ("" → its [judges.NAME] header); not part of what a judge is
    file: str = field(default="", compare=False, repr=False)
    lines: dict = field(default_factory=dict, compare=False, repr=False)

    def cost(self, tokens_in: int | None, tokens_out: int | None) -> float:
        """Price of a call from its token counts (unknown counts cost nothing)."""
        return ((tokens_in or 0) * self.price_in_per_1k + (tokens_out or 0) * self.price_out_per_1k) / 1000

    def answer_parameters(self) -> dict:
        """What changes a judge's answer besides the prompt and media: part of the cache key.

        Endpoints, keys, timeouts and transport are left out: they do not change the answer.
        """
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "response_format": self.response_format,
            "extra_body": self.extra_body,
            "audio_part": self.audio_part if self.adapter == "openai" else None,
        }

    def media_limits(self) -> dict:
        return {"max_height": self.max_height, "fps": self.fps, "max_clip_s": self.max_clip_s}

    def api_key(self) -> str | None:
        """The key from the environment variable the file names; None when it names none.

        Raises InputError (field 'api_key_env') when the variable is not set; the message
        names the variable, never a value.
        """
        if not self.api_key_env:
            return None
        value = os.environ.get(self.api_key_env)
        if not value:
            raise self.problem(
                "api_key_env", f"judge '{self.name}': environment variable {self.api_key_env} is not set"
            )
        return value

    def problem(self, key: str, message: str) -> InputError:
        """An InputError about this judge's `key`, located in its judges file: the file, the key's
        line (else the judge's header line, when known) and the field `judges.NAME.key`."""
        return InputError(
            message,
            path=self.file,
            line=self.lines.get(key, self.lines.get("")),
            field=f"judges.{self.name}.{key}",
        )


# key → (accepted Python types, description for messages, check(value) -> problem or None)
def _positive_int(v):
    return None if v >= 1 else "must be at least 1"


def _non_negative(v):
    return None if v >= 0 and math.isfinite(v) else "must be a finite number ≥ 0"


def _positive(v):
    return None if v > 0 and math.isfinite(v) else "must be a finite number > 0"


def _one_of(*choices):
    return lambda v: None if v in choices else f"must be one of {', '.join(choices)}"


def _url_list(v):
    if not v or not all(isinstance(u, str) and u.startswith(("http://", "https://")) for u in v):
        return "must be a non-empty list of http(s) URLs"
    return None


_FIELDS: dict[str, tuple[tuple[type, ...], str, object]] = {
    "adapter": ((str,), "a string", _one_of(*ADAPTERS)),
    "model": ((str,), "a string", lambda v: None if v.strip() else "must not be empty"),
    "base_urls": ((list,), "a list of URLs", _url_list),
    "base_url": ((str,), "a URL", lambda v: _url_list([v])),
    "api_key_env": (
        (str,),
        "the name of an environment variable",
        lambda v: (
            None
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v)
            else "must be the NAME of an environment variable (the key itself never goes in this file)"
        ),
    ),
    "max_concurrency": ((int,), "an integer", _positive_int),
    "temperature": ((int, float), "a number", _non_negative),
    "max_tokens": ((int,), "an integer", _positive_int),
    "price_in_per_1k": ((int, float), "a number", _non_negative),
    "price_out_per_1k": ((int, float), "a number", _non_negative),
    "max_height": ((int,), "an integer", _positive_int),
    "fps": ((int, float), "a number", _positive),
    "max_clip_s": ((int, float), "a number", _positive),
    "timeout_s": ((int, float), "a number", _positive),
    "max_retries": ((int,), "an integer", lambda v: None if v >= 0 else "must be ≥ 0"),
    "backoff_base_s": ((int, float), "a number", _non_negative),
    "backoff_max_s": ((int, float), "a number", _non_negative),
    "media_transport": ((str,), "a string", _one_of("data", "file")),
    "audio_part": ((str,), "a string", _one_of("audio_url", "input_audio")),
    "response_format": ((bool,), "true or false", lambda v: None),
    "extra_body": ((dict,), "a table", lambda v: None),
}
_FLOAT_FIELDS = {k for k, (types, _, _) in _FIELDS.items() if float in types}


def line_index(text: str) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """Line numbers of `[judges.NAME]` headers and of `key =` lines inside them (1-based).

    A best-effort scan for messages only; dotted or inline forms simply get no line.
    """
    headers: dict[str, int] = {}
    keys: dict[tuple[str, str], int] = {}
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r'^\[\s*judges\s*\.\s*("([^"]+)"|\'([^\']+)\'|[A-Za-z0-9._-]+)\s*\]', stripped)
        if header:
            current = header.group(2) or header.group(3) or header.group(1)
            headers.setdefault(current, number)
            continue
        if stripped.startswith("["):
            current = None
            continue
        key = re.match(r'^("?)([A-Za-z0-9_-]+)\1\s*=', stripped)
        if key and current is not None:
            keys.setdefault((current, key.group(2)), number)
    return headers, keys


def load_judges(path: str | Path) -> dict[str, JudgeConfig]:
    """Read a judges file → {name: JudgeConfig}, in file order.

    Every problem is collected and raised together as InputError, each with the file, the
    line when it can be found, and the field (`judges.NAME.key`): TOML syntax, a missing
    `[judges]` table, unknown keys, wrong types or values, a judge named `gold` or with
    characters other than letters, digits, `.`, `_`, `-`. A missing file → InputError too.
    """
    path = Path(path)
    return parse_judges(read_input_text(path), str(path))


def parse_judges(text: str, where: str) -> dict[str, JudgeConfig]:
    """The judges of a judges file's `text`, as `load_judges` reads them; `where` is the file's
    path, named by every problem and kept on each judge (`JudgeConfig.file`) for later ones."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(match.group(1)) if match else None
        raise InputError(f"not valid TOML: {exc}", path=where, line=line) from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise InputError("not valid TOML: nested too deeply", path=where) from None
    headers, key_lines = line_index(text)
    problems: list[Problem] = []
    judges_table = data.get("judges")
    if not isinstance(judges_table, dict) or not judges_table:
        raise InputError("no judges: add at least one [judges.NAME] table", path=where, field="judges")
    for other in data:
        if other != "judges":
            problems.append(Problem(where, None, other, "unknown top-level key (expected [judges.NAME])"))
    judges: dict[str, JudgeConfig] = {}
    for name, table in judges_table.items():
        field_prefix = f"judges.{name}"
        header_line = headers.get(name)
        if name == GOLD or not _NAME_RE.match(name):
            problems.append(
                Problem(
                    where,
                    header_line,
                    field_prefix,
                    f"judge name '{name}' is reserved or not allowed: use letters, digits, "
                    "'.', '_' or '-', and not 'gold' (it means the human gold labels)",
                )
            )
            continue
        if not isinstance(table, dict):
            problems.append(Problem(where, header_line, field_prefix, "must be a table [judges.NAME]"))
            continue
        judge, found = _judge_from_table(name, table, where, header_line, key_lines)
        problems.extend(found)
        if judge is not None:
            judges[name] = judge
    if problems:
        raise InputError(problems)
    return judges


def _judge_from_table(
    name: str, table: dict, where: str, header_line: int | None, key_lines: dict
) -> tuple[JudgeConfig | None, list[Problem]]:
    problems: list[Problem] = []
    values: dict = {}
    for key, value in table.items():
        line = key_lines.get((name, key), header_line)
        field_name = f"judges.{name}.{key}"
        if key not in _FIELDS:
            problems.append(
                Problem(where, line, field_name, f"unknown key (known: {', '.join(sorted(_FIELDS))})")
            )
            continue
        types, description, check = _FIELDS[key]
        if isinstance(value, bool) and bool not in types or not isinstance(value, types):
            problems.append(Problem(where, line, field_name, f"must be {description}, got {value!r}"))
            continue
        message = check(value)
        if message:
            problems.append(Problem(where, line, field_name, message))
            continue
        values[key] = float(value) if key in _FLOAT_FIELDS else value
    for required in ("adapter", "model"):
        if required not in table:
            problems.append(Problem(where, header_line, f"judges.{name}.{required}", "missing (required)"))
    if "base_url" in values and "base_urls" in values:
        problems.append(
            Problem(
                where,
                key_lines.get((name, "base_url"), header_line),
                f"judges.{name}.base_url",
                "give base_url or base_urls, not both",
            )
        )
    if "base_url" in values:
        values["base_urls"] = [values.pop("base_url")]
    if (
        values.get("adapter") == "openai"
        and "base_urls" not in values
        and "base_urls" not in table
        and "base_url" not in table
    ):
        problems.append(
            Problem(
                where,
                header_line,
                f"judges.{name}.base_urls",
                "missing: the openai adapter needs the endpoint's URL(s)",
            )
        )
    if problems:
        return None, problems
    values["base_urls"] = tuple(u.rstrip("/") for u in values.get("base_urls", ()))
    lines = {key: key_lines[(name, key)] for key in table if (name, key) in key_lines}
    if header_line is not None:
        lines[""] = header_line
    return JudgeConfig(name=name, **values, file=where, lines=lines), []


@dataclass(frozen=True)
class Configuration:
    """(verifier, decomposer, entailer); each a judge name or `gold`."""

    verifier: str
    decomposer: str
    entailer: str

    @property
    def id(self) -> str:
        return configuration_name(self.verifier, self.decomposer, self.entailer)

    @property
    def source(self) -> str:
        return str(Source.judge(self.id))

    @property
    def judge_names(self) -> set[str]:
        return {n for n in (self.verifier, self.decomposer, self.entailer) if n != GOLD}


def parse_configuration(text: str, judges: dict[str, JudgeConfig]) -> Configuration:
    """`V+D+E` → Configuration. Raises InputError (field '--config') when it has not three
    parts, names an unknown judge, is all gold, or asks for gold entailment on judge-made facts
    (`V+D+gold` with D a judge: the gold labels are about other facts)."""
    parts = configuration_parts(text)
    if parts is None:
        raise InputError(f"configuration '{text}' is not VERIFIER+DECOMPOSER+ENTAILER", field="--config")
    unknown = [p for p in parts if p != GOLD and p not in judges]
    if unknown:
        known = ", ".join(sorted(judges)) or "none"
        raise InputError(
            f"configuration '{text}': unknown judge(s) {', '.join(unknown)} (configured: {known}; or 'gold')",
            field="--config",
        )
    configuration = Configuration(*parts)
    if not configuration.judge_names:
        raise InputError(
            f"configuration '{text}' has no judge: gold+gold+gold is the gold record", field="--config"
        )
    if configuration.entailer == GOLD and configuration.decomposer != GOLD:
        raise InputError(
            f"configuration '{text}': gold entailment needs gold facts (use V+gold+gold)", field="--config"
        )
    return configuration
