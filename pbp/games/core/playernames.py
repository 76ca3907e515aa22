"""The checks of the names ``games.yaml`` gives to players and cards: a name a mail can
carry and a player can type (:func:`name_problem`, :data:`Name`), one that no command
of the game starts with (:func:`seat_name_problem`, :func:`command_word`), and
characters a text would not show (:func:`hidden_character`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator

from pbp.games.core.events import GM_SEAT
from pbp.mail.read.quotemarks import quote_marker
from pbp.mail.safetext import INVISIBLE, strip_controls
from pbp.text.names import normalize

#: The longest player or card name: four of them and a command's words fit in one
#: command line (:data:`pbp.text.commands.LINE_LIMIT`, 500 characters: «ПРЕДПОЛОЖЕНИЕ
#: A, B, C ДЛЯ D»), which a longer name could make too long to be read.
NAME_LIMIT = 100


#: Dashes a mail reads as the end of a name: a run of them (``Ко -- ля``; ``--`` is also
#: a signature's start) or one between spaces (``Ко — ля``): the GM's note begins at
#: `` -- ``, `` — `` or `` – `` (``ИСКЛЮЧИТЬ Ко -- ля`` removes «Ко» with the note «ля»),
#: a player's chat after a name at a dash between spaces.
_DASHES = re.compile(r"[-\u2010-\u2015\u2212]{2,}|\s[-\u2010-\u2015\u2212]\s")


@dataclass(frozen=True)
class NameProblem:
    """Why a name cannot be a player's (or a card's): ``why`` names the rule broken,
    ``params`` what a translated sentence of it shows (a refused substitute's
    ``gm_bad_name``, ``templates/errors/gm_bad_name.txt``, takes both), ``message`` the
    English sentence ``pbp check`` prints, naming the name.

    ``why`` (``params``): ``shape`` (empty, a comma, a line break, edge spaces);
    ``too_long`` {limit, length}; ``hidden`` {code: ``"U+200F"``}; ``not_nfkc``
    {plain: its NFKC form}; ``quote`` {marker}; ``mixed_script`` {word}: a word of Latin
    and Cyrillic letters; ``dashes`` {dashes}; ``gm_seat``;
    ``no_word``; ``command_word`` {word}; ``reserved`` {word} (a game kind's own,
    :meth:`~pbp.games.core.gameconfig.GameBase.reserved_name_problem`)."""

    why: str
    params: Mapping[str, str | int]
    message: str


def name_problem(value: str) -> NameProblem | None:
    """Why ``value`` cannot be a player's or a card's name, or None: empty, a comma or
    a line break (commands separate by commas), edge spaces; over :data:`NAME_LIMIT`
    characters; an invisible or control character (:func:`hidden_character`); not in Unicode
    NFKC form (full-width or other compatibility characters, which nobody types:
    ``Ｋｏｌｙａ``); a quote mark (:func:`pbp.mail.read.quotemarks.quote_marker`: ``> Вова``
    would make its line a quote); a word mixing Latin and Cyrillic letters
    (:func:`mixed_script_word`: ``Кpocc`` shows as ``Кросс``); a run of dashes or a dash
    between spaces (:data:`_DASHES`). The first found, one sentence naming the name and why. A
    player's name has more rules (:func:`seat_name_problem`).

    >>> name_problem("> Вова").why, name_problem("Ｋｏｌｙａ").params, name_problem("Вова")
    ('quote', {'plain': 'Kolya'}, None)
    """
    if not value.strip() or value != value.strip() or re.search(r"[,\n\r]", value):
        message = f"{value!r}: a name is non-empty, without commas, line breaks or edge spaces"
        return NameProblem("shape", {}, message)
    if len(value) > NAME_LIMIT:
        message = (
            f"{value[:20]!r}…: a name is at most {NAME_LIMIT} characters, not {len(value)}"
            " (a move naming it must fit in one command line)"
        )
        return NameProblem("too_long", {"limit": NAME_LIMIT, "length": len(value)}, message)
    hidden = hidden_character(value)
    if hidden is not None:
        code = f"U+{ord(hidden):04X}"
        message = (
            f"{value!r}: a name holds the invisible or control character {code}"
            " (pasted with it?), which texts do not show and mail does not read: remove it"
        )
        return NameProblem("hidden", {"code": code}, message)
    plain = unicodedata.normalize("NFKC", value)
    if plain != value:
        message = (
            f"{value!r} is not in Unicode NFKC form (full-width or other compatibility "
            f"characters, which players do not type): write it as {plain!r}"
        )
        return NameProblem("not_nfkc", {"plain": plain}, message)
    marker = quote_marker(value)
    if marker is not None:
        message = (
            f"{value!r}: a mail reads {marker!r} as a quote mark and the line naming it as "
            "quoted, so it would never count: give a name without it"
        )
        return NameProblem("quote", {"marker": marker}, message)
    mixed = mixed_script_word(value)
    if mixed is not None:
        message = (
            f"{value!r}: the word {mixed!r} mixes Latin and Cyrillic letters, which look "
            "alike (a Latin p, o, c shows as a Cyrillic р, о, с): write it in one alphabet"
        )
        return NameProblem("mixed_script", {"word": mixed}, message)
    found = _DASHES.search(value)
    if found is not None:
        dashes = found.group().strip()
        message = (
            f"{value!r}: a mail reads {dashes!r} in a name as where a note "
            "or chat begins (ИСКЛЮЧИТЬ Ко -- ля removes «Ко»): give a name without a run of "
            "dashes or a dash between spaces"
        )
        return NameProblem("dashes", {"dashes": dashes}, message)
    return None


def mixed_script_word(value: str) -> str | None:
    """The first word of ``value`` (split at what is no letter) that holds both Latin
    and Cyrillic letters (each letter's script by its Unicode name,
    :func:`unicodedata.name`), or None. Such a word shows as a name of one script
    letter for letter (Latin ``a c e o p x`` beside Cyrillic ones), so two seats could
    look the same in every post.

    >>> mixed_script_word("К\u0070\u006f\u0063\u0063 Б."), mixed_script_word("Кросс Jr")
    ('Кpocc', None)
    """
    for match in re.finditer(r"[^\W\d_]+", value):
        word = match.group()
        scripts = {unicodedata.name(ch, "").split(" ", 1)[0] for ch in word}
        if {"LATIN", "CYRILLIC"} <= scripts:
            return word
    return None


def _name(value: str) -> str:
    """Player and card names as :func:`name_problem` allows them.

    :raises ValueError: its ``message``. Command words are the game's
        (:meth:`~pbp.games.core.gameconfig.GameBase.player_problems`)."""
    problem = name_problem(value)
    if problem is not None:
        raise ValueError(problem.message)
    return value


def seat_name_problem(name: str, words: Sequence[str], game_id: str) -> NameProblem | None:
    """Why ``name``, a name :func:`name_problem` allows, cannot be a player's in game
    ``game_id``, or None: pbp's own name for the GM's seat (:data:`GM_SEAT`); no word
    in a player's mail (markup and punctuation aside); a word of ``words``, the game's command words
    (:meth:`~pbp.games.core.gameconfig.GameBase.player_words`, :func:`command_word`).

    >>> seat_name_problem("Вася ДЛЯ Петя", ["для"], "g").params
    {'word': 'для'}
    >>> seat_name_problem("**", (), "g").why, seat_name_problem("Вася", ["для"], "g")
    ('no_word', None)
    """
    if name == GM_SEAT:
        message = (
            f"name {name!r} is pbp's own name for the GM's seat in game {game_id!r}: "
            "give the player another name"
        )
        return NameProblem("gm_seat", {}, message)
    if not normalize(name):
        message = (
            f"name {name!r} reads as no word in a player's mail (markup and "
            "punctuation aside): give the player a name with letters or digits"
        )
        return NameProblem("no_word", {}, message)
    word = command_word(name, words)
    if word is not None:
        message = (
            f"name {name!r} holds {word!r}, a command word (of any language pbp reads), "
            "which a mail would read as part of a command: give the player another name"
        )
        return NameProblem("command_word", {"word": word}, message)
    return None


def command_word(name: str, words: Sequence[str]) -> str | None:
    """The words of ``name`` that are one of ``words`` (:func:`pbp.text.keywords.name_words`:
    a phrase matches its words in a row, ``word*`` any word that begins so), as a
    player's mail reads them (:func:`pbp.text.names.normalize`: whole words, case,
    ``ё`` and look-alike letters aside), or None.

    >>> command_word("Вася ДЛЯ Петя", ["для"]), command_word("Бюро Длявсех", ["для"])
    ('для', None)
    >>> command_word("Тюрьмин", ["тюрьм*"]), command_word("Close Day", ["CLOSE DAY"])
    ('тюрьмин', 'close day')
    """
    read = tuple(normalize(name))
    for parts, prefix in _read_words(tuple(words)):
        for start in range(len(read) - len(parts) + 1):
            window = read[start : start + len(parts)]
            last = window[-1].startswith(parts[-1]) if prefix else window[-1] == parts[-1]
            if window[:-1] == parts[:-1] and last:
                return " ".join(window)
    return None


@functools.lru_cache(maxsize=64)
def _read_words(words: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], bool], ...]:
    """``words`` as :func:`command_word` matches them: each one's words as a mail reads
    them (:func:`pbp.text.names.normalize`) and whether it ends in ``*``; the empty
    ones left out. Cached: the same words are asked of every name of every game (a
    thousand games' names normalized them again each, seconds at start-up)."""
    found = []
    for word in words:
        parts = tuple(normalize(word.removesuffix("*")))
        if parts:
            found.append((parts, word.endswith("*")))
    return tuple(found)


def hidden_character(value: str) -> str | None:
    """The first character of ``value`` that a text would not show as written: a control
    or bidirectional character (:func:`pbp.mail.safetext.strip_controls` removes it: a fairness
    string that held it would not be the one shown), a tab, or a character a player's
    mail reads as nothing or as a plain space (:data:`pbp.mail.safetext.INVISIBLE`: a
    direction mark, a zero-width space, a no-break space), or None.

    >>> hidden_character("Маша\u200f"), hidden_character("Анна\u202eМария")
    ('\u200f', '\u202e')
    >>> hidden_character("Анна-Мария") is None
    True
    """
    for ch in value:
        if ch == "\t" or ord(ch) in INVISIBLE or strip_controls(ch) != ch:
            return ch
    return None


Name = Annotated[str, AfterValidator(_name)]
