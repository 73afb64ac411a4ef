"""Background work gives way to page runs (pages/widgets/page_first.py)."""

import threading
import time

from pages.widgets import page_first
from pages.widgets.page_first import give_way, page_running


def test_a_background_step_waits_until_the_page_run_ends():
    ended = threading.Event()
    waited = []

    def background_step():
        give_way()
        waited.append(ended.is_set())

    with page_running():
        step = threading.Thread(target=background_step)
        step.start()
        time.sleep(0.1)
        assert step.is_alive()  # held while the page runs
        ended.set()
    step.join(5)
    assert waited == [True]


def test_a_background_step_goes_on_at_once_when_no_page_runs():
    start = time.perf_counter()
    give_way()
    assert time.perf_counter() - start < page_first.MOST_WAIT_S / 2


def test_a_page_that_never_ends_holds_a_step_at_most_the_longest_wait():
    with page_running():
        start = time.perf_counter()
        give_way()
        assert page_first.MOST_WAIT_S <= time.perf_counter() - start < 10 * page_first.MOST_WAIT_S
