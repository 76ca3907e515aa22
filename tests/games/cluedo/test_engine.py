"""Cluedo helpers shared by both variants (pbp.games.cluedo.cards): rules C1, C2, C4, C5, C6."""

from __future__ import annotations

import random

import pytest
from kits import seed_000
from kits.seed_000 import EXAMPLE, PLAYERS, ROOMS, SUSPECTS, WEAPONS

from pbp.games.cluedo.cards import (
    CardCountError,
    Deal,
    cards_as_json,
    cards_for_players,
    cards_from_json,
    check_accusation,
    check_deal,
    check_named_cards,
    check_refutation,
    deal,
    deal_as_json,
    deal_from_json,
    gm_default_card,
    start_deal,
)
from pbp.games.core.events import IllegalMove, InvalidMove, SetupError

# Seed 000's real game (the card list games.yaml uses) and its worked example (legal by C1).
EXAMPLE_DEAL = seed_000.DEAL


def test_C1_one_missing_player_drops_the_bottom_card_of_each_deck() -> None:
    cards = cards_for_players(SUSPECTS, WEAPONS, ROOMS, 5)
    assert cards.suspects == SUSPECTS[:5]
    assert cards.weapons == ("подсвечник", "нож", "труба", "топор", "веревка")
    assert cards.rooms == ROOMS[:8]
    assert len(cards.all()) == 3 * 5 + 3


@pytest.mark.parametrize(
    ("suspects", "weapons", "rooms", "message"),
    [
        ("A", "bcdef", "rstuvw", "the suspect deck holds 1; each deck needs at least 3 cards"),
        ("AB", "cdef", "rstuvw", "the suspect deck holds 2; each deck needs at least 3 cards"),
        ("ABCD", "efg", "rstuvwxy", "the weapon deck holds 2 after dropping 1; each deck needs"),
    ],
)
def test_C1_a_deck_of_fewer_than_3_cards_is_refused(
    suspects: str, weapons: str, rooms: str, message: str
) -> None:
    with pytest.raises(CardCountError, match=message):
        cards_for_players(list(suspects), list(weapons), list(rooms), 3)


def test_C2_seed_1234_deals_exactly_these_hands() -> None:
    cards = cards_for_players(SUSPECTS, WEAPONS, ROOMS, 6)
    dealt = deal(cards, PLAYERS, random.Random(1234))
    assert dealt == Deal(
        ("Зеленович", "подсвечник", "кухня"),
        {
            "Неташка": ("кабинет", "топор", "нож"),
            "Веталь": ("холл", "библиотека", "бильярдная"),
            "Дуг": ("веревка", "пистолет", "гостиная"),
            "Моро": ("труба", "танцевальный зал", "столовая"),
            "Мария": ("терраса", "Краснова", "Горчичников"),
            "Алиен": ("Черниченко", "Голубева", "Белых"),
        },
    )
    assert deal(cards, PLAYERS, random.Random(1234)) == dealt


def test_C2_every_deal_has_one_card_per_deck_and_three_per_player() -> None:
    cards = cards_for_players(SUSPECTS, WEAPONS, ROOMS, 6)
    solutions = set()
    for seed in range(40):
        dealt = deal(cards, PLAYERS, random.Random(seed))
        check_deal(cards, PLAYERS, dealt)  # raises on any breach of C2
        assert [len(dealt.hands[p]) for p in PLAYERS] == [3] * 6
        solutions.add(dealt.solution)
    assert len(solutions) > 30  # the seed matters


def test_C2_deal_refuses_a_card_count_that_is_not_three_per_player() -> None:
    with pytest.raises(CardCountError, match="4 players need 15 cards, the decks hold 12"):
        deal(EXAMPLE, ["Кросс", "Дуг", "Роза", "Моро"], random.Random(1))


