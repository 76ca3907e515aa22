"""The views of a Cluedo-by-days game (rules C1–C7, D1–D8 of RULES.md): a player's
``STATUS`` answer, what his reminder lists, and everything the GM sees. Pure;
re-exported by :mod:`pbp.games.cluedo_days.engine`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pbp.fairness import commitment
from pbp.games.cluedo.cards import CATEGORIES
from pbp.games.cluedo_days.state import (
    DaysState,
    allowance,
    owed,
    per_addressee_left,
    suggestions_left,
)


def status(state: DaysState, player: str) -> dict[str, Any]:
    """The private ``STATUS`` answer of ``player`` (also his reminder duties).

    Example: ``{"game": "exler-1", "day": 2, "over": False, "winner": None, "out": False,
    "character": "Краснова", "hand": ["нож", "кухня", "Белых"],
    "shown_to_me": [{"number": 3, "card": "труба", "by": "Дуг", "by_gm": False}],
    "shown_by_me": [{"number": 5, "card": "нож", "to": "Моро", "by_gm": True}],
    "owed": [sugg...], "awaiting": [sugg...], "suggestions_left": 2,
    "per_addressee_left": {"Дуг": 2, ...}}`` — ``sugg`` as in the event catalogue;
    ``owed``: suggestions he must answer; ``awaiting``: his unanswered suggestions;
    ``per_addressee_left``: how many more he may address to each player today (D2,
    already capped by ``suggestions_left``); ``removed``: the GM removed him (C5;
    ``out`` is true then too).

    :raises KeyError: ``player`` is not in the game.
    """
    character = dict(state.players)[player]
    return {
        "game": state.game_id,
        "day": state.day,
        "over": state.over,
        "winner": state.winner,
        "out": player in state.out,
        "removed": player in state.removed,
        "character": character,
        "hand": list(state.deal.hands[player]),
        "shown_to_me": [
            {"number": s.number, "card": s.card, "by": s.addressee, "by_gm": s.by_gm}
            for s in state.suggestions
            if s.suggester == player and s.card is not None
        ],
        "shown_by_me": [
            {"number": s.number, "card": s.card, "to": s.suggester, "by_gm": s.by_gm}
            for s in state.suggestions
            if s.addressee == player and s.card is not None
        ],
        "owed": [s.public() for s in owed(state, player)],
        "awaiting": [
            s.public() for s in state.suggestions if s.suggester == player and s.answer is None
        ],
        "suggestions_left": suggestions_left(state, player),
        "per_addressee_left": per_addressee_left(state, player),
    }


def duties(state: DaysState, player: str) -> dict[str, Any]:
    """What a reminder lists: ``{"day", "owed": [sugg...], "suggestions_left": n}``.

    Empty duties (``owed == []`` and ``suggestions_left == 0``) mean no reminder; a
    finished game has none. :raises KeyError: ``player`` is not in the game.
    """
    dict(state.players)[player]
    if state.over:
        return {"day": state.day, "owed": [], "suggestions_left": 0}
    return {
        "day": state.day,
        "owed": [s.public() for s in owed(state, player)],
        "suggestions_left": suggestions_left(state, player),
    }


def gm_view(state: DaysState) -> dict[str, Any]:
    """Everything the GM sees (``pbp show``).

    ``{"game", "day", "over", "winner", "seed", "solution": {suspect, weapon, room},
    "players": [{"name", "character", "hand": [...], "out": bool, "allowance": n,
    "suggestions_left": n, "penalty": n}], "pending": [{**sugg}...] (unanswered),
    "accusations": [{"player", "day", "at", "suspect", "weapon", "room", "correct"}],
    "commitment": hex, "canonical": str}``.
    """
    return {
        "game": state.game_id,
        "day": state.day,
        "over": state.over,
        "winner": state.winner,
        "seed": state.seed,
        "solution": dict(zip(CATEGORIES, state.deal.solution, strict=True)),
        "players": [
            {
                "name": p,
                "character": ch,
                "hand": list(state.deal.hands[p]),
                "out": p in state.out,
                "allowance": allowance(state, p),
                "suggestions_left": suggestions_left(state, p),
                "penalty": state.penalties.get(p, 0),
            }
            for p, ch in state.players
        ],
        "pending": [s.public() for s in state.suggestions if s.answer is None],
        "accusations": [dataclasses.asdict(a) for a in state.accusations],
        "commitment": commitment(state.canonical),
        "canonical": state.canonical,
    }
