"""Project-level operations shared by the CLI and the app: import files, export records, media.

Import is all-or-nothing per call. Everything is read and checked first, writing nothing: every
row of every file (file, line or entry, field), the media file each row names (resolved inside
the media root, probed once), id clashes with the project and between the files of the call.
Then responses, records, media rows and the media-root setting are written in one transaction,
so a refused import — or one killed at any moment — writes nothing, and `import_into` creates no
project for it. With `skip_invalid` the bad rows of every kind are left out and listed. Importing
the same files again changes nothing.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field, replace
from itertools import groupby
from pathlib import Path

from annotation.formats.readers import read_any
from annotation.media.clips import make_proxy
from annotation.media.files import MediaError, file_sha256, media_file, probe_media, resolve_media
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.ids import model_response_id
from annotation.protocol.records import EvaluationRecord, Response, Sentence
from annotation.protocol.sentences import sentences_for_response
from annotation.state import project_state
from annotation.store.project_store import DB_NAME, ProjectStore
from annotation.store.rows import MediaFile

EXPORT_SOURCES = ("gold", "human", "judge", "all")


@dataclass
class ImportReport:
    responses: int = 0
    records: int = 0
    media: list[str] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)  # (path, format)
    notes: list[str] = field(default_factory=list)  # what was imported as given but is worth knowing


# -- media ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MediaFacts:
    """What a media row holds: the file relative to the media root, its hash and probe."""

    path: str
    sha256: str
    info: dict


def media_facts(root: Path, name: str, known: MediaFile | None = None) -> MediaFacts:
    """Resolve `name` inside `root` and probe it, unless `known` (its stored row) still names
    the same file with the same size. Raises ValueError (escapes the root, not a regular file,
    a name the file system refuses), FileNotFoundError, MediaError or OSError (unreadable)."""
    path = resolve_media(root, name)
    relative = path.relative_to(root).as_posix()
    found = path.stat()
    if known and known.path == relative and _same_file_state(known.info, found):
        return MediaFacts(relative, known.sha256, known.info)
    info = probe_media(path).to_dict()
    info["size"], info["mtime_ns"] = found.st_size, found.st_mtime_ns
    return MediaFacts(relative, file_sha256(path), info)


def _same_file_state(info: dict, found) -> bool:
    """Whether a file's size and modification time are those stored at its import (a row from
    before mtimes were stored has none, so it counts as changed and is hashed again)."""
    return info.get("size") == found.st_size and info.get("mtime_ns") == found.st_mtime_ns


def media_root_problem(store: ProjectStore, media_root: Path | None) -> Problem | None:
    """The problem (field --media-root) of giving a project that already has media another
    media root: names resolve in one root per project, so another one would break every media
    imported before. None when `media_root` is absent, the same, or the project has no media."""
    if media_root is None or not store.media_names():
        return None
    current, wanted = store.media_root.resolve(), Path(media_root).resolve()
    if current == wanted:
        return None
    return Problem(
        "<arguments>",
        None,
        "--media-root",
        f"this project's media root is {current}; another one ({wanted}) would break the "
        f"{len(store.media_names())} media imported before: put the new files under {current} "
        "and import without --media-root",
    )


def _plan_within_media_root(store: ProjectStore | None, directory: Path, media_root, paths, options, model):
    """`_plan`, with the media-root problem (if any) reported together with the files' problems."""
    problem = None if store is None else media_root_problem(store, media_root)
    try:
        plan = _plan(_Target.of(store, directory, media_root), paths, options, model)
    except InputError as exc:
        raise InputError([problem, *exc.problems] if problem else exc.problems) from None
    if problem is not None:
        raise InputError(problem)
    return plan


def register_media(store: ProjectStore, name: str) -> MediaFile:
    """Resolve `name` inside the project's media root, probe it once, store the facts.

    Raises as `media_facts`.
    """
    facts = media_facts(store.media_root, name, store.media(name))
    store.register_media(name, facts.path, facts.sha256, facts.info)
    return store.media(name)


