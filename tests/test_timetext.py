"""One way to write a time (issue 31, item 8): :mod:`pbp.text.timetext`.

The command line: ``2026-12-07 22:30 MSK`` (:func:`cli_time`), ``--json``: ISO 8601 with
the offset (:func:`cli_iso`); a zone tzdata writes with digits only (``+05``) by its
UTC offset. Mails and posts: the locale's long date, 24 hours, and the zone by its
city in Russian («по Москве») or its abbreviation in English (:func:`written_time`,
:func:`written_clock`, each locale's catalog).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pbp.text import catalogs
from pbp.text.timetext import (
    Pgettext,
    cli_iso,
    cli_time,
    utc_offset,
    written_clock,
    written_time,
    written_zone,
    zone_abbreviation,
)

AT = datetime(2026, 12, 7, 19, 30, 42, tzinfo=UTC)
SUMMER = datetime(2026, 7, 7, 19, 30, tzinfo=UTC)


def _pgettext(locale: str) -> Pgettext:
    """The catalog's pgettext of ``locale``, its variables filled (as a template's)."""
    found = catalogs.translations(locale)

    def pgettext(context: str, message: str, /, **variables: object) -> str:
        text = found.pgettext(context, message)
        return text % variables if variables else text

    return pgettext


@pytest.mark.parametrize(
    ("zone", "shown"),
    [
        ("Europe/Moscow", "2026-12-07 22:30 MSK"),
        ("Asia/Yekaterinburg", "2026-12-08 00:30 UTC+5"),
        ("Asia/Kolkata", "2026-12-08 01:00 IST"),
        ("America/St_Johns", "2026-12-07 16:00 NST"),
        ("America/Sao_Paulo", "2026-12-07 16:30 UTC-3"),
        ("Asia/Kathmandu", "2026-12-08 01:15 UTC+5:45"),
        ("UTC", "2026-12-07 19:30 UTC"),
    ],
)
def test_cli_time_writes_the_local_minute_and_a_zone_name(zone: str, shown: str) -> None:
    assert cli_time(AT, zone) == shown
    assert cli_time(AT, ZoneInfo(zone)) == shown


def test_cli_time_follows_summer_time() -> None:
    assert cli_time(SUMMER, "Europe/Berlin") == "2026-07-07 21:30 CEST"
    assert cli_time(AT, "Europe/Berlin") == "2026-12-07 20:30 CET"


def test_cli_iso_keeps_iso_8601_with_the_offset() -> None:
    assert cli_iso(AT, "Europe/Moscow") == "2026-12-07T22:30+03:00"
    assert cli_iso(AT, "Asia/Yekaterinburg") == "2026-12-08T00:30+05:00"


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        cli_time(datetime(2026, 12, 7, 22, 30), "Europe/Moscow")
    with pytest.raises(ValueError, match="naive"):
        zone_abbreviation(datetime(2026, 12, 7, 22, 30))


def test_utc_offset() -> None:
    assert utc_offset(timedelta(0)) == "UTC+0"
    assert utc_offset(timedelta(hours=-9, minutes=-30)) == "UTC-9:30"
    assert utc_offset(timedelta(hours=12, minutes=45)) == "UTC+12:45"


@pytest.mark.parametrize(
    ("zone", "ru", "en"),
    [
        (
            "Europe/Moscow",
            "7 декабря 2026 г., 22:30 по Москве",
            "December 7, 2026, 22:30 MSK",
        ),
        (
            "Asia/Yekaterinburg",
            "8 декабря 2026 г., 00:30 по Екатеринбургу",
            "December 8, 2026, 00:30 UTC+5",
        ),
        (
            "America/New_York",
            "7 декабря 2026 г., 14:30 по Нью-Йорку",
            "December 7, 2026, 14:30 EST",
        ),
        (
            "Asia/Almaty",
            "8 декабря 2026 г., 00:30 по Алматы",
            "December 8, 2026, 00:30 UTC+5",
        ),
        ("UTC", "7 декабря 2026 г., 19:30 UTC", "December 7, 2026, 19:30 UTC"),
    ],
)
def test_written_time_names_the_zone_as_players_say_it(zone: str, ru: str, en: str) -> None:
    assert written_time(AT, "ru", zone, _pgettext("ru")) == ru
    assert written_time(AT, "en", zone, _pgettext("en")) == en


def test_written_time_reads_iso_text_and_may_leave_the_zone_out() -> None:
    assert (
        written_time("2026-12-07T19:30:00+00:00", "en", "Europe/Moscow", _pgettext("en"))
        == "December 7, 2026, 22:30 MSK"
    )
    assert (
        written_time(AT, "ru", "Europe/Moscow", _pgettext("ru"), named=False)
        == "7 декабря 2026 г., 22:30"
    )
    with pytest.raises(ValueError, match="naive"):
        written_time(datetime(2026, 12, 7), "ru", "Europe/Moscow", _pgettext("ru"))


@pytest.mark.parametrize(
    ("zone", "ru", "en"),
    [
        ("Europe/Moscow", "22:30 по Москве", "22:30 MSK"),
        ("Asia/Yekaterinburg", "22:30 по Екатеринбургу", "22:30 UTC+5"),
        ("Europe/Berlin", "22:30 по Берлину", "22:30 Berlin time"),
        ("UTC", "22:30 UTC", "22:30 UTC"),
    ],
)
def test_written_clock_names_a_time_of_day_s_zone(zone: str, ru: str, en: str) -> None:
    assert written_clock("22:30", "ru", zone, _pgettext("ru")) == ru
    assert written_clock("22:30", "en", zone, _pgettext("en")) == en


@pytest.mark.parametrize(
    ("zone", "ru", "en"),
    [
        ("Europe/Moscow", "по Москве", "MSK"),
        ("Asia/Yekaterinburg", "по Екатеринбургу", "UTC+5"),
        ("Europe/Berlin", "по Берлину", "Berlin time"),
    ],
)
def test_written_zone_names_a_zone_alone_as_the_story_heading_does(
    zone: str, ru: str, en: str
) -> None:
    # The story said «Время — по часовому поясу Europe/Moscow».
    assert written_zone(zone, "ru", _pgettext("ru")) == ru
    assert written_zone(zone, "en", _pgettext("en")) == en
