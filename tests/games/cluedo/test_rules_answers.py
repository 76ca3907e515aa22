"""Rules C3–C5 of RULES.md ("Common to both Cluedo variants"), each run for both variants.

Every test runs once per driver of :mod:`games.cluedo.drivers` (``@each_variant``:
ids ``days`` and ``rounds``), which plays seed 000's worked example through the real
engines. Who answers differs by the rules: the addressee (D3) / the player after the
suggester, round the table (R2); and so does when the GM answers for a silent player
(C5): at the day's close (D6) / at the answer deadline (R7).

The hands (seed 000): Кросс Петя, Ваня, Нож; Дуг Спальня, Пистолет, Молоток; Роза
Библиотека, Канделябр, Веревка. Solution: Маша, Топор, Столовая. Turn order (rounds):
Кросс, Дуг, Роза.
"""

from __future__ import annotations

import pytest

from games.cluedo.drivers import (
    NAMES,
    Game,
    Variant,
    each_variant,
    keys,
    leaves,
    one,
    only,
    refusal,
    shapes,
)
from pbp.games.cluedo.cards import CATEGORIES
from pbp.games.core.events import IllegalMove, Visibility

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM


# --- C3: a player may name his own cards ---


@each_variant
def test_C3_a_player_may_name_his_own_cards(variant: Variant) -> None:
    """C3: Кросс names his own Петя and Нож; the suggestion is made as any other, and
    Дуг (the addressee, D3 / the next player, R2) must still refute with his Спальня."""
    game = variant.begin()
    events = game.suggest("Кросс", "Петя Нож Спальня", to="Дуг")
    assert only(events, "refuted", "not_refuted", "card_shown") == []  # nobody answered yet
    made = one(events, "suggestion_made")
    assert made.visibility is PUBLIC
    assert {k: made.data[k] for k in ("suggester", *CATEGORIES)} == {
        "suggester": "Кросс",
        "suspect": "Петя",
        "weapon": "Нож",
        "room": "Спальня",
    }
    with pytest.raises(IllegalMove) as caught:
        game.answer("Дуг", None)
    assert refusal(caught) == (
        "must_refute",
        {
            "number": 1,
            "suggester": "Кросс",
            "held": ["Спальня"],
            "named": ["Петя", "Нож", "Спальня"],
        },
    )
    shown = one(game.answer("Дуг", "Спальня"), "card_shown")
    assert (shown.player, shown.data["card"]) == ("Кросс", "Спальня")


@each_variant
def test_C3_the_answerer_answers_by_his_own_hand_not_the_suggesters(variant: Variant) -> None:
    """C3: Кросс names his Петя and Нож with the solution's Столовая; Дуг holds none of
    them, so he may not show Петя (Кросс's, not his) and says no refutation."""
    game = variant.begin()
    game.suggest("Кросс", "Петя Нож Столовая", to="Дуг")
    with pytest.raises(IllegalMove) as caught:
        game.answer("Дуг", "Петя")
    assert refusal(caught) == (
        "card_not_held",
        {
            "number": 1,
            "suggester": "Кросс",
            "card": "Петя",
            "named": ["Петя", "Нож", "Столовая"],
            "held": [],
        },
    )
    answer = one(game.answer("Дуг", None), "not_refuted")
    assert (answer.visibility, variant.answerer(answer)) == (PUBLIC, "Дуг")
    assert only(game.events, "refuted", "card_shown") == []


# --- C4: refuting ---


def roza_asks_kross(variant: Variant) -> Game:
    """Роза suggests Петя, Нож, Столовая; Кросс (addressee, D3 / after Роза, R2) holds
    Петя and Нож."""
    game = variant.begin()
    game.suggest("Роза", "Петя Нож Столовая", to="Кросс")
    return game


@each_variant
def test_C4_a_player_holding_a_named_card_must_refute(variant: Variant) -> None:
    """C4: "no refutation" while holding a named card is refused, naming what he holds."""
    game = roza_asks_kross(variant)
    with pytest.raises(IllegalMove) as caught:
        game.answer("Кросс", None)
    assert refusal(caught) == (
        "must_refute",
        {
            "number": 1,
            "suggester": "Роза",
            "held": ["Петя", "Нож"],
            "named": ["Петя", "Нож", "Столовая"],
        },
    )
    assert only(game.events, "refuted", "not_refuted", "card_shown") == []


