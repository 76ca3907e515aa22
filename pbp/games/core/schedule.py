"""Game-day deadlines in a game's time zone (rules D1, D6, D8). Pure.

A game day closes every day at a local wall-clock time (``day_closes: "22:30"``)
in the game's IANA zone. Closes are computed per local date, so a day with a
DST change still has exactly one close; a close time that does not exist that
day (spring forward gap) is moved forward by the gap, and one that exists twice
(autumn fold) happens at its first occurrence.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo


def next_close(after: datetime, close_time: time, zone: ZoneInfo) -> datetime:
    """The first close strictly after ``after``, as an aware UTC datetime.

    >>> moscow = ZoneInfo("Europe/Moscow")
    >>> next_close(datetime(2026, 12, 1, 17, 0, tzinfo=UTC), time(22, 30), moscow)
    datetime.datetime(2026, 12, 1, 19, 30, tzinfo=datetime.timezone.utc)

    :raises ValueError: ``after`` is naive.
    """
    if after.tzinfo is None:
        raise ValueError("after must be timezone-aware")
    local_day = after.astimezone(zone).date() - timedelta(days=1)
    while True:
        local = datetime.combine(local_day, close_time, tzinfo=zone)
        # Round-trip through UTC normalises a time in a DST gap.
        candidate = local.astimezone(UTC)
        if candidate > after:
            return candidate
        local_day += timedelta(days=1)
