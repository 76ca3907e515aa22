"""The store's file: its tables, its schema version and the upgrade of an older one.

The version is kept in SQLite's ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`).
:func:`open_schema` creates the tables in a new store, upgrades an older one in one
transaction (after a copy of it, :func:`copy_store`) and refuses one written by a
newer pbp, or with a version no pbp writes (:class:`~pbp.store.records.StoreVersionError`).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import sqlite3
from pathlib import Path

from pbp.store.records import NotAStoreError, StoreVersionError

# The store's one logger, named as before it became a package (``pbp run``'s log
# lines name it).
log = logging.getLogger("pbp.store")

#: The store's schema version, kept in SQLite's ``PRAGMA user_version``. 0 is a store
#: written before versions were kept (the releases up to this one's predecessor); a
#: newer pbp upgrades an older store when it opens it (:class:`pbp.store.Store`), and
#: refuses one written by a pbp newer than itself (:class:`StoreVersionError`). Raise it with
#: every change of :data:`SCHEMA`, :data:`MIGRATIONS` or :data:`CONVERSIONS` that an older
#: pbp could not read.
SCHEMA_VERSION = 6

#: Columns added since the first release: ``(table, column, declaration)``; a store
#: made before gets them when opened (``ALTER TABLE ... ADD COLUMN``).
MIGRATIONS = (
    ("kept", "retried_at", "TEXT"),
    ("kept", "retry_outcome", "TEXT"),
    ("messages", "content", "TEXT"),
    ("gm_confirmations", "hinted_at", "TEXT"),  # schema 2
    ("kept", "held_for", "TEXT"),  # schema 3
    ("messages", "replay_of", "INTEGER"),  # schema 3
    ("kept", "dismissed_at", "TEXT"),  # schema 4: `pbp dismiss`, DISMISS by mail
    # schema 6: a confirmation ended by a new GM address (an older pbp would apply it)
    ("gm_confirmations", "ended_at", "TEXT"),
)

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

#: The store's own secrets (table ``secrets``), each 32 random bytes made once, when
#: the store is made or upgraded to schema 5, and never mailed or shown: a backup holds
#: them, so mail replayed after a restore gets what it got before (``gm_confirm``: the
#: key of the GM's confirmation codes, :func:`pbp.app.gm.by_mail.confirmation_code`).
SECRETS = ("gm_confirm",)
#: Bytes of each of :data:`SECRETS`.
SECRET_BYTES = 32

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
    hinted_at TEXT,
    ended_at TEXT
);
CREATE INDEX IF NOT EXISTS gm_confirmations_by_game ON gm_confirmations(game_id, expires_at);
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
CREATE TABLE IF NOT EXISTS posts (
    game_id TEXT NOT NULL,
    post TEXT NOT NULL,
    period INTEGER NOT NULL,
    fmt TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (game_id, post, period, fmt)
);
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
CREATE TABLE IF NOT EXISTS secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
"""


def check_version(db: sqlite3.Connection, path: Path) -> int:
    """The schema version of the store open on ``db`` (at ``path``), read without
    writing anything; a store this pbp can open or upgrade has 0 to
    :data:`SCHEMA_VERSION`.

    :raises StoreVersionError: the version is above :data:`SCHEMA_VERSION` (a newer
        pbp's), or negative (no pbp writes one: another program's file, or one altered
        by hand; upgrading it would write pbp's tables into it).
    :raises NotAStoreError: the file has tables but lacks those pbp's store of that
        version has (:func:`check_tables`): another program's SQLite file.
    """
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version < 0:
        raise StoreVersionError(
            f"the store {path} has schema version {version}, which no pbp writes (this pbp "
            f"reads 0 to {SCHEMA_VERSION}): it is another program's file or was altered, so "
            "it is left as it is; give games.yaml's store: the path of pbp's own store, or "
            "restore a backup"
        )
    if version > SCHEMA_VERSION:
        raise StoreVersionError(
            f"the store {path} was written by a newer pbp (store schema {version}; "
            f"this pbp reads up to {SCHEMA_VERSION}): install that pbp again, or restore "
            "a backup made before the upgrade"
        )
    check_tables(db, path, version)
    return version


