"""The SQLite store: the single source of truth (DESIGN.md "store").

Tables: ``games`` (engine state snapshot, seed, salt, schedule), ``events`` (the
event log of every game, with visibility), ``tokens`` (personal reply addresses),
``messages`` (every incoming message ever processed, by source key and
Message-ID), ``gm_confirmations`` (GM commands by mail waiting for his
confirmation), ``kept`` (messages set aside for the GM), ``outbox`` (every mail to
send, with its stable Message-ID and delivery state), ``reminders`` and ``posts``
(each public post as it read at its moment, rule P1); for the
answers owed (:mod:`pbp.app.digest`, :mod:`pbp.app.ratelimit`): ``digest`` and ``digest_sent``
(the GM digest), ``answer_windows`` and ``deferred_answers`` (the rate limit),
``bodies_seen`` (loops) and ``stranger_answers`` (once a day to a stranger).

One transaction per incoming message or deadline: its events, the new state,
the message's row and every mail it causes are committed together
(:meth:`Store.transaction`), so a crash neither loses a move nor applies it twice.
All times are stored as ISO 8601 strings in UTC.

The package, by concern (one :class:`Store` over one connection, made of mixins):

- :mod:`pbp.store.records` — the records the queries return, the errors,
  :func:`to_iso` / :func:`from_iso`;
- :mod:`pbp.store.schema` — the tables, the schema version and the upgrade of an
  older store;
- :mod:`pbp.store.shape` — what is at the store's path before SQLite opens it;
- :mod:`pbp.store.base` — opening the file, guarding it, backups, transactions;
- :mod:`pbp.store.games` — games, their event logs, reminders and recorded posts;
- :mod:`pbp.store.jsontext` — the JSON text of the state snapshots and the events' data;
- :mod:`pbp.store.seats` — seats, personal tokens and the GM's confirmations;
- :mod:`pbp.store.messages` — incoming messages and kept mail;
- :mod:`pbp.store.outbox` — the outbox;
- :mod:`pbp.store.answers` — the answers owed: digest, rate limit, loops, strangers.
"""

from __future__ import annotations

from pbp.store.answers import AnswersMixin
from pbp.store.base import StoreBase, check_writable
from pbp.store.games import GamesMixin
from pbp.store.messages import MessagesMixin
from pbp.store.outbox import OutboxMixin
from pbp.store.records import (
    GM_SEAT,
    HELD_REASON,
    STILL_KEPT,
    AnswerWindow,
    Confirmation,
    DeferredAnswer,
    DigestCount,
    DigestEntry,
    DigestSent,
    GameRow,
    Holder,
    KeptMessage,
    MessageOutcome,
    NotAStoreError,
    OutgoingMail,
    Schedule,
    Seat,
    StoreDamagedError,
    StoredEvent,
    StoreOpenError,
    StoreReadOnlyError,
    StoreReplacedError,
    StoreVersionError,
    TransactionLostError,
    from_iso,
    to_iso,
)
from pbp.store.schema import CONVERSIONS, LATE_INDEXES, MIGRATIONS, SCHEMA, SCHEMA_VERSION
from pbp.store.seats import SeatsMixin
from pbp.store.shape import store_exists

__all__ = [
    "CONVERSIONS",
    "GM_SEAT",
    "HELD_REASON",
    "LATE_INDEXES",
    "MIGRATIONS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "STILL_KEPT",
    "AnswerWindow",
    "Confirmation",
    "DeferredAnswer",
    "DigestCount",
    "DigestEntry",
    "DigestSent",
    "GameRow",
    "Holder",
    "KeptMessage",
    "MessageOutcome",
    "NotAStoreError",
    "OutgoingMail",
    "Schedule",
    "Seat",
    "Store",
    "StoreDamagedError",
    "StoreOpenError",
    "StoreReadOnlyError",
    "StoreReplacedError",
    "StoreVersionError",
    "StoredEvent",
    "TransactionLostError",
    "check_writable",
    "from_iso",
    "store_exists",
    "to_iso",
]


class Store(GamesMixin, SeatsMixin, MessagesMixin, OutboxMixin, AnswersMixin, StoreBase):
    """Open (and create) the store at ``path``. Use as a context manager or call close().

    The file's identity (``st_dev``, ``st_ino``) is noted when it is opened; every
    transaction first checks that ``path`` still names that file
    (:meth:`check_identity`). Its methods, by the tables they read and write:
    :class:`~pbp.store.games.GamesMixin`, :class:`~pbp.store.seats.SeatsMixin`,
    :class:`~pbp.store.messages.MessagesMixin`, :class:`~pbp.store.outbox.OutboxMixin`,
    :class:`~pbp.store.answers.AnswersMixin`; the connection's own (opening, guarding,
    backups, :meth:`transaction`): :class:`~pbp.store.base.StoreBase`.
    """
