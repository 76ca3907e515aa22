"""The GM's levers (:class:`GmDesk`): acting for a player, pausing, resuming, extending,
removing a player, voiding an event, exporting the story; substituting a player and
registering a seat at a new address are :mod:`pbp.app.gm.newcomers`'s.

Each lever is an event in the game's log; the kinds are listed in :mod:`pbp.app.gm`.
A lever that does not fit the game's state raises :class:`LeverRefused`, whose text
is ``templates/<locale>/errors/<code>.txt``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import cast

from pbp.app.deadlines import Deadlines
from pbp.app.gm.addresses import Addresses
from pbp.app.gm.common import Levers
from pbp.app.gm.deadline import pass_deadline
from pbp.app.gm.kept import KeptDesk
from pbp.app.gm.newcomers import Newcomers
from pbp.app.mailer import Mailer
from pbp.app.playermoves import Moves, reply_context
from pbp.app.running import paused_since, replay_key
from pbp.app.settings import Settings
from pbp.app.shapes import ClockData, GmResult, LeverDone, MoveResult, Voidable
from pbp.app.story import story
from pbp.app.table import Applied, GameTable
from pbp.config.model import Game
from pbp.games.core.events import Event, LeverRefused, MoveError, Visibility, utc_iso
from pbp.store import GM_SEAT, KeptMessage, Schedule, Store
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
from pbp.text.render import Renderer

__all__ = ["MAX_EXTEND_HOURS", "GmDesk", "paused_since", "replay_key"]

#: The longest one ``extend`` may give, in hours (30 days; a longer break is a pause).
MAX_EXTEND_HOURS = 720


class GmDesk(Levers):
    """The GM's levers on the games configured.

    Each lever takes the game id, ``now`` (aware UTC: the lever's time), ``via``
    and the GM's ``note``; it returns a dict for the ``gm_result`` mail template
    (``{"lever": …, …}``) and raises :class:`LeverRefused`. Each is one transaction
    (joining the caller's, if any). ACT applies as a player's own mail does
    (``moves``); NEW ADDRESS, KEPT / RETRY / DISMISS, a seat's newcomer and CLOSE DAY /
    END NIGHT are the ``addresses``', the ``kept`` desk's, the ``newcomers``' and the
    ``deadlines``'.
    """

    def __init__(
        self,
        settings: Settings,
        store: Store,
        table: GameTable,
        mail: Mailer,
        renderer: Renderer,
        deadlines: Deadlines,
        *,
        moves: Moves,
        addresses: Addresses,
        kept: KeptDesk,
    ) -> None:
        super().__init__(settings, store, table, mail, renderer, deadlines)
        self.moves = moves
        self.addresses = addresses
        self.kept = kept
        self.newcomers = Newcomers(settings, store, table, mail, renderer, deadlines)

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
    ) -> LeverDone:
        """:meth:`pbp.app.gm.newcomers.Newcomers.substitute`."""
        return self.newcomers.substitute(game_id, player, name, email, now=now, via=via, note=note)

    def readdress(
        self, game_id: str, player: str, email: str, *, now: datetime, via: str, note: str | None
    ) -> LeverDone:
        """:meth:`pbp.app.gm.newcomers.Newcomers.readdress`."""
        return self.newcomers.readdress(game_id, player, email, now=now, via=via, note=note)

    @staticmethod
    def newcomer_name(game: Game, name: str) -> None:
        """:meth:`pbp.app.gm.newcomers.Newcomers.newcomer_name`."""
        Newcomers.newcomer_name(game, name)

    # --- act ---------------------------------------------------------------------

    def act(
        self, game_id: str, player: str, move: str, *, now: datetime, via: str, note: str | None
    ) -> LeverDone:
        """Apply ``move`` (one command line, as the player would write it) for
        ``player``: validated and answered exactly as his own mail, marked as
        entered by the GM (the ``gm_act`` event; the player's reply says so).

        :raises LeverRefused: game not running or paused; every command refused
            (``gm_act_refused`` with ``errors``).
        :raises MoveError: ``player`` names no seat (``unknown_name``/``ambiguous_name``).
        """
        game, kind = self._unpaused(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            schedule: Schedule | None = Schedule(row.over, row.deadline_at)
            seat = self.seat_of(kind, state, player, game_id)
            day = kind.day(state)
            commands = kind.parse(move, state, self.store.seat_aliases(game_id))
            results: list[MoveResult] = []
            steps: list[Applied] = []
            for command in commands:
                result, applied = self.moves.apply_command(
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
            context = reply_context(results, seat, kind.unfixable)
            context["by_gm"] = True
            self.mail.player(game, seat, "reply", context, now)
            for applied in steps:
                self.table.tell(game, kind, applied, now)
        return {"lever": "act", "player": seat, "results": results}

    # --- pause, resume, extend -------------------------------------------------------

    def pause(self, game_id: str, *, now: datetime, via: str, note: str | None) -> LeverDone:
        """Stop the game's clock: no deadline passes and players' mail is held.

        :raises LeverRefused: not running, or already paused (``gm_already_paused``).
        """
        game, kind = self.game_and_kind(game_id)
        self.running(game_id, kind)
        # A deadline already due passes first (it was not the GM's to stop).
        self.deadlines.advance(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            since = paused_since(self.store, game_id)
            if since is not None:
                # The time in the game's zone, as every GM text gives it.
                at, zone = utc_iso(since.at), game.timezone
                raise LeverRefused("gm_already_paused", game=game_id, since=at, zone=zone)
            deadline = row.deadline_at
            remaining = int((deadline - now).total_seconds()) if deadline else None
            data: ClockData = {
                "period": kind.day(state),
                "deadline_name": kind.deadline_name(state),
                "deadline_at": utc_iso(deadline) if deadline else None,
                "remaining_seconds": remaining,
                "via": via,
                "note": note,
            }
            event = Event("gm_pause", Visibility.PUBLIC, data)
            self.log(game_id, [event], now, kind.day(state), via)
            self.table.reschedule(game_id, kind, state, None)
            self.announce(game, [event], now)
        return cast(LeverDone, {"lever": "pause", **data})  # ClockData is a part of it

    def resume(self, game_id: str, *, now: datetime, via: str, note: str | None) -> LeverDone:
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
            data: ClockData = {
                "period": kind.day(state),
                "deadline_name": kind.deadline_name(state),
                "deadline_at": utc_iso(deadline) if deadline else None,
                "paused_seconds": int(paused_for.total_seconds()),
                "via": via,
                "note": note,
            }
            event = Event("gm_resume", Visibility.PUBLIC, data)
            self.log(game_id, [event], now, kind.day(state), via)
            self.table.reschedule(game_id, kind, state, deadline)
            self.announce(game, [event], now)
            held = len(self.held(game_id))
        return cast(LeverDone, {"lever": "resume", "held": held, **data})

    def extend(
        self, game_id: str, hours: float, *, now: datetime, via: str, note: str | None
    ) -> LeverDone:
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
        game, kind = self.game_and_kind(game_id)
        self.running(game_id, kind)
        self.deadlines.advance(game_id, now)
        with self.store.transaction():
            row, state = self.running(game_id, kind)
            paused = paused_since(self.store, game_id)
            if paused is None and row.deadline_at is None:
                raise LeverRefused("gm_no_deadline", game=game_id)
            if paused is not None and paused.event.data["remaining_seconds"] is None:
                raise LeverRefused("gm_no_deadline", game=game_id)
            deadline = None
            if paused is None:
                assert row.deadline_at is not None  # refused above without one
                delta = timedelta(hours=hours)
                state = kind.shift_deadline(state, delta)
                deadline = kind.next_deadline(game, state, row.deadline_at + delta, None)
            data: ClockData = {
                "period": kind.day(state),
                "deadline_name": kind.deadline_name(state),
                "hours": hours,
                "deadline_at": utc_iso(deadline) if deadline else None,
                "via": via,
                "note": note,
            }
            event = Event("gm_extend", Visibility.PUBLIC, data)
            self.log(game_id, [event], now, kind.day(state), via)
            if paused is None:
                self.table.reschedule(game_id, kind, state, deadline)
            self.announce(game, [event], now)
        return cast(LeverDone, {"lever": "extend", **data})

    def held(self, game_id: str) -> list[KeptMessage]:
        """The mail held while ``game_id`` was paused and not yet applied, in arrival
        order (:meth:`pbp.store.Store.held`)."""
        return sorted(self.store.held(game_id), key=lambda kept: (kept.arrived, kept.id))

    # --- remove ----------------------------------------------------------------------------

    def remove(
        self, game_id: str, player: str, *, now: datetime, via: str, note: str | None
    ) -> LeverDone:
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
            self.table.tell(game, kind, Applied(step, kind.posts(state, step)), now)
        return {"lever": "remove", "player": seat, "name": name, "over": kind.is_over(step.state)}

    # --- void ------------------------------------------------------------------------------

    def void(
        self, game_id: str, seq: int, *, now: datetime, via: str, note: str | None
    ) -> LeverDone:
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
            self.table.tell(game, kind, Applied(step, kind.posts(state, step)), now)
            announced = any(e.visibility is Visibility.PUBLIC for e in step.events)
            if announced:
                self.announce(game, step.events, now, note)
        return {
            "lever": "void",
            "event": seq,
            "voided_kind": target.event.kind,
            "announced": announced,
        }

    def voidable(self, game_id: str, now: datetime) -> list[Voidable]:
        """The logged moves that ``void`` would cancel at ``now``, oldest first:
        ``[{event (seq), kind, player (str | None), day}]``; ``[]`` for a game not
        running. Each is tried on the pure engine; nothing is written."""
        _game, kind = self.game_and_kind(game_id)
        try:
            _row, state = self.running(game_id, kind)
        except LeverRefused:
            return []
        found: list[Voidable] = []
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
    ) -> LeverDone:
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
                text = story(self, game_id, fmt)
                return {"lever": "export", "format": fmt, "text": text}
            case PassDeadline():
                return pass_deadline(self.deadlines, game_id, lever, now=now, via=via, note=note)
            case Kept() | Retry() | Dismiss():
                return self.kept.by_mail(game_id, lever, now=now, via=via)
            case NewAddress():
                # As `pbp rotate-token GAME --gm`; the result mail (its Reply-To and
                # gm_address) then gives the new address, at his registered address.
                rotated = self.addresses.rotate_token(game_id, GM_SEAT, now=now, via=via)
                return {"lever": "new_address", "ended": rotated.ended}

    def result_text(
        self,
        game: Game,
        results: Sequence[GmResult],
        locale: str | None = None,
        *,
        cli: bool = False,
    ) -> str:
        """The text of the ``gm_result`` mail in ``locale`` (default: the game's; the
        CLI prints it in its own). ``cli``: the text ``pbp`` prints, without the mail's
        closing list of the GM commands by mail (whose syntax is not the command
        line's)."""
        locale = locale or game.locale
        _subject, body = self.renderer.private_mail(
            f"{game.kind}/gm_result",
            locale=locale,
            game=game.id,
            timezone=game.timezone,
            post_formats=list(game.post_formats),
            results=self.named_results(game, results, locale),
            cli=cli,
        )
        return body

    def named_results(self, game: Game, results: Sequence[GmResult], locale: str) -> list[GmResult]:
        """``results`` (lines of the ``gm_result`` mail) with the player a REMOVE
        removed named as he was known when removed, in ``locale``: a substitute as
        every post names him, «Вова (вместо Розы)» (his own gender, rule P2,
        :meth:`pbp.text.render.Renderer.shown_names`), the seat's own player by the seat's
        name."""
        named: list[GmResult] = []
        for result in results:
            done = result.get("done")
            name = done.get("name") if done is not None else None
            if done is not None and done.get("lever") == "remove" and name:
                seat = done["player"]
                shown = self.renderer.shown_names(locale, {seat: name}, genders=game.genders())
                result = {**result, "done": {**done, "player": shown[seat]}}
            named.append(result)
        return named