def media_source(store: ProjectStore, media: MediaFile) -> Path:
    """The file of a media row (`store.media(name)`), resolved again inside the media root on
    every read: ValueError when it now leads outside (a symlink swapped in) or is no regular
    file, FileNotFoundError when it is gone; ValueError naming the media when its size or
    modification time changed and its content is no longer what was hashed at import (a file
    swapped after import must not be used under the old content's hash). A row stored before
    paths were relative is found by its name."""
    stored = media.path
    if Path(stored).is_absolute():
        path = resolve_media(store.media_root, media.name)
    else:
        path = media_file(store.media_root, stored)
    found = path.stat()
    if not _same_file_state(media.info, found):
        if file_sha256(path) != media.sha256:
            raise ValueError(
                f"media '{media.name}' has changed since it was imported (its content differs "
                "from what was hashed then); import it again"
            )
        info = {**media.info, "size": found.st_size, "mtime_ns": found.st_mtime_ns}
        store.register_media(media.name, stored, media.sha256, info)  # same content: remember
    return path


def proxy_path_for(store: ProjectStore, media: MediaFile) -> Path:
    return store.cache_dir / "proxies" / f"{media.sha256[:20]}.mp4"


def prepare_media(store: ProjectStore, name: str, *, sound_view: bool = True) -> MediaFile:
    """The slow once-per-file work done ahead of annotation: the low-resolution proxy that
    clips are stream-copied from, and the whole file's sound view (decoding an hour of
    audio takes seconds; the cached view loads in a millisecond). Idempotent."""
    from annotation.media.sound_cache import load_sound_view

    media = store.media(name)
    if media is None:
        raise KeyError(f"media '{name}' is not registered in {store.directory}")
    source = media_source(store, media)
    if not (media.proxy_path and Path(media.proxy_path).exists()):
        out = proxy_path_for(store, media)
        out.parent.mkdir(parents=True, exist_ok=True)
        make_proxy(source, out)
        store.set_proxy(name, out)
    if sound_view and media.has_audio:
        load_sound_view(source, media.sha256, store.cache_dir / "clips")
    return store.media(name)


def decoded_short(media: MediaFile) -> str | None:
    """Why `media`'s proxy is shorter than its header says (by over a second and 2 %), or None: a
    truncated or damaged file whose header still states its whole length. Citations are checked
    against the header, so one past what decodes is valid and will not play."""
    if not media.proxy_path or not media.duration_s:
        return None
    decoded = probe_media(Path(media.proxy_path)).duration_s or 0.0
    if media.duration_s - decoded <= max(1.0, 0.02 * media.duration_s):
        return None
    return (
        f"{media.name}: its header says {media.duration_s:.1f} s, but only {decoded:.1f} s could be decoded "
        f"(a truncated or damaged file?): citations past {decoded:.1f} s are valid and will not play"
    )


def unprepared_media(store: ProjectStore) -> list[str]:
    """The registered media whose proxy is not made (or no longer there): an import interrupted
    while preparing, or made with --no-prepare. (The sound view is checked by `prepare_media`.)"""
    return [
        name
        for name in store.media_names()
        if not ((media := store.media(name)).proxy_path and Path(media.proxy_path).exists())
    ]


# -- import: check everything, then write once --------------------------------------------------


