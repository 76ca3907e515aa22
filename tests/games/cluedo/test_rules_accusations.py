"""Rules C6–C7 of RULES.md ("Common to both Cluedo variants"), each run for both variants.

Every test runs once per driver of :mod:`games.cluedo.drivers` (``@each_variant``:
ids ``days`` and ``rounds``), which plays seed 000's worked example through the real
engines. What the public learns of a wrong accusation differs by default (C6): the cards
are accused aloud in rounds (seed 000) and sent privately to the GM in days (seed 001).

The hands (seed 000): Кросс Петя, Ваня, Нож; Дуг Спальня, Пистолет, Молоток; Роза
Библиотека, Канделябр, Веревка. Solution: Маша, Топор, Столовая. Turn order (rounds):
Кросс, Дуг, Роза.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from kits.seed_000 import HANDS, SOLUTION

from games.cluedo.drivers import (
    NAMES,
    Game,
    Variant,
    each_variant,
    keys,
    one,
    only,
    refusal,
    shapes,
)
from pbp.games.cluedo.cards import CATEGORIES, Deal
from pbp.games.core.events import Event, IllegalMove, Visibility

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM

SOLUTION_JSON = {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"}
HANDS_JSON = {player: list(hand) for player, hand in HANDS.items()}


# --- C6: a wrong accusation ---


@each_variant
def test_C6_a_wrong_accusation_puts_the_player_out(variant: Variant) -> None:
    """C6: Дуг accuses Петя, Топор, Столовая (the suspect is wrong): he is told it was
    wrong, not what is right; the public learns that it was wrong and that he is out."""
    game = variant.begin()
    events = game.accuse("Дуг", "Петя Топор Столовая")
    accusation = only(events, "accusation_made", "accusation_result", "accusation_wrong")
    assert shapes(accusation) == [
        ("accusation_made", GM, None),
        ("accusation_result", PLAYER, "Дуг"),
        ("accusation_wrong", PUBLIC, None),
    ]
    accused = {"suspect": "Петя", "weapon": "Топор", "room": "Столовая"}
    assert dict(accusation[1].data) == {**accused, "correct": False}
    assert accusation[0].data["correct"] is False
    assert accusation[2].data["player"] == "Дуг"
    assert "solution" not in keys(events)  # the solution is not revealed to him
    assert (game.state.out, game.state.over, game.state.winner) == (("Дуг",), False, None)
    assert only(events, "game_over") == []


def doug_out(variant: Variant) -> Game:
    game = variant.begin()
    game.accuse("Дуг", "Петя Топор Столовая")
    return game


@each_variant
def test_C6_a_player_who_is_out_can_no_longer_suggest_or_accuse(variant: Variant) -> None:
    """C6: not even with the right three cards."""
    game = doug_out(variant)
    moves: list[Callable[[], list[Event]]] = [
        lambda: game.suggest("Дуг", "Маша Топор Столовая", to="Роза"),
        lambda: game.accuse("Дуг", "Маша Топор Столовая"),
    ]
    for move in moves:
        with pytest.raises(IllegalMove) as caught:
            move()
        assert refusal(caught) == ("player_out", {"player": "Дуг"})
    assert (game.state.over, game.state.winner) == (False, None)


@each_variant
def test_C6_a_player_who_is_out_must_still_answer(variant: Variant) -> None:
    """C6 (D3 / R4): Дуг, out, is addressed / asked, and must refute with his Молоток."""
    game = doug_out(variant)
    game.suggest("Кросс", "Маша Молоток Столовая", to="Дуг")
    with pytest.raises(IllegalMove) as caught:
        game.answer("Дуг", None)
    assert refusal(caught) == (
        "must_refute",
        {
            "number": 1,
            "suggester": "Кросс",
            "held": ["Молоток"],
            "named": ["Маша", "Молоток", "Столовая"],
        },
    )
    events = game.answer("Дуг", "Молоток")
    assert variant.answerer(one(events, "refuted")) == "Дуг"
    shown = one(events, "card_shown")
    assert (shown.player, shown.data["card"], shown.data["by_gm"]) == ("Кросс", "Молоток", False)


@each_variant
def test_C6_the_gm_answers_for_a_silent_player_who_is_out(variant: Variant) -> None:
    """C6, C5: a player who is out and does not answer is answered for by the GM."""
    game = doug_out(variant)
    game.suggest("Кросс", "Маша Молоток Столовая", to="Дуг")
    events = game.pass_answer_deadline()
    assert one(events, "gm_refutation").data["card"] == "Молоток"
    shown = one(events, "card_shown")
    assert (shown.player, shown.data["card"], shown.data["by_gm"]) == ("Кросс", "Молоток", True)


#: C6's default, by the seeds: accused aloud at the table (rounds, seed 000), sent
#: privately to the GM (days, seed 001).
PUBLISHED_BY_DEFAULT = {"rounds": True, "days": False}


@pytest.mark.parametrize("publish", [None, True, False], ids=["default", "published", "private"])
@each_variant
def test_C6_what_was_accused_is_public_in_rounds_and_private_in_days_by_default(
    variant: Variant, publish: bool | None
) -> None:
    """C6 *config* ``publish_wrong_accusations``: the PUBLIC ``accusation_wrong`` holds the
    three cards when published, None each otherwise; the GM always sees them."""
    game = variant.begin(publish_wrong_accusations=publish)
    events = game.accuse("Кросс", "Петя Топор Столовая")
    accused = {"suspect": "Петя", "weapon": "Топор", "room": "Столовая"}
    published = PUBLISHED_BY_DEFAULT[variant.name] if publish is None else publish
    wrong = one(events, "accusation_wrong")
    assert wrong.visibility is PUBLIC
    assert {k: wrong.data[k] for k in ("player", *CATEGORIES)} == {
        "player": "Кросс",
        **(accused if published else dict.fromkeys(accused)),
    }
    made = one(events, "accusation_made")
    assert made.visibility is GM
    assert {k: made.data[k] for k in ("player", *CATEGORIES)} == {"player": "Кросс", **accused}


@each_variant
def test_C6_games_yaml_keeps_the_variants_default_publicity(variant: Variant) -> None:
    """C6 *config*: a ``games.yaml`` game without ``publish_wrong_accusations`` gets the
    variant's default (rounds: public, days: private); the key overrides it."""
    default = PUBLISHED_BY_DEFAULT[variant.name]
    assert variant.configured_publicity({}) is default
    assert variant.configured_publicity({"publish_wrong_accusations": not default}) is not default


