"""Maildir inbox and outbox: pbp without a mail server.

A Maildir (https://cr.yp.to/proto/maildir.html) is a directory with ``tmp/``,
``new/`` and ``cur/``; every message is one file whose name (up to the first
``:``) is its unique *key*. A message is delivered by writing it into ``tmp/``
and renaming it into ``new/``, so a reader never sees half a message.

* :class:`MaildirInbox` reads moves from ``new/`` and ``cur/`` and, once their
  result is committed, moves them into the Maildir++ subfolder ``.done`` (the GM
  still finds them there with a mail client).
* :class:`MaildirTransport` is the local outbox: every outgoing message becomes
  one file in another Maildir.
* :func:`deliver` drops one message into a Maildir (``pbp mail`` and the tests).

The delivery time of a message (``RawMessage.arrived``, rule D8) is its file's
modification time, kept to the microsecond and returned in UTC. :func:`deliver`
can set it (``at=``) so that a test or ``pbp mail`` decides the game day.

Only regular files are read. Every entry of ``new/`` and ``cur/`` is ``lstat``-ed
first and opened with ``O_NOFOLLOW | O_NONBLOCK`` (then ``fstat``-ed again, for an
entry swapped between the two): a symbolic link is never followed, and a FIFO, a
socket, a device or a directory is never opened, so none of them can block a round
or smuggle another file's content in. Nor is a file with a second name (a hard
link to a file elsewhere), once it is :data:`LINK_GRACE` seconds old. Such an entry comes back as a
:class:`~pbp.mail.base.RawMessage` with ``raw=b""`` and a ``defect`` (``"not a
regular file: symlink"``), and :meth:`MaildirInbox.mark_done` moves it aside like
mail (``rename``, which never follows a link).

A message larger than the inbox's ``max_message_size`` (its ``stat`` size) is not
read whole: only its header section, at most :data:`HEADER_LIMIT` bytes. Of a header
section over the bounds (:data:`~pbp.mail.base.HEADER_BYTES`,
:data:`~pbp.mail.base.MAX_HEADER_FIELDS`) only what :func:`~pbp.mail.base.cut_header`
keeps is delivered, whatever the size (``long_header``).

A Maildir pbp's user cannot read, write or make (another user's, a read-only mount) is
refused when the inbox or outbox is opened, in one sentence (:func:`maildir_problem`,
:class:`MaildirAccessError`), and a fault of the file system met later (the folders'
owner changed while ``pbp run`` serves) is that sentence too (:meth:`MaildirInbox.explain`,
the outbox's :class:`~pbp.mail.base.TransientSendError`), never a traceback.
"""

from __future__ import annotations

import errno
import itertools
import logging
import os
import socket
import stat
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbp.mail.base import (
    DEFAULT_MAX_MESSAGE_SIZE,
    HEADER_BYTES,
    RawMessage,
    TransientSendError,
    read_head,
)

__all__ = [
    "DONE_FOLDER",
    "HEADER_LIMIT",
    "KEPT_FOLDER",
    "MaildirAccessError",
    "MaildirInbox",
    "MaildirTransport",
    "deliver",
    "explain_maildir",
    "maildir_problem",
    "read_maildir",
]

logger = logging.getLogger(__name__)

DONE_FOLDER = ".done"
"""Maildir++ subfolder (relative to the Maildir root) holding processed messages."""

KEPT_FOLDER = ".pbp-kept"
"""Maildir++ subfolder holding a copy of every message set aside for the GM."""

POLL_INTERVAL = 0.2
"""Seconds between two looks at ``new/`` in :meth:`MaildirInbox.wait`."""

HEADER_LIMIT = HEADER_BYTES
"""Most bytes read of a message over the size limit: its header section, or this many
bytes of it when no blank line ends it sooner (:data:`pbp.mail.base.HEADER_BYTES`)."""

LINK_GRACE = 60.0
"""Seconds a regular file of ``new/`` or ``cur/`` with several names (hard links) is
left unread as a delivery in progress; after them it is moved aside unread."""

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SUBDIRS = ("tmp", "new", "cur")
_counter = itertools.count()


