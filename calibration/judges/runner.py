"""Run judge configurations over a project: plan, run (concurrent, cached, resumable), assemble.

- `plan_run` (plan.py) asks nothing: the calls still needed after the cache, and their cost.
- `run_configurations` makes the calls: per-judge thread pools (each judge's
  `max_concurrency`) under one global limit, retries with exponential backoff and jitter,
  every finished call committed at once, a hard budget (`max_calls`, `max_cost`) and a stop
  event that both stop cleanly (no new call starts; calls in flight finish and are kept).
  Records are written for the responses whose every call is answered.
- `assemble_records` rebuilds the records from the cache alone, with zero calls.
A call is made at most once per run, and never again once answered (the cache), so a rerun
after a crash or Ctrl-C repeats nothing that was answered.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from annotation.protocol.records import EvaluationRecord
from annotation.store.project_store import ProjectStore
from calibration.judges.adapters import CallError, make_adapter
from calibration.judges.cache import CallCache, CallRecord
from calibration.judges.judges_file import Configuration, JudgeConfig
from calibration.judges.parsing import parse_answer
from calibration.judges.pipeline import (
    Answer,
    CallSpec,
    IncompleteResponse,
    failed_calls,
    project_pipelines,
)
from calibration.judges.plan import RunPlan, estimated_cost


class RunInterrupted(Exception):
    """No new call may start: the budget is spent, or the run was asked to stop."""


@dataclass
class RunProgress:
    calls_done: int
    calls_left: int
    cache_hits: int
    failed: int
    retries: int
    cost: float
    elapsed_s: float
    eta_s: float | None
    pipelines_done: int
    pipelines_total: int


@dataclass
class RunReport:
    configurations: list[str]
    records: list[EvaluationRecord] = field(default_factory=list)
    records_written: int = 0
    incomplete: list[tuple[str, str, str]] = field(default_factory=list)  # (config, response, why)
    calls_made: int = 0
    cache_hits: int = 0
    failed: int = 0
    retries: int = 0
    requests: int = 0  # HTTP attempts, retries included
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    elapsed_s: float = 0.0
    stopped: str | None = None  # why the run stopped early, if it did
    call_errors: dict[str, int] = field(default_factory=dict)  # a failed call's last error → how many


class CallBroker:
    """Gives each asked call an Answer: from this run's memory, the cache, or one network call."""

    def __init__(
        self,
        store: ProjectStore,
        judges: dict[str, JudgeConfig],
        *,
        concurrency: int,
        allow_calls: bool,
        max_calls: int | None,
        max_cost: float | None,
        stop: threading.Event,
        on_change: Callable[[], None],
        report: RunReport,
    ):
        self.store, self.cache = store, CallCache(store)
        self.allow_calls, self.max_calls, self.max_cost = allow_calls, max_calls, max_cost
        self.stop, self.on_change, self.report = stop, on_change, report
        self._lock = threading.Lock()
        self._known: dict[str, Future] = {}
        self._reserved_calls = 0
        self._reserved_cost = 0.0
        self._closed = False  # the budget is spent
        self._global = threading.Semaphore(max(1, concurrency))
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._adapters: dict[str, object] = {}
        if allow_calls:
            for name, judge in judges.items():
                self._adapters[name] = make_adapter(judge, judge.api_key())
                self._pools[name] = ThreadPoolExecutor(
                    min(judge.max_concurrency, max(1, concurrency)), thread_name_prefix=f"judge-{name}"
                )

    def shutdown(self) -> None:
        for pool in self._pools.values():
            pool.shutdown(wait=True)

    def ask(self, specs: list[CallSpec]) -> list[Answer]:
        """The answers of `specs`; RunInterrupted when some could not be asked (budget, stop),
        unless some that were asked failed: then the response says why they failed."""
        futures = [self._future(spec) for spec in specs]
        answers, interrupted = [], None
        for future in futures:
            try:
                answers.append(future.result())
            except RunInterrupted as exc:
                interrupted = interrupted or exc
        if interrupted is None:
            return answers
        raise failed_calls(answers) or interrupted  # passes through the pipeline to the run

    def _future(self, spec: CallSpec) -> Future:
        with self._lock:
            known = self._known.get(spec.key)
        if known is not None:
            return known
        record = self.cache.answered(spec.key)
        with self._lock:
            if spec.key in self._known:  # another pipeline got here first
                return self._known[spec.key]
            future: Future = Future()
            self._known[spec.key] = future
            if record is not None:
                self.report.cache_hits += 1
                future.set_result(
                    Answer(
                        spec.key,
                        "answered",
                        parse_answer(spec.stage, record.response, spec.n_citations),
                        raw=record.response,
                    )
                )
                return future
            refusal = self._refusal(spec)
            if refusal:
                del self._known[spec.key]  # not asked: a later run must still ask it
                future.set_exception(RunInterrupted(refusal))
                return future
            self._reserved_calls += 1
            estimate = (
                0.0 if self.max_cost is None else estimated_cost(spec.judge, spec, spec.stage, self.cache)
            )
            self._reserved_cost += estimate
        self._pools[spec.judge.name].submit(self._execute, spec, future, estimate)
        return future

    def _refusal(self, spec: CallSpec) -> str | None:
        """Why this call may not start (called under the lock); sets the run's stop reason."""
        if not self.allow_calls:
            return "not in the cache (assembling from the cache makes no calls)"
        if self.stop.is_set() or self._closed:
            return self.report.stopped or "stopped"
        reason = None
        if self.max_calls is not None and self._reserved_calls >= self.max_calls:
            reason = f"budget: --max-calls {self.max_calls} reached"
        elif self.max_cost is not None:
            estimate = estimated_cost(spec.judge, spec, spec.stage, self.cache)
            if self.report.cost + self._reserved_cost + estimate > self.max_cost + 1e-12:
                reason = f"budget: --max-cost {self.max_cost:g} reached"
        if reason:
            # stop cleanly: nothing new is admitted; admitted calls (within budget) still run
            self.report.stopped = self.report.stopped or reason
            self._closed = True
        return reason

    def _execute(self, spec: CallSpec, future: Future, estimate: float) -> None:
        try:
            if self.stop.is_set():  # queued but not started: spend nothing
                with self._lock:
                    self._reserved_calls -= 1
                    del self._known[spec.key]
                future.set_exception(RunInterrupted(self.report.stopped or "stopped"))
                return
            with self._global:
                answer = self._call(spec)
            future.set_result(answer)
        except BaseException as exc:  # the future must always resolve, or a pipeline hangs
            future.set_exception(exc)
        finally:
            with self._lock:
                self._reserved_cost -= estimate
            self.on_change()

    def _call(self, spec: CallSpec) -> Answer:
        from annotation.media.files import MediaError

        judge = spec.judge
        try:
            parts = [p.cut(self.store.cache_dir) for p in spec.parts]
        except (MediaError, OSError, ValueError) as exc:
            with self._lock:
                self._reserved_calls -= 1
            return Answer(spec.key, "media_failed", error=f"media part could not be cut: {exc}")
        adapter = self._adapters[judge.name]
        error = None
        for attempt in range(judge.max_retries + 1):
            started = time.monotonic()
            with self._lock:
                self.report.requests += 1
            try:
                reply = adapter.complete(spec.prompt, parts, spec.stage)
            except CallError as exc:
                error = str(exc)
                if not exc.retryable or attempt == judge.max_retries:
                    break
                with self._lock:
                    self.report.retries += 1
                ceiling = min(judge.backoff_max_s, judge.backoff_base_s * 2**attempt)
                delay = max(random.uniform(0, ceiling), min(exc.retry_after_s or 0, judge.backoff_max_s))
                if self.stop.wait(delay):  # stopping: give the call up; a later run asks again
                    raise RunInterrupted(
                        f"{self.report.stopped or 'stopped'} (while waiting to retry)"
                    ) from None
                continue
            latency_ms = int((time.monotonic() - started) * 1000)
            parsed = parse_answer(spec.stage, reply.text, spec.n_citations)
            cost = judge.cost(reply.tokens_in, reply.tokens_out)
            self.cache.put(
                CallRecord(
                    spec.key,
                    judge.name,
                    judge.model,
                    spec.stage,
                    spec.request_description(),
                    reply.text,
                    parsed.to_dict(),
                    None,
                    reply.tokens_in,
                    reply.tokens_out,
                    latency_ms,
                    cost,
                )
            )
            with self._lock:
                self.report.calls_made += 1
                self.report.cost += cost
                self.report.tokens_in += reply.tokens_in or 0
                self.report.tokens_out += reply.tokens_out or 0
            return Answer(spec.key, "answered", parsed, raw=reply.text)
        self.cache.put(
            CallRecord(spec.key, judge.name, judge.model, spec.stage, spec.request_description(), error=error)
        )
        with self._lock:
            self.report.failed += 1
            self.report.call_errors[error] = self.report.call_errors.get(error, 0) + 1
        return Answer(spec.key, "failed", error=error)


