"""Waiting for something another process or thread does: :func:`wait_for`."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(
    predicate: Callable[[], bool],
    timeout: float,
    explain: Callable[[], str] = lambda: "",
    *,
    every: float = 0.1,
) -> None:
    """Poll ``predicate`` every ``every`` seconds for up to ``timeout`` seconds.

    Example: ``wait_for(lambda: len(read_maildir(outbox)) == 6, 20, daemon.output)``.

    :raises AssertionError: it never held; the message is ``explain()`` (e.g. the log).
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s\n{explain()}")
        time.sleep(every)
