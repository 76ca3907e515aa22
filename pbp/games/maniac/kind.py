"""Maniac as a :class:`~pbp.games.core.kind.GameKind` (rules M1–M12; seed 002).

Glue only: the rules live in :mod:`pbp.games.maniac.engine`, the reading of commands in
:mod:`pbp.games.maniac.parse`. Two deadlines alternate, each at a local wall-clock time
in the game's zone: the day closes at ``day_closes`` (votes counted, the cell filled,
from day 2 on the order due that day fixed: the evening post) and the night ends at
``night_ends`` (the night resolved, after night 1 the order for night 2 fixed, M3: the
morning post). The period is the game day.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, time
from typing import Any, cast

from pbp.games.core.events import Event, IllegalMove, JsonMap, Step, Visibility, event_dict
from pbp.games.core.kind import (
    CLOSE_DAY,
    DeadlineCommand,
    GameKind,
    Outstanding,
    Owed,
    ParsedCommand,
    PrivateMail,
)
from pbp.games.core.schedule import next_close
from pbp.games.maniac import engine
from pbp.games.maniac.config import ManiacGame
from pbp.games.maniac.engine import ManiacMove
from pbp.games.maniac.parse import parse_maniac
from pbp.games.maniac.shapes import (
    DutiesView,
    FixedBy,
    GameOver,
    GameOverMail,
    GmNightMail,
    GmView,
    GmVotesMail,
    KilledMail,
    MailContext,
    NightEnded,
    NightResolution,
    OrderFixed,
    OrderFixedMail,
    OrderVoidedTold,
    OutstandingView,
    PlayerLeft,
    PostView,
    RemovedMail,
    StatusView,
    VoidedMail,
    VoteVoided,
)
from pbp.games.maniac.state import ManiacState

#: ``pbp end-night`` (M6, M8): the night resolved now, the morning post.
END_NIGHT = DeadlineCommand(
    "end-night",
    "night",
    "End the current night of GAME now (Maniac: the night resolved, the morning post).",
    "ended",
)


class Maniac(GameKind[ManiacState, ManiacMove, ManiacGame]):
    """The ``maniac`` game kind (its texts in pbp's own ``templates/``). Its views and its
    mails' contexts are the ``TypedDict`` classes of :mod:`pbp.games.maniac.shapes`."""

    kind = "maniac"
    config_model = ManiacGame
    extra_posts: tuple[str, ...] = ("evening", "morning")
    deadline_names: tuple[str, ...] = ("day", "night")
    deadline_commands: tuple[DeadlineCommand, ...] = (CLOSE_DAY, END_NIGHT)
    unfixable = frozenset(
        {
            "not_the_maniac",
            "player_dead",
            "player_in_prison",
            "removed_from_game",
            "game_ended",
            "voting_closed",
            "orders_closed",
        }
    )

    def load(self, data: Mapping[str, Any]) -> ManiacState:
        """Stored JSON → state."""
        return engine.load_state(data)

    def dump(self, state: ManiacState) -> JsonMap:
        """State → JSON."""
        return engine.dump_state(state)

    def is_over(self, state: ManiacState) -> bool:
        """True once a side has won (M12)."""
        return engine.is_over(state)

    def apply(
        self, state: ManiacState, player: str, move: ManiacMove, at: datetime
    ) -> Step[ManiacState]:
        """One vote or order; raises :class:`~pbp.games.core.events.MoveError`."""
        return engine.apply(state, player, move, at)

    def remove(self, state: ManiacState, player: str, at: datetime) -> Step[ManiacState]:
        """The GM removes ``player``: he leaves the game, his role unrevealed (M12 checked)."""
        return engine.remove(state, player, at)

    def post_view(self, post: str, events: Sequence[Event], period: int | None) -> PostView:
        """The day's votes (live or final) and the evening's result (M9–M12, rule P1):
        :func:`pbp.games.maniac.views.post_view`."""
        return engine.post_view(post, events, period)

    def gm_facts(self, post: str, period: int | None, private: Sequence[JsonMap]) -> list[JsonMap]:
        """The GM-only facts beside a post (M3: the morning after night 1 also gives the
        order its end fixed): :func:`pbp.games.maniac.views.gm_facts`."""
        return engine.gm_facts(post, period, private)

    def reply_events(
        self,
        game: ManiacGame,
        state: ManiacState,
        events: Sequence[Event],
        player: str,
        deadline: datetime | None,
    ) -> list[dict[str, object]]:
        """The move's events (:func:`~pbp.games.core.events.event_dict`); an
        ``order_placed`` also gets ``until``, the real time (aware) its order may be
        changed until (M3, :meth:`order_until`)."""
        told: list[dict[str, object]] = []
        for e in events:
            item: dict[str, object] = {**event_dict(e)}
            if e.kind == "order_placed":
                at = datetime.fromisoformat(e.data["at"])
                item["until"] = self.order_until(game, state, e.data["fixed_by"], deadline, at)
            told.append(item)
        return told

    def order_until(
        self,
        game: ManiacGame,
        state: ManiacState,
        fixed_by: FixedBy,
        deadline: datetime | None,
        at: datetime,
    ) -> datetime:
        """M3: when the deadline ``fixed_by`` ({phase, number}: the close of a day or the
        end of a night, :func:`pbp.games.maniac.state.fixed_by`) comes, in real time:
        the current deadline as stored (``deadline``, with the GM's extensions and
        pauses) when ``fixed_by`` is it, else the regular times (``day_closes``,
        ``night_ends`` in the game's zone) that follow it, one deadline after another
        (after day 1's close, the end of night 1 is the next ``night_ends``). Without a
        stored deadline (``None``), the regular time after ``at`` stands for the current
        one. A deadline already passed is the current one (an order is never placed
        for a night already fixed)."""
        # The deadlines in order: the close of day d is 2d, the end of night d is 2d + 1.
        index = 2 * engine.day(state) + (1 if engine.phase(state) == "night" else 0)
        target = 2 * int(fixed_by["number"]) + (1 if fixed_by["phase"] == "night" else 0)

        def wall(i: int) -> time:
            return game.night_end_time if i % 2 else game.close_time

        when = deadline if deadline is not None else next_close(at, wall(index), game.zone)
        while index < target:
            index += 1
            when = next_close(when, wall(index), game.zone)
        return when

    def status(
        self, game: ManiacGame, state: ManiacState, player: str, deadline: datetime | None
    ) -> StatusView:
        """The STATUS view (its deadlines are in the state or named by none)."""
        return engine.status(state, player)

    def gm_view(self, state: ManiacState, deadline: datetime | None = None) -> GmView:
        """The GM view (``pbp show``)."""
        return engine.gm_view(state)

    def setup(self, game: ManiacGame) -> engine.ManiacSetup:
        """The engine setup from a ``games.yaml`` game (M1 checked by the config)."""
        return engine.ManiacSetup(
            game_id=game.id,
            players=tuple((p.name, p.character) for p in game.players),
            roles=dict(game.roles) if game.roles is not None else None,
        )

    def start(self, game: ManiacGame, seed: int, salt: bytes, at: datetime) -> Step[ManiacState]:
        """Deal the roles (M1) and open day 1 (M2)."""
        return engine.start(self.setup(game), seed, salt, at)

    def mail_context(self, game: ManiacGame) -> MailContext:
        """When days close and nights end, local wall-clock times."""
        return {"day_closes": game.day_closes, "night_ends": game.night_ends}

    def day(self, state: ManiacState) -> int:
        """The current game day (night d follows day d, M2)."""
        return int(engine.day(state))

    def players(self, state: ManiacState) -> list[str]:
        """Every seat in configured order, alive or not."""
        return [name for name, _character in state.players]

    def parse(
        self, text: str, state: ManiacState, aliases: Mapping[str, str] | None = None
    ) -> list[ParsedCommand[ManiacMove]]:
        """Commands of a mail body (grammar in :mod:`pbp.games.maniac.parse`); a seat is
        also named by its ``aliases`` ({name: seat})."""
        return [
            ParsedCommand(
                line.line_no,
                line.text,
                line.move,
                line.error,
                private=isinstance(line.move, engine.Status | engine.Help),
            )
            for line in parse_maniac(text, self.players(state), aliases)
        ]

    def extra_post_number(self, which: str, number: int | None, state: ManiacState) -> int:
        """The evening post of day N is the day's result (M10, M11); the morning post of
        day N ends night N-1 (M8), so it is rendered with N-1. Without a number: the
        latest, today's evening once the day has closed, else yesterday's.

        :raises LookupError: there is none yet (no evening before day 1 closes, no
            morning on day 1).
        """
        if which == "evening":
            if number is not None:
                return number
            latest = self.day(state) - (0 if self.deadline_name(state) == "night" else 1)
            if latest < 1:
                raise LookupError("no evening post yet (the first is day 1's, once it closes)")
            return latest
        if which == "morning":
            night = (number if number is not None else self.day(state)) - 1
            if night < 1:
                raise LookupError(
                    "day 1 has no morning post (the game opens with day 1; the first "
                    "night ends on the morning of day 2)"
                )
            return night
        raise LookupError(f"no {which} posts")

    def first_deadline(
        self, game: ManiacGame, state: ManiacState, start: datetime
    ) -> datetime | None:
        """Day 1 closes at the first ``day_closes`` after the start."""
        return next_close(start, game.close_time, game.zone)

    def next_deadline(
        self,
        game: ManiacGame,
        state: ManiacState,
        current: datetime | None,
        passed: datetime | None,
    ) -> datetime | None:
        """Moves leave the deadline alone; after a day close the night ends at the next
        ``night_ends``, after a night the day closes at the next ``day_closes``.

        A deadline passed early by hand (``pbp close-day``, ``pbp end-night``) keeps the
        regular schedule, as README's command table says of ``close-day``: the next
        deadline is the first regular one after the one that was due (``current``), not
        after the early close (a day closed at 09:56 is followed by a night until
        tomorrow's 10:00, not one of four minutes)."""
        if passed is None:
            return current
        wall = game.night_end_time if engine.phase(state) == "night" else game.close_time
        return next_close(max(passed, current or passed), wall, game.zone)

    def void(self, state: ManiacState, event: Event, at: datetime) -> Step[ManiacState]:
        """A standing vote of today (M9) or a kill order not yet fixed (M3)."""
        data = event.data
        if event.kind == "vote_cast":
            return engine.void_vote(state, data["voter"], data["target"], data["at"], at)
        if event.kind == "order_placed":
            return engine.void_order(state, int(data["night"]), data["at"], at)
        raise IllegalMove("void_kind", kind=event.kind, allowed=["vote_cast", "order_placed"])

    def on_deadline(self, state: ManiacState, at: datetime) -> Step[ManiacState]:
        """Close the day (M9–M11) or end the night (M6–M8), whichever is due."""
        if engine.phase(state) == "day":
            return engine.close_day(state, at)
        return engine.end_night(state, at)

    def deadline_name(self, state: ManiacState) -> str:
        """``"day"`` while votes run (``pbp close-day``), ``"night"`` after (``pbp end-night``)."""
        return str(engine.phase(state))

    def posts(self, before: ManiacState, step: Step[ManiacState]) -> list[tuple[str, int]]:
        """The evening post when a day closed, the morning post when a night ended."""
        posts: list[tuple[str, int]] = []
        for event in step.events:
            if event.kind == "day_closed":
                posts.append(("evening", int(event.data["day"])))
            elif event.kind == "night_ended":
                posts.append(("morning", int(event.data["night"])))
        return posts

    def duties(
        self, state: ManiacState, player: str, deadline: datetime | None
    ) -> DutiesView | None:
        """A vote not cast today; the maniac's order due (reminders; ``deadline`` plays
        no part)."""
        return engine.duties(state, player)

    def outstanding(self, state: ManiacState, deadline: datetime | None = None) -> Outstanding:
        """The reminders' duties of every seat (:meth:`duties`): ``vote`` (a free player
        with no standing vote today, M9), ``order`` with the nights due (the maniac,
        M3); during a day, the live count of its votes as ``view["votes"]``
        (:func:`pbp.games.maniac.state.vote_count`, the day post's own, rule P1)."""
        owed: list[Owed] = []
        for player in self.players(state):
            duties = engine.duties(state, player)
            if duties is None:
                continue
            if duties["vote"]:
                owed.append(Owed(player, "vote"))
            if duties["orders_due"]:
                owed.append(Owed(player, "order", tuple(duties["orders_due"])))
        live = not engine.is_over(state) and engine.phase(state) == "day"
        view: OutstandingView = {"votes": engine.vote_count(state)} if live else {}
        return Outstanding(tuple(owed), view)

    def notifications(
        self,
        game: ManiacGame,
        state: ManiacState,
        events: Sequence[Event],
        deadline: datetime | None,
    ) -> list[PrivateMail]:
        """Who learns what by private mail after ``events``.

        - the maniac: each order fixed, at the close of its day or, for night 2, at
          the end of night 1 (M3);
        - the GM: how each night was resolved (M6, for his eyes only);
        - everybody: the end of the game with every role (M12), and whether he is
          among the winners (a player the GM removed is not);
        - a player the GM removed: that he is out of the game (no one else's role);
        - the voter, the maniac: a vote, an order the GM voided (pbp void);
        - the GM, with ``vote_count_mail: true``: the vote count after every change.

        Votes are public (the count is the GM's post); a death is announced in the
        morning post and, privately, to the dead (M8).
        """
        mails: list[PrivateMail] = []
        changed = ("vote_cast", "vote_withdrawn", "vote_voided")
        if game.vote_count_mail and any(e.kind in changed for e in events):
            votes: GmVotesMail = {"count": engine.vote_count(state)}
            mails.append(PrivateMail("gm_votes", None, votes))
        for event in events:
            # Each event's data as the engine logged it (pbp.games.maniac.shapes).
            data = dict(event.data)
            if event.kind == "order_fixed" and event.visibility is Visibility.PLAYER:
                fixed: OrderFixedMail = {"order": cast(OrderFixed, data)}
                mails.append(PrivateMail("order_fixed", event.player, fixed))
            elif event.kind == "night_resolution":
                night: GmNightMail = {"night": cast(NightResolution, data)}
                mails.append(PrivateMail("gm_night", None, night))
            elif event.kind == "order_voided" and event.player is not None:  # pbp void
                # When a new order is due (M3): «до конца ночи 1 — 2 декабря, 10:00».
                at = datetime.fromisoformat(data["voided_at"])
                data["until"] = self.order_until(game, state, data["fixed_by"], deadline, at)
                order: VoidedMail = {"what": "order", "voided": cast(OrderVoidedTold, data)}
                mails.append(PrivateMail("voided", event.player, order))
            elif event.kind == "vote_voided":  # pbp void
                vote: VoidedMail = {"what": "vote", "voided": cast(VoteVoided, data)}
                mails.append(PrivateMail("voided", data["voter"], vote))
            elif event.kind == "night_ended":
                killed: KilledMail = {"night": cast(NightEnded, data)}
                for name in data["dead"]:
                    mails.append(PrivateMail("killed", name, killed))
            elif event.kind == "game_over":
                over = cast(GameOver, data)
                for name in self.players(state):
                    outcome = engine.player_outcome(over, name, state.left)
                    told: GameOverMail = {"result": over, "outcome": outcome}
                    mails.append(PrivateMail("game_over", name, told))
            elif event.kind == "player_left":  # the GM removed him (pbp remove)
                removed: RemovedMail = {"left": cast(PlayerLeft, data)}
                mails.append(PrivateMail("removed", data["player"], removed))
        return mails


#: The kind, registered by its entry point (group ``pbp.games``, pyproject.toml).
KIND = Maniac()
