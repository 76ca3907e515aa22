"""The SQLite store: the single source of truth (DESIGN.md "store").

Tables: ``games`` (engine state snapshot, seed, salt, schedule), ``events`` (the
event log of every game, with visibility), ``tokens`` (personal reply addresses),
``messages`` (every incoming message ever processed, by source key and
Message-ID), ``gm_confirmations`` (GM commands by mail waiting for his
confirmation), ``kept`` (messages set aside for the GM), ``outbox`` (every mail to
send, with its stable Message-ID and delivery state) and ``reminders``; for the
answers owed (:mod:`pbp.digest`, :mod:`pbp.ratelimit`): ``digest`` and ``digest_sent``
(the GM digest), ``answer_windows`` and ``deferred_answers`` (the rate limit),
``bodies_seen`` (loops) and ``stranger_answers`` (once a day to a stranger).

One transaction per incoming message or deadline: its events, the new state,
the message's row and every mail it causes are committed together
(:meth:`Store.transaction`), so a crash neither loses a move nor applies it twice.
All times are stored as ISO 8601 strings in UTC.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbp.core.events import Event, Visibility
from pbp.faults import crash_point

log = logging.getLogger(__name__)

#: The store's schema version, kept in SQLite's ``PRAGMA user_version``. 0 is a store
#: written before versions were kept (the releases up to this one's predecessor); a
#: newer pbp upgrades an older store when it opens it (:class:`Store`), and refuses
#: one written by a pbp newer than itself (:class:`StoreVersionError`). Raise it with
#: every change of :data:`SCHEMA`, :data:`MIGRATIONS` or :data:`CONVERSIONS` that an older
#: pbp could not read.
#: The seat name of the GM's own token (no player may be called so).
GM_SEAT = "@gm"

SCHEMA_VERSION = 3

#: Columns added since the first release: ``(table, column, declaration)``; a store
#: made before gets them when opened (``ALTER TABLE ... ADD COLUMN``).
MIGRATIONS = (
    ("kept", "retried_at", "TEXT"),
    ("kept", "retry_outcome", "TEXT"),
    ("messages", "content", "TEXT"),
    ("gm_confirmations", "hinted_at", "TEXT"),  # schema 2
    ("kept", "held_for", "TEXT"),  # schema 3
    ("messages", "replay_of", "INTEGER"),  # schema 3
)

#: The kept-message reason of a player's mail held while his game was paused (rule
#: D8); the game is the kept row's ``held_for``.
HELD_REASON = "paused"

#: Rewrites of the rows an older pbp wrote, by the schema version that needs them: a
#: store older than that version gets them once, after :data:`MIGRATIONS`, in the
#: upgrade's transaction. Schema 3: held mail was marked by its reason
#: ``paused:GAME``, now by ``held_for`` (reason ``paused``); the replay of a held mail
#: on resume was the message whose source key is the held one's with ``#resumed``
#: appended, now the message whose ``replay_of`` is the held row's id (its source key
#: is kept as it was written).
CONVERSIONS: dict[int, tuple[str, ...]] = {
    3: (
        "UPDATE kept SET held_for = substr(reason, 8), reason = 'paused' "
        "WHERE held_for IS NULL AND substr(reason, 1, 7) = 'paused:'",
        "UPDATE messages SET replay_of = ("
        "SELECT MAX(kept.id) FROM kept WHERE kept.held_for IS NOT NULL "
        "AND kept.source = substr(messages.source, 1, length(messages.source) - 8)) "
        "WHERE replay_of IS NULL AND substr(source, -8) = '#resumed'",
    ),
}

#: Indexes on columns :data:`MIGRATIONS` may add (made after them). A held mail is
#: replayed at most once: one message row per ``replay_of``.
LATE_INDEXES = """
CREATE INDEX IF NOT EXISTS kept_by_held_for ON kept(held_for);
CREATE UNIQUE INDEX IF NOT EXISTS messages_by_replay_of ON messages(replay_of)
    WHERE replay_of IS NOT NULL;
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    seed INTEGER NOT NULL,
    salt BLOB NOT NULL,
    state TEXT NOT NULL,
    started_at TEXT NOT NULL,
    deadline_at TEXT,
    over INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    at TEXT NOT NULL,
    day INTEGER,
    kind TEXT NOT NULL,
    visibility TEXT NOT NULL,
    player TEXT,
    data TEXT NOT NULL,
    source TEXT,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    player TEXT NOT NULL,
    email TEXT NOT NULL,
    UNIQUE (game_id, player)
);
CREATE TABLE IF NOT EXISTS retired_tokens (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    player TEXT NOT NULL,
    email TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS gm_confirmations (
    code TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    commands TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    done_at TEXT,
    hinted_at TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    source TEXT PRIMARY KEY,
    message_id TEXT,
    arrived TEXT NOT NULL,
    processed_at TEXT NOT NULL,
    outcome TEXT NOT NULL,
    game_id TEXT,
    player TEXT,
    note TEXT
);
CREATE INDEX IF NOT EXISTS messages_by_message_id ON messages(message_id);
CREATE INDEX IF NOT EXISTS events_by_day ON events(game_id, day, seq);
CREATE INDEX IF NOT EXISTS events_by_kind ON events(game_id, kind, seq);
CREATE TABLE IF NOT EXISTS kept (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL,
    arrived TEXT NOT NULL,
    reason TEXT NOT NULL,
    raw BLOB NOT NULL,
    kept_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kept_by_source ON kept(source);
CREATE INDEX IF NOT EXISTS kept_by_reason ON kept(reason);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT NOT NULL UNIQUE,
    recipient TEXT NOT NULL,
    raw BLOB NOT NULL,
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    sent_at TEXT,
    failed TEXT
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(sent_at, failed, next_attempt_at);
CREATE TABLE IF NOT EXISTS reminders (
    game_id TEXT NOT NULL,
    due_at TEXT NOT NULL,
    PRIMARY KEY (game_id, due_at)
);
CREATE TABLE IF NOT EXISTS digest (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT,
    reason TEXT NOT NULL,
    kept_id INTEGER,
    sender TEXT,
    arrived TEXT NOT NULL,
    detail TEXT,
    added_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS digest_by_game ON digest(game_id, id);
CREATE TABLE IF NOT EXISTS digest_sent (
    gm TEXT PRIMARY KEY,
    last_id INTEGER NOT NULL,
    sent_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS answer_windows (
    recipient TEXT PRIMARY KEY,
    started_at TEXT NOT NULL,
    answers INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deferred_answers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient TEXT NOT NULL,
    game_id TEXT NOT NULL,
    player TEXT,
    reply_to TEXT,
    body TEXT NOT NULL,
    at TEXT NOT NULL,
    due_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deferred_by_due ON deferred_answers(due_at);
CREATE INDEX IF NOT EXISTS deferred_by_recipient ON deferred_answers(recipient, id);
CREATE TABLE IF NOT EXISTS bodies_seen (
    sender TEXT NOT NULL,
    digest TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bodies_by_sender ON bodies_seen(sender, digest, at);
CREATE TABLE IF NOT EXISTS stranger_answers (
    sender TEXT PRIMARY KEY,
    answered_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seat_stranger_answers (
    game_id TEXT NOT NULL,
    player TEXT NOT NULL,
    answered_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS seat_stranger_answers_by_seat
    ON seat_stranger_answers(game_id, player, answered_at);
"""


def to_iso(moment: datetime) -> str:
    """An aware datetime as a UTC ISO 8601 string; raises ValueError for a naive one."""
    if moment.tzinfo is None:
        raise ValueError(f"naive datetime {moment!r}: store times are timezone-aware")
    return moment.astimezone(UTC).isoformat()


def from_iso(text: str) -> datetime:
    """Inverse of :func:`to_iso` (aware, UTC)."""
    return datetime.fromisoformat(text).astimezone(UTC)


@dataclass(frozen=True)
class GameRow:
    """A started game: ``state`` is the engine's JSON dump."""

    id: str
    kind: str
    seed: int
    salt: bytes
    state: dict[str, Any]
    started_at: datetime
    deadline_at: datetime | None
    over: bool


@dataclass(frozen=True)
class StoredEvent:
    """An event as logged: its sequence number in the game, time and game day."""

    seq: int
    at: datetime
    day: int | None
    event: Event
    source: str | None


@dataclass(frozen=True)
class OutgoingMail:
    """A mail waiting in (or sent from) the outbox."""

    id: int
    message_id: str
    recipient: str
    raw: bytes
    attempts: int
    next_attempt_at: datetime
    sent_at: datetime | None
    failed: str | None


@dataclass(frozen=True)
class Schedule:
    """When a started game acts next: ``over`` once it ended; ``deadline_at``: its next
    deadline (aware, UTC), None when it has none (over, or paused)."""

    over: bool
    deadline_at: datetime | None


@dataclass(frozen=True)
class Seat:
    """A seat of a started game with its personal address: ``game_id``, the ``player``
    (a seat name, or :data:`pbp.gm.GM_SEAT` for the GM's own), the ``email`` registered
    for it (lower-case) and its personal ``token``."""

    game_id: str
    player: str
    email: str
    token: str


@dataclass(frozen=True)
class MessageOutcome:
    """What came of one processed incoming message: its ``source`` key, ``outcome``
    (``applied``, ``refused``, ``paused``, …), ``note`` (a detail or None) and
    ``replay_of``: the kept id of the held mail it replayed on resume (rule D8), None
    for any other message."""

    source: str
    outcome: str
    note: str | None
    replay_of: int | None = None


@dataclass(frozen=True)
class DigestCount:
    """The digest lines of one reason after a GM's last digest: how many, and the
    highest line id among them."""

    count: int
    last_id: int


@dataclass(frozen=True)
class DigestSent:
    """The last digest mailed to the GM at ``gm`` (lower-case): the highest digest line
    id it covered and when it was sent (aware, UTC)."""

    gm: str
    last_id: int
    sent_at: datetime


@dataclass(frozen=True)
class AnswerWindow:
    """The rate-limit window of ``recipient`` (lower-case, :mod:`pbp.ratelimit`): when
    it began (aware, UTC) and how many answers it counted."""

    recipient: str
    started_at: datetime
    answers: int


STILL_KEPT = frozenset(
    {
        "error",
        "automatic",
        "unknown_sender",
        "wrong_sender",
        "wrong_confirmer",
        "unreadable",
        "too_large",
        "loop",
    }
)
"""Outcomes of ``pbp retry`` that leave a message kept (it may be retried again)."""


@dataclass(frozen=True)
class KeptMessage:
    """A message set aside for the GM (unreadable, automatic, or crashed its handler).

    ``retried_at``/``retry_outcome``: when ``pbp retry`` processed it again and what
    came of it (``applied``, ``refused``, …), None while it waits. ``held_for``: the
    game id whose pause held it (reason :data:`HELD_REASON`; applied on resume, rule
    D8, and then ``retried_at``/``retry_outcome`` say when and what came of it), None
    for any other kept mail.
    """

    id: int
    source: str
    arrived: datetime
    reason: str
    raw: bytes
    retried_at: datetime | None = None
    retry_outcome: str | None = None
    held_for: str | None = None

    @property
    def waiting(self) -> bool:
        """True while it still waits for the GM: never retried, or retried and kept
        again (outcome in :data:`STILL_KEPT`)."""
        return self.retried_at is None or self.retry_outcome in STILL_KEPT


class StoreVersionError(Exception):
    """The store was written by a newer pbp (its schema version is above
    :data:`SCHEMA_VERSION`): this pbp could misread it, so it is not opened. The
    message names the store, both versions and what to do."""


class StoreReplacedError(BaseException):
    """The store's file was deleted or replaced while it was open: what this process
    writes would go into a file nobody will ever read again, so it must stop.

    A :class:`BaseException` (like :class:`SystemExit`), so that the handlers that
    keep one failing message or game from stopping the others (``except
    Exception``) let it through: nothing more is committed or marked done. The
    message names the path and what to do.
    """


class StoreDamagedError(StoreReplacedError):
    """SQLite found the store's file damaged (``database disk image is malformed``):
    nothing more can be written safely, and a restart finds the same; the GM restores a
    backup. It stops the daemon with one line, as :class:`StoreReplacedError` does
    (``pbp run`` exits 2: not restarted)."""


@dataclass(frozen=True)
class Confirmation:
    """GM commands by mail waiting for the GM's confirmation (:mod:`pbp.gm`): its
    single-use ``code``, ``game_id``, ``commands`` (JSON text), when it was made and
    expires (aware UTC), ``done_at`` once applied, and ``hinted_at`` once a reply
    without the confirmation word was answered how to confirm (once a code)."""

    code: str
    game_id: str
    commands: str
    created_at: datetime
    expires_at: datetime
    done_at: datetime | None
    hinted_at: datetime | None = None


class Store:
    """Open (and create) the store at ``path``. Use as a context manager or call close().

    The file's identity (``st_dev``, ``st_ino``) is noted when it is opened; every
    transaction first checks that ``path`` still names that file
    (:meth:`check_identity`).
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            # Readable by its owner only: it holds every hand, role and personal address.
            with suppress(FileExistsError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._open_schema()
        except BaseException:
            self._db.close()
            raise
        self._depth = 0
        self._absolute = self.path.absolute()  # the same file after a chdir
        opened = os.stat(self._absolute)
        self._identity = (opened.st_dev, opened.st_ino)

    def _open_schema(self) -> None:
        """Create the schema in a new store, upgrade an older one, refuse a newer one.

        An older store (schema version below :data:`SCHEMA_VERSION`) is first copied
        beside itself (``pbp.sqlite3.v0-backup``, SQLite's online backup), then upgraded
        in one transaction: new tables and indexes, :data:`MIGRATIONS`, the
        :data:`CONVERSIONS` of its old rows, :data:`LATE_INDEXES`, the version.

        :raises StoreVersionError: the store's version is above :data:`SCHEMA_VERSION`.
        """
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreVersionError(
                f"the store {self.path} was written by a newer pbp (store schema {version}; "
                f"this pbp reads up to {SCHEMA_VERSION}): install that pbp again, or restore "
                "a backup made before the upgrade"
            )
        if version == SCHEMA_VERSION:
            return
        tables = self._db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'")
        older = int(tables.fetchone()[0]) > 0
        if older:
            saved = self.path.with_name(f"{self.path.name}.v{version}-backup")
            self.backup(saved)
            log.warning(
                "store %s: upgrading from schema %d to %d (a copy of it as it was: %s)",
                self.path,
                version,
                SCHEMA_VERSION,
                saved,
            )
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            for table, column, declaration in MIGRATIONS:
                columns = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
                if column not in columns:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            for since, statements in sorted(CONVERSIONS.items()):
                if version < since:
                    for statement in statements:
                        self._db.execute(statement)
            for statement in LATE_INDEXES.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

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
        target = Path(target)
        partial = target.with_name(f".{target.name}.partial")
        partial.unlink(missing_ok=True)
        # Readable by its owner only: it holds every hand, role and personal address.
        os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        copy = sqlite3.connect(partial)
        try:
            self._db.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
        finally:
            copy.close()
        os.replace(partial, target)
        return target

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

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """One atomic unit: everything written inside commits together or not at all.

        Nested use joins the outer transaction.

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

    # --- games ---------------------------------------------------------------

    def add_game(
        self,
        game_id: str,
        kind: str,
        seed: int,
        salt: bytes,
        state: Mapping[str, Any],
        started_at: datetime,
        deadline_at: datetime | None,
    ) -> None:
        """Record a started game. Raises sqlite3.IntegrityError if it exists."""
        self._db.execute(
            "INSERT INTO games (id, kind, seed, salt, state, started_at, deadline_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                game_id,
                kind,
                seed,
                salt,
                json.dumps(state, ensure_ascii=False),
                to_iso(started_at),
                to_iso(deadline_at) if deadline_at else None,
            ),
        )

    def game(self, game_id: str) -> GameRow | None:
        """The stored game, or None when it has not started."""
        row = self._db.execute(
            "SELECT id, kind, seed, salt, state, started_at, deadline_at, over "
            "FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        return GameRow(
            id=row[0],
            kind=row[1],
            seed=row[2],
            salt=bytes(row[3]),
            state=json.loads(row[4]),
            started_at=from_iso(row[5]),
            deadline_at=from_iso(row[6]) if row[6] else None,
            over=bool(row[7]),
        )

    def schedules(self) -> dict[str, Schedule]:
        """``{game id: its schedule}`` of every started game, in one query (without
        reading the state snapshots)."""
        rows = self._db.execute("SELECT id, over, deadline_at FROM games")
        return {r[0]: Schedule(bool(r[1]), from_iso(r[2]) if r[2] else None) for r in rows}

    def state_text(self, game_id: str) -> str | None:
        """The stored state snapshot of a game as JSON text (unparsed), None when it
        has not started."""
        row = self._db.execute("SELECT state FROM games WHERE id = ?", (game_id,)).fetchone()
        return str(row[0]) if row else None

    def schedule(self, game_id: str) -> Schedule | None:
        """The schedule of one game, None when it has not started (without reading its
        state snapshot)."""
        row = self._db.execute(
            "SELECT over, deadline_at FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            return None
        return Schedule(bool(row[0]), from_iso(row[1]) if row[1] else None)

    def save_state(
        self,
        game_id: str,
        state: Mapping[str, Any],
        *,
        over: bool,
        deadline_at: datetime | None,
    ) -> str:
        """Replace the state snapshot and schedule of a game; returns the snapshot's
        JSON text as stored (see :meth:`state_text`)."""
        text = json.dumps(state, ensure_ascii=False)
        self._db.execute(
            "UPDATE games SET state = ?, over = ?, deadline_at = ? WHERE id = ?",
            (
                text,
                int(over),
                to_iso(deadline_at) if deadline_at else None,
                game_id,
            ),
        )
        return text

    # --- events --------------------------------------------------------------

    def append_events(
        self,
        game_id: str,
        events: Sequence[Event],
        *,
        at: datetime,
        day: int | None,
        source: str | None = None,
    ) -> list[int]:
        """Append events to a game's log; returns their sequence numbers.

        The log's time never runs backwards: ``at`` earlier than the game's last event
        (a move that arrived before a deadline passed ahead of the real clock by
        ``pbp run --once --now``, or a retried or held mail applied later) is recorded
        at that event's time, so the log and the export stay in time order.
        """
        row = self._db.execute(
            "SELECT seq, at FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        ).fetchone()
        seq = int(row[0]) if row is not None else 0
        if row is not None:
            at = max(at, from_iso(row[1]))
        numbers = []
        for event in events:
            seq += 1
            self._db.execute(
                "INSERT INTO events (game_id, seq, at, day, kind, visibility, player, data, "
                "source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    seq,
                    to_iso(at),
                    day,
                    event.kind,
                    event.visibility.value,
                    event.player,
                    json.dumps(event.data, ensure_ascii=False),
                    source,
                ),
            )
            numbers.append(seq)
        return numbers

    def clock(self, game_id: str) -> datetime | None:
        """The time of ``game_id``'s last event (aware, UTC), None before its start: the
        game's own clock, which never runs backwards (:meth:`append_events`)."""
        row = self._db.execute(
            "SELECT at FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        ).fetchone()
        return from_iso(row[0]) if row is not None else None

    def events(
        self, game_id: str, *, day: int | None = None, public_only: bool = False
    ) -> list[StoredEvent]:
        """A game's events in order; optionally one game day's, optionally public only."""
        query = "SELECT seq, at, day, kind, visibility, player, data, source FROM events "
        query += "WHERE game_id = ?"
        args: list[Any] = [game_id]
        if day is not None:
            query += " AND day = ?"
            args.append(day)
        if public_only:
            query += " AND visibility = ?"
            args.append(Visibility.PUBLIC.value)
        query += " ORDER BY seq"
        return [
            StoredEvent(
                seq=r[0],
                at=from_iso(r[1]),
                day=r[2],
                event=Event(r[3], Visibility(r[4]), json.loads(r[6]), player=r[5]),
                source=r[7],
            )
            for r in self._db.execute(query, args)
        ]

    def last_event(self, game_id: str, kinds: Sequence[str]) -> StoredEvent | None:
        """The latest event of ``game_id`` whose kind is one of ``kinds``, or None."""
        marks = ", ".join("?" for _ in kinds)
        row = self._db.execute(
            "SELECT seq, at, day, kind, visibility, player, data, source FROM events "
            # "+seq": search the (game_id, kind) index and sort the few hits, rather
            # than walk the game's whole log backwards (a move's cost would grow).
            f"WHERE game_id = ? AND kind IN ({marks}) ORDER BY +seq DESC LIMIT 1",
            (game_id, *kinds),
        ).fetchone()
        if row is None:
            return None
        return StoredEvent(
            seq=row[0],
            at=from_iso(row[1]),
            day=row[2],
            event=Event(row[3], Visibility(row[4]), json.loads(row[6]), player=row[5]),
            source=row[7],
        )

    # --- tokens --------------------------------------------------------------

    def add_token(self, token: str, game_id: str, player: str, email: str) -> None:
        """Register a player's personal token."""
        self._db.execute(
            "INSERT INTO tokens (token, game_id, player, email) VALUES (?, ?, ?, ?)",
            (token, game_id, player, email.lower()),
        )

    def replace_token(self, game_id: str, player: str, token: str, email: str) -> None:
        """Give a seat a new token and address (a substitute): the old token stops
        working at once; it is remembered in ``retired_tokens`` (so its old owner
        can be told why, :meth:`retired_token`)."""
        self._db.execute(
            "INSERT OR IGNORE INTO retired_tokens (token, game_id, player, email) "
            "SELECT token, game_id, player, email FROM tokens WHERE game_id = ? AND player = ?",
            (game_id, player),
        )
        self._db.execute("DELETE FROM tokens WHERE game_id = ? AND player = ?", (game_id, player))
        self.add_token(token, game_id, player, email)

    def retired_token(self, token: str) -> Seat | None:
        """The seat whose token this was before a substitute or a new address made it
        obsolete (with the address it then had, and this ``token``), or None."""
        row = self._db.execute(
            "SELECT game_id, player, email, token FROM retired_tokens WHERE token = ?", (token,)
        ).fetchone()
        return Seat(row[0], row[1], row[2], row[3]) if row else None

    def add_confirmation(
        self, code: str, game_id: str, commands: str, now: datetime, expires_at: datetime
    ) -> None:
        """Store GM commands that wait for the GM's confirmation under the single-use
        ``code`` (``commands``: JSON text, :mod:`pbp.gm`)."""
        self._db.execute(
            "INSERT INTO gm_confirmations (code, game_id, commands, created_at, expires_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (code, game_id, commands, to_iso(now), to_iso(expires_at)),
        )

    def confirmation(self, code: str) -> Confirmation | None:
        """The GM commands stored under ``code``, or None."""
        row = self._db.execute(
            "SELECT code, game_id, commands, created_at, expires_at, done_at, hinted_at "
            "FROM gm_confirmations WHERE code = ?",
            (code,),
        ).fetchone()
        if row is None:
            return None
        return Confirmation(
            row[0],
            row[1],
            row[2],
            from_iso(row[3]),
            from_iso(row[4]),
            from_iso(row[5]) if row[5] else None,
            from_iso(row[6]) if row[6] else None,
        )

    def mark_hinted(self, code: str, now: datetime) -> None:
        """Record that a reply under ``code`` without the confirmation word was answered
        how to confirm (:meth:`pbp.gm.GmDesk.confirm`: once a code)."""
        self._db.execute(
            "UPDATE gm_confirmations SET hinted_at = ? WHERE code = ?", (to_iso(now), code)
        )

    def mark_confirmed(self, code: str, now: datetime) -> None:
        """Record that the commands under ``code`` were applied (never again)."""
        self._db.execute(
            "UPDATE gm_confirmations SET done_at = ? WHERE code = ?", (to_iso(now), code)
        )

    def token(self, token: str) -> Seat | None:
        """The seat whose personal token this is, or None."""
        row = self._db.execute(
            "SELECT game_id, player, email, token FROM tokens WHERE token = ?", (token,)
        ).fetchone()
        return Seat(row[0], row[1], row[2], row[3]) if row else None

    def tokens_of(self, email: str) -> list[Seat]:
        """Every seat registered to ``email`` (any case), by game id."""
        rows = self._db.execute(
            "SELECT game_id, player, email, token FROM tokens WHERE email = ? ORDER BY game_id",
            (email.lower(),),
        )
        return [Seat(r[0], r[1], r[2], r[3]) for r in rows]

    def seats(self) -> dict[str, dict[str, str]]:
        """``{game id: {player: email}}`` of every started game's players (the GM's
        own seat left out), one query."""
        seats: dict[str, dict[str, str]] = {}
        for game_id, player, email in self._db.execute(
            "SELECT game_id, player, email FROM tokens WHERE player NOT LIKE '@%'"
        ):
            seats.setdefault(game_id, {})[player] = email
        return seats

    def player_token(self, game_id: str, player: str) -> str | None:
        """The token of one seat."""
        row = self._db.execute(
            "SELECT token FROM tokens WHERE game_id = ? AND player = ?", (game_id, player)
        ).fetchone()
        return str(row[0]) if row else None

    def player_email(self, game_id: str, player: str) -> str | None:
        """The address a seat was registered with when the game started."""
        row = self._db.execute(
            "SELECT email FROM tokens WHERE game_id = ? AND player = ?", (game_id, player)
        ).fetchone()
        return str(row[0]) if row else None

    # --- incoming messages -----------------------------------------------------

    def seen(self, source: str) -> bool:
        """True when the message with this source key was already processed."""
        row = self._db.execute("SELECT 1 FROM messages WHERE source = ?", (source,)).fetchone()
        return row is not None

    def record_message(
        self,
        source: str,
        *,
        message_id: str | None,
        arrived: datetime,
        processed_at: datetime,
        outcome: str,
        game_id: str | None = None,
        player: str | None = None,
        note: str | None = None,
        content: str | None = None,
        replay_of: int | None = None,
    ) -> None:
        """Mark an incoming message processed (inside the transaction of its effects);
        ``content``: a digest of its text (:func:`pbp.service.text_digest`);
        ``replay_of``: the kept id of the held mail this message replays on resume
        (rule D8; a held mail is replayed once: :class:`sqlite3.IntegrityError` for a
        second)."""
        self._db.execute(
            "INSERT INTO messages (source, message_id, arrived, processed_at, outcome, game_id, "
            "player, note, content, replay_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                source,
                message_id,
                to_iso(arrived),
                to_iso(processed_at),
                outcome,
                game_id,
                player,
                note,
                content,
                replay_of,
            ),
        )

    def message_id_seen(
        self,
        message_id: str,
        game_id: str | None = None,
        player: str | None = None,
        *,
        content: str | None = None,
    ) -> bool:
        """True when a message with this Message-ID (globally unique, RFC 5322 §3.6.4;
        for a mail without one, :func:`pbp.service.fingerprint`) was already read as a
        player's moves or his NEW ADDRESS, a GM's commands (applied, refused or waiting
        for his confirmation), or held by a pause (not when it was refused as
        to the wrong address, or crashed: the same mail may then come again, rightly
        addressed); with ``game_id`` and ``player``, as that player's mail in that game
        (a broken client's Message-ID reused by another player's mail is no copy); with
        ``content``, with that digest of its text too (:func:`pbp.service.text_digest`:
        a different mail under a reused Message-ID is no copy; a row an older version
        wrote without a digest matches any)."""
        query = (
            "SELECT 1 FROM messages WHERE message_id = ? AND outcome IN "
            "('applied', 'partly_applied', 'refused', 'status', 'gm_applied', "
            "'gm_refused', 'gm_pending', 'paused', 'new_address')"
        )
        args: list[Any] = [message_id]
        if content is not None:
            query += " AND (content IS NULL OR content = ?)"
            args.append(content)
        if game_id is not None and player is not None:
            query += " AND game_id = ? AND player = ?"
            args += [game_id, player]
        row = self._db.execute(query, args).fetchone()
        return row is not None

    def message_outcomes(self) -> list[MessageOutcome]:
        """What came of every processed message, in processing order."""
        rows = self._db.execute(
            "SELECT source, outcome, note, replay_of FROM messages ORDER BY rowid"
        )
        return [MessageOutcome(r[0], r[1], r[2], r[3]) for r in rows]

    def replay_outcomes(self) -> dict[int, str]:
        """``{kept id: outcome}`` of every held mail replayed on resume (rule D8), one
        indexed query."""
        rows = self._db.execute(
            "SELECT replay_of, outcome FROM messages WHERE replay_of IS NOT NULL"
        )
        return {int(r[0]): r[1] for r in rows}

    def keep(
        self,
        source: str,
        arrived: datetime,
        reason: str,
        raw: bytes,
        now: datetime,
        *,
        held_for: str | None = None,
    ) -> int:
        """Set a message aside for the GM; returns its kept id. ``held_for``: the game
        whose pause holds it until the resume (with ``reason`` :data:`HELD_REASON`)."""
        cursor = self._db.execute(
            "INSERT INTO kept (source, arrived, reason, raw, kept_at, held_for) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (source, to_iso(arrived), reason, raw, to_iso(now), held_for),
        )
        return int(cursor.lastrowid or 0)

    _KEPT = (
        "SELECT id, source, arrived, reason, raw, retried_at, retry_outcome, held_for FROM kept "
    )

    @staticmethod
    def _kept(r: Sequence[Any]) -> KeptMessage:
        retried = from_iso(r[5]) if r[5] else None
        return KeptMessage(r[0], r[1], from_iso(r[2]), r[3], bytes(r[4]), retried, r[6], r[7])

    def kept(self) -> list[KeptMessage]:
        """Every message set aside, oldest first."""
        return [self._kept(r) for r in self._db.execute(self._KEPT + "ORDER BY id")]

    def held(self, game_id: str) -> list[KeptMessage]:
        """The mail held by ``game_id``'s pause and not yet replayed (no message row
        with its ``replay_of``), oldest first (indexed queries: a round never loads
        every kept mail, whatever strangers sent)."""
        rows = self._db.execute(
            self._KEPT + "WHERE held_for = ? AND NOT EXISTS "
            "(SELECT 1 FROM messages WHERE messages.replay_of = kept.id) ORDER BY id",
            (game_id,),
        )
        return [self._kept(r) for r in rows]

    def kept_message(self, kept_id: int) -> KeptMessage | None:
        """One kept message by its id (``pbp kept``), or None."""
        row = self._db.execute(self._KEPT + "WHERE id = ?", (kept_id,)).fetchone()
        return self._kept(row) if row else None

    def last_kept(self, source: str) -> KeptMessage | None:
        """The newest kept row with this source key, or None."""
        row = self._db.execute(
            self._KEPT + "WHERE source = ? ORDER BY id DESC LIMIT 1", (source,)
        ).fetchone()
        return self._kept(row) if row else None

    def mark_resumed(self, kept_id: int, now: datetime, outcome: str) -> None:
        """Record that the held mail ``kept_id`` was applied on resume, and what came of
        it (in the replay's transaction; once: a later call changes nothing)."""
        self._db.execute(
            "UPDATE kept SET retried_at = ?, retry_outcome = ? "
            "WHERE id = ? AND held_for IS NOT NULL AND retried_at IS NULL",
            (to_iso(now), outcome, kept_id),
        )

    def is_kept(self, source: str) -> bool:
        """True when the message with this source key was set aside."""
        row = self._db.execute("SELECT 1 FROM kept WHERE source = ?", (source,)).fetchone()
        return row is not None

    def mark_retried(self, kept_id: int, now: datetime, outcome: str) -> None:
        """Record that ``pbp retry`` processed a kept message (in its transaction)."""
        self._db.execute(
            "UPDATE kept SET retried_at = ?, retry_outcome = ? WHERE id = ?",
            (to_iso(now), outcome, kept_id),
        )

    def note_kept_error(self, kept_id: int, reason: str) -> None:
        """A retry crashed again: the kept message waits with this new reason."""
        self._db.execute("UPDATE kept SET reason = ? WHERE id = ?", (reason, kept_id))

    # --- outbox --------------------------------------------------------------

    def enqueue(self, message_id: str, recipient: str, raw: bytes, now: datetime) -> None:
        """Add a mail to the outbox (inside the transaction that caused it)."""
        self._db.execute(
            "INSERT INTO outbox (message_id, recipient, raw, created_at, next_attempt_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (message_id, recipient, raw, to_iso(now), to_iso(now)),
        )

    def due_mail(self, now: datetime, limit: int = 500) -> list[OutgoingMail]:
        """Unsent, not given-up mails whose next attempt is due, oldest first."""
        rows = self._db.execute(
            "SELECT id, message_id, recipient, raw, attempts, next_attempt_at, sent_at, failed "
            "FROM outbox WHERE sent_at IS NULL AND failed IS NULL AND next_attempt_at <= ? "
            "ORDER BY id LIMIT ?",
            (to_iso(now), limit),
        )
        return [self._mail(r) for r in rows]

    def outbox(self) -> list[OutgoingMail]:
        """Every mail in the outbox, oldest first (for the GM view and tests)."""
        rows = self._db.execute(
            "SELECT id, message_id, recipient, raw, attempts, next_attempt_at, sent_at, failed "
            "FROM outbox ORDER BY id"
        )
        return [self._mail(r) for r in rows]

    @staticmethod
    def _mail(r: Sequence[Any]) -> OutgoingMail:
        return OutgoingMail(
            id=r[0],
            message_id=r[1],
            recipient=r[2],
            raw=bytes(r[3]),
            attempts=r[4],
            next_attempt_at=from_iso(r[5]),
            sent_at=from_iso(r[6]) if r[6] else None,
            failed=r[7],
        )

    def outgoing(self, message_id: str) -> bytes | None:
        """The raw mail we sent (or queued) with this Message-ID, or None."""
        row = self._db.execute(
            "SELECT raw FROM outbox WHERE message_id = ?", (message_id,)
        ).fetchone()
        return bytes(row[0]) if row else None

    def mark_sent(self, mail_id: int, now: datetime) -> None:
        """Record a delivered mail."""
        self._db.execute(
            "UPDATE outbox SET sent_at = ?, attempts = attempts + 1 WHERE id = ?",
            (to_iso(now), mail_id),
        )

    def mark_retry(self, mail_id: int, next_attempt_at: datetime) -> None:
        """Record a failed attempt and when to try again."""
        self._db.execute(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?",
            (to_iso(next_attempt_at), mail_id),
        )

    def mark_failed(self, mail_id: int, reason: str) -> None:
        """Give up on a mail for good."""
        self._db.execute(
            "UPDATE outbox SET attempts = attempts + 1, failed = ? WHERE id = ?",
            (reason, mail_id),
        )

    # --- reminders -----------------------------------------------------------

    def reminder_sent(self, game_id: str, due_at: datetime) -> bool:
        """True when the reminder due at ``due_at`` was already sent."""
        row = self._db.execute(
            "SELECT 1 FROM reminders WHERE game_id = ? AND due_at = ?", (game_id, to_iso(due_at))
        ).fetchone()
        return row is not None

    def record_reminder(self, game_id: str, due_at: datetime) -> None:
        """Remember that the reminder due at ``due_at`` went out."""
        self._db.execute(
            "INSERT INTO reminders (game_id, due_at) VALUES (?, ?)", (game_id, to_iso(due_at))
        )

    # --- answers owed: the GM digest, the rate limit, loops ------------------------

    def add_digest_entry(
        self,
        game_id: str | None,
        reason: str,
        kept_id: int | None,
        sender: str | None,
        arrived: datetime,
        detail: str | None,
        now: datetime,
    ) -> int:
        """Record one line of the GM digest (:mod:`pbp.digest`); ``game_id`` None: for
        every GM. Returns its id (ids grow: each GM's digest takes those after the last
        it got, :meth:`digest_sent`)."""
        cursor = self._db.execute(
            "INSERT INTO digest (game_id, reason, kept_id, sender, arrived, detail, added_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, reason, kept_id, sender, to_iso(arrived), detail, to_iso(now)),
        )
        return int(cursor.lastrowid or 0)

    @staticmethod
    def _digest_where(after_id: int, game_ids: Sequence[str]) -> tuple[str, list[Any]]:
        marks = ", ".join("?" for _ in game_ids) or "NULL"
        return f"id > ? AND (game_id IS NULL OR game_id IN ({marks}))", [after_id, *game_ids]

    def digest_counts(self, after_id: int, game_ids: Sequence[str]) -> dict[str, DigestCount]:
        """``{reason: its count}`` of the digest lines after ``after_id`` for a GM of
        ``game_ids`` (lines of those games and lines for every GM), one query."""
        where, args = self._digest_where(after_id, game_ids)
        rows = self._db.execute(
            f"SELECT reason, COUNT(*), MAX(id) FROM digest WHERE {where} GROUP BY reason", args
        )
        return {r[0]: DigestCount(int(r[1]), int(r[2])) for r in rows}

    def digest_entries(
        self, after_id: int, game_ids: Sequence[str], limit: int
    ) -> list[DigestEntry]:
        """The first ``limit`` digest lines after ``after_id`` for a GM of ``game_ids``."""
        where, args = self._digest_where(after_id, game_ids)
        rows = self._db.execute(
            "SELECT id, game_id, reason, kept_id, sender, arrived, detail FROM digest "
            f"WHERE {where} ORDER BY id LIMIT ?",
            (*args, limit),
        )
        return [DigestEntry(r[0], r[1], r[2], r[3], r[4], from_iso(r[5]), r[6]) for r in rows]

    def digest_sent(self, gm: str) -> DigestSent | None:
        """The last digest sent to the GM at ``gm`` (lower-case), or None."""
        row = self._db.execute(
            "SELECT gm, last_id, sent_at FROM digest_sent WHERE gm = ?", (gm,)
        ).fetchone()
        return DigestSent(row[0], int(row[1]), from_iso(row[2])) if row else None

    def digests_sent(self) -> dict[str, DigestSent]:
        """``{gm: its last digest}``: :meth:`digest_sent` of every GM, one query."""
        rows = self._db.execute("SELECT gm, last_id, sent_at FROM digest_sent")
        return {r[0]: DigestSent(r[0], int(r[1]), from_iso(r[2])) for r in rows}

    def mark_digest_sent(self, gm: str, last_id: int, now: datetime) -> None:
        """Record a digest sent to ``gm`` (inside the transaction that queues it)."""
        self._db.execute(
            "INSERT INTO digest_sent (gm, last_id, sent_at) VALUES (?, ?, ?) "
            "ON CONFLICT (gm) DO UPDATE SET last_id = excluded.last_id, sent_at = excluded.sent_at",
            (gm, last_id, to_iso(now)),
        )

    def answer_window(self, recipient: str) -> AnswerWindow | None:
        """The rate-limit window of ``recipient`` (lower-case), or None."""
        row = self._db.execute(
            "SELECT recipient, started_at, answers FROM answer_windows WHERE recipient = ?",
            (recipient,),
        ).fetchone()
        return AnswerWindow(row[0], from_iso(row[1]), int(row[2])) if row else None

    def set_answer_window(self, recipient: str, started_at: datetime, answers: int) -> None:
        """Store the rate-limit window of ``recipient`` (lower-case)."""
        self._db.execute(
            "INSERT INTO answer_windows (recipient, started_at, answers) VALUES (?, ?, ?) "
            "ON CONFLICT (recipient) DO UPDATE SET started_at = excluded.started_at, "
            "answers = excluded.answers",
            (recipient, to_iso(started_at), answers),
        )

    def defer_answer(
        self,
        recipient: str,
        game_id: str,
        player: str | None,
        reply_to: str | None,
        body: str,
        at: datetime,
        due_at: datetime,
    ) -> None:
        """Keep an answer held back by the rate limit for the summary due at ``due_at``
        (``player``: the seat it answers, None for the GM's or a stranger's mail)."""
        self._db.execute(
            "INSERT INTO deferred_answers (recipient, game_id, player, reply_to, body, at, "
            "due_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (recipient, game_id, player, reply_to, body, to_iso(at), to_iso(due_at)),
        )

    def due_summaries(self, now: datetime) -> list[str]:
        """Recipients with held-back answers whose summary is due at ``now``."""
        rows = self._db.execute(
            "SELECT DISTINCT recipient FROM deferred_answers WHERE due_at <= ? ORDER BY recipient",
            (to_iso(now),),
        )
        return [r[0] for r in rows]

    def take_deferred(self, recipient: str) -> list[DeferredAnswer]:
        """Every held-back answer to ``recipient``, oldest first, removed from the store
        (inside the transaction that queues their summary)."""
        rows = self._db.execute(
            "SELECT id, game_id, player, reply_to, body, at FROM deferred_answers "
            "WHERE recipient = ? ORDER BY id",
            (recipient,),
        ).fetchall()
        self._db.execute("DELETE FROM deferred_answers WHERE recipient = ?", (recipient,))
        return [DeferredAnswer(r[0], r[1], r[2], r[3], r[4], from_iso(r[5])) for r in rows]

    def count_bodies(self, sender: str, digest: str, since: datetime) -> int:
        """How often ``sender`` sent the body with this hash since ``since`` (an index)."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM bodies_seen WHERE sender = ? AND digest = ? AND at > ?",
            (sender, digest, to_iso(since)),
        ).fetchone()
        return int(row[0])

    def record_body(self, sender: str, digest: str, at: datetime) -> None:
        """Remember that ``sender`` sent a body with this hash at ``at`` (loop check)."""
        self._db.execute(
            "INSERT INTO bodies_seen (sender, digest, at) VALUES (?, ?, ?)",
            (sender, digest, to_iso(at)),
        )

    def stranger_answered(self, sender: str) -> datetime | None:
        """When ``sender`` (not a player) was last answered, or None."""
        row = self._db.execute(
            "SELECT answered_at FROM stranger_answers WHERE sender = ?", (sender,)
        ).fetchone()
        return from_iso(row[0]) if row else None

    def record_stranger_answer(self, sender: str, now: datetime, seat: Seat | None = None) -> None:
        """Remember that ``sender`` (not a player) was answered at ``now``, for mail to
        the personal address of ``seat`` (a player's or the GM's) when given."""
        self._db.execute(
            "INSERT INTO stranger_answers (sender, answered_at) VALUES (?, ?) "
            "ON CONFLICT (sender) DO UPDATE SET answered_at = excluded.answered_at",
            (sender, to_iso(now)),
        )
        if seat is not None:
            self._db.execute(
                "INSERT INTO seat_stranger_answers (game_id, player, answered_at) VALUES (?, ?, ?)",
                (seat.game_id, seat.player, to_iso(now)),
            )

    def stranger_answers_at_seat(self, game_id: str, player: str, since: datetime) -> int:
        """How many strangers were answered since ``since`` for mail to the personal
        address of ``player`` (or the GM seat) in ``game_id`` (an index)."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM seat_stranger_answers "
            "WHERE game_id = ? AND player = ? AND answered_at > ?",
            (game_id, player, to_iso(since)),
        ).fetchone()
        return int(row[0])

    def outgoing_at(self, message_id: str) -> datetime | None:
        """When our mail with this Message-ID was sent (else queued), or None when it is
        not ours."""
        row = self._db.execute(
            "SELECT COALESCE(sent_at, created_at) FROM outbox WHERE message_id = ?",
            (message_id,),
        ).fetchone()
        return from_iso(row[0]) if row else None

    def forget_answers_before(self, moment: datetime) -> None:
        """Drop loop-check hashes, rate-limit windows and once-a-day marks older than
        ``moment`` (they decide nothing any more)."""
        at = to_iso(moment)
        self._db.execute("DELETE FROM bodies_seen WHERE at < ?", (at,))
        self._db.execute("DELETE FROM answer_windows WHERE started_at < ?", (at,))
        self._db.execute("DELETE FROM stranger_answers WHERE answered_at < ?", (at,))
        self._db.execute("DELETE FROM seat_stranger_answers WHERE answered_at < ?", (at,))


@dataclass(frozen=True)
class DigestEntry:
    """One line of the GM digest: a mail kept or not answered, and why
    (``reason``: ``unknown_sender``, ``automatic``, ``loop``, …); ``game_id`` None: it
    concerns every GM; ``arrived`` is aware (UTC)."""

    id: int
    game_id: str | None
    reason: str
    kept_id: int | None
    sender: str | None
    arrived: datetime
    detail: str | None


@dataclass(frozen=True)
class DeferredAnswer:
    """An answer held back by the rate limit: its rendered ``body``, the game whose
    mail it answers, its seat (None: the GM's or a stranger's mail) and the Reply-To
    it would have had; ``at``: when it was due (aware)."""

    id: int
    game_id: str
    player: str | None
    reply_to: str | None
    body: str
    at: datetime