class _ProgressReporter:
    """Calls the caller's `progress` with a RunProgress after each call and each finished response."""

    def __init__(self, progress, report: RunReport, plan: RunPlan | None, total: int, started: float):
        self.progress, self.report, self.plan, self.total, self.started = (
            progress,
            report,
            plan,
            total,
            started,
        )
        self.pipelines_done = 0
        self._lock = threading.Lock()

    def __call__(self) -> None:
        if self.progress is None:
            return
        report = self.report
        with self._lock:
            elapsed = time.monotonic() - self.started
            expected = self.plan.calls_to_make if self.plan is not None else report.calls_made
            left = max(0, expected - report.calls_made - report.failed)
            rate = report.calls_made / elapsed if elapsed > 0 and report.calls_made else None
            self.progress(
                RunProgress(
                    report.calls_made,
                    left,
                    report.cache_hits,
                    report.failed,
                    report.retries,
                    report.cost,
                    elapsed,
                    left / rate if rate else None,
                    self.pipelines_done,
                    self.total,
                )
            )


def _run_pipelines(
    pipelines,
    broker: CallBroker,
    report: RunReport,
    stop: threading.Event,
    reporter: _ProgressReporter,
    workers: int,
) -> dict[tuple[str, str], EvaluationRecord]:
    """Run every pipeline on a pool; {(configuration id, response id): record} of those that
    finished, the others listed in `report.incomplete`. Ctrl-C stops cleanly (calls in flight
    finish and are kept; nothing new starts)."""
    finished: dict[tuple[str, str], EvaluationRecord] = {}
    with ThreadPoolExecutor(workers, thread_name_prefix="pipeline") as pool:
        futures = {}
        for configuration, response_id, pipeline in pipelines:
            if isinstance(pipeline, str):
                report.incomplete.append((configuration.id, response_id, pipeline))
                continue
            pipeline.ask = broker.ask
            futures[pool.submit(pipeline.run)] = (configuration.id, response_id)
        collected: set[Future] = set()

        def collect(future: Future) -> None:
            config_id, response_id = futures[future]
            collected.add(future)
            try:
                finished[(config_id, response_id)] = future.result()
            except (IncompleteResponse, RunInterrupted) as exc:
                report.incomplete.append((config_id, response_id, str(exc)))
            except ValueError as exc:  # e.g. a gold fact citing past its sentence
                report.incomplete.append((config_id, response_id, f"bad input: {exc}"))
            except CancelledError:
                report.incomplete.append((config_id, response_id, report.stopped or "stopped"))
            reporter.pipelines_done += 1
            reporter()

        try:
            for future in as_completed(futures):
                collect(future)
        except KeyboardInterrupt:
            report.stopped = report.stopped or "interrupted (Ctrl-C)"
            stop.set()
            for future in futures:
                future.cancel()
            for future in futures:
                if future not in collected:
                    collect(future)
    return finished


