"""A player's own text: what he wrote himself, our mail he answers and our help he
pasted back cut off (:meth:`OwnText.own_reply`), so that our examples and forum
snippets are never executed as his moves.
"""

from __future__ import annotations

import functools
from email.message import EmailMessage
from email.message import Message as MailMessage

from pbp.app.answered import answered_by_header, answered_mail
from pbp.app.mailer import Mailer
from pbp.app.settings import kind_of
from pbp.config.model import Game
from pbp.mail.read.echo import strip_echo, strip_help_echo
from pbp.mail.read.mime import Letter
from pbp.mail.read.quotemarks import comment_labels
from pbp.mail.read.reply import Reply
from pbp.store import GM_SEAT, Store
from pbp.text.render import Renderer


class OwnText:
    """A player's or GM's own text in his letters to the games of one store."""

    def __init__(self, store: Store, mail: Mailer, renderer: Renderer) -> None:
        self.store = store
        self.mail = mail
        self.renderer = renderer
        #: game id -> (its config, its game_started seq, its HELP text) (:meth:`help_text`)
        self._helps: dict[str, tuple[Game, int | None, str]] = {}

    def own_text(self, letter: Letter, game: Game, echoes: Echoes | None = None) -> str:
        """The player's own text (:meth:`own_reply`)."""
        return self.own_reply(letter, game, echoes).text

    def echoes(self, letter: Letter, game: Game) -> Echoes:
        """What of ours ``letter`` may echo (:class:`Echoes`), each read from the store
        when first needed and then kept: the rules of one message hand it on."""
        return Echoes(self, letter, game)

    def own_reply(self, letter: Letter, game: Game, echoes: Echoes | None = None) -> Reply:
        """The player's own text and the lines that may be quoted: a quote of the mail
        of ours he answers, left there by a client that marks no quotes, is cut off, so
        our examples and forum snippets are never executed as his moves
        (:func:`pbp.mail.read.echo.strip_echo`). The mail answered is found by In-Reply-To,
        else by the last of the References that is ours, and only when it went to him
        (:func:`pbp.app.answered.answered_mail`); our command help pasted back (it is in
        every welcome and HELP mail) is cut off even without threading
        (:func:`pbp.mail.read.echo.strip_help_echo`). Both look at the text with its
        doubtful lines in place (a pasted mail of ours is known by its run of lines),
        which are then left out again, with the lines of the mail answered under a
        header block at the top (:meth:`pbp.mail.read.body.Reply.own`). The lines set aside
        (quotes) that are lines of the mail answered or of the help are left out. His
        comments that Outlook labelled with his name inside a quote (``[Оля] ГОЛОС
        Петя``) are his text (:meth:`pbp.mail.read.body.Reply.with_labels`;
        :attr:`Echoes.labels`). A Discourse quote titled with a seat's name (``Вася:``
        above the pasted post) is doubtful (:meth:`pbp.mail.read.body.Reply.with_titles`).

        ``echoes``: :meth:`echoes` of this ``letter`` and ``game`` already made for the
        message (the store is not asked again); None: made here."""
        if echoes is None or echoes.letter is not letter or echoes.game is not game:
            echoes = self.echoes(letter, game)
        seats = [player.name for player in game.players]
        reply = letter.reply.with_labels(echoes.labels).with_titles(seats)
        text = reply.whole
        answered = echoes.answered
        if answered is not None:
            text = strip_echo(text, answered)
        if text.strip():
            text = strip_help_echo(text, echoes.help)
        return reply.own(text, answered, echoes.help if reply.aside else "")

    def answered_text(self, letter: Letter) -> str | None:
        """The text of our mail that ``letter`` answers (:func:`answered_mail`; ``""``
        for one without a plain part), else of those the header block at its top
        names (:func:`answered_by_header`, joined); None when it answers none of ours."""
        sender = letter.from_address
        ours = answered_mail(self.store, letter, sender)
        named = [ours] if ours is not None else []
        if not named and sender is not None and letter.reply.under_header >= 0:
            named = answered_by_header(self.store, letter, sender, self._our_addresses(sender))
        if not named:
            return None
        return "\n".join(_plain(answered.mail) for answered in named)

    def _our_addresses(self, sender: str) -> set[str]:
        """pbp's addresses as ``sender`` sees them, lower-cased: the game's address
        (every mail's From) and his personal ones (their Reply-To)."""
        mailer = self.mail
        seats = self.store.tokens_of(sender)
        return {mailer.address.lower(), *(mailer.personal(seat.token).lower() for seat in seats)}

    def help_text(self, game: Game) -> str:
        """The text of ``game``'s HELP mail (what a pasted-back help is cut by), rendered
        once per game configuration and start (it depends on nothing else)."""
        # One query, not the log; the start's data (the deal) is read only when new.
        seq = self.store.last_seq(game.id, ["game_started"])
        kept = self._helps.get(game.id)
        if kept is not None and kept[0] is game and kept[1] == seq:
            return kept[2]
        first = self.store.last_event(game.id, ["game_started"])
        seq = first.seq if first is not None else None
        started = [first.event] if first is not None else []
        # What the help shows of the game (its players as examples, its limits), by the
        # kind, as in the welcome and the reply to HELP.
        view = kind_of(game).post_view("help", started, None)
        _subject, help_text = self.renderer.private_mail(
            f"{game.kind}/help",
            locale=game.locale,
            **{**self.mail.context(game, None), "events": started, "view": view},
        )
        self._helps[game.id] = (game, seq, help_text)
        return help_text


class Echoes:
    """What of ours one player's ``letter`` to ``game`` may echo (:meth:`OwnText.own_reply`
    cuts it off): :attr:`answered`, the text of our mail it answers, and :attr:`help`,
    the game's HELP text; and :attr:`labels`, how Outlook may label the sender's
    comments. Each is read (a store query) when first asked for and kept:
    the intake's rules of one message that each need the player's own text (NEW
    ADDRESS, then his moves) ask the store once. Neither changes meanwhile: a mail in
    the outbox, the text of the game's start."""

    def __init__(self, own: OwnText, letter: Letter, game: Game) -> None:
        self.own = own
        self.letter = letter
        self.game = game

    @functools.cached_property
    def answered(self) -> str | None:
        return self.own.answered_text(self.letter)

    @functools.cached_property
    def help(self) -> str:
        return self.own.help_text(self.game)

    @functools.cached_property
    def labels(self) -> frozenset[str]:
        """The labels Outlook may put before the sender's comments inside a quote
        (:func:`pbp.mail.read.quotemarks.comment_labels`): of his From's display name and
        of his seat's name in the game (``Оля``)."""
        letter = self.letter
        names = [letter.from_name]
        if letter.from_address is not None:
            seats = self.own.store.tokens_of(letter.from_address)
            names += [s.player for s in seats if s.game_id == self.game.id and s.player != GM_SEAT]
        return frozenset().union(*(comment_labels(name) for name in names))


def _plain(sent: MailMessage) -> str:
    """The text of the plain part of our mail ``sent`` (``""`` without one)."""
    part = sent.get_body(("plain",)) if isinstance(sent, EmailMessage) else None
    return str(part.get_content()) if part is not None else ""
