"""The views of a Cluedo-by-days game (rules C1–C7, D1–D8 of RULES.md): a player's
``STATUS`` answer, what his reminder lists, everything the GM sees, and what the
public posts show (:func:`post_view`: the day's suggestions with their answers,
penalties and allowances; the final post's last day). Pure;
re-exported by :mod:`pbp.games.cluedo_days.engine`. Their shapes are the ``TypedDict``
classes of :mod:`pbp.games.cluedo_days.shapes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal, cast, overload

from pbp.games.cluedo.cards import solution_as_json
from pbp.games.cluedo.shapes import AccusationWrong, HelpView
from pbp.games.cluedo.views import ANSWERS, commands_of, start_view, suggestions
from pbp.games.cluedo.views import final_view as over_view
from pbp.games.cluedo_days.shapes import (
    DayClosed,
    DaysDuties,
    DaysFinalView,
    DaysStartView,
    DaysSuggestionSeen,
    DayView,
    EndedSugg,
    GmView,
    Pending,
    PostView,
    StatusView,
    SuggDue,
)
from pbp.games.cluedo_days.state import (
    DaysState,
    Suggestion,
    allowance,
    carried_past,
    owed,
    per_addressee_left,
    suggestions_left,
)
from pbp.games.core.events import Event, event_dict
from pbp.text.fairness import commitment


def reply_events(events: Sequence[Event]) -> list[dict[str, object]]:
    """The events of a reply to a player's move (those he may see, in order) as
    :func:`pbp.games.core.events.event_dict` gives them, with ``gm_answers`` (bool) on each
    ``suggestion_made``: its addressee was removed, so the GM answered it at once (C5)
    and no mail went to him; the answer follows among ``events`` (``by_gm``)."""
    by_gm = {e.data["number"] for e in events if e.kind in ANSWERS and e.data["by_gm"]}
    told: list[dict[str, object]] = []
    for e in events:
        item: dict[str, object] = {**event_dict(e)}
        if e.kind == "suggestion_made":
            item["gm_answers"] = e.data["number"] in by_gm
        told.append(item)
    return told


def status(
    state: DaysState,
    player: str,
    close_at: datetime | None = None,
    next_close_at: datetime | None = None,
) -> StatusView:
    """The private ``STATUS`` answer of ``player`` (also what a substitute's briefing
    shows of the seat; :class:`~pbp.games.cluedo_days.shapes.StatusView`).

    Example: ``{"game": "exler-1", "day": 2, "over": False, "winner": None, "out": False,
    "character": "Краснова", "hand": ["нож", "кухня", "Белых"],
    "shown_to_me": [{"number": 3, "card": "труба", "by": "Дуг", "by_gm": False}],
    "shown_by_me": [{"number": 5, "card": "нож", "to": "Моро", "by_gm": True}],
    "owed": [sugg...], "awaiting": [sugg...], "suggestions_left": 2,
    "per_addressee_left": {"Дуг": 2, ...}}`` — ``sugg`` as in the event catalogue;
    ``owed``: suggestions he must answer; ``awaiting``: his unanswered suggestions;
    each of both with ``due``: None when it is due at the close of the current day (at
    ``close_at``, aware, as stored; None: not known), else ``{"day": the next day, "at":
    next_close_at}``, the close the grace carries it to (D6:
    :func:`~pbp.games.cluedo_days.state.carried_past`); ``per_addressee_left``: how
    many more he may address to each player today (D2, already capped by
    ``suggestions_left``); ``removed``: the GM removed him (C5; ``out`` is true then
    too).

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
        "owed": [_with_due(state, s, close_at, next_close_at) for s in owed(state, player)],
        "awaiting": [
            _with_due(state, s, close_at, next_close_at)
            for s in state.suggestions
            if s.suggester == player and s.answer is None
        ],
        "suggestions_left": suggestions_left(state, player),
        "per_addressee_left": per_addressee_left(state, player),
    }


def _with_due(
    state: DaysState, s: Suggestion, close_at: datetime | None, next_close_at: datetime | None
) -> SuggDue:
    """``s`` (unanswered) as the event catalogue's ``sugg`` with ``due``: None at the
    close at ``close_at`` (or not known), else ``{"day", "at": next_close_at}`` (D6)."""
    carried = close_at is not None and carried_past(state, s, close_at)
    return {**s.public(), "due": {"day": state.day + 1, "at": next_close_at} if carried else None}


