"""Project-level operations shared by the CLI and the app: import files, export records.

Import is all-or-nothing per call: every problem of every file is collected first
(file, line or entry, field), and nothing is written unless there are none — or,
with `skip_invalid`, the bad rows are left out and listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from annotation.agreement.gold import gold_records
from annotation.formats.readers import read_any
from annotation.media.clips import make_proxy
from annotation.media.files import MediaError, file_sha256, probe_media, resolve_media
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.ids import model_response_id
from annotation.protocol.records import EvaluationRecord, Response
from annotation.protocol.sentences import sentences_for_response
from annotation.store.project_store import ProjectStore
from annotation.work.labels import annotator_records

EXPORT_SOURCES = ("gold", "human", "judge", "all")


@dataclass
class ImportReport:
    responses: int = 0
    records: int = 0
    media: list[str] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)  # (path, format)


def register_media(store: ProjectStore, name: str) -> dict:
    """Resolve `name` inside the project's media root, probe it once, store the facts.

    Raises ValueError (escapes the root), FileNotFoundError or media.MediaError.
    """
    path = resolve_media(store.media_root, name)
    known = store.media(name)
    if known and Path(known["path"]) == path and known["info"].get("size") == path.stat().st_size:
        return known
    info = probe_media(path).to_dict()
    info["size"] = path.stat().st_size
    store.register_media(name, path, file_sha256(path), info)
    return store.media(name)


def proxy_path_for(store: ProjectStore, media: dict) -> Path:
    return store.cache_dir / "proxies" / f"{media['sha256'][:20]}.mp4"


def prepare_media(store: ProjectStore, name: str, *, sound_view: bool = True) -> dict:
    """The slow once-per-file work done ahead of annotation: the low-resolution proxy that
    clips are stream-copied from, and the whole file's sound view (decoding an hour of
    audio takes seconds; the cached view loads in a millisecond). Idempotent."""
    from annotation.media.sound_cache import load_sound_view

    media = store.media(name)
    if media is None:
        raise KeyError(f"media '{name}' is not registered in {store.directory}")
    if not (media.get("proxy_path") and Path(media["proxy_path"]).exists()):
        out = proxy_path_for(store, media)
        out.parent.mkdir(parents=True, exist_ok=True)
        make_proxy(Path(media["path"]), out)
        store.set_proxy(name, out)
    if sound_view and media["info"].get("has_audio"):
        load_sound_view(Path(media["path"]), media["sha256"], store.cache_dir / "clips")
    return store.media(name)


def _media_problems(store, response: Response, where: tuple[str, int | None, bool]) -> list[Problem]:
    path, line, is_entry = where
    if not response.video:
        return [Problem(path, line, "video", "missing: every response needs its video", is_entry)]
    try:
        register_media(store, response.video)
    except (ValueError, FileNotFoundError, MediaError) as exc:
        return [Problem(path, line, "video", f"{exc}", is_entry)]
    return []


def _location(result, index: int) -> tuple[int, bool]:
    """(line or entry index, is_entry) of the index-th item a reader returned."""
    locations = getattr(result, "locations", None)
    if locations and index < len(locations):
        return locations[index]
    return index, True


def _as_written_by(item, model: str | None, where) -> tuple[Response, EvaluationRecord | None, list]:
    """A generation or metric item's response (and the metric file's record) as written by
    `model` (`import --model`): the model set and the id `{model}/{row id}`, as a row naming its
    model reads. A row naming another model is a problem."""
    response, record = (item, None) if isinstance(item, Response) else (item.response, item.record)
    if model is None or response.model == model:
        return response, record, []
    if response.model is not None:
        message = f"the row names model '{response.model}', but --model says '{model}'"
        return response, record, [Problem(where[0], where[1], "model", message, where[2])]
    response = replace(response, model=model, response_id=model_response_id(model, response.response_id))
    return response, None if record is None else replace(record, response_id=response.response_id), []


def import_files(
    store: ProjectStore,
    paths: list[Path],
    *,
    skip_invalid: bool = False,
    fmt: str = "auto",
    source: str | None = None,
    model: str | None = None,
) -> ImportReport:
    """Import generation, metric or record files into the project (see module doc). `model`
    names the model that wrote the responses of generation and metric files whose rows name none."""
    report = ImportReport()
    problems: list[Problem] = []
    to_add_responses: list[tuple[Response, list]] = []
    to_add_records: list[tuple[EvaluationRecord, str]] = []
    known_ids = set(store.response_ids())
    for path in map(Path, paths):
        try:
            kind, result = read_any(path, fmt=fmt, skip_invalid=skip_invalid, source=source)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        report.files.append((str(path), kind))
        report.skipped.extend(result.skipped)
        for index, item in enumerate(result.items):
            line, is_entry = _location(result, index)
            where = (str(path), line, is_entry)
            if kind in ("generation", "metric"):
                response, record, row_problems = _as_written_by(item, model, where)
                row_problems = row_problems or _media_problems(store, response, where)
                if row_problems:
                    (report.skipped if skip_invalid else problems).extend(row_problems)
                    continue
                duration = store.media(response.video)["info"].get("duration_s")
                to_add_responses.append((response, sentences_for_response(response.text, duration)))
                known_ids.add(response.response_id)
                if record is not None:
                    to_add_records.append((record, str(path)))
            else:
                if item.response_id not in known_ids:
                    problem = Problem(
                        where[0],
                        where[1],
                        "response_id",
                        f"'{item.response_id}' is not in the project; import its generation file first",
                        where[2],
                    )
                    (report.skipped if skip_invalid else problems).append(problem)
                    continue
                to_add_records.append((item, str(path)))
    if problems:
        raise InputError(problems)
    try:
        report.responses = store.add_responses(to_add_responses, imported_from=",".join(map(str, paths)))
    except ValueError as exc:
        raise InputError(str(exc), path=",".join(map(str, paths)), field="response_id") from None
    for record, path in to_add_records:
        report.records += store.add_records([record], imported_from=path)
    report.media = sorted({r.video for r, _ in to_add_responses if r.video})
    return report


@dataclass
class ProjectRecords:
    """Everything a project's people and judges produced, as evaluation records: the gold derived
    from the current labels and rulings (plus imported gold where nobody labelled), every
    annotator's records (staged campaigns' stage-3 answers attached to the gold facts they were
    about), and the stored judge records."""

    gold: list[EvaluationRecord]
    humans: list[EvaluationRecord]
    judges: list[EvaluationRecord]


def project_records(store: ProjectStore) -> ProjectRecords:
    """The project's records of every kind, derived once and consistently (see ProjectRecords)."""
    gold = gold_records(store)
    humans = annotator_records(store, gold_by_response={r.response_id: r for r in gold})
    return ProjectRecords(gold, humans, store.list_records("judge"))


def export_records(store: ProjectStore, which: str = "all") -> list[EvaluationRecord]:
    """The project's records of one kind ('gold', 'human', 'judge') or 'all', ordered by source,
    then response (import order). See `project_records` for what each kind holds."""
    if which not in EXPORT_SOURCES:
        raise ValueError(f"source '{which}' is not one of {', '.join(EXPORT_SOURCES)}")
    if which == "judge":
        return store.list_records("judge")
    found = project_records(store)
    chosen = {"gold": found.gold, "human": found.humans}.get(which) or [
        *found.gold,
        *found.humans,
        *found.judges,
    ]
    order = {rid: i for i, rid in enumerate(store.response_ids())}
    return sorted(chosen, key=lambda r: (r.source, order.get(r.response_id, 0)))
