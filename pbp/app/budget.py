"""A CPU-time budget for the work one message causes (issue 12: no mail may hold up
the others).

A message's body is read and its commands parsed under :func:`cpu_budget`. One
watchdog thread measures the CPU time of each thread working under a budget (its
POSIX per-thread clock, ``pthread_getcpuclockid``) and, once the budget is spent,
raises :class:`BudgetExceeded` in that thread (CPython's
``PyThreadState_SetAsyncExc``), which Python delivers at the thread's next bytecode
boundary. Pure-Python work (the :mod:`email` package, html2text, pbp's parsers) is
cut there; one C call (a regular expression) runs to its end, which is why every
pattern a body meets is linear as well: the budget is the safety net, not the plan.

CPU time, not wall time: a message is not cut short because the machine is busy
with other work. It works in any thread (``pbp run`` serves rounds from the main
thread and from the scheduler's), unlike ``SIGALRM``.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

#: How often the watchdog looks at the clocks of the threads under a budget, seconds.
WATCH_EVERY_SECONDS = 0.02


class BudgetExceeded(BaseException):
    """The work under :func:`cpu_budget` used more than ``seconds`` of CPU time.

    A :class:`BaseException`, as :class:`KeyboardInterrupt`: an interruption, not an
    error of the code it lands in, so no ``except Exception`` of a library (the
    :mod:`email` package, html2text) or of pbp's readers swallows it."""

    def __init__(self, seconds: float = 0.0) -> None:
        super().__init__(f"over {seconds:g} s of CPU time")
        self.seconds = seconds


@dataclass
class _Watch:
    clock: int  # the thread's CPU clock id
    limit: float  # its reading, seconds, at which the budget is spent
    seconds: float
    fired: bool = False


_cond = threading.Condition()
_active: dict[int, _Watch] = {}  # thread ident -> its budget
_watchdog: threading.Thread | None = None
#: The watchdog waits, with no budget to watch, until one is entered (else it looks
#: again within WATCH_EVERY_SECONDS anyway, and a new budget need not wake it).
_idle = False


def _raise_in(ident: int, exception: type[BaseException] | None) -> None:
    """Make ``exception`` pending in thread ``ident`` (None: clear a pending one)."""
    target = ctypes.py_object(exception) if exception is not None else None
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), target)


class _Spent(BudgetExceeded):
    """What the watchdog raises: a class (the C API takes a class, not an instance)."""

    def __init__(self) -> None:
        watch = _active.get(threading.get_ident())
        super().__init__(watch.seconds if watch is not None else 0.0)


def _watch() -> None:
    global _idle
    with _cond:
        while True:
            if not _active:
                _idle = True
                _cond.wait()
                _idle = False
                continue
            for ident, watch in list(_active.items()):
                if watch.fired:
                    continue
                try:
                    used = time.clock_gettime(watch.clock)
                except OSError:  # the thread is gone
                    del _active[ident]
                    continue
                if used >= watch.limit:
                    watch.fired = True
                    _raise_in(ident, _Spent)
            _cond.wait(WATCH_EVERY_SECONDS)


@contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Run the ``with`` block on at most ``seconds`` of this thread's CPU time.

    :raises BudgetExceeded: the block used more; it was interrupted at a bytecode
        boundary (the caller treats the message as unreadable). A budget inside
        another budget of the same thread is ignored: the outer one governs.
    """
    global _watchdog
    ident = threading.get_ident()
    clock = time.pthread_getcpuclockid(ident)
    with _cond:
        outer = _active.get(ident)
        if outer is not None and not outer.fired:
            watch = None
        else:
            watch = _Watch(clock, time.clock_gettime(clock) + seconds, seconds)
            _active[ident] = watch
            if _watchdog is None or not _watchdog.is_alive():
                _watchdog = threading.Thread(target=_watch, name="pbp-cpu-budget", daemon=True)
                _watchdog.start()
            elif _idle:
                # Only then: waking it for every budget (every mail) cost the thread
                # switches to it and back (issue 18).
                _cond.notify()
    if watch is None:
        yield
        return
    try:
        yield
    finally:
        with _cond:
            if _active.get(ident) is watch:
                del _active[ident]
            if watch.fired:
                # Raised but perhaps not delivered yet: never outside the block.
                _raise_in(ident, None)