#: The tables every pbp store has had since the first release: an older store (schema
#: below :data:`SCHEMA_VERSION`) holds at least these; the upgrade makes the others.
FIRST_TABLES = frozenset({"games", "events", "tokens", "messages", "kept", "outbox", "reminders"})

#: Every table of :data:`SCHEMA`, which a store of :data:`SCHEMA_VERSION` holds.
ALL_TABLES = frozenset(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))


def check_tables(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Check that the store open on ``db`` (at ``path``, of schema ``version``) holds the
    tables a pbp store of that version has: every one of :data:`ALL_TABLES` at
    :data:`SCHEMA_VERSION`, :data:`FIRST_TABLES` below it. A file without any table (at
    version 0) is a new store. Reads ``sqlite_master`` only.

    :raises NotAStoreError: a table is missing: another program's SQLite file (or one
        altered by hand); upgrading it would write pbp's tables into it.
    """
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    tables = {str(row[0]) for row in rows}
    if version == 0 and not tables:
        return
    missing = (ALL_TABLES if version == SCHEMA_VERSION else FIRST_TABLES) - tables
    if missing:
        raise NotAStoreError(
            f"the store {path} is not a pbp store: an SQLite file of schema version "
            f"{version} without pbp's tables {', '.join(sorted(missing))} (another "
            "program's file, or one altered), so it is left as it is; give games.yaml's "
            "store: the path of pbp's own store, or restore a backup"
        )


def open_schema(db: sqlite3.Connection, path: Path) -> None:
    """Create the schema in a new store, upgrade an older one, refuse a newer one
    (``db``: the connection to the store at ``path``, outside any transaction).

    An older store (schema version below :data:`SCHEMA_VERSION`) is first copied
    beside itself (``pbp.sqlite3.v0-backup``, :func:`copy_store`), then upgraded in
    one transaction: new tables and indexes, :data:`MIGRATIONS`, the
    :data:`CONVERSIONS` of its old rows, :data:`LATE_INDEXES`, the :data:`SECRETS` it
    lacks (new random ones, :func:`secrets.token_bytes`), the version.

    :raises StoreVersionError: the store's version is outside 0 to
        :data:`SCHEMA_VERSION` (:func:`check_version`).
    """
    version = check_version(db, path)
    if version == SCHEMA_VERSION:
        return
    tables = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'")
    older = int(tables.fetchone()[0]) > 0
    if older:
        saved = path.with_name(f"{path.name}.v{version}-backup")
        copy_store(db, saved)
        log.warning(
            "store %s: upgrading from schema %d to %d (a copy of it as it was: %s)",
            path,
            version,
            SCHEMA_VERSION,
            saved,
        )
    db.execute("BEGIN IMMEDIATE")
    try:
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        for table, column, declaration in MIGRATIONS:
            columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        for since, statements in sorted(CONVERSIONS.items()):
            if version < since:
                for statement in statements:
                    db.execute(statement)
        for statement in LATE_INDEXES.split(";"):
            if statement.strip():
                db.execute(statement)
        for name in SECRETS:
            db.execute(
                "INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)",
                (name, secrets.token_bytes(SECRET_BYTES)),
            )
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def copy_store(db: sqlite3.Connection, target: Path) -> Path:
    """Copy the store open on ``db`` to ``target`` with SQLite's online backup API: a
    consistent copy even while another connection writes. The copy is written beside
    ``target`` and renamed into place, so a ``target`` that exists afterwards is
    whole; an existing ``target`` is replaced; the copy is readable by its owner only
    (mode 600), in one file (no ``-wal`` beside it). Returns ``target``.

    :raises OSError: ``target``'s folder cannot be written.
    """
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    # Readable by its owner only: it holds every hand, role and personal address.
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    copy = sqlite3.connect(partial)
    try:
        db.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
    finally:
        copy.close()
    os.replace(partial, target)
    return target
