"""Test-wide settings and the shared demo project.

Hypothesis's per-example deadline is off: these properties check behaviour, not speed (speed
lives in benchmarks/), and a loaded 2-core CI box must not flake.

The demo (seed 0) takes seconds of video rendering (and of its media's proxies) to build, so it is
built once per test run (shared by every xdist worker, behind a file lock) and each module or
test gets its own copy of the directory (SQLite file, media, ground truth): the build itself is
never opened by a test, so nothing a test writes (labels, sessions, settings) leaks into
another. Building is tested where it is the subject (tests/annotation/demo/test_demo.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import threading
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("murgat", deadline=None)
settings.load_profile("murgat")


def _build_demo_once(root: Path) -> Path:
    """The demo (seed 0) in `root`/demo-build, built there by whichever process comes first
    (the others wait for it behind the lock)."""
    from annotation.demo.project import build_demo
    from annotation.project import prepare_media

    built = root / "demo-build"
    with (root / "demo-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (built / "complete").exists():
            shutil.rmtree(built, ignore_errors=True)
            store = build_demo(built / "demo", seed=0)
            # Prepared as an import prepares its media (proxies, whole-file sound views): every test
            # process and browser-test server opening the demo's media built the three proxies
            # again otherwise (≈ 2.4 CPU s). The player's own proxy build runs on tiny projects.
            for name in store.media_names():
                prepare_media(store, name)
            store.close()
            (built / "complete").touch()
    return built / "demo"


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> Path:
    """The directory of the demo built once for this run (seed 0). Never open or write it:
    copy it with `copy_demo`."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's directory, shared by its workers (each has its own below)
    return _build_demo_once(root)


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """On the controller of a whole-suite `-n N` run (the README's command), build the demo in the
    background while the workers start and collect: its first user would otherwise build it
    (seconds) while the other worker, when its first group needs it too, waits idle. A build
    that fails here is left to the first test that needs it, which then reports it.
    On a worker of a CPU lane (see `browser_lanes`), lower its priority."""
    worker = getattr(config, "workerinput", None)
    if worker is not None and getattr(config.option, "loadgroup", False):  # xdist sets it on workers
        workers = int(worker["workercount"])
        if browser_lanes(workers) and _lane_of(worker["workerid"], workers) == "cpu":
            os.nice(CPU_LANE_NICENESS)
    if (
        getattr(config.option, "numprocesses", None)
        and not hasattr(config, "workerinput")
        and not config.option.collectonly
        and config.args_source == pytest.Config.ArgsSource.TESTPATHS
    ):
        root = config._tmp_path_factory.getbasetemp()  # the run's directory, as the workers see it
        build = threading.Thread(target=_build_demo_quietly, args=(root,), name="demo-build", daemon=True)
        build.start()
        config.stash[_DEMO_BUILD] = build
        if isinstance(config.option.numprocesses, int) and browser_lanes(config.option.numprocesses):
            first_collection = (root / FIRST_COLLECTION_LOCK).open("w")
            fcntl.flock(first_collection, fcntl.LOCK_EX)  # until the first collector is done
            config.stash[_FIRST_COLLECTION] = first_collection


_DEMO_BUILD = pytest.StashKey[threading.Thread]()
_FIRST_COLLECTION = pytest.StashKey[object]()
# One worker collects first. A fresh virtualenv holds no bytecode and no rewritten test modules yet:
# workers collecting side by side each compiled them all (≈ 12 CPU s each, against ≈ 4 once written).
# The controller holds this lock until the first collector (the last worker, a browser lane at full
# priority) has collected; the others collect once it is released.
FIRST_COLLECTION_LOCK = "first-collection.lock"


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    worker = getattr(session.config, "workerinput", None)
    if worker is None or not getattr(session.config.option, "loadgroup", False):
        return
    workers = int(worker["workercount"])
    if not browser_lanes(workers) or worker["workerid"] == f"gw{workers - 1}":
        return
    lock = session.config._tmp_path_factory.getbasetemp().parent / FIRST_COLLECTION_LOCK
    with contextlib.suppress(FileNotFoundError), lock.open() as first_collection:
        fcntl.flock(first_collection, fcntl.LOCK_SH)  # released by the controller (or its exit)


