"""The GM's levers (:class:`GmDesk`): acting for a player, pausing, extending,
substituting or removing a player, registering a seat at a new address, voiding an
event, exporting the story.

Each lever is an event in the game's log; the kinds are listed in :mod:`pbp.app.gm`.
A lever that does not fit the game's state raises :class:`LeverRefused`, whose text
is ``templates/<locale>/errors/<code>.txt``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pbp.app.gm.deadline import pass_deadline
from pbp.app.outcome import Handled, Outcome
from pbp.app.playermoves import reply_results
from pbp.app.story import story
from pbp.app.table import Applied
from pbp.config.model import Game
from pbp.games.core.events import (
    Event,
    LeverRefused,
    MoveError,
    Visibility,
    utc_iso,
)
from pbp.games.core.gameconfig import is_email
from pbp.games.core.kind import AnyKind
from pbp.mail.base import RawMessage
from pbp.mail.read.mime import read_letter
from pbp.store import GM_SEAT, KeptMessage, Schedule, Store, StoredEvent
from pbp.text.commands import PlayerNames
from pbp.text.gmcommands import (
    Act,
    Dismiss,
    Export,
    Extend,
    Help,
    Kept,
    Lever,
    NewAddress,
    PassDeadline,
    Pause,
    Readdress,
    Remove,
    Resume,
    Retry,
    Status,
    Substitute,
    Void,
)
from pbp.text.names import normalize

if TYPE_CHECKING:
    from pbp.app.service import Service

#: The longest one ``extend`` may give, in hours (30 days; a longer break is a pause).
MAX_EXTEND_HOURS = 720


def paused_since(store: Store, game_id: str) -> StoredEvent | None:
    """The ``gm_pause`` event of a paused game, or None when it runs."""
    last = store.last_event(game_id, ("gm_pause", "gm_resume"))
    return last if last is not None and last.event.kind == "gm_pause" else None


def replay_key(held: KeptMessage) -> str:
    """The source key of the message that applies the held mail ``held`` on resume:
    ``resumed:<kept id>`` (as ``pbp retry`` uses ``kept:<kept id>``). Only a unique
    key, never read back: the replay's link to the held row is its ``replay_of``."""
    return f"resumed:{held.id}"


