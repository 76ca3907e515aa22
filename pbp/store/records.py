"""The store's records: what its queries return, and its errors.

Every record is a frozen dataclass with named fields (never a positional tuple); every
time in one is aware, in UTC (:func:`from_iso`). Written as ISO 8601 text in UTC
(:func:`to_iso`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pbp.games.core.events import (
    GM_SEAT as GM_SEAT,  # the GM's seat (no player may be called so)
)
from pbp.games.core.events import Event

#: The kept-message reason of a player's mail held while his game was paused (rule
#: D8); the game is the kept row's ``held_for``.
HELD_REASON = "paused"


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
    state: dict[str, Any]  # the kind's snapshot (JSON), read back by the kind (its shape)
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
    (a seat name, or :data:`GM_SEAT` for the GM's own), the ``email`` registered
    for it (lower-case) and its personal ``token``."""

    game_id: str
    player: str
    email: str
    token: str


@dataclass(frozen=True)
class Holder:
    """One player who plays (or played) a seat: his ``name`` (the seat's own for the
    player dealt it; a substitute's otherwise), the ``email`` he played from (his last,
    lower-case: ``pbp readdress`` changes it) and ``since`` (aware, UTC: the game's
    start, or when the GM gave him the seat)."""

    name: str
    email: str
    since: datetime


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
    """The rate-limit window of ``recipient`` (lower-case, :mod:`pbp.app.ratelimit`): when
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
        "forged_from",
        "unauthenticated",
    }
)
"""Outcomes of ``pbp retry`` that leave a message kept (it may be retried again): every
:class:`pbp.app.outcome.Handled` whose mail is kept for the GM."""


@dataclass(frozen=True)
class KeptMessage:
    """A message set aside for the GM (unreadable, automatic, or crashed its handler).

    ``retried_at``/``retry_outcome``: when ``pbp retry`` processed it again and what
    came of it (``applied``, ``refused``, …), None while it waits. ``held_for``: the
    game id whose pause held it (reason :data:`HELD_REASON`; applied on resume, rule
    D8, and then ``retried_at``/``retry_outcome`` say when and what came of it), None
    for any other kept mail. ``dismissed_at``: when the GM closed it (``pbp dismiss``,
    DISMISS by mail) without applying it; the row stays, no longer waiting.
    """

    id: int
    source: str
    arrived: datetime
    reason: str
    raw: bytes
    retried_at: datetime | None = None
    retry_outcome: str | None = None
    held_for: str | None = None
    dismissed_at: datetime | None = None

    @property
    def waiting(self) -> bool:
        """True while it still waits for the GM: not dismissed, and never retried, or
        retried and kept again (outcome in :data:`STILL_KEPT`)."""
        if self.dismissed_at is not None:
            return False
        return self.retried_at is None or self.retry_outcome in STILL_KEPT


class StoreOpenError(Exception):
    """The store cannot be used as it is, found when it is opened: every command
    says so in one sentence and exits 1 (:mod:`pbp.cli`). The message names the
    store and what to do."""


class StoreVersionError(StoreOpenError):
    """The store's schema version is outside what this pbp knows: above
    :data:`pbp.store.schema.SCHEMA_VERSION` (a newer pbp wrote it: this pbp could
    misread it) or negative (no pbp writes one), so it is not opened. The message names
    the store, both versions and what to do."""


class StoreReadOnlyError(StoreOpenError):
    """This process cannot write the store: its file, or the folder where SQLite makes
    the write-ahead log and shared-memory files beside it (``pbp.sqlite3-wal``,
    ``-shm``) and pbp its writer lock (``pbp.sqlite3.lock``), is read-only for the user
    pbp runs as (file modes, another owner, a read-only mount). Every command writes
    (a round, a lever, even opening: the log), so none goes on. The message names the
    path that is read-only and what to do."""


class NotAStoreError(StoreOpenError):
    """The store's path, or a file SQLite or pbp keeps beside it (``pbp.sqlite3-wal``,
    ``-shm``, ``-journal``, the writer lock ``pbp.sqlite3.lock``), is not a regular file
    (a directory, a named pipe, a device such as ``/dev/null``, a symbolic link that
    cannot be followed), or the file is an SQLite file without pbp's tables (another
    program's): it is left as it is. The message names the path, what is there and what
    to do."""


class TransactionLostError(Exception):
    """SQLite rolled the whole transaction back on its own while a part of it
    (:meth:`pbp.store.Store.savepoint`) failed: a full disk (``SQLITE_FULL``), an I/O
    error. What the transaction's earlier parts wrote is gone with it, so nothing more
    may be written as if it were open: the group commit fails whole, and its messages,
    none marked done, are handled again in arrival order by a later round (D8)."""


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
    """GM commands by mail waiting for the GM's confirmation (:mod:`pbp.app.gm`): its
    single-use ``code``, ``game_id``, ``commands`` (JSON text), when it was made and
    expires (aware UTC), ``done_at`` once applied, ``hinted_at`` once a reply
    without the confirmation word was answered how to confirm (once a code), and
    ``ended_at`` when a new GM address ended it unapplied (the code was sent for the
    old one, which may have leaked)."""

    code: str
    game_id: str
    commands: str
    created_at: datetime
    expires_at: datetime
    done_at: datetime | None
    hinted_at: datetime | None = None
    ended_at: datetime | None = None


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
