"""The entries of a Maildir's ``new/`` and ``cur/`` read as messages
(:func:`read_entry`, :func:`read_done`) for :class:`pbp.mail.maildir.MaildirInbox`,
their keys (:func:`key_of`) and file times (:func:`to_ns`, :func:`from_ns`).

Only regular files are read. Every entry of ``new/`` and ``cur/`` is ``lstat``-ed
first and opened with ``O_NOFOLLOW | O_NONBLOCK`` (then ``fstat``-ed again, for an
entry swapped between the two): a symbolic link is never followed, and a FIFO, a
socket, a device or a directory is never opened, so none of them can block a round
or smuggle another file's content in. Nor is a file with a second name (a hard
link to a file elsewhere), once it is :data:`LINK_GRACE` seconds old. Such an entry
comes back as a :class:`~pbp.mail.base.RawMessage` with ``raw=b""`` and a ``defect``
(``"not a regular file: symlink"``), and :meth:`pbp.mail.maildir.MaildirInbox.mark_done`
moves it aside like mail (``rename``, which never follows a link).

A message larger than the inbox's ``max_message_size`` (its ``stat`` size) is not
read whole: only its header section, at most :data:`HEADER_LIMIT` bytes. Of a header
section over the bounds (:data:`~pbp.mail.base.HEADER_BYTES`,
:data:`~pbp.mail.base.MAX_HEADER_FIELDS`) only what :func:`~pbp.mail.base.cut_header`
keeps is delivered, whatever the size (``long_header``).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pbp.mail.base import HEADER_BYTES, RawMessage, read_head
from pbp.mail.maildirfolders import KEPT_FOLDER

HEADER_LIMIT = HEADER_BYTES
"""Most bytes read of a message over the size limit: its header section, or this many
bytes of it when no blank line ends it sooner (:data:`pbp.mail.base.HEADER_BYTES`)."""

LINK_GRACE = 60.0
"""Seconds a regular file of ``new/`` or ``cur/`` with several names (hard links) is
left unread as a delivery in progress; after them it is moved aside unread."""

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def key_of(filename: str) -> str:
    """The unique name (the key) in a Maildir file name.

    ``"1700000000.M1P2Q3.h:2,S"`` -> ``"1700000000.M1P2Q3.h"``; ``:2,`` starts the
    info part with flags such as ``S`` (seen).
    """
    return filename.split(":", 1)[0]


def to_ns(at: datetime) -> int:
    """Nanoseconds since the Unix epoch of an aware datetime, exactly (no float rounding).

    :raises ValueError: ``at`` is naive.
    """
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"delivery time must be timezone-aware, got naive {at.isoformat()}")
    delta = at - _EPOCH
    return ((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000


def from_ns(ns: int) -> datetime:
    """Aware UTC datetime of a file time in nanoseconds (microseconds kept, the rest dropped)."""
    return _EPOCH + timedelta(microseconds=ns // 1000)


def message_files(path: Path) -> list[Path]:
    """Every message file in ``new/`` and ``cur/`` of one Maildir (not its subfolders)."""
    files: list[Path] = []
    for sub in ("new", "cur"):
        directory = path / sub
        if directory.is_dir():
            files.extend(p for p in directory.iterdir() if not p.name.startswith("."))
    return files


def arrival(file: Path) -> datetime | None:
    """Delivery time of one message file, or None when it vanished meanwhile."""
    try:
        return from_ns(file.stat().st_mtime_ns)
    except FileNotFoundError:
        return None


def _odd_kind(mode: int) -> str | None:
    """What a Maildir entry is when it is not a regular file (``"symlink"``, ``"FIFO"``,
    ``"directory"``, ``"socket"``, ``"character device"``, ``"block device"``), or None
    for a regular file. ``mode`` is an ``lstat``/``fstat`` ``st_mode``."""
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISLNK, "symlink"),
        (stat.S_ISDIR, "directory"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return f"file of type {stat.S_IFMT(mode):#o}"


def _read_regular(fd: int, size: int, limit: int) -> tuple[bytes, bool, str | None]:
    """``(raw, truncated, long_header)`` of the open regular file ``fd`` of ``size``
    bytes: all of it when ``size <= limit``, else only its header section (at most
    :data:`~pbp.mail.base.HEADER_BYTES` bytes read); a header section over the bounds
    (:func:`~pbp.mail.base.read_head`) comes cut, whatever the size, as
    :class:`~pbp.mail.base.RawMessage` says."""
    with os.fdopen(fd, "rb", closefd=False) as f:
        if size <= limit:
            data = f.read(size + 1)
            if len(data) > size:  # it grew since fstat: read on, up to the limit
                data += f.read(limit + 1 - len(data))
            if len(data) <= limit:
                head = read_head(data, whole=True)
                assert head is not None  # whole
                if head.long is None:
                    return data, False, None
                return head.raw, True, head.long
        else:
            data = f.read(HEADER_BYTES)
        head = read_head(data[:HEADER_BYTES], whole=len(data) < HEADER_BYTES)
        assert head is not None  # whole, or HEADER_BYTES long
        return head.raw, True, head.long


def _kept_copy(file: Path, opened: os.stat_result) -> bool:
    """True when ``file``'s second name is its copy in :data:`KEPT_FOLDER` (made by
    :meth:`pbp.mail.maildir.MaildirInbox.keep` before a crash kept it from moving on)."""
    if opened.st_nlink != 2:
        return False
    root = file.parent.parent
    for sub in ("new", "cur"):
        try:
            there = os.lstat(root / KEPT_FOLDER / sub / file.name)
        except FileNotFoundError:
            continue
        if (there.st_dev, there.st_ino) == (opened.st_dev, opened.st_ino):
            return True
    return False


def read_entry(file: Path, limit: int) -> RawMessage | None:
    """One Maildir entry as a message, or None when it vanished meanwhile.

    Never follows a symlink and never opens anything but a regular file (see the
    module); an entry that is no regular file or cannot be opened comes with
    ``raw=b""``, ``size=None`` and its ``defect``.
    """
    key = key_of(file.name)
    try:
        before = os.lstat(file)
    except FileNotFoundError:
        return None
    arrived = from_ns(before.st_mtime_ns)
    kind = _odd_kind(before.st_mode)
    if kind is not None:
        return RawMessage(key, None, arrived, b"", defect=f"not a regular file: {kind}")
    try:
        fd = os.open(file, _OPEN_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as error:
        # ELOOP: O_NOFOLLOW met a symlink swapped in since lstat; EACCES: unreadable.
        if error.errno == errno.ELOOP:
            return RawMessage(key, None, arrived, b"", defect="not a regular file: symlink")
        reason = error.strerror or type(error).__name__
        return RawMessage(key, None, arrived, b"", defect=f"cannot be read: {reason}")
    try:
        opened = os.fstat(fd)
        kind = _odd_kind(opened.st_mode)
        if kind is not None:  # swapped since lstat
            return RawMessage(key, None, arrived, b"", defect=f"not a regular file: {kind}")
        if opened.st_nlink > 1 and not _kept_copy(file, opened):
            # Another name for the same file: a delivery that links tmp/ to new/ and
            # then unlinks tmp/ (qmail, Postfix) for an instant; left for the next
            # round. Older, it is a link to a file elsewhere, and never read.
            if time.time() - opened.st_mtime < LINK_GRACE:
                return None
            defect = f"not a regular file: hard link ({opened.st_nlink} names)"
            return RawMessage(key, None, arrived, b"", defect=defect)
        raw, truncated, long_header = _read_regular(fd, opened.st_size, limit)
        arrived = from_ns(opened.st_mtime_ns)
        return RawMessage(
            key, None, arrived, raw, opened.st_size, truncated, long_header=long_header
        )
    finally:
        os.close(fd)


def read_done(file: Path, limit: int) -> RawMessage | None:
    """One regular file of ``.done`` as a message (never through a symlink), or None
    when it is no regular file or vanished."""
    try:
        fd = os.open(file, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            return None
        raw, truncated, long_header = _read_regular(fd, opened.st_size, limit)
        arrived = from_ns(opened.st_mtime_ns)
        key = key_of(file.name)
        return RawMessage(
            key, None, arrived, raw, opened.st_size, truncated, long_header=long_header
        )
    finally:
        os.close(fd)
