"""Shared by the browser benchmarks: a Streamlit script served headless on a free 127.0.0.1 port."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def served(script: Path | str, project: Path, log: Path, cwd: Path = ROOT):
    """`streamlit run script` for `project` on a free 127.0.0.1 port, from `cwd` (whose
    .streamlit/config.toml it reads); yields its URL."""
    port = free_port()
    env = {**os.environ, "MURGAT_PROJECT": str(project), "PYTHONPATH": str(ROOT)}
    command = [
        str(Path(sys.executable).parent / "streamlit"),
        "run",
        str(script),
        "--server.headless",
        "true",
    ]
    command += ["--server.address", "127.0.0.1", "--server.port", str(port)]
    # Streamlit's default has the page send usage metrics to a host off this machine (and writes
    # ~/.streamlit/machine_id_v4): a benchmark's traffic stays on 127.0.0.1.
    command += ["--browser.gatherUsageStats", "false"]
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            with contextlib.suppress(OSError):
                if urllib.request.urlopen(url + "/_stcore/health", timeout=2).status == 200:
                    break
            if process.poll() is not None:
                raise RuntimeError(f"streamlit exited; see {log}")
            time.sleep(0.25)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)