def duties(state: DaysState, player: str, close_at: datetime | None = None) -> DaysDuties:
    """What a reminder lists: ``{"day", "owed": [sugg...], "later": [sugg...],
    "suggestions_left": n}``.

    ``owed``: the answers ``player`` owes by the close at ``close_at`` (aware; the
    current day's, None: not known, then every answer he owes is listed here);
    ``later``: those the grace carries to the next day's close (D6:
    :func:`~pbp.games.cluedo_days.state.carried_past`), each with ``due_day``, the day
    at whose close it is due. Empty duties (no answers owed and ``suggestions_left ==
    0``) mean no reminder; a finished game has none. :raises KeyError: ``player`` is
    not in the game.
    """
    dict(state.players)[player]
    if state.over:
        return {"day": state.day, "owed": [], "later": [], "suggestions_left": 0}
    due = owed(state, player)
    later = [s for s in due if close_at is not None and carried_past(state, s, close_at)]
    return {
        "day": state.day,
        "owed": [s.public() for s in due if s not in later],
        "later": [{**s.public(), "due_day": state.day + 1} for s in later],
        "suggestions_left": suggestions_left(state, player),
    }


def gm_view(state: DaysState, close_at: datetime | None = None) -> GmView:
    """Everything the GM sees (``pbp show``).

    ``{"game", "day", "over", "winner", "seed", "solution": {suspect, weapon, room},
    "players": [{"name", "character", "hand": [...], "out": bool, "allowance": n,
    "suggestions_left": n, "penalty": n}], "pending": [{**sugg, due_day}...]
    (unanswered: :func:`pending`), "accusations": [{"player", "day", "at", "suspect",
    "weapon", "room", "correct"}], "commitment": hex, "canonical": str}``.
    """
    return {
        "game": state.game_id,
        "day": state.day,
        "over": state.over,
        "winner": state.winner,
        "seed": state.seed,
        "solution": solution_as_json(state.deal.solution),
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
        "pending": pending(state, close_at),
        "accusations": [a.as_json() for a in state.accusations],
        "commitment": commitment(state.canonical),
        "canonical": state.canonical,
    }


def pending(state: DaysState, close_at: datetime | None = None) -> list[Pending]:
    """Every suggestion waiting for an answer, as the GM sees them (``pbp show``, his
    STATUS): the event catalogue's ``sugg`` with ``due_day``: the next day for one the
    grace carries past the close at ``close_at`` (aware, as stored; D6:
    :func:`~pbp.games.cluedo_days.state.carried_past`), None for one due at that
    close (or when ``close_at`` is None: not known)."""
    return [
        {
            **s.public(),
            "due_day": state.day + 1
            if close_at is not None and carried_past(state, s, close_at)
            else None,
        }
        for s in state.suggestions
        if s.answer is None
    ]


# --- the public posts (rules D1, D7, C7) ---


@overload
def post_view(
    post: Literal["opening", "welcome"], events: Sequence[Event], day: int | None
) -> DaysStartView: ...
@overload
def post_view(post: Literal["help"], events: Sequence[Event], day: int | None) -> HelpView: ...
@overload
def post_view(post: Literal["day"], events: Sequence[Event], day: int | None) -> DayView: ...
@overload
def post_view(
    post: Literal["final"], events: Sequence[Event], day: int | None
) -> DaysFinalView: ...
@overload
def post_view(post: str, events: Sequence[Event], day: int | None) -> PostView: ...
def post_view(post: str, events: Sequence[Event], day: int | None) -> PostView:
    """What the public post ``post`` of game day ``day`` (None: the latest) shows, from
    the game's PUBLIC ``events`` (in log order): the ``opening`` post and the
    ``welcome`` mail :func:`pbp.games.cluedo.views.start_view`, the ``day`` post
    :func:`day_view`, the ``final`` post :func:`final_view`, the ``help`` mail
    ``{"commands": examples | None}`` (:func:`pbp.games.cluedo.views.commands_of`);
    ``{}`` for the ``move`` snippet, which lays out its events as they are.

    :raises LookupError: the opening without ``game_started``, the final post of a
        game not over.
    """
    if post in ("opening", "welcome"):
        # D6's grace, 0 for a game logged before its game_started told it; the rest of
        # the view is the DaysGameStarted data as logged.
        return cast(DaysStartView, {"answer_grace_hours": 0.0, **start_view(events)})
    if post == "help":
        return {"commands": commands_of(events)}
    if post == "day":
        return day_view(events, day)
    if post == "final":
        return final_view(events)
    return {}