# --- C7: the end ---


@each_variant
def test_C7_the_first_correct_accusation_wins_and_ends_the_game(variant: Variant) -> None:
    """C7: Роза accuses Маша, Топор, Столовая and wins; a second correct accusation,
    arriving later, is refused: the game is over."""
    game = variant.begin()
    events = game.accuse("Роза", "Маша Топор Столовая")
    assert shapes(events) == [
        ("accusation_made", GM, None),
        ("accusation_result", PLAYER, "Роза"),
        ("game_over", PUBLIC, None),
    ]
    assert events[0].data["correct"] is True
    assert dict(events[1].data) == {**SOLUTION_JSON, "correct": True}
    assert events[2].data["winner"] == "Роза"
    assert (game.state.over, game.state.winner, game.state.out) == (True, "Роза", ())
    with pytest.raises(IllegalMove) as caught:
        game.accuse("Кросс", "Маша Топор Столовая")
    assert refusal(caught) == ("game_over", {"winner": "Роза"})
    assert game.state.winner == "Роза"


@each_variant
def test_C7_when_every_player_is_out_the_game_ends_without_a_winner(variant: Variant) -> None:
    """C7: three wrong accusations; the game goes on until the last one."""
    game = variant.begin()
    game.accuse("Кросс", "Петя Топор Столовая")
    game.accuse("Дуг", "Ваня Топор Столовая")
    assert (game.state.over, game.state.out) == (False, ("Кросс", "Дуг"))
    events = game.accuse("Роза", "Маша Нож Столовая")
    assert shapes(events) == [
        ("accusation_made", GM, None),
        ("accusation_result", PLAYER, "Роза"),
        ("accusation_wrong", PUBLIC, None),
        ("game_over", PUBLIC, None),
    ]
    assert events[-1].data["winner"] is None
    assert (game.state.over, game.state.winner, game.state.out) == (True, None, NAMES)


@pytest.mark.parametrize(
    ("accusations", "winner"),
    [
        pytest.param([("Роза", "Маша Топор Столовая")], "Роза", id="won"),
        pytest.param(
            [
                ("Кросс", "Петя Топор Столовая"),
                ("Дуг", "Ваня Топор Столовая"),
                ("Роза", "Маша Нож Столовая"),
            ],
            None,
            id="all out",
        ),
    ],
)
@each_variant
def test_C7_at_the_end_the_solution_and_all_hands_are_public(
    variant: Variant, accusations: list[tuple[str, str]], winner: str | None
) -> None:
    """C7: the PUBLIC ``game_over`` holds the solution and every hand."""
    game = variant.begin()
    for player, cards in accusations:
        game.accuse(player, cards)
    over = one(game.events, "game_over")
    assert over.visibility is PUBLIC
    assert (over.data["winner"], over.data["solution"], over.data["hands"]) == (
        winner,
        SOLUTION_JSON,
        HANDS_JSON,
    )
    assert game.state.deal == Deal(SOLUTION, HANDS)


@each_variant
def test_C7_no_move_is_accepted_after_the_end(variant: Variant) -> None:
    """C7: once Роза has won, every suggestion, answer and accusation is refused, and
    the GM's deadline (D6 / R7) does nothing."""
    game = variant.begin()
    game.accuse("Роза", "Маша Топор Столовая")
    state, logged = game.state, len(game.events)
    moves: list[Callable[[], list[Event]]] = [
        lambda: game.suggest("Кросс", "Маша Топор Столовая", to="Дуг"),
        lambda: game.answer("Дуг", None),
        lambda: game.answer("Дуг", "Пистолет", 1),
        lambda: game.accuse("Дуг", "Маша Топор Столовая"),
    ]
    for move in moves:
        with pytest.raises(IllegalMove) as caught:
            move()
        assert refusal(caught) == ("game_over", {"winner": "Роза"})
    assert game.pass_answer_deadline() == []
    assert (game.state, len(game.events)) == (state, logged)
