"""The clock's side of the games: starts, reminders and deadlines (:class:`Deadlines`).

A game starts at its ``start:`` time (rule C2: hands dealt and mailed, D1: the opening
post); each of its deadlines (a day close, a night's end, a turn's) is passed by the
game kind at its time, one transaction each, and a reminder goes to every player with
open duties before it. Rule D8: a deadline missed while the daemon was down is passed
once, at its own time, before any mail that arrived after it (the intake's catch-up
step, :meth:`pbp.app.intake.Intake.catch_up`, calls :meth:`Deadlines.advance`); more
missed than a game's ``catch_up_limit`` pause it instead (rule P3,
:class:`pbp.app.outage.Outages`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbp.app.mailer import Mailer
from pbp.app.outage import Outages
from pbp.app.settings import Clock, Configured, Settings, new_token
from pbp.app.table import GameTable, visible
from pbp.config.model import Game
from pbp.games.core.events import Event, Step, Visibility
from pbp.store import GM_SEAT, Store
from pbp.text.render import public_only

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GmClose:
    """The GM passes a deadline himself (:meth:`Deadlines.close_day`'s ``by_gm``):
    ``command`` as he gave it (``"close-day"``, ``"end-night"``), ``via`` (``"cli"``,
    ``"mail"``) and his ``note`` (None: none). Logged as the GM-only ``gm_close``
    event."""

    command: str
    via: str
    note: str | None = None


class Deadlines(Configured):
    """Starts, reminders and deadlines of the games configured, each its own
    transaction (joining the caller's, if any)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        table: GameTable,
        mail: Mailer,
        clock: Clock,
        outages: Outages,
    ) -> None:
        self.settings = settings
        self.store = store
        self.table = table
        self.mail = mail
        self.clock = clock
        self.outages = outages

    def start_due_games(
        self,
        now: datetime,
        between: Callable[[], None] | None = None,
        *,
        games: Collection[str] | None = None,
    ) -> list[str]:
        """Start every configured game (of ``games``, default all) whose ``start`` has
        come; returns their ids.

        ``between``: the caller's work between two steps, called after each game (the
        service serves the mail waiting in it during a long round)."""
        started = []
        stored = self.store.schedules()  # one query, no state snapshot read
        for game in self.config.games:
            if games is not None and game.id not in games:
                continue
            if between is not None:
                between()
            if game.id in stored:
                continue
            start = game.start_at
            if start is not None and start > now:
                continue
            # Started when the hands actually go out: a daemon that was down at the
            # start time must not close game days nobody could play.
            try:
                self.start_game(game, now, now)
            except Exception:  # one broken game must not stop the others
                log.exception("game %s could not start; retried next round", game.id)
                continue
            started.append(game.id)
        return started

    def start_game(self, game: Game, at: datetime, now: datetime) -> None:
        """Deal, store, and mail hands (rule C2), the opening post (D1) and the GM sheet."""
        kind = self.kind_of(game)
        seed = game.seed if game.seed is not None else secrets.randbits(63)
        salt = secrets.token_bytes(32)
        step = kind.start(game, seed, salt, at)
        with self.store.transaction():
            first = kind.first_deadline(game, step.state, at)
            self.store.add_game(game.id, kind.kind, seed, salt, kind.dump(step.state), at, first)
            self.store.append_events(game.id, step.events, at=at, day=kind.day(step.state))
            for player in game.players:
                self.store.add_token(new_token(), game.id, player.name, player.email)
            self.store.add_token(new_token(), game.id, GM_SEAT, game.gm)
            # What the welcome shows of the game dealt (its players, cards, rules) and
            # what the GM sheet shows (solution, hands or roles): the kind's views.
            welcome = kind.post_view("welcome", public_only(step.events), None)
            for player in game.players:
                self.mail.player(
                    game,
                    player.name,
                    "welcome",
                    {
                        "status": kind.status(game, step.state, player.name, first),
                        "events": visible(step.events, player.name),
                        "view": welcome,
                    },
                    now,
                )
            sheet = kind.gm_view(kind.with_history(step.state, lambda: step.events), first)
            with self.mail.deadline(game, now):
                self.mail.gm(
                    game,
                    "gm_sheet",
                    {"events": list(step.events), "seed": seed, "view": sheet},
                    now,
                )
                self.mail.gm_post(game, "opening", now, events=step.events)
        log.info("game %s started (seed %s)", game.id, seed)

    def advance_all(
        self,
        until: datetime,
        between: Callable[[], None] | None = None,
        *,
        games: Collection[str] | None = None,
    ) -> None:
        """Perform every due reminder and day close of every running game (of ``games``,
        default all) up to ``until``.

        ``between``: the caller's work between two steps, called before each game (the
        service serves the mail waiting in it: a move that arrives while a thousand
        games close their day is not kept waiting behind them)."""
        for game in self.config.games:
            if games is not None and game.id not in games:
                continue
            if between is not None:
                between()
            try:
                self.advance(game.id, until)
            except Exception:  # one broken game must not stop the others
                log.exception("game %s: a deadline failed; retried next round", game.id)

    def advance(self, game_id: str, until: datetime, now: datetime | None = None) -> None:
        """Perform the due reminders and deadlines of one game, in time order, up to
        ``until``.

        Each deadline is its own transaction; one missed while the daemon was down
        happens once, at its own time (rule D8). A reminder is sent only while its
        deadline is still ahead of ``now`` (the real time, default ``until``): after
        an outage nobody is reminded of a day that has already closed. When more
        deadlines are due at ``now`` than the game's ``catch_up_limit`` allows, the
        game is paused as of the first instead (rule P3, :mod:`pbp.app.outage`).
        """
        now = now or until
        game = self.game_config(game_id)
        while True:
            # Without the state snapshot: this runs before every move (D8).
            schedule = self.store.schedule(game_id)
            if schedule is None or schedule.over or schedule.deadline_at is None:
                return
            close_at = schedule.deadline_at
            hours = game.remind_hours_before
            if hours:
                remind_at = close_at - timedelta(hours=hours)
                if remind_at <= until < close_at and now < close_at:
                    self.remind(game, remind_at, now)
            if close_at > until:
                return
            if self.outages.check(game, close_at, now):
                return  # paused as of close_at (P3)
            self.close_day(game_id, close_at, until, scheduled=True)

    def close_day(
        self,
        game_id: str,
        at: datetime,
        now: datetime | None = None,
        *,
        scheduled: bool = False,
        expect: tuple[str, int] | None = None,
        by_gm: GmClose | None = None,
    ) -> Step[object] | None:
        """Pass the current deadline of ``game_id`` at ``at``: close the game day
        (rules D6, D7), or whatever the game kind does at its deadline.

        The GM defaults are applied, the GM gets the posts the kind asks for (the
        day summary), the next deadline is set by the kind (a manual day close keeps
        the regular schedule). ``scheduled``: this is the deadline due at ``at``; it
        is passed only if still due (another writer may have done it). ``expect``:
        ``(deadline name, period)`` the caller means, e.g. ``("day", 3)`` for ``pbp
        close-day`` on day 3; nothing is done when the game has moved on meanwhile
        (a catch-up or another process passed it). ``by_gm``: the GM passes it (``pbp
        close-day``, CLOSE DAY by mail…): a GM-only ``gm_close`` event {command, deadline,
        period, via, note} is logged before the close's own events (his STATUS's last
        lever, the story), never told in a post. Returns None when nothing was done.
        """
        now = now or self.clock()
        game = self.game_config(game_id)
        kind = self.kind_of(game)
        with self.store.transaction():
            row = self.table.row(game_id)
            if row.over or row.deadline_at is None:
                return None
            if scheduled and row.deadline_at != at:
                return None
            state = kind.load(row.state)
            if expect is not None and expect != (kind.deadline_name(state), kind.day(state)):
                return None
            day = kind.day(state)
            ended = kind.deadline_name(state)
            if by_gm is not None:
                event = Event(
                    "gm_close",
                    Visibility.GM,
                    {
                        "command": by_gm.command,
                        "deadline": ended,
                        "period": day,
                        "via": by_gm.via,
                        "note": by_gm.note,
                    },
                )
                self.table.log(game_id, [event], at=at, day=day, source=f"gm:{by_gm.via}")
            if at < row.deadline_at:
                # The GM passes it early: the deadline moved to now, as an extension
                # moves it later (Cluedo by days tells the close as scheduled, D6).
                state = kind.shift_deadline(state, at - row.deadline_at)
            step = kind.on_deadline(state, at)
            following = kind.next_deadline(game, step.state, row.deadline_at, at)
            self.table.commit(
                game, kind, step, at=at, day=day, source=f"close:{day}", deadline_at=following
            )
            # gm_mail: per_deadline gathers the GM's mails of this close (two mails).
            with self.mail.deadline(game, now):
                for post, number in kind.posts(state, step):
                    self.mail.gm_post(game, post, now, day=number)
                # The ended day's own post as it reads at its close, when the kind mails
                # none at it (a Maniac day's votes): a record too (rule P1).
                self.mail.record_post(game, kind.period_post, day)
                self.table.notify(game, kind, step, now, following)
                self.table.final_post(game, kind, step, now)
        log.info("game %s: %s %s closed at %s", game_id, ended, day, at.isoformat())
        return step

    def remind(self, game: Game, due_at: datetime, now: datetime) -> None:
        """Send one reminder to every player with open duties before the close."""
        kind = self.kind_of(game)
        with self.store.transaction():
            if self.store.reminder_sent(game.id, due_at):
                return
            row = self.table.row(game.id)
            state = kind.load(row.state)
            for player in kind.players(state):
                duties = kind.duties(state, player, row.deadline_at)
                if duties:
                    context = {"duties": duties, "close_at": row.deadline_at}
                    self.mail.player(game, player, "reminder", context, now)
            self.store.record_reminder(game.id, due_at)
