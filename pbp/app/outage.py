"""No flood after an outage (rule P3): a game whose missed deadlines are too many is
paused instead of passing them all at once.

When pbp was away (the daemon stopped, the machine down, its clock jumped) while more
of a game's deadlines fell due than its ``catch_up_limit`` allows
(:attr:`pbp.games.core.gameconfig.GameBase.catch_up_deadlines`; default: those of one game
day), :meth:`Outages.check` pauses the game as of the first missed deadline instead of
passing them: a ``gm_pause`` event at that deadline's time (``via`` ``"outage"``, with
``missed``, the number of deadlines due, and ``since``, the first), so mail that
arrived since is held as in any pause (:mod:`pbp.app.gm`), and tells the GM (a mail and a
WARNING line). Its ``remaining_seconds`` is the time the deadline had left at the
game's last event before the outage, so that ``pbp resume`` (or RESUME by mail) goes
on from then with that time. :meth:`Outages.catch_up` (``pbp run --catch-up GAME``)
passes them instead, in time order, as pbp did before P3 (rule D8): the held mail is
applied in arrival order and each deadline at its own time.

Within the limit pbp catches up as D8 says (:meth:`pbp.app.deadlines.Deadlines.advance`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypedDict

from pbp.app.mailer import Mailer
from pbp.app.running import game_and_kind, paused_since, running
from pbp.app.settings import Configured, Settings
from pbp.app.table import GameTable
from pbp.config.model import Game
from pbp.games.core.events import Event, Visibility, utc_iso
from pbp.games.core.kind import AnyKind
from pbp.store import Store

log = logging.getLogger(__name__)

#: The ``via`` of a pause pbp made itself after an outage (rule P3).
OUTAGE = "outage"
#: Most missed deadlines counted for the GM's notice (a clock years ahead is "more").
MOST_COUNTED = 10_000


@dataclass(frozen=True)
class Missed:
    """The deadlines of one game due while pbp was away: ``count`` of them (at most
    :data:`MOST_COUNTED`), the first at ``first`` (aware UTC)."""

    count: int
    first: datetime


class CaughtUp(TypedDict):
    """What :meth:`Outages.catch_up` did: ``resumed`` the game paused after an outage,
    and its deadline now (aware UTC; None: none)."""

    resumed: bool
    deadline_at: datetime | None


class Outages(Configured):
    """Rule P3 on the games configured, on their store, table and mail."""

    def __init__(self, settings: Settings, store: Store, table: GameTable, mail: Mailer) -> None:
        self.settings = settings
        self.store = store
        self.table = table
        self.mail = mail
        #: game id -> the moment up to which its missed deadlines are passed without
        #: a check (``pbp run --catch-up``: this process's rounds).
        self.catching_up: dict[str, datetime] = {}

    def missed(self, game: Game, kind: AnyKind, first: datetime, now: datetime) -> Missed:
        """The deadlines of ``game`` due at ``now`` from ``first`` (its stored deadline,
        due) on, counted by passing them on a copy of its state (pure: the kind's
        :meth:`~pbp.games.core.kind.GameKind.on_deadline` and ``next_deadline``, nothing
        stored); none when ``first`` is not after a catch-up's moment (:meth:`exempt_until`):
        the deadlines up to it are passed at their time."""
        exempt = self.exempt_until(game.id)
        if exempt is not None and first <= exempt:
            return Missed(0, first)  # caught up to then: passed at its time (D8)
        state = kind.load(self.table.row(game.id).state)
        count = 0
        deadline: datetime | None = first
        while deadline is not None and deadline <= now and count < MOST_COUNTED:
            count += 1
            step = kind.on_deadline(state, deadline)
            state = step.state
            if kind.is_over(state):
                break
            deadline = kind.next_deadline(game, state, deadline, deadline)
        return Missed(count, first)

    def exempt_until(self, game_id: str) -> datetime | None:
        """The moment up to which ``game_id``'s deadlines are passed without a check: a
        catch-up asked for in this process (:attr:`catching_up`), else the moment of its
        last resume when that was a catch-up (``catch_up`` in the ``gm_resume``)."""
        last = self.store.last_event(game_id, ("gm_pause", "gm_resume"))
        stored = None
        if last is not None and last.event.kind == "gm_resume" and last.event.data.get("catch_up"):
            stored = datetime.fromisoformat(last.event.data["catch_up"])
        here = self.catching_up.get(game_id)
        found = [moment for moment in (stored, here) if moment is not None]
        return max(found) if found else None

    def check(self, game: Game, first: datetime, now: datetime) -> bool:
        """Before passing the due deadline ``first`` of ``game`` at ``now`` (the real
        time): when more deadlines are due than ``catch_up_limit`` allows, pause the
        game as of ``first`` and tell the GM (:meth:`pause`); returns True then, and
        the caller passes nothing. The daemon's round at a deadline's time costs one
        more pass of the kind's deadline, on a copy (:meth:`missed`)."""
        kind = self.kind_of(game)
        limit = game.catch_up_deadlines
        missed = self.missed(game, kind, first, now)
        if missed.count <= limit:
            return False
        self.pause(game, kind, missed, now)
        return True

    def pause(self, game: Game, kind: AnyKind, missed: Missed, now: datetime) -> None:
        """Pause ``game`` as of ``missed.first`` (rule P3): a ``gm_pause`` at that time
        (``via`` :data:`OUTAGE`), its ``remaining_seconds`` the time the deadline had
        left at the game's last event before it; the GM is mailed ``gm_outage`` and a
        WARNING logged. One transaction; nothing when the game was paused meanwhile."""
        first = missed.first
        with self.store.transaction():
            row = self.table.row(game.id)
            if row.over or row.deadline_at is None or paused_since(self.store, game.id):
                return
            state = kind.load(row.state)
            deadline = row.deadline_at
            last = self.store.clock(game.id)
            seen = min(last, deadline) if last is not None else deadline
            remaining = int((deadline - seen).total_seconds())
            event = Event(
                "gm_pause",
                Visibility.PUBLIC,
                {
                    "period": kind.day(state),
                    "deadline_name": kind.deadline_name(state),
                    "deadline_at": utc_iso(deadline),
                    "remaining_seconds": remaining,
                    "via": OUTAGE,
                    "note": None,
                    "missed": missed.count,
                    "since": utc_iso(first),
                },
            )
            self.table.log(game.id, [event], at=first, day=kind.day(state), source=f"gm:{OUTAGE}")
            # A kind whose deadline lives in the state (Cluedo by rounds) gets back its
            # time left on resume, which shifts it by the pause from ``first`` on.
            state = kind.shift_deadline(state, timedelta(seconds=remaining))
            self.table.reschedule(game.id, kind, state, None)
            context = {
                "missed": missed.count,
                "most": missed.count >= MOST_COUNTED,
                "since": first,
                "remaining_seconds": remaining,
                "limit": game.catch_up_deadlines,
            }
            self.mail.gm(game, "gm_outage", context, now)
        log.warning(
            "game %s: %d deadlines fell due while pbp was away, the first at %s (catch_up_limit "
            "%d): paused as of it; `pbp resume %s` goes on from now with %d s left, "
            "`pbp run --catch-up %s` passes them in time order",
            game.id,
            missed.count,
            first.isoformat(),
            game.catch_up_deadlines,
            game.id,
            remaining,
            game.id,
        )

    def catch_up(self, game_id: str, now: datetime) -> CaughtUp:
        """``pbp run --catch-up GAME``: pass the deadlines ``game_id`` missed, in time order
        (rule D8), as pbp did before P3. A game paused after an outage (:meth:`pause`)
        is resumed as of its first missed deadline (a ``gm_resume`` logged at that
        deadline, its ``catch_up`` the ISO time ``now``; the deadline back), so that the
        next round applies its held mail in arrival order and passes each deadline at its
        own time; a running game's deadlines up to ``now`` are passed without the check
        in this process. Returns
        ``{"resumed": bool, "deadline_at": aware UTC or None}``.

        :raises LeverRefused: no such game (``gm_unknown_game``), not started
            (``gm_not_started``), or over (``gm_game_over``).
        :raises ValueError: paused by the GM (``pbp resume`` is his), in one sentence.
        """
        _game, kind = game_and_kind(self.settings, game_id)
        self.catching_up[game_id] = now
        with self.store.transaction():
            row, state = running(self.store, game_id, kind)
            since = paused_since(self.store, game_id)
            if since is None:
                return {"resumed": False, "deadline_at": row.deadline_at}
            data = since.event.data
            if data.get("via") != OUTAGE:
                raise ValueError(
                    f"game {game_id} was paused by the GM, not after an outage: "
                    f"`pbp resume {game_id}` goes on"
                )
            deadline = datetime.fromisoformat(data["deadline_at"])
            remaining = data["remaining_seconds"]
            state = kind.shift_deadline(state, -timedelta(seconds=remaining))
            event = Event(
                "gm_resume",
                Visibility.PUBLIC,
                {
                    "period": kind.day(state),
                    "deadline_name": kind.deadline_name(state),
                    "deadline_at": utc_iso(deadline),
                    "paused_seconds": 0,
                    "via": "cli",
                    "note": None,
                    "catch_up": utc_iso(now),
                },
            )
            # At the deadline: the game's clock must not pass the deadlines it catches up.
            self.table.log(game_id, [event], at=deadline, day=kind.day(state), source="gm:cli")
            self.table.reschedule(game_id, kind, state, deadline)
        log.info("game %s: catching up from %s (pbp run --catch-up)", game_id, deadline)
        return {"resumed": True, "deadline_at": deadline}
