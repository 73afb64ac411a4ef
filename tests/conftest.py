"""Test-wide settings and the shared demo project.

Hypothesis's per-example deadline is off: these properties check behaviour, not speed (speed
lives in benchmarks/), and a loaded 2-core CI box must not flake.

The demo (seed 0) takes seconds of video rendering and six scrypt hashes to build, so it is
built once per test run (shared by every xdist worker, behind a file lock) and each module or
test gets its own copy of the directory (SQLite file, media, ground truth): the build itself is
never opened by a test, so nothing a test writes (labels, sessions, settings) leaks into
another. Building is tested where it is the subject (tests/annotation/demo/test_demo.py).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("murgat", deadline=None)
settings.load_profile("murgat")


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> Path:
    """The directory of the demo built once for this run (seed 0). Never open or write it:
    copy it with `copy_demo`."""
    from annotation.demo.project import build_demo

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's directory, shared by its workers (each has its own below)
    built = root / "demo-build"
    with (root / "demo-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first worker builds, the others wait for it
        if not (built / "complete").exists():
            shutil.rmtree(built, ignore_errors=True)
            build_demo(built / "demo", seed=0).close()
            (built / "complete").touch()
    return built / "demo"


@pytest.fixture(scope="module")
def module_demo(demo_build, tmp_path_factory) -> Path:
    """A copy of the demo that the tests of one module share (for tests that only read it, or
    whose writes the module's tests expect)."""
    return Path(shutil.copytree(demo_build, tmp_path_factory.mktemp("demo") / "demo"))


@pytest.fixture
def demo_copy(demo_build, tmp_path) -> Path:
    """This test's own copy of the demo, to write to."""
    return Path(shutil.copytree(demo_build, tmp_path / "demo"))


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
