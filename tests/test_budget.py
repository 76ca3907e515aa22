"""The CPU-time budget of one message's work (issue 12 item 1: no mail holds up the others)."""

from __future__ import annotations

import threading
import time

import pytest
from kits.wait import wait_for

from pbp.app import budget
from pbp.app.budget import BudgetExceeded, cpu_budget


def _spin(seconds: float) -> int:
    """Pure-Python CPU work for about ``seconds`` of this thread's CPU time."""
    end = time.thread_time() + seconds
    turns = 0
    while time.thread_time() < end:
        turns += 1
    return turns


def test_work_over_the_budget_is_cut_short_near_the_budget() -> None:
    start = time.thread_time()
    with pytest.raises(BudgetExceeded) as caught, cpu_budget(0.2):
        _spin(30.0)
    used = time.thread_time() - start
    assert caught.value.seconds == 0.2
    assert str(caught.value) == "over 0.2 s of CPU time"
    assert 0.2 <= used < 1.5


def test_waiting_costs_no_cpu_time_so_it_is_not_cut() -> None:
    with cpu_budget(0.1):
        time.sleep(0.4)
        turns = _spin(0.02)
    assert turns > 0


def test_a_budget_in_another_thread_cuts_that_thread_only() -> None:
    results: dict[str, str] = {}

    def worker() -> None:
        try:
            with cpu_budget(0.1):
                _spin(30.0)
            results["worker"] = "finished"
        except BudgetExceeded:
            results["worker"] = "cut"

    thread = threading.Thread(target=worker)
    thread.start()
    with cpu_budget(5.0):
        _spin(0.3)
    thread.join(10)
    assert results == {"worker": "cut"}


def test_nothing_is_raised_after_the_block_ends() -> None:
    for _ in range(20):
        with cpu_budget(0.05):
            _spin(0.04)
    _spin(0.2)  # a stray exception would land here


def test_an_inner_budget_leaves_the_outer_one_in_charge() -> None:
    with pytest.raises(BudgetExceeded) as caught, cpu_budget(0.1), cpu_budget(60.0):
        _spin(30.0)
    assert caught.value.seconds == 0.1


def test_a_budget_is_watched_whether_the_watchdog_slept_or_was_looking() -> None:
    """Issue 18: the watchdog is woken only when it waits with no budget to watch;
    a budget entered while it looks every WATCH_EVERY_SECONDS is watched at its next
    look. Both are cut near their budget."""
    with cpu_budget(1.0):
        pass
    # Nothing to watch: it comes to wait until woken (however long a loaded machine
    # keeps it from getting there).
    wait_for(lambda: budget._idle is True, 30)
    assert budget._idle is True
    for _ in range(2):  # woken; then entered while it looks at the first one's clock
        start = time.thread_time()
        with pytest.raises(BudgetExceeded), cpu_budget(0.1):
            _spin(30.0)
        assert 0.1 <= time.thread_time() - start < 1.0
