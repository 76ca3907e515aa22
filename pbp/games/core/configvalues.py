"""The checked values of ``games.yaml`` that are no names (:mod:`pbp.games.core.playernames`):
addresses (:func:`address_problem`, :data:`EmailAddress`), IANA time zones
(:data:`TimeZoneName`), hours (:data:`Hours`, :data:`PositiveHours`), seeds
(:data:`Seed`) and wall-clock times (:data:`WallClock`, :func:`wall`). Used by the
models of :mod:`pbp.games.core.gameconfig` and of each game.
"""

from __future__ import annotations

import re
from datetime import time
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import AfterValidator, BeforeValidator, Field

from pbp.games.core.yamlmarks import did_you_mean
from pbp.mail.read import address

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EMAIL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*@{_LABEL}(?:\.{_LABEL})*\Z")
_HHMM = re.compile(r"([0-9]{1,2}):([0-9]{2})\Z")  # ASCII digits: not «２２:３０»


#: Local parts of the addresses bounces come from (RFC 5321 §4.5.5; RFC 2142): mail
#: from them is always automatic, never a move, so no player or GM may have one.
AUTOMATIC_LOCAL_PARTS = frozenset({"mailer-daemon", "postmaster"})


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

#: An IANA time zone's name (``Europe/Moscow``), looked up when read.
TimeZoneName = Annotated[str, AfterValidator(_timezone)]
EmailAddress = Annotated[str, AfterValidator(_email)]


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


def _hhmm(value: object) -> str:
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
