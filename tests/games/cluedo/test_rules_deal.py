"""Rules C1–C2 of RULES.md ("Common to both Cluedo variants"), each run for both variants.

Every test runs once per driver of :mod:`games.cluedo.drivers` (``@each_variant``:
ids ``days`` and ``rounds``), which plays seed 000's worked example through the real
engines. C1: at least 3 players and 3M+3 cards, checked by the engine and by the
variant's ``games.yaml`` model (``pbp check``); C2: the seeded deal and its privacy.

The hands (seed 000): Кросс Петя, Ваня, Нож; Дуг Спальня, Пистолет, Молоток; Роза
Библиотека, Канделябр, Веревка. Solution: Маша, Топор, Столовая. Turn order (rounds):
Кросс, Дуг, Роза.
"""

from __future__ import annotations

import pytest
from kits.seed_000 import EXAMPLE, PLAYERS, ROOMS, SUSPECTS, WEAPONS

from games.cluedo.drivers import (
    DAYS,
    EXAMPLE_DECKS,
    NAMES,
    ROUNDS,
    Decks,
    Variant,
    each_variant,
    keys,
    one,
    only,
)
from pbp.games.cluedo.cards import CATEGORIES, CardCountError, Deal, cards_for_players
from pbp.games.core.events import Visibility

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM

# The card lists of seed 000's real game (the bundled games.yaml) and its six players.
SIX = PLAYERS


# --- C1: at least 3 players; 3M+3 cards; decks of at least 3 ---


@each_variant
def test_C1_at_least_3_players(variant: Variant) -> None:
    """C1: the engine and the variant's ``games.yaml`` model refuse 2 players."""
    with pytest.raises(ValueError, match=r"^rule C1: at least 3 players, got 2$"):
        variant.start(NAMES[:2], EXAMPLE, 1)
    assert variant.problems(NAMES[:2], EXAMPLE_DECKS) == ["rule C1: at least 3 players, got 2"]
    assert variant.problems(NAMES, EXAMPLE_DECKS) == []


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@each_variant
def test_C1_M_players_play_with_3M_plus_3_cards(variant: Variant, players: int) -> None:
    """C1: with M players the game uses 3M+3 cards, every one of them dealt once (C2)."""
    names = SIX[:players]
    cards = variant.configure(names, (SUSPECTS, WEAPONS, ROOMS)).to_cards()
    assert cards == cards_for_players(SUSPECTS, WEAPONS, ROOMS, players)
    assert len(cards.all()) == 3 * players + 3
    dealt = variant.start(names, cards, 99).state.deal
    used = [*dealt.solution, *(card for hand in dealt.hands.values() for card in hand)]
    assert sorted(used) == sorted(cards.all())


@each_variant
def test_C1_one_missing_player_drops_the_bottom_card_of_each_deck(variant: Variant) -> None:
    """C1 (seed 000): 5 players of the 6-player lists lose the last suspect, weapon, room."""
    cards = variant.configure(SIX[:5], (SUSPECTS, WEAPONS, ROOMS)).to_cards()
    assert (cards.suspects, cards.weapons, cards.rooms) == (SUSPECTS[:5], WEAPONS[:5], ROOMS[:8])


@each_variant
def test_C1_the_cards_must_come_to_3M_plus_3(variant: Variant) -> None:
    """C1: seed 000's 3 suspects, 6 weapons, 3 rooms are legal for 3 players (12 cards),
    not for 4 (who need 15)."""
    four = (*NAMES, "Моро")
    with pytest.raises(ValueError, match=r"^rule C1: 4 players need 15 cards, got 12$"):
        variant.start(four, EXAMPLE, 1)
    assert variant.problems(four, EXAMPLE_DECKS) == [
        "rule C1: 4 players need 15 cards, the decks hold 12"
    ]
    assert len(variant.start(NAMES, EXAMPLE, 1).state.deal.hands) == 3


