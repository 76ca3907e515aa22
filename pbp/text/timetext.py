"""Times written for people (issue 31, item 8): one way at the terminal.

- The command line writes every time as :func:`cli_time`: the game's local date and
  time to the minute and the zone's abbreviation, ``2026-12-07 22:30 MSK``
  (``--json`` keeps ISO 8601 with the offset: ``2026-12-07T22:30+03:00``).
- A zone whose tzdata abbreviation has no letters (tzdata writes ``+05`` for
  Asia/Yekaterinburg and many others) is named by its UTC offset: ``UTC+5``
  (:func:`zone_abbreviation`).

Mails and posts write a time in the game's language, with a name of its zone that
players know (:func:`written_time`, the templates' ``dt`` filter; :func:`written_clock`
for a time of day, their ``clock`` filter): the locale's long date (Babel's, CLDR
skeleton :data:`DATE_SKELETON`), the time on 24 hours, and the zone named as the
locale's catalog says (message "abbreviation", context "how a time's zone is named:
abbreviation or city": its translation ``city`` or none): by its city
in Russian (``7 декабря 2026 г., 22:30 по Москве``: CLDR's city in the dative,
:func:`pbp.text.cardforms.place_form`), by its abbreviation in English (``December 7,
2026, 22:30 MSK``); a zone whose city the dictionary cannot decline, by its
abbreviation in any language.

Pure: reads only the tzdata of :mod:`zoneinfo`, Babel's CLDR data and the dictionary.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from babel import Locale
from babel import dates as babel_dates

from pbp.text import cardforms

#: A catalog's ``pgettext(context, message, **variables)``, its variables filled.
Pgettext = Callable[..., str]

#: CLDR's skeleton of a date in mails and posts: the locale's long date.
DATE_SKELETON = "yMMMMd"
#: The time of day in mails and posts: 24 hours in every locale (``22:30``).
TIME_PATTERN = "HH:mm"
#: A year whose January and July follow tzdata's present rules for every zone (its
#: rule that runs on for ever): the abbreviations of a time of day with no date.
_RULES_YEAR = 2100


def utc_offset(offset: timedelta) -> str:
    """``offset`` as ``UTC+5``, ``UTC-3``, ``UTC+5:30``, ``UTC+0``.

    >>> utc_offset(timedelta(hours=5)), utc_offset(timedelta(hours=-3, minutes=-30))
    ('UTC+5', 'UTC-3:30')
    """
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def zone_abbreviation(when: datetime) -> str:
    """The abbreviation of the zone of the aware ``when`` at that moment, as tzdata
    gives it (``MSK``, ``CET``/``CEST``, ``UTC``), or its UTC offset (``UTC+5``) when
    tzdata has only digits for it (``+05``).

    >>> from datetime import UTC
    >>> at = datetime(2026, 12, 7, 19, 30, tzinfo=UTC)
    >>> [zone_abbreviation(at.astimezone(ZoneInfo(z))) for z in
    ...  ("Europe/Moscow", "Asia/Yekaterinburg", "Asia/Kolkata", "UTC")]
    ['MSK', 'UTC+5', 'IST', 'UTC']

    :raises ValueError: ``when`` is naive.
    """
    offset = when.utcoffset()
    if offset is None:
        raise ValueError(f"a naive time has no zone: {when!r}")
    name = when.tzname() or ""
    return name if any(c.isalpha() for c in name) else utc_offset(offset)


def _in_zone(when: datetime, zone: str | ZoneInfo | None) -> datetime:
    """The aware ``when`` in ``zone`` (None: its own).

    :raises ValueError: ``when`` is naive.
    """
    if when.tzinfo is None:
        raise ValueError(f"a naive time has no zone: {when!r}")
    if zone is None:
        return when
    return when.astimezone(zone if isinstance(zone, ZoneInfo) else ZoneInfo(zone))


def cli_time(when: datetime, zone: str | ZoneInfo | None) -> str:
    """The aware ``when`` in ``zone`` (an IANA name or a ZoneInfo: the game's; None:
    its own) as the
    command line writes every time: ``2026-12-07 22:30 MSK`` (to the minute, seconds
    dropped; the zone by :func:`zone_abbreviation`).

    >>> from datetime import UTC
    >>> at = datetime(2026, 12, 7, 19, 30, 59, tzinfo=UTC)
    >>> cli_time(at, "Europe/Moscow"), cli_time(at, "Asia/Yekaterinburg")
    ('2026-12-07 22:30 MSK', '2026-12-08 00:30 UTC+5')

    :raises ValueError: ``when`` is naive.
    :raises zoneinfo.ZoneInfoNotFoundError: unknown ``zone``.
    """
    local = _in_zone(when, zone)
    return f"{local:%Y-%m-%d %H:%M} {zone_abbreviation(local)}"


def cli_iso(when: datetime, zone: str | ZoneInfo | None) -> str:
    """The aware ``when`` in ``zone`` as ``--json`` writes it: ISO 8601 to the minute
    with the offset (``2026-12-07T22:30+03:00``).

    :raises ValueError: ``when`` is naive.
    """
    return _in_zone(when, zone).isoformat(timespec="minutes")


@functools.cache
def _locale(name: str) -> Locale:
    """Babel's data of the locale ``name``, parsed once."""
    return Locale.parse(name)


