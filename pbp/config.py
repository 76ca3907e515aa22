"""The configuration file ``games.yaml``: pydantic models, loading, the checks of ``pbp check``.

Shape (see the bundled ``games.yaml`` for a commented example)::

    mail:
      address: gm@example.test          # the daemon's address
      personal_address: plus            # plus | subject_tag
      inbox:  {maildir: ./mail/inbox}   # or {imap: {host, port, username, password_env,
                                        #            folder, tls}}
      outbox: {maildir: ./mail/outbox}  # or {smtp: {host, port, username, password_env, tls}}
      max_message_size: 2000000         # bytes; a larger mail is not read (its headers kept)
    store: ./pbp.sqlite3
    games:
      - {id: exler-1, kind: cluedo_days, ...}

A game is a discriminated union on ``kind``: adding a game kind means adding one
model class derived from :class:`GameBase` to the union :data:`Game`.

:func:`load_config` reports every problem at once, each with the file, the YAML path
and the line (``games.yaml:23: games[0].players[2].email: value is not a valid email
address: 'netashka.example.test'``), and raises :class:`ConfigError`.

The YAML is read with YAML 1.2 scalars: only ``true``/``false`` are booleans, an
unquoted ``22:30`` stays the text "22:30" (YAML 1.1 would read the number 1350), and
dates stay text (pydantic parses them). Secrets never enter the configuration: a
password is named by the environment variable that holds it (``password_env``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal, Union
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pbp.engine.cluedo import CATEGORIES, CardCountError, Cards, Deal, cards_for_players
from pbp.mail.base import DEFAULT_MAX_MESSAGE_SIZE
from pbp.providers import provider as find_provider
from pbp.yamlmarks import (
    Found,
    YamlPath,
    YamlSyntaxError,
    checks_error,
    did_you_mean,
    explain,
    load_marked,
    show_path,
)

# ---------------------------------------------------------------- problems


@dataclass(frozen=True)
class Problem:
    """One problem in a configuration file.

    ``path`` is the YAML path (``"games[0].players[2].email"``; ``""`` for the whole
    file); ``line`` is 1-based, None when unknown. ``str()`` gives
    ``"games.yaml:23: games[0].players[2].email: value is not a valid email address: 'x'"``.
    """

    file: str
    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class ConfigError(Exception):
    """The configuration cannot be used; ``problems`` lists every problem found, in file order."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


# ---------------------------------------------------------------- value checks

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EMAIL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*@{_LABEL}(?:\.{_LABEL})*\Z")
_GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]*\Z")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HHMM = re.compile(r"(\d{1,2}):(\d{2})\Z")


#: Local parts of the addresses bounces come from (RFC 5321 §4.5.5; RFC 2142): mail
#: from them is always automatic, never a move, so no player or GM may have one.
AUTOMATIC_LOCAL_PARTS = frozenset({"mailer-daemon", "postmaster"})


def address_problem(value: str) -> str | None:
    """Why ``value`` cannot be a player's, the GM's or pbp's address, or None: not an
    addr-spec in dot-atom form (RFC 5322 §3.4.1) with a host-name domain (RFC 5321
    §4.1.2); a domain without a dot (``vasya@localhost``: mail from outside never
    reaches it); a bounce sender (:data:`AUTOMATIC_LOCAL_PARTS`).

    >>> address_problem("vasya@example.test"), address_problem("vasya@localhost")
    (None, 'its domain has no dot: mail cannot reach it')
    """
    if not _EMAIL.match(value):
        return "not a valid email address"
    local, _at, domain = value.rpartition("@")
    if "." not in domain:
        return "its domain has no dot: mail cannot reach it"
    if local.lower() in AUTOMATIC_LOCAL_PARTS:
        return f"{local}@ is where bounces come from: its mail is never read as moves"
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


def _timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        zones = sorted(available_timezones())
        by_lower = {z.lower(): z for z in zones}
        hint = (
            f"; did you mean {by_lower[value.lower()]!r}?"
            if value.lower() in by_lower
            else did_you_mean(value, zones)
        )
        raise ValueError(f"unknown IANA time zone {value!r}{hint}") from None
    return value


def _env_name(value: str) -> str:
    if not _ENV_NAME.match(value):
        raise ValueError(f"{value!r} is not an environment variable name (letters, digits, _)")
    return value


