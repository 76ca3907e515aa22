"""Cluedo commands in a mail body → moves (issue 2, "Fixed interface"; rules C4, C6, D2).

Reading a move is separate from playing it: this module knows only the syntax and
the names (cards, players); whether a move is allowed is the engine's business
(:mod:`pbp.games.cluedo_days.engine`). This module reads a mail's lines (which line is
which command, the seed's two-line form); the words of one command (keywords, cards,
players, numbers, the seed's sentence) are read by :mod:`pbp.games.cluedo.reader`.

Grammar: one command per line, several per mail; keywords case-insensitive, those of
every locale always accepted (``pbp/games/cluedo/keywords/<locale>.yaml`` and pbp's
``pbp/locale/<locale>/keywords.yaml``, :mod:`pbp.text.keywords`: the words below are
ru's and en's), an optional colon after the keyword; bold markers
(``[b]…[/b]``, ``**…**``) ignored; text inside forum quotes and spoilers skipped
(``[quote]``, ``[quote=Неташка]``, ``[quote name="…"]``, ``[quote author=… date=…]``,
``[spoiler]``, ``[spoiler=…]``, nested, also within a line); look-alike Latin letters
in Cyrillic words read as Cyrillic and the reverse
(:func:`~pbp.text.names.fold_confusables`); card and player names matched by
:class:`~pbp.text.names.NameMatcher` (inflected forms, ``ё`` = ``е``, typos refused
with a suggestion)::

    SUGGEST <card>, <card>, <card> TO <player>     ПРЕДПОЛОЖЕНИЕ <…>, <…>, <…> ДЛЯ <игрок>
    REFUTE [N] <card>                              ОПРОВЕРЖЕНИЕ [N] <карта>
    NO REFUTATION [N]                              НЕТ ОПРОВЕРЖЕНИЯ [N]
    ACCUSE <card>, <card>, <card>                  ОБВИНЕНИЕ <…>, <…>, <…>
    STATUS   HELP                                  СТАТУС   ПОМОЩЬ

Keywords are also read in another grammatical form (``Предположения``, ``Нет
опровержений``, ``Опровержения нет``, ``Suggestion``); a first word that is a typo or
another part of speech of a keyword (``Предпложение``, ``Обвиняю``, ``Sugest``) is
refused with ``unknown_command``, never ignored; other lines are chatter.
``STATUS``/``HELP`` followed by other words ("Help me out here") are chatter, not
commands. ``N`` may be written ``7``, ``№7``, ``#7`` or ``N7``, after ``на``/``to``
(``ОПРОВЕРЖЕНИЕ на №1 нож``). The addressee may come first (``ПРЕДПОЛОЖЕНИЕ для
Веталь: Белых, нож, кухня``) and chat may follow it after a punctuation mark (``… ДЛЯ
Веталь. Спасибо!``). A command line longer than :data:`LINE_LIMIT` characters is
refused unread (``line_too_long``). The three cards of a suggestion
or accusation may come in any order (each is assigned to its category); commas may be
left out when the names alone split the text (``Краснова ножом в кухне``). English
nouns ``SUGGESTION``, ``REFUTATION``, ``ACCUSATION`` are accepted as keywords too.

The seed's own form (seed 001) is accepted: a heading ``Предположение_N для <игрок>``
(or ``Предположение N для …``; N is the player's own count and is ignored) and, on
the next non-empty line (a sentence wrapped over up to three lines is joined), ``Я
думаю, что убийство совершил(а) А, орудием Б в комнате В`` with the cards in any
case, or the sentence pbp writes (rule P2, :mod:`pbp.games.cluedo.wording`): ``Я
думаю, что убийца — А, ножом на кухне`` (a room with its preposition: «во флигеле»,
«в зимнем саду»), or, in a game with a card the dictionary cannot decline, ``Я думаю,
что убийца — А, орудие — Б, комната — В``; the heading may end with the game-wide
number pbp adds (``Предположение_2 для Веталь (№7)``), which is ignored.

Without an addressee (``addressed=False``, the rounds variant) ``TO <player>`` is
refused and the sentence alone is a suggestion.

Error codes (:class:`~pbp.games.core.events.InvalidMove` / ``AmbiguousMove``; each has a
text in ``templates/<locale>/errors/<code>.txt``); every one carries ``line`` (the
command as read, markup removed):

- ``unknown_name`` — ``word``, ``suggestion`` (str or None), ``allowed`` (names),
  ``kind`` (``"card"`` or ``"player"``).
- ``ambiguous_name`` — ``word``, ``candidates``, ``kind``.
- ``card_categories`` — three cards but not one of each category: ``cards`` (as
  given), ``category`` (the first category named twice), ``doubled`` (its cards),
  ``missing`` (categories not named), ``allowed`` ({``suspects``, ``weapons``,
  ``rooms``}: lists).
- ``suggest_syntax`` / ``accuse_syntax`` — not three cards: ``count`` (cards read),
  ``example`` ({``suspect``, ``weapon``, ``room``, ``player``}; ``player`` None when
  unaddressed), ``addressed`` (bool).
- ``refute_syntax`` — no card: ``example`` ({``number``, ``card``}).
- ``no_refutation_syntax`` — extra text after ``NO REFUTATION [N]``: ``example``
  ({``number``}).
- ``missing_addressee`` — a suggestion without ``TO <player>``: ``players``,
  ``example`` (as for ``suggest_syntax``).
- ``unexpected_addressee`` — ``TO <player>`` where there is no addressee
  (``addressed=False``): ``player``.
- ``several_addressees`` — ``TO <player>, <player>``: a suggestion goes to one
  player, never to the first one named: ``players`` (those named).
- ``unknown_command`` — the first word looks like a misspelt keyword: ``word`` (as
  written), ``suggestion`` (the keyword as shown in the help, in the word's script:
  ``"ПРЕДПОЛОЖЕНИЕ"``, ``"NO REFUTATION"``).
- ``line_too_long`` — a command line over ``limit`` characters (:data:`LINE_LIMIT`);
  ``line`` is its first 60 characters (right-stripped) and ``"…"``.
- ``too_many_commands`` — the command line after the first ``limit``
  (:data:`COMMAND_LIMIT`); nothing after it is read.
- ``pasted_snippet`` — a seed-form heading with pbp's ``(№N)``: ``number`` (N), the
  suggestion that snippet shows, which is not made a second time.

A mail with no command at all is the caller's case: template ``no_command``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from pbp.games.cluedo.cards import Cards, CluedoMove, Help, Status, Suggest
from pbp.games.cluedo.reader import SENTENCE, SENTENCE_START, Reader, current_words
from pbp.games.core.events import InvalidMove, MoveError
from pbp.mail.read.forumtags import unquote_forum
from pbp.text import commands
from pbp.text.commands import COMMAND_LIMIT, LINE_LIMIT, command_lines
from pbp.text.commands import attempt as _attempt
from pbp.text.commands import read_line as _read
from pbp.text.commands import too_long as _too_long
from pbp.text.names import (
    clean,
    closest_keyword,
    stem,
)

#: Every error code this module raises (see the module doc for the params).
ERROR_CODES = (
    "unknown_name",
    "ambiguous_name",
    "card_categories",
    "suggest_syntax",
    "accuse_syntax",
    "refute_syntax",
    "no_refutation_syntax",
    "missing_addressee",
    "unexpected_addressee",
    "several_addressees",
    "unknown_command",
    "line_too_long",
    "too_many_commands",
    "pasted_snippet",
)

#: One command line of a mail (:class:`pbp.text.commands.ParsedLine`); a seed-form
#: heading and its sentence are joined with ``"\\n"`` in ``text``.
#: Example: ``ParsedLine(3, "REFUTE 7 ножом", Refute("нож", 7), None)``.
ParsedLine = commands.ParsedLine[CluedoMove]


def _keyword(line: str) -> tuple[str, str] | None:
    """``(command, rest)`` for a command line (``line`` cleaned and folded), None for
    chatter. Commands: ``suggest``, ``refute``, ``no_refutation``, ``accuse``,
    ``status``, ``help``; ``rest`` follows the keyword (and its colon).

    :raises InvalidMove: ``unknown_command`` when the first word resembles a keyword
        (:func:`~pbp.text.names.closest_keyword`) without being one of its forms.
    """
    v = current_words()
    lead = v.words.lead(line)
    if lead is None:
        return None
    refute = v.words.stems["refute"]
    found: tuple[str, int] | None
    if lead.second and (
        (lead.first in v.negations and stem(lead.second) in refute)
        or (lead.first_stem in refute and lead.second in v.negations)
    ):
        found = ("no_refutation", lead.match.end())
    else:
        found = v.words.single(lead)
    if found is not None:
        return v.words.command(line, *found)
    misspelt = lead.second and lead.first in v.negations
    if misspelt and closest_keyword(lead.second, tuple(v.refutation_shown.values())):
        v.words.refuse(line, lead, "no_refutation", v.negations[lead.first])
    v.words.refuse(line, lead)
    return None


def _is_command(line: str) -> bool:
    """True when ``line`` (cleaned, folded) would be read as a command or refused as one."""
    if current_words().heading.match(line) or SENTENCE_START.match(line):
        return True
    try:
        return _keyword(line) is not None
    except MoveError:
        return True


def parse_cluedo(
    text: str,
    cards: Cards,
    players: Sequence[str],
    *,
    addressed: bool = True,
    aliases: Mapping[str, str] | None = None,
) -> list[ParsedLine]:
    """The command lines of ``text`` (a letter's new text) in order; other lines omitted.

    ``cards``: the cards in play; ``players``: every seat (addressees are matched
    against these only, or their ``aliases``, ``{name: seat}``: a substitute's name;
    cards against cards only). ``addressed``: True for the days
    variant (``TO <player>`` required), False for rounds (refused).

    Example::

        parse_cluedo("Привет!\\nREFUTE 7 ножом\\nSTATUS", cards, ["Неташка", "Веталь"])
        # [ParsedLine(2, "REFUTE 7 ножом", Refute("нож", 7), None),
        #  ParsedLine(3, "STATUS", Status(), None)]

    Never raises for what a player wrote: each error is in its line's ``error``
    (codes in the module doc). Linear in ``len(text)``: each line's work is bounded
    by :data:`LINE_LIMIT`, and only the first :data:`~pbp.text.commands.MAX_LINES`
    lines are read (the rest is left for the reply's list of ignored lines).
    """
    reader = Reader(cards, players, addressed, aliases)
    visible = unquote_forum(command_lines(text))
    lines = [shown for shown, _ in visible]
    quoted = [touched for _, touched in visible]
    result: list[ParsedLine] = []
    skip_until = -1  # the last line a seed-form suggestion used
    for index, raw_line in enumerate(lines):
        if len(result) > COMMAND_LIMIT:
            break
        if index <= skip_until:
            continue
        line = _read(raw_line)
        if not line:
            continue
        if len(line) > LINE_LIMIT:
            if _is_command(line[:LINE_LIMIT]):
                result.append(_too_long(index, line))
            continue
        heading = current_words().heading.match(line)
        if heading:
            skip_until, parsed = _seed_form(reader, lines, quoted, index, heading)
            result.append(parsed)
            continue
        parsed_line = _one_line(reader, index, raw_line.strip(), line)
        if parsed_line is not None:
            result.append(parsed_line)
    commands.cap_commands(result)
    return result


def _one_line(reader: Reader, index: int, shown: str, line: str) -> ParsedLine | None:
    """A command written on one line (``line``: line ``index`` as read, ``shown``: as
    written) → its :class:`ParsedLine`; None for chatter. A bare seed-form sentence
    is a suggestion (:meth:`~pbp.games.cluedo.reader.Reader.bare_sentence`)."""
    try:
        command = _keyword(line)
    except MoveError as error:
        return ParsedLine(index + 1, shown, None, error)
    if command is None:
        if SENTENCE.match(line):
            return _attempt(index, shown, functools.partial(reader.bare_sentence, line))
        return None
    keyword, rest = command
    if keyword in ("status", "help"):
        return ParsedLine(index + 1, shown, Status() if keyword == "status" else Help(), None)
    return _attempt(index, shown, functools.partial(reader.command, keyword, rest.strip(), line))


def _seed_form(
    reader: Reader,
    lines: Sequence[str],
    quoted: Sequence[bool],
    index: int,
    heading: re.Match[str],
) -> tuple[int, ParsedLine]:
    """The seed-001 heading at ``lines[index]`` and its sentence → ``(last line used,
    ParsedLine)``. The sentence may follow on the heading line itself."""
    head_text = lines[index].strip()
    if heading.group("echo"):
        # pbp's own snippet of a suggestion already made: its sentence lines go with it.
        last = index
        if not heading.group("sentence"):
            found, _too_long_line = _sentence_lines(lines, quoted, index + 1)
            last = found[-1][0] if found else index
        number = int(heading.group("echo"))
        error = InvalidMove("pasted_snippet", line=_read(head_text), number=number)
        return last, ParsedLine(index + 1, head_text, None, error)
    if heading.group("sentence"):
        sentence_lines = [(index, heading.group("sentence"))]
    else:
        sentence_lines, too_long = _sentence_lines(lines, quoted, index + 1)
        if too_long is not None:
            return too_long[0], _too_long(index, too_long[1])
    build = functools.partial(_seed_suggestion, reader, heading.group("player"), _read(head_text))
    if not sentence_lines:
        return index, _attempt(index, head_text, functools.partial(build, ""))
    # A sentence wrapped by the client: join up to three lines, shortest that parses.
    first_error: ParsedLine | None = None
    for count in range(1, len(sentence_lines) + 1):
        used = sentence_lines[:count]
        sentence = " ".join(text for _, text in used)
        shown = "\n".join([head_text] + [lines[k].strip() for k, _ in used if k != index])
        parsed = _attempt(index, shown, functools.partial(build, sentence))
        if parsed.error is None:
            return used[-1][0], parsed
        if first_error is None:
            first_error = parsed
            first_end = used[-1][0]
    assert first_error is not None
    return first_end, first_error


def _sentence_lines(
    lines: Sequence[str], quoted: Sequence[bool], start: int
) -> tuple[list[tuple[int, str]], tuple[int, str] | None]:
    """The seed-001 sentence after a heading, from ``lines[start]`` on: up to three
    lines ``(index, text as read)``, the first beginning ``Я думаю`` (after empty
    lines), ending at an empty or quoted line or another command → ``(those lines,
    None)``; or ``([...], (index, text))`` for an over-long line met on the way (the
    whole suggestion is refused as ``line_too_long``)."""
    found: list[tuple[int, str]] = []
    j = start
    while j < len(lines) and not clean(lines[j]) and not quoted[j]:
        j += 1
    while j < len(lines) and len(found) < 3 and not quoted[j]:
        text = _read(lines[j])
        if not found and not SENTENCE_START.match(text):
            break
        if len(text) > LINE_LIMIT:
            return found, (j, text)
        if not text or (found and _is_command(text)):
            break
        found.append((j, text))
        j += 1
    return found, None


def _seed_suggestion(reader: Reader, player_text: str | None, line: str, sentence: str) -> Suggest:
    """The seed-form suggestion of a heading naming ``player_text`` (or none) and its
    ``sentence`` (``line``: the heading as read, for the errors). Name errors in the
    sentence come before a missing addressee.

    :raises InvalidMove: ``missing_addressee``, ``unexpected_addressee``, and those of
        :meth:`~pbp.games.cluedo.reader.Reader.sentence` and
        :meth:`~pbp.games.cluedo.reader.Reader.player`.
    :raises AmbiguousMove: ``ambiguous_name``.
    """
    if reader.addressed and not player_text:
        reader.sentence(sentence, line)  # name errors first
        raise InvalidMove(
            "missing_addressee", line=line, players=reader.players, example=reader.example()
        )
    if not reader.addressed and player_text:
        try:
            named = reader.player_names.match(player_text)
        except MoveError:
            named = clean(player_text)
        raise InvalidMove("unexpected_addressee", line=line, player=named)
    addressee = reader.player(player_text, line) if player_text else None
    return Suggest(*reader.sentence(sentence, line), addressee=addressee)
