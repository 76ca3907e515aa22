"""Seed 002 (Maniac, the original rules): its worked example that several tests play, the
tie of rule M10, defined once. The players are those of :mod:`kits.maniac_table` (Вася,
Петя, Таня, Оля, Саша, …; Коля the maniac). The seed's M3 and M9 examples are played by
``games/maniac/test_engine.py`` alone (M3's orders also read in the seed's own form by
``games/maniac/test_parse.py``).

The tie is played through the engine (``games/maniac/test_engine.py``) and through the
service by mail (:func:`kits.maniac_table.seed_tie`).
"""

from __future__ import annotations

#: M10's tie, day 1, as ``(voter, target)`` in the order cast: Вася→Петя, Петя→Таня,
#: Вася→Таня, Таня→Петя, Оля→Петя. Таня and Петя have 2 votes each; Петя's vote for Таня
#: is the earliest that stood to the end of the day, so Таня goes to the cell, not Петя.
TIE = (("Вася", "Петя"), ("Петя", "Таня"), ("Вася", "Таня"), ("Таня", "Петя"), ("Оля", "Петя"))
#: The tie's mails as players write them (``TIE`` in order; moves 5 minutes apart from
#: 10:00 UTC of day 1, 13:00 Moscow).
TIE_MAILS = (
    ("Вася", "ГОЛОС за Петю"),
    ("Петя", "ГОЛОС Таня"),
    ("Вася", "ГОЛОС: Таню"),
    ("Таня", "ГОЛОС Петя"),
    ("Оля", "Голосую за Петю"),
)


def arrows(votes: tuple[tuple[str, str], ...]) -> list[str]:
    """``(("Вася", "Петя"),)`` → ``["Вася→Петя"]``: votes as the engine tests write them."""
    return [f"{voter}→{target}" for voter, target in votes]
