"""The Agreement page's tables below α — every stage's shared units (confusion matrices, fact sets),
each annotator against gold with their can't-tell rate, and each annotator against the others —
worked out once per revision on a background thread that gives way to page runs (`page_first`)
and kept per project
for the whole server process, as α is (`agreement_measure`): a rerun reads them, and after a new
label the page shows the last ones at once (marked as updating) and the new ones when they are
ready. The units, the annotators' rows and their "can't tell" rates come from the project's
`AgreementIndex` (kept per response, see `agreement_measure.agreement_inputs`); at 4,000 labelled
responses × 3 annotators what is left takes well under a CPU second after a label (which records
are finished, read for every record, the confusion counts).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from annotation.agreement.reliability import pair_confusion, shared_units
from calibration.scoring.kept_scores import kept_scores
from calibration.scoring.murgat_s import PRECISION_MODES
from calibration.sweep.parity import annotator_rows as annotators_vs_others
from calibration.sweep.parity import parity_tables
from pages.widgets.agreement_measure import agreement_inputs
from pages.widgets.page_first import give_way

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agreement-tables")
_LOCK = threading.RLock()  # a job may finish inside submit's done-callback, under it
log = logging.getLogger("murgat.app")


@dataclass(frozen=True)
class AgreementTables:
    """What the page's tables show, as of one revision."""

    units: dict  # {stage: {unit key: {annotator: value}}} labelled by two or more (`stage_units`)
    annotators: list[dict]  # `annotator_stats.annotator_rows`
    cant_tell: dict  # `annotator_stats.cant_tell_rates`
    impossible: dict  # {annotator: (facts answered in contradiction, facts answered)}
    others: list[dict]  # `parity.annotator_rows` over every precision mode
    confusions: dict  # {stage: {(a, b): pair_confusion}} of the pairs sharing units (not the facts)


def agreement_tables(store, state) -> AgreementTables:
    """The tables of one project state (the units and the annotators' rows and rates from the
    project's `AgreementIndex`, kept per response; the others' mean score over every record)."""
    inputs = agreement_inputs(store, state)
    units = {stage: shared_units(found) for stage, found in inputs.units.items()}
    give_way()
    confusions = {}
    for stage, shared in units.items():
        if stage != "decomposition":
            confusions[stage] = pair_confusions(shared)
            give_way()
    records = state.annotators
    ids = sorted({r.response_id for r in records})
    _score_giving_way(records)
    others = annotators_vs_others(parity_tables(records, ids, PRECISION_MODES))
    return AgreementTables(
        units=units,
        annotators=inputs.annotators,
        cant_tell=inputs.cant_tell,
        impossible=inputs.impossible,
        others=others,
        confusions=confusions,
    )


def _score_giving_way(records, chunk: int = 200) -> None:
    """Score the records the parity table will score (kept per record object, `kept_scores`), a
    chunk at a time between page runs: a new server process scores every record once (seconds at
    4,000 responses), a new label one response's. A record the scorer rejects is left for
    `parity_tables` to name."""
    for start in range(0, len(records), chunk):
        give_way()
        try:
            kept_scores(records[start : start + chunk], PRECISION_MODES)
        except ValueError:
            return


def pair_confusions(units) -> dict:
    """{(a, b): `pair_confusion`} of every annotator pair that labelled a unit in common."""
    names = sorted({name for values in units.values() for name in values})
    found = {(a, b): pair_confusion(units, a, b) for a, b in combinations(names, 2)}
    return {pair: confusion for pair, confusion in found.items() if confusion}


@dataclass
class _Tables:
    """One project's tables: the latest finished (revision, tables), the one running, the state
    wanted next."""

    latest: tuple[object, AgreementTables] | None = None
    running: tuple[object, Future] | None = None
    wanted: object = None  # a ProjectState
    failed: object = None  # the revision whose tables failed (logged): not tried again


_projects: dict[str, _Tables] = {}


def _start(store, project: _Tables, state) -> None:
    future = _EXECUTOR.submit(agreement_tables, store, state)
    project.running = (state.revision, future)
    future.add_done_callback(lambda f: _finished(store, project, state.revision, f))


def _finished(store, project: _Tables, revision, future: Future) -> None:
    with _LOCK:
        project.running = None
        if future.exception() is None:
            project.latest = (revision, future.result())
        else:
            project.failed = revision
            log.error("the agreement tables failed", exc_info=future.exception())
        wanted, project.wanted = project.wanted, None
        if wanted is not None and (project.latest is None or project.latest[0] != wanted.revision):
            _start(store, project, wanted)


def latest_tables(store, state) -> tuple[AgreementTables | None, bool]:
    """(tables, fresh): the tables of `state` when done (fresh), else the last ones finished (None
    before the first) while those of `state` are worked out in the background. A failure is
    logged and the last tables stay (fresh: nothing more is coming for this revision)."""
    key = str(Path(store.directory).resolve())
    with _LOCK:
        project = _projects.setdefault(key, _Tables())
        if project.latest is not None and project.latest[0] == state.revision:
            return project.latest[1], True
        if project.failed == state.revision:
            return (project.latest[1] if project.latest else None), True
        if project.running is None:
            _start(store, project, state)
            if project.latest is not None and project.latest[0] == state.revision:
                return project.latest[1], True  # done before `_start` returned: its callback ran there
        elif project.running[0] != state.revision:
            project.wanted = state  # after the one running
        return (project.latest[1] if project.latest else None), False


def wait_for_tables(store, state, timeout_s: float | None = None) -> AgreementTables | None:
    """Block until the tables of `state` are worked out (starting them if need be); them."""
    while True:
        tables, fresh = latest_tables(store, state)
        if fresh:
            return tables
        with _LOCK:
            running = _projects[str(Path(store.directory).resolve())].running
        if running is not None:
            try:
                running[1].result(timeout_s)
            except Exception:  # noqa: BLE001 - a failure is logged; the next look says fresh
                pass
