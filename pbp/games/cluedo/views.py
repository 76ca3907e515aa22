"""What the public posts and mails of both Cluedo variants show that is computed from
their events (rules C4–C7): each suggestion joined with its answer, the game dealt
(players, cards, rules) with the command help's examples, the end of the game, the
GM-only facts beside a post. Pure; the variants' own post views (:mod:`pbp.games.cluedo_days.views`,
:mod:`pbp.games.cluedo_rounds.views`) build on it. Their shapes are the ``TypedDict``
classes of :mod:`pbp.games.cluedo.shapes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from pbp.games.cluedo.shapes import (
    Answer,
    Examples,
    FinalView,
    GameOver,
    GameStarted,
    StartView,
    SuggestionSeen,
)
from pbp.games.core.events import Event, JsonMap

#: Kinds of public Cluedo events that answer a suggestion (``sugg`` fields).
ANSWERS = ("refuted", "not_refuted")
_ANSWER: dict[str, Answer] = {"refuted": "refuted", "not_refuted": "not_refuted"}

#: The GM-only facts listed beside a post (:func:`gm_facts`).
GM_FACTS = ("gm_refutation", "card_shown", "accusation_made")


def suggestions(events: Sequence[Event]) -> list[SuggestionSeen]:
    """Every ``suggestion_made`` among the PUBLIC ``events`` joined with its answer, by
    number.

    Each item (:class:`~pbp.games.cluedo.shapes.SuggestionSeen`): the ``sugg`` fields
    plus ``answer`` (``"refuted"``, ``"not_refuted"`` or None while unanswered) and
    ``by_gm`` (bool). Example:
    ``{"number": 7, "day": 2, "ordinal": 1, "suggester": "Неташка", "addressee": "Веталь",
    "suspect": "Краснова", "weapon": "нож", "room": "кухня", "answer": "refuted",
    "by_gm": False}``. A suggestion known only from its answer is included too; one the
    GM voided (``suggestion_voided``) is left out.
    """
    items: dict[int, SuggestionSeen] = {}
    for event in events:
        # The suggestion_made data, or an answer's (the sugg fields, by_gm, …).
        data = cast(SuggestionSeen, event.data)
        if event.kind == "suggestion_made":
            items.setdefault(data["number"], {**data, "answer": None, "by_gm": False})
        elif event.kind in ANSWERS:
            item = items.setdefault(data["number"], {**data})
            item["answer"] = _ANSWER[event.kind]
            item["by_gm"] = bool(event.data.get("by_gm", False))
        elif event.kind == "suggestion_voided":  # cancelled by the GM (pbp void)
            items.pop(event.data["number"], None)
    return [items[n] for n in sorted(items)]


def started(events: Sequence[Event]) -> GameStarted | None:
    """The data of the last ``game_started`` among ``events`` (the variant's keys too),
    or None."""
    found = [e.data for e in events if e.kind == "game_started"]
    return cast(GameStarted, dict(found[-1])) if found else None


def commands_of(events: Sequence[Event]) -> Examples | None:
    """The examples of the command help (``parts/commands.j2``) from the game the last
    ``game_started`` among ``events`` dealt: its first suspect, weapon and room, its
    last player and (``first``) its first, the example's addressee in the last player's
    own mail, ``{"suspect", "weapon", "room", "player", "first"}``; None without one
    (the help then shows the game's :meth:`pbp.games.cluedo.config.CluedoGame.examples`
    or invented examples, in the catalog's words)."""
    game = started(events)
    if game is None:
        return None
    cards = game["cards"]
    return {
        "suspect": cards["suspects"][0],
        "weapon": cards["weapons"][0],
        "room": cards["rooms"][0],
        "player": game["players"][-1]["name"],
        "first": game["players"][0]["name"],
    }


def start_view(events: Sequence[Event]) -> StartView:
    """What the opening post and the welcome mail show of the game dealt (C1, C2): the
    data of the ``game_started`` among ``events`` (``players`` [{name, character}],
    ``cards`` {suspects, weapons, rooms}, ``commitment``, the variant's rules),
    ``commands``: :func:`commands_of`, and ``characters``: whether any player plays a
    character (the opening post's heading names them only then).

    :raises LookupError: no ``game_started`` among ``events``.
    """
    game = started(events)
    if game is None:
        raise LookupError("no game_started event")
    characters = any(p.get("character") for p in game["players"])
    # The variant's keys of game_started go on too (its DaysStartView, RoundsStartView).
    return {**game, "commands": commands_of(events), "characters": characters}


def final_view(events: Sequence[Event]) -> FinalView:
    """The end of the game (C7) as the final post shows it: the data of the last
    ``game_over`` among ``events`` (``winner`` | None, ``solution``, ``hands``,
    ``canonical``) and ``commitment``, what the opening post published (None without a
    ``game_started``).

    :raises LookupError: the game is not over (no ``game_over`` among ``events``).
    """
    over = [cast(GameOver, e.data) for e in events if e.kind == "game_over"]
    if not over:
        raise LookupError("the game is not over")
    game = started(events)
    return {**over[-1], "commitment": None if game is None else game["commitment"]}


def gm_facts(post: str, period: int | None, private: Sequence[JsonMap]) -> list[JsonMap]:
    """The GM-only facts a GM's mail beside any post lists, of the non-public
    ``private`` ones (event dicts, in log order): the GM's answers (C5), the cards shown
    (C4) and the accusations (C6); not the deal, which the GM sheet gives.

    A GM answer is listed once: the card it showed is logged twice, as the
    ``gm_refutation`` (who did not answer, why, which card) and as the suggester's
    ``card_shown`` with ``by_gm``, and only the first is kept.

    >>> [f["kind"] for f in gm_facts("day", 1, [{"kind": "deal"}, {"kind": "card_shown"}])]
    ['card_shown']
    >>> answer = [{"kind": "gm_refutation", "number": 2, "card": "нож"},
    ...           {"kind": "card_shown", "number": 2, "card": "нож", "by_gm": True}]
    >>> [f["kind"] for f in gm_facts("turn", 2, answer)]
    ['gm_refutation']
    """
    answered = {fact.get("number") for fact in private if fact["kind"] == "gm_refutation"}

    def twice(fact: JsonMap) -> bool:
        return (
            fact["kind"] == "card_shown"
            and bool(fact.get("by_gm"))
            and (fact.get("number") in answered)
        )

    return [fact for fact in private if fact["kind"] in GM_FACTS and not twice(fact)]