def _ensure_maildir(path: Path) -> None:
    """Create ``path`` and its ``tmp/``, ``new/``, ``cur/`` when missing."""
    for sub in _SUBDIRS:
        (path / sub).mkdir(parents=True, exist_ok=True)


def _mark_folder(folder: Path) -> None:
    """Make the Maildir++ folder ``folder`` (:func:`_ensure_maildir`) with its
    ``maildirfolder`` mark, which is made once and never touched again (another user's
    mark would be no fault)."""
    _ensure_maildir(folder)
    mark = folder / "maildirfolder"
    if not mark.exists():
        mark.touch()


class MaildirAccessError(Exception):
    """A Maildir this process's user cannot use as pbp must (:func:`maildir_problem`);
    ``str()`` is one sentence naming the Maildir, the folder at fault and what to do."""


#: ``os.access`` as the process acts (its effective ids), where the system can say so.
_EFFECTIVE = os.access in os.supports_effective_ids


def _can(path: Path, mode: int) -> bool:
    return os.access(path, mode, effective_ids=_EFFECTIVE)


def maildir_problem(path: Path, role: str, folders: Sequence[str] = ()) -> str | None:
    """Why this process's user cannot use the Maildir at ``path`` as pbp's ``role``
    (``"inbox"``, ``"outbox"``: the sentence's word), with its Maildir++ ``folders``
    (the inbox's :data:`DONE_FOLDER` and :data:`KEPT_FOLDER`), or None. Creates nothing.

    pbp reads and writes every folder of it (``tmp/``, ``new/``, ``cur/``, each
    folder's too: mail is delivered through ``tmp/`` and moved out of ``new/`` and
    ``cur/``), and enters ``path`` itself; a folder missing is made later, so the one
    it is made in must be writable. The first fault found, as one sentence:

    - ``the Maildir inbox mail/inbox is read-only for this user (mail/inbox/new cannot
      be written): make it readable and writable for the user pbp runs as (its owner
      and mode, or a read-write mount)`` (another user's folder, or a read-only mount);
    - ``… cannot be read by this user (…)``; ``… cannot be reached by this user (…)``
      (a folder above it closed to him); ``… cannot be made: mail is read-only for this
      user; …`` or ``… is not a folder``; ``… is no Maildir: mail/inbox/new is not a
      folder``; ``… is a folder that holds other files and no Maildir …`` (an existing
      folder with neither ``cur``, ``new`` nor ``tmp`` in it, which pbp would turn into a
      Maildir beside its files: ``/dev``, a home folder).
    """
    what = f"the Maildir {role} {path}"
    fix = (
        "make it readable and writable for the user pbp runs as (its owner and mode, or a "
        "read-write mount)"
    )
    order = ("new", "cur", "tmp")  # where mail is first: the folder a reader would look at
    folders_of = [path / sub for sub in order]
    for folder in folders:
        folders_of += [path / folder, *(path / folder / sub for sub in order)]
    for directory in [path, *folders_of]:
        try:
            found = os.stat(directory)
        except FileNotFoundError:
            above = directory.parent
            while not above.exists() and above != above.parent:
                above = above.parent
            if not above.is_dir():
                return f"{what} cannot be made: {above} is not a folder"
            if not _can(above, os.W_OK | os.X_OK):
                return f"{what} cannot be made: {above} is read-only for this user; {fix}"
            continue
        except OSError as error:  # a folder above it that he may not enter
            reason = error.strerror or type(error).__name__
            return f"{what} cannot be reached by this user ({directory}: {reason}): {fix}"
        if not stat.S_ISDIR(found.st_mode):
            return f"{what} is no Maildir: {directory} is not a folder"
        if not _can(directory, os.R_OK | os.X_OK):
            return f"{what} cannot be read by this user ({directory}): {fix}"
        if directory == path and not _maildir_or_empty(path, folders):
            return (
                f"{what} is a folder that holds other files and no Maildir (no cur, new or "
                "tmp in it): give the path of a Maildir, or of a new or empty folder (pbp "
                "makes the Maildir in it)"
            )
        if directory != path and not _can(directory, os.W_OK):
            return f"{what} is read-only for this user ({directory} cannot be written): {fix}"
    return None