@pytest.hookimpl(optionalhook=True)  # hooks of pytest-xdist, on the controller
def pytest_xdist_node_collection_finished(node, ids):
    _end_first_collection(node.config)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _end_first_collection(node.config)


def _end_first_collection(config) -> None:
    first_collection = config.stash.get(_FIRST_COLLECTION, None)
    if first_collection is not None:
        del config.stash[_FIRST_COLLECTION]
        first_collection.close()


def _build_demo_quietly(root: Path) -> None:
    with contextlib.suppress(Exception):
        _build_demo_once(root)


def pytest_unconfigure(config):
    build = config.stash.get(_DEMO_BUILD, None)
    if build is not None:
        build.join()


@pytest.fixture
def closed_endpoint() -> str:
    """A judge's base URL at a port on 127.0.0.1 that nothing listens on: every call is refused."""
    from e2e.browser_support import free_port

    return f"http://127.0.0.1:{free_port()}/v1"


@pytest.fixture(scope="module")
def module_demo(demo_build, tmp_path_factory) -> Path:
    """A copy of the demo that the tests of one module share (for tests that only read it, or
    whose writes the module's tests expect)."""
    return Path(shutil.copytree(demo_build, tmp_path_factory.mktemp("demo") / "demo"))


@pytest.fixture
def demo_copy(demo_build, tmp_path) -> Path:
    """This test's own copy of the demo, to write to."""
    return Path(shutil.copytree(demo_build, tmp_path / "demo"))


