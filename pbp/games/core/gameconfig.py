"""What every game's ``games.yaml`` model shares: the checked values (addresses, names,
time zones, wall-clock times, hours), the base model, a player, and :class:`GameBase`.

A game package derives its model from :class:`GameBase` and names it as its kind's
``config_model`` (:mod:`pbp.games.core.kind`); :mod:`pbp.config.model` reads each game of
``games.yaml`` with the model of its ``kind`` (:mod:`pbp.games.core.registry`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from pbp.config.yamlmarks import Found, did_you_mean
from pbp.mail.read import address
from pbp.mail.read.quotemarks import quote_marker
from pbp.text import keywords
from pbp.text.inert import strip_controls
from pbp.text.names import INVISIBLE, normalize

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EMAIL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*@{_LABEL}(?:\.{_LABEL})*\Z")
_GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]*\Z")
_HHMM = re.compile(r"([0-9]{1,2}):([0-9]{2})\Z")  # ASCII digits: not «２２:３０»


#: Local parts of the addresses bounces come from (RFC 5321 §4.5.5; RFC 2142): mail
#: from them is always automatic, never a move, so no player or GM may have one.
AUTOMATIC_LOCAL_PARTS = frozenset({"mailer-daemon", "postmaster"})

#: The seat name of the GM's own token in the store (:mod:`pbp.store` keeps it beside
#: the players' seats), so no player may be called so (:meth:`GameBase.player_problems`).
GM_SEAT = "@gm"


#: Why an address with a character that is not ASCII cannot be registered
#: (:func:`address_problem`): the rule, said as it is.
NOT_ASCII = (
    "an address pbp registers must be ASCII (name@domain in Latin letters, digits and "
    "signs such as . _ - +); mail from an address in other letters is a stranger's"
)


def address_problem(value: str) -> str | None:
    """Why ``value`` cannot be a player's, the GM's or pbp's address, or None: a
    character that is not ASCII (:data:`NOT_ASCII`: pbp registers ASCII addresses only,
    so that a registered address reaches every server, SMTPUTF8 or not, RFC 6531); not
    an addr-spec in dot-atom form (RFC 5322 §3.4.1) with a host-name domain (RFC 5321
    §4.1.2); a domain without a dot (``vasya@localhost``: mail from outside never
    reaches it); a bounce sender (:data:`AUTOMATIC_LOCAL_PARTS`); one that a From is
    not read as, nor answered at (:func:`pbp.mail.read.address.address_problem`: a
    special-use domain such as ``.local``, a top-level domain that does not end in a
    letter, a part too long).

    >>> address_problem("vasya@example.test"), address_problem("vasya@localhost")
    (None, 'its domain has no dot: mail cannot reach it')
    >>> address_problem("пётр@example.test") == NOT_ASCII
    True
    """
    if not value.isascii():
        return NOT_ASCII
    if not _EMAIL.match(value):
        return "not a valid email address"
    local, _at, domain = value.rpartition("@")
    if "." not in domain:
        return "its domain has no dot: mail cannot reach it"
    if local.lower() in AUTOMATIC_LOCAL_PARTS:
        return f"{local}@ is where bounces come from: its mail is never read as moves"
    problem = address.address_problem(value)
    if problem is not None:
        return f"pbp would neither read mail from it nor answer it: {problem}"
    return None


def is_email(value: str) -> bool:
    """Whether ``value`` is an address as ``games.yaml`` accepts one
    (:func:`address_problem`)."""
    return address_problem(value) is None


def _email(value: str) -> str:
    """``value`` when :func:`address_problem` finds nothing wrong with it."""
    problem = address_problem(value)
    if problem == "not a valid email address":
        raise ValueError(f"value is not a valid email address: {value!r}")
    if problem is not None:
        raise ValueError(f"address {value!r}: {problem}")
    return value


#: The longest time zone name ``games.yaml`` takes (the longest IANA name has 32
#: characters, ``America/Argentina/ComodRivadavia``): a longer one is never looked up.
TIMEZONE_LIMIT = 64


def _timezone(value: str) -> str:
    """``value`` when it names an IANA time zone.

    :raises ValueError: longer than :data:`TIMEZONE_LIMIT` characters (never looked
        up: the file name would be too long), or no zone (a directory such as
        ``Europe``, a path, unknown), with the closest name.
    """
    if len(value) > TIMEZONE_LIMIT:
        raise ValueError(
            f"a time zone name of {len(value):,} characters: IANA names have at most "
            f"{TIMEZONE_LIMIT} (such as 'Europe/Moscow')"
        )
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        zones = sorted(available_timezones())
        by_lower = {z.lower(): z for z in zones}
        hint = (
            f"; did you mean {by_lower[value.lower()]!r}?"
            if value.lower() in by_lower
            else did_you_mean(value, zones)
        )
        raise ValueError(f"unknown IANA time zone {value!r}{hint}") from None
    return value


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
    :meth:`GameBase.reserved_name_problem`)."""

    why: str
    params: Mapping[str, str | int]
    message: str


