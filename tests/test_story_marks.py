"""The story's 🔒 (pbp export): it says whether a fact reached the forum, a post told
it, not merely how its event is stored (pbp.text.export.on_forum)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pbp.games.core.events import Event, Visibility
from pbp.store import StoredEvent
from pbp.text.export import on_forum

AT = datetime(2026, 12, 1, 12, tzinfo=UTC)
LATER = datetime(2026, 12, 1, 13, tzinfo=UTC)
CARDS = {"suspect": "Маша", "weapon": "Нож", "room": "Кухня"}


def logged(
    seq: int, kind: str, visibility: Visibility, data: dict[str, Any], **kw: Any
) -> StoredEvent:
    event = Event(kind, visibility, data, player=kw.get("player"))
    return StoredEvent(seq, kw.get("at", AT), 1, event, kw.get("source", "mail:1"))


def accusation(publish: bool) -> list[StoredEvent]:
    shown = CARDS if publish else dict.fromkeys(CARDS)
    return [
        logged(1, "accusation_made", Visibility.GM, {"player": "Кросс", **CARDS, "correct": False}),
        logged(2, "accusation_wrong", Visibility.PUBLIC, {"player": "Кросс", **shown}),
    ]


def test_a_wrong_accusation_posted_with_its_cards_is_no_secret() -> None:
    assert on_forum(accusation(publish=True)) == {1, 2}
    # Not published: the thread learns only that Кросс is out.
    assert on_forum(accusation(publish=False)) == {2}


def test_a_right_accusation_is_told_by_the_final_post() -> None:
    events = [
        logged(1, "accusation_made", Visibility.GM, {"player": "Кросс", **CARDS, "correct": True}),
        logged(2, "game_over", Visibility.PUBLIC, {"winner": "Кросс"}),
    ]
    assert on_forum(events) == {1, 2}


def test_a_gm_void_is_public_when_its_announcement_was() -> None:
    gm = {"source": "gm:mail", "at": LATER}
    announced = [
        logged(3, "suggestion_voided", Visibility.PUBLIC, {"number": 1}, **gm),
        logged(4, "gm_void", Visibility.GM, {"event": 1, "note": "не та комната"}, **gm),
    ]
    assert on_forum(announced) == {3, 4}
    # A kill order's void tells the maniac alone: nothing is announced.
    silent = [
        logged(3, "order_voided", Visibility.PLAYER, {"night": 1}, player="Коля", **gm),
        logged(4, "gm_void", Visibility.GM, {"event": 1, "note": "ошибка"}, **gm),
    ]
    assert on_forum(silent) == set()