# Seconds each slow test file takes (wall summed over its tests under `-n 2`: a run of 2026-12-02
# at load ≈ 14, divided by 3 to match a quiet run's total; rounded). Only the order of the run
# depends on them: the longest groups of each lane start first (see `browser_lanes`), so the run does
# not end with one worker on a long browser or CLI group and the others idle. A file
# not listed weighs nothing; a stale figure costs some balance, never a test. Figures of files whose
# CPU fell later the same day are scaled by it (-n 0, CPU s per file before → after).
FILE_SECONDS = {
    "tests/e2e/test_browser.py": 51,
    "tests/e2e/test_fact_keys.py": 32,
    "tests/annotation/cli/test_annotation_cli.py": 8,
    "tests/e2e/test_adjudication.py": 26,
    "tests/annotation/store/test_accounts_sign_in.py": 12,
    "tests/annotation/demo/test_demo.py": 15,
    "tests/e2e/test_sso.py": 19,
    "tests/annotation/cli/test_import_kill.py": 10,
    "tests/e2e/test_model_scores.py": 15,
    "tests/e2e/test_calibrate_acknowledgement.py": 14,
    "tests/e2e/test_sessions_across_tabs.py": 20,
    "tests/e2e/test_rendering.py": 14,
    "tests/e2e/test_admin_console.py": 13,
    "tests/annotation/cli/test_hostile_corpus.py": 13,
    "tests/pages/test_app_calibrate.py": 9,
    "tests/pages/test_app_roles.py": 9,
    "tests/e2e/test_sound_colours.py": 11,
    "tests/annotation/store/test_sign_in_hardening.py": 9,
    "tests/calibration/sweep/test_sweep.py": 10,
    "tests/e2e/test_same_fact_by_key.py": 9,
    "tests/pages/test_app_judges.py": 6,
    "tests/e2e/test_keys.py": 9,
    "tests/annotation/media/test_soundview.py": 4,
    "tests/pages/test_app_disputes.py": 6,
    "tests/pages/test_app_player.py": 5,
    "tests/annotation/media/test_media.py": 8,
    "tests/e2e/test_disk_full.py": 7,
    "tests/annotation/agreement/test_alpha_linear.py": 6,
    "tests/calibration/cli/test_score_cli.py": 2,
    "tests/annotation/cli/test_never_a_traceback.py": 6,
    "tests/pages/test_app_annotate.py": 3,
    "tests/calibration/judges/test_judges_run.py": 5,
    "tests/annotation/cli/test_import_model.py": 1,
    "tests/annotation/cli/test_users_cli.py": 5,
    "tests/annotation/protocol/test_citation_grammar.py": 5,
    "tests/calibration/scoring/test_score.py": 5,
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under `pytest -n N --dist loadgroup`, the tests that share a module-scoped fixture (a
    demo copy, a page, a server) run on one worker, so it is made once, not once per worker;
    a test already in a group keeps it. Runs before pytest-xdist reads the groups.

    pytest-xdist 3.8 puts a test in its group by writing `item._nodeid`, which pytest 9.2 no
    longer reads (the id is `item._id`): every group was silently spread over both workers
    (each built the module's demo, media and servers again). So the group is appended to the
    test's id here, as xdist means to, on the workers of a loadgroup run only."""
    from _pytest.nodeid import NodeId

    loadgroup = getattr(config.option, "loadgroup", False)  # set by xdist on its workers
    for item in items:
        group = item.get_closest_marker("xdist_group")
        if group is None:
            definitions = getattr(item, "_fixtureinfo", None)
            if definitions is None or not any(
                defs[-1].scope in ("module", "class", "package")
                for defs in definitions.name2fixturedefs.values()
                if defs
            ):
                continue
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
            group = item.get_closest_marker("xdist_group")
        name = str(group.args[0] if group.args else group.kwargs.get("name", "default"))
        if loadgroup and not item.nodeid.endswith("@" + name):
            item._id = NodeId.parse(f"{item.nodeid}@{name}")
    if loadgroup:
        _longest_units_first(items)


def _longest_units_first(items) -> None:
    """Order the run's work units (a group, or one ungrouped test) by their expected seconds, longest
    first (pyproject turns off xdist's own reordering by test count, which keeps this order), so no
    lane ends the run alone on a long group while the others are idle."""
    per_file: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        per_file[path] = per_file.get(path, 0) + 1

    def expected_seconds(item) -> float:
        path = item.nodeid.split("::")[0]
        seconds = FILE_SECONDS.get(path, 0)
        grouped = item.get_closest_marker("xdist_group") is not None
        return seconds if grouped else seconds / per_file[path]

    items.sort(key=lambda item: -expected_seconds(item))
    units: dict[str, list] = {}  # a work unit as xdist names it (the id's `@group` or the whole id)
    for item in items:
        units.setdefault(_unit_of(item.nodeid), []).append(item)
    items[:] = [item for unit in units.values() for item in unit]


def _unit_of(nodeid: str) -> str:
    """The work unit of a test under loadgroup: its `@group`, else its own id (as xdist splits it)."""
    return nodeid.split("@")[-1] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid


def _is_browser_unit(nodeid: str) -> bool:
    return nodeid.startswith("tests/e2e/")


# Lanes. A browser test spends most of its time waiting on its Streamlit server and Chromium (in a
# quiet run the browser files took ≈ 380 s of wall for ≈ 90 CPU s), so sharing the workers with the
# CPU-bound tests left the cores idle for minutes. With more than two workers (`-n 4` on 2 cores),
# the last `browser_lanes` workers take the browser units and the others the CPU-bound units (each
# takes the other kind once its own is done); the CPU lanes run at a lower priority, so the browser
# lanes' short bursts (a script rerun, a frame drawn) are served at once and the CPU lanes take every
# cycle left over. The lanes follow the worker count, not `os.cpu_count()`, which in a container can
# count the host's cores.
CPU_LANE_NICENESS = 10


def browser_lanes(workers: int) -> int:
    """How many of `workers` take the browser units first: two (one, of three workers), leaving at
    least two CPU lanes; none with two workers or fewer (no lanes)."""
    return max(0, min(2, workers - 2))


def cpu_lanes(workers: int) -> int:
    return workers - browser_lanes(workers)


def _lane_of(worker_id: str, workers: int) -> str:
    return "cpu" if int(worker_id.removeprefix("gw")) < cpu_lanes(workers) else "browser"


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown when it is not loaded
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class LaneScheduling(LoadGroupScheduling):
        """loadgroup, each worker taking the first unit of its lane's kind (see `browser_lanes`)."""

        def _assign_work_unit(self, node) -> None:
            lane = _lane_of(node.gateway.id, self.numnodes)
            if browser_lanes(self.numnodes):
                for scope, unit in self.workqueue.items():
                    if (lane == "browser") == _is_browser_unit(next(iter(unit))):
                        self.workqueue.move_to_end(scope, last=False)
                        break
            super()._assign_work_unit(node)

    return LaneScheduling(config, log)
