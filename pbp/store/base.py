"""The store's connection: opening its file, guarding it, and transactions.

:class:`Tables` is what every group of the store's tables builds on (the one
connection); :class:`StoreBase` opens it, checks that the file is still the one
opened, copies it (``pbp backup``) and runs transactions. :class:`pbp.store.Store`
combines it with the tables' mixins.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Self

from pbp.store.faults import crash_point
from pbp.store.records import StoreReadOnlyError, StoreReplacedError, TransactionLostError
from pbp.store.schema import check_version, copy_store, open_schema
from pbp.store.shape import store_exists

#: What SQLite says when it cannot write a database file or make its journal beside it
#: (``sqlite3.Error.sqlite_errorname``, its primary result code: ``SQLITE_READONLY``,
#: ``SQLITE_READONLY_DIRECTORY`` … and ``SQLITE_CANTOPEN`` …).
_READ_ONLY_CODES = ("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")


def _writable(path: Path) -> bool:
    """Whether this process (its effective user, as the kernel decides: modes, owner,
    a read-only mount) may write ``path``."""
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def check_writable(path: Path) -> None:
    """Check that this process can write the store at ``path``: the file itself when it
    exists, and the folder it is in (the first existing one above it for a store still
    to be made), where SQLite makes ``<store>-wal`` and ``<store>-shm`` and pbp its
    writer lock ``<store>.lock`` (:mod:`pbp.app.lock`). Two ``access(2)`` calls; root may
    write a file of any mode, but not on a read-only mount.

    :raises StoreReadOnlyError: the file or the folder is read-only for this user.
    """
    fix = "make it writable for the user pbp runs as (its owner and mode, or a read-write mount)"
    if path.exists() and not _writable(path):
        raise StoreReadOnlyError(f"the store {path} is read-only for this user: {fix}")
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not _writable(folder):
        raise StoreReadOnlyError(
            f"the store {path} cannot be written: its folder {folder} is read-only for this "
            f"user, and SQLite makes {path.name}-wal and {path.name}-shm there; {fix}"
        )


class Tables:
    """The base of every mixin of :class:`pbp.store.Store`: the store's one SQLite
    connection (autocommit mode: transactions are begun and ended explicitly, by
    :meth:`StoreBase.transaction`)."""

    _db: sqlite3.Connection


class StoreBase(Tables):
    """Open (and create) the store at ``path``. Use as a context manager or call close().

    :raises NotAStoreError: ``path`` (or a file SQLite keeps beside it) is not a
        regular file (:func:`pbp.store.shape.store_exists`), or is another program's
        SQLite file (:func:`pbp.store.schema.check_version`).
    :raises StoreReadOnlyError: this process cannot write the store or its folder
        (:func:`check_writable`). :raises StoreVersionError: its schema version is
        outside what this pbp knows (:func:`pbp.store.schema.open_schema`).

    The file's identity (``st_dev``, ``st_ino``) is noted when it is opened; every
    transaction first checks that ``path`` still names that file
    (:meth:`check_identity`).
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        existed = store_exists(self.path)
        check_writable(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not existed:
                # Readable by its owner only: it holds every hand, role and personal address.
                with suppress(FileExistsError):
                    os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except PermissionError as error:  # the folder turned read-only since the check
            raise StoreReadOnlyError(
                f"the store {self.path} cannot be made: {error.strerror}"
            ) from None
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            check_version(self._db, self.path)  # before anything is written to it
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            open_schema(self._db, self.path)
        except sqlite3.OperationalError as error:
            self._db.close()
            if str(getattr(error, "sqlite_errorname", "")).startswith(_READ_ONLY_CODES):
                # Read-only in a way access(2) does not tell (a file lock, an ACL …).
                raise StoreReadOnlyError(
                    f"the store {self.path} cannot be written ({error}): make it and its "
                    "folder writable for the user pbp runs as"
                ) from None
            raise
        except BaseException:
            self._db.close()
            raise
        self._depth = 0
        self._absolute = self.path.absolute()  # the same file after a chdir
        opened = os.stat(self._absolute)
        self._identity = (opened.st_dev, opened.st_ino)

    def explain(self, error: BaseException) -> str | None:
        """``error`` from a round on this store as one sentence when the file system or
        another program is at fault (an :class:`sqlite3.OperationalError` by its SQLite
        result code: read-only, full, an I/O error, locked; also as the cause of a
        :class:`TransactionLostError`), else None (a bug). Example: ``"the store
        pbp.sqlite3 cannot be written (attempt to write a readonly database): make it and
        its folder writable for the user pbp runs as"``.
        """
        if isinstance(error, TransactionLostError) and error.__cause__ is not None:
            error = error.__cause__
        if not isinstance(error, sqlite3.OperationalError):
            return None
        code = str(getattr(error, "sqlite_errorname", ""))
        if code.startswith(_READ_ONLY_CODES):
            return (
                f"the store {self.path} cannot be written ({error}): make it and its folder "
                "writable for the user pbp runs as"
            )
        if code.startswith("SQLITE_FULL"):
            return f"the store {self.path} cannot grow ({error}): free space on its disk"
        if code.startswith("SQLITE_IOERR"):
            return f"the store {self.path} cannot be read or written ({error}): check its disk"
        if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return (
                f"the store {self.path} is locked by another program ({error}): close what "
                "holds it open"
            )
        return None

    def damage(self) -> str | None:
        """What SQLite's ``PRAGMA quick_check`` finds wrong with the store (its first
        line, e.g. ``"database disk image is malformed"``), or None when it is sound.
        Reads every page once: seconds for a large store."""
        try:
            rows = self._db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as error:
            return str(error)
        first = str(rows[0][0]) if rows else "no answer"
        return None if first == "ok" else first

    def backup(self, target: Path | str) -> Path:
        """Copy the store to ``target`` with SQLite's online backup API: a consistent
        copy even while ``pbp run`` writes (``pbp backup``). The copy is written beside
        ``target`` and renamed into place, so a ``target`` that exists afterwards is
        whole; an existing ``target`` is replaced; the copy is readable by its owner
        only (mode 600). Returns ``target``.

        :raises OSError: ``target``'s folder cannot be written.
        """
        return copy_store(self._db, Path(target))

    def check_identity(self) -> None:
        """Check that :attr:`path` still names the file opened (one ``os.stat``).

        :raises StoreReplacedError: the file was deleted, or another file now has
            its name (a backup moved over it while it was open).
        """
        try:
            now = os.stat(self._absolute)
        except FileNotFoundError:
            raise StoreReplacedError(
                f"the store {self.path} was deleted while pbp had it open: stopping, so "
                "that nothing is written into the deleted file or marked done after it. "
                f"Restore it from a backup (delete {self.path}-wal and {self.path}-shm, then "
                f"copy the backup to {self.path}) and start again"
            ) from None
        if (now.st_dev, now.st_ino) != self._identity:
            raise StoreReplacedError(
                f"the store {self.path} was replaced by another file while pbp had it open: "
                "stopping, so that nothing is written into the old file or marked done "
                f"after it. To use the new file, delete {self.path}-wal and {self.path}-shm "
                "if they are there (SQLite would replay the old file's log into it), then "
                "start again"
            )

    def is_empty(self) -> bool:
        """True for a store that never served: no game started, no message processed,
        no mail queued (``pbp run`` then looks for evidence of a lost store)."""
        row = self._db.execute(
            "SELECT EXISTS (SELECT 1 FROM games) OR EXISTS (SELECT 1 FROM messages) "
            "OR EXISTS (SELECT 1 FROM outbox)"
        ).fetchone()
        return not row[0]

    def secret(self, name: str) -> bytes:
        """The store's secret ``name`` (one of :data:`pbp.store.schema.SECRETS`): random
        bytes made once with the store (or at its upgrade to schema 5), never mailed;
        a backup holds it.

        :raises KeyError: no such secret.
        """
        row = self._db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise KeyError(name)
        return bytes(row[0])

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Self]:
        """One atomic unit: everything written inside commits together or not at all.

        Nested use joins the outer transaction (an error inside rolls back nothing
        by itself: the outer one decides; see :meth:`savepoint` for a part that can
        fail alone).

        :raises StoreReplacedError: before it begins, when the store's file was deleted
            or replaced (:meth:`check_identity`).
        """
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self.check_identity()
        self._db.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self
        except BaseException:
            if self._db.in_transaction:
                # SQLite may have rolled back on its own (a full disk, SQLITE_FULL): a
                # second ROLLBACK would hide the real error behind "no transaction".
                self._db.execute("ROLLBACK")
            raise
        else:
            crash_point("commit")
            self._db.execute("COMMIT")
        finally:
            self._depth = 0

    @contextmanager
    def savepoint(self) -> Iterator[Self]:
        """A part of the current transaction that can fail alone (SQLite's ``SAVEPOINT``):
        when the block raises, what it wrote is rolled back and the error goes on, while
        what the transaction wrote before it stays; otherwise it joins the transaction.
        Outside a transaction it is one (:meth:`transaction`). Used for each message of
        a group commit (:meth:`pbp.app.service.Service.process_inbox`).

        :raises StoreReplacedError: before it begins, as :meth:`transaction`.
        :raises TransactionLostError: the block raised and SQLite had rolled the whole
            transaction back (a full disk): nothing of it was committed.
        """
        if not self._depth:
            with self.transaction():
                yield self
            return
        self.check_identity()  # as before every transaction: never write to a lost file
        name = f"pbp_{self._depth}"
        self._db.execute(f"SAVEPOINT {name}")
        self._depth += 1
        try:
            yield self
        except BaseException as error:
            if self._db.in_transaction:
                self._db.execute(f"ROLLBACK TO {name}")
                self._db.execute(f"RELEASE {name}")
            elif isinstance(error, Exception):
                # SQLite rolled the whole transaction back (a full disk): the parts
                # before this one are gone too; going on would write outside it.
                raise TransactionLostError(
                    f"the store's transaction was rolled back: {error}"
                ) from error
            raise
        else:
            self._db.execute(f"RELEASE {name}")
        finally:
            self._depth -= 1
