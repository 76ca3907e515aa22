"""The GM by mail (:class:`GmMail`): his commands to his personal GM address, asked to
be confirmed from his registered address (:meth:`GmMail.ask_confirmation`; the reply
is :mod:`pbp.app.gm.confirm`'s). The answers to players about their personal addresses
(NEW ADDRESS, a retired address) are :mod:`pbp.app.gm.addresses`'.

A lever by mail waits for the GM's confirmation unless the trusted server's
``Authentication-Results`` show DMARC pass (:mod:`pbp.mail.read.authcheck`): the
personal GM address travels in every Reply-To and may leak, and a From is easily
forged. The levers themselves are :class:`pbp.app.gm.levers.GmDesk`'s.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import string
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pbp.app.deadlines import Deadlines
from pbp.app.digest import Digest
from pbp.app.gm.addresses import Addresses
from pbp.app.gm.deadline import expected
from pbp.app.gm.kept import KeptDesk
from pbp.app.gm.levers import GmDesk
from pbp.app.gmview import game_status
from pbp.app.mailer import Mailer
from pbp.app.outcome import Decision, Handled
from pbp.app.owntext import OwnText
from pbp.app.playermoves import Moves
from pbp.app.running import running, seat_of
from pbp.app.settings import Configured, Settings
from pbp.app.shapes import GmResult, LeverDone
from pbp.config.model import Game
from pbp.games.core.events import InvalidMove, Refusal
from pbp.mail.read.mime import Letter
from pbp.mail.read.quotemarks import is_quoted
from pbp.store import GM_SEAT, Store
from pbp.text import keywords
from pbp.text.commands import read_line
from pbp.text.counted import counted
from pbp.text.gmcommands import (
    Act,
    Dismiss,
    GmLine,
    Help,
    Kept,
    Lever,
    NewAddress,
    PassDeadline,
    Readdress,
    Remove,
    Retry,
    Status,
    StoredLine,
    Substitute,
    parse_gm,
)
from pbp.text.render import Renderer
from pbp.text.seatnames import ShownName

if TYPE_CHECKING:
    from pbp.app.message import Message

#: How long the GM may confirm levers sent by mail, in hours.
CONFIRM_HOURS = 24
#: Letters of a confirmation code (longer than a personal token: it is never reused).
CONFIRM_CODE_LENGTH = 16
#: The characters of a confirmation code.
CONFIRM_CODE_ALPHABET = string.ascii_lowercase + string.digits
#: The store's secret the confirmation codes are made with (:meth:`pbp.store.Store.secret`).
CONFIRM_SECRET = "gm_confirm"
#: The most confirmations of one game that wait at once (:meth:`GmMail.ask_confirmation`):
#: a lever mail beyond them gets no confirmation mail and is one line of the GM's
#: digest (reason ``gm_capped``). A flood of forged levers through a leaked GM address
#: asks him this often, not once per mail; counted per game, so a flood through one
#: game's address never holds back the GM's levers in his other games.
PENDING_CAP = 5
#: The identity a ``NEW ADDRESS`` asked at the cap is coded under, with the GM's
#: current token and the day (:meth:`GmMail.ask_confirmation`).
CAPPED_NEW_ADDRESS = "new-address-at-cap"
#: GM commands by mail that take effect without the GM's confirmation (they change
#: nothing in a game).
UNCONFIRMED = (Help, Status, Kept)


def confirm_words() -> frozenset[str]:
    """The words that confirm GM commands by mail, alone on a line of the GM's own text
    (never quoted; case and trailing punctuation aside), in every locale
    (:mod:`pbp.text.keywords`, ``gm.confirm``): an automatic answer ("I am away") confirms
    nothing."""
    words = keywords.current().words("gm", "confirm")
    return frozenset(" ".join(w.upper().replace("Ё", "Е").split()) for w in words)


def unread_lines(text: str) -> list[str]:
    """The GM command lines of ``text`` (a reply to a confirmation mail, its own text),
    outside quotes: lines whose first word is a GM command's keyword (:func:`parse_gm`,
    arguments fitting or not). A reply to a confirmation only confirms, so they are not
    read, and the answer says so; a "thank you" or a signature is no command and is not
    named. At most the first 50 lines are looked at, as :func:`confirms` does.

    >>> unread_lines("да\\n\\nПАУЗА\\nСпасибо!\\n> ЗАКРЫТЬ ДЕНЬ")
    ['ПАУЗА']
    """
    own = "\n".join(line for line in text.splitlines()[:50] if not is_quoted(line))
    return [
        line.line
        for line in parse_gm(own)
        if line.lever is not None or (line.error is not None and line.error.code == "gm_syntax")
    ]


def confirms(text: str) -> bool:
    """True when a line of ``text`` (a reply's own text) is one of :func:`confirm_words`.

    >>> confirms("Подтверждаю!\\nСпасибо"), confirms("I am away until 10 December")
    (True, False)
    """
    words = confirm_words()
    for line in text.splitlines()[:50]:
        if is_quoted(line):
            continue
        word = " ".join(read_line(line).upper().replace("Ё", "Е").split()).strip(" .!")
        if word in words:
            return True
    return False


def confirmation_code(secret: bytes, game_id: str, identity: str, digest: str) -> str:
    """The confirmation code of a GM's lever mail: :data:`CONFIRM_CODE_LENGTH` characters
    of :data:`CONFIRM_CODE_ALPHABET` taken from HMAC-SHA256 (RFC 2104) under ``secret``
    (the store's :data:`CONFIRM_SECRET`, 32 random bytes never mailed) of the game id,
    the mail's identity (its Message-ID, else :func:`pbp.app.intake.fingerprint`) and the
    digest of its text (:func:`pbp.app.intake.text_digest`), one per line.

    The same mail gives the same code, so its confirmation reply still confirms it when
    both are applied again after a restore (``pbp lost --replay``); nobody without the
    secret can compute it (not from the GM's personal token either, which travels in
    every Reply-To).

    >>> confirmation_code(bytes(32), "seed-000", "<a@example.test>", "text:00")
    'va0lly0fsjfwuf02'
    """
    text = "\n".join((game_id, identity, digest)).encode("utf-8", "surrogatepass")
    number = int.from_bytes(hmac.new(secret, text, hashlib.sha256).digest(), "big")
    code = []
    for _ in range(CONFIRM_CODE_LENGTH):
        number, index = divmod(number, len(CONFIRM_CODE_ALPHABET))
        code.append(CONFIRM_CODE_ALPHABET[index])
    return "".join(code)


class GmMail(Configured):
    """The GM's commands by mail on the games configured: read from his own text
    (``own``), pulled by his desk (``desk``), a loop kept (``moves``), answered by mail."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        mail: Mailer,
        digest: Digest,
        renderer: Renderer,
        *,
        desk: GmDesk,
        addresses: Addresses,
        kept: KeptDesk,
        deadlines: Deadlines,
        own: OwnText,
        moves: Moves,
    ) -> None:
        self.settings = settings
        self.store = store
        self.mail = mail
        self.digest = digest
        self.renderer = renderer
        self.gm = desk
        self.addresses = addresses
        self.kept = kept
        self.deadlines = deadlines
        self.own = own
        self.moves = moves

    def handle_mail(
        self,
        message: Message,
        game_id: str,
    ) -> Decision:
        """The GM's mail to his personal GM address: every command in it, then one
        answer (``gm_result``) with each line's result (what STATUS lines asked for in
        a GM-only mail of its own, :meth:`_statuses`; a mail of STATUS lines only gets
        that mail alone); one transaction, so a crash
        neither loses nor repeats a lever. The levers take effect at ``raw.arrived``,
        the mail's arrival (rule D8: a PAUSE sent before a close stops it even when
        read after it); ``now`` is the real time. Held mail freed by a RESUME is
        applied afterwards.

        A mail with no command understood that looks like an auto-responder's loop
        (:meth:`pbp.app.playermoves.Moves.loop`) is kept for the digest, unanswered
        (outcome ``loop``).

        A mail with a lever (any command but those of :data:`UNCONFIRMED`: HELP,
        STATUS) is applied only after the GM confirms it (:meth:`ask_confirmation`):
        the personal GM address travels in every Reply-To and may leak, and a From is
        easily forged. It is applied at once when ``mail.trusted_authserv_id`` is set
        and that server's
        ``Authentication-Results`` show ``dmarc=pass`` for the From
        (:meth:`pbp.app.message.Message.authentication`)."""
        letter = message.letter
        game = self.game_config(game_id)
        at = message.arrived
        text = self.own.own_text(letter, game)
        commands = parse_gm(text)
        if all(c.lever is None for c in commands):
            loop = self.moves.loop(message, text, game)
            if loop is not None:  # no answer: the GM's auto-responder
                return Decision(Handled.LOOP, game_id, GM_SEAT, loop)
        if any(c.lever is not None and not isinstance(c.lever, UNCONFIRMED) for c in commands):
            trusted = self.config.mail.trusted_server
            checked = message.authentication(trusted) if trusted else None
            if checked is None or not checked.dmarc_pass:
                return self.ask_confirmation(message, game, commands)
        levers = any(c.lever is not None and not isinstance(c.lever, UNCONFIRMED) for c in commands)
        results = self.run_all(game, commands, at, now=message.now)
        self.answer(letter, game, results, message.now, limited=not levers)
        done = sum(1 for r in results if "done" in r)
        handled = Handled.GM_APPLIED if done else Handled.GM_REFUSED
        return Decision(handled, game_id, GM_SEAT, replay_held=True)

    def run_all(
        self, game: Game, commands: Sequence[GmLine], at: datetime, *, now: datetime | None = None
    ) -> list[GmResult]:
        """Pull the levers of ``commands`` in order at ``at``; each line's result for
        the ``gm_result`` template. A STATUS reads the games as they stand after the
        lines before it, its time left counted from ``now`` (the real time; default
        ``at``): ``{"lever": "status", "all": bool, "games": [GameStatus…]}``
        (:meth:`status`).

        One mail is answered once for each of STATUS, KEPT and HELP, however often it
        repeats them (STATUS and KEPT read every kept mail's headers): only the STATUS
        line :meth:`_statuses` mails is computed (the last with ALL, else the last), the
        others give ``{"lever": "status", "all": bool, "games": None}``; only the first
        KEPT and the first HELP are answered, the later ones give ``{"lever":
        "kept"|"help", "repeat": True}`` ("answered above")."""
        renderer = self.renderer
        results: list[GmResult] = []
        genders = game.genders()  # the refusals' words follow the players' (rule P2)
        asked = [(i, c.lever) for i, c in enumerate(commands) if isinstance(c.lever, Status)]
        shown = next((i for i, s in reversed(asked) if s.all), asked[-1][0] if asked else None)
        answered: set[type] = set()
        for index, command in enumerate(commands):
            result: GmResult = {"line": command.line, "lever": command.name}
            if command.lever is None:
                error = command.error or InvalidMove("gm_not_a_command")
                # The commands it lists are the game kind's (no END NIGHT without nights).
                params = {**error.params, "genders": genders, "kind": game.kind}
                result["error"] = renderer.error(
                    error.code, params, locale=game.locale, kind=game.kind
                )
            elif isinstance(command.lever, Status):
                if index == shown:
                    result["done"] = self.status(game, command.lever, now or at)
                else:
                    result["done"] = {"lever": "status", "all": command.lever.all, "games": None}
            elif isinstance(command.lever, Kept | Help) and type(command.lever) in answered:
                assert command.name is not None  # a lever's line has its name
                result["done"] = {"lever": command.name, "repeat": True}
            else:
                if isinstance(command.lever, Kept | Help):
                    answered.add(type(command.lever))
                try:
                    done = self.gm.run(game.id, command.lever, command.note, now=at, via="mail")
                    result["done"] = done
                except Refusal as refused:
                    params = {**refused.params, "genders": genders}
                    text = renderer.error(refused.code, params, locale=game.locale, kind=game.kind)
                    result["error"] = text
            results.append(result)
        if not commands:
            results.append(
                {
                    "line": "",
                    "lever": None,
                    "error": renderer.error(
                        "gm_no_command", {"kind": game.kind}, locale=game.locale, kind=game.kind
                    ),
                }
            )
        return results

    def status(self, game: Game, lever: Status, now: datetime) -> LeverDone:
        """What a STATUS line gives (:mod:`pbp.app.gmview`): ``{"lever": "status", "all":
        bool, "games": [GameStatus…]}``, the game itself or, with ALL, every configured
        game whose GM has the same registered address (``game`` first, then in
        ``games.yaml`` order). A seat a substitute plays is named as the posts name it
        («Света (вместо Киры)»)."""
        ids = [game.id]
        if lever.all:
            mine = self.addresses.registered(game.id)
            ids += [
                g.id
                for g in self.config.games
                if g.id != game.id and self.addresses.registered(g.id) == mine
            ]
        renderer = self.renderer

        def labels(of: Game, substitutes: Mapping[str, str]) -> Mapping[str, ShownName]:
            # Named as the posts name them, in this mail's language (game's).
            return renderer.shown_names(game.locale, substitutes, genders=of.genders())

        games = game_status(self.config, self.store, ids, now, labels)
        return {"lever": "status", "all": lever.all, "games": games}

    def _statuses(
        self, letter: Letter, game: Game, results: list[GmResult], now: datetime
    ) -> list[GmResult]:
        """Mail the GM, at his registered address, the games his STATUS lines asked
        for, in one GM-only mail (``gm_status``: its own Subject, naming the games it
        shows and saying it is for the GM; never a post to paste), the widest asked (ALL) as the
        latest line read them; ``results`` without their views, each marked ``sent``
        (the ``gm_result`` mail only mentions it)."""
        asked = [r["done"] for r in results if r.get("done", {}).get("lever") == "status"]
        widest = next((d for d in asked if d["games"] is not None), None)
        if widest is None:
            return results
        games = widest["games"] or []  # not None: the widest asked
        self.mail.reply(
            letter,
            self.addresses.registered(game.id),
            "gm_status",
            {"games": games, "all": widest["all"]},
            now,
            game=game,
            player=GM_SEAT,
            # Its own Subject: it names the game(s) and says the mail is for the GM only.
            stranger=True,
            about=[self.config.game(g.game) for g in games],
        )
        return [
            {**r, "done": {"lever": "status", "all": r["done"]["all"], "sent": True}}
            if r.get("done", {}).get("lever") == "status"
            else r
            for r in results
        ]

    def answer(
        self,
        letter: Letter,
        game: Game,
        results: list[GmResult],
        now: datetime,
        unread: Sequence[str] = (),
        *,
        limited: bool = True,
    ) -> None:
        """The ``gm_result`` mail, to the GM's registered address; ``limited=False`` (the
        results of levers pulled): never held back by the rate limit
        (:meth:`pbp.app.mailer.Mailer.reply`). Before it, each
        story an EXPORT asked for in a mail of its own (:meth:`pbp.app.mailer.Mailer.gm_story`),
        which the result mail only mentions: the story is pasted whole into a public
        thread, the result mail holds the GM's address. What STATUS lines asked for
        comes in a mail of its own too (:meth:`_statuses`); a mail of STATUS lines only
        gets that mail alone. ``unread``: the lines of a confirming reply besides its
        word (:func:`unread_lines`), which the mail says were not read."""
        results = self._statuses(letter, game, results, now)
        if results and all(r.get("done", {}).get("lever") == "status" for r in results):
            return
        shown: list[GmResult] = []
        for result in results:
            done = result.get("done")
            if done is not None and done.get("lever") == "export":
                self.mail.gm_story(game, done["format"], done["text"], now)
                told = done.copy()
                del told["text"]  # mailed apart
                result = {**result, "done": told}
            shown.append(result)
        self.mail.reply(
            letter,
            self.addresses.registered(game.id),
            "gm_result",
            {
                "results": self.gm.named_results(game, shown, game.locale),
                "gm_address": self.addresses.gm_address(game.id),
                "unread": list(unread),
            },
            now,
            game=game,
            player=GM_SEAT,
            limited=limited,
        )

    def ask_confirmation(
        self,
        message: Message,
        game: Game,
        commands: Sequence[GmLine],
    ) -> Decision:
        """Store the levers of a GM mail under a single-use code and mail the GM,
        at his registered address only, the ``gm_confirm`` mail: the levers as
        understood (player names resolved to seats) and the answers to the other lines
        (HELP, refusals); its Reply-To (or Subject tag) carries the code. His reply
        applies them (:meth:`confirm`) within :data:`CONFIRM_HOURS` of now. Nothing in
        the game changes now. Outcome ``gm_pending``.

        The code is the mail's own (:func:`confirmation_code`): applied again after a
        restore (``pbp lost --replay``), it asks under the code it asked under before,
        and the GM's reply to that request confirms it. When that reply is replayed
        with it (its code in ``message.replies_to``) no second request is mailed.

        When :data:`PENDING_CAP` confirmations of the game wait already
        (:meth:`pbp.store.Store.pending_confirmations`), a mail with a new code asks
        nothing: no mail, no stored levers, none of its lines answered; it is one line
        of the GM's digest (reason ``gm_capped``, counted there, not listed). Outcome
        ``gm_capped``. Except ``NEW ADDRESS``, the remedy for the leak that fills the
        cap: a mail with it asks for it alone (its other lines are not asked) under one
        extra code per GM address and UTC day (HMAC of :data:`CAPPED_NEW_ADDRESS`, the
        GM's token and the date), so at most ``PENDING_CAP + 1`` wait; each such mail
        mails that code's confirmation again (counted in the levers' hourly budget,
        :meth:`pbp.app.mailer.Mailer.reply`). Confirmed, it gives the new GM address and
        ends the other confirmations, as any NEW ADDRESS does."""
        now = message.now
        pending: list[StoredLine] = []
        others: list[GmLine] = []
        for command in commands:
            if command.lever is None or isinstance(command.lever, UNCONFIRMED):
                others.append(command)
                continue
            try:
                resolved = self._resolved(game, command.lever, message.arrived)
            except Refusal as refused:
                error = InvalidMove(refused.code, **refused.params)
                others.append(dataclasses.replace(command, lever=None, error=error))
                continue
            pending.append(dataclasses.replace(command, lever=resolved).to_json())
        if not pending:  # every lever refused already: answered as usual
            results = self.run_all(game, others, now)
            self.answer(message.letter, game, results, now)
            return Decision(Handled.GM_REFUSED, game.id, GM_SEAT)
        code = confirmation_code(
            self.store.secret(CONFIRM_SECRET),
            game.id,
            message.identity,
            message.digest or "",
        )
        if (
            self.store.confirmation(code) is None
            and self.store.pending_confirmations(game.id, now) >= PENDING_CAP
        ):
            renew = next(
                (p for p in pending if isinstance(GmLine.from_json(p).lever, NewAddress)),
                None,
            )
            if renew is None:
                self.digest.add(
                    game, "gm_capped", None, message.letter, now, arrived=message.arrived
                )
                return Decision(
                    Handled.GM_CAPPED, game.id, GM_SEAT, note=counted(len(pending), "lever")
                )
            pending = [renew]
            token = self.store.player_token(game.id, GM_SEAT)
            code = confirmation_code(
                self.store.secret(CONFIRM_SECRET),
                game.id,
                f"{CAPPED_NEW_ADDRESS}:{token}",
                now.date().isoformat(),
            )
        self.store.add_confirmation(
            code,
            game.id,
            json.dumps(pending, ensure_ascii=False),
            now,
            now + timedelta(hours=CONFIRM_HOURS),
        )
        stored = self.store.confirmation(code)  # asked before: as it was asked
        assert stored is not None
        expires = stored.expires_at
        results = self.run_all(game, others, now) if others else []
        results = self._statuses(message.letter, game, results, now)
        if code in message.replies_to:  # its reply is replayed too: asked before
            return Decision(
                Handled.GM_PENDING, game.id, GM_SEAT, note=counted(len(pending), "lever")
            )
        self.mail.reply(
            message.letter,
            self.addresses.registered(game.id),
            "gm_confirm",
            {
                "pending": pending,
                "results": results,
                "expires_at": expires,
                # «Пояснение после « -- » попадёт в пост для форума.»
                "note_published": any(
                    p["note"] and self.gm.publishes_note(game.id, line.lever, now)
                    for p in pending
                    if (line := GmLine.from_json(p)).lever is not None
                ),
                "gm_address": self.addresses.gm_address(game.id),
                # A seat a substitute plays, as the GM knows it: «ИСКЛЮЧИТЬ Вову
                # (вместо Розы)» (pbp.text.render.Renderer.shown_names).
                "substitutes": self.store.substitutes(game.id),
            },
            now,
            game=game,
            token=code,
            # Its own Subject: a forger must not title the mail that asks for a reply.
            stranger=True,
            # To the GM's registered address only; a STATUS flood must not defer it
            # into the hourly summary, whose Reply-To is no confirmation address.
            limited=False,
        )
        return Decision(Handled.GM_PENDING, game.id, GM_SEAT, note=counted(len(pending), "lever"))

    def _resolved(self, game: Game, lever: Lever, at: datetime) -> Lever:
        """``lever`` with the seat its player name names, a deadline command with the
        period it passes at ``at`` (so that what the GM confirms is what is applied).
        :raises Refusal: no such seat; game not running; no such deadline now; a
            substitute's name a player could not have (``gm_bad_name``)."""
        if isinstance(lever, PassDeadline):
            return expected(self.deadlines, game.id, lever, at)
        if isinstance(lever, Retry):
            self.kept.retry_checked(lever.ids, via="mail", game_id=game.id)
        if isinstance(lever, Dismiss):
            self.kept.dismiss_checked(lever.ids, via="mail", game_id=game.id)
        if isinstance(lever, Substitute):  # a name refused now, not after a confirmation
            self.gm.newcomer_name(game, lever.name)
        if isinstance(lever, Act | Substitute | Readdress | Remove):
            kind = self.kind_of(game)
            _row, state = running(self.store, game.id, kind)
            seat = seat_of(self.store, kind, state, lever.player, game.id)
            return dataclasses.replace(lever, player=seat)
        return lever
