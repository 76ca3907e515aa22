"""One mail-processing writer per store, across processes (``pbp run``, ``pbp close-day``).

SQLite transactions keep each commit whole, but two processes reading the same
inbox or the same outbox would apply or send twice; an advisory ``flock`` on
``<store>.lock`` makes them take turns. The kernel drops the lock when the
process dies, so a crash never leaves it stale.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pbp.store import StoreReadOnlyError, check_writable


@contextmanager
def writer_lock(store: Path) -> Iterator[bool]:
    """Try to become the store's mail writer; yields True when this process is.

    Never blocks: a False means another ``pbp run`` holds it (its pid is in the file).

    :raises pbp.store.StoreReadOnlyError: the store, or the folder of it and its lock,
        is read-only for this user (:func:`pbp.store.check_writable`): one sentence,
        never a ``PermissionError`` from the lock file.
    """
    check_writable(store)
    path = store.with_name(store.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except PermissionError:
        raise StoreReadOnlyError(
            f"the store's writer lock {path} is read-only for this user: make it writable "
            "for the user pbp runs as, or remove it (pbp makes it again)"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def holder(store: Path) -> str:
    """The pid written by the lock's holder, for messages ("" when unknown)."""
    try:
        return store.with_name(store.name + ".lock").read_text().strip()
    except OSError:
        return ""