def _maildir_or_empty(path: Path, folders: Sequence[str] = ()) -> bool:
    """Whether the folder ``path`` holds a Maildir's ``cur``, ``new`` or ``tmp`` or one
    of pbp's Maildir++ ``folders`` (``.done``: an inbox of an older pbp, or one whose
    ``new`` was removed), or nothing at all (pbp may make a Maildir there). Reads one
    entry at most beyond those ``lstat`` calls."""
    if any(os.path.lexists(path / sub) for sub in (*_SUBDIRS, *folders)):
        return True
    with os.scandir(path) as entries:
        return next(entries, None) is None


def _opened(path: Path, role: str, folders: Sequence[str] = (), made: int = 0) -> None:
    """Make the Maildir at ``path`` and the first ``made`` of its Maildir++ ``folders``
    where missing, once :func:`maildir_problem` finds nothing in the way of any of
    them (the others are made when first needed).

    :raises MaildirAccessError: its sentence (or what making a folder met)."""
    problem = maildir_problem(path, role, folders)
    if problem is None:
        try:
            _ensure_maildir(path)
            for folder in folders[:made]:
                _mark_folder(path / folder)
        except OSError as error:
            problem = maildir_problem(path, role, folders) or _fault(path, role, error)
    if problem is not None:
        raise MaildirAccessError(problem)


def _fault(path: Path, role: str, error: OSError) -> str:
    """``error`` met in the Maildir at ``path`` as one sentence (its place and reason)."""
    reason = error.strerror or str(error) or type(error).__name__
    place = f" ({error.filename})" if error.filename else ""
    return f"the Maildir {role} {path} cannot be used: {reason}{place}"


def explain_maildir(
    error: BaseException, path: Path, role: str, folders: Sequence[str] = ()
) -> str | None:
    """``error`` as one sentence when it is the Maildir's at ``path`` (an
    :class:`OSError` on a file in it: :func:`maildir_problem`'s sentence, else its
    reason and file; a :class:`MaildirAccessError`), else None."""
    if isinstance(error, MaildirAccessError):
        return str(error)
    if not isinstance(error, OSError) or not error.filename:
        return None
    where = os.path.abspath(os.fsdecode(error.filename))
    if not Path(where).is_relative_to(os.path.abspath(path)):
        return None
    return maildir_problem(path, role, folders) or _fault(path, role, error)


def _key_of(filename: str) -> str:
    """The unique name (the key) in a Maildir file name.

    ``"1700000000.M1P2Q3.h:2,S"`` -> ``"1700000000.M1P2Q3.h"``; ``:2,`` starts the
    info part with flags such as ``S`` (seen).
    """
    return filename.split(":", 1)[0]