def run_configurations(
    store: ProjectStore,
    judges: dict[str, JudgeConfig],
    configurations: list[Configuration],
    *,
    responses: str | list[str] = "gold",
    concurrency: int = 8,
    max_calls: int | None = None,
    max_cost: float | None = None,
    progress: Callable[[RunProgress], None] | None = None,
    stop: threading.Event | None = None,
    plan: RunPlan | None = None,
    allow_calls: bool = True,
    write: bool = True,
) -> RunReport:
    """Run the configurations and store their records (source `judge:V+D+E`).

    Only responses whose every call is answered get a record; the others are listed in
    `report.incomplete` with the reason (failed call, budget, stop, missing gold). Records
    identical to the latest stored one are not written again. `progress` is called from
    worker threads after each call and each finished response. Raises InputError when a
    judge's API key variable is unset or its adapter's package is missing (before any call).
    """
    stop = stop or threading.Event()
    report = RunReport([c.id for c in configurations])
    started = time.monotonic()
    used = {name: judges[name] for c in configurations for name in sorted(c.judge_names)}
    pipelines = list(project_pipelines(store, judges, configurations, responses, ask=None))
    reporter = _ProgressReporter(progress, report, plan, len(pipelines), started)
    broker = CallBroker(
        store,
        used,
        concurrency=concurrency,
        allow_calls=allow_calls,
        max_calls=max_calls,
        max_cost=max_cost,
        stop=stop,
        on_change=reporter,
        report=report,
    )
    finished: dict[tuple[str, str], EvaluationRecord] = {}
    try:
        finished = _run_pipelines(
            pipelines, broker, report, stop, reporter, max(4, min(256, 4 * concurrency))
        )
    finally:
        broker.shutdown()
        if stop.is_set() and report.stopped is None:
            report.stopped = "stopped"
        order = {(c.id, r): i for i, (c, r, _) in enumerate(pipelines)}
        report.records = [finished[k] for k in sorted(finished, key=order.__getitem__)]
        report.incomplete.sort(key=lambda item: order.get((item[0], item[1]), -1))
        if write:
            report.records_written = write_new_records(store, report.records)
        report.elapsed_s = time.monotonic() - started
    return report


def assemble_records(
    store: ProjectStore,
    judges: dict[str, JudgeConfig],
    configurations: list[Configuration],
    *,
    responses: str | list[str] = "gold",
    write: bool = True,
) -> RunReport:
    """Rebuild the configurations' records from cached calls only (zero calls, no keys needed)."""
    return run_configurations(
        store, judges, configurations, responses=responses, concurrency=4, allow_calls=False, write=write
    )


def write_new_records(store: ProjectStore, records: list[EvaluationRecord]) -> int:
    """Store the records that differ from the latest stored one for their (response, source)."""
    sources = {r.source for r in records}
    latest = {
        (r.response_id, r.source): r.to_dict()
        for source in sources
        for r in store.list_records(source=source)
    }
    new = [r for r in records if latest.get((r.response_id, r.source)) != r.to_dict()]
    if new:
        store.add_records(new, imported_from="judge run")
    return len(new)
