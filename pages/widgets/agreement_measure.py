"""Krippendorff's α with bootstrap CIs for the agreement page, measured on a background thread and
kept per project for the whole server process, so the page never waits on a blank spinner: after a
new label it shows the last measured numbers at once (marked as updating) and the new ones when
they are ready. The measurement gives way to page runs (`page_first`).

`latest_agreement` is the one entry point. A revision's units come from the project's
`AgreementIndex` (`agreement_inputs`), which re-reads only the responses a label changed; the
units' content names a measurement, so a label undone brings back numbers already measured.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from annotation.agreement.agreement_index import AgreementIndex, AgreementInputs
from annotation.agreement.reliability import measure_units
from pages.widgets.page_first import give_way

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agreement-measure")
_LOCK = threading.RLock()  # a measurement may finish inside submit's done-callback, under it
KEPT = 4  # measurements kept per project (an undo brings back the one before)


@dataclass
class _Measurements:
    """One project's measurements: by revision and by the units' name (the last few of each), the
    revision of the latest finished, the one running, the state wanted next."""

    done: dict[object, dict] = field(default_factory=dict)  # revision → results
    named: dict[str, dict] = field(default_factory=dict)  # AgreementInputs.name → results
    latest: object = None
    running: tuple[object, Future] | None = None
    wanted: tuple[object, Callable] | None = None  # (ProjectState, measure)
    failed: tuple[object, BaseException] | None = None  # not retried: the page shows why


_projects: dict[str, _Measurements] = {}
_indexes: dict[str, AgreementIndex] = {}


def _key(store) -> str:
    return str(Path(store.directory).resolve())


def agreement_inputs(store, state) -> AgreementInputs:
    """The units, annotator rows and "can't tell" rates of `state` (the project's `AgreementIndex`,
    kept for the whole server process)."""
    with _LOCK:
        index = _indexes.setdefault(_key(store), AgreementIndex())
    return index.inputs(state, pause=give_way)


def _measure(store, project: _Measurements, state, measure: Callable) -> dict:
    inputs = agreement_inputs(store, state)
    with _LOCK:
        found = project.named.get(inputs.name)
    if found is None:
        found = measure(inputs.units)
        with _LOCK:
            project.named[inputs.name] = found
            for old in list(project.named)[:-KEPT]:
                del project.named[old]
    return found


def _start(store, project: _Measurements, state, measure: Callable) -> None:
    future = _EXECUTOR.submit(_measure, store, project, state, measure)
    project.running = (state.revision, future)
    future.add_done_callback(lambda f: _finished(store, project, state.revision, f))


def _finished(store, project: _Measurements, revision, future: Future) -> None:
    with _LOCK:
        project.running = None
        if future.exception() is not None:
            project.failed = (revision, future.exception())
        else:
            project.done[revision] = future.result()
            project.latest = revision
            for old in list(project.done)[:-KEPT]:
                del project.done[old]
        wanted, project.wanted = project.wanted, None
        if wanted is not None and wanted[0].revision not in project.done:
            _start(store, project, *wanted)


MEASURE = partial(measure_units, pause=give_way)


def latest_agreement(
    store, state, measure: Callable = MEASURE
) -> tuple[dict | None, bool, BaseException | None]:
    """(results, fresh, error): the measurement of `state`'s units (`measure`, given them) when done
    (fresh), else the last one finished (None before the first) while these are measured in the
    background; `error` when the measurement of this revision failed."""
    with _LOCK:
        project = _projects.setdefault(_key(store), _Measurements())
        if state.revision in project.done:
            return project.done[state.revision], True, None
        latest = project.done.get(project.latest)
        if project.failed is not None and project.failed[0] == state.revision:
            return latest, False, project.failed[1]
        if project.running is None:
            _start(store, project, state, measure)
            if state.revision in project.done:  # done before `_start` returned: its callback ran there
                return project.done[state.revision], True, None
        elif project.running[0] != state.revision:
            project.wanted = (state, measure)  # after the one running
    return latest, False, None


def wait_for_agreement(store, state, timeout_s: float | None = None) -> dict | None:
    """Block until the measurement of `state`, if one is running or waiting, is done; its results."""
    while True:
        with _LOCK:
            project = _projects.get(_key(store))
            if project is None or state.revision in project.done:
                return None if project is None else project.done[state.revision]
            running = project.running
            wanted = project.wanted is not None and project.wanted[0].revision == state.revision
            if running is None or not (running[0] == state.revision or wanted):
                return None
        try:
            running[1].result(timeout_s)
        except Exception:  # noqa: BLE001 - a failed measurement is reported by latest_agreement
            return None
