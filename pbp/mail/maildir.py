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

Only regular files are read, never through a link, and a message over the inbox's size
limit only up to its header section (:mod:`pbp.mail.maildirfiles`). A Maildir pbp's user
cannot use is refused in one sentence (:mod:`pbp.mail.maildirfolders`).
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
import stat
import time
from collections.abc import Sequence
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

from pbp.mail.base import DEFAULT_MAX_MESSAGE_SIZE, RawMessage, TransientSendError
from pbp.mail.maildirfiles import arrival, key_of, message_files, read_done, read_entry, to_ns
from pbp.mail.maildirfolders import (
    DONE_FOLDER,
    KEPT_FOLDER,
    ensure_maildir,
    explain_maildir,
    maildir_fault,
    maildir_problem,
    mark_folder,
    open_maildir,
)

__all__ = [
    "MaildirInbox",
    "MaildirTransport",
    "deliver",
    "read_maildir",
]

logger = logging.getLogger(__name__)

POLL_INTERVAL = 0.2
"""Seconds between two looks at ``new/`` in :meth:`MaildirInbox.wait`."""

_counter = itertools.count()


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
    at_ns = None if at is None else to_ns(at)
    ensure_maildir(path)
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

    #: The Maildir++ folders pbp keeps in the inbox
    #: (:func:`~pbp.mail.maildirfolders.maildir_problem` checks them).
    FOLDERS = (DONE_FOLDER, KEPT_FOLDER)

    def __init__(self, path: Path, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE) -> None:
        """Open (and create when missing) the Maildir at ``path``.

        :raises ValueError: ``max_message_size`` not above 0.
        :raises pbp.mail.maildirfolders.MaildirAccessError: this user cannot read, write
            or make it, or its ``.done``
            (:func:`~pbp.mail.maildirfolders.maildir_problem`): one sentence.
        """
        if max_message_size <= 0:
            raise ValueError(f"max_message_size must be > 0, got {max_message_size}")
        self.path = path
        self.max_message_size = max_message_size
        self.done_path = path / DONE_FOLDER
        open_maildir(path, "inbox", self.FOLDERS, made=1)  # .pbp-kept: at the first keep
        self._known: set[str] = set()

    def problem(self) -> str | None:
        """Why this user cannot use this inbox now
        (:func:`~pbp.mail.maildirfolders.maildir_problem`), or None."""
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
        for file in message_files(self.path):
            message = read_entry(file, self.max_message_size)
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
        for file in message_files(self.path):
            key = key_of(file.name)
            if key in wanted:
                try:
                    os.rename(file, self.done_path / file.parent.name / file.name)
                except FileNotFoundError:
                    continue
                wanted.discard(key)
                self._known.discard(key)
        if wanted:
            done = {key_of(f.name) for f in message_files(self.done_path)}
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
        mark_folder(kept_path)
        there = {key_of(f.name) for f in message_files(kept_path)}
        for file in message_files(self.path):
            key = key_of(file.name)
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
        for file in message_files(self.done_path):
            arrived = arrival(file)
            if arrived is None or arrived < since:
                continue
            message = read_done(file, self.max_message_size)
            if message is not None:
                found.append(message)
        found.sort(key=lambda m: (m.arrived, m.key))
        return found

    def has_history(self) -> str | None:
        """``"3 processed messages in mail/inbox/.done"`` when ``.done`` holds any entry
        (pbp moved mail there, so a store once existed), else None."""
        count = len(message_files(self.done_path))
        if not count:
            return None
        return f"{count} processed message{'s' if count != 1 else ''} in {self.done_path}"

    def _has_unseen(self) -> bool:
        """Whether ``new/`` holds a message the last :meth:`fetch_new` did not return."""
        try:
            names = os.listdir(self.path / "new")
        except FileNotFoundError:
            return False
        return any(not name.startswith(".") and key_of(name) not in self._known for name in names)

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

        :raises pbp.mail.maildirfolders.MaildirAccessError: this user cannot read, write or make it
            (:func:`~pbp.mail.maildirfolders.maildir_problem`): one sentence.
        """
        self.path = path
        open_maildir(path, "outbox")

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
            said = explain_maildir(exc, self.path, "outbox") or maildir_fault(
                self.path, "outbox", exc
            )
            raise TransientSendError(said) from exc

    def has_history(self) -> str | None:
        """``"12 messages sent by pbp in mail/outbox"`` when the outbox holds any mail
        (only pbp writes there, so a store once existed), else None."""
        count = len(message_files(self.path))
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
    for file in message_files(path):
        if file.is_symlink() or not file.is_file():  # only regular files (module doc)
            continue
        arrived = arrival(file)
        if arrived is not None:
            dated.append((arrived, key_of(file.name), file.read_bytes()))
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