@dataclass
class _Target:
    """The project an import is checked against, read once (empty for a new directory)."""

    media_root: Path
    responses: dict[str, tuple[str, str | None]]  # response id → (text, video)
    media: dict[str, MediaFile]
    models: dict[str, str | None] = field(default_factory=dict)  # response id → model

    @classmethod
    def of(cls, store: ProjectStore | None, directory: Path, media_root: Path | None) -> _Target:
        if store is None:
            return cls(media_root or Path(directory) / "media", {}, {})
        rows = store.database.connection.execute("SELECT response_id, text, video, model FROM responses")
        media = {name: store.media(name) for name in store.media_names()}
        responses, models = {}, {}
        for rid, text, video, model in rows:
            responses[rid], models[rid] = (text, video), model
        return cls(media_root or store.media_root, responses, media, models)

    def ids_by_content(self) -> dict[tuple[str, str | None], str]:
        """{(text, video): the first response id holding it}: where a new response's twin is."""
        found: dict[tuple[str, str | None], str] = {}
        for rid, content in self.responses.items():
            found.setdefault(content, rid)
        return found


@dataclass
class _Plan:
    """What one import call will write, and what it found wrong."""

    report: ImportReport = field(default_factory=ImportReport)
    problems: list[Problem] = field(default_factory=list)
    media: dict[str, MediaFacts | str] = field(default_factory=dict)  # name → facts or why not
    responses: list[tuple[Response, list[Sentence], str]] = field(default_factory=list)
    records: list[tuple[EvaluationRecord, str]] = field(default_factory=list)
    seen: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)  # id → text, video, where
    record_keys: dict[tuple[str, str], tuple[dict, str]] = field(default_factory=dict)
    used_media: set[str] = field(default_factory=set)  # media of the rows accepted
    # (text, video) → the id holding it (the project's, then this call's; read on first use), and
    # the new responses holding the same as an earlier one under another id: (new id, earlier id)
    by_content: dict[tuple[str, str | None], str] | None = None
    twins: list[tuple[str, str]] = field(default_factory=list)

    def refuse(self, problem: Problem, skip_invalid: bool) -> None:
        (self.report.skipped if skip_invalid else self.problems).append(problem)


def _where(path: str, line: int, is_entry: bool) -> str:
    return f"{path}, {'entry' if is_entry else 'line'} {line}"


def _media_of(plan: _Plan, target: _Target, name: str) -> MediaFacts | str:
    if name not in plan.media:
        try:
            plan.media[name] = media_facts(target.media_root, name, target.media.get(name))
        except (ValueError, FileNotFoundError, MediaError) as exc:
            plan.media[name] = str(exc)
        except OSError as exc:
            plan.media[name] = f"media {name!r} cannot be read: {exc.strerror or exc}"
    return plan.media[name]


def _response_clash(plan: _Plan, target: _Target, response: Response) -> str | None:
    """Why `response` clashes with the project or an earlier file of this call, or None."""
    mine = (response.text, response.video)
    if response.response_id in target.responses and target.responses[response.response_id] != mine:
        what = "text" if target.responses[response.response_id][0] != response.text else "video"
        return (
            f"response '{response.response_id}' is already in the project with another {what}; "
            "labels refer to its sentences, so it is not replaced"
        )
    if response.response_id in target.models and target.models[response.response_id] != response.model:
        return (
            f"response '{response.response_id}' is already in the project with "
            f"{_model_named(target.models[response.response_id])}, and this row gives it "
            f"{_model_named(response.model)}: an import does not change a response's model"
        )
    earlier = plan.seen.get(response.response_id)
    if earlier is not None and earlier[:2] != mine:
        what = "text" if earlier[0] != response.text else "video"
        return f"response '{response.response_id}' is also at {earlier[2]} with another {what}"
    return None


def _model_named(model: str | None) -> str:
    return "no model" if model is None else f"model '{model}'"


