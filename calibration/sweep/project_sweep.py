"""A project's sweep, run once per (project revision, settings): the Calibrate page's reruns, its
sessions and threads read the same report, with its per-response scores (`SweepReport.scores`)
for the scatter, until a label, ruling, import or setting moves the revision."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

from annotation.state import project_state
from calibration.sweep.inputs import inputs_from_state
from calibration.sweep.run import SweepReport, run_sweep

KEPT_SWEEPS = 4  # the least recently read is dropped beyond this many
_reports: OrderedDict[tuple, SweepReport] = OrderedDict()
_locks: dict[tuple, threading.Lock] = {}
_cache_lock = threading.Lock()


def project_sweep(store, settings: dict) -> SweepReport:
    """`run_sweep` over the project state's inputs (`inputs_from_state`) with `settings` (modes, n_boot, folds, seed,
    epsilon), cached by the project file, its revision and the settings. InputError and ValueError
    pass through (nothing is cached then)."""
    state = project_state(store)
    key = (str(store.db_path.resolve()), state.revision, json.dumps(settings, sort_keys=True))
    with _cache_lock:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        with _cache_lock:
            if key in _reports:
                _reports.move_to_end(key)
                return _reports[key]
        inputs = inputs_from_state(state)
        report = run_sweep(
            inputs.gold,
            inputs.judges,
            modes=settings["modes"],
            humans=inputs.humans,
            judged=inputs.judged,
            n_boot=settings["n_boot"],
            folds=settings["folds"],
            seed=settings["seed"],
            epsilon=settings["epsilon"],
        )
        with _cache_lock:
            _reports[key] = report
            while len(_reports) > KEPT_SWEEPS:
                dropped, _ = _reports.popitem(last=False)
                _locks.pop(dropped, None)
        return report
