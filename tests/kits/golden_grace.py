"""Golden texts of Cluedo by game days with a grace window (rules D6, D7; issue 34): a
third scripted game of that kind, ``cluedo_days_grace``, with the cast and cards of
:mod:`kits.golden`, ``answer_grace_hours: 2`` and reminders an hour before the close.

Day 1 (closes 22:30 Moscow): №1 is made and answered early; №2 (Дуг → Неташка, 21:00)
and №3 (Веталь → Дуг, 21:10) arrive within the grace, so they are due at the close of
day 2: their mails, the reminder of 21:30 and day 1's summary say so. Day 2: Неташка
answers №2; nobody answers №3, so the GM does at the close, and Дуг has a suggestion
fewer on day 3; №4 (Веталь → Неташка, 22:00) is carried to day 3. Day 3: Неташка
answers №4, then Дуг's accusation is right: the final post tells that answer too.
"""

from __future__ import annotations

from .golden import DAYS_ITEM, GAMES, Game, GoldenTable
from .golden_levers import _item
from .table import utc


def _cluedo_days_grace(t: GoldenTable, locale: str) -> None:
    ru = locale == "ru"

    def w(ru_line: str, en_line: str) -> str:
        return ru_line if ru else en_line

    t.at(utc(2026, 12, 1, 17))  # the start: the opening post and the welcome tell the grace
    # Day 1 (closes 19:30 UTC; the grace begins at 17:30 UTC).
    t.move(
        "Неташка",
        w(
            "ПРЕДПОЛОЖЕНИЕ Белова, Пистолет, Спальня ДЛЯ Веталя",
            "SUGGEST Белова, Пистолет, Спальня TO Веталь",
        ),
        at=utc(2026, 12, 1, 17, 10),
    )
    t.move("Веталь", w("ОПРОВЕРЖЕНИЕ Пистолет", "REFUTE Пистолет"), at=utc(2026, 12, 1, 17, 20))
    t.move(
        "Дуг",
        w(
            "ПРЕДПОЛОЖЕНИЕ Краснова, Нож, Терраса ДЛЯ Неташки",
            "SUGGEST Краснова, Нож, Терраса TO Неташка",
        ),
        at=utc(2026, 12, 1, 18),
    )
    t.move(
        "Веталь",
        w(
            "ПРЕДПОЛОЖЕНИЕ Зеленов, Верёвка, Библиотека ДЛЯ Дуга",
            "SUGGEST Зеленов, Верёвка, Библиотека TO Дуг",
        ),
        at=utc(2026, 12, 1, 18, 10),
    )
    t.at(utc(2026, 12, 1, 18, 31))  # the reminders of day 1
    t.move("Неташка", w("СТАТУС", "STATUS"), at=utc(2026, 12, 1, 18, 40))
    t.at(utc(2026, 12, 1, 19, 30))  # day 1 closes: №2 and №3 wait for day 2's close
    # Day 2: Неташка answers №2; Дуг leaves №3 to the GM.
    t.move("Неташка", w("ОПРОВЕРЖЕНИЕ 2 Нож", "REFUTE 2 Нож"), at=utc(2026, 12, 2, 8))
    t.at(utc(2026, 12, 2, 18, 31))  # the reminders of day 2
    t.move(
        "Веталь",
        w(
            "ПРЕДПОЛОЖЕНИЕ Белова, Топор, Библиотека ДЛЯ Неташки",
            "SUGGEST Белова, Топор, Библиотека TO Неташка",
        ),
        at=utc(2026, 12, 2, 19),
    )
    t.at(utc(2026, 12, 2, 19, 30))  # day 2 closes: the GM answers №3 for Дуг
    # Day 3: Неташка answers №4 (of day 2); Дуг's accusation ends the game.
    t.move("Неташка", w("ОПРОВЕРЖЕНИЕ 4 Белова", "REFUTE 4 Белова"), at=utc(2026, 12, 3, 8))
    t.move(
        "Дуг",
        w("ОБВИНЕНИЕ Краснова, Верёвка, Терраса", "ACCUSE Краснова, Верёвка, Терраса"),
        at=utc(2026, 12, 3, 9),
    )


GRACE_GAMES: dict[str, Game] = {
    "cluedo_days_grace": Game(
        "cluedo_days",
        GAMES["cluedo_days"].players,
        _item(DAYS_ITEM, "remind_hours_before: 1", "rules: {{answer_grace_hours: 2}}"),
        utc(2026, 12, 1, 17),
        _cluedo_days_grace,
        GAMES["cluedo_days"].genders,
    ),
}
