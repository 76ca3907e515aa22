"""A player's moves: applied by his game's rules, answered, and told to the others.

The commands of his own text (:meth:`pbp.app.owntext.OwnText.own_reply`: never a
quote of ours, never a line that may be quoted, :func:`looks_quoted`) are applied one by one at the
mail's arrival (rule D8), each committed by the game table
(:class:`pbp.app.table.GameTable`); the reply lists each line's result, the lines that
look quoted and those ignored (:func:`ignored_lines`). The GM's ACT goes through the
same :meth:`Moves.apply_command`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pbp.app.digest import Digest
from pbp.app.mailer import Mailer
from pbp.app.outcome import Decision, Handled
from pbp.app.owntext import OwnText
from pbp.app.ratelimit import is_loop
from pbp.app.settings import Configured, Settings
from pbp.app.shapes import MoveResult, ReplyContext, ReplyResults
from pbp.app.table import Applied, GameTable, standing_deadline, visible
from pbp.config.model import Game
from pbp.games.core.events import MoveError
from pbp.games.core.kind import AnyKind, ParsedCommand
from pbp.mail.read.mime import Letter
from pbp.mail.read.reply import Reply
from pbp.store import Schedule, Store
from pbp.text.render import Renderer

if TYPE_CHECKING:
    from pbp.app.message import Message

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


class Moves(Configured):
    """A player's moves on the games configured: applied by the game table, answered by
    mail, loops kept for the digest; his own text read by ``own``."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        table: GameTable,
        mail: Mailer,
        digest: Digest,
        renderer: Renderer,
        own: OwnText,
    ) -> None:
        self.settings = settings
        self.store = store
        self.table = table
        self.mail = mail
        self.digest = digest
        self.renderer = renderer
        self.own = own

    def apply_mail(
        self,
        message: Message,
        game: Game,
        kind: AnyKind,
        state: object,
        text: str,
        commands: Sequence[ParsedCommand[object]],
        quoted: Sequence[str],
        player: str,
        schedule: Schedule | None = None,
    ) -> Decision:
        """Apply a player's parsed commands, answer him and tell the others (inside the
        message's transaction). ``quoted``: command lines that may be quoted
        (:func:`looks_quoted`), never applied, listed in the answer; ``schedule``: the
        game's schedule read with ``state`` in this transaction (None: read when needed)."""
        letter = message.letter
        game_id = game.id
        results: list[MoveResult] = []
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
                return Decision(Handled.LOOP, game_id, player, loop)
        ignored = ignored_lines(text, commands)
        context = reply_context(results, player, kind.unfixable)
        context["looks_quoted"] = [_cut(line) for line in quoted[:IGNORED_SHOWN]]
        context["ignored"] = ignored[:IGNORED_SHOWN]
        context["ignored_more"] = max(0, len(ignored) - IGNORED_SHOWN)
        context["forwarded"] = letter.forwarded and bool(commands)
        self.mail.reply(
            letter,
            message.from_address,
            "reply",
            context,
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
        return Decision(outcome, game_id, player)

    def _nothing_done(self, letter: Letter, game: Game, kind: AnyKind, state: object) -> MoveResult:
        """The reply's line for a mail with no command: forwarded (a forwarded mail's
        moves are not his, issue 5 case 13), a move in the Subject only (moves are read
        from the body), else no command at all. Lines that look quoted are answered as
        such instead."""
        code = "forwarded" if letter.forwarded else "no_command"
        params: dict[str, object] = {}
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
        state: object,
        player: str,
        command: ParsedCommand[object],
        at: datetime,
        source: str,
        schedule: Schedule | None = None,
    ) -> tuple[MoveResult, Applied | None]:
        """Apply and commit one command line at ``at`` (its arrival, D8): (its result
        for the reply, what it did). ``schedule``: the game's schedule as read in this
        transaction (None: read when needed)."""
        result: MoveResult = {"line": command.text}
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


def reply_results(
    results: Sequence[MoveResult], unfixable: frozenset[str] = frozenset()
) -> ReplyResults:
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
    return ReplyResults(results=list(results), done=done, not_done=not_done, fix=fix)


def reply_context(
    results: Sequence[MoveResult], player: str, unfixable: frozenset[str] = frozenset()
) -> ReplyContext:
    """The ``reply`` template's context of ``player``'s ``results``
    (:func:`reply_results`, ``unfixable``: the game's codes no rewording mends); the
    caller sets the optional keys."""
    replied = reply_results(results, unfixable)
    return {
        "results": replied["results"],
        "done": replied["done"],
        "not_done": replied["not_done"],
        "fix": replied["fix"],
        "player": player,
    }


def move_dict(move: object) -> dict[str, object]:
    """A parsed move for the ``understood`` template macro: ``{"type": class name
    lower-cased, **fields}``, e.g. ``{"type": "vote", "target": "Петя", "prison": False}``."""
    fields: dict[str, object] = {}
    if dataclasses.is_dataclass(move) and not isinstance(move, type):
        fields = dataclasses.asdict(move)
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


def _cut(line: str) -> str:
    """``line`` cut to :data:`IGNORED_WIDTH` characters (``…`` at the cut)."""
    return line if len(line) <= IGNORED_WIDTH else line[: IGNORED_WIDTH - 1] + "…"


def looks_quoted(kind: AnyKind, state: object, doubtful: Sequence[str]) -> list[str]:
    """The lines of ``doubtful`` (:attr:`pbp.mail.read.mime.Letter.doubtful`, lines that may
    be quoted) that the game reads as a command, right or wrong: never executed (a
    line that may be quoted is never executed), listed in the answer as "looks quoted
    — not done". At most the first :data:`DOUBTFUL_TRIED` lines are tried.

    Example: ``looks_quoted(maniac, state, ["ГОЛОС Оля", "и мы его учтём"])`` is
    ``["ГОЛОС Оля"]``."""
    return [line for line in doubtful[:DOUBTFUL_TRIED] if kind.parse(line, state)]


def quoted_commands(
    kind: AnyKind,
    state: object,
    reply: Reply,
    commands: Sequence[ParsedCommand[object]],
    *,
    forwarded: bool = False,
) -> list[str]:
    """The command lines of a player's mail listed as "looks quoted — not done"
    (issue 33, "never silent"): its doubtful lines that hold a command
    (:func:`looks_quoted`); and when neither those nor his own text (``commands``) hold
    one, the lines set aside that do (:attr:`pbp.mail.read.body.Reply.aside`: a move
    written into a quote or below a signature is answered, never "no command found").
    A forwarded mail's lines (``forwarded``) are not tried: its answer says they are
    another's. ``reply``: his own reply (:meth:`pbp.app.owntext.OwnText.own_reply`, our mail's lines
    left out)."""
    quoted = looks_quoted(kind, state, reply.doubtful)
    if quoted or commands or forwarded:
        return quoted
    return looks_quoted(kind, state, reply.aside)


def ignored_lines(text: str, commands: Sequence[ParsedCommand[object]]) -> list[str]:
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