def name_problem(value: str) -> NameProblem | None:
    """Why ``value`` cannot be a player's or a card's name, or None: empty, a comma or
    a line break (commands separate by commas), edge spaces; over :data:`NAME_LIMIT`
    characters; an invisible or control character (:func:`_hidden`); not in Unicode
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
    hidden = _hidden(value)
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
        (:meth:`GameBase.player_problems`)."""
    problem = name_problem(value)
    if problem is not None:
        raise ValueError(problem.message)
    return value


def seat_name_problem(name: str, words: Sequence[str], game_id: str) -> NameProblem | None:
    """Why ``name``, a name :func:`name_problem` allows, cannot be a player's in game
    ``game_id``, or None: pbp's own name for the GM's seat (:data:`GM_SEAT`); no word
    in a player's mail (markup and punctuation aside); a word of ``words``, the game's command words
    (:meth:`GameBase.player_words`, :func:`command_word`).

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


def _hidden(value: str) -> str | None:
    """The first character of ``value`` that a text would not show as written: a control
    or bidirectional character (:func:`pbp.text.inert.strip_controls` removes it: a fairness
    string that held it would not be the one shown), a tab, or a character a player's
    mail reads as nothing or as a plain space (:data:`pbp.text.names.INVISIBLE`: a
    direction mark, a zero-width space, a no-break space), or None.

    >>> _hidden("Маша\u200f"), _hidden("Анна\u202eМария"), _hidden("Анна-Мария") is None
    ('\u200f', '\u202e', True)
    """
    for ch in value:
        if ch == "\t" or ord(ch) in INVISIBLE or strip_controls(ch) != ch:
            return ch
    return None


EmailAddress = Annotated[str, AfterValidator(_email)]
Name = Annotated[str, AfterValidator(_name)]

#: The most hours any ``*_hours`` setting takes: 366 days (a longer one is a slip,
#: and ``1e300`` would overflow every date it is added to).
MAX_HOURS = 24 * 366

#: The fewest hours a turn or an answer takes (:data:`PositiveHours`): one minute.
MIN_HOURS = 1 / 60


def _hours(value: float) -> float:
    if value > MAX_HOURS:
        raise ValueError(f"{value:g} hours is more than {MAX_HOURS} (366 days): give fewer")
    return value


def _positive_hours(value: float) -> float:
    if value < MIN_HOURS:
        raise ValueError(f"{value:g} hours is less than a minute (1/60 hour): give more")
    return _hours(value)


#: Hours from 0 to :data:`MAX_HOURS` (a reminder, a grace).
Hours = Annotated[float, Field(ge=0, allow_inf_nan=False), AfterValidator(_hours)]

#: The largest seed (the store keeps it as a 64-bit SQLite integer).
MAX_SEED = 2**63 - 1


def _seed(value: int) -> int:
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"seed {value}: give a whole number from 0 to {MAX_SEED} (2**63 - 1)")
    return value


#: A game's ``seed``: 0 to :data:`MAX_SEED`.
Seed = Annotated[int, AfterValidator(_seed)]


def _hhmm(value: Any) -> str:
    m = _HHMM.match(value) if isinstance(value, str) else None
    if not m or int(m[1]) > 23 or int(m[2]) > 59:
        digits = " in the digits 0-9" if isinstance(value, str) and not value.isascii() else ""
        raise ValueError(f'expected a time "HH:MM"{digits} such as "22:30", got {value!r}')
    return f"{int(m[1]):02d}:{m[2]}"


#: A local wall-clock time ``"HH:MM"`` (zero-padded when read: ``9:05`` → ``"09:05"``).
WallClock = Annotated[str, BeforeValidator(_hhmm)]
#: Hours from a minute (:data:`MIN_HOURS`) to :data:`MAX_HOURS` (a turn, an answer).
PositiveHours = Annotated[float, Field(gt=0, allow_inf_nan=False), AfterValidator(_positive_hours)]


def wall(hhmm: str) -> time:
    """A checked ``"HH:MM"`` (:data:`WallClock`) as a naive wall-clock time.

    >>> wall("22:30")
    datetime.time(22, 30)
    """
    hours, minutes = hhmm.split(":")
    return time(int(hours), int(minutes))


class ConfigModel(BaseModel):
    """A part of ``games.yaml``: unknown keys refused, frozen once read."""

    model_config = ConfigDict(extra="forbid", frozen=True)


#: ``gender:`` of a player in games.yaml → the grammatical gender texts decline by.
GENDERS = {"m": "masc", "f": "femn"}


class Player(ConfigModel):
    """One player: forum ``name`` (as used in moves), registered ``email``, optional
    role (``character``) and grammatical ``gender`` (``m`` or ``f``), which Russian
    texts follow (rule P2: "Маша исключена"); without it, a name's gender is the
    dictionary's when it is sure (:func:`pbp.text.morph.gender_of`), else the texts
    use sentences that need none."""

    name: Name
    email: EmailAddress
    character: str | None = None
    gender: Literal["m", "f"] | None = None


#: ``post_format:`` of a game in games.yaml → the formats of its paste-ready mails, in
#: the order they are mailed (:meth:`pbp.app.mailer.Mailer.gm_paste`).
POST_FORMATS: dict[str, tuple[Literal["bbcode", "markdown"], ...]] = {
    "bbcode": ("bbcode",),
    "markdown": ("markdown",),
    "both": ("bbcode", "markdown"),
}

#: The longest game ``title``: it heads every Subject pbp sends (``[Маньяк 2] Re: ход``).
TITLE_LIMIT = 60


def _title(value: str) -> str:
    """A game's ``title``: one line of at most :data:`TITLE_LIMIT` characters, without
    square brackets (a Subject's ``[title]`` tag must not look like, or hide, the
    ``[pbp-TOKEN]`` tag beside it), edge spaces or invisible characters."""
    if not value.strip() or value != value.strip() or re.search(r"[\[\]\n\r]", value):
        raise ValueError(
            f"title {value!r}: one line, non-empty, without square brackets or edge spaces"
        )
    if len(value) > TITLE_LIMIT:
        raise ValueError(f"title {value[:20]!r}…: at most {TITLE_LIMIT} characters")
    hidden = _hidden(value)
    if hidden is not None:
        raise ValueError(
            f"title {value!r} holds the invisible or control character U+{ord(hidden):04X}:"
            " remove it"
        )
    return value


class GameBase(ConfigModel):
    """What every game kind shares. ``start`` is local time in ``timezone`` (see :attr:`start_at`);
    ``remind_hours_before``: hours before each deadline for reminders, None for none;
    ``catch_up_limit``: the most deadlines pbp passes at once after an outage (rule P3,
    :attr:`catch_up_deadlines`; more pause the game instead), None for those of one game
    day (:attr:`deadlines_per_day`).

    ``title``: the game's name in every Subject and first line pbp mails (default the
    ``id``, :attr:`display_title`); ``post_format``: the format(s) of the posts mailed to
    the GM to paste (:attr:`post_formats`); ``gm_mail``: ``each`` mails the GM every post
    and GM-only fact as it comes, ``per_deadline`` one paste-ready mail (per format) and
    one GM-only mail per deadline (:meth:`pbp.app.mailer.Mailer.deadline`)."""

    id: str
    title: Annotated[str, AfterValidator(_title)] | None = None
    post_format: Literal["bbcode", "markdown", "both"] = "bbcode"
    gm_mail: Literal["each", "per_deadline"] = "each"
    #: The name of the game's kind (each kind's model narrows it to its own name).
    kind: str
    locale: Literal["ru", "en"]
    timezone: Annotated[str, AfterValidator(_timezone)]
    gm: EmailAddress
    seed: Seed | None = None
    start: datetime | None = None
    remind_hours_before: Hours | None = None
    catch_up_limit: Annotated[int, Field(ge=1)] | None = None
    players: list[Player]

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _GAME_ID.match(value):
            raise ValueError(
                f"game id {value!r}: lower-case letters, digits and '-', not first '-'"
            )
        return value

    @field_validator("start")
    @classmethod
    def _naive(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            raise ValueError(
                "give the local time without a UTC offset (it is in the game's timezone)"
            )
        return value

    @property
    def display_title(self) -> str:
        """The game's name in its mails: ``title``, else the ``id`` (``"maniac-1"``)."""
        return self.title or self.id

    @property
    def post_formats(self) -> tuple[Literal["bbcode", "markdown"], ...]:
        """The formats of the posts mailed to the GM, in order: ``("bbcode",)``,
        ``("markdown",)`` or both."""
        return POST_FORMATS[self.post_format]

    @property
    def zone(self) -> ZoneInfo:
        """The game's time zone."""
        return ZoneInfo(self.timezone)

    @property
    def start_at(self) -> datetime | None:
        """``start`` as an aware datetime in :attr:`zone` (``2026-12-01 20:00+03:00``), or None."""
        return None if self.start is None else self.start.replace(tzinfo=self.zone)

    @property
    def remind_before(self) -> timedelta | None:
        """``remind_hours_before`` as a timedelta, None when no reminders are sent."""
        h = self.remind_hours_before
        return None if h is None else timedelta(hours=h)

    @property
    def deadlines_per_day(self) -> int:
        """The most deadlines one game day of this kind holds (1: a day close); a kind
        with more (a night's end, turns) says so in its model."""
        return 1

    @property
    def catch_up_deadlines(self) -> int:
        """The most deadlines pbp passes at once after an outage (rule P3): the
        ``catch_up_limit`` given, else :attr:`deadlines_per_day`."""
        return self.catch_up_limit if self.catch_up_limit is not None else self.deadlines_per_day

    def player_names(self) -> list[str]:
        """Player names in configured order (the turn order where a game has one)."""
        return [p.name for p in self.players]

    def genders(self) -> dict[str, str]:
        """The genders ``games.yaml`` gives, as texts take them: ``{name: "masc" |
        "femn"}`` (pymorphy3's names, :mod:`pbp.text.morph`); a player without one is
        left out."""
        return {p.name: GENDERS[p.gender] for p in self.players if p.gender is not None}

    def check_warnings(self) -> list[str]:
        """What ``pbp check`` tells the GM of this game without refusing it, one English
        line each (a Cluedo card the texts cannot say, rule P2:
        :meth:`pbp.games.cluedo.config.CluedoGame.check_warnings`); default none."""
        return []

    @classmethod
    def players_least(cls) -> tuple[int, str]:
        """The fewest players of a game of this kind and the rule that says so
        (``(3, "C1")``), as its model validator passes them to :meth:`player_problems`;
        default none. :func:`pbp.config.loading.load_config` checks them too where the model
        validator did not run (a field failed)."""
        return 0, ""

    @classmethod
    def keyword_sections(cls) -> tuple[str, ...]:
        """The sections of ``keywords.yaml`` whose commands a mail of this kind's games
        reads (:func:`pbp.text.keywords.name_words`): the common ones (STATUS, HELP) and the
        GM's levers; a game kind adds its own (``"maniac"``, ``"cluedo"``)."""
        return ("common", "gm")

    def player_problems(self, least: int, rule: str) -> Found:
        """What is wrong with :attr:`players` for any game (:func:`players_problems`):
        fewer than ``least`` (``rule`` names the game's rule, e.g. ``"M1"``), a name or
        address twice, a name that reads as no word in a player's mail, the GM's seat
        name, a player at the GM's address; and a name that holds a command word of the
        game's ``locale`` (:func:`command_word`: the commands of
        :meth:`keyword_sections`, the words that part names, as «ДЛЯ» in ``Вася ДЛЯ
        Петя``). Each game's model calls it from its
        ``model_validator(mode="after")`` and raises :func:`pbp.config.yamlmarks.checks_error`
        with it and its own findings (``pbp check`` lists them all, each at its line):
        ``[(("players", 1, "email"), "duplicate email …")]``."""
        players = [(p.name, p.email) for p in self.players]
        words = self.player_words(self.locale)
        return players_problems(self.id, self.gm, players, least, rule, words=words)

    @classmethod
    def player_words(cls, locale: str) -> tuple[str, ...]:
        """The words no player's name of a game of this kind in ``locale`` may hold
        (:func:`pbp.text.keywords.name_words` of :meth:`keyword_sections`, with the words that
        part names), for :func:`players_problems`.

        :raises KeyError: ``locale`` has no keywords."""
        return keywords.name_words(locale, cls.keyword_sections(), separators=True)

    @classmethod
    def reserved_name_problem(cls, name: str) -> NameProblem | None:
        """Why a game of this kind's own reading refuses ``name`` as a player's, beyond
        its command words (why ``reserved``: Maniac's ``Снять``, as ``ГОЛОС Снять``
        withdraws a vote), or None; the model validator lists it too. Default none."""
        return None

    def player_name_problem(self, name: str) -> NameProblem | None:
        """Why ``name`` cannot be a player's in this game, the first found, or None: the
        rules of every name (:func:`name_problem`), of a player's
        (:func:`seat_name_problem`, this game's command words) and of this kind's
        (:meth:`reserved_name_problem`), as ``pbp check`` holds ``games.yaml`` to them.
        A substitute's name is held to them too (:meth:`pbp.app.gm.GmDesk.substitute`)."""
        return (
            name_problem(name)
            or seat_name_problem(name, self.player_words(self.locale), self.id)
            or self.reserved_name_problem(name)
        )


