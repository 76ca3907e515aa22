"""The started games' table: their states and the only writer of their steps.

Every step of a started game — a player's move, a GM's lever, a passed deadline — is
committed here (:meth:`GameTable.commit`: its events, its state, its next deadline,
in the caller's transaction) and told here (:meth:`GameTable.tell`: the private mails
it causes, then its posts). The service's intake and the GM's levers
(:mod:`pbp.app.gm`) both go through it; nothing else writes a game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from pbp.app.mailer import Mailer
from pbp.config.model import Game
from pbp.games.core.events import Event, Step
from pbp.games.core.kind import AnyKind
from pbp.store import GameRow, Schedule, Store
from pbp.store.jsontext import loads as json_loads

#: Games whose parsed state the writer keeps between moves (:meth:`GameTable.state`).
STATE_CACHE_GAMES = 32


def standing_deadline(store: Store, game_id: str, stored: datetime | None) -> datetime | None:
    """The deadline of ``game_id`` as it stands (aware, UTC): ``stored`` (the schedule's),
    or, while the GM's pause holds the game (none stored), the one it had when he
    paused (his ``gm_pause`` event's ``deadline_at``; it moves when he resumes); None:
    the game has none."""
    if stored is not None:
        return stored
    last = store.last_event(game_id, ("gm_pause", "gm_resume"))  # as pbp.app.gm.paused_since
    if last is None or last.event.kind != "gm_pause" or not last.event.data["deadline_at"]:
        return None
    return datetime.fromisoformat(last.event.data["deadline_at"])


@dataclass(frozen=True)
class Applied:
    """A committed move: its step, the public posts it completes (kind's choice) and,
    when known, the game's schedule as the step stored it (:meth:`GameTable.commit`)."""

    step: Step[object]
    posts: list[tuple[str, int]]
    schedule: Schedule | None = None


class GameTable:
    """The games of one store: ``store`` holds them, ``mail`` queues what their steps
    cause. Keeps the parsed state of the last :data:`STATE_CACHE_GAMES` games."""

    def __init__(self, store: Store, mail: Mailer) -> None:
        self.store = store
        self.mail = mail
        self._states: dict[str, tuple[str, object]] = {}

    def state(self, game_id: str, kind: AnyKind) -> object:
        """The engine state of a started game (:meth:`snapshot`).

        :raises LookupError: the game has not started.
        """
        return self.snapshot(game_id, kind)[0]

    def snapshot(self, game_id: str, kind: AnyKind) -> tuple[object, Schedule]:
        """``(engine state, schedule)`` of a started game, read in one query (the
        schedule to hand to :meth:`commit` in the same transaction). The state is
        parsed again only when its stored snapshot is not the one this writer last
        wrote or read (compared as text, so a rolled-back step or another writer is
        never missed). A game's snapshot grows with its history: parsing it for every
        move would make a move cost more as the game goes on. At most
        :data:`STATE_CACHE_GAMES` games are kept.

        :raises LookupError: the game has not started.
        """
        stored = self.store.state_text(game_id)
        if stored is None:
            raise LookupError(f"game {game_id} has not started")
        text, schedule = stored
        cached = self._states.get(game_id)
        if cached is None or cached[0] != text:
            cached = (text, kind.load(json_loads(text)))
        self.remember(game_id, *cached)
        return cached[1], schedule

    def with_history(
        self, game_id: str, kind: AnyKind, state: object, move: object = None
    ) -> object:
        """``state`` with the history ``move`` (None: a view) needs from the event log
        (:meth:`~pbp.games.core.kind.GameKind.with_history`; the snapshot keeps only what the
        rules need)."""
        return kind.with_history(
            state, lambda: [stored.event for stored in self.store.events(game_id)], move
        )

    def deadline(self, game_id: str) -> datetime | None:
        """The game's deadline as it stands (:func:`standing_deadline`); None: none (or
        the game has not started)."""
        schedule = self.store.schedule(game_id)
        stored = schedule.deadline_at if schedule is not None else None
        return standing_deadline(self.store, game_id, stored)

    def remember(self, game_id: str, text: str, state: object) -> None:
        self._states.pop(game_id, None)
        self._states[game_id] = (text, state)
        while len(self._states) > STATE_CACHE_GAMES:
            del self._states[next(iter(self._states))]

    def row(self, game_id: str) -> GameRow:
        row = self.store.game(game_id)
        if row is None:
            raise LookupError(f"game {game_id} has not started")
        return row

    def commit(
        self,
        game: Game,
        kind: AnyKind,
        step: Step[object],
        *,
        at: datetime,
        day: int,
        source: str,
        deadline_at: datetime | None = None,
        schedule: Schedule | None = None,
    ) -> Schedule:
        """Log a step's events and its new state; the next deadline is ``deadline_at``
        or, after a move, what the kind says (:meth:`~pbp.games.core.kind.GameKind.next_deadline`)
        from the current one: ``schedule``'s, the game's schedule as read in this
        transaction (None: read here). Returns the schedule stored."""
        over = kind.is_over(step.state)
        if deadline_at is None:
            if schedule is None:
                schedule = self.store.schedule(game.id)
            current = schedule.deadline_at if schedule is not None else None
            deadline_at = kind.next_deadline(game, step.state, current, None)
        self.store.append_events(game.id, step.events, at=at, day=day, source=source)
        stored = Schedule(over, None if over else deadline_at)
        text = self.store.save_state(
            game.id, kind.dump(step.state), over=over, deadline_at=stored.deadline_at
        )
        # load(dump(state)) == state exactly (each engine's dump_state): no parse next time.
        self.remember(game.id, text, step.state)
        return stored

    def log(
        self, game_id: str, events: Sequence[Event], *, at: datetime, day: int, source: str
    ) -> None:
        """Log events that change no state (a GM's lever: pause, resume, extend)."""
        self.store.append_events(game_id, events, at=at, day=day, source=source)

    def reschedule(
        self, game_id: str, kind: AnyKind, state: object, deadline_at: datetime | None
    ) -> None:
        """Store ``state`` with ``deadline_at`` as the game's next deadline (None: none, as
        while it is paused); the game goes on (not over)."""
        text = self.store.save_state(game_id, kind.dump(state), over=False, deadline_at=deadline_at)
        self.remember(game_id, text, state)

    def tell(self, game: Game, kind: AnyKind, applied: Applied, now: datetime) -> None:
        """What a committed move causes for others: private mails, then its posts (for a
        ``gm_mail: per_deadline`` game, the GM's gathered: :meth:`Mailer.deadline`)."""
        with self.mail.deadline(game, now):
            # The deadline after the step, as stored (a GM's lever does not hand it on).
            schedule = applied.schedule or self.store.schedule(game.id)
            deadline = schedule.deadline_at if schedule is not None else None
            self.notify(game, kind, applied.step, now, deadline)
            for post, number in applied.posts:
                self.mail.gm_post(game, post, now, day=number)
            # The final post after the post of the period that ended the game.
            self.final_post(game, kind, applied.step, now)

    def notify(
        self,
        game: Game,
        kind: AnyKind,
        step: Step[object],
        now: datetime,
        deadline: datetime | None,
    ) -> None:
        """Queue the private mails a committed step causes; ``deadline``: the game's
        deadline after it as stored (aware; None: none), which the kind's mails may name
        (:meth:`~pbp.games.core.kind.GameKind.notifications`)."""
        for mail in kind.notifications(game, step.state, step.events, deadline):
            if mail.player is None:
                self.mail.gm(game, mail.template, dict(mail.context), now)
            else:
                self.mail.player(game, mail.player, mail.template, dict(mail.context), now)

    def final_post(self, game: Game, kind: AnyKind, step: Step[object], now: datetime) -> None:
        """Mail the GM the final post when ``step`` ended the game (C7, M12)."""
        if any(event.kind == "game_over" for event in step.events):
            # The period the game ended in, as it reads at the end (rule P1).
            self.mail.record_post(game, kind.period_post, kind.day(step.state))
            self.mail.gm_post(game, "final", now, day=kind.day(step.state))


def visible(events: Iterable[Event], player: str) -> list[Event]:
    """The events of ``events`` that ``player`` may see (:meth:`Event.visible_to`)."""
    return [e for e in events if e.visible_to(player)]