@pytest.mark.parametrize(
    ("fixed", "message"),
    [
        (
            Deal(("Топор", "Маша", "Столовая"), EXAMPLE_DEAL.hands),
            r"rule C2: deal\.solution\[0\]: 'Топор' is not a suspect: the solution is suspect, "
            "weapon, room",
        ),
        (
            Deal(
                EXAMPLE_DEAL.solution, {**EXAMPLE_DEAL.hands, "Роза": ("Библиотека", "Канделябр")}
            ),
            "rule C2: deal.hands.Роза: a hand holds 3 cards, got 2",
        ),
        (
            Deal(
                EXAMPLE_DEAL.solution,
                {**EXAMPLE_DEAL.hands, "Роза": ("Нож", "Канделябр", "Веревка")},
            ),
            r"deal\.hands\.Роза\[0\]: card 'Нож' is dealt twice \(also deal\.hands\.Кросс\[2\]\)",
        ),
        (
            Deal(
                EXAMPLE_DEAL.solution,
                {**EXAMPLE_DEAL.hands, "Роза": ("Лом", "Канделябр", "Веревка")},
            ),
            r"deal\.hands\.Роза\[0\]: 'Лом' is not a card in play",
        ),
        (
            Deal(EXAMPLE_DEAL.solution, {"Кросс": EXAMPLE_DEAL.hands["Кросс"]}),
            "rule C2: deal.hands: no hand for Дуг, Роза",
        ),
    ],
)
def test_C2_check_deal_refuses_a_broken_fixed_deal(fixed: Deal, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_deal(EXAMPLE, ["Кросс", "Дуг", "Роза"], fixed)


def test_C2_the_seed_000_deal_is_legal_and_round_trips_as_json() -> None:
    check_deal(EXAMPLE, ["Кросс", "Дуг", "Роза"], EXAMPLE_DEAL)
    as_json = deal_as_json(EXAMPLE_DEAL)
    assert as_json == {
        "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
        "hands": {
            "Кросс": ["Петя", "Ваня", "Нож"],
            "Дуг": ["Спальня", "Пистолет", "Молоток"],
            "Роза": ["Библиотека", "Канделябр", "Веревка"],
        },
    }
    assert deal_from_json(as_json) == EXAMPLE_DEAL
    assert cards_from_json(cards_as_json(EXAMPLE)) == EXAMPLE


def test_C4_no_refutation_while_holding_named_cards_names_them() -> None:
    with pytest.raises(IllegalMove) as caught:
        check_refutation(("Спальня", "Пистолет", "Молоток"), ("Петя", "Пистолет", "Спальня"), None)
    assert caught.value.code == "must_refute"
    assert caught.value.params == {
        "held": ["Пистолет", "Спальня"],
        "named": ["Петя", "Пистолет", "Спальня"],
    }


def test_C4_a_shown_card_must_be_named_and_held() -> None:
    hand = ("Спальня", "Пистолет", "Молоток")
    named = ("Петя", "Пистолет", "Спальня")
    with pytest.raises(IllegalMove) as not_named:
        check_refutation(hand, named, "Молоток")
    assert (not_named.value.code, not_named.value.params) == (
        "card_not_named",
        {"card": "Молоток", "named": list(named), "held": ["Пистолет", "Спальня"]},
    )
    with pytest.raises(IllegalMove) as not_held:
        check_refutation(hand, named, "Петя")
    assert (not_held.value.code, not_held.value.params) == (
        "card_not_held",
        {"card": "Петя", "named": list(named), "held": ["Пистолет", "Спальня"]},
    )
    # either held card is a legal choice; no refutation is legal without any
    check_refutation(hand, named, "Пистолет")
    check_refutation(hand, named, "Спальня")
    check_refutation(hand, ("Маша", "Топор", "Столовая"), None)


def test_C5_gm_shows_the_first_held_card_in_suspect_weapon_room_order() -> None:
    assert (
        gm_default_card(("Библиотека", "Веревка", "Петя"), "Петя", "Веревка", "Библиотека")
        == "Петя"
    )
    assert gm_default_card(("Библиотека", "Веревка"), "Маша", "Веревка", "Библиотека") == "Веревка"
    assert gm_default_card(("Библиотека",), "Маша", "Нож", "Библиотека") == "Библиотека"
    assert gm_default_card(("Библиотека",), "Маша", "Нож", "Столовая") is None


def test_C6_accusation_is_right_only_on_all_three_cards() -> None:
    assert check_accusation(("Маша", "Топор", "Столовая"), "Маша", "Топор", "Столовая") is True
    assert check_accusation(("Маша", "Топор", "Столовая"), "Маша", "Топор", "Спальня") is False
    assert check_accusation(("Маша", "Топор", "Столовая"), "Топор", "Маша", "Столовая") is False


def test_C6_named_cards_must_be_a_suspect_a_weapon_and_a_room_in_order() -> None:
    check_named_cards(EXAMPLE, "Маша", "Нож", "Спальня")
    with pytest.raises(InvalidMove) as caught:
        check_named_cards(EXAMPLE, "Маша", "Спальня", "Нож")
    assert caught.value.code == "wrong_category"
    assert caught.value.params == {
        "card": "Спальня",
        "category": "weapon",
        "allowed": ["Топор", "Пистолет", "Канделябр", "Молоток", "Веревка", "Нож"],
    }


def test_C1_C2_a_game_that_cannot_be_set_up_is_one_error_type() -> None:
    """The engines' own guard at the start: SetupError (a ValueError), whichever rule."""
    with pytest.raises(SetupError, match="rule C1: at least 3 players, got 2"):
        start_deal(EXAMPLE, ["Кросс", "Дуг"], 1, None)
    with pytest.raises(SetupError, match="rule C1: 4 players need 15 cards, got 12"):
        start_deal(EXAMPLE, ["Кросс", "Дуг", "Роза", "Моро"], 1, None)
    with pytest.raises(SetupError, match="rule C1: the suspect deck holds 1"):
        cards_for_players(["A"], list("bcdef"), list("rstuvw"), 3)
