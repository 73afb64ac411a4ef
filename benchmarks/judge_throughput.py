"""Judge-run throughput at concurrency 32 against serial, on a server that takes 200 ms per answer.

    .venv/bin/python benchmarks/judge_throughput.py [--responses 40] [--latency 0.2]
        [--concurrency 32] [--serial-calls 40]

The test server (tests/judge_server.py) runs in its own process on 127.0.0.1 so its work
does not share the client's interpreter. Two fresh projects with the same responses (all
citing the same spans, so clips are cut once per project and the figure is about calls):
- serial: concurrency 1, stopped by --max-calls after `--serial-calls` calls (a full serial run
  would take responses × 19 × latency); its rate is calls per second;
- concurrent: the whole run at `--concurrency`, every stage of every response.
Both rates include the whole client: prompt rendering, cache lookups, commits, retries.
Target: concurrent ≥ 20× serial.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from judge_server import make_project, make_video, varied_responses

from calibration.judges.judges_file import JudgeConfig, parse_configuration
from calibration.judges.runner import run_configurations


def timed_run(store, judges, concurrency: int, max_calls: int | None) -> tuple[int, float]:
    configuration = [parse_configuration("j+j+j", judges)]
    start = time.perf_counter()
    report = run_configurations(
        store, judges, configuration, responses="all", concurrency=concurrency, max_calls=max_calls
    )
    elapsed = time.perf_counter() - start
    assert report.failed == 0, report.incomplete[:3]
    return report.calls_made, elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--responses", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--serial-calls", type=int, default=40)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="judge-throughput-"))
    video = make_video(work / "clip.mp4")
    responses = varied_responses(args.responses)
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge_server.py"), "--latency", str(args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()
        judges = {
            "j": JudgeConfig(
                "j",
                "openai",
                "bench",
                (url,),
                max_concurrency=args.concurrency,
                timeout_s=30.0,
                backoff_base_s=0.01,
            )
        }
        serial_calls, serial_s = timed_run(
            make_project(work / "serial", video, responses), judges, 1, args.serial_calls
        )
        calls, concurrent_s = timed_run(
            make_project(work / "concurrent", video, responses), judges, args.concurrency, None
        )
    finally:
        server.stdin.close()
        server.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    serial_rate, concurrent_rate = serial_calls / serial_s, calls / concurrent_s
    result = {
        "latency_s": args.latency,
        "concurrency": args.concurrency,
        "responses": args.responses,
        "serial_calls": serial_calls,
        "serial_s": round(serial_s, 2),
        "serial_calls_per_s": round(serial_rate, 2),
        "concurrent_calls": calls,
        "concurrent_s": round(concurrent_s, 2),
        "concurrent_calls_per_s": round(concurrent_rate, 2),
        "speedup": round(concurrent_rate / serial_rate, 1),
        "ideal_speedup": args.concurrency,
    }
    print(f"{'run':<12}{'calls':>7}{'seconds':>9}{'calls/s':>9}")
    print(f"{'serial':<12}{serial_calls:>7}{serial_s:>9.2f}{serial_rate:>9.2f}")
    print(f"{'c=' + str(args.concurrency):<12}{calls:>7}{concurrent_s:>9.2f}{concurrent_rate:>9.2f}")
    print(f"speedup {result['speedup']}× (ideal {args.concurrency}×, target ≥ 20×)")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
