"""A player's moves: applied by his game's rules, answered, and told to the others.

The commands of his own text (:meth:`Moves.own_reply`: never a quote of ours, never
a line that may be quoted, :func:`looks_quoted`) are applied one by one at the
mail's arrival (rule D8), each committed by the game table
(:class:`pbp.app.table.GameTable`); the reply lists each line's result, the lines that
look quoted and those ignored (:func:`ignored_lines`). The GM's ACT goes through the
same :meth:`Moves.apply_command`.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from email.message import EmailMessage
from email.message import Message as MailMessage
from typing import TYPE_CHECKING, Any

from pbp.app.answered import answered_by_header, answered_mail
from pbp.app.outcome import Handled, Outcome
from pbp.app.ratelimit import is_loop
from pbp.app.service_part import ServicePart
from pbp.app.table import Applied, standing_deadline
from pbp.config.model import Game
from pbp.games.core.events import Event, MoveError
from pbp.games.core.kind import AnyKind, ParsedCommand
from pbp.mail.read.echo import strip_echo, strip_help_echo
from pbp.mail.read.mime import Letter
from pbp.mail.read.quotemarks import comment_labels
from pbp.mail.read.reply import Reply
from pbp.store import GM_SEAT, Schedule

if TYPE_CHECKING:
    from pbp.app.intake.message import Message
    from pbp.app.service import Service

#: Most ignored lines quoted back in a reply, and the characters shown of each.
IGNORED_SHOWN = 10
IGNORED_WIDTH = 80
#: Most doubtful lines of one mail tried as commands (:func:`looks_quoted`).
DOUBTFUL_TRIED = 50

#: What clients put before a Subject they answer or forward (RFC 5322 §3.6.5 and the
#: localised forms: Outlook's ``AW:``/``SV:``, Russian ``Ответ:``/``Отв:``/``Пересл:``),
#: with a count (``Re[2]:``), and our ``[game]`` / ``[pbp-TOKEN]`` tags.
_SUBJECT_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|aw|sv|wg|ответ|отв|пересл)\s*(?:\[\d+\]|\(\d+\))?\s*:|\[[^\]]{1,60}\])\s*",
    re.IGNORECASE,
)

_SUBJECT_TAG = re.compile(r"\[pbp-[A-Za-z0-9]+\]", re.IGNORECASE)


class Moves(ServicePart):
    """A player's moves on one service's games."""

    def __init__(self, service: Service) -> None:
        super().__init__(service)
        #: game id -> (its config, its game_started seq, its HELP text) (:meth:`_help_text`)
        self._helps: dict[str, tuple[Game, int | None, str]] = {}

    def apply_mail(
        self,
        message: Message,
        game: Game,
        kind: AnyKind,
        state: Any,
        text: str,
        commands: Sequence[ParsedCommand[Any]],
        quoted: Sequence[str],
        player: str,
        schedule: Schedule | None = None,
    ) -> Outcome:
        """Apply a player's parsed commands, answer him and tell the others (inside the
        message's transaction). ``quoted``: command lines that may be quoted
        (:func:`looks_quoted`), never applied, listed in the answer; ``schedule``: the
        game's schedule read with ``state`` in this transaction (None: read when needed)."""
        letter = message.letter
        game_id = game.id
        results: list[dict[str, Any]] = []
        steps: list[Applied] = []
        for command in commands:
            result, applied = self.apply_command(
                game, kind, state, player, command, message.arrived, message.source, schedule
            )
            results.append(result)
            if applied is not None:
                steps.append(applied)
                state = applied.step.state
                schedule = applied.schedule
        if not commands and (letter.forwarded or not quoted):
            results.append(self._nothing_done(letter, game, kind, state))
        if all(command.move is None for command in commands):
            loop = self.loop(message, text, game)
            if loop is not None:  # no answer: an auto-responder's loop
                return message.record(Handled.LOOP, game_id, player, loop)
        ignored = ignored_lines(text, commands)
        self.mail.reply(
            letter,
            message.from_address,
            "reply",
            {
                **reply_results(results, kind.unfixable),
                "player": player,
                "looks_quoted": [_cut(line) for line in quoted[:IGNORED_SHOWN]],
                "ignored": ignored[:IGNORED_SHOWN],
                "ignored_more": max(0, len(ignored) - IGNORED_SHOWN),
                "forwarded": letter.forwarded and bool(commands),
            },
            message.now,
            game=game,
            player=player,
        )
        # The sender's answer first, then what his moves cause for others.
        for applied in steps:
            self.table.tell(game, kind, applied, message.now)
        refused = sum(1 for result in results if "error" in result)
        if steps:
            outcome = Handled.APPLIED if not refused else Handled.PARTLY_APPLIED
        else:
            outcome = Handled.REFUSED if refused else Handled.STATUS
        return message.record(outcome, game_id, player)

    def _nothing_done(
        self, letter: Letter, game: Game, kind: AnyKind, state: Any
    ) -> dict[str, Any]:
        """The reply's line for a mail with no command: forwarded (a forwarded mail's
        moves are not his, issue 5 case 13), a move in the Subject only (moves are read
        from the body), else no command at all. Lines that look quoted are answered as
        such instead."""
        code = "forwarded" if letter.forwarded else "no_command"
        params: dict[str, Any] = {}
        subject = subject_moves(letter.subject)
        if code == "no_command" and subject and kind.parse(subject, state):
            code, params = "command_in_subject", {"subject": subject[:200]}
        return {
            "line": "",
            "error": self.renderer.error(code, params, locale=game.locale, kind=game.kind),
        }

    def apply_command(
        self,
        game: Game,
        kind: AnyKind,
        state: Any,
        player: str,
        command: ParsedCommand[Any],
        at: datetime,
        source: str,
        schedule: Schedule | None = None,
    ) -> tuple[dict[str, Any], Applied | None]:
        """Apply and commit one command line at ``at`` (its arrival, D8): (its result
        for the reply, what it did). ``schedule``: the game's schedule as read in this
        transaction (None: read when needed)."""
        result: dict[str, Any] = {"line": command.text}
        if command.move is not None:
            result["move"] = move_dict(command.move)
        if command.error is not None:
            result["error"] = self.error_text(game, command.error, reader=player)
            result["code"] = command.error.code
            return result, None
        if command.private:
            result["private"] = type(command.move).__name__.lower()
            # The close it names: the deadline as it stands (paused or not).
            if schedule is None:
                deadline = self.table.deadline(game.id)
            else:
                deadline = standing_deadline(self.store, game.id, schedule.deadline_at)
            viewed = self.table.with_history(game.id, kind, state)
            result["status"] = kind.status(game, viewed, player, deadline)
            return result, None
        state = self.table.with_history(game.id, kind, state, command.move)
        try:
            step = kind.apply(state, player, command.move, at)
        except MoveError as error:
            result["error"] = self.error_text(game, error, reader=player)
            result["code"] = error.code
            return result, None
        # After the move: its deadline as stored.
        schedule = self.table.commit(
            game, kind, step, at=at, day=kind.day(state), source=source, schedule=schedule
        )
        deadline = schedule.deadline_at
        seen = visible(step.events, player)
        result["events"] = kind.reply_events(game, step.state, seen, player, deadline)
        # The snippet he pastes, in the forum's markup: the first of ``post_format``.
        result["snippet"] = self.renderer.public_post(
            "move",
            step.events,
            locale=game.locale,
            fmt=game.post_formats[0],
            **self.mail.post_context(game),
        )
        return result, Applied(step, kind.posts(state, step), schedule)

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
        header block at the top (:meth:`pbp.mail.read.reply.Reply.own`). The lines set aside
        (quotes) that are lines of the mail answered or of the help are left out. His
        comments that Outlook labelled with his name inside a quote (``[Оля] ГОЛОС
        Петя``) are his text (:meth:`pbp.mail.read.reply.Reply.with_labels`;
        :attr:`Echoes.labels`). A Discourse quote titled with a seat's name (``Вася:``
        above the pasted post) is doubtful (:meth:`pbp.mail.read.reply.Reply.with_titles`).

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

    def _help_text(self, game: Game) -> str:
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
        view = self.kind_of(game).post_view("help", started, None)
        _subject, help_text = self.renderer.private_mail(
            f"{game.kind}/help",
            locale=game.locale,
            **{**self.mail.context(game, None), "events": started, "view": view},
        )
        self._helps[game.id] = (game, seq, help_text)
        return help_text

    def loop(self, message: Message, text: str, game: Game) -> str | None:
        """A player's or GM's mail in which pbp understood no command (``text``, his
        own text): is it an auto-responder's loop (:func:`pbp.app.ratelimit.is_loop`: an
        answer to ours within seconds, or the same text a third time in the hour)?
        Then it is kept and put in the GM digest, unanswered; returns ``quick_reply``
        or ``same_body``, else None."""
        letter, at = message.letter, message.arrived
        loop = is_loop(self.store, letter, message.from_address, text, at)
        if loop is not None:
            kept_id = self.store.keep(message.source, at, "loop", message.raw.raw, message.now)
            self.digest.add(game, "loop", kept_id, letter, message.now, arrived=at, detail=loop)
        return loop

    def error_text(self, game: Game, error: MoveError, *, reader: str | None = None) -> str:
        """The text of a refusal in ``game``'s language, its players' genders given
        (rule P2: "Маша названа в заказе дважды") and a substitute's seat shown by his
        name («Дэйв (вместо Кэрол)», :meth:`pbp.text.render.Renderer.shown_names`); the
        ``reader``'s own seat (the player the refusal goes to) by his name alone, as
        in his other mails; an unknown name is never suggested to be the reader's own."""
        params = {
            **self.kind_of(game).mail_context(game),  # the words of its texts (Cluedo's, P2)
            **error.params,
            "genders": game.genders(),
            "substitutes": self.store.substitutes(game.id),
            "reader": reader,
        }
        if (
            error.code == "unknown_name"
            and reader is not None
            and params.get("suggestion") == reader
        ):
            # No game lets a player name himself where a player is named (a vote, a
            # target, an addressee: M3, M9, D2): "did you mean yourself?" helps nobody.
            params["suggestion"] = None
        return self.renderer.error(error.code, params, locale=game.locale, kind=game.kind)