def _city_form(zone: ZoneInfo, locale: str) -> str | None:
    """The city of ``zone`` (CLDR's) as the locale's texts put it after a time (ru: the
    dative, «Москве»), or None when the dictionary cannot decline it."""
    city = babel_dates.get_timezone_location(zone, locale=_locale(locale), return_city=True)
    form = cardforms.place_form(str(city), "datv") if locale == "ru" else str(city)
    if form is None or form == zone.key:
        return None
    return form


def _city_phrase(time_text: str, zone: ZoneInfo, locale: str, pgettext: Pgettext) -> str | None:
    """``time_text`` and ``zone`` named by its city (CLDR's, in the locale's dative:
    «22:30 по Москве»), or None when the dictionary cannot decline the city."""
    form = _city_form(zone, locale)
    if form is None:
        return None
    phrase: str = pgettext(
        "a time and its zone's city (Russian: the city in the dative)",
        "%(time)s %(city)s time",
        time=time_text,
        city=form,
    )
    return phrase


def _abbreviation_phrase(time_text: str, abbreviation: str, pgettext: Pgettext) -> str:
    """``time_text`` and its zone's abbreviation or UTC offset: ``22:30 MSK``."""
    phrase: str = pgettext(
        "a time and its zone's abbreviation or UTC offset",
        "%(time)s %(zone)s",
        time=time_text,
        zone=abbreviation,
    )
    return phrase


def _by_city(pgettext: Pgettext) -> bool:
    """True when the catalog names a time's zone by its city (:data:`NAMING`)."""
    naming = pgettext("how a time's zone is named: abbreviation or city", "abbreviation")
    return str(naming) == "city"


def written_time(
    when: datetime | str,
    locale: str,
    zone: str | None,
    pgettext: Pgettext,
    *,
    named: bool = True,
) -> str:
    """The aware ``when`` (or its ISO 8601 text, as events carry it) in ``zone`` (an
    IANA name; None: its own zone) as mails and posts write it (see the module):
    ``7 декабря 2026 г., 22:30 по Москве``; without the zone's name when not ``named``
    (a text whose heading names the zone once). ``pgettext`` is the locale's catalog.

    :raises ValueError: ``when`` is naive, or not ISO 8601 text.
    :raises zoneinfo.ZoneInfoNotFoundError: unknown ``zone``.
    """
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    if when.tzinfo is None:
        raise ValueError(f"a naive datetime cannot be shown to players: {when!r}")
    if zone is not None:
        when = when.astimezone(ZoneInfo(zone))
    found = _locale(locale)
    day = babel_dates.format_skeleton(DATE_SKELETON, when, locale=found)
    clock = babel_dates.format_datetime(when, TIME_PATTERN, locale=found)
    # CLDR keeps «2026 г.» together by a narrow no-break space: a plain one in a mail
    # (old fonts lack it, a Subject's header loses it, a player cannot type it).
    shown = str(found.datetime_formats["medium"]).format(clock, day).replace("\u202f", " ")
    if not named:
        return shown
    local_zone = when.tzinfo if isinstance(when.tzinfo, ZoneInfo) else None
    if local_zone is not None and _by_city(pgettext):
        phrase = _city_phrase(shown, local_zone, locale, pgettext)
        if phrase is not None:
            return phrase
    return _abbreviation_phrase(shown, zone_abbreviation(when), pgettext)


def written_clock(clock: str, locale: str, zone: str, pgettext: Pgettext) -> str:
    """A time of day (``"22:30"``, a game's ``day_closes``) in ``zone`` (IANA name),
    with no date, as mails and posts write it: ``22:30 по Москве``, ``22:30 MSK``. A
    zone whose abbreviation changes in the year (summer time: CET, CEST) is named by
    its city in every locale (``22:30 Berlin time``).

    :raises zoneinfo.ZoneInfoNotFoundError: unknown ``zone``.
    """
    where = ZoneInfo(zone)
    if _by_city(pgettext):
        phrase = _city_phrase(clock, where, locale, pgettext)
        if phrase is not None:
            return phrase
    names = {zone_abbreviation(datetime(_RULES_YEAR, month, 1, tzinfo=where)) for month in (1, 7)}
    if len(names) > 1:
        phrase = _city_phrase(clock, where, locale, pgettext)
        if phrase is not None:
            return phrase
    return _abbreviation_phrase(clock, " / ".join(sorted(names)), pgettext)


def written_zone(zone: str, locale: str, pgettext: Pgettext) -> str:
    """The zone ``zone`` (IANA name) alone, as a text names the zone of the times it
    gives once (a heading, the story's): by its city where the catalog names zones so
    (ru «по Москве», which follows «Время — »), else, as :func:`written_clock`, by its
    abbreviation or abbreviations (``MSK``, ``CET / CEST``), or by its city when these
    change in the year (``Berlin time``).

    :raises zoneinfo.ZoneInfoNotFoundError: unknown ``zone``.
    """
    where = ZoneInfo(zone)
    names = {zone_abbreviation(datetime(_RULES_YEAR, month, 1, tzinfo=where)) for month in (1, 7)}
    if _by_city(pgettext) or len(names) > 1:
        form = _city_form(where, locale)
        if form is not None:
            phrase: str = pgettext(
                "a zone named by its city, no time (Russian: the city in the dative)",
                "%(city)s time",
                city=form,
            )
            return phrase
    return " / ".join(sorted(names))
