"""One mail-processing writer per store, across processes (``pbp run``, ``pbp close-day``).

SQLite transactions keep each commit whole, but two processes reading the same
inbox or the same outbox would apply or send twice; an advisory ``flock`` on
``<store>.lock`` makes them take turns. The kernel drops the lock when the
process dies, so a crash never leaves it stale.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pbp.store import NotAStoreError, StoreReadOnlyError, check_writable, store_exists
from pbp.store.shape import kind_of

#: How the lock is opened: never through a symbolic link, never waiting on a named
#: pipe; the file is then checked to be a regular one (``fstat``).
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _not_a_lock(path: Path, what: str) -> NotAStoreError:
    return NotAStoreError(
        f"the store's writer lock {path} is {what}, not a regular file: remove it (pbp "
        "makes it again)"
    )


def _open_lock(path: Path) -> int:
    """The lock file at ``path`` opened for writing (made, mode 644, when absent): a
    regular file, never followed through a symbolic link, never a pipe waited on.

    :raises StoreReadOnlyError: it is read-only for this user.
    :raises NotAStoreError: it is a directory, a named pipe, a device, a symbolic link …
    """
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(found.st_mode):
            raise _not_a_lock(path, kind_of(found.st_mode))
    try:
        fd = os.open(path, _OPEN_FLAGS, 0o644)
    except PermissionError:
        raise StoreReadOnlyError(
            f"the store's writer lock {path} is read-only for this user: make it writable "
            "for the user pbp runs as, or remove it (pbp makes it again)"
        ) from None
    except OSError as error:  # replaced since the lstat: ELOOP, EISDIR, ENXIO …
        raise _not_a_lock(path, f"not a file pbp can open ({error.strerror})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _not_a_lock(path, kind_of(mode))
    return fd


@contextmanager
def writer_lock(store: Path) -> Iterator[bool]:
    """Try to become the store's mail writer; yields True when this process is.

    Never blocks: a False means another ``pbp run`` holds it (its pid is in the file).

    :raises pbp.store.StoreReadOnlyError: the store, or the folder of it and its lock,
        is read-only for this user (:func:`pbp.store.check_writable`): one sentence,
        never a ``PermissionError`` from the lock file.
    :raises pbp.store.NotAStoreError: the store is not a regular file
        (:func:`pbp.store.store_exists`), or the lock is not (a directory, a named pipe,
        a symbolic link …): one sentence, never an ``OSError``.
    """
    store_exists(store)
    check_writable(store)
    path = store.with_name(store.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _open_lock(path)
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
    """The pid written by the lock's holder, for messages ("" when unknown, or the lock
    is not a regular file: never a wait on a named pipe)."""
    try:
        fd = os.open(
            store.with_name(store.name + ".lock"), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        )
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, 64).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
