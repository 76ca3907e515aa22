"""What the public posts of a Cluedo-by-rounds game show (rules R1–R7, C4–C7),
computed from its PUBLIC events: the opening with who starts, one turn with each
suggestion's answers round the table, the forum snippet of a move, the final post; and
what the reply to a player's move shows of its events. Pure. Their shapes are the
``TypedDict`` classes of :mod:`pbp.games.cluedo_rounds.shapes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, cast, overload

from pbp.games.cluedo.shapes import AccusationWrong, FinalView, GameOver, HelpView
from pbp.games.cluedo.views import ANSWERS, commands_of, final_view, start_view
from pbp.games.cluedo_rounds.shapes import (
    Answered,
    Move,
    MoveData,
    MoveView,
    OpeningView,
    PostView,
    RoundEnded,
    RoundsStartView,
    Sugg,
    TurnAnswer,
    TurnSkipped,
    TurnStarted,
    TurnSuggestion,
    TurnView,
)
from pbp.games.core.events import Event, event_dict


@overload
def post_view(
    post: Literal["opening"], events: Sequence[Event], turn: int | None
) -> OpeningView: ...
@overload
def post_view(
    post: Literal["welcome"], events: Sequence[Event], turn: int | None
) -> RoundsStartView: ...
@overload
def post_view(post: Literal["help"], events: Sequence[Event], turn: int | None) -> HelpView: ...
@overload
def post_view(
    post: Literal["turn", "day"], events: Sequence[Event], turn: int | None
) -> TurnView: ...
@overload
def post_view(post: Literal["final"], events: Sequence[Event], turn: int | None) -> FinalView: ...
@overload
def post_view(post: Literal["move"], events: Sequence[Event], turn: int | None) -> MoveView: ...
@overload
def post_view(post: str, events: Sequence[Event], turn: int | None) -> PostView: ...
def post_view(post: str, events: Sequence[Event], turn: int | None) -> PostView:
    """What the public post ``post`` of ``turn`` (None: the current) shows, from the
    game's PUBLIC ``events`` (in log order): the ``opening`` post :func:`opening_view`,
    the ``welcome`` mail :func:`pbp.games.cluedo.views.start_view`, the ``turn`` post
    (and ``day``, its name for ``pbp post --day``) :func:`turn_view`, the ``final`` post
    :func:`pbp.games.cluedo.views.final_view`, the ``help`` mail ``{"commands":
    examples | None}``, the ``move`` snippet :func:`move_view`.

    :raises LookupError: the opening without ``game_started``, a turn before any
        started, the final post of a game not over.
    """
    if post == "opening":
        return opening_view(events)
    if post == "welcome":
        return _start_view(events)
    if post == "help":
        return {"commands": commands_of(events)}
    if post in ("turn", "day"):
        return turn_view(events, turn)
    if post == "final":
        return final_view(events)
    if post == "move":
        return move_view(events)
    return {}


def own_answer(answer: Mapping[str, object]) -> bool:
    """R2, R6, R7: True when an answer (refuted / not_refuted data) is one its player
    gave himself (by mail, or the GM's ACT for him), not the engine's at once (R6,
    ``auto``) nor the GM's at the deadline or for a removed player (R7, C5, ``by_gm``)."""
    return not answer["auto"] and not answer["by_gm"]


def move_view(events: Sequence[Event]) -> MoveView:
    """The forum snippet of one player's move (``events``: the move's PUBLIC events):
    ``{"moves": [{"kind", "s": its data}...]}``, in order, what he did himself — his
    suggestion (``suggestion_made``), his own answer (refuted / not_refuted,
    :func:`own_answer`; the answers given automatically or by the GM after it are not
    his: the ``turn`` post reports them), his wrong accusation (``accusation_wrong``)
    and his right one (``game_over`` with a winner)."""
    moves: list[Move] = []
    for e in events:
        if (
            e.kind in ("suggestion_made", "accusation_wrong")
            or (e.kind in ANSWERS and own_answer(e.data))
            or (e.kind == "game_over" and e.data.get("winner"))
        ):
            # The event's data as logged: a suggestion, an answer, an accusation, the end.
            data = cast(MoveData, e.data)
            moves.append({"kind": e.kind, "s": data})
    return {"moves": moves}


def reply_events(events: Sequence[Event], player: str) -> list[dict[str, object]]:
    """The events of a reply to ``player``'s move (those he may see, in order) as
    :func:`pbp.games.core.events.event_dict` gives them, with ``own_answer`` (bool) on each
    answer: his own (given by him, :func:`own_answer`: "Accepted: refutation…"), not
    one the engine or the GM gave after it; and ``own_turn`` (bool) on each
    ``turn_started``: the next turn is his."""
    told: list[dict[str, object]] = []
    for e in events:
        item: dict[str, object] = {**event_dict(e)}
        if e.kind in ANSWERS:
            item["own_answer"] = e.data["by"] == player and own_answer(e.data)
        elif e.kind == "turn_started":
            item["own_turn"] = e.data["player"] == player
        told.append(item)
    return told


def _start_view(events: Sequence[Event]) -> RoundsStartView:
    """:func:`pbp.games.cluedo.views.start_view` of the rounds variant's
    ``game_started`` (its rules as logged)."""
    return cast(RoundsStartView, start_view(events))


def opening_view(events: Sequence[Event]) -> OpeningView:
    """The opening post (R1, C1): :func:`pbp.games.cluedo.views.start_view` and
    ``"first"``, the player of the first ``turn_started`` (None before it)."""
    first = [e.data["player"] for e in events if e.kind == "turn_started"]
    return {**_start_view(events), "first": first[0] if first else None}


def _of_turn(events: Sequence[Event], turn: int, *kinds: str) -> list[Event]:
    return [e for e in events if e.kind in kinds and e.data["turn"] == turn]


def turn_view(events: Sequence[Event], turn: int | None) -> TurnView:
    """Turn ``turn`` (None: the last started) as its post shows it (R2–R7, C4, C6):
    ``{"turn": n, "player": name | None (whose turn), "suggestions": [{"s": the
    suggestion_made data, "answers": [{"answer": the refuted / not_refuted data,
    "refuted": bool}...] (round the table, in order), "end": "shown" | "nobody" |
    "running" (a card was shown / nobody could refute / still asked), "now": name |
    None (who answers now, while running)}], "skipped": [turn_skipped data...],
    "wrong": [accusation_wrong data...], "next": name | None (whose turn follows),
    "over": game_over data | None, "running": bool (nothing happened in the turn
    yet)}``.

    :raises LookupError: no turn has started.
    """
    # Each event's data as the engine logged it (pbp.games.cluedo_rounds.shapes).
    starts = [cast(TurnStarted, e.data) for e in events if e.kind == "turn_started"]
    if turn is None:
        if not starts:
            raise LookupError("no turn has started")
        turn = int(starts[-1]["turn"])
    this = [s for s in starts if s["turn"] == turn]
    following = [s for s in starts if s["turn"] == turn + 1]
    answers = _of_turn(events, turn, *ANSWERS)
    ended = [cast(RoundEnded, e.data) for e in _of_turn(events, turn, "round_ended")]
    asked = [e.data for e in _of_turn(events, turn, "asked")]
    made: list[TurnSuggestion] = []
    for event in _of_turn(events, turn, "suggestion_made"):
        s = cast(Sugg, event.data)
        end = [x for x in ended if x["number"] == s["number"]]
        now = [x["player"] for x in asked if x["number"] == s["number"]]
        running = not end
        answered: list[TurnAnswer] = [
            {"answer": cast(Answered, a.data), "refuted": a.kind == "refuted"}
            for a in answers
            if a.data["number"] == s["number"]
        ]
        made.append(
            {
                "s": s,
                "answers": answered,
                "end": "running" if running else ("shown" if end[0]["refuted_by"] else "nobody"),
                "now": now[-1] if running and now else None,
            }
        )
    skipped = [cast(TurnSkipped, e.data) for e in _of_turn(events, turn, "turn_skipped")]
    wrong = [cast(AccusationWrong, e.data) for e in _of_turn(events, turn, "accusation_wrong")]
    over = [cast(GameOver, e.data) for e in events if e.kind == "game_over"]
    return {
        "turn": turn,
        "player": this[0]["player"] if this else None,
        "suggestions": made,
        "skipped": skipped,
        "wrong": wrong,
        "next": following[0]["player"] if following else None,
        "over": over[-1] if over else None,
        "running": not made and not skipped and not wrong,
    }