def _name(value: str) -> str:
    """Player and card names: non-empty, no comma or line break (commands separate by commas)."""
    if not value.strip() or value != value.strip() or re.search(r"[,\n\r]", value):
        raise ValueError(
            f"{value!r}: a name is non-empty, without commas, line breaks or edge spaces"
        )
    return value


def _resolve(value: Path, info: ValidationInfo) -> Path:
    """A relative path is taken relative to the configuration file's directory."""
    base = (info.context or {}).get("base_dir")
    return value if value.is_absolute() or base is None else Path(base) / value


EmailAddress = Annotated[str, AfterValidator(_email)]
Name = Annotated[str, AfterValidator(_name)]
EnvName = Annotated[str, AfterValidator(_env_name)]
Hours = Annotated[float, Field(ge=0, allow_inf_nan=False)]


def _hhmm(value: Any) -> str:
    m = _HHMM.match(value) if isinstance(value, str) else None
    if not m or int(m[1]) > 23 or int(m[2]) > 59:
        raise ValueError(f'expected a time "HH:MM" such as "22:30", got {value!r}')
    return f"{int(m[1]):02d}:{m[2]}"


#: A local wall-clock time ``"HH:MM"`` (zero-padded when read: ``9:05`` → ``"09:05"``).
WallClock = Annotated[str, BeforeValidator(_hhmm)]
PositiveHours = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Port = Annotated[int, Field(ge=1, le=65535)]
Tls = Literal["none", "starttls", "ssl"]
RelativePath = Annotated[Path, AfterValidator(_resolve)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------- mail


class ImapSettings(_Model):
    """``inbox: {imap: {...}}``; the password is read from the environment variable
    ``password_env``. ``tls``: ``none``, ``starttls`` (RFC 2595) or ``ssl`` (implicit TLS).
    ``kept_folder``: where a copy of every message set aside for the GM goes."""

    host: str
    port: Port
    username: str
    password_env: EnvName
    folder: str = "INBOX"
    kept_folder: str = "pbp-kept"
    tls: Tls

    def password(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The password from ``environ`` (default ``os.environ``); None when unset."""
        return (os.environ if environ is None else environ).get(self.password_env)


class SmtpSettings(_Model):
    """``outbox: {smtp: {...}}``; ``username`` and ``password_env`` only where the server
    wants a login (AUTH, RFC 4954). ``tls``: ``none``, ``starttls`` (RFC 3207) or ``ssl``."""

    host: str
    port: Port
    username: str | None = None
    password_env: EnvName | None = None
    tls: Tls

    def password(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The password from ``environ`` (default ``os.environ``); None when unset or not used."""
        if self.password_env is None:
            return None
        return (os.environ if environ is None else environ).get(self.password_env)

    @model_validator(mode="after")
    def _login_pair(self) -> SmtpSettings:
        if (self.username is None) != (self.password_env is None):
            raise ValueError("give both username and password_env, or neither")
        return self


def _exactly_one(model: BaseModel, names: tuple[str, str]) -> None:
    given = [n for n in names if getattr(model, n) is not None]
    if len(given) != 1:
        got = "both" if given else "neither"
        raise ValueError(f"give exactly one of {names[0]}, {names[1]} (got {got})")


class InboxSettings(_Model):
    """Where moves come from: exactly one of ``maildir`` (a local Maildir) or ``imap``."""

    maildir: RelativePath | None = None
    imap: ImapSettings | None = None

    @model_validator(mode="after")
    def _one(self) -> InboxSettings:
        _exactly_one(self, ("maildir", "imap"))
        return self


class OutboxSettings(_Model):
    """Where outgoing mail goes: exactly one of ``maildir`` or ``smtp``."""

    maildir: RelativePath | None = None
    smtp: SmtpSettings | None = None

    @model_validator(mode="after")
    def _one(self) -> OutboxSettings:
        _exactly_one(self, ("maildir", "smtp"))
        return self


class MailSettings(_Model):
    """The daemon's mailbox. ``personal_address``: ``plus`` (``gm+TOKEN@host``) or ``subject_tag``
    (``[pbp-TOKEN]`` in the Subject, for providers without plus-addressing).
    ``max_message_size``: bytes; of a larger incoming mail the inbox delivers only its
    header section (:attr:`pbp.mail.base.RawMessage.truncated`)."""

    address: EmailAddress
    #: A provider of :data:`pbp.providers.PROVIDERS` (``yandex``, ``gmail``, ``mailru``):
    #: fills ``inbox`` (IMAP), ``outbox`` (SMTP) and ``personal_address`` with its
    #: settings, logging in as ``username`` (default: ``address``) with the password in
    #: the environment variable ``password_env``; what is given explicitly wins.
    provider: str | None = None
    username: str | None = None
    password_env: EnvName | None = None
    personal_address: Literal["plus", "subject_tag"] = "plus"
    inbox: InboxSettings
    outbox: OutboxSettings
    max_message_size: int = Field(default=DEFAULT_MAX_MESSAGE_SIZE, gt=0, strict=True)
    #: CPU time one message's body may take to read and parse, seconds
    #: (:mod:`pbp.budget`, :mod:`pbp.reader`); over it, the mail is kept as unreadable.
    cpu_seconds_per_message: Annotated[float, Field(gt=0, le=60)] = 3.0
    #: The authserv-id (RFC 8601 §2.5) of the server that receives this mailbox's mail
    #: and adds ``Authentication-Results`` (``mx.example.test``); None: no such server.
    #: Where set, players' moves need an authenticated From and a GM's mail that passed
    #: DMARC there needs no confirmation (:mod:`pbp.authcheck`).
    trusted_authserv_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9.-]+$")
    #: Answers to one address in an hour (counted from the hour's first answer);
    #: beyond them one "slow down" answer, then one summary after the hour.
    max_answers_per_hour: Annotated[int, Field(ge=1, le=10_000)] = 30
    #: The local hour (in the zone of the GM's first game) of the daily GM digest.
    digest_hour: Annotated[int, Field(ge=0, le=23)] = 9

    @model_validator(mode="before")
    @classmethod
    def _provider(cls, data: Any) -> Any:
        """Fill ``inbox``, ``outbox`` and ``personal_address`` from ``provider``; keys
        given under ``inbox: {imap: …}`` or ``outbox: {smtp: …}`` override the preset's."""
        if not isinstance(data, dict) or data.get("provider") is None:
            return data
        preset = find_provider(str(data["provider"]))
        if data.get("password_env") is None:
            raise ValueError(
                f"provider {data['provider']}: give password_env, the name of the environment "
                "variable that holds the mailbox's (app) password"
            )
        login = {
            "username": data.get("username") or data.get("address"),
            "password_env": data["password_env"],
        }
        filled = dict(data)
        for key, protocol, (host, port, tls) in (
            ("inbox", "imap", preset.imap),
            ("outbox", "smtp", preset.smtp),
        ):
            given = filled.get(key)
            if given is None:
                filled[key] = {protocol: {"host": host, "port": port, "tls": tls, **login}}
            elif isinstance(given, dict) and isinstance(given.get(protocol), dict):
                preset_fields = {"host": host, "port": port, "tls": tls, **login}
                filled[key] = {**given, protocol: {**preset_fields, **given[protocol]}}
        filled.setdefault("personal_address", preset.personal_address)
        return filled

    @model_validator(mode="after")
    def _plus(self) -> MailSettings:
        if self.personal_address == "plus" and "+" in self.address.split("@")[0]:
            raise ValueError(f"address {self.address!r} already has a '+': plus cannot add a token")
        return self


# ---------------------------------------------------------------- games


class Player(_Model):
    """One player: forum ``name`` (as used in moves), registered ``email``, optional role."""

    name: Name
    email: EmailAddress
    character: str | None = None


class GameBase(_Model):
    """What every game kind shares. ``start`` is local time in ``timezone`` (see :attr:`start_at`);
    ``remind_hours_before``: hours before each deadline for reminders, None for none."""

    id: str
    locale: Literal["ru", "en"]
    timezone: Annotated[str, AfterValidator(_timezone)]
    gm: EmailAddress
    seed: int | None = None
    start: datetime | None = None
    remind_hours_before: Hours | None = None
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

    def player_names(self) -> list[str]:
        """Player names in configured order (the turn order where a game has one)."""
        return [p.name for p in self.players]

    def _player_problems(self, least: int, rule: str) -> Found:
        found: Found = []
        if len(self.players) < least:
            found.append(
                (("players",), f"rule {rule}: at least {least} players, got {len(self.players)}")
            )
        first: dict[tuple[str, str], int] = {}
        for i, p in enumerate(self.players):
            for field, value in (("name", p.name), ("email", p.email.lower())):
                if (field, value) in first:
                    shown = p.name if field == "name" else p.email
                    also = first[(field, value)]
                    message = f"duplicate {field} {shown!r} (also players[{also}])"
                    found.append((("players", i, field), message))
                first.setdefault((field, value), i)
            if p.email.lower() == self.gm.lower():
                message = f"{p.email!r} is the GM's address: a player needs one of his own"
                found.append((("players", i, "email"), message))
        return found


class Decks(_Model):
    """The three decks in order; rule C1 drops from the bottom of each."""

    suspects: list[Name] = Field(min_length=1)
    weapons: list[Name] = Field(min_length=1)
    rooms: list[Name] = Field(min_length=1)


class FixedDeal(_Model):
    """A deal given in the config: ``solution`` (suspect, weapon, room) and a hand per player."""

    solution: tuple[str, str, str]
    hands: dict[str, list[str]]


class CluedoDaysRules(_Model):
    """Overrides of the RULES.md defaults (rules C6, D2, D6)."""

    suggestions_per_day: int = Field(default=3, ge=1)
    max_per_addressee_per_day: int = Field(default=3, ge=1)
    answer_grace_hours: Hours = 0.0
    publish_wrong_accusations: bool = False

    @property
    def answer_grace(self) -> timedelta:
        """``answer_grace_hours`` as a timedelta (rule D6)."""
        return timedelta(hours=self.answer_grace_hours)


class CluedoGame(GameBase):
    """What both Cluedo kinds share: the decks (rule C1) and an optional fixed deal (C2)."""

    cards: Decks
    deal: FixedDeal | None = None

    def to_cards(self) -> Cards:
        """The cards in play after rule C1's drop.

        :raises CardCountError: the decks cannot come to 3M+3 (never after :func:`load_config`).
        """
        d = self.cards
        return cards_for_players(d.suspects, d.weapons, d.rooms, len(self.players))

    def to_deal(self) -> Deal | None:
        """The fixed deal from the config (rule C2 checked by :func:`load_config`), or None."""
        if self.deal is None:
            return None
        hands = {name: tuple(self.deal.hands[name]) for name in self.player_names()}
        return Deal(solution=self.deal.solution, hands=hands)

    def _cluedo_problems(self) -> Found:
        found = self._player_problems(3, "C1")
        if len(self.players) >= 3:
            try:
                cards = self.to_cards()
            except CardCountError as exc:
                found.append((("cards",), str(exc)))
            else:
                if self.deal is not None:
                    found += _deal_problems(self.deal, cards, self.player_names())
        return found


class CluedoDaysGame(CluedoGame):
    """``kind: cluedo_days`` — Cluedo by game days (rules C1–C7, D1–D8).

    ``day_closes`` is the local wall-clock time of the daily close in ``timezone``,
    ``"HH:MM"`` zero-padded (``"22:30"``; rule D1); :attr:`close_time` gives it as a time.
    """

    kind: Literal["cluedo_days"]
    day_closes: WallClock
    rules: CluedoDaysRules = CluedoDaysRules()

    @property
    def close_time(self) -> time:
        """``day_closes`` as a naive wall-clock time (``time(22, 30)``), local to :attr:`zone`."""
        return _wall(self.day_closes)

    @model_validator(mode="after")
    def _rules(self) -> CluedoDaysGame:
        found = self._cluedo_problems()
        if found:
            raise checks_error(found)
        return self


#: Why ``auto_answer: forced`` is refused (rule R6).
FORCED_LEAKS = (
    "'forced' is not offered: showing a single matching card at once tells the "
    "suggester that a player who is asked holds at least two of the named cards, which "
    "no manual answer tells; use 'no_match' (the default) or 'none'"
)


class CluedoRoundsRules(_Model):
    """Overrides of the RULES.md defaults for the rounds variant (rule C6: seed 000
    accuses aloud, so wrong accusations are public by default)."""

    publish_wrong_accusations: bool = True


class CluedoRoundsGame(CluedoGame):
    """``kind: cluedo_rounds`` — Cluedo by rounds, the table game of seed 000 (C1–C7, R1–R7).

    ``players`` is the turn order (R1). ``turn_hours``: time for a turn, ``answer_hours``:
    time for an answer (R7; fractions allowed). ``auto_answer`` (R6): ``no_match``
    answers "no refutation" at once for a player holding none of the cards, ``none``
    waits for every player; ``forced`` is refused, saying why (:data:`FORCED_LEAKS`).
    """

    kind: Literal["cluedo_rounds"]
    turn_hours: PositiveHours = 24.0
    answer_hours: PositiveHours = 12.0
    auto_answer: Literal["no_match", "none"] = "no_match"
    rules: CluedoRoundsRules = CluedoRoundsRules()

    @field_validator("auto_answer", mode="before")
    @classmethod
    def _not_forced(cls, value: object) -> object:
        if value == "forced":
            raise ValueError(FORCED_LEAKS)
        return value

    @model_validator(mode="after")
    def _rules(self) -> CluedoRoundsGame:
        found = self._cluedo_problems()
        if found:
            raise checks_error(found)
        return self


class ManiacGame(GameBase):
    """``kind: maniac`` — the day-vote / night-kill game of seed 002 (rules M1–M12).

    ``day_closes``: local time the day's votes and due orders close (the cell is
    filled); ``night_ends``: local time the night is resolved (the morning post).
    ``roles``: an optional fixed deal ``{player: maniac|duty_officer|fan|civilian}``.
    ``vote_count_mail``: mail the GM the vote count after every change.
    """

    kind: Literal["maniac"]
    day_closes: WallClock
    night_ends: WallClock
    roles: dict[str, Literal["maniac", "duty_officer", "fan", "civilian"]] | None = None
    vote_count_mail: bool = False

    @property
    def close_time(self) -> time:
        """``day_closes`` as a local wall-clock time."""
        return _wall(self.day_closes)

    @property
    def night_end_time(self) -> time:
        """``night_ends`` as a local wall-clock time."""
        return _wall(self.night_ends)

    @model_validator(mode="after")
    def _rules(self) -> ManiacGame:
        found = self._player_problems(8, "M1")
        if len(self.players) > 15:
            found.append((("players",), f"rule M1: at most 15 players, got {len(self.players)}"))
        if self.day_closes == self.night_ends:
            found.append((("night_ends",), "the night must end at another time than the day"))
        if self.roles is not None:
            found += _role_problems(self.roles, self.player_names())
        if found:
            raise checks_error(found)
        return self


def _wall(hhmm: str) -> time:
    hours, minutes = hhmm.split(":")
    return time(int(hours), int(minutes))


def _role_problems(roles: Mapping[str, str], players: list[str]) -> Found:
    """Rule M1 for a fixed deal of roles: every player one role; one maniac, one duty
    officer, one fan from 10 players (none below), the rest civilians."""
    found: Found = []
    for name in roles:
        if name not in players:
            found.append(
                (("roles", name), f"{name!r} is not a player{did_you_mean(name, players)}")
            )
    missing = [p for p in players if p not in roles]
    if missing:
        found.append((("roles",), f"no role for {', '.join(missing)}"))
    counts = {
        role: sum(1 for r in roles.values() if r == role)
        for role in ("maniac", "duty_officer", "fan")
    }
    fans = 1 if len(players) >= 10 else 0
    for role, want in (("maniac", 1), ("duty_officer", 1), ("fan", fans)):
        if counts[role] != want:
            found.append(
                (
                    ("roles",),
                    f"rule M1: {len(players)} players need {want} {role}, got {counts[role]}",
                )
            )
    return found


def _deal_problems(deal: FixedDeal, cards: Cards, players: list[str]) -> Found:
    """Rule C2 for a fixed deal: one card of each deck in the solution, 3 cards per hand,
    every card in play used exactly once."""
    found: Found = []
    in_play = cards.all()
    seen: dict[str, str] = {}

    def place(card: str, path: YamlPath, shown: str) -> bool:
        if card not in in_play:
            found.append((path, f"{card!r} is not a card in play{did_you_mean(card, in_play)}"))
            return False
        if card in seen:
            found.append((path, f"card {card!r} is dealt twice (also {seen[card]})"))
            return False
        seen[card] = shown
        return True

    for i, (card, category) in enumerate(zip(deal.solution, CATEGORIES, strict=True)):
        path: YamlPath = ("deal", "solution", i)
        if place(card, path, show_path(path)) and cards.category_of(card) != category:
            found.append(
                (path, f"{card!r} is not a {category}: the solution is suspect, weapon, room")
            )
    for name, hand in deal.hands.items():
        if name not in players:
            found.append(
                (("deal", "hands", name), f"{name!r} is not a player{did_you_mean(name, players)}")
            )
            continue
        if len(hand) != 3:
            found.append(
                (("deal", "hands", name), f"rule C2: a hand holds 3 cards, got {len(hand)}")
            )
        for j, card in enumerate(hand):
            place(card, ("deal", "hands", name, j), show_path(("deal", "hands", name, j)))
    missing = [p for p in players if p not in deal.hands]
    if missing:
        found.append((("deal", "hands"), f"no hand for {', '.join(missing)}"))
    return found  # with these checks passed, every card in play is used exactly once


Game = Union[CluedoDaysGame, CluedoRoundsGame, ManiacGame]  # noqa: UP007
"""A game of any kind: add a kind by adding its model class to this union."""
GameConfig = Annotated[Game, Field(discriminator="kind")]


class Config(_Model):
    """The whole ``games.yaml``. ``store``: the SQLite file (relative: to the file's directory)."""

    mail: MailSettings
    store: RelativePath
    games: list[GameConfig] = Field(min_length=1)
    _path: Path | None = PrivateAttr(default=None)

    @field_validator("games")
    @classmethod
    def _unique_ids(cls, games: list[Game]) -> list[Game]:
        first: dict[str, int] = {}
        found: Found = []
        for i, g in enumerate(games):
            if g.id in first:
                found.append(((i, "id"), f"duplicate game id {g.id!r} (also games[{first[g.id]}])"))
            first.setdefault(g.id, i)
        if found:
            raise checks_error(found)
        return games

    @model_validator(mode="after")
    def _not_pbps_address(self) -> Config:
        """No player or GM may use pbp's own address or one of its personal addresses
        (``gm+…@``): pbp's mail to them would come back to pbp."""
        local, _at, domain = self.mail.address.lower().rpartition("@")
        found: Found = []
        for i, game in enumerate(self.games):
            named: list[tuple[tuple[str | int, ...], str]] = [(("gm",), game.gm)]
            named += [(("players", n, "email"), p.email) for n, p in enumerate(game.players)]
            for path, address in named:
                their_local, _at, their_domain = address.lower().rpartition("@")
                if their_domain == domain and their_local.split("+")[0] == local:
                    message = f"{address!r} is pbp's own mailbox: give a person's address"
                    found.append((("games", i, *path), message))
        if found:
            raise checks_error(found)
        return self

    @property
    def path(self) -> Path | None:
        """The file this configuration was loaded from (None when built in code)."""
        return self._path

    def game(self, game_id: str) -> Game:
        """The game with id ``game_id``.

        :raises KeyError: no such game; the message lists the known ids.
        """
        for g in self.games:
            if g.id == game_id:
                return g
        known = ", ".join(g.id for g in self.games)
        raise KeyError(f"no game {game_id!r}; known games: {known}")

    def missing_secrets(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """Names of the ``password_env`` variables not set in ``environ`` (default ``os.environ``).

        Example: ``["PBP_IMAP_PASSWORD"]``; a variable set to ``""`` counts as not set.
        ``pbp check`` and ``pbp run`` refuse to go on without them.
        """
        env = os.environ if environ is None else environ
        names = [
            s.password_env
            for s in (self.mail.inbox.imap, self.mail.outbox.smtp)
            if s is not None and s.password_env is not None
        ]
        return [n for n in dict.fromkeys(names) if not env.get(n)]  # empty is unset


def load_config(path: Path) -> Config:
    """Read and check ``path`` (``games.yaml``); relative paths in it are resolved against
    its directory.

    :raises ConfigError: with every problem found (unreadable file, YAML syntax, unknown or
        missing keys, bad values, duplicate keys, rules C1/C2 on cards and fixed deals), each
        with its line. Missing secrets are not errors: see :meth:`Config.missing_secrets`.
    """
    file = str(path)
    try:
        doc = load_marked(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([Problem(file, "", None, f"cannot read the file: {exc}")]) from exc
    except YamlSyntaxError as exc:
        raise ConfigError(
            [Problem(file, "", exc.line, f"YAML syntax error: {exc.message}")]
        ) from exc
    found = [Problem(file, show_path(p), line, "duplicate key") for p, line in doc.duplicates]
    if not isinstance(doc.data, dict):
        found.append(Problem(file, "", 1, "expected a mapping with the keys mail, store, games"))
        raise ConfigError(found)
    try:
        config = Config.model_validate(doc.data, context={"base_dir": path.parent.absolute()})
    except ValidationError as exc:
        for err in exc.errors():
            for p, message in explain(Config, err):
                found.append(Problem(file, show_path(p), doc.line_of(p), message))
    if found:
        found.sort(key=lambda p: (p.line or 0, p.path))
        raise ConfigError(found)
    config._path = path
    return config