#: pbp's shared refusals no rewording of the line mends (where the game stands forbids
#: the move); a kind's own are :attr:`pbp.games.core.kind.GameKind.unfixable`. Any other
#: refusal (a syntax, an unknown or ambiguous name, a target the rules forbid) is the
#: line's to fix.
UNFIXABLE = frozenset({"game_over"})


class Echoes:
    """What of ours one player's ``letter`` to ``game`` may echo (:meth:`Moves.own_reply`
    cuts it off): :attr:`answered`, the text of our mail it answers, and :attr:`help`,
    the game's HELP text; and :attr:`labels`, how Outlook may label the sender's
    comments. Each is read (a store query) when first asked for and kept:
    the intake's rules of one message that each need the player's own text (NEW
    ADDRESS, then his moves) ask the store once. Neither changes meanwhile: a mail in
    the outbox, the text of the game's start."""

    def __init__(self, moves: Moves, letter: Letter, game: Game) -> None:
        self.moves = moves
        self.letter = letter
        self.game = game

    @functools.cached_property
    def answered(self) -> str | None:
        return self.moves.answered_text(self.letter)

    @functools.cached_property
    def help(self) -> str:
        return self.moves._help_text(self.game)

    @functools.cached_property
    def labels(self) -> frozenset[str]:
        """The labels Outlook may put before the sender's comments inside a quote
        (:func:`pbp.mail.read.quotemarks.comment_labels`): of his From's display name and
        of his seat's name in the game (``Оля``)."""
        letter = self.letter
        names = [letter.from_name]
        if letter.from_address is not None:
            seats = self.moves.store.tokens_of(letter.from_address)
            names += [s.player for s in seats if s.game_id == self.game.id and s.player != GM_SEAT]
        return frozenset().union(*(comment_labels(name) for name in names))


