"""Maniac commands in a mail body → moves (issue 4, "Moves"; rules M3, M4, M5, M9, M11).

Reading a move is separate from playing it: this module knows only the syntax and the
players' names; whether a move is allowed (who may vote, which night is open, the
skip and double-kill limits) is the engine's business (:mod:`pbp.games.maniac.engine`).

Grammar: one command per line, several per mail; keywords case-insensitive, those of
every locale always accepted (``pbp/games/maniac/keywords/<locale>.yaml`` and pbp's
``pbp/locale/<locale>/keywords.yaml``, :mod:`pbp.text.keywords`: the words below are
ru's and en's; read as :mod:`pbp.games.maniac.words` builds them), an
optional colon after the keyword; bold markers ignored; text inside forum quotes and
spoilers skipped (:func:`~pbp.mail.read.forumtags.unquote_forum`); look-alike Latin
letters in Cyrillic words read as Cyrillic and the reverse
(:func:`~pbp.text.names.fold_confusables`); player names matched by
:class:`~pbp.text.commands.PlayerNames` (any case form, ``ё`` = ``е``, a leading
preposition dropped, typos refused with a suggestion)::

    VOTE <player>                                 ГОЛОС <игрок>
    VOTE PRISON <player>                          ГОЛОС ТЮРЬМА <игрок>
    UNVOTE                                        СНЯТЬ ГОЛОС
    KILL <player> [AND <player>] [NIGHT n]        УБИТЬ <игрок> [И <игрок>] [НОЧЬ n]
    SKIP [NIGHT n]                                ПРОПУСК [НОЧЬ n]
    STATUS   HELP                                 СТАТУС   ПОМОЩЬ

Natural variants are read when they are unambiguous:

- votes: ``ГОЛОС за Петю``, ``Голосую против Пети``, ``ГОЛОС: Таню``, ``Мой голос —
  Петя``, ``VOTE for Петя``, ``My vote: Петя``; prison (M11) before or after the
  name: ``ГОЛОС ТЮРЬМА Петю``, ``голос в тюрьму за Петю``, ``ГОЛОС за Петю в
  тюрьму``, ``VOTE Петя to prison``; ``в камеру`` / ``to the cell`` marks an ordinary
  vote; chat after a punctuation mark is ignored (``ГОЛОС за Петю, он странный``);
- withdrawal: ``СНЯТЬ ГОЛОС``, ``Снимаю голос``, ``Отменяю голос``, ``ГОЛОС снимаю``,
  ``UNVOTE``, ``un-vote``, ``withdraw vote``;
- kill orders (M3, M5): ``УБИТЬ Васю``, ``Убиваю Васю и Олю ночь 3``, ``ЗАКАЗ: Таня``,
  ``KILL Вася, Оля N3``; targets separated by ``и``/``and``, a comma, ``&`` or ``+``,
  or by nothing; the seed's own form without a keyword, ``1 ночь - Вася``, ``Ночь 2:
  пропуск`` (read only when it names a player or skips: other such lines are chat);
- skips (M4): ``ПРОПУСК``, ``Пропускаю ночь 4``, ``пропуск хода``, ``SKIP N4``, ``SKIP
  4``, ``УБИТЬ: пропуск``;
- the night, anywhere in an order: ``ночь 3``, ``в ночь 3``, ``на ночь 3``, ``ночь
  №3``, ``3 ночь``, ``на 3-ю ночь``, ``night 3``, ``night #3``, ``N3`` (also Cyrillic
  ``Н3``). Without one the order is for the earliest open night without an order (M3):
  ``night`` is None.

``STATUS``/``HELP`` followed by other words are chat. A first word that is a typo or
another form of a keyword (``Голсо``, ``Голосование``, ``Прапуск``, ``Unvoet``) is
refused with ``unknown_command``, never ignored; other lines are chat. A command line
longer than :data:`~pbp.text.commands.LINE_LIMIT` characters is refused unread; at
most :data:`~pbp.text.commands.COMMAND_LIMIT` commands are read from one mail.

Error codes (:class:`~pbp.games.core.events.InvalidMove` / ``AmbiguousMove``; each has a
text in ``templates/<locale>/errors/<code>.txt``); every one carries ``line`` (the
command as read, markup removed):

- ``unknown_name`` — ``word``, ``suggestion`` (str or None), ``allowed`` (every
  player), ``kind`` (``"player"``).
- ``ambiguous_name`` — ``word``, ``candidates``, ``kind`` (``"player"``).
- ``ambiguous_target`` — a kill order's name that is one seat's name and another's
  case form (``УБИТЬ Ника`` when Ник and Ника play): as ``ambiguous_name``; the order
  names a player only written as listed, in quotes (``УБИТЬ «Ника»``), or by a form
  of one seat alone (``УБИТЬ Ник``).
- ``vote_syntax`` — a vote naming no player or two (``ГОЛОС Катю и Петю``), or asking
  for both cell and prison: ``players``, ``example`` ({``player``}).
- ``unvote_syntax`` — words after ``UNVOTE``: ``word`` (those words).
- ``kill_syntax`` — an order naming no target or more than two: ``count`` (targets
  read), ``example`` ({``player``, ``other``, ``night``, ``next_night``: the night after
  it}).
- ``duplicate_target`` — an order naming one player twice: ``player``.
- ``several_nights`` — two night numbers in one line: ``nights`` (the numbers),
  ``example`` (as for ``kill_syntax``).
- ``night_syntax`` — a night without a number, or night 0: ``word`` (as written),
  ``example`` (as for ``kill_syntax``).
- ``skip_syntax`` — other words after ``SKIP``: ``word`` (those words), ``example``
  (as for ``kill_syntax``).
- ``unknown_command`` — the first word looks like a misspelt keyword: ``word`` (as
  written), ``suggestion`` (the keyword as shown in the help, in the word's script:
  ``"ГОЛОС"``, ``"СНЯТЬ ГОЛОС"``, ``"SKIP"``), ``commands`` ({``ru``, ``en``}: the
  command forms of this game, as shown in the help).
- ``line_too_long`` (``limit``), ``too_many_commands`` (``limit``): as in
  :mod:`pbp.games.cluedo.parse`.

A mail with no command at all is the caller's case: template ``no_command``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence

from pbp.games.core.events import AmbiguousMove, InvalidMove, MoveError
from pbp.games.maniac.moves import Help, Kill, ManiacMove, Skip, Status, Unvote, Vote
from pbp.games.maniac.words import is_command, read_keyword, vocab
from pbp.mail.read.forumtags import unquote_forum
from pbp.text import commands
from pbp.text.commands import (
    COMMAND_LIMIT,
    LINE_LIMIT,
    TRAILING,
    PlayerNames,
    attempt,
    read_line,
    too_long,
)
from pbp.text.names import PREPOSITIONS, normalize, stem

#: Every error code this module raises (see the module doc for the params).
ERROR_CODES = (
    "unknown_name",
    "ambiguous_name",
    "ambiguous_target",
    "vote_syntax",
    "unvote_syntax",
    "kill_syntax",
    "duplicate_target",
    "several_nights",
    "night_syntax",
    "skip_syntax",
    "unknown_command",
    "line_too_long",
    "too_many_commands",
)

#: One command line of a mail (:class:`pbp.text.commands.ParsedLine`).
#: Example: ``ParsedLine(2, "УБИТЬ Васю ночь 3", Kill(("Вася",), 3), None)``.
ParsedLine = commands.ParsedLine[ManiacMove]

#: Most targets of one kill order (M5: the double kill).
MAX_TARGETS = 2
#: A night given by its number alone (``SKIP 4``, ``SKIP №4``).
_BARE_NUMBER = re.compile(r"^(?:[№#]\s*)?(?P<number>\d+)$")


#: Where chat after a name begins: a punctuation mark, or a dash between spaces.
_CHAT_START = re.compile(r"\s*(?:[.!?;:,(]|\s[—–-]\s)")
_ORDER_CHAT_START = re.compile(r"\s*(?:[.!?;(]|\s[—–-]\s)")
#: A target written in quotes: exactly the player of that name (``УБИТЬ «Ника»``).
_QUOTED_NAME = re.compile(r"[«\"„“](?P<name>[^«»\"„“”]+)[»\"“”]?")  # the reader may cut »
_SEPARATORS = " \t:,—–-"


class _Reader:
    """Parses the command lines of one mail against one game's players."""

    def __init__(self, players: Sequence[str], aliases: Mapping[str, str] | None = None) -> None:
        self.players = list(players)
        self.names = PlayerNames(players, aliases)

    def example(self) -> dict[str, str | int]:
        first = self.players[0] if self.players else ""
        other = self.players[1] if len(self.players) > 1 else first
        return {"player": first, "other": other, "night": 2, "next_night": 3}

    # -- names --

    def player(self, text: str, line: str) -> str:
        """The player named by ``text`` (all of it, or what precedes a punctuation mark:
        chat may follow).

        :raises InvalidMove: ``unknown_name`` (for the shortest reading).
        :raises AmbiguousMove: ``ambiguous_name``.
        """
        error: MoveError | None = None
        for candidate in _name_texts(text, _CHAT_START):
            words = normalize(candidate)
            if len(words) > 1 and words[0] in vocab().against:
                candidate = candidate.split(None, 1)[1]
            try:
                return self.names.match(candidate)
            except MoveError as refusal:
                error = refusal
        assert error is not None
        error.params["line"] = line
        raise error

    def targets(self, text: str, line: str) -> tuple[str, ...]:
        """The players an order names (``Васю и Олю``, ``Вася, Оля``, ``Васю Олю``).

        :raises InvalidMove: ``unknown_name``, ``kill_syntax``, ``duplicate_target``.
        :raises AmbiguousMove: ``ambiguous_name``.
        """
        exact = _QUOTED_NAME.fullmatch(text.strip())
        if exact is not None:  # «Ника»: the player of that very name (the way out below)
            try:
                named = self.names.match(exact.group("name"))
            except MoveError as refusal:
                refusal.params["line"] = line
                raise
            return self._checked((named,), line)
        error: MoveError | None = None
        for candidate in _name_texts(text, _ORDER_CHAT_START):
            try:
                found = self._targets(candidate)
                break
            except MoveError as refusal:
                error = refusal
        else:
            assert error is not None
            error.params["line"] = line
            if error.code == "ambiguous_name":
                # In an order even the exact name may be another seat's form («Ника»):
                # the way out of any ambiguity is the name as listed, in quotes.
                raise AmbiguousMove("ambiguous_target", **error.params)
            raise error
        return self._checked(found, line)

    def _checked(self, found: tuple[str, ...], line: str) -> tuple[str, ...]:
        """``found`` as the targets of one order (M3, M5), or its refusal."""
        if not found or len(found) > MAX_TARGETS:
            raise InvalidMove("kill_syntax", line=line, count=len(found), example=self.example())
        if len(set(found)) < len(found):
            raise InvalidMove("duplicate_target", line=line, player=found[0])
        return found

    def _targets(self, text: str) -> tuple[str, ...]:
        if not normalize(text):
            return ()
        # Strict: a kill is not to be guessed between Ник and Ника by «Ника» (M3).
        try:
            return (self.names.match(text, strict=True),)
        except MoveError as whole:
            parts = [p for p in vocab().name_split.split(text) if normalize(p)]
            if len(parts) > 1:
                return tuple(self.names.match(p, strict=True) for p in parts)
            return self._segment(text, whole)

    def _segment(self, text: str, whole: MoveError) -> tuple[str, ...]:
        """Names written one after another without separators; raises ``whole`` (the
        error for the text as one name) when it is a single word, else the error of the
        first word that names nobody. Prepositions and ``и``/``and`` are skipped."""
        words = text.split()
        if len(words) < 2:
            raise whole
        found: list[str] = []
        i = 0
        while i < len(words):
            if set(normalize(words[i])) <= PREPOSITIONS | vocab().name_fillers:
                i += 1
                continue
            for count in range(min(self.names.matcher.max_words, len(words) - i), 0, -1):
                name = self.names.lookup(" ".join(words[i : i + count]), strict=True)
                if name is not None:
                    found.append(name)
                    i += count
                    break
            else:
                found.append(self.names.match(words[i]))  # raises: unknown or ambiguous
                i += 1
        return tuple(found)

    # -- nights --

    def night(self, text: str, line: str) -> tuple[int | None, str]:
        """``(night number or None, text without it)``.

        :raises InvalidMove: ``several_nights``, ``night_syntax``.
        """
        found = list(vocab().night.finditer(text))
        if len(found) > 1:
            nights = [_number(m) for m in found]
            raise InvalidMove("several_nights", line=line, nights=nights, example=self.example())
        night: int | None = None
        if found:
            match = found[0]
            night = _number(match)
            if night < 1:
                raise InvalidMove(
                    "night_syntax", line=line, word=match.group().strip(), example=self.example()
                )
            text = f"{text[: match.start()]} {text[match.end() :]}"
        bare = vocab().bare_night.search(text)
        if bare:
            raise InvalidMove("night_syntax", line=line, word=bare.group(), example=self.example())
        return night, " ".join(text.split()).strip(_SEPARATORS)

    # -- commands --

    def vote(self, rest: str, line: str) -> Vote | Unvote:
        text = rest.strip(TRAILING + _SEPARATORS)
        words = normalize(text)
        v = vocab()
        if len(words) == 1 and stem(words[0]) in v.unvote_verbs:
            return Unvote()  # "ГОЛОС снимаю"
        places: list[str] = []
        lead = v.leading_place.match(text)
        if lead:
            places.append("prison" if lead.group("prison") else "cell")
            text = text[lead.end() :]
        tail = v.trailing_place.search(text)
        if tail:
            places.append("prison" if tail.group("prison") else "cell")
            text = text[: tail.start()]
        if not normalize(text) or len(set(places)) > 1:
            raise InvalidMove(
                "vote_syntax", line=line, players=self.players, example=self.example()
            )
        try:
            named = self._targets(text.strip(TRAILING))
        except MoveError:  # chat after the name ("за Петю, потому что …")
            named = ()
        if len(named) > 1:  # "ГОЛОС Катю и Петю": one vote names one player, never a guess
            raise InvalidMove(
                "vote_syntax", line=line, players=self.players, example=self.example()
            )
        return Vote(self.player(text, line), prison="prison" in places)

    def unvote(self, rest: str, line: str) -> Unvote:
        extra = rest.strip(TRAILING + _SEPARATORS)
        if normalize(extra):
            raise InvalidMove("unvote_syntax", line=line, word=extra)
        return Unvote()

    def kill(self, rest: str, line: str) -> Kill | Skip:
        night, text = self.night(rest, line)
        if _is_skip_word(text):
            return Skip(night)  # "УБИТЬ: пропуск", "1 ночь - пропуск"
        return Kill(self.targets(text, line), night)

    def skip(self, rest: str, line: str) -> Skip:
        bare = _BARE_NUMBER.match(rest.strip(TRAILING + _SEPARATORS))
        if bare:
            return Skip(int(bare.group("number")))  # "SKIP 4"
        night, text = self.night(rest, line)
        for candidate in _name_texts(text, _ORDER_CHAT_START):
            words = [w for w in normalize(candidate) if stem(w) not in vocab().skip_fillers]
            if not words:
                return Skip(night)
        raise InvalidMove("skip_syntax", line=line, word=text, example=self.example())

    def command(self, keyword: str, rest: str, line: str) -> ManiacMove:
        """The move of a keyword line; ``rest`` is what follows the keyword."""
        if keyword == "vote":
            return self.vote(rest, line)
        if keyword == "unvote":
            return self.unvote(rest, line)
        if keyword == "kill":
            return self.kill(rest, line)
        return self.skip(rest, line)

    def seed_order(self, index: int, shown: str, line: str) -> ParsedLine | None:
        """The seed's order without a keyword (``1 ночь - Вася``), or None for chat:
        a line in this form that names nobody and resembles no name."""
        if not vocab().seed_order.match(line):
            return None
        parsed: ParsedLine = attempt(index, shown, functools.partial(self.kill, line, line))
        error = parsed.error
        if (
            error is not None
            and error.code == "unknown_name"
            and error.params["suggestion"] is None
        ):
            return None
        return parsed


