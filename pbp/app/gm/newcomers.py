"""A seat's newcomer (:class:`Newcomers`): a substitute who takes a player's seat, or
the same player registered at a new address (``pbp readdress``); the mail the seat's
old address sent while the game was paused is then not applied on resume.

Both are GM levers (:class:`pbp.app.gm.levers.GmDesk` dispatches them), logged as
``gm_substitute`` / ``gm_seat_address`` and ``gm_readdress`` (:mod:`pbp.app.gm`).
"""

from __future__ import annotations

from datetime import datetime

from pbp.app.gm.common import Levers
from pbp.app.outcome import Handled
from pbp.app.running import paused_since, replay_key
from pbp.app.settings import new_token
from pbp.app.shapes import LeverDone
from pbp.config.model import Game
from pbp.games.core.configvalues import is_email
from pbp.games.core.events import Event, LeverRefused, MoveError, Visibility
from pbp.games.core.kind import AnyKind
from pbp.mail.read.mime import read_letter
from pbp.store import GM_SEAT
from pbp.text.names import normalize


class Newcomers(Levers):
    """Substitutes and new addresses of the seats of the games configured."""

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
    ) -> LeverDone:
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
            token = new_token()
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
    ) -> LeverDone:
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
            self.store.replace_token(game_id, seat, new_token(), email)
            data = {"player": seat, "old_email": old, "new_email": email, "via": via}
            event = Event("gm_readdress", Visibility.GM, {**data, "note": note})
            self.log(game_id, [event], now, kind.day(state), via)
            told = {"seat": seat, "old_email": old, "note": note}
            brief = self._brief_context(game, kind, state, seat)
            self.mail.player(game, seat, "readdressed", {**brief, **told}, now)
            self.mail.former(game, old, "readdressed_old", told, now)
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

    def _brief_context(
        self, game: Game, kind: AnyKind, state: object, seat: str
    ) -> dict[str, object]:
        """What a mail that puts a player in ``seat`` shows of it (the ``briefing``, the
        ``readdressed``): ``status`` (hand or role, cards shown to the seat, what it
        owes), ``paused``, ``events`` (the public log) and ``view`` (the command help's
        examples, as in the welcome)."""
        events = [s.event for s in self.store.events(game.id, public_only=True)]
        return {
            "status": kind.status(
                game,
                self.table.with_history(game.id, kind, state),
                seat,
                self.table.deadline(game.id),
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
        state: object,
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
        self.mail.player(game, seat, "briefing", context, now)

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
            self.mail.reply(
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
    def _seat_in_play(kind: AnyKind, state: object, seat: str, now: datetime) -> None:
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
        own_local, _, own_domain = self.config.mail.address.lower().rpartition("@")
        own = domain == own_domain and (local == own_local or local.startswith(own_local + "+"))
        return own or email == game.gm.lower()

    def _newcomer_address(self, game: Game, email: str, *, lever: str | None = None) -> str:
        """``email`` as a substitute's (or a seat's new, ``lever="readdress"``) address,
        lower-cased and without ``<>``.

        :raises LeverRefused: ``gm_bad_address`` {email} (no address pbp registers,
            :func:`~pbp.games.core.configvalues.is_email`; {email, ascii: False}: one with a
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