def players_problems(
    game_id: str,
    gm: str | None,
    players: Sequence[tuple[str | None, str | None]],
    least: int,
    rule: str,
    *,
    words: Sequence[str] = (),
) -> Found:
    """:meth:`GameBase.player_problems` on plain values: ``players`` as ``(name,
    email)``, a value None where it is missing or has a problem of its own (then it is
    not compared: :func:`pbp.config.loading.load_config` also runs this on a game whose fields
    did not all pass, so that ``pbp check`` lists every problem at once); ``gm`` None
    likewise; ``words``: the game's command words (:meth:`GameBase.player_words`), a
    name holding one refused (:func:`command_word`). Paths are relative to the game."""
    found: Found = []
    if len(players) < least:
        found.append((("players",), f"rule {rule}: at least {least} players, got {len(players)}"))
    first: dict[tuple[str, str], int] = {}
    for i, (name, email) in enumerate(players):
        # Names as players' mail reads them (case, ё, look-alike letters, markup
        # and edge punctuation aside): two seats read alike could never be named.
        read = " ".join(normalize(name)) if name is not None else None
        problem = seat_name_problem(name, words, game_id) if name is not None else None
        if problem is not None:
            found.append((("players", i, "name"), problem.message))
        for field, value in (("name", read), ("email", email.lower() if email else None)):
            if value is None:
                continue
            if (field, value) in first:
                also = first[(field, value)]
                other = players[also][0]
                if field == "email":
                    message = f"duplicate email {email!r} (also players[{also}])"
                elif other == name:
                    message = f"duplicate name {name!r} (also players[{also}])"
                else:
                    message = (
                        f"name {name!r} reads as {other!r} (players[{also}]) in a "
                        "player's mail: give one of them another name"
                    )
                found.append((("players", i, field), message))
            first.setdefault((field, value), i)
        if email is not None and gm is not None and email.lower() == gm.lower():
            message = f"{email!r} is the GM's address: a player needs one of his own"
            found.append((("players", i, "email"), message))
    return found
