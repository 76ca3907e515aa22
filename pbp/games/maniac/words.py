"""The words the Maniac parser (:mod:`pbp.games.maniac.parse`) reads, in every locale
(:mod:`pbp.text.keywords`, section ``maniac``), built once per vocabulary
(:func:`vocab`): which keyword starts a line (:func:`read_keyword`), whether a line
is a command (:func:`is_command`), and which word of a player's name a mail would read
as a command (:func:`reserved_word`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from pbp.games.core.events import MoveError
from pbp.text import commands, keywords
from pbp.text.commands import TRAILING
from pbp.text.names import closest_keyword, normalize, stem

#: Shortest stem that stands for its keyword's forms: "убить" stems to "уб", which
#: "убили" (chat: "they killed") shares, so such a keyword is read only as written.
_MIN_STEM = 4
#: The commands of the help, in its order (``unknown_command``'s ``commands``).
_HELP_ORDER = ("vote", "vote prison", "unvote", "kill", "skip", "status", "help")
#: Ordinal endings after a night number ("на 3-ю ночь", "3rd night"): grammar, not words.
_ORDINAL = r"(?:-?(?:я|ю|ая|ую|й|ой|th|st|nd|rd))?"

#: Maniac's section of the words players type: ``keywords/<locale>.yaml`` beside this
#: module; «против» / "against" parts the names of a vote.
SECTION = keywords.declare(
    keywords.Section(
        "maniac",
        Path(__file__).parent / "keywords",
        {
            "vote": "command",
            "unvote": "command",
            "kill": "command",
            "skip": "command",
            "withdraw": "list",
            "possessive": "list",
            "orders_heading": "list?",
            "prison": "command",
            "cell": "command",
            "place_prepositions": "list",
            "against": "list",
            "night": "command",
            "night_bare": "list?",
            "night_prepositions": "list",
            "skip_fillers": "list",
        },
        separators=("against",),
    )
)


@dataclass(frozen=True)
class Vocab:
    """The words of every locale (:mod:`pbp.text.keywords`, section ``maniac``) as this
    parser reads them, built once per vocabulary (:func:`vocab`)."""

    words: commands.Keywords
    vote_stems: frozenset[str]
    #: The vote keyword as shown, lower case, per locale ("голос", "vote"): what the
    #: second word of a misspelt withdrawal is compared with.
    vote_shown: dict[str, str]
    #: The noun that may head a list of orders ("Заказы:"): alone on its line it is chat.
    heading_stems: frozenset[str]
    #: First words of a two-word withdrawal (``СНЯТЬ ГОЛОС``, ``withdraw vote``), as
    #: stems, each with its locale.
    unvote_verbs: dict[str, str]
    #: Words that may stand before the vote keyword: "Мой голос за Петю", "My vote: Петя".
    possessives: frozenset[str]
    leading_place: re.Pattern[str]
    trailing_place: re.Pattern[str]
    place_word: re.Pattern[str]
    #: Words standing before the player voted against, besides the prepositions.
    against: frozenset[str]
    night: re.Pattern[str]
    bare_night: re.Pattern[str]
    seed_order: re.Pattern[str]
    name_split: re.Pattern[str]
    name_fillers: frozenset[str]
    skip_fillers: frozenset[str]


@functools.cache
def _vocab(vocabulary: keywords.Vocabulary) -> Vocab:
    section = "maniac"
    by_command = {
        "vote": section,
        "unvote": section,
        "kill": section,
        "skip": section,
        "status": "common",
        "help": "common",
    }
    read = {
        name: {loc: vocabulary.command(sec, name, loc).read for loc in vocabulary.locales}
        for name, sec in by_command.items()
    }
    shown = {name: vocabulary.shown(sec, name) for name, sec in by_command.items()}
    prison = vocabulary.shown(section, "prison")
    help_forms = {
        loc: [
            f"{shown['vote'][loc]} {prison[loc]}" if name == "vote prison" else shown[name][loc]
            for name in _HELP_ORDER
        ]
        for loc in vocabulary.locales
    }
    words = commands.Keywords(
        read, shown, separators=r"[\s:-]+", min_stem=_MIN_STEM, params={"commands": help_forms}
    )
    unvote_verbs: dict[str, str] = {}
    for loc in vocabulary.locales:
        for verb in vocabulary.words(section, "withdraw", loc):
            unvote_verbs.setdefault(stem(verb), loc)
    # Where a vote is sent: prison (M11) or the cell; with a preposition.
    prison_words = keywords.alternation(vocabulary.read(section, "prison"))
    cell_words = keywords.alternation(vocabulary.read(section, "cell"))
    place = (
        rf"(?:{keywords.alternation(vocabulary.words(section, 'place_prepositions'))}\s+)*"
        rf"(?:(?P<prison>{prison_words})|(?P<cell>{cell_words}))"
    )
    # A night number in an order (M3): "ночь 3", "на 3-ю ночь", "night #3", "N3".
    night_word = keywords.alternation(vocabulary.read(section, "night"))
    before = keywords.alternation(vocabulary.words(section, "night_prepositions"))
    night = re.compile(
        rf"(?:(?<![^\W_]){before}\s+)?(?:"
        rf"(?<![^\W_]){night_word}\s*(?:[№#]|[nн](?=\s*\d))?\s*[:.]?\s*(?P<after>\d+){_ORDINAL}"
        rf"|(?<![^\W_])(?P<before>\d+){_ORDINAL}\s*{night_word}"
        r"|(?<![^\W_])[nн](?P<short>\d+)"
        r")(?![^\W_])",
        re.IGNORECASE,
    )
    # A night word left without a number.
    bare = vocabulary.read(section, "night") + vocabulary.words(section, "night_bare")
    fillers = vocabulary.words("common", "and")
    return Vocab(
        words=words,
        vote_stems=words.stems["vote"],
        vote_shown={loc: form.lower() for loc, form in shown["vote"].items()},
        heading_stems=frozenset(stem(w) for w in vocabulary.words(section, "orders_heading")),
        unvote_verbs=unvote_verbs,
        possessives=frozenset(vocabulary.words(section, "possessive")),
        leading_place=re.compile(rf"^{place}(?![^\W\d_])\s*[:,—–-]?\s*", re.IGNORECASE),
        trailing_place=re.compile(rf"[\s,]+{place}\s*$", re.IGNORECASE),
        place_word=re.compile(rf"{prison_words}|{cell_words}"),
        against=frozenset(vocabulary.words(section, "against")),
        night=night,
        bare_night=re.compile(rf"(?<![^\W_]){keywords.alternation(bare)}(?![^\W_])", re.IGNORECASE),
        # The seed's order without a keyword: "1 ночь - Вася", "Ночь 2: пропуск".
        seed_order=re.compile(rf"^(?:{night.pattern})\s*[-—–:]", re.IGNORECASE),
        name_split=re.compile(
            rf"\s*(?:[,;&+]|(?<![^\W_]){keywords.alternation(fillers)}(?![^\W_]))\s*",
            re.IGNORECASE,
        ),
        name_fillers=frozenset(fillers),
        # Words that may follow a skip: "пропуск хода", "skip a turn".
        skip_fillers=frozenset(stem(w) for w in vocabulary.words(section, "skip_fillers")),
    )


def vocab() -> Vocab:
    """This parser's words, from the vocabulary loaded now."""
    return _vocab(keywords.current())


