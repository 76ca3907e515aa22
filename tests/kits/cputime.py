"""The CPU time a process tree spent: what a test asserts of a real daemon's work, where
a wall-clock wait would depend on the machine's load (issue 35, item 7).

* :func:`tree_cpu_seconds` — user plus system CPU seconds of a process, of every
  process below it still running (``pbp run``'s forkserver and its reader child:
  :mod:`pbp.app.reader`) and of every one of them already reaped.

CPU time is the work done, whatever else the machine runs: under a load of 8 on two
cores a mail's work takes as many CPU seconds as alone (within the noise of shared
caches), while its wall time grows with the load. Linux only (``/proc``, proc(5)).

Example::

    before = tree_cpu_seconds(daemon.process.pid)
    ...  # mail delivered and answered
    assert tree_cpu_seconds(daemon.process.pid) - before < 2.0
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")


def _stat(pid: int) -> tuple[int, float] | None:
    """``(parent pid, utime + stime + cutime + cstime in seconds)`` of process ``pid``
    (None: gone). ``cutime``/``cstime``: its children it waited for, and theirs."""
    try:
        raw = (PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    # proc(5): "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    fields = raw.rpartition(b")")[2].split()
    # fields[0] is field 3 (state): ppid is field 4, utime..cstime fields 14..17.
    ticks = sum(int(fields[index]) for index in (11, 12, 13, 14))
    return int(fields[1]), ticks / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system, to a clock tick, 10 ms) that process ``pid`` and all
    its descendants spent so far, the reaped ones included.

    A descendant that ends between two readings is counted in the first as itself and
    in the second in its parent's ``cutime``/``cstime`` (once its parent reaped it, as
    the forkserver does at once): the difference of two readings is the work done
    between them. 0.0 when ``pid`` is gone.
    """
    found: dict[int, tuple[int, float]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                found[int(entry.name)] = stat
    children: dict[int, list[int]] = {}
    for child, (parent, _) in found.items():
        children.setdefault(parent, []).append(child)
    total, waiting = 0.0, [pid]
    while waiting:
        current = waiting.pop()
        if current in found:
            total += found[current][1]
            waiting.extend(children.get(current, []))
    return total