def _to_ns(at: datetime) -> int:
    """Nanoseconds since the Unix epoch of an aware datetime, exactly (no float rounding).

    :raises ValueError: ``at`` is naive.
    """
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"delivery time must be timezone-aware, got naive {at.isoformat()}")
    delta = at - _EPOCH
    return ((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000


def _from_ns(ns: int) -> datetime:
    """Aware UTC datetime of a file time in nanoseconds (microseconds kept, the rest dropped)."""
    return _EPOCH + timedelta(microseconds=ns // 1000)


def _unique_name() -> str:
    """A new Maildir unique name: ``"<seconds>.M<microseconds>P<pid>Q<n>.<host>"``, the
    microseconds in six digits so that names sort in the order they were made (a
    reader of a Maildir outbox sees the mails in the order they were sent)."""
    now_ns = time.time_ns()
    seconds, rest = divmod(now_ns, 1_000_000_000)
    host = socket.gethostname().replace("/", r"\057").replace(":", r"\072")
    return f"{seconds}.M{rest // 1000:06d}P{os.getpid()}Q{next(_counter)}.{host}"


def deliver(path: Path, raw: bytes, at: datetime | None = None) -> str:
    """Deliver one message into the Maildir at ``path`` and return its key.

    The message is written to ``tmp/``, flushed, given its delivery time and then
    renamed into ``new/`` (atomic on one file system). The Maildir is created when
    missing.

    :param raw: the whole RFC 5322 message, e.g. ``b"From: a@example.test\\n\\nSTATUS\\n"``.
    :param at: delivery time (timezone-aware, any zone); default now. It becomes the
        file's modification time, i.e. the message's ``arrived``.
    :returns: the key, e.g. ``"1764608400.M123456P4242Q0.host"``.
    :raises ValueError: ``at`` is naive.
    :raises OSError: the file could not be written.
    """
    at_ns = None if at is None else _to_ns(at)
    _ensure_maildir(path)
    key = _unique_name()
    tmp = path / "tmp" / key
    with open(tmp, "xb") as f:
        f.write(raw)
        f.flush()
        os.fsync(f.fileno())
    try:
        if at_ns is not None:
            os.utime(tmp, ns=(at_ns, at_ns))
        os.rename(tmp, path / "new" / key)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return key


def _message_files(path: Path) -> list[Path]:
    """Every message file in ``new/`` and ``cur/`` of one Maildir (not its subfolders)."""
    files: list[Path] = []
    for sub in ("new", "cur"):
        directory = path / sub
        if directory.is_dir():
            files.extend(p for p in directory.iterdir() if not p.name.startswith("."))
    return files


def _arrival(file: Path) -> datetime | None:
    """Delivery time of one message file, or None when it vanished meanwhile."""
    try:
        return _from_ns(file.stat().st_mtime_ns)
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
    :meth:`MaildirInbox.keep` before a crash kept it from moving on)."""
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


def _read_entry(file: Path, limit: int) -> RawMessage | None:
    """One Maildir entry as a message, or None when it vanished meanwhile.

    Never follows a symlink and never opens anything but a regular file (see the
    module); an entry that is no regular file or cannot be opened comes with
    ``raw=b""``, ``size=None`` and its ``defect``.
    """
    key = _key_of(file.name)
    try:
        before = os.lstat(file)
    except FileNotFoundError:
        return None
    arrived = _from_ns(before.st_mtime_ns)
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
        arrived = _from_ns(opened.st_mtime_ns)
        return RawMessage(
            key, None, arrived, raw, opened.st_size, truncated, long_header=long_header
        )
    finally:
        os.close(fd)


def _read_done(file: Path, limit: int) -> RawMessage | None:
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
        arrived = _from_ns(opened.st_mtime_ns)
        key = _key_of(file.name)
        return RawMessage(
            key, None, arrived, raw, opened.st_size, truncated, long_header=long_header
        )
    finally:
        os.close(fd)


class MaildirInbox:
    """An :class:`~pbp.mail.base.Inbox` reading a local Maildir.

    Messages not yet done are those in ``new/`` and ``cur/`` of ``path``;
    :meth:`mark_done` moves them, file name and time unchanged, into the same
    subdirectory of the Maildir++ folder ``path/.done``. Flags in the file name
    (``:2,S``, i.e. ``\\Seen``) are neither read nor changed.

    :param max_message_size: bytes; a larger message is returned with only its
        header section (``truncated=True``), see :class:`~pbp.mail.base.RawMessage`.

    Example::

        inbox = MaildirInbox(Path("mail/inbox"))
        for message in inbox.fetch_new():   # [RawMessage(key="1764...host", uidvalidity=None, ...)]
            ...                              # commit the result, then
            inbox.mark_done([message.key])
    """

    #: The Maildir++ folders pbp keeps in the inbox (:func:`maildir_problem` checks them).
    FOLDERS = (DONE_FOLDER, KEPT_FOLDER)

    def __init__(self, path: Path, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE) -> None:
        """Open (and create when missing) the Maildir at ``path``.

        :raises ValueError: ``max_message_size`` not above 0.
        :raises MaildirAccessError: this user cannot read, write or make it, or its
            ``.done`` (:func:`maildir_problem`): one sentence.
        """
        if max_message_size <= 0:
            raise ValueError(f"max_message_size must be > 0, got {max_message_size}")
        self.path = path
        self.max_message_size = max_message_size
        self.done_path = path / DONE_FOLDER
        _opened(path, "inbox", self.FOLDERS, made=1)  # .pbp-kept: at the first keep
        self._known: set[str] = set()

    def problem(self) -> str | None:
        """Why this user cannot use this inbox now (:func:`maildir_problem`), or None."""
        return maildir_problem(self.path, "inbox", self.FOLDERS)

    def explain(self, error: BaseException) -> str | None:
        """``error`` raised by this inbox as one sentence when the file system is at
        fault (an :class:`OSError` on a file of this Maildir: its folders became
        another user's, the disk is full), else None (a bug), as
        :meth:`pbp.mail.imap.ImapInbox.explain` names a server's fault.

        Example: ``"the Maildir inbox mail/inbox is read-only for this user
        (mail/inbox/.done/new cannot be written): make it readable and writable for the
        user pbp runs as (its owner and mode, or a read-write mount)"``.
        """
        return explain_maildir(error, self.path, "inbox", self.FOLDERS)

    def fetch_new(self) -> list[RawMessage]:
        """Every message not yet done, ordered by (arrived, key).

        ``uidvalidity`` is None; ``arrived`` is the file time in UTC; ``size`` the
        file's size. A message that disappears while being read (another reader moved
        it) is left out. A message over ``max_message_size`` comes with its header
        section only (``truncated``); an entry that is not a regular file, or cannot
        be opened, comes unread with a ``defect`` and one WARNING in the log.
        """
        found: list[RawMessage] = []
        for file in _message_files(self.path):
            message = _read_entry(file, self.max_message_size)
            if message is None:
                continue
            if message.defect is not None:
                logger.warning(
                    "Maildir entry %s: %s; not read, moved aside when done", file, message.defect
                )
            found.append(message)
        found.sort(key=lambda m: (m.arrived, m.key))
        self._known = {m.key for m in found}
        return found

    def mark_done(self, keys: Sequence[str]) -> None:
        """Move the messages with these keys into ``.done`` (new/ to new/, cur/ to cur/).

        Keys already in ``.done`` are ignored, so calling it twice is harmless; a
        key found nowhere (deleted by the GM meanwhile) is logged and skipped.
        """
        wanted = set(keys)
        if not wanted:
            return
        for file in _message_files(self.path):
            key = _key_of(file.name)
            if key in wanted:
                try:
                    os.rename(file, self.done_path / file.parent.name / file.name)
                except FileNotFoundError:
                    continue
                wanted.discard(key)
                self._known.discard(key)
        if wanted:
            done = {_key_of(f.name) for f in _message_files(self.done_path)}
            for key in sorted(wanted - done):
                logger.warning("mark_done: no message %r in %s", key, self.path)

    def keep(self, keys: Sequence[str]) -> None:
        """Copy (hard-link) the messages with these keys into ``.pbp-kept``, once each.

        Only regular files: an entry that is not one (a symlink, a directory, ...) has
        nothing to copy and is skipped."""
        wanted = set(keys)
        if not wanted:
            return
        kept_path = self.path / KEPT_FOLDER
        _mark_folder(kept_path)
        there = {_key_of(f.name) for f in _message_files(kept_path)}
        for file in _message_files(self.path):
            key = _key_of(file.name)
            if key in wanted and key not in there:
                try:
                    found = os.lstat(file)
                    if not stat.S_ISREG(found.st_mode) or found.st_nlink > 1:
                        continue  # no regular file, or a hard link to one elsewhere
                    os.link(file, kept_path / file.parent.name / file.name, follow_symlinks=False)
                except FileNotFoundError:
                    logger.warning("keep: message %r disappeared from %s", key, self.path)

    def fetch_done(self, since: datetime) -> list[RawMessage]:
        """Every regular file of ``.done`` delivered at or after ``since`` (its file time),
        ordered by (arrived, key), read as :meth:`fetch_new` reads one (a kept mail's
        second name in ``.pbp-kept`` is no defect here); other entries are left out.
        Only the files of that time are opened."""
        found: list[RawMessage] = []
        for file in _message_files(self.done_path):
            arrived = _arrival(file)
            if arrived is None or arrived < since:
                continue
            message = _read_done(file, self.max_message_size)
            if message is not None:
                found.append(message)
        found.sort(key=lambda m: (m.arrived, m.key))
        return found

    def has_history(self) -> str | None:
        """``"3 processed messages in mail/inbox/.done"`` when ``.done`` holds any entry
        (pbp moved mail there, so a store once existed), else None."""
        count = len(_message_files(self.done_path))
        if not count:
            return None
        return f"{count} processed message{'s' if count != 1 else ''} in {self.done_path}"

    def _has_unseen(self) -> bool:
        """Whether ``new/`` holds a message the last :meth:`fetch_new` did not return."""
        try:
            names = os.listdir(self.path / "new")
        except FileNotFoundError:
            return False
        return any(not name.startswith(".") and _key_of(name) not in self._known for name in names)

    def wait(self, timeout: float) -> None:
        """Sleep up to ``timeout`` seconds; return early (within about 0.2 s) when a
        message that the last :meth:`fetch_new` did not return appears in ``new/``."""
        deadline = time.monotonic() + timeout
        while not self._has_unseen():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            time.sleep(min(POLL_INTERVAL, remaining))

    def close(self) -> None:
        """Nothing to release; present for the :class:`~pbp.mail.base.Inbox` protocol."""


class MaildirTransport:
    """A :class:`~pbp.mail.base.Transport` that delivers every message into one Maildir.

    The local outbox for trying pbp without a mail server: each sent message is
    one file in ``path/new`` (read them with :func:`read_maildir` or a mail client).
    """

    def __init__(self, path: Path) -> None:
        """Use (and create when missing) the Maildir at ``path``.

        :raises MaildirAccessError: this user cannot read, write or make it
            (:func:`maildir_problem`): one sentence.
        """
        self.path = path
        _opened(path, "outbox")

    def send(self, message: EmailMessage) -> None:
        """Write a composed ``message`` (serialised with its own policy): :meth:`sendmail`.

        :raises TransientSendError: as :meth:`sendmail`.
        """
        self._write(message.as_bytes())

    def sendmail(self, envelope_from: str, recipients: Sequence[str], raw: bytes) -> None:
        """Write ``raw`` as it is into the Maildir, now (the envelope is not kept: the
        message's own ``To`` says whom it is for).

        :raises TransientSendError: the file could not be written (disk full,
            permissions): worth retrying once fixed.
        """
        self._write(raw)

    def _write(self, raw: bytes) -> None:
        try:
            deliver(self.path, raw)
        except OSError as exc:
            said = explain_maildir(exc, self.path, "outbox") or _fault(self.path, "outbox", exc)
            raise TransientSendError(said) from exc

    def has_history(self) -> str | None:
        """``"12 messages sent by pbp in mail/outbox"`` when the outbox holds any mail
        (only pbp writes there, so a store once existed), else None."""
        count = len(_message_files(self.path))
        if not count:
            return None
        return f"{count} message{'s' if count != 1 else ''} sent by pbp in {self.path}"

    def close(self) -> None:
        """Nothing to release; present for the :class:`~pbp.mail.base.Transport` protocol."""


def read_maildir_raw(path: Path) -> list[tuple[datetime, bytes]]:
    """``(delivery time, bytes)`` of every message in ``new/`` and ``cur/`` of the
    Maildir at ``path`` (regular files only: never through a symlink), sorted by
    delivery time, then key. A missing Maildir reads as ``[]``."""
    dated: list[tuple[datetime, str, bytes]] = []
    for file in _message_files(path):
        if file.is_symlink() or not file.is_file():  # only regular files (module doc)
            continue
        arrived = _arrival(file)
        if arrived is not None:
            dated.append((arrived, _key_of(file.name), file.read_bytes()))
    dated.sort(key=lambda item: (item[0], item[1]))
    return [(arrived, raw) for arrived, _key, raw in dated]


def read_maildir(path: Path) -> list[EmailMessage]:
    """Every message of :func:`read_maildir_raw`, parsed with :data:`email.policy.default`
    (for mail pbp wrote itself and for tests: a hostile mail is read with
    :mod:`pbp.mail.read.mime` instead)."""
    parser = BytesParser(policy=policy.default)
    messages: list[EmailMessage] = []
    for _arrived, raw in read_maildir_raw(path):
        parsed = parser.parsebytes(raw)
        assert isinstance(parsed, EmailMessage)
        messages.append(parsed)
    return messages