def reserved_word(name: str) -> str | None:
    """The word of a player's ``name`` that a mail reads as part of a command, or None:
    a keyword (``Голос``), a withdrawal (``Снять``), a place of a vote (``Тюрьма``,
    ``Камера``) or a night (``Ночь``). A player so named could not be voted for or
    ordered killed as written (``ГОЛОС Снять`` withdraws a vote), so ``games.yaml``
    refuses him (:class:`pbp.games.maniac.config.ManiacGame`).

    >>> reserved_word("Снять"), reserved_word("Камерон"), reserved_word("Вася")
    ('снять', 'камерон', None)
    """
    v = vocab()
    keyword_stems = frozenset().union(*v.words.stems.values())
    for word in normalize(name):
        if (
            stem(word) in keyword_stems
            or stem(word) in v.unvote_verbs
            or v.place_word.fullmatch(word)
            or v.bare_night.fullmatch(word)
        ):
            return word
    return None


def read_keyword(line: str) -> tuple[str, str] | None:
    """``(command, rest)`` for a command line (``line`` cleaned and folded), None for
    chat. Commands: ``vote``, ``unvote``, ``kill``, ``skip``, ``status``, ``help``;
    ``rest`` follows the keyword (and its colon).

    :raises InvalidMove: ``unknown_command`` when the first word (or, after a
        withdrawal verb, the second) resembles a keyword without being one of its forms.
    """
    v = vocab()
    lead = v.words.lead(line)
    if lead is None:
        return None
    found: tuple[str, int] | None
    if lead.second and lead.first_stem in v.unvote_verbs and stem(lead.second) in v.vote_stems:
        found = ("unvote", lead.match.end())
    elif lead.second and lead.first in v.possessives and stem(lead.second) in v.vote_stems:
        found = ("vote", lead.match.end())  # "Мой голос: Петя"
    else:
        found = v.words.single(lead)
    if found is not None:
        command = v.words.command(line, *found)
        if (
            command is not None
            and lead.first_stem in v.heading_stems
            and not command[1].strip(TRAILING)
        ):
            return None  # "Заказы:" heads the seed's orders on the next lines
        return command
    misspelt = lead.second and lead.first_stem in v.unvote_verbs
    if misspelt and closest_keyword(lead.second, tuple(v.vote_shown.values())):
        v.words.refuse(line, lead, "unvote", v.unvote_verbs[lead.first_stem])
    v.words.refuse(line, lead)
    return None


def is_command(line: str) -> bool:
    """True when ``line`` (cleaned, folded) would be read as a command or refused as one."""
    if vocab().seed_order.match(line):
        return True
    try:
        return read_keyword(line) is not None
    except MoveError:
        return True
