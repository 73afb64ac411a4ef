"""Where a sweep's records come from: a project (its state: the one gold set, annotators derived from
the event log, judges) or files (each record goes where its own `source` says). One path for the
page and every CLI."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

from annotation.formats.readers import load_rows, read_any
from annotation.project_settings import SettingError
from annotation.protocol.errors import InputError, Problem
from annotation.protocol.ids import Source, source_kind
from annotation.protocol.records import EvaluationRecord
from annotation.state import project_state
from annotation.store.bulk import without_cycle_collection
from annotation.store.project_store import NoProjectError, ProjectStore


class SweepInputs(NamedTuple):
    """The sweep's records. From a project, `judges` are only the gold responses' judge records
    (what the sweep compares), `judged` says which responses each judge source has a record
    for (`run_sweep`'s `judged`) and `judge_forms` holds the score forms stored beside those
    judge records ({(source, response): form}, `run_sweep`'s `judge_forms`); from files, `judges`
    are all of them and `judged` and `judge_forms` are None."""

    gold: list[EvaluationRecord]
    humans: list[EvaluationRecord]
    judges: list[EvaluationRecord]
    judged: dict[str, list[str]] | None = None
    judge_forms: dict[tuple[str, str], list] | None = None
    awaiting_gold: list[str] | None = None  # a project's labelled responses without gold yet

    def judge_sources(self) -> list[str]:
        """Every judge source of these inputs, once each: those `judged` counts, then those of the
        records."""
        return list(dict.fromkeys([*(self.judged or {}), *(r.source for r in self.judges)]))

    def of_sources(self, sources) -> SweepInputs:
        """These inputs with the judge records (and `judged` counts) of `sources` only: what an
        export chooses among (`calibration export`, the Calibrate page)."""
        judged = self.judged
        if judged is not None:
            judged = {source: found for source, found in judged.items() if source in sources}
        return self._replace(judges=[r for r in self.judges if r.source in sources], judged=judged)


class _Locator:
    """Where the i-th record of a file sits (line or entry), read only when a problem needs it."""

    def __init__(self, path: Path):
        self.path, self._rows = path, None

    def problem(self, index: int, field: str, message: str) -> Problem:
        if self._rows is None:
            self._rows = load_rows(self.path)
        line, is_entry, _ = self._rows[index]
        return Problem(str(self.path), line, field, message, entry=is_entry)


def _read_records(path: Path, problems: list[Problem]) -> list[tuple[int, EvaluationRecord]]:
    try:
        fmt, read = read_any(path, source=str(Source.judge(path.stem)))
    except InputError as exc:
        problems.extend(exc.problems)
        return []
    except OSError as exc:
        problems.append(Problem(str(path), None, None, exc.strerror or str(exc)))
        return []
    if fmt == "metric":
        return list(enumerate(item.record for item in read.items))
    if fmt != "records":
        problems.append(Problem(str(path), None, None, f"a {fmt} file carries no judgements"))
        return []
    return list(enumerate(read.items))


def inputs_from_files(gold_name: str, judge_names: list[str], problems: list[Problem]):
    """Gold, human and judge records from the files. Each record goes where its own `source`
    says (gold / human:* / judge:*), whichever option named its file, so one export of a
    project may serve as both --gold and --judges; a file named twice is read once."""
    gold, humans, judges = [], [], []
    by_kind = {"gold": gold, "human": humans, "judge": judges}
    seen: dict[tuple[str, str], str] = {}
    for name in dict.fromkeys([gold_name, *judge_names]):
        path = Path(name)
        locator = _Locator(path)
        for index, record in _read_records(path, problems):
            key = (record.response_id, record.source)
            if key in seen:
                problems.append(
                    locator.problem(
                        index,
                        "response_id",
                        f"response '{record.response_id}' "
                        f"of '{record.source}' was already read from {seen[key]}",
                    )
                )
                continue
            seen[key] = str(path)
            by_kind.get(source_kind(record.source), judges).append(record)
    if not problems and not gold:
        problems.append(Problem(gold_name, None, "source", "no record with source 'gold' in the files"))
    if not problems and not judges:
        problems.append(
            Problem(",".join(judge_names), None, "source", "no record with a 'judge:' source in the files")
        )
    return SweepInputs(gold, humans, judges)


def inputs_from_project(store) -> SweepInputs:
    """A project's gold (derived from the current labels and rulings), every annotator's `human:*`
    records (derived from the event log, winning over imported ones) and its `judge:*` records:
    what the page, `sweep --project` and `export --project` all compare."""
    return inputs_from_state(project_state(store))


KEPT_JUDGES = 8  # the least recently read project revision's gold judge records dropped beyond this
_gold_judges: OrderedDict[tuple, tuple[list[EvaluationRecord], dict[str, list[str]], dict]] = OrderedDict()
# per project file: (records mark, {gold response: its judge records}, judged, their score forms) of
# the last read, so that a new label (no record imported) reads only the judge records of responses
# new to gold
_by_response: dict[str, tuple[int, dict[str, list[EvaluationRecord]], dict[str, list[str]], dict]] = {}
_cache_lock = threading.Lock()


def inputs_from_state(state) -> SweepInputs:
    """The sweep's inputs of one project state (`annotation.state.ProjectState`): its gold and
    annotators, and of the judge records only the gold responses' (50,000 judged responses need
    not be decoded to sweep 1,000 gold ones), with every judge source's responses counted in SQL.
    Read once per (project file, revision); while no record is imported, a response's judge
    records are read once, whatever labels come."""
    gold = state.gold.records
    path = str(state.store.db_path.resolve())
    key = (path, state.revision)
    with _cache_lock:
        found = _gold_judges.get(key)
        if found is not None:
            _gold_judges.move_to_end(key)
        known = _by_response.get(path)
    if found is None:
        with without_cycle_collection():  # decoding makes many small objects beside the state
            found = _read_gold_judges(state, gold, known)
        with _cache_lock:
            _gold_judges[key] = found
            while len(_gold_judges) > KEPT_JUDGES:
                _gold_judges.popitem(last=False)
    return SweepInputs(gold, state.annotators, *found, sorted(state.gold.awaiting))


def _read_gold_judges(state, gold, known) -> tuple[list[EvaluationRecord], dict[str, list[str]], dict]:
    """(the gold responses' judge records in source then import order, every judge source's
    responses, the score forms of those records), reusing `known` (the last read of this project)
    while its records mark holds."""
    gold_ids = [r.response_id for r in gold]
    store, mark = state.store, state.revision.records
    if known is None or known[0] != mark:
        by_response, judged, forms = {}, store.record_responses("judge"), {}
    else:
        by_response, judged, forms = known[1], known[2], known[3]
    new = [rid for rid in gold_ids if rid not in by_response]
    by_response = {rid: by_response[rid] for rid in gold_ids if rid in by_response}
    forms = {key: form for key, form in forms.items() if key[1] in by_response}  # left gold: gone
    for rid in new:
        by_response[rid] = []
    if new:
        for record in store.list_records("judge", response_ids=new):
            by_response[record.response_id].append(record)
        # a record without a form (stored before forms were) is scored from the record itself
        found = store.latest_record_forms("judge", response_ids=new)
        forms = {**forms, **{key: form for key, form in found.items() if form is not None}}
    with _cache_lock:
        _by_response[str(store.db_path.resolve())] = (mark, by_response, judged, forms)
    order = state.order
    judges = sorted(
        (record for records in by_response.values() for record in records),
        key=lambda r: (r.source, order.get(r.response_id, 0)),
    )
    return judges, judged, forms


def inputs_from_project_dir(directory: str, problems: list[Problem]) -> SweepInputs:
    """`inputs_from_project` of the project in `directory`; a missing project, an unknown gold
    rule setting, no gold or no judge records are added to `problems` (then the inputs may be
    empty)."""
    try:
        store = ProjectStore.open(directory)
    except (NoProjectError, InputError) as exc:
        if isinstance(exc, InputError):
            problems.extend(exc.problems)
        else:
            problems.append(Problem(directory, None, None, exc.problem))
        return SweepInputs([], [], [])
    try:
        inputs = inputs_from_project(store)
    except SettingError as exc:  # a setting written by hand or by an older tool: each one named
        problems.extend(Problem(directory, None, name, problem) for name, problem in exc.refused.items())
        return SweepInputs([], [], [])
    finally:
        store.close()
    if not inputs.gold:
        problems.append(Problem(directory, None, "source", "the project has no gold records yet"))
    if not inputs.judges and not inputs.judged:
        problems.append(Problem(directory, None, "source", "the project has no judge records yet"))
    return inputs
