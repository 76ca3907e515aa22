"""What came of one incoming message: :class:`Handled` (the word), :class:`Decision`
(what an intake rule decided: the word with its game, player and note) and
:class:`Outcome` (the decision with the message, once the intake recorded it in the
store), returned by :meth:`pbp.app.service.Service.handle`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Protocol


class Handled(StrEnum):
    """What came of one incoming message: the ``outcome`` of its row in the store and
    of its :class:`Outcome` (a ``str``, so that logs, the store and ``pbp kept`` keep
    showing the plain word)."""

    APPLIED = "applied"  #: every command applied
    AUTOMATIC = "automatic"  #: an auto-reply or bounce (RFC 3834): kept, never answered
    DUPLICATE = "duplicate"  #: the same mail again: never applied twice
    ERROR = "error"  #: a bug: kept, the GM told
    FORGED_FROM = "forged_from"  #: no single sender to trust: kept, never answered
    GM_APPLIED = "gm_applied"  #: the GM's levers pulled
    GM_CAPPED = "gm_capped"  #: the GM's levers beyond the pending cap: his digest, no mail
    GM_CONFIRM_ENDED = "gm_confirm_ended"  #: a confirmation a new GM address ended
    GM_CONFIRM_EXPIRED = "gm_confirm_expired"  #: a confirmation too late
    GM_CONFIRMED_ALREADY = "gm_confirmed_already"  #: a confirmation used already
    GM_PENDING = "gm_pending"  #: the GM's levers wait for his confirmation
    GM_REFUSED = "gm_refused"  #: the GM's levers all refused
    GM_UNCONFIRMED = "gm_unconfirmed"  #: a reply to a confirmation that does not confirm
    GM_WRONG_ADDRESS = "gm_wrong_address"  #: the GM wrote to a player's address: pointed to his own
    HELD = "held"  #: still held (pbp retry)
    HELD_DROPPED = "held_dropped"  #: a held mail of a seat given to a substitute
    LOOP = "loop"  #: an auto-responder's loop: kept, unanswered
    NEW_ADDRESS = "new_address"  #: NEW ADDRESS: a new personal address
    NOT_STARTED = "not_started"  #: a player of a game that has not started: told when it starts
    PARTLY_APPLIED = "partly_applied"  #: some commands applied, some refused
    PAUSED = "paused"  #: held while the game is paused (D8)
    READDRESSED = "readdressed"  #: from a seat's old address, after pbp readdress
    REFUSED = "refused"  #: every command refused
    REPLACED = "replaced"  #: his seat went to a substitute
    RESUMED = "resumed"  #: a held mail applied on resume
    RETIRED = "retired"  #: mail to an address he replaced himself
    RETRIED = "retried"  #: kept mail already retried
    STATUS = "status"  #: only STATUS / HELP (nothing to apply)
    TOKEN_MISSING = "token_missing"  #: a player without his personal address: sent it again
    TOO_LARGE = "too_large"  #: over the size limit: its header section kept
    UNAUTHENTICATED = (
        "unauthenticated"  #: a From the receiving server did not authenticate (RFC 8601): kept
    )
    UNKNOWN_SENDER = "unknown_sender"  #: a stranger's: kept for the digest
    UNREADABLE = "unreadable"  #: no move could be read from it: kept, answered why
    WRONG_CONFIRMER = "wrong_confirmer"  #: a confirmation from another address: kept
    WRONG_SENDER = "wrong_sender"  #: another's personal address: kept, the GM told


@dataclass
class Outcome:
    """What handling one incoming message did (for logs and tests)."""

    source: str
    outcome: Handled
    game_id: str | None = None
    player: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Decision:
    """What an intake rule decided of a message (:meth:`pbp.app.intake.Intake.rules`): its
    ``outcome``, its game and player and a ``note`` (None: none), which the intake's
    record step writes in the message's row (:meth:`pbp.app.intake.Intake.record`) in
    the transaction of the rule's own writes. ``replay_held``: the rule pulled GM
    levers (a RESUME may have freed held mail), so the intake applies the mail held by
    a pause next (:meth:`pbp.app.intake.Intake.replay_held`)."""

    outcome: Handled
    game_id: str | None = None
    player: str | None = None
    note: str | None = None
    replay_held: bool = False


class Rerun(Protocol):
    """Runs kept mail through the intake again (:class:`pbp.app.intake.Intake`): what a
    GM's RETRY needs of it (:class:`pbp.app.gm.kept.KeptDesk`)."""

    def retry(self, kept_ids: Iterable[int], now: datetime) -> list[Outcome]: ...