@pytest.mark.parametrize(
    ("decks", "message"),
    [
        pytest.param(
            (("Маша",), (*EXAMPLE.weapons, "Лом", "Кочерга"), EXAMPLE.rooms),
            "rule C1: the suspect deck holds 1; each deck needs at least 3 cards (with 1 the "
            "solution is known from the start, with 2 one refutation gives it away)",
            id="1 suspect",
        ),
        pytest.param(
            (("Маша", "Петя"), (*EXAMPLE.weapons, "Лом"), EXAMPLE.rooms),
            "rule C1: the suspect deck holds 2; each deck needs at least 3 cards (with 1 the "
            "solution is known from the start, with 2 one refutation gives it away)",
            id="2 suspects",
        ),
        pytest.param(
            (
                ("Маша", "Петя", "Ваня", "Лёня"),
                ("Топор", "Нож", "Лом"),
                (*EXAMPLE.rooms, "Холл", "Кухня", "Терраса", "Кабинет", "Гостиная"),
            ),
            "rule C1: the weapon deck holds 2 after dropping 1; each deck needs at least 3 "
            "cards (with 1 the solution is known from the start, with 2 one refutation gives "
            "it away)",
            id="2 weapons after the drop",
        ),
    ],
)
@each_variant
def test_C1_a_deck_of_fewer_than_3_cards_is_refused(
    variant: Variant, decks: Decks, message: str
) -> None:
    """C1: ``cards_for_players`` refuses it, and so does the variant's ``games.yaml``."""
    with pytest.raises(CardCountError) as caught:
        cards_for_players(*decks, len(NAMES))
    assert str(caught.value) == message
    assert variant.problems(NAMES, decks) == [message]


# --- C2: the seeded deal, private hands ---

SEED_1234 = Deal(
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


@each_variant
def test_C2_the_seed_takes_one_card_of_each_deck_and_deals_3_to_each_player(
    variant: Variant,
) -> None:
    """C2: seed 1234 with the games.yaml cards gives exactly this deal, again and again;
    the seed is stored with the game (so it can be audited and replayed)."""
    cards = cards_for_players(SUSPECTS, WEAPONS, ROOMS, 6)
    state = variant.start(SIX, cards, 1234).state
    assert state.deal == SEED_1234
    assert [cards.category_of(card) for card in state.deal.solution] == list(CATEGORIES)
    assert {player: len(hand) for player, hand in state.deal.hands.items()} == dict.fromkeys(SIX, 3)
    assert state.seed == 1234
    assert variant.start(SIX, cards, 1234).state.deal == SEED_1234
    assert variant.start(SIX, cards, 1235).state.deal != SEED_1234


@each_variant
def test_C2_hands_are_told_only_in_player_events_to_their_owner(variant: Variant) -> None:
    """C2: only the owner (PLAYER ``hand_dealt``) and the GM (GM ``deal``) see a hand;
    no PUBLIC event carries a hand or the solution."""
    cards = cards_for_players(SUSPECTS, WEAPONS, ROOMS, 6)
    events = variant.start(SIX, cards, 1234).events
    dealt = only(events, "hand_dealt")
    assert [(e.visibility, e.player, e.data["hand"]) for e in dealt] == [
        (PLAYER, p, list(SEED_1234.hands[p])) for p in SIX
    ]
    for e in dealt:
        assert [e.visible_to(p) for p in (None, *SIX)] == [False, *(p == e.player for p in SIX)]
    deal = one(events, "deal")
    assert deal.visibility is GM
    assert (deal.data["solution"], deal.data["hands"]) == (
        dict(zip(CATEGORIES, SEED_1234.solution, strict=True)),
        {p: list(h) for p, h in SEED_1234.hands.items()},
    )
    public = [e for e in events if e.visibility is PUBLIC]
    assert keys(public) & {"hand", "hands", "solution"} == set()


@pytest.mark.parametrize("seed", range(8))
def test_C2_the_same_seed_deals_the_same_hands_in_both_variants(seed: int) -> None:
    """C2: the deal depends on the seed, the cards and the players only, not the variant."""
    for players in (SIX[:3], SIX[:5], SIX):
        cards = cards_for_players(SUSPECTS, WEAPONS, ROOMS, len(players))
        by_days = DAYS.start(players, cards, seed).state.deal
        assert ROUNDS.start(players, cards, seed).state.deal == by_days