@pytest.mark.parametrize("card", ["Петя", "Нож"], ids=["the suspect", "the weapon"])
@each_variant
def test_C4_a_player_holding_several_chooses_which_to_show(variant: Variant, card: str) -> None:
    """C4: either of Кросс's two named cards is accepted, and that one is shown."""
    game = roza_asks_kross(variant)
    events = game.answer("Кросс", card)
    refuted = one(events, "refuted")
    assert variant.answerer(refuted) == "Кросс"
    shown = one(events, "card_shown")
    assert (shown.visibility, shown.player, shown.data["card"]) == (PLAYER, "Роза", card)


@pytest.mark.parametrize(
    ("card", "code"),
    [
        pytest.param("Ваня", "card_not_named", id="held, not named"),
        pytest.param("Топор", "card_not_named", id="neither named nor held"),
        pytest.param("Столовая", "card_not_held", id="named, not held"),
    ],
)
@each_variant
def test_C4_showing_a_card_not_named_or_not_held_is_refused(
    variant: Variant, card: str, code: str
) -> None:
    """C4: the shown card must be one of the three named and in his hand."""
    game = roza_asks_kross(variant)
    with pytest.raises(IllegalMove) as caught:
        game.answer("Кросс", card)
    assert refusal(caught) == (
        code,
        {
            "number": 1,
            "suggester": "Роза",
            "card": card,
            "named": ["Петя", "Нож", "Столовая"],
            "held": ["Петя", "Нож"],
        },
    )
    assert only(game.events, "refuted", "not_refuted", "card_shown") == []


#: What follows a refutation in the same step, all PUBLIC: nothing (days: the addressee
#: alone answers, D3) / the end of the round and the next turn (rounds, R2, R3).
AFTER_A_REFUTATION = {
    "days": [],
    "rounds": [("round_ended", PUBLIC, None), ("turn_started", PUBLIC, None)],
}


@each_variant
def test_C4_the_shown_card_reaches_only_the_suggester(variant: Variant) -> None:
    """C4: Роза alone sees Нож; everybody learns that Кросс showed a card, not which: no
    PUBLIC event holds a shown card, and Нож appears in public only as a named card."""
    game = roza_asks_kross(variant)
    events = game.answer("Кросс", "Нож")
    assert shapes(events[:2]) == [("refuted", PUBLIC, None), ("card_shown", PLAYER, "Роза")]
    assert shapes(events[2:]) == AFTER_A_REFUTATION[variant.name]
    refuted, shown = events[:2]
    assert variant.answerer(refuted) == "Кросс"
    assert shown.data["card"] == "Нож"
    assert [shown.visible_to(p) for p in (None, *NAMES)] == [False, False, False, True]
    public = game.public()
    assert "card" not in keys(public)
    for event in public:
        for path, value in leaves(dict(event.data)):
            if value == "Нож":  # named in the suggestion, or in the list of cards (D1)
                assert path[-1] == "weapon" or path == ("cards", "weapons"), (event, path)


# --- C5: the GM's default refutation ---


@pytest.mark.parametrize(
    ("suggester", "cards", "answerer", "card"),
    [
        pytest.param("Роза", "Петя Нож Столовая", "Кросс", "Петя", id="suspect before weapon"),
        pytest.param("Кросс", "Маша Пистолет Спальня", "Дуг", "Пистолет", id="weapon before room"),
        pytest.param(
            "Дуг", "Маша Веревка Библиотека", "Роза", "Веревка", id="not the hand's order"
        ),
        pytest.param("Дуг", "Маша Топор Библиотека", "Роза", "Библиотека", id="room alone"),
        pytest.param("Кросс", "Маша Топор Столовая", "Дуг", None, id="none held"),
    ],
)
@each_variant
def test_C5_the_gm_shows_the_first_matching_card_in_suspect_weapon_room_order(
    variant: Variant, suggester: str, cards: str, answerer: str, card: str | None
) -> None:
    """C5: for a player who does not answer in time (D6: at the day's close; R7: at the
    answer deadline) the GM shows the first card he holds of suspect, weapon, room
    (Роза's hand starts with Библиотека, yet Веревка goes first), else no refutation."""
    game = variant.begin()
    game.suggest(suggester, cards, to=answerer)
    events = only(
        game.pass_answer_deadline(), "gm_refutation", "refuted", "not_refuted", "card_shown"
    )
    if card is None:
        assert shapes(events) == [("gm_refutation", GM, None), ("not_refuted", PUBLIC, None)]
    else:
        assert shapes(events) == [
            ("gm_refutation", GM, None),
            ("refuted", PUBLIC, None),
            ("card_shown", PLAYER, suggester),
        ]
        assert (events[2].data["card"], events[2].data["by_gm"]) == (card, True)
    assert events[0].data["card"] == card
    assert (variant.answerer(events[1]), events[1].data["by_gm"]) == (answerer, True)
    assert "card" not in events[1].data
