"""annotation.store.bulk: work without the cyclic collector, and a command's end without its last
collection."""

import gc
import subprocess
import sys
from pathlib import Path

from annotation.store.bulk import without_cycle_collection

ROOT = Path(__file__).resolve().parents[3]


def test_the_collector_is_off_inside_the_block_and_as_it_was_after_even_when_nested():
    assert gc.isenabled()
    with without_cycle_collection():
        with without_cycle_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_command_ended_without_a_last_collection_keeps_its_exit_code_atexit_handlers_and_output(tmp_path):
    marker = tmp_path / "atexit-ran"
    script = (
        "import atexit, pathlib, sys\n"
        "from annotation.store.bulk import exit_without_a_last_collection\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'yes')\n"
        "print('printed before the end', end='')\n"
        "exit_without_a_last_collection(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert (done.returncode, done.stdout, marker.read_text()) == (3, "printed before the end", "yes")
