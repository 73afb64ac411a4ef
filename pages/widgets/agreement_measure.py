"""Krippendorff's α with bootstrap CIs for the agreement page, measured on a background thread and
kept per project for the whole server process, so the page never waits on a blank spinner: after a
new label it shows the last measured numbers at once (marked as updating) and the new ones when
they are ready. The bootstrap takes seconds on a quiet machine and a minute on a loaded one.

`latest_agreement` is the one entry point; the fingerprint of the records and of the adjudicator's
"Same fact?" answers (which the clusters read) names a measurement, so a label undone brings back
numbers already measured.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from annotation.agreement.reliability import measure_agreement
from annotation.agreement.same_fact import SAME_TASK

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agreement-measure")
_LOCK = threading.RLock()  # a measurement may finish inside submit's done-callback, under it


@dataclass
class _Measurements:
    """One project's measurements: the latest finished one, the one running, the one wanted next."""

    done: dict[str, dict] = field(default_factory=dict)  # fingerprint → results (the last few)
    latest: str | None = None  # fingerprint of the last one finished
    running: tuple[str, Future] | None = None
    wanted: tuple[str, list, Callable] | None = None
    failed: tuple[str, BaseException] | None = None  # not retried: the page shows why


_projects: dict[str, _Measurements] = {}
KEPT = 4  # measurements kept per project (an undo brings back the one before)


# (records, rulings, fingerprint): a revision's list and rulings are one object each
_last_fingerprint: tuple[list, dict | None, str] | None = None
# id(record) → (record, digest of its content): the project state hands an unchanged response's
# records on as the same objects, so a new revision hashes only the records that changed
_record_digests: dict[int, tuple[object, bytes]] = {}


def _digest(record) -> bytes:
    known = _record_digests.get(id(record))
    if known is not None and known[0] is record:
        return known[1]
    text = json.dumps(record.to_dict(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).digest()


def fingerprint(records, rulings: dict | None = None) -> str:
    """The content of the records and of the "Same fact?" answers among `rulings` as a name. The
    project state hands every rerun of one revision the same objects, so the hash is computed once
    per revision, not once per rerun; and each record's own digest once per record object."""
    global _last_fingerprint, _record_digests
    with _LOCK:
        if (
            _last_fingerprint is not None
            and _last_fingerprint[0] is records
            and _last_fingerprint[1] is rulings
        ):
            return _last_fingerprint[2]
        ordered = [_digest(r) for r in records]
        _record_digests = {id(r): (r, d) for r, d in zip(records, ordered, strict=True)}  # this revision's
    content = hashlib.sha256(b"".join(ordered))
    same = sorted(
        (key[0], str(key[1]), bool(ruling.value))
        for key, ruling in (rulings or {}).items()
        if key[2] == SAME_TASK
    )
    if same:  # without answers, the name of the records alone (as before there were any)
        content.update(json.dumps(same, ensure_ascii=False).encode())
    name = content.hexdigest()
    with _LOCK:
        _last_fingerprint = (records, rulings, name)
    return name


def _start(project: _Measurements, name: str, records: list, measure: Callable) -> None:
    future = _EXECUTOR.submit(measure, records)
    project.running = (name, future)
    future.add_done_callback(lambda f: _finished(project, name, f))


def _finished(project: _Measurements, name: str, future: Future) -> None:
    with _LOCK:
        project.running = None
        if future.exception() is not None:
            project.failed = (name, future.exception())
        else:
            project.done[name] = future.result()
            project.latest = name
            for old in list(project.done)[:-KEPT]:
                del project.done[old]
        if project.wanted is not None and project.wanted[0] not in project.done:
            _start(project, *project.wanted)
        project.wanted = None


def _key(store) -> str:
    return str(Path(store.directory).resolve())


def latest_agreement(
    store, records: list, measure: Callable = measure_agreement, rulings: dict | None = None
) -> tuple[dict | None, bool, BaseException | None]:
    """(results, fresh, error): the measurement of these `records` (clustered with the "Same fact?"
    answers among `rulings`, passed to `measure` when given) when done (fresh), else the last one
    finished (None before the first) while these are measured in the background; `error` when the
    last measurement of these records failed."""
    name, project_key = fingerprint(records, rulings), _key(store)
    if rulings:
        measure = partial(measure, rulings=rulings)
    with _LOCK:
        project = _projects.setdefault(project_key, _Measurements())
        if name in project.done:
            return project.done[name], True, None
        latest = project.done.get(project.latest) if project.latest else None
        if project.failed is not None and project.failed[0] == name:
            return latest, False, project.failed[1]
        if project.running is None:
            _start(project, name, list(records), measure)
        elif project.running[0] != name:
            project.wanted = (name, list(records), measure)  # after the one running
    return latest, False, None


def wait_for_agreement(
    store, records: list, timeout_s: float | None = None, rulings: dict | None = None
) -> dict | None:
    """Block until these records' measurement (with `rulings`, as `latest_agreement` was given them),
    if one is running or waiting, is done; its results."""
    name, project_key = fingerprint(records, rulings), _key(store)
    while True:
        with _LOCK:
            project = _projects.get(project_key)
            if project is None or name in project.done:
                return None if project is None else project.done[name]
            running = project.running
            wanted = project.wanted is not None and project.wanted[0] == name
            if running is None or not (running[0] == name or wanted):
                return None
        try:
            running[1].result(timeout_s)
        except Exception:  # noqa: BLE001 - a failed measurement is reported by latest_agreement
            return None
