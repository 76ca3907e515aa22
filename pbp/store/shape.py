"""What is at the store's path and beside it, looked at before SQLite opens it.

SQLite opens whatever the path names: a directory ("unable to open database file"), a
device such as ``/dev/null`` or a named pipe ("disk I/O error", or a wait forever), and
follows symbolic links. pbp looks first (``lstat``/``stat``, never an ``open``) and says
in one sentence what is there (:class:`~pbp.store.records.NotAStoreError`): the store
must be a regular file, or absent (``pbp run`` makes it); so must the files SQLite keeps
beside it (:data:`SIDE_FILES`) and pbp's writer lock (:mod:`pbp.app.lock`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pbp.store.records import NotAStoreError

#: The files SQLite keeps beside the store, by suffix: the write-ahead log, its shared
#: memory index, and the rollback journal of a store not yet in WAL mode.
SIDE_FILES = {
    "-wal": "write-ahead log",
    "-shm": "shared-memory index",
    "-journal": "rollback journal",
}

_FIX = "give games.yaml's store: the path of pbp's store file (pbp makes it at the first `pbp run`)"


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words for a sentence ("a directory",
    "a named pipe (FIFO)" …; "a regular file" for one)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _followed(path: Path) -> os.stat_result | str | None:
    """The ``stat`` of what ``path`` names, following symbolic links; None when nothing
    is there; a sentence's part when a symbolic link is there but leads nowhere (a loop,
    a missing target)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        if not os.path.islink(path):
            return None
        return f"a symbolic link to {os.readlink(path)}, which does not exist"
    except NotADirectoryError:
        return None
    except OSError as error:  # ELOOP: a link to itself; ENAMETOOLONG …
        return f"a symbolic link that cannot be followed ({error.strerror})"


def store_exists(path: Path) -> bool:
    """Whether a store file is at ``path``: True for a regular file (or a symbolic link
    to one), False when nothing is there; the files SQLite keeps beside it
    (:data:`SIDE_FILES`) are regular files or absent.

    :raises NotAStoreError: something else is at ``path`` (a directory, a named pipe, a
        device, a socket, a symbolic link that leads nowhere), or beside it.
    """
    found = _followed(path)
    if isinstance(found, str):
        raise NotAStoreError(f"the store {path} is {found}, not a pbp store: {_FIX}")
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise NotAStoreError(
            f"the store {path} is {kind_of(found.st_mode)}, not a pbp store: {_FIX}"
        )
    for suffix, words in SIDE_FILES.items():
        beside = path.with_name(path.name + suffix)
        near = _followed(beside)
        if near is None or (not isinstance(near, str) and stat.S_ISREG(near.st_mode)):
            continue
        what = near if isinstance(near, str) else kind_of(near.st_mode)
        raise NotAStoreError(
            f"the store's {words} {beside} is {what}, not the regular file SQLite keeps "
            "there: remove it (SQLite makes it again) and start again"
        )
    return found is not None