class GmDesk:
    """The GM's levers on the games of one :class:`~pbp.app.service.Service`.

    Each lever takes the game id, ``now`` (aware UTC: the lever's time), ``via``
    and the GM's ``note``; it returns a dict for the ``gm_result`` mail template
    (``{"lever": …, …}``) and raises :class:`LeverRefused`. Each is one transaction
    (joining the caller's, if any).
    """

    def __init__(self, service: Service) -> None:
        self.service = service
        self.store = service.store

    # --- helpers -----------------------------------------------------------------

    def _unpaused(self, game_id: str, now: datetime) -> tuple[Game, AnyKind]:
        """The game and its kind for a lever that needs it running and not paused,
        after whatever fell due before ``now`` (rule D8).

        :raises LeverRefused: not running (see :meth:`_running`), or paused (``gm_paused``).
        """
        game, kind = self.game_and_kind(game_id)
        self.running(game_id, kind)
        # First what fell due: an outage may pause the game there (rule P3).
        self.service.advance(game_id, now)
        if paused_since(self.store, game_id) is not None:
            raise LeverRefused("gm_paused", game=game_id)
        return game, kind

    def game_and_kind(self, game_id: str) -> tuple[Game, AnyKind]:
        try:
            game = self.service.game_config(game_id)
        except KeyError:
            raise LeverRefused("gm_unknown_game", game=game_id) from None
        return game, self.service.kind_of(game)

    def running(self, game_id: str, kind: AnyKind) -> tuple[Any, Any]:
        """``(row, state)`` of a started game that is not over."""
        row = self.store.game(game_id)
        if row is None:
            raise LeverRefused("gm_not_started", game=game_id)
        if row.over:
            raise LeverRefused("gm_game_over", game=game_id)
        return row, kind.load(row.state)

    def _commit_step(
        self, game: Game, kind: AnyKind, step: Any, row: Any, *, now: datetime, day: int, via: str
    ) -> None:
        """Commit a lever's engine ``step`` to the running game of ``row`` (source
        ``gm:{via}``), its schedule as ``row`` holds it: a lever moves no deadline."""
        self.service.table.commit(
            game,
            kind,
            step,
            at=now,
            day=day,
            source=f"gm:{via}",
            schedule=Schedule(row.over, row.deadline_at),
        )

    def seat_of(self, kind: AnyKind, state: Any, text: str, game_id: str) -> str:
        """The seat ``text`` names: by its own name or by the name of whoever plays it
        now (a substitute's, :meth:`pbp.store.Store.substitutes`), any case form.

        :raises MoveError: ``unknown_name`` / ``ambiguous_name``."""
        aliases = self.store.seat_aliases(game_id)
        return PlayerNames(kind.players(state), aliases=aliases).match(text)

    def log(self, game_id: str, events: Sequence[Event], at: datetime, day: int, via: str) -> None:
        self.service.table.log(game_id, events, at=at, day=day, source=f"gm:{via}")

    def announce(
        self, game: Game, events: Sequence[Event], now: datetime, note: str | None = None
    ) -> None:
        """Mail the GM the public post that announces ``events`` (public ones only),
        in the format(s) of the game's ``post_format`` (BBCode by default, Markdown, or
        both), to paste into the game thread; ``note``, the GM's note of a lever whose
        events carry none (remove, void), follows their headline. One mail per format,
        each holding the post alone (:meth:`Mailer.gm_paste`)."""
        context = {
            "game": game.id,
            "timezone": game.timezone,
            "note": note,
            "genders": game.genders(),  # the names in the case the sentence needs (P2)
            # A seat a substitute plays, named as every post names it: «Вова (вместо Розы)».
            "substitutes": self.store.substitutes(game.id),
        }
        posts: dict[str, str] = {
            fmt: self.service.renderer.public_post(
                "gm", events, locale=game.locale, fmt=fmt, kind="common", **context
            )
            for fmt in game.post_formats
        }
        kinds = [e.kind for e in events if e.visibility is Visibility.PUBLIC]
        self.service.mail.gm_paste(game, "gm_announce", posts, {"kinds": kinds}, now)

    # --- act ---------------------------------------------------------------------

    def act(
        self, game_id: str, player: str, move: str, *, now: datetime, via: str, note: str | None
    ) -> dict[str, Any]:
        """Apply ``move`` (one command line, as the player would write it) for
        ``player``: validated and answered exactly as his own mail, marked as
        entered by the GM (the ``gm_act`` event; the player's reply says so).

        :raises LeverRefused: game not running or paused; every command refused
            (``gm_act_refused`` with ``errors``).
        :raises MoveError: ``player`` names no seat (``unknown_name``/``ambiguous_name``).
        """
        service = self.service
        game, kind = self._unpaused(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            schedule: Schedule | None = Schedule(row.over, row.deadline_at)
            seat = self.seat_of(kind, state, player, game_id)
            day = kind.day(state)
            commands = kind.parse(move, state, self.store.seat_aliases(game_id))
            results: list[dict[str, Any]] = []
            steps: list[Applied] = []
            for command in commands:
                result, applied = service.moves.apply_command(
                    game, kind, state, seat, command, now, f"gm:{via}", schedule
                )
                results.append(result)
                if applied is not None:
                    steps.append(applied)
                    state = applied.step.state
                    schedule = applied.schedule
            if not steps:
                errors = [r.get("error", "") for r in results if "error" in r]
                raise LeverRefused("gm_act_refused", player=seat, move=move, errors=errors)
            marker = Event(
                "gm_act", Visibility.GM, {"player": seat, "move": move, "via": via, "note": note}
            )
            self.log(game_id, [marker], now, day, via)
            context = {**reply_results(results), "player": seat, "by_gm": True}
            service.mail.player(game, seat, "reply", context, now)
            for applied in steps:
                service.table.tell(game, kind, applied, now)
        return {"lever": "act", "player": seat, "results": results}

    # --- pause, resume, extend -------------------------------------------------------

    def pause(self, game_id: str, *, now: datetime, via: str, note: str | None) -> dict[str, Any]:
        """Stop the game's clock: no deadline passes and players' mail is held.

        :raises LeverRefused: not running, or already paused (``gm_already_paused``).
        """
        service = self.service
        game, kind = self.game_and_kind(game_id)
        self.running(game_id, kind)
        # A deadline already due passes first (it was not the GM's to stop).
        service.advance(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            since = paused_since(self.store, game_id)
            if since is not None:
                # The time in the game's zone, as every GM text gives it.
                at, zone = utc_iso(since.at), game.timezone
                raise LeverRefused("gm_already_paused", game=game_id, since=at, zone=zone)
            deadline = row.deadline_at
            remaining = int((deadline - now).total_seconds()) if deadline else None
            event = Event(
                "gm_pause",
                Visibility.PUBLIC,
                {
                    "period": kind.day(state),
                    "deadline_name": kind.deadline_name(state),
                    "deadline_at": utc_iso(deadline) if deadline else None,
                    "remaining_seconds": remaining,
                    "via": via,
                    "note": note,
                },
            )
            self.log(game_id, [event], now, kind.day(state), via)
            self.service.table.reschedule(game_id, kind, state, None)
            self.announce(game, [event], now)
        return {"lever": "pause", **event.data}

    def resume(self, game_id: str, *, now: datetime, via: str, note: str | None) -> dict[str, Any]:
        """Start the clock again: the deadline is as far ahead as it was at the pause
        (plus any extension given meanwhile); the held mail is then applied in
        arrival order (:meth:`replay_held`, after this transaction).

        :raises LeverRefused: not running, or not paused (``gm_not_paused``).
        """
        game, kind = self.game_and_kind(game_id)
        with self.store.transaction():
            _row, state = self.running(game_id, kind)
            since = paused_since(self.store, game_id)
            if since is None:
                raise LeverRefused("gm_not_paused", game=game_id)
            paused_for = now - since.at
            remaining = since.event.data["remaining_seconds"]
            extra = sum(
                float(s.event.data["hours"])
                for s in self.store.events(game_id)
                if s.seq > since.seq and s.event.kind == "gm_extend"
            )
            # A kind whose deadline lives in the state (Cluedo by rounds) gets the
            # extension given meanwhile there too; the others take it from ``current``.
            state = kind.shift_deadline(state, paused_for + timedelta(hours=extra))
            current = (
                now + timedelta(seconds=remaining, hours=extra) if remaining is not None else None
            )
            deadline = kind.next_deadline(game, state, current, None)
            event = Event(
                "gm_resume",
                Visibility.PUBLIC,
                {
                    "period": kind.day(state),
                    "deadline_name": kind.deadline_name(state),
                    "deadline_at": utc_iso(deadline) if deadline else None,
                    "paused_seconds": int(paused_for.total_seconds()),
                    "via": via,
                    "note": note,
                },
            )
            self.log(game_id, [event], now, kind.day(state), via)
            self.service.table.reschedule(game_id, kind, state, deadline)
            self.announce(game, [event], now)
            held = len(self.held(game_id))
        return {"lever": "resume", "held": held, **event.data}

    def extend(
        self, game_id: str, hours: float, *, now: datetime, via: str, note: str | None
    ) -> dict[str, Any]:
        """Move the current deadline ``hours`` later (reminders follow it); in a paused
        game the time is added to what is left at resume.

        :raises LeverRefused: not running; ``hours`` not above 0 (``gm_syntax``); above
            :data:`MAX_EXTEND_HOURS` (``gm_extend_too_long`` {hours, max, game}, both numbers
            of hours, which the text writes by ``|hours``: a typo such as 2000 for 20, or a
            date past the calendar); no deadline to move.
        """
        if not hours > 0:
            raise LeverRefused("gm_syntax", lever="extend", syntax="EXTEND <hours>")
        if not hours <= MAX_EXTEND_HOURS:
            raise LeverRefused(
                "gm_extend_too_long", hours=hours, max=MAX_EXTEND_HOURS, game=game_id
            )
        service = self.service
        game, kind = self.game_and_kind(game_id)
        self.running(game_id, kind)
        service.advance(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            paused = paused_since(self.store, game_id)
            if paused is None and row.deadline_at is None:
                raise LeverRefused("gm_no_deadline", game=game_id)
            if paused is not None and paused.event.data["remaining_seconds"] is None:
                raise LeverRefused("gm_no_deadline", game=game_id)
            deadline = None
            if paused is None:
                delta = timedelta(hours=hours)
                state = kind.shift_deadline(state, delta)
                deadline = kind.next_deadline(game, state, row.deadline_at + delta, None)
            event = Event(
                "gm_extend",
                Visibility.PUBLIC,
                {
                    "period": kind.day(state),
                    "deadline_name": kind.deadline_name(state),
                    "hours": hours,
                    "deadline_at": utc_iso(deadline) if deadline else None,
                    "via": via,
                    "note": note,
                },
            )
            self.log(game_id, [event], now, kind.day(state), via)
            if paused is None:
                self.service.table.reschedule(game_id, kind, state, deadline)
            self.announce(game, [event], now)
        return {"lever": "extend", **event.data}

    def held(self, game_id: str) -> list[KeptMessage]:
        """The mail held while ``game_id`` was paused and not yet applied, in arrival
        order (:meth:`pbp.store.Store.held`)."""
        return sorted(self.store.held(game_id), key=lambda kept: (kept.arrived, kept.id))

    def replay_held(self, now: datetime) -> list[Outcome]:
        """Apply the held mail of every game that is no longer paused (rule D8: in
        arrival order, each in the game day it arrived in). Safe to call any time:
        each held message is applied once (its message row's ``replay_of`` is the
        kept id; source key :func:`replay_key`)."""
        outcomes: list[Outcome] = []
        holding = self.store.holding_games()  # one query; usually empty
        if not holding:
            return outcomes
        for game in self.service.config.games:
            if game.id not in holding:
                continue
            if self.store.schedule(game.id) is None or paused_since(self.store, game.id):
                continue
            for kept in self.held(game.id):
                raw = RawMessage(kept.source, None, kept.arrived, kept.raw)
                outcome = self.service.handle(raw, now, source=replay_key(kept), replay_of=kept.id)
                outcomes.append(outcome)
        return outcomes

    # --- substitute ------------------------------------------------------------------

    def substitute(
        self,
        game_id: str,
        player: str,
        name: str,
        email: str,
        *,
        now: datetime,
        via: str,
        note: str | None,
    ) -> dict[str, Any]:
        """Give ``player``'s seat to ``name`` at ``email``: the seat keeps its name, hand
        or role, history and open duties; the old personal address stops working at
        once; the newcomer gets a private briefing (his status: hand or role, cards
        shown to the seat, what the seat owes) and a new personal address.

        :raises LeverRefused: not running; ``gm_seat_gone`` {player}: the seat left the
            game (removed, or dead in Maniac); ``gm_bad_address`` {email}: not an
            address pbp registers ({email, ascii: False}: one that is not ASCII);
            ``gm_address_reserved`` {email}: the daemon's own address, one of its
            personal addresses or the GM's (mail to it would loop or reach the GM);
            ``gm_address_taken`` {email, player}: already plays in this game;
            ``gm_name_taken`` {name, seat}: ``name`` is another seat's, or the name of
            someone who plays or played another seat (moves and votes naming it would
            mean either seat); ``gm_same_player`` {name, seat, email, game}: ``name`` is
            the seat's player now: a new address of his is ``readdress``, not a
            substitution; ``gm_bad_name`` (:meth:`newcomer_name`): a name ``pbp check``
            would refuse for a player of this game.
        :raises MoveError: ``player`` names no seat.
        """
        service = self.service
        game, kind = self.game_and_kind(game_id)
        self.newcomer_name(game, name)
        email = self._newcomer_address(game, email)
        with self.store.transaction():
            _row, state = self.running(game_id, kind)
            seat = self.seat_of(kind, state, player, game_id)
            self._seat_in_play(kind, state, seat, now)
            old = self.store.player_email(game_id, seat)
            for other in [*kind.players(state), GM_SEAT]:
                if self.store.player_email(game_id, other) == email:
                    raise LeverRefused("gm_address_taken", email=email, player=other)
            taken = self._name_taken(game_id, seat, name)
            if taken is not None:
                raise LeverRefused("gm_name_taken", name=name, seat=taken)
            playing = self.store.holders(game_id).get(seat)
            if playing and normalize(playing[-1].name) == normalize(name):
                # The same player at a new address is no substitution (no public post,
                # no "Эрин заменяет Эрин"): that is readdress.
                raise LeverRefused(
                    "gm_same_player", name=name, seat=seat, email=email, game=game_id
                )
            dropped = self._drop_held(game, seat, old, name, now) if old else []
            token = service.new_token()
            self.store.replace_token(game_id, seat, token, email)
            public = Event(
                "gm_substitute",
                Visibility.PUBLIC,
                {"player": seat, "name": name, "via": via, "note": note},
            )
            private = Event(
                "gm_seat_address",
                Visibility.GM,
                {"player": seat, "old_email": old, "new_email": email},
            )
            self.log(game_id, [public, private], now, kind.day(state), via)
            self._brief(game, kind, state, seat, name, note, now)
            self.announce(game, [public], now)
        return {
            "lever": "substitute",
            "player": seat,
            "name": name,
            "email": email,
            "dropped": dropped,
        }

    # --- readdress ------------------------------------------------------------------

    def readdress(
        self,
        game_id: str,
        player: str,
        email: str,
        *,
        now: datetime,
        via: str,
        note: str | None,
    ) -> dict[str, Any]:
        """Register ``player``'s seat at ``email`` instead of its address now (a wrong
        address in games.yaml, a player who moved mailboxes): the same player plays on,
        under the same name; nothing is posted. Logged as GM ``gm_readdress``
        {player, old_email, new_email, via, note}.

        His personal address for moves is always rotated (a new token; the old one
        stops working, as after NEW ADDRESS): the welcome with the old personal address
        went to the old registered address, which may never have been his (a typo: a
        stranger holds that mail now) or may have leaked, and a personal address is a
        bearer secret. Keeping it would spare nobody anything: the player gets the new
        one at once. Both addresses get one mail each: the new one ``readdressed`` (the
        new personal address and his status, in case the old address never reached
        him), the old one ``readdressed_old`` (this address no longer plays; neither the
        new address nor the personal one: it may be a stranger's). Mail from the old
        address is then a stranger's at the seat (``wrong_sender``), and mail to the old
        personal address from it is answered ``old_address`` (:meth:`pbp.app.intake.senders.
        SenderRules.replaced`). Mail the old address sent while the game is paused is not
        applied on resume (:meth:`_drop_held`): its ``pbp kept`` ids are returned as
        ``dropped``.

        :raises LeverRefused: as :meth:`substitute` (not running; ``gm_seat_gone``;
            ``gm_bad_address``, ``gm_address_reserved``; ``gm_address_taken`` {email,
            player}: already plays in this game, this seat included), the address
            refusals with ``lever="readdress"`` (their texts speak of a new address,
            not of a substitute).
        :raises MoveError: ``player`` names no seat.
        """
        service = self.service
        game, kind = self.game_and_kind(game_id)
        email = self._newcomer_address(game, email, lever="readdress")
        with self.store.transaction():
            _row, state = self.running(game_id, kind)
            seat = self.seat_of(kind, state, player, game_id)
            self._seat_in_play(kind, state, seat, now)
            old = self.store.player_email(game_id, seat)
            assert old is not None  # a started game's seat has its address
            for other in [*kind.players(state), GM_SEAT]:
                if self.store.player_email(game_id, other) == email:
                    raise LeverRefused(
                        "gm_address_taken", email=email, player=other, lever="readdress"
                    )
            dropped = self._drop_held(game, seat, old, None, now)
            self.store.replace_token(game_id, seat, service.new_token(), email)
            data = {"player": seat, "old_email": old, "new_email": email, "via": via}
            event = Event("gm_readdress", Visibility.GM, {**data, "note": note})
            self.log(game_id, [event], now, kind.day(state), via)
            told = {"seat": seat, "old_email": old, "note": note}
            brief = self._brief_context(game, kind, state, seat)
            service.mail.player(game, seat, "readdressed", {**brief, **told}, now)
            service.mail.former(game, old, "readdressed_old", told, now)
        return {
            "lever": "readdress",
            "player": seat,
            "email": email,
            "old_email": old,
            "dropped": dropped,
        }

    @staticmethod
    def newcomer_name(game: Game, name: str) -> None:
        """Refuse ``name`` for a substitute in ``game`` when ``pbp check`` would refuse it
        for a player there (:meth:`pbp.games.core.gameconfig.GameBase.player_name_problem`: a
        quote mark as in ``> Вова``, a command word as «ДЛЯ» in ``Вася ДЛЯ Петя``,
        full-width letters, …): moves naming him would be misread.

        :raises LeverRefused: ``gm_bad_name`` {name (its first 20 characters and ``…``
            when over the limit), why, and the params of ``why``}
            (:class:`~pbp.games.core.gameconfig.NameProblem`)."""
        problem = game.player_name_problem(name)
        if problem is not None:
            shown = f"{name[:20]}…" if problem.why == "too_long" else name
            raise LeverRefused("gm_bad_name", name=shown, why=problem.why, **problem.params)

    def _name_taken(self, game_id: str, seat: str, name: str) -> str | None:
        """The other seat of ``game_id`` whose name, or the name of a player who plays
        or played it (:meth:`pbp.store.Store.holders`), ``name`` is (case, ``ё``/``е``
        and markup aside), or None. A substitute under such a name would make moves and
        votes naming it mean either seat."""
        wanted = normalize(name)
        for other, held in self.store.holders(game_id).items():
            names = (other, *(holder.name for holder in held))
            if other != seat and any(normalize(n) == wanted for n in names):
                return other
        return None

    def _brief_context(self, game: Game, kind: AnyKind, state: Any, seat: str) -> dict[str, Any]:
        """What a mail that puts a player in ``seat`` shows of it (the ``briefing``, the
        ``readdressed``): ``status`` (hand or role, cards shown to the seat, what it
        owes), ``paused``, ``events`` (the public log) and ``view`` (the command help's
        examples, as in the welcome)."""
        events = [s.event for s in self.store.events(game.id, public_only=True)]
        return {
            "status": kind.status(
                game,
                self.service.table.with_history(game.id, kind, state),
                seat,
                self.service.table.deadline(game.id),
            ),
            # Its deadlines are as stored: a pause moves them when the game resumes.
            "paused": paused_since(self.store, game.id) is not None,
            "events": events,
            # What the command help shows of the game (its examples), as in the welcome.
            "view": kind.post_view("help", events, None),
        }

    def _brief(
        self,
        game: Game,
        kind: AnyKind,
        state: Any,
        seat: str,
        name: str,
        note: str | None,
        now: datetime,
    ) -> None:
        """Mail the newcomer at ``seat`` his private ``briefing``: his status (hand or
        role, cards shown to the seat, what the seat owes), with the game's own names
        in the command examples (from ``game_started``)."""
        context = {
            **self._brief_context(game, kind, state, seat),
            "seat": seat,
            "substitute": name,
            "note": note,
        }
        self.service.mail.player(game, seat, "briefing", context, now)

    def _drop_held(
        self, game: Game, seat: str, old_email: str, name: str | None, now: datetime
    ) -> list[int]:
        """The mail ``seat``'s old address sent while the game was paused is not applied
        on resume (the seat is no longer its: a substitute ``name`` has it, or with
        ``name`` None the GM gave the seat another address, ``pbp readdress``; its token
        is gone): it is told so instead of the ``held`` promise (``held_dropped``, or
        ``held_readdressed``, which names nothing of the game but the seat: the old
        address may be a stranger's), and the GM gets the ``pbp kept`` ids (to ACT a
        move that should count). Returns those ids."""
        dropped: list[int] = []
        for kept in self.store.held(game.id):
            letter = read_letter(kept.raw)
            if letter.from_address != old_email:
                continue
            self.store.record_message(
                replay_key(kept),
                message_id=None,
                arrived=kept.arrived,
                processed_at=now,
                outcome=Handled.HELD_DROPPED,
                game_id=game.id,
                player=seat,
                note=f"the seat went to {name}" if name else "the seat has a new address",
                replay_of=kept.id,
            )
            self.service.mail.reply(
                letter,
                old_email,
                "held_dropped" if name else "held_readdressed",
                {"seat": seat, "substitute": name} if name else {"seat": seat},
                now,
                game=game,
            )
            dropped.append(kept.id)
        return dropped

    @staticmethod
    def _seat_in_play(kind: AnyKind, state: Any, seat: str, now: datetime) -> None:
        """Refuse a seat that left the game (removed by the GM, or killed in Maniac):
        nobody can take it over. The engine's own check, ``remove`` (pure: its step is
        dropped), says ``already_removed`` for exactly those.

        :raises LeverRefused: ``gm_seat_gone`` {player}.
        """
        try:
            kind.remove(state, seat, now)
        except MoveError as error:
            if error.code == "already_removed":
                raise LeverRefused("gm_seat_gone", player=seat) from None

    def _reserved(self, game: Game, email: str) -> bool:
        """Whether ``email`` is the GM's or the daemon's own (``gm@host`` or any
        ``gm+TOKEN@host``): no seat may be given to it."""
        local, _, domain = email.rpartition("@")
        own_local, _, own_domain = self.service.config.mail.address.lower().rpartition("@")
        own = domain == own_domain and (local == own_local or local.startswith(own_local + "+"))
        return own or email == game.gm.lower()

    def _newcomer_address(self, game: Game, email: str, *, lever: str | None = None) -> str:
        """``email`` as a substitute's (or a seat's new, ``lever="readdress"``) address,
        lower-cased and without ``<>``.

        :raises LeverRefused: ``gm_bad_address`` {email} (no address pbp registers,
            :func:`~pbp.games.core.gameconfig.is_email`; {email, ascii: False}: one with a
            character that is not ASCII), ``gm_address_reserved`` (:meth:`_reserved`);
            with ``lever`` in their params when given."""
        email = email.strip().strip("<>").lower()
        which = {} if lever is None else {"lever": lever}
        if not is_email(email):
            # An address in other letters is one, but pbp registers ASCII ones only.
            other = {} if email.isascii() else {"ascii": False}
            raise LeverRefused("gm_bad_address", email=email, **other, **which)
        if self._reserved(game, email):
            raise LeverRefused("gm_address_reserved", email=email, **which)
        return email

    # --- remove ----------------------------------------------------------------------------

    def remove(
        self, game_id: str, player: str, *, now: datetime, via: str, note: str | None
    ) -> dict[str, Any]:
        """Remove ``player``: in Cluedo his seat stays and the GM answers for it (C5);
        in Maniac he leaves the game, his role unrevealed, and M12 is checked. The
        engine's events (PUBLIC ``player_removed`` / ``player_left``, the GM's answers)
        then GM ``gm_remove`` {player, via, note}; the removal is announced. Returns
        ``{"lever": "remove", "player": the seat, "name": who played it (a substitute's
        name, :meth:`pbp.store.Store.substitutes`; None: the seat's own player), "over":
        bool}``.

        :raises LeverRefused: not running, paused.
        :raises MoveError: ``player`` names no seat; the engine refuses
            (``already_removed``, ``remove_maniac``).
        """
        service = self.service
        game, kind = self._unpaused(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            seat = self.seat_of(kind, state, player, game_id)
            name = self.store.substitutes(game_id).get(seat)  # who is removed: he plays it
            day = kind.day(state)
            step = kind.remove(state, seat, now)
            self._commit_step(game, kind, step, row, now=now, day=day, via=via)
            marker = Event("gm_remove", Visibility.GM, {"player": seat, "via": via, "note": note})
            self.log(game_id, [marker], now, day, via)
            # The removal first: the posts it causes (the GM's answer for the seat, the
            # turn or the game's end) follow it in the thread, and say it happened.
            self.announce(game, step.events, now, note)
            service.table.tell(game, kind, Applied(step, kind.posts(state, step)), now)
        return {"lever": "remove", "player": seat, "name": name, "over": kind.is_over(step.state)}

    # --- void ------------------------------------------------------------------------------

    def void(
        self, game_id: str, seq: int, *, now: datetime, via: str, note: str | None
    ) -> dict[str, Any]:
        """Cancel the move logged as event ``seq`` (its number in the log: ``pbp show``
        lists the moves it can cancel with their numbers, :meth:`voidable`) by a compensating
        event: an unanswered suggestion (Cluedo by days), a standing vote of today or a
        kill order not yet fixed (Maniac). The engine's event (PUBLIC
        ``suggestion_voided`` / ``vote_voided``, or the maniac's PLAYER
        ``order_voided``), then GM ``gm_void`` {event, voided_kind, via, note}.

        :raises LeverRefused: not running, paused; ``gm_void_unknown`` {event}.
        :raises MoveError: ``void_kind`` {kind, allowed}; the engine's reason when a
            later event depends on it (``void_answered``, ``void_replaced``,
            ``void_too_late``).
        """
        service = self.service
        game, kind = self._unpaused(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            target = next((s for s in self.store.events(game_id) if s.seq == seq), None)
            if target is None or target.event.kind.startswith("gm_"):
                raise LeverRefused("gm_void_unknown", event=seq)
            day = kind.day(state)
            step = kind.void(state, target.event, now)
            self._commit_step(game, kind, step, row, now=now, day=day, via=via)
            data = {"event": seq, "voided_kind": target.event.kind, "via": via, "note": note}
            self.log(game_id, [Event("gm_void", Visibility.GM, data)], now, day, via)
            service.table.tell(game, kind, Applied(step, kind.posts(state, step)), now)
            announced = any(e.visibility is Visibility.PUBLIC for e in step.events)
            if announced:
                self.announce(game, step.events, now, note)
        return {
            "lever": "void",
            "event": seq,
            "voided_kind": target.event.kind,
            "announced": announced,
        }

    def voidable(self, game_id: str, now: datetime) -> list[dict[str, Any]]:
        """The logged moves that ``void`` would cancel at ``now``, oldest first:
        ``[{event (seq), kind, player (str | None), day}]``; ``[]`` for a game not
        running. Each is tried on the pure engine; nothing is written."""
        _game, kind = self.game_and_kind(game_id)
        try:
            _row, state = self.running(game_id, kind)
        except LeverRefused:
            return []
        found: list[dict[str, Any]] = []
        for stored in self.store.events(game_id):
            event = stored.event
            if event.kind.startswith("gm_"):
                continue
            try:
                kind.void(state, event, now)
            except MoveError:
                continue
            player = event.player or event.data.get("suggester") or event.data.get("voter")
            found.append(
                {"event": stored.seq, "kind": event.kind, "player": player, "day": stored.day}
            )
        return found

    def publishes_note(self, game_id: str, lever: Lever, now: datetime) -> bool:
        """Whether ``lever``'s note would be printed in the forum post it causes (the
        ``gm`` post: pause, resume, extend, substitute, remove; a void whose engine event
        is public, a suggestion's or a vote's, not a maniac's order). The others keep it
        in the log (act, a deadline passed, …) or tell it one player (address)."""
        if isinstance(lever, Pause | Resume | Extend | Substitute | Remove):
            return True
        if not isinstance(lever, Void):
            return False
        _game, kind = self.game_and_kind(game_id)
        try:
            _row, state = self.running(game_id, kind)
        except LeverRefused:
            return False
        target = next((s for s in self.store.events(game_id) if s.seq == lever.event), None)
        if target is None or target.event.kind.startswith("gm_"):
            return False
        try:
            step = kind.void(state, target.event, now)
        except MoveError:
            return False
        return any(e.visibility is Visibility.PUBLIC for e in step.events)

    # --- one GM command, from the CLI or a mail --------------------------------------------

    def run(
        self, game_id: str, lever: Lever, note: str | None, *, now: datetime, via: str
    ) -> dict[str, Any]:
        """Pull one lever (:mod:`pbp.text.gmcommands`), dispatched by its type; raises as the
        lever does (:class:`~pbp.games.core.events.Refusal`)."""
        match lever:
            case Act(player, move):
                return self.act(game_id, player, move, now=now, via=via, note=note)
            case Pause():
                return self.pause(game_id, now=now, via=via, note=note)
            case Resume():
                return self.resume(game_id, now=now, via=via, note=note)
            case Extend(hours):
                return self.extend(game_id, hours, now=now, via=via, note=note)
            case Substitute(player, name, email):
                return self.substitute(game_id, player, name, email, now=now, via=via, note=note)
            case Readdress(player, email):
                return self.readdress(game_id, player, email, now=now, via=via, note=note)
            case Remove(player):
                return self.remove(game_id, player, now=now, via=via, note=note)
            case Void(event):
                return self.void(game_id, event, now=now, via=via, note=note)
            case Help():
                return {"lever": "help"}
            case Status(everything):
                # The view is the mail's (pbp.app.gm.by_mail, pbp.app.gmview): it reads,
                # never pulls.
                return {"lever": "status", "all": everything}
            case Export(fmt):
                text = story(self.service, game_id, fmt)
                return {"lever": "export", "format": fmt, "text": text}
            case PassDeadline():
                return pass_deadline(self.service, game_id, lever, now=now, via=via, note=note)
            case Kept() | Retry() | Dismiss():
                return self.service.kept.by_mail(game_id, lever, now=now, via=via)
            case NewAddress():
                # As `pbp rotate-token GAME --gm`; the result mail (its Reply-To and
                # gm_address) then gives the new address, at his registered address.
                rotated = self.service.addresses.rotate_token(game_id, GM_SEAT, now=now, via=via)
                return {"lever": "new_address", "ended": rotated.ended}

    def result_text(
        self,
        game: Game,
        results: Sequence[dict[str, Any]],
        locale: str | None = None,
        *,
        cli: bool = False,
    ) -> str:
        """The text of the ``gm_result`` mail in ``locale`` (default: the game's; the
        CLI prints it in its own). ``cli``: the text ``pbp`` prints, without the mail's
        closing list of the GM commands by mail (whose syntax is not the command
        line's)."""
        locale = locale or game.locale
        _subject, body = self.service.renderer.private_mail(
            "common/gm_result",
            locale=locale,
            game=game.id,
            timezone=game.timezone,
            post_formats=list(game.post_formats),
            results=self.named_results(game, results, locale),
            cli=cli,
        )
        return body

    def named_results(
        self, game: Game, results: Sequence[dict[str, Any]], locale: str
    ) -> list[dict[str, Any]]:
        """``results`` (lines of the ``gm_result`` mail) with the player a REMOVE
        removed named as he was known when removed, in ``locale``: a substitute as
        every post names him, «Вова (вместо Розы)» (his own gender, rule P2,
        :meth:`pbp.text.render.Renderer.shown_names`), the seat's own player by the seat's
        name."""
        named: list[dict[str, Any]] = []
        for result in results:
            done = result.get("done")
            if done is not None and done.get("lever") == "remove" and done.get("name"):
                seat = done["player"]
                shown = self.service.renderer.shown_names(
                    locale, {seat: done["name"]}, genders=game.genders()
                )
                result = {**result, "done": {**done, "player": shown[seat]}}
            named.append(result)
        return named

    # --- a new personal address ---------------------------------------------------------------
