"""The GM's levers: acting for a player, pausing, extending, substituting a player.

Every lever is an event in the game's log (never a silent edit of the store),
with the GM's note and the way it came (``via``: ``"cli"`` or ``"mail"``); the
event's time is when the GM pulled the lever. Event kinds:

==================  ==========  =====================================================
kind                visibility  data
==================  ==========  =====================================================
``gm_act``          GM          {player, move (the line as the GM wrote it), via, note}
                                — logged after the move's own events, which carry
                                their own visibility (a shown card stays private)
``gm_pause``        PUBLIC      {period, deadline_name, deadline_at (ISO UTC | None),
                                remaining_seconds (int | None), via, note}
``gm_resume``       PUBLIC      {period, deadline_name, deadline_at, paused_seconds,
                                via, note}
``gm_extend``       PUBLIC      {period, deadline_name, hours, deadline_at (None while
                                paused: the pause keeps the extra time), via, note}
``gm_substitute``   PUBLIC      {player (the seat), name (who takes it), via, note}
``gm_seat_address`` GM          {player, old_email, new_email}
``gm_void``         GM          {event (seq), voided_kind, via, note} — after the
                                engine's compensating event
``gm_remove``       GM          {player, via, note} — after the engine's own events
                                (PUBLIC ``player_removed`` in Cluedo, ``player_left``
                                in Maniac)
==================  ==========  =====================================================

and GM ``gm_address_rotated`` {player (the seat, or ``"@gm"``), via}: a new personal
token (NEW ADDRESS, ``pbp rotate-token``), never the token itself.

A paused game has no deadline (``games.deadline_at`` is NULL), so neither the
scheduler nor a catch-up closes it; mail from its players that arrives while it
is paused is kept (reason ``paused``, ``held_for`` the game) and applied in arrival
order on resume (rule D8; the replay's message row links to the kept row by its
``replay_of``). The levers work the same from ``pbp`` (:mod:`pbp.cli`) and by mail from
the GM's registered address to his personal GM address (:meth:`GmDesk.handle_mail`,
commands in :mod:`pbp.parse.gm`); a lever by mail waits for the GM's confirmation from
his registered address (:meth:`GmDesk.ask_confirmation`, :meth:`GmDesk.confirm`) unless
the trusted server's ``Authentication-Results`` show DMARC pass (:mod:`pbp.authcheck`).
A lever that does not fit the game's state raises
:class:`LeverRefused`, whose text is ``templates/<locale>/errors/<code>.txt``.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import string
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from pbp.authcheck import verdict
from pbp.config import Game
from pbp.core.events import (
    Event,
    InvalidMove,
    LeverRefused,
    MoveError,
    Refusal,
    Visibility,
    utc_iso,
)
from pbp.core.gameconfig import is_email
from pbp.core.kind import AnyKind
from pbp.export import story
from pbp.mail.base import RawMessage, stranger_raw
from pbp.outcome import Handled, Outcome
from pbp.parse.body import is_quoted
from pbp.parse.commands import PlayerNames, read_line
from pbp.parse.gm import (
    Act,
    Export,
    Extend,
    GmLine,
    Help,
    Lever,
    Pause,
    Remove,
    Resume,
    Substitute,
    Void,
    parse_gm,
)
from pbp.parse.mime import Letter, read_letter
from pbp.store import GM_SEAT, Confirmation, KeptMessage, Store, StoredEvent
from pbp.table import Applied

if TYPE_CHECKING:
    from pbp.service import Message, Service

#: The longest one ``extend`` may give, in hours (30 days; a longer break is a pause).
MAX_EXTEND_HOURS = 720
#: How long the GM may confirm levers sent by mail, in hours.
CONFIRM_HOURS = 24
#: Letters of a confirmation code (longer than a personal token: it is never reused).
CONFIRM_CODE_LENGTH = 16
#: GM commands by mail that take effect without the GM's confirmation (they change
#: nothing in a game).
UNCONFIRMED = (Help,)


#: The words that confirm GM commands by mail, alone on a line of the GM's own text
#: (never quoted; case and trailing punctuation aside): an automatic answer ("I am
#: away") confirms nothing.
CONFIRM_WORDS = frozenset(
    {"ПОДТВЕРЖДАЮ", "ПОДТВЕРДИТЬ", "ДА", "CONFIRM", "CONFIRMED", "I CONFIRM", "YES"}
)


def confirms(text: str) -> bool:
    """True when a line of ``text`` (a reply's own text) is one of :data:`CONFIRM_WORDS`.

    >>> confirms("Подтверждаю!\\nСпасибо"), confirms("I am away until 10 December")
    (True, False)
    """
    for line in text.splitlines()[:50]:
        if is_quoted(line):
            continue
        word = " ".join(read_line(line).upper().replace("Ё", "Е").split()).strip(" .!")
        if word in CONFIRM_WORDS:
            return True
    return False


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
    """The GM's levers on the games of one :class:`~pbp.service.Service`.

    Each lever takes the game id, ``now`` (aware UTC: the lever's time), ``via``
    and the GM's ``note``; it returns a dict for the ``gm_result`` mail template
    (``{"lever": …, …}``) and raises :class:`LeverRefused`. Each is one transaction
    (joining the caller's, if any).
    """

    def __init__(self, service: Service) -> None:
        self.service = service
        self.store = service.store

    # --- who the GM is ---------------------------------------------------------

    def gm_token(self, game_id: str) -> str:
        """The GM's personal token for ``game_id`` (made on first use)."""
        token = self.store.player_token(game_id, GM_SEAT)
        if token is None:
            token = self.service.new_token()
            with self.store.transaction():
                self.store.add_token(token, game_id, GM_SEAT, self.service.game_config(game_id).gm)
        return token

    def gm_address(self, game_id: str) -> str:
        """The address the GM sends his commands for ``game_id`` to."""
        return self.service.mail.personal(self.gm_token(game_id))

    # --- helpers -----------------------------------------------------------------

    def _unpaused(self, game_id: str, now: datetime) -> tuple[Game, AnyKind]:
        """The game and its kind for a lever that needs it running and not paused,
        after whatever fell due before ``now`` (rule D8).

        :raises LeverRefused: not running (see :meth:`_running`), or paused (``gm_paused``).
        """
        game, kind = self._game(game_id)
        self._running(game_id, kind)
        if paused_since(self.store, game_id) is not None:
            raise LeverRefused("gm_paused", game=game_id)
        self.service.advance(game_id, now)
        return game, kind

    def _game(self, game_id: str) -> tuple[Game, AnyKind]:
        try:
            game = self.service.game_config(game_id)
        except KeyError:
            raise LeverRefused("gm_unknown_game", game=game_id) from None
        return game, self.service.kind_of(game)

    def _running(self, game_id: str, kind: AnyKind) -> tuple[Any, Any]:
        """``(row, state)`` of a started game that is not over."""
        row = self.store.game(game_id)
        if row is None:
            raise LeverRefused("gm_not_started", game=game_id)
        if row.over:
            raise LeverRefused("gm_game_over", game=game_id)
        return row, kind.load(row.state)

    @staticmethod
    def _seat(kind: AnyKind, state: Any, text: str) -> str:
        return PlayerNames(kind.players(state)).match(text)

    def _log(self, game_id: str, events: Sequence[Event], at: datetime, day: int, via: str) -> None:
        self.service.table.log(game_id, events, at=at, day=day, source=f"gm:{via}")

    def announce(
        self, game: Game, events: Sequence[Event], now: datetime, note: str | None = None
    ) -> None:
        """Mail the GM the public post that announces ``events`` (public ones only),
        in BBCode and Markdown, to paste into the game thread; ``note``, the GM's note
        of a lever whose events carry none (remove, void), follows their headline.
        One mail per format, each holding the post alone (:meth:`Mailer.gm_paste`)."""
        context = {"game": game.id, "timezone": game.timezone, "note": note}
        posts = {
            fmt: self.service.renderer.public_post(
                "gm", events, locale=game.locale, fmt=fmt, kind="common", **context
            )
            for fmt in ("bbcode", "markdown")
        }
        self.service.mail.gm_paste(game, "gm_announce", posts, {}, now)

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
            _row, state = self._running(game_id, kind)
            seat = self._seat(kind, state, player)
            day = kind.day(state)
            commands = kind.parse(move, state)
            results: list[dict[str, Any]] = []
            steps: list[Applied] = []
            for command in commands:
                result, applied = service.apply_command(
                    game, kind, state, seat, command, now, f"gm:{via}"
                )
                results.append(result)
                if applied is not None:
                    steps.append(applied)
                    state = applied.step.state
            if not steps:
                errors = [r.get("error", "") for r in results if "error" in r]
                raise LeverRefused("gm_act_refused", player=seat, move=move, errors=errors)
            marker = Event(
                "gm_act", Visibility.GM, {"player": seat, "move": move, "via": via, "note": note}
            )
            self._log(game_id, [marker], now, day, via)
            context = {"results": results, "player": seat, "by_gm": True}
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
        game, kind = self._game(game_id)
        self._running(game_id, kind)
        # A deadline already due passes first (it was not the GM's to stop).
        service.advance(game_id, now)
        with self.store.transaction():
            row, state = self._running(game_id, kind)
            since = paused_since(self.store, game_id)
            if since is not None:
                raise LeverRefused("gm_already_paused", game=game_id, since=utc_iso(since.at))
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
            self._log(game_id, [event], now, kind.day(state), via)
            self.service.table.reschedule(game_id, kind, state, None)
            self.announce(game, [event], now)
        return {"lever": "pause", **event.data}

    def resume(self, game_id: str, *, now: datetime, via: str, note: str | None) -> dict[str, Any]:
        """Start the clock again: the deadline is as far ahead as it was at the pause
        (plus any extension given meanwhile); the held mail is then applied in
        arrival order (:meth:`replay_held`, after this transaction).

        :raises LeverRefused: not running, or not paused (``gm_not_paused``).
        """
        game, kind = self._game(game_id)
        with self.store.transaction():
            _row, state = self._running(game_id, kind)
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
            state = kind.shift_deadline(state, paused_for)
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
            self._log(game_id, [event], now, kind.day(state), via)
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
            :data:`MAX_EXTEND_HOURS` (``gm_extend_too_long`` {hours, max}: a typo such
            as 2000 for 20, or a date past the calendar); no deadline to move.
        """
        if not hours > 0:
            raise LeverRefused("gm_syntax", lever="extend", syntax="EXTEND HOURS")
        if not hours <= MAX_EXTEND_HOURS:
            raise LeverRefused(
                "gm_extend_too_long",
                hours=f"{hours:.2f}".rstrip("0").rstrip("."),
                max=MAX_EXTEND_HOURS,
            )
        service = self.service
        game, kind = self._game(game_id)
        self._running(game_id, kind)
        service.advance(game_id, now)
        with self.store.transaction():
            row, state = self._running(game_id, kind)
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
            self._log(game_id, [event], now, kind.day(state), via)
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
        for game in self.service.config.games:
            if self.store.game(game.id) is None or paused_since(self.store, game.id):
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
            game (removed, or dead in Maniac); ``gm_bad_address`` {email}: not an address;
            ``gm_address_reserved`` {email}: the daemon's own address, one of its
            personal addresses or the GM's (mail to it would loop or reach the GM);
            ``gm_address_taken`` {email, player}: already plays in this game.
        :raises MoveError: ``player`` names no seat.
        """
        service = self.service
        game, kind = self._game(game_id)
        email = email.strip().strip("<>").lower()
        if not is_email(email):
            raise LeverRefused("gm_bad_address", email=email)
        if self._reserved(game, email):
            raise LeverRefused("gm_address_reserved", email=email)
        with self.store.transaction():
            _row, state = self._running(game_id, kind)
            seat = self._seat(kind, state, player)
            self._seat_in_play(kind, state, seat, now)
            old = self.store.player_email(game_id, seat)
            for other in [*kind.players(state), GM_SEAT]:
                if self.store.player_email(game_id, other) == email:
                    raise LeverRefused("gm_address_taken", email=email, player=other)
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
            self._log(game_id, [public, private], now, kind.day(state), via)
            context = {
                "status": kind.status(self.service.table.with_history(game_id, kind, state), seat),
                "substitute": name,
                "note": note,
                # The game's own names in the command examples (game_started).
                "events": [s.event for s in self.store.events(game_id, public_only=True)],
            }
            service.mail.player(game, seat, "briefing", context, now)
            self.announce(game, [public], now)
        return {
            "lever": "substitute",
            "player": seat,
            "name": name,
            "email": email,
            "dropped": dropped,
        }

    def _drop_held(
        self, game: Game, seat: str, old_email: str, name: str, now: datetime
    ) -> list[int]:
        """The mail ``seat``'s old player sent while the game was paused is not applied
        on resume (the seat is no longer his; his token is gone): he is told so instead
        of the ``held`` promise, and the GM gets the ``pbp kept`` ids (to ACT a move
        that should count). Returns those ids."""
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
                note=f"the seat went to {name}",
                replay_of=kept.id,
            )
            self.service.mail.reply(
                letter,
                old_email,
                "held_dropped",
                {"player": seat, "substitute": name},
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

    # --- remove ----------------------------------------------------------------------------

    def remove(
        self, game_id: str, player: str, *, now: datetime, via: str, note: str | None
    ) -> dict[str, Any]:
        """Remove ``player``: in Cluedo his seat stays and the GM answers for it (C5);
        in Maniac he leaves the game, his role unrevealed, and M12 is checked. The
        engine's events (PUBLIC ``player_removed`` / ``player_left``, the GM's answers)
        then GM ``gm_remove`` {player, via, note}; the removal is announced.

        :raises LeverRefused: not running, paused.
        :raises MoveError: ``player`` names no seat; the engine refuses
            (``already_removed``, ``remove_maniac``).
        """
        service = self.service
        game, kind = self._unpaused(game_id, now)
        with self.store.transaction():
            _row, state = self._running(game_id, kind)
            seat = self._seat(kind, state, player)
            day = kind.day(state)
            step = kind.remove(state, seat, now)
            service.table.commit(game, kind, step, at=now, day=day, source=f"gm:{via}")
            marker = Event("gm_remove", Visibility.GM, {"player": seat, "via": via, "note": note})
            self._log(game_id, [marker], now, day, via)
            service.table.tell(game, kind, Applied(step, kind.posts(state, step)), now)
            self.announce(game, step.events, now, note)
        return {"lever": "remove", "player": seat, "over": kind.is_over(step.state)}

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
            _row, state = self._running(game_id, kind)
            target = next((s for s in self.store.events(game_id) if s.seq == seq), None)
            if target is None or target.event.kind.startswith("gm_"):
                raise LeverRefused("gm_void_unknown", event=seq)
            day = kind.day(state)
            step = kind.void(state, target.event, now)
            service.table.commit(game, kind, step, at=now, day=day, source=f"gm:{via}")
            data = {"event": seq, "voided_kind": target.event.kind, "via": via, "note": note}
            self._log(game_id, [Event("gm_void", Visibility.GM, data)], now, day, via)
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
        _game, kind = self._game(game_id)
        try:
            _row, state = self._running(game_id, kind)
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

    # --- one GM command, from the CLI or a mail --------------------------------------------

    def run(
        self, game_id: str, lever: Lever, note: str | None, *, now: datetime, via: str
    ) -> dict[str, Any]:
        """Pull one lever (:mod:`pbp.parse.gm`), dispatched by its type; raises as the
        lever does (:class:`~pbp.core.events.Refusal`)."""
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
            case Remove(player):
                return self.remove(game_id, player, now=now, via=via, note=note)
            case Void(event):
                return self.void(game_id, event, now=now, via=via, note=note)
            case Help():
                return {"lever": "help"}
            case Export(fmt):
                text = story(self.service, game_id, fmt)
                return {"lever": "export", "format": fmt, "text": text}

    def result_text(
        self, game: Game, results: Sequence[dict[str, Any]], locale: str | None = None
    ) -> str:
        """The text of the ``gm_result`` mail in ``locale`` (default: the game's; the
        CLI prints it in its own)."""
        _subject, body = self.service.renderer.private_mail(
            "common/gm_result",
            locale=locale or game.locale,
            game=game.id,
            timezone=game.timezone,
            results=list(results),
        )
        return body

    def handle_mail(
        self,
        message: Message,
        game_id: str,
    ) -> Outcome:
        """The GM's mail to his personal GM address: every command in it, then one
        answer (``gm_result``) with each line's result; one transaction, so a crash
        neither loses nor repeats a lever. The levers take effect at ``raw.arrived``,
        the mail's arrival (rule D8: a PAUSE sent before a close stops it even when
        read after it); ``now`` is the real time. Held mail freed by a RESUME is
        applied afterwards.

        A mail with no command understood that looks like an auto-responder's loop
        (:meth:`Service.loop`) is kept for the digest, unanswered (outcome ``loop``).

        A mail with a lever (any command but HELP) is applied only after the GM
        confirms it (:meth:`ask_confirmation`): the personal GM address travels in
        every Reply-To and may leak, and a From is easily forged. It is applied at
        once when ``mail.trusted_authserv_id`` is set and that server's
        ``Authentication-Results`` show ``dmarc=pass`` for the From
        (:func:`pbp.authcheck.verdict`)."""
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        service = self.service
        game = service.game_config(game_id)
        at = raw.arrived
        text = service.own_text(letter, game)
        commands = parse_gm(text)
        if all(c.lever is None for c in commands):
            with self.store.transaction():
                loop = service.loop(letter, sender, text, raw, source, game, now)
                if loop is not None:  # no answer: the GM's auto-responder
                    return record(Handled.LOOP, game_id, GM_SEAT, loop)
        if any(c.lever is not None and not isinstance(c.lever, UNCONFIRMED) for c in commands):
            trusted = service.config.mail.trusted_authserv_id
            checked = verdict(letter.authentication_results, sender, trusted) if trusted else None
            if checked is None or not checked.dmarc_pass:
                return self.ask_confirmation(message, game, commands)
        with self.store.transaction():
            results = self._run_all(game, commands, at)
            self._answer(letter, game, results, now)
            done = sum(1 for r in results if "done" in r)
            outcome = record(Handled.GM_APPLIED if done else Handled.GM_REFUSED, game_id, GM_SEAT)
        self.replay_held(now)
        return outcome

    def _run_all(
        self, game: Game, commands: Sequence[GmLine], at: datetime
    ) -> list[dict[str, Any]]:
        """Pull the levers of ``commands`` in order at ``at``; each line's result for
        the ``gm_result`` template."""
        renderer = self.service.renderer
        results: list[dict[str, Any]] = []
        for command in commands:
            result: dict[str, Any] = {"line": command.line, "lever": command.name}
            if command.lever is None:
                error = command.error or InvalidMove("gm_not_a_command")
                result["error"] = renderer.error(error.code, error.params, locale=game.locale)
            else:
                try:
                    done = self.run(game.id, command.lever, command.note, now=at, via="mail")
                    result["done"] = done
                except Refusal as refused:
                    text = renderer.error(refused.code, refused.params, locale=game.locale)
                    result["error"] = text
            results.append(result)
        if not commands:
            results.append(
                {
                    "line": "",
                    "lever": None,
                    "error": renderer.error("gm_no_command", {}, locale=game.locale),
                }
            )
        return results

    def _answer(
        self, letter: Letter, game: Game, results: list[dict[str, Any]], now: datetime
    ) -> None:
        """The ``gm_result`` mail, to the GM's registered address."""
        self.service.mail.reply(
            letter,
            self.registered(game.id),
            "gm_result",
            {"results": results, "gm_address": self.gm_address(game.id)},
            now,
            game=game,
            player=GM_SEAT,
        )

    def registered(self, game_id: str) -> str:
        """The GM's registered address for ``game_id`` (``gm:`` in games.yaml, as
        stored at the start): the only one that gets confirmations."""
        return (
            self.store.player_email(game_id, GM_SEAT)
            or self.service.game_config(game_id).gm.lower()
        )

    # --- confirmation of levers sent by mail -------------------------------------------------

    def ask_confirmation(
        self,
        message: Message,
        game: Game,
        commands: Sequence[GmLine],
    ) -> Outcome:
        """Store the levers of a GM mail under a new single-use code and mail the GM,
        at his registered address only, the ``gm_confirm`` mail: the levers as
        understood (player names resolved to seats) and the answers to the other lines
        (HELP, refusals); its Reply-To (or Subject tag) carries the code. His reply
        applies them (:meth:`confirm`) within :data:`CONFIRM_HOURS`. Nothing in the
        game changes now. Outcome ``gm_pending``."""
        letter = message.letter
        now = message.now
        record = message.record
        pending: list[dict[str, Any]] = []
        others: list[GmLine] = []
        for command in commands:
            if command.lever is None or isinstance(command.lever, UNCONFIRMED):
                others.append(command)
                continue
            try:
                resolved = self._resolved(game, command.lever)
            except Refusal as refused:
                error = InvalidMove(refused.code, **refused.params)
                others.append(dataclasses.replace(command, lever=None, error=error))
                continue
            pending.append(dataclasses.replace(command, lever=resolved).to_json())
        with self.store.transaction():
            if not pending:  # every lever refused already: answered as usual
                results = self._run_all(game, others, now)
                self._answer(letter, game, results, now)
                return record(Handled.GM_REFUSED, game.id, GM_SEAT)
            code = "".join(
                secrets.choice(string.ascii_lowercase + string.digits)
                for _ in range(CONFIRM_CODE_LENGTH)
            )
            expires = now + timedelta(hours=CONFIRM_HOURS)
            self.store.add_confirmation(
                code, game.id, json.dumps(pending, ensure_ascii=False), now, expires
            )
            results = self._run_all(game, others, now) if others else []
            self.service.mail.reply(
                letter,
                self.registered(game.id),
                "gm_confirm",
                {
                    "pending": pending,
                    "results": results,
                    "expires_at": expires,
                    "gm_address": self.gm_address(game.id),
                },
                now,
                game=game,
                token=code,
                # Its own Subject: a forger must not title the mail that asks for a reply.
                stranger=True,
            )
            return record(Handled.GM_PENDING, game.id, GM_SEAT, note=f"{len(pending)} lever(s)")

    def _resolved(self, game: Game, lever: Lever) -> Lever:
        """``lever`` with the seat its player name names (so that what the GM confirms is
        what is applied). :raises Refusal: no such seat; game not running."""
        if isinstance(lever, Act | Substitute | Remove):
            kind = self.service.kind_of(game)
            _row, state = self._running(game.id, kind)
            return dataclasses.replace(lever, player=self._seat(kind, state, lever.player))
        return lever

    def confirmation(self, tokens: Sequence[str]) -> Confirmation | None:
        """The pending GM commands one of ``tokens`` (a mail's personal tokens) is the
        confirmation code of, or None."""
        for token in tokens:
            found = self.store.confirmation(token)
            if found is not None:
                return found
        return None

    def confirm(
        self,
        message: Message,
        confirmation: Confirmation,
    ) -> Outcome:
        """A reply to a ``gm_confirm`` mail (to its confirmation address): from the GM's
        registered address, within :data:`CONFIRM_HOURS`, the stored levers are pulled in
        order, once, at the reply's arrival, and answered with ``gm_result`` (outcome
        ``gm_applied`` / ``gm_refused``); once more, it is answered "already done"
        (``gm_confirmed_already``); too late, "expired" (``gm_confirm_expired``).
        From another address it is kept for the GM (``wrong_confirmer``: he is told at
        once, the confirmation address reached somebody else) and not answered.
        """
        letter = message.letter
        sender = message.from_address
        raw = message.raw
        source = message.source
        now = message.now
        record = message.record
        service = self.service
        game_id = confirmation.game_id
        game = service.game_config(game_id)
        at = raw.arrived
        if sender != self.registered(game_id):
            with self.store.transaction():
                if service.registered_anywhere(sender):
                    kept_id = self.store.keep(source, at, "wrong_confirmer", raw.raw, now)
                    service.mail.notice_gm(game, letter, raw, "wrong_confirmer", kept_id, now)
                else:  # a stranger: his first 64 KB, in the digest (never his Subject)
                    kept_id = self.store.keep(
                        source, at, "wrong_confirmer", stranger_raw(raw.raw), now
                    )
                    service.digest.add(game, "wrong_confirmer", kept_id, letter, now, arrived=at)
                return record(Handled.WRONG_CONFIRMER, game_id)
        if confirmation.done_at is not None or at > confirmation.expires_at:
            template = "gm_confirm_done" if confirmation.done_at else "gm_confirm_expired"
            with self.store.transaction():
                service.mail.reply(
                    letter,
                    sender,
                    template,
                    {"done_at": confirmation.done_at, "expires_at": confirmation.expires_at},
                    now,
                    game=game,
                    player=GM_SEAT,
                )
                said = (
                    Handled.GM_CONFIRMED_ALREADY
                    if confirmation.done_at
                    else Handled.GM_CONFIRM_EXPIRED
                )
                return record(said, game_id, GM_SEAT)
        # The GM's own reply: now its body (who before what), on the CPU budget.
        letter = service.read_body(raw.raw, letter)
        if not confirms(service.own_text(letter, game)):
            # An auto-responder's "I am away" is no confirmation: the GM writes the word.
            with self.store.transaction():
                if confirmation.hinted_at is None:  # told once a code: no loop
                    self.store.mark_hinted(confirmation.code, now)
                    service.mail.reply(
                        letter,
                        sender,
                        "gm_confirm_missing",
                        {"expires_at": confirmation.expires_at},
                        now,
                        game=game,
                        player=GM_SEAT,
                        token=confirmation.code,
                    )
                return record(Handled.GM_UNCONFIRMED, game_id, GM_SEAT)
        commands = [GmLine.from_json(c) for c in json.loads(confirmation.commands)]
        with self.store.transaction():
            self.store.mark_confirmed(confirmation.code, now)
            results = self._run_all(game, commands, at)
            self._answer(letter, game, results, now)
            done = sum(1 for r in results if "done" in r)
            outcome = record(Handled.GM_APPLIED if done else Handled.GM_REFUSED, game_id, GM_SEAT)
        self.replay_held(now)
        return outcome

    # --- a new personal address ---------------------------------------------------------------

    def rotate_token(self, game_id: str, player: str, *, now: datetime, via: str) -> str:
        """Give ``player`` (a seat name, or :data:`GM_SEAT`) a new personal token: the old
        one stops working at once (mail to it is answered ``address_retired``); the seat
        keeps its registered address. Logged as GM ``gm_address_rotated`` {player, via}
        (no token: the log reaches the export). Returns the new token; the caller tells
        the owner, at his registered address.

        :raises LeverRefused: the game has not started.
        :raises MoveError: ``player`` names no seat.
        """
        _game, kind = self._game(game_id)
        with self.store.transaction():
            row = self.store.game(game_id)
            if row is None:
                raise LeverRefused("gm_not_started", game=game_id)
            state = kind.load(row.state)
            seat = player if player == GM_SEAT else self._seat(kind, state, player)
            email = self.store.player_email(game_id, seat)
            if email is None:
                raise LeverRefused("gm_not_started", game=game_id)
            token = self.service.new_token()
            self.store.replace_token(game_id, seat, token, email)
            event = Event("gm_address_rotated", Visibility.GM, {"player": seat, "via": via})
            self._log(game_id, [event], now, kind.day(state), via)
        return token

    def new_address(
        self,
        message: Message,
        game: Game,
        player: str,
    ) -> Outcome:
        """A player's ``NEW ADDRESS`` mail (:func:`pbp.parse.commands.asks_new_address`):
        his token is rotated (:meth:`rotate_token`) and the ``new_address`` answer, whose
        Reply-To is the new address, goes to his registered address. Nothing else in the
        mail is applied (the answer says to send it again); the token changes at the
        mail's arrival. Outcome ``new_address``."""
        letter = message.letter
        now = message.now
        record = message.record
        with self.store.transaction():
            self.rotate_token(game.id, player, now=message.raw.arrived, via="mail")
            email = self.store.player_email(game.id, player)
            assert email is not None
            context = {"asked": True}
            self.service.mail.reply(
                letter, email, "new_address", context, now, game=game, player=player
            )
            return record(Handled.NEW_ADDRESS, game.id, player)

    def new_address_by_gm(self, game_id: str, player: str, *, now: datetime) -> str:
        """``pbp rotate-token``: a new personal address for ``player`` (a seat name) or the
        GM (:data:`GM_SEAT`). A player is mailed his new address (``new_address``) at his
        registered address; the GM's is only returned. Returns the new token.

        :raises LeverRefused: the game has not started. :raises MoveError: no such seat.
        """
        game, _kind = self._game(game_id)
        with self.store.transaction():
            token = self.rotate_token(game_id, player, now=now, via="cli")
            if player != GM_SEAT:
                seat = self.store.token(token)
                assert seat is not None
                self.service.mail.player(game, seat.player, "new_address", {"asked": False}, now)
        return token

    def retired_address(
        self,
        message: Message,
        game_id: str,
        player: str,
    ) -> Outcome:
        """Mail to a personal address its owner replaced (NEW ADDRESS, ``pbp
        rotate-token``), from his registered address: nothing is applied and he is
        told so, with his current address (``address_retired``). Outcome ``retired``."""
        letter = message.letter
        sender = message.from_address
        now = message.now
        record = message.record
        game = self.service.game_config(game_id)
        with self.store.transaction():
            self.service.mail.reply(
                letter, sender, "address_retired", {}, now, game=game, player=player
            )
            return record(Handled.RETIRED, game_id, player)
