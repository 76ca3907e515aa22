"""What every game's ``games.yaml`` model shares: the base model, a player, and
:class:`GameBase`, built of the checked values of :mod:`pbp.games.core.configvalues`
(addresses, time zones, wall-clock times, hours) and :mod:`pbp.games.core.playernames`.

A game package derives its model from :class:`GameBase` and names it as its kind's
``config_model`` (:mod:`pbp.games.core.kind`); :func:`pbp.config.loading.load_config`
reads each game of ``games.yaml`` with the model of its ``kind``
(:mod:`pbp.games.core.registry`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from pbp.games.core.configvalues import EmailAddress, Hours, Seed, TimeZoneName
from pbp.games.core.playernames import (
    Name,
    NameProblem,
    hidden_character,
    name_problem,
    seat_name_problem,
)
from pbp.games.core.yamlmarks import Found
from pbp.text import keywords
from pbp.text.names import normalize

_GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]*\Z")


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
    hidden = hidden_character(value)
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
    timezone: TimeZoneName
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
        """The keywords sections whose commands a mail of this kind's games reads
        (:func:`pbp.text.keywords.name_words`): the common ones (STATUS, HELP) and the
        GM's levers; a game kind adds its own (``"maniac"``, ``"cluedo"``: a
        :class:`pbp.text.keywords.Section` its package declares, and its model's module
        imports)."""
        return ("common", "gm")

    def player_problems(self, least: int, rule: str) -> Found:
        """What is wrong with :attr:`players` for any game (:func:`players_problems`):
        fewer than ``least`` (``rule`` names the game's rule, e.g. ``"M1"``), a name or
        address twice, a name that reads as no word in a player's mail, the GM's seat
        name, a player at the GM's address; and a name that holds a command word of the
        game's ``locale`` (:func:`~pbp.games.core.playernames.command_word`: the commands of
        :meth:`keyword_sections`, the words that part names, as «ДЛЯ» in ``Вася ДЛЯ
        Петя``). Each game's model calls it from its
        ``model_validator(mode="after")`` and raises :func:`pbp.games.core.yamlmarks.checks_error`
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
        rules of every name (:func:`~pbp.games.core.playernames.name_problem`), of a
        player's (:func:`~pbp.games.core.playernames.seat_name_problem`, this game's
        command words) and of this kind's (:meth:`reserved_name_problem`), as ``pbp
        check`` holds ``games.yaml`` to them.
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
    not compared: :func:`pbp.config.loading.load_config` also runs this on a game whose
    fields did not all pass, so that ``pbp check`` lists every problem at once); ``gm``
    None likewise; ``words``: the game's command words (:meth:`GameBase.player_words`),
    a name holding one refused (:func:`~pbp.games.core.playernames.command_word`). Paths
    are relative to the game."""
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