def _plan_response(plan: _Plan, target: _Target, response: Response, where: tuple, skip: bool) -> bool:
    """Check one response row; plan its insertion when new. False when the row is refused."""
    path, line, is_entry = where
    facts = _media_of(plan, target, response.video)
    clash = _response_clash(plan, target, response)
    if isinstance(facts, str) or clash:
        for name, message in (("video", facts if isinstance(facts, str) else None), ("id", clash)):
            if message:
                plan.refuse(Problem(path, line, name, message, is_entry), skip)
        return False
    plan.used_media.add(response.video)
    if response.response_id in target.responses or response.response_id in plan.seen:
        return True  # already there (a re-import, or the same response in two files): nothing to add
    plan.seen[response.response_id] = (response.text, response.video, _where(path, line, is_entry))
    if plan.by_content is None:
        plan.by_content = target.ids_by_content()
    twin = plan.by_content.setdefault((response.text, response.video), response.response_id)
    if twin != response.response_id:  # said, not refused: two models may write the same words
        plan.twins.append((response.response_id, twin))
    info = facts.info
    sentences = sentences_for_response(
        response.text,
        info.get("duration_s"),
        has_audio=info.get("has_audio"),
        has_video=info.get("has_video"),
    )
    plan.responses.append((response, sentences, path))
    return True


def _plan_record(plan: _Plan, target: _Target, record: EvaluationRecord, where: tuple, skip: bool) -> None:
    path, line, is_entry = where
    rid = record.response_id
    if rid not in target.responses and rid not in plan.seen:
        message = f"'{rid}' is not in the project; import its generation file first"
        plan.refuse(Problem(path, line, "response_id", message, is_entry), skip)
        return
    key, data = (rid, record.source), record.to_dict()
    earlier = plan.record_keys.get(key)
    if earlier is not None and earlier[0] != data:
        message = f"the record of '{rid}' by '{record.source}' is also at {earlier[1]} with other content"
        plan.refuse(Problem(path, line, "response_id", message, is_entry), skip)
        return
    if earlier is None:
        plan.record_keys[key] = (data, _where(path, line, is_entry))
        plan.records.append((record, path))


def _plan_file(plan: _Plan, target: _Target, path: Path, options: dict, model: str | None) -> None:
    try:
        kind, result = read_any(path, **options)
    except InputError as exc:
        plan.problems.extend(exc.problems)
        try:  # the rows that passed are still checked against the project: every problem at once
            kind, result = read_any(path, **{**options, "skip_invalid": True})
        except InputError:
            return  # the file as a whole is refused (unreadable, not JSON, no format): said above
        result.skipped = []  # their problems are said above, each with its own field
    skip = options["skip_invalid"]
    plan.report.files.append((str(path), kind))
    plan.report.skipped.extend(result.skipped)
    if result.invented_ids:
        named = ", ".join(result.invented_ids[:NAMED_IN_A_NOTE])
        more = len(result.invented_ids) - NAMED_IN_A_NOTE
        plan.report.notes.append(
            f"{path}: {len(result.invented_ids)} row(s) carry no 'id' and are named by their place in "
            f"the file ({named}{f' and {more} more' if more > 0 else ''}): the same rows imported from "
            "a file of another name or order would be other responses"
        )
    for item, (line, is_entry) in zip(result.items, result.locations, strict=True):
        where = (str(path), line, is_entry)
        if kind == "records":
            _plan_record(plan, target, item, where, skip)
            continue
        response, record, refused = _as_written_by(item, model, where)
        for problem in refused:
            plan.refuse(problem, skip)
        if not refused and _plan_response(plan, target, response, where, skip) and record is not None:
            _plan_record(plan, target, record, where, skip)


def _write(store: ProjectStore, plan: _Plan, media_root: Path | None) -> ImportReport:
    """Everything the plan holds, in one transaction (see module doc)."""
    report = plan.report
    try:
        with store.database.transaction():
            if media_root is not None:
                store.set_media_root(media_root)
            for name, facts in plan.media.items():
                store.register_media(name, facts.path, facts.sha256, facts.info)
            for path, items in groupby(plan.responses, key=lambda item: item[2]):  # a batch per file
                report.responses += store.add_responses([(r, s) for r, s, _ in items], imported_from=path)
            for path, items in groupby(plan.records, key=lambda item: item[1]):
                report.records += store.add_records([record for record, _ in items], imported_from=path)
            # inside the transaction: a Ctrl-C while they are read still leaves nothing imported
            report.notes += _reading_notes(store, plan.records) + _unused_gold_notes(store, plan.records)
    except ValueError as exc:  # another process added a clashing response since the check
        raise InputError(str(exc), path=store.db_path.name, field="id") from None
    report.media = sorted({response.video for response, _, _ in plan.responses})
    return report


