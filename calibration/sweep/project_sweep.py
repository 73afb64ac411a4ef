"""A project's sweep, run once per (project revision, settings): the Calibrate page's reruns, its
sessions and threads read the same report, with its per-response scores (`SweepReport.scores`)
for the scatter, until a label, ruling, import or setting moves the revision.

`latest_project_sweep` is the page's way in: after a change it returns at once the last report of
the same settings (marked not fresh, with the revision it is as of) while the new one runs on a
background thread, so a new label does not make the page wait for the bootstraps."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import NamedTuple

from annotation.state import project_state
from calibration.sweep.inputs import inputs_from_state
from calibration.sweep.run import SweepReport, run_sweep

KEPT_SWEEPS = 4  # the least recently read is dropped beyond this many
_reports: OrderedDict[tuple, SweepReport] = OrderedDict()
_locks: dict[tuple, threading.Lock] = {}
_cache_lock = threading.Lock()
# the background sweeps of `latest_project_sweep`: one at a time, the newest asked for next
_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="project-sweep")
_running: dict[tuple, Future] = {}  # (project file, settings) → the sweep running for it
_last: dict[tuple, tuple] = {}  # (project file, settings) → the key of its last finished report
_failed: dict[tuple, BaseException] = {}  # key → why its background sweep failed
START_AFTER_S = 1.0  # a background sweep waits this long (see `_sweep_after_a_pause`)


def _key(store, state, settings: dict, sources: frozenset[str] | None = None) -> tuple:
    """(project file, revision, settings as JSON): a sweep of only some `sources` adds them to the
    settings' part, so it is never taken for the page's sweep of them all."""
    chosen = settings if sources is None else {**settings, "sources": sorted(sources)}
    return (str(store.db_path.resolve()), state.revision, json.dumps(chosen, sort_keys=True))


def project_sweep(store, settings: dict, sources: frozenset[str] | None = None) -> SweepReport:
    """`run_sweep` over the project state's inputs (`inputs_from_state`) with `settings` (modes, n_boot, folds, seed,
    epsilon) — of the judge sources in `sources` only, when given (an export chooses among the
    exportable ones, as `calibration export` does) — cached by the project file, its revision, the
    settings and the sources. InputError and ValueError pass through (nothing is cached then)."""
    state = project_state(store)
    return _sweep_of(state, _key(store, state, settings, sources), settings, sources)


def _sweep_of(state, key: tuple, settings: dict, sources: frozenset[str] | None = None) -> SweepReport:
    with _cache_lock:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        with _cache_lock:
            if key in _reports:
                _reports.move_to_end(key)
                return _reports[key]
        inputs = inputs_from_state(state)
        if sources is not None:
            inputs = inputs.of_sources(sources)
        report = run_sweep(
            inputs.gold,
            inputs.judges,
            modes=settings["modes"],
            humans=inputs.humans,
            judged=inputs.judged,
            judge_forms=inputs.judge_forms,
            awaiting_gold=inputs.awaiting_gold,
            n_boot=settings["n_boot"],
            folds=settings["folds"],
            seed=settings["seed"],
            epsilon=settings["epsilon"],
        )
        with _cache_lock:
            _reports[key] = report
            if sources is None:  # the page's latest report of these settings (`latest_project_sweep`)
                _last[(key[0], key[2])] = key
            while len(_reports) > KEPT_SWEEPS:
                dropped, _ = _reports.popitem(last=False)
                _locks.pop(dropped, None)
        return report


class LatestSweep(NamedTuple):
    """The report to show: `fresh` when it is of the project's current revision; otherwise the
    last one finished with these settings, as of `as_of` (that revision), while the current one
    runs in the background."""

    report: SweepReport
    fresh: bool
    as_of: object


def latest_project_sweep(store, settings: dict, *, start: bool = True) -> LatestSweep:
    """The current revision's sweep when it is done; else, when a sweep of these settings finished
    before (in this process), that one at once, not fresh, with the current revision's started in
    the background (one at a time: a sweep asked for while another runs waits for it; with
    `start=False` not yet: the caller starts it with `start_background_sweep` once it has drawn);
    else the current one, run now. InputError and ValueError of the current revision's sweep pass
    through (from the background: on the next call)."""
    state = project_state(store)
    key = _key(store, state, settings)
    with _cache_lock:
        if key in _reports:
            _reports.move_to_end(key)
            return LatestSweep(_reports[key], True, state.revision)
        if key in _failed:
            raise _failed[key]  # a sweep fails the same way every time: not retried
        last = _last.get((key[0], key[2]))
        shown = _reports.get(last) if last is not None else None
        if shown is not None:
            if start:
                _start(state, key, settings, START_AFTER_S)
            return LatestSweep(shown, False, last[1])
    return LatestSweep(_sweep_of(state, key, settings), True, state.revision)


def start_background_sweep(store, settings: dict) -> None:
    """Start the current revision's sweep in the background (`START_AFTER_S` from now: the end of
    a run still sends its last elements) when it is neither done nor running and a sweep of these
    settings finished before: what `latest_project_sweep(start=False)` left for the page to start
    once it has drawn, so that the sweep does not compete with the page's run for the GIL."""
    state = project_state(store)
    key = _key(store, state, settings)
    with _cache_lock:
        if key not in _reports and key not in _failed and (key[0], key[2]) in _last:
            _start(state, key, settings, START_AFTER_S)


def _start(state, key: tuple, settings: dict, pause_s: float) -> None:
    """Submit the sweep of `key` unless one of these settings is running (the lock is held)."""
    running = _running.get((key[0], key[2]))
    if running is None or running.done():
        future = _EXECUTOR.submit(_sweep_after_a_pause, state, key, settings, pause_s)
        _running[(key[0], key[2])] = future
        future.add_done_callback(lambda f: _finished(key, f))


def _sweep_after_a_pause(state, key: tuple, settings: dict, pause_s: float) -> SweepReport:
    """`_sweep_of`, begun `pause_s` late: the sweep is Python under the GIL, so started at once it
    would halve the speed of the page run that asked for it, which only has to draw the last
    report."""
    time.sleep(pause_s)
    return _sweep_of(state, key, settings)


def _finished(key: tuple, future: Future) -> None:
    error = future.exception()
    if error is not None:
        with _cache_lock:
            _failed[key] = error


def background_sweep(store, settings: dict) -> Future | None:
    """The background sweep of this project and these settings started by `latest_project_sweep`
    (running or finished), or None: wait on it for the next fresh report."""
    with _cache_lock:
        return _running.get((str(store.db_path.resolve()), json.dumps(settings, sort_keys=True)))