def reply_results(
    results: Sequence[dict[str, Any]], unfixable: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """What a ``reply`` template gets of a mail's results (one dict per command line,
    an ``error`` key when it was refused, its ``code`` beside it): ``results`` as they
    are, ``done`` (those without an error) and ``not_done`` (those with one), each in
    the mail's order, and ``fix``: some refused line is one the player wrote and could
    mend (a mail with no command, or only a forwarded one, has no line to fix: its
    refusal says what to send instead; a refusal in :data:`UNFIXABLE` or in
    ``unfixable``, the game's kind's :attr:`~pbp.games.core.kind.GameKind.unfixable`, is
    no line's fault: ``УБИТЬ Олю`` from a fan of the maniac).

    >>> maniac = frozenset({"not_the_maniac"})  # Maniac's GameKind.unfixable, in part
    >>> kill = {"line": "УБИТЬ Олю", "error": "…", "code": "not_the_maniac"}
    >>> reply_results([kill], maniac)["fix"]
    False
    >>> reply_results([{"line": "ГОЛОС Лёля", "error": "…", "code": "unknown_name"}], maniac)["fix"]
    True
    """
    done = [result for result in results if "error" not in result]
    not_done = [result for result in results if "error" in result]
    fixed = UNFIXABLE | unfixable
    fix = any(result.get("line") and result.get("code") not in fixed for result in not_done)
    return {"results": list(results), "done": done, "not_done": not_done, "fix": fix}


def move_dict(move: Any) -> dict[str, Any]:
    """A parsed move for the ``understood`` template macro: ``{"type": class name
    lower-cased, **fields}``, e.g. ``{"type": "vote", "target": "Петя", "prison": False}``."""
    is_instance = dataclasses.is_dataclass(move) and not isinstance(move, type)
    fields = dataclasses.asdict(move) if is_instance else {}
    return {"type": type(move).__name__.lower(), **fields}


def subject_moves(subject: str) -> str:
    """``subject`` without reply/forward prefixes and bracketed tags, the text a player
    may have meant as a move (``"Re: [exler-1] STATUS [pbp-k3x9]"`` → ``"STATUS"``)."""
    subject = _SUBJECT_TAG.sub(" ", subject)
    while True:
        stripped = _SUBJECT_PREFIX.sub("", subject, count=1)
        if stripped == subject:
            return subject.strip()
        subject = stripped


def _plain(sent: MailMessage) -> str:
    """The text of the plain part of our mail ``sent`` (``""`` without one)."""
    part = sent.get_body(("plain",)) if isinstance(sent, EmailMessage) else None
    return str(part.get_content()) if part is not None else ""


def _cut(line: str) -> str:
    """``line`` cut to :data:`IGNORED_WIDTH` characters (``…`` at the cut)."""
    return line if len(line) <= IGNORED_WIDTH else line[: IGNORED_WIDTH - 1] + "…"


def looks_quoted(kind: AnyKind, state: Any, doubtful: Sequence[str]) -> list[str]:
    """The lines of ``doubtful`` (:attr:`pbp.mail.read.mime.Letter.doubtful`, lines that may
    be quoted) that the game reads as a command, right or wrong: never executed (a
    line that may be quoted is never executed), listed in the answer as "looks quoted
    — not done". At most the first :data:`DOUBTFUL_TRIED` lines are tried.

    Example: ``looks_quoted(maniac, state, ["ГОЛОС Оля", "и мы его учтём"])`` is
    ``["ГОЛОС Оля"]``."""
    return [line for line in doubtful[:DOUBTFUL_TRIED] if kind.parse(line, state)]


def quoted_commands(
    kind: AnyKind,
    state: Any,
    reply: Reply,
    commands: Sequence[ParsedCommand[Any]],
    *,
    forwarded: bool = False,
) -> list[str]:
    """The command lines of a player's mail listed as "looks quoted — not done"
    (issue 33, "never silent"): its doubtful lines that hold a command
    (:func:`looks_quoted`); and when neither those nor his own text (``commands``) hold
    one, the lines set aside that do (:attr:`pbp.mail.read.reply.Reply.aside`: a move
    written into a quote or below a signature is answered, never "no command found").
    A forwarded mail's lines (``forwarded``) are not tried: its answer says they are
    another's. ``reply``: his own reply (:meth:`Moves.own_reply`, our mail's lines
    left out)."""
    quoted = looks_quoted(kind, state, reply.doubtful)
    if quoted or commands or forwarded:
        return quoted
    return looks_quoted(kind, state, reply.aside)


def ignored_lines(text: str, commands: Sequence[ParsedCommand[Any]]) -> list[str]:
    """The non-blank lines of ``text`` that are no part of any of ``commands`` (their
    ``text``), stripped, each cut to :data:`IGNORED_WIDTH` characters — what a reply
    lists as ignored (Mailman's "Ignored"), so that a command pbp did not recognise is
    seen as such."""
    used = {line.strip() for command in commands for line in command.text.split("\n")}
    found = []
    for line in text.split("\n"):
        line = line.strip()
        if line and line not in used:
            found.append(_cut(line))
    return found


def visible(events: Iterable[Event], player: str) -> list[Event]:
    """The events of ``events`` that ``player`` may see (:meth:`Event.visible_to`)."""
    return [e for e in events if e.visible_to(player)]