NAMED_IN_A_NOTE = 5  # rows or records named in a note; the rest are counted


def _reading_notes(store: ProjectStore, records: list[tuple[EvaluationRecord, str]]) -> list[str]:
    """Notes on imported records that do not read their response as the tool does: another
    sentence split (kept, as PROTOCOL §5 allows: such a record is scored on its own sentences and
    left out of gold and agreement, `protocol/same_sentence.py`), or the same sentences with other
    citations (e.g. one the tool reads as invalid, past the video's end, given as valid)."""
    sentences = store.responses_sentence_dicts(record.response_id for record, _ in records)
    other_split, other_citations = [], []
    for record, path in records:
        own = sentences.get(record.response_id, [])
        named = f"{record.response_id} ({record.source}, {path})"
        if [s.text.strip() for s in record.sentences] != [s["text"].strip() for s in own]:
            other_split.append(named)
        elif any(
            [_reading(c.to_dict()) for c in a.citations] != [_reading(c) for c in b.get("citations", [])]
            for a, b in zip(record.sentences, own, strict=True)
        ):
            other_citations.append(named)
    notes = []
    for found, what in (
        (other_split, "carry another sentence split than their response's: each is scored on its own "
         "sentences and left out of gold and agreement"),
        (other_citations, "give other citations than their response's sentences hold (as the tool reads "
         "them from the text): each is scored on its own"),
    ):  # fmt: skip
        if found:
            more = len(found) - NAMED_IN_A_NOTE
            listed = ", ".join(found[:NAMED_IN_A_NOTE]) + (f" and {more} more" if more > 0 else "")
            notes.append(f"{len(found)} record(s) {what}: {listed}")
    return notes


def _unused_gold_notes(store: ProjectStore, records: list[tuple[EvaluationRecord, str]]) -> list[str]:
    """A note on the imported gold records that will not be used: gold is derived for every response
    someone labelled here (label events or imported `human:*` records, this import's included), so
    an imported gold record stands only for a response nobody labelled (annotation/state.py)."""
    gold_ids = sorted({record.response_id for record, _ in records if record.source == "gold"})
    if not gold_ids:
        return []
    rows = store.database.connection.execute(
        "SELECT value FROM json_each(?) AS g WHERE "
        "EXISTS (SELECT 1 FROM records r WHERE r.response_id = g.value "
        "        AND r.source >= 'human:' AND r.source < 'human;') "
        "OR EXISTS (SELECT 1 FROM events e WHERE e.response_id = g.value AND substr(e.task, 1, 5) != 'gold.')",
        [json.dumps(gold_ids)],
    )
    unused = [row[0] for row in rows]
    if not unused:
        return []
    more = len(unused) - NAMED_IN_A_NOTE
    listed = ", ".join(unused[:NAMED_IN_A_NOTE]) + (f" and {more} more" if more > 0 else "")
    return [
        f"{len(unused)} gold record(s) are of responses annotators labelled here (human:* records or "
        f"labels): their gold is derived from those labels and this project's rulings, which no export "
        f"carries, so these gold records are not used: {listed}. To keep an adjudicated gold as it was, "
        "import the gold records alone (export --source gold)"
    ]


def _reading(citation: dict) -> tuple:
    """What a citation (`Citation.to_dict`) says: what it cites when valid; an invalid one only that
    it is invalid (its raw text and reason are whoever's words)."""
    return (
        (citation["modality"], citation["start"], citation["end"])
        if citation.get("valid", True)
        else (False,)
    )