def day_view(events: Sequence[Event], day: int | None) -> DayView:
    """Game day ``day`` (None: the last closed) as its summary post shows it (D6, D7,
    C5, C6, P1), from ``events`` as they were when the day closed (those logged after
    its ``day_closed`` play no part, so the post reads the same whenever it is printed):
    ``{"day": d, "next": d + 1, "closed": bool (its ``day_closed`` is among ``events``),
    "over": bool (closed, or the game ended on it: an accusation ends it before the
    close), "today": [suggestion...] (the day's, with their answers:
    :func:`pbp.games.cluedo.views.suggestions`, and ``due_day``: d + 1 for one the grace
    carried to the next close, D6, else None), "earlier": [suggestion...] (of earlier
    days, answered this day, by the addressee or by the GM at this close), "by_gm":
    [suggestion...] (every one the GM answered at this close), "penalties": [[player,
    n]...] (n > 0: suggestions fewer the next day), "wrong": [accusation_wrong data...]
    (the day's), "out": [player...], "allowances": [[player, n]...] (suggestions the next
    day)}``; a day still open has no penalties, out or allowances.
    """
    closes = [(i, cast(DayClosed, e.data)) for i, e in enumerate(events) if e.kind == "day_closed"]
    found = closes[-1:] if day is None else [c for c in closes if c[1]["day"] == day]
    closed: DayClosed | None = None
    if found:
        end, closed = found[0]
        day = int(closed["day"])
        events = events[: end + 1]  # the day as it closed (P1)
    # The day's own events begin after the close of the day before.
    begins = max((i + 1 for i, c in closes if day is not None and c["day"] < day), default=0)
    answered_today = {e.data["number"] for e in events[begins:] if e.kind in ANSWERS}
    every = _suggestions(events)
    carried = set(closed.get("carried", ())) if closed is not None else set()
    answered = set(closed["gm_answered"]) if closed is not None else set()
    return {
        "day": day,
        "next": None if day is None else day + 1,
        "closed": closed is not None,
        "over": closed is not None or any(e.kind == "game_over" for e in events),
        "today": [
            {**s, "due_day": day + 1 if s["number"] in carried and day is not None else None}
            for s in every
            if s["day"] == day
        ],
        "earlier": [
            s for s in every if day is not None and s["day"] < day and s["number"] in answered_today
        ],
        "by_gm": [s for s in every if s["number"] in answered],
        "penalties": [[p, n] for p, n in (closed["penalties"] if closed else {}).items() if n > 0],
        "wrong": [
            cast(AccusationWrong, e.data)
            for e in events
            if e.kind == "accusation_wrong" and e.data["day"] == day
        ],
        "out": list(closed["out"]) if closed else [],
        "allowances": [[p, n] for p, n in (closed["allowances"] if closed else {}).items()],
    }


def final_view(events: Sequence[Event]) -> DaysFinalView:
    """The final post (C7): :func:`pbp.games.cluedo.views.final_view` (winner,
    solution, hands, canonical, commitment) and the last day, which never closed (C6,
    D7), as :func:`day_view` shows it: ``"day"`` (the day after the last closed),
    ``"last"`` [suggestion...] of that day, ``"earlier"`` [suggestion...] (of earlier
    days, answered that day or still waiting when the game ended: the grace carried
    them, D6) and ``"wrong"`` [accusation_wrong data...] of that day; each suggestion
    with ``ended``: True when the game ended before its answer.

    :raises LookupError: the game is not over.
    """
    view = over_view(events)
    closed = [int(e.data["day"]) for e in events if e.kind == "day_closed"]
    last = max(closed) + 1 if closed else 1
    day = day_view(events, last)
    # The grace carried these to the last day's close, which never came (D6, D7).
    waiting = [s for s in _suggestions(events) if s["day"] < last and s["answer"] is None]
    return {
        **view,
        "day": last,
        "last": [_ended(s) for s in day["today"]],
        "earlier": [_ended(s) for s in [*day["earlier"], *waiting]],
        "wrong": day["wrong"],
    }


def _suggestions(events: Sequence[Event]) -> list[DaysSuggestionSeen]:
    """:func:`pbp.games.cluedo.views.suggestions` of the days variant's events."""
    return cast(list[DaysSuggestionSeen], suggestions(events))


def _ended(s: DaysSuggestionSeen) -> EndedSugg:
    """Suggestion ``s`` of the final post: ``ended`` True when the game ended before its
    answer, which can no longer come (C7)."""
    return {**s, "ended": s["answer"] is None}
