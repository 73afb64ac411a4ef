"""The project's judges file (TOML, `calibration.judges.judges_file.load_judges`): where it is and
how the pages show its judges. The API key itself is never read here: a judge shows only
the NAME of its key variable and whether that variable is set."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from annotation.formats.atomic_file import write_text_atomically
from annotation.project_settings import ProjectSettings, judges_file_location
from annotation.protocol.errors import InputError
from calibration.judges.judges_file import JudgeConfig, load_judges, parse_judges

JUDGES_SETTING = "judges_toml"
DEFAULT_FILE_NAME = "judges.toml"


def judges_file_path(store) -> Path | None:
    """The project setting `judges_toml` (a relative path is taken from the project
    directory) when set; else `<project>/judges.toml` when that file exists; else None."""
    configured = ProjectSettings.of(store).judges_toml.strip()
    if configured:
        return judges_file_location(store.directory, configured)
    default = Path(store.directory) / DEFAULT_FILE_NAME
    return default if default.exists() else None


def judges_file_text(path: Path | None) -> str | None:
    """The judges file's text for an admin to edit (bytes that are not UTF-8 replaced); None when
    there is none or it cannot be read (a folder, no permission): `load_project_judges` then
    carries the reader's problem naming why."""
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def save_judges_text(store, text: str) -> tuple[Path, dict[str, JudgeConfig]]:
    """Check `text` with the one judges-file reader, then write it atomically where the project
    reads its judges file (the project's judges.toml when none is set); returns (path, judges).

    Raises InputError with every located problem (nothing is written): the reader refuses any
    key it does not know, so an `api_key` written into the file is refused, never stored — a
    judge names only the environment variable that holds its key (`api_key_env`)."""
    path = judges_file_path(store) or Path(store.directory) / DEFAULT_FILE_NAME
    judges = parse_judges(text, str(path))  # its problems and its judges name the file it goes to
    write_text_atomically(path, text)
    return path, judges


def load_project_judges(store) -> tuple[Path | None, dict[str, JudgeConfig], InputError | None]:
    """(path, judges, problem): no file configured → (None, {}, None); a file that is
    missing or wrong → (path, {}, the InputError with every located problem)."""
    path = judges_file_path(store)
    if path is None:
        return None, {}, None
    try:
        return path, load_judges(path), None
    except InputError as error:
        return path, {}, error


def key_status(judge: JudgeConfig) -> str:
    """'no key' or '$NAME (set)' / '$NAME (not set)' — the variable's name, never its value."""
    if not judge.api_key_env:
        return "no key"
    return f"${judge.api_key_env} ({'set' if os.environ.get(judge.api_key_env) else 'not set'})"


def shown_url(url: str) -> str:
    """The URL without user info, query or fragment (where keys sometimes hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def judge_rows(judges: dict[str, JudgeConfig]) -> list[dict]:
    """One table row per judge: what the admin needs to check the file, and no secret."""
    return [
        {
            "judge": judge.name,
            "adapter": judge.adapter,
            "model": judge.model,
            "API key": key_status(judge),
            "endpoints": ", ".join(shown_url(u) for u in judge.base_urls) or "(adapter default)",
            "max concurrency": judge.max_concurrency,
            "$ per 1k tokens in": judge.price_in_per_1k,
            "$ per 1k tokens out": judge.price_out_per_1k,
        }
        for judge in judges.values()
    ]


def missing_keys(judges: dict[str, JudgeConfig], names) -> list[str]:
    """The key variables (names) that the judges `names` need and the environment lacks."""
    return sorted(
        {
            judges[n].api_key_env
            for n in names
            if judges[n].api_key_env and not os.environ.get(judges[n].api_key_env)
        }
    )