def _plan(target: _Target, paths: list[Path], options: dict, model: str | None = None) -> _Plan:
    plan = _Plan()
    for path in map(Path, paths):
        _plan_file(plan, target, path, options, model)
    if plan.problems:
        raise InputError(plan.problems)
    if plan.twins:
        named = ", ".join(f"{new} = {old}" for new, old in plan.twins[:NAMED_IN_A_NOTE])
        more = len(plan.twins) - NAMED_IN_A_NOTE
        plan.report.notes.append(
            f"{len(plan.twins)} new response(s) have the same text and video as a response already "
            f"imported under another id ({named}{f' and {more} more' if more > 0 else ''}): imported as "
            "given; if these are the same responses (a file imported again with --model, or under new "
            "ids), they will be annotated and counted twice"
        )
    plan.media = {  # only what changes: an unchanged media row is not written again
        name: facts
        for name, facts in plan.media.items()
        if name in plan.used_media and _changed(facts, target.media.get(name))
    }
    return plan


def _changed(facts: MediaFacts, known: MediaFile | None) -> bool:
    return known is None or MediaFacts(known.path, known.sha256, known.info) != facts


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
    media_root: Path | None = None,
    model: str | None = None,
) -> ImportReport:
    """Import generation, metric or record files into the project (see module doc); with
    `media_root` the project's media root becomes that folder, in the same transaction. `model`
    names the model that wrote the responses of generation and metric files whose rows name none.
    InputError (every problem located) when anything is wrong and `skip_invalid` is not set."""
    options = {"fmt": fmt, "skip_invalid": skip_invalid, "source": source}
    plan = _plan_within_media_root(store, store.directory, media_root, paths, options, model)
    return _write(store, plan, media_root)


def import_into(
    directory: Path,
    paths: list[Path],
    *,
    skip_invalid: bool = False,
    fmt: str = "auto",
    source: str | None = None,
    media_root: Path | None = None,
    model: str | None = None,
) -> tuple[ProjectStore, ImportReport]:
    """`import_files` into the project at `directory`, created only once the import is accepted:
    a refused import into a new directory leaves nothing behind (not even the directory)."""
    directory = Path(directory)
    store = ProjectStore.open(directory) if (directory / DB_NAME).exists() else None
    options = {"fmt": fmt, "skip_invalid": skip_invalid, "source": source}
    plan = _plan_within_media_root(store, directory, media_root, paths, options, model)
    if store is not None:
        return store, _write(store, plan, media_root)
    existed = directory.exists()
    store = ProjectStore.open(directory, create=True)
    try:
        return store, _write(store, plan, media_root)
    except BaseException:  # refused while writing (a full disk, media refused): no project left
        store.close()
        _remove_new_project(directory, existed)
        raise


def _remove_new_project(directory: Path, existed: bool) -> None:
    """Undo `ProjectStore.open(directory, create=True)` of a new project: its directory when this
    import made it, else only the database files it made there."""
    if not existed:
        shutil.rmtree(directory, ignore_errors=True)
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        (directory / f"{DB_NAME}{suffix}").unlink(missing_ok=True)


def export_records(store: ProjectStore, which: str = "all") -> list[EvaluationRecord]:
    """The project's records of one kind ('gold', 'human', 'judge') or 'all', ordered by source,
    then response (import order), as the project state holds them (`annotation.state`): the one
    gold set, every annotator's records, the stored judge records. A kind the project has none of
    gives an empty list."""
    if which not in EXPORT_SOURCES:
        raise ValueError(f"source '{which}' is not one of {', '.join(EXPORT_SOURCES)}")
    state = project_state(store)
    kinds = {"gold": state.gold.records, "human": state.annotators, "judge": state.judges}
    chosen = [*kinds["gold"], *kinds["human"], *kinds["judge"]] if which == "all" else kinds[which]
    return sorted(chosen, key=lambda r: (r.source, state.order.get(r.response_id, 0)))