def _number(match: re.Match[str]) -> int:
    return int(match.group("after") or match.group("before") or match.group("short"))


def _is_skip_word(text: str) -> bool:
    words = normalize(text)
    v = vocab()
    return (
        bool(words)
        and stem(words[0]) in v.words.stems["skip"]
        and all(stem(w) in v.skip_fillers for w in words[1:])
    )


def _name_texts(text: str, chat: re.Pattern[str]) -> list[str]:
    """What may name the players: all of ``text``, then (when a punctuation mark is
    followed by more) only what precedes it."""
    texts = [text.strip(TRAILING)]
    start = chat.search(text)
    if start and start.start() > 0 and text[start.end() :].strip(TRAILING):
        texts.append(text[: start.start()].strip(TRAILING))
    return texts


def parse_maniac(
    text: str, players: Sequence[str], aliases: Mapping[str, str] | None = None
) -> list[ParsedLine]:
    """The command lines of ``text`` (a letter's new text) in order; other lines omitted.

    ``players``: every seat, canonical names in configured order (alive or not: who
    may be named is the engine's business); ``aliases``: other names of seats,
    ``{name: seat}`` (a substitute's, :class:`~pbp.text.commands.PlayerNames`).

    Example::

        parse_maniac("Привет!\\nГОЛОС за Петю\\nУБИТЬ Васю и Олю ночь 3", players)
        # [ParsedLine(2, "ГОЛОС за Петю", Vote("Петя"), None),
        #  ParsedLine(3, "УБИТЬ Васю и Олю ночь 3", Kill(("Вася", "Оля"), 3), None)]

    Never raises for what a player wrote: each error is in its line's ``error``
    (codes in the module doc). Linear in ``len(text)``: each line's work is bounded
    by :data:`~pbp.text.commands.LINE_LIMIT`, and only the first
    :data:`~pbp.text.commands.MAX_LINES` lines are read (the rest is left for the
    reply's list of ignored lines).
    """
    reader = _Reader(players, aliases)
    result: list[ParsedLine] = []
    for index, (raw_line, _quoted) in enumerate(unquote_forum(commands.command_lines(text))):
        if len(result) > COMMAND_LIMIT:
            break
        line = read_line(raw_line)
        if not line:
            continue
        if len(line) > LINE_LIMIT:
            if is_command(line[:LINE_LIMIT]):
                result.append(too_long(index, line))
            continue
        shown = raw_line.strip()
        try:
            command = read_keyword(line)
        except MoveError as error:
            result.append(ParsedLine(index + 1, shown, None, error))
            continue
        if command is None:
            order = reader.seed_order(index, shown, line)
            if order is not None:
                result.append(order)
            continue
        keyword, rest = command
        if keyword in ("status", "help"):
            move: ManiacMove = Status() if keyword == "status" else Help()
            result.append(ParsedLine(index + 1, shown, move, None))
            continue
        parse: Callable[[], ManiacMove] = functools.partial(
            reader.command, keyword, rest.strip(), line
        )
        result.append(attempt(index, shown, parse))
    commands.cap_commands(result)
    return result
