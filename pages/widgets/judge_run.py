"""A judge run in a background thread, and the snapshot a page may read of it.

The runner calls `progress` from its worker threads; those threads never touch Streamlit.
They only store the latest RunProgress here, under a lock, and the page polls `snapshot()`.
Runs are kept per project for the whole server process, so any admin session (or a reload)
sees the run in progress, and a second run on the same project cannot start meanwhile.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from annotation.protocol.errors import InputError
from calibration.judges.plan import RunPlan
from calibration.judges.runner import RunProgress, RunReport, run_configurations

log = logging.getLogger("murgat.app")


@dataclass(frozen=True)
class RunSnapshot:
    """What the run looks like now. `report` once finished; `error` when it could not run."""

    configurations: list[str]
    running: bool
    stopping: bool
    progress: RunProgress | None
    report: RunReport | None
    error: str | None
    started_at: float


class BackgroundRun:
    """One `run_configurations` call on its own thread; `stop()` asks it to stop cleanly
    (no new call starts; calls in flight finish and are kept)."""

    def __init__(self, configurations: list[str]):
        self.configurations = configurations
        self.started_at = time.time()
        self.stop_event = threading.Event()
        self._lock = threading.Lock()
        self._progress: RunProgress | None = None
        self._report: RunReport | None = None
        self._error: str | None = None
        self._thread: threading.Thread | None = None

    def record_progress(self, progress: RunProgress) -> None:
        """The runner's callback (worker threads): keep the latest state, nothing else."""
        with self._lock:
            self._progress = progress

    def stop(self) -> None:
        self.stop_event.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Block until the run has finished (True) or `timeout_s` passed (False)."""
        if self._thread is not None:
            self._thread.join(timeout_s)
        return not self.running

    def snapshot(self) -> RunSnapshot:
        with self._lock:
            return RunSnapshot(
                list(self.configurations),
                self.running,
                self.stop_event.is_set(),
                self._progress,
                self._report,
                self._error,
                self.started_at,
            )

    def _work(self, store, judges, configurations, options: dict) -> None:
        try:
            report = run_configurations(
                store, judges, configurations, progress=self.record_progress, stop=self.stop_event, **options
            )
            with self._lock:
                self._report = report
        except InputError as error:  # e.g. a key variable unset since the page checked it
            with self._lock:
                self._error = "; ".join(str(p) for p in error.problems)
        except Exception as error:  # the run must end with a message, never a silent dead thread
            log.exception("judge run failed")
            with self._lock:
                self._error = f"the run failed ({type(error).__name__}); the details are in the log"
        finally:
            store.close()  # this thread's connection


_runs: dict[str, BackgroundRun] = {}  # project directory → its latest run (process-wide)
_runs_lock = threading.Lock()


def _project_key(store) -> str:
    return str(Path(store.directory).resolve())


def latest_run(store) -> BackgroundRun | None:
    """The project's running or last finished run in this server process, if any."""
    with _runs_lock:
        return _runs.get(_project_key(store))


def start_run(
    store,
    judges: dict,
    configurations: list,
    *,
    responses: str,
    concurrency: int,
    max_calls: int | None,
    max_cost: float | None,
    plan: RunPlan | None,
) -> BackgroundRun:
    """Start `run_configurations` on a background thread and return its holder.

    Raises RuntimeError when a run on this project is still going (one at a time: both
    would spend the same budget on the same uncached calls).
    """
    with _runs_lock:
        key = _project_key(store)
        current = _runs.get(key)
        if current is not None and current.running:
            raise RuntimeError("a judge run is already going on this project; stop it or wait")
        run = BackgroundRun([c.id for c in configurations])
        options = {
            "responses": responses,
            "concurrency": concurrency,
            "max_calls": max_calls,
            "max_cost": max_cost,
            "plan": plan,
        }
        run._thread = threading.Thread(
            target=run._work, args=(store, judges, configurations, options), daemon=True, name="judge-run"
        )
        _runs[key] = run
        run._thread.start()
    return run
