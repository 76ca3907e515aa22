"""The steps both Cluedo variants take alike (rules C2, C5–C7). Pure: no I/O, no clock.

Each variant's engine (:mod:`pbp.games.cluedo_days.engine`,
:mod:`pbp.games.cluedo_rounds.engine`) calls these on its own state (a
:class:`~pbp.games.cluedo.state.CluedoState`) and goes on with its own rules:

- :func:`dealt` and :func:`deal_events` — the deal a game starts with (C1, C2), with the
  state's other shared fields, and the events that tell it.
- :func:`dispatch` — the checks every move passes first (C7: not over; a player), then
  the variant's handler.
- :func:`check_answer` — C4: a legal answer to a suggestion.
- :func:`check_may_act` — C5, C6: a removed player or one who is out neither suggests
  nor accuses.
- :func:`accuse` — C6, C7: the accusation recorded, told, and the game won or the
  accuser out.
- :func:`removal` — C5: the GM removes a player (the variant then answers for him).
- :func:`end_if_nobody_left` and :func:`game_over` — C7.

The events' shapes are in the variants' engine docstrings, as ``TypedDict`` classes in
:mod:`pbp.games.cluedo.shapes` (those of both) and the variants' ``shapes`` modules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Generic, TypeVar

from pbp.games.cluedo.cards import (
    Accuse,
    CluedoMove,
    NoRefutation,
    Refute,
    Suggest,
    check_accusation,
    check_refutation,
    deal_as_json,
    start_deal,
)
from pbp.games.cluedo.shapes import (
    AccusationMade,
    AccusationResult,
    AccusationWrong,
    Dealt,
    GameOver,
    HandDealt,
    Period,
    PlayerRemoved,
    SolutionJson,
)
from pbp.games.cluedo.state import AnyState, CluedoSetup, R, Record, TableFields
from pbp.games.core.events import Event, IllegalMove, SetupError, Step, Visibility, utc_iso

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM

S = TypeVar("S", bound=AnyState)


class DealtFields(TableFields, Generic[R]):
    """What :func:`dealt` gives: the shared fields of a variant's state at the start,
    its ``rules`` too."""

    rules: R


# --- start (C1, C2) ---


def dealt(setup: CluedoSetup[R], seed: int, salt: bytes) -> DealtFields[R]:
    """The shared fields of the state a game of ``setup`` starts with, as keyword
    arguments of the variant's state: ``game_id, players, cards, rules, seed, salt``
    (hex) and ``deal`` (C1, C2: from ``random.Random(seed)``, or ``setup.deal`` checked;
    :func:`~pbp.games.cluedo.cards.start_deal`).

    :raises ValueError: fewer than 3 players (C1), a player named twice, cards that are
        not 3M+3 (C1), a fixed deal that breaks C2, or an empty ``salt``.
    """
    names = [name for name, _ in setup.players]
    found = start_deal(setup.cards, names, seed, setup.deal)
    if not salt:
        raise SetupError("the fairness salt is empty (DESIGN.md: 32 random bytes)")
    return {
        "game_id": setup.game_id,
        "players": tuple(setup.players),
        "cards": setup.cards,
        "rules": setup.rules,
        "deal": found,
        "seed": seed,
        "salt": salt.hex(),
    }


def deal_events(state: AnyState) -> list[Event]:
    """C2: GM ``deal`` {solution, hands, seed, canonical}
    (:class:`~pbp.games.cluedo.shapes.Dealt`), then one PLAYER ``hand_dealt``
    {character, hand} (:class:`~pbp.games.cluedo.shapes.HandDealt`) per player in
    configured order."""
    dealt_ = state.deal
    data: Dealt = {**deal_as_json(dealt_), "seed": state.seed, "canonical": state.canonical}
    hands: list[tuple[str, HandDealt]] = [
        (p, {"character": ch, "hand": list(dealt_.hands[p])}) for p, ch in state.players
    ]
    return [Event("deal", GM, data), *(Event("hand_dealt", PLAYER, h, player=p) for p, h in hands)]


# --- moves ---


def dispatch(
    state: S,
    player: str,
    move: CluedoMove,
    at: datetime,
    *,
    suggest: Callable[[S, str, Suggest, str], Step[S]],
    answer: Callable[[S, str, int | None, str | None, str], Step[S]],
    accuse: Callable[[S, str, Accuse, str], Step[S]],
) -> Step[S]:
    """The checks every Cluedo move passes first, then the variant's own handler.

    The game must not be over (C7) and ``player`` must play; ``at`` goes on as ISO
    UTC text. A refutation and a no refutation both go to ``answer`` (``card`` None
    for the latter).

    :raises IllegalMove: ``game_over`` {winner}; ``not_a_player`` {player, players}.
    :raises ValueError: ``at`` is naive. :raises TypeError: not a Cluedo move.
    """
    stamp = utc_iso(at)
    if state.over:
        raise IllegalMove("game_over", winner=state.winner)
    if player not in state.names:
        raise IllegalMove("not_a_player", player=player, players=state.names)
    if isinstance(move, Suggest):
        return suggest(state, player, move, stamp)
    if isinstance(move, Refute):
        return answer(state, player, move.number, move.card, stamp)
    if isinstance(move, NoRefutation):
        return answer(state, player, move.number, None, stamp)
    if isinstance(move, Accuse):
        return accuse(state, player, move, stamp)
    raise TypeError(f"not a move of the game: {move!r}")


def check_answer(
    hand: Sequence[str], named: Sequence[str], card: str | None, *, number: int, suggester: str
) -> None:
    """C4: is showing ``card`` (None: no refutation) from ``hand`` a legal answer to
    suggestion ``number`` of ``suggester``, which names ``named``
    (:func:`~pbp.games.cluedo.cards.check_refutation`)?

    :raises IllegalMove: ``must_refute``, ``card_not_named``, ``card_not_held``, their
        params with ``number`` and ``suggester`` added.
    """
    try:
        check_refutation(hand, named, card)
    except IllegalMove as error:
        raise IllegalMove(error.code, number=number, suggester=suggester, **error.params) from None


def check_may_act(state: AnyState, player: str) -> None:
    """C5, C6: may ``player`` (one of the game's) still suggest or accuse?

    :raises IllegalMove: ``removed_by_gm`` {player} (C5); ``player_out`` {player} (C6).
    """
    if player in state.removed:  # C5: removed by the GM, not out by an accusation
        raise IllegalMove("removed_by_gm", player=player)
    if player in state.out:
        raise IllegalMove("player_out", player=player)


def accusation_events(
    player: str, move: Accuse, correct: bool, *, at: str, period: Period, publish: bool
) -> list[Event]:
    """C6, C7: what an accusation by ``player`` at ``at`` tells whom. GM
    ``accusation_made`` {player, **period, suspect, weapon, room, correct, at}; PLAYER
    ``accusation_result`` {suspect, weapon, room, correct}; when wrong, PUBLIC
    ``accusation_wrong`` {player, **period, suspect, weapon, room}, the three cards None
    each unless ``publish`` (*config* ``publish_wrong_accusations``). ``period``: the
    variant's ``{"day": n}`` or ``{"turn": n}``. Shapes:
    :class:`~pbp.games.cluedo.shapes.AccusationMade`, ``AccusationResult``,
    ``AccusationWrong``."""
    cards: SolutionJson = {"suspect": move.suspect, "weapon": move.weapon, "room": move.room}
    made: AccusationMade = {"player": player, **period, **cards, "correct": correct, "at": at}
    result: AccusationResult = {**cards, "correct": correct}
    events = [
        Event("accusation_made", GM, made),
        Event("accusation_result", PLAYER, result, player=player),
    ]
    if not correct:
        wrong: AccusationWrong = {
            "player": player,
            **period,
            "suspect": move.suspect if publish else None,
            "weapon": move.weapon if publish else None,
            "room": move.room if publish else None,
        }
        events.append(Event("accusation_wrong", PUBLIC, wrong))
    return events


def accuse(
    state: S,
    player: str,
    move: Accuse,
    at: str,
    *,
    period: Period,
    record: Callable[..., Record],
) -> tuple[S, list[Event]]:
    """C6, C7: ``player``'s accusation ``move`` at ``at`` (ISO UTC), checked by the
    variant first (named cards, :func:`check_may_act`, its own rules) → the state with it
    and its events (:func:`accusation_events`). ``record``: the variant's accusation
    record, built from ``player, at, correct, suspect, weapon, room`` and ``period``
    (``{"day": n}`` or ``{"turn": n}``).

    Correct: he wins and the game is over (PUBLIC ``game_over``). Wrong: he is out, and
    the game is over with no winner when nobody is left (:func:`end_if_nobody_left`);
    else the variant goes on (``over`` False in the state returned).
    """
    correct = check_accusation(state.deal.solution, move.suspect, move.weapon, move.room)
    cards = {"suspect": move.suspect, "weapon": move.weapon, "room": move.room}
    accusation = record(player=player, **period, at=at, correct=correct, **cards)
    new = dataclasses.replace(state, accusations=(*state.accusations, accusation))
    publish = state.rules.publish_wrong_accusations
    events = accusation_events(player, move, correct, at=at, period=period, publish=publish)
    if correct:  # C7: the first correct accusation wins
        new = dataclasses.replace(new, winner=player, over=True)
        return new, [*events, game_over(new)]
    new = dataclasses.replace(new, out=(*state.out, player))
    return end_if_nobody_left(new, events)


# --- the GM's removal (C5) ---


def removal(state: S, player: str, *, period: Period) -> tuple[S, list[Event]]:
    """C5: the GM removes ``player``: his seat stays, he is out (he can no longer suggest
    or accuse, as out, C6) and among ``removed`` (the GM answers for him; the variant
    does it, now and later). → the state and PUBLIC ``player_removed`` {player,
    **period} (``{"day": n}`` or ``{"turn": n}``). The variant then answers what he
    owes and ends the game when nobody is left (:func:`end_if_nobody_left`).

    :raises IllegalMove: ``game_over`` {winner}; ``not_a_player`` {player, players};
        ``already_removed`` {player}.
    """
    if state.over:
        raise IllegalMove("game_over", winner=state.winner)
    if player not in state.names:
        raise IllegalMove("not_a_player", player=player, players=state.names)
    if player in state.removed:
        raise IllegalMove("already_removed", player=player)
    out = state.out if player in state.out else (*state.out, player)
    new = dataclasses.replace(state, out=out, removed=(*state.removed, player))
    removed: PlayerRemoved = {"player": player, **period}
    return new, [Event("player_removed", PUBLIC, removed)]


# --- the end (C7) ---


def end_if_nobody_left(state: S, events: Iterable[Event]) -> tuple[S, list[Event]]:
    """C7: when every player is out, the game is over with no winner: ``state`` marked
    over and ``events`` followed by PUBLIC ``game_over``; else both as they are."""
    told = list(events)
    if set(state.out) == set(state.names):  # C7: nobody left
        state = dataclasses.replace(state, over=True)
        told.append(game_over(state))
    return state, told


def game_over(state: AnyState) -> Event:
    """C7: PUBLIC ``game_over`` {solution, hands, winner, canonical}
    (:class:`~pbp.games.cluedo.shapes.GameOver`): the solution and all hands are
    published, with the fairness text (DESIGN.md)."""
    data: GameOver = {
        **deal_as_json(state.deal),
        "winner": state.winner,
        "canonical": state.canonical,
    }
    return Event("game_over", PUBLIC, data)
