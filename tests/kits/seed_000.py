"""Seed 000 (Cluedo, the original rules), its worked example and its real game's cards, defined
once for every test that plays them (RULES.md C1–C7, R1–R7).

* The worked example ("Например, предположим, что ведущий изъял карты Маша, Столовая,
  Топор…"): 3 suspects, 6 weapons, 3 rooms (legal by C1), the solution Маша, Топор,
  Столовая, and the hands dealt to Кросс, Дуг and Роза, who play in that order (R1).
  :class:`kits.table.Table` and :class:`kits.rounds_table.RoundsTable` write the same deal
  into ``games.yaml``.
* The real game ("Список карт и таблица", "Порядок ходов"): six suspects, six weapons,
  nine rooms, and its six players in their order, as the bundled ``games.yaml`` has them.
"""

from __future__ import annotations

from pbp.games.cluedo.cards import Cards, Deal

# --- the worked example ---

#: The example's decks: suspects, weapons, rooms, each in its order.
EXAMPLE = Cards(
    ("Маша", "Петя", "Ваня"),
    ("Топор", "Пистолет", "Канделябр", "Молоток", "Веревка", "Нож"),
    ("Столовая", "Спальня", "Библиотека"),
)
#: The cards the GM took out: suspect, weapon, room.
SOLUTION = ("Маша", "Топор", "Столовая")
#: The hands as the seed deals them, by player in the turn order (R1).
HANDS: dict[str, tuple[str, str, str]] = {
    "Кросс": ("Петя", "Ваня", "Нож"),
    "Дуг": ("Спальня", "Пистолет", "Молоток"),
    "Роза": ("Библиотека", "Канделябр", "Веревка"),
}
#: The fixed deal of the example (solution and hands).
DEAL = Deal(SOLUTION, HANDS)
#: The players in the turn order of the example: Кросс, Дуг, Роза.
NAMES = tuple(HANDS)

# --- the real game ---

#: The real game's card list, each deck in its order.
SUSPECTS = ("Краснова", "Горчичников", "Белых", "Зеленович", "Голубева", "Черниченко")
WEAPONS = ("подсвечник", "нож", "труба", "топор", "веревка", "пистолет")
ROOMS = (
    "кухня",
    "танцевальный зал",
    "терраса",
    "бильярдная",
    "библиотека",
    "кабинет",
    "холл",
    "гостиная",
    "столовая",
)
CARDS = Cards(SUSPECTS, WEAPONS, ROOMS)
#: The real game's players in their turn order ("Порядок ходов").
PLAYERS = ("Неташка", "Веталь", "Дуг", "Моро", "Мария", "Алиен")
