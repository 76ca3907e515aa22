"""The views of a Cluedo-by-rounds game (rules R1–R7, C4–C7 of RULES.md): a player's
``STATUS`` answer, what his reminder says and everything the GM sees, from the state;
what the public posts show, computed from its PUBLIC events (the opening with who
starts, one turn with each suggestion's answers round the table, the forum snippet of a
move, the final post); and what the reply to a player's move shows of its events. Pure;
the private views are re-exported by :mod:`pbp.games.cluedo_rounds.engine`. Their
shapes are the ``TypedDict`` classes of :mod:`pbp.games.cluedo_rounds.shapes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Literal, cast, overload

from pbp.games.cluedo.cards import gm_default_card, held_cards, solution_as_json
from pbp.games.cluedo.shapes import AccusationWrong, FinalView, GameOver, HelpView
from pbp.games.cluedo.views import ANSWERS, commands_of, final_view, start_view
from pbp.games.cluedo_rounds.shapes import (
    Answered,
    AskedView,
    DutiesView,
    GmSuggestion,
    GmView,
    Move,
    MoveData,
    MoveView,
    OpeningView,
    PostView,
    RoundEnded,
    RoundsStartView,
    ShownByMe,
    ShownToMe,
    StatusView,
    Sugg,
    TurnAnswer,
    TurnSkipped,
    TurnStarted,
    TurnSuggestion,
    TurnView,
)
from pbp.games.cluedo_rounds.state import (
    RoundsState,
    Suggestion,
    allowed_rooms,
    awaiting,
    deadline,
    whose_turn,
)
from pbp.games.core.events import Event, event_dict
from pbp.text.fairness import commitment


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


# --- the private views: STATUS, reminders, the GM (pbp show) ---


def _iso_or_none(at: datetime | None) -> str | None:
    return None if at is None else at.astimezone(UTC).isoformat()


def _asked_view(state: RoundsState, player: str) -> AskedView | None:
    running = state.running
    if state.over or running is None or running.asked != player:
        return None
    return {
        **running.public(),
        "held": held_cards(state.deal.hands[player], running.named),
        "deadline": _iso_or_none(deadline(state)),
    }


def _my_turn(state: RoundsState, player: str) -> bool:
    return not state.over and state.running is None and state.turn_player == player


def status(state: RoundsState, player: str) -> StatusView:
    """The private ``STATUS`` answer of ``player`` (:class:`~.shapes.StatusView`).

    Example: ``{"game": "seed-000", "turn": 4, "turn_player": "Кросс", "over": False,
    "winner": None, "out": False, "character": None, "hand": ["Петя", "Ваня", "Нож"],
    "my_turn": True, "turn_deadline": "2026-12-02T18:00:00+00:00",
    "allowed_rooms": ["Столовая", "Библиотека"], "asked": None,
    "shown_to_me": [{"number": 1, "card": "Молоток", "by": "Дуг", "auto": False,
    "by_gm": False}], "shown_by_me": [{"number": 2, "card": "Петя", "to": "Дуг",
    "auto": False, "by_gm": False}]}``. ``my_turn``: he must suggest or accuse now;
    ``turn_deadline``: its deadline (else None); ``allowed_rooms``: for his next
    suggestion (R5); ``asked``: the suggestion he must answer now as ``{**sugg, held:
    [card...], deadline}``, else None. ``shown_to_me``/``shown_by_me`` cover the
    suggestions ``state`` holds: give it the game's history first (:func:`with_history`).

    :raises KeyError: ``player`` is not in the game.
    """
    character = dict(state.players)[player]
    mine = _my_turn(state, player)
    shown_to_me: list[ShownToMe] = []
    shown_by_me: list[ShownByMe] = []
    for s in state.suggestions:
        r = s.refutation
        if r is None:
            continue
        if s.suggester == player:
            shown_to_me.append(
                {
                    "number": s.number,
                    "card": r.card,
                    "by": r.player,
                    "auto": r.auto,
                    "by_gm": r.by_gm,
                }
            )
        if r.player == player:
            shown_by_me.append(
                {
                    "number": s.number,
                    "card": r.card,
                    "to": s.suggester,
                    "auto": r.auto,
                    "by_gm": r.by_gm,
                }
            )
    return {
        "game": state.game_id,
        "turn": state.turn,
        "turn_player": whose_turn(state),
        "over": state.over,
        "winner": state.winner,
        "out": player in state.out,
        "removed": player in state.removed,
        "character": character,
        "hand": list(state.deal.hands[player]),
        "my_turn": mine,
        "turn_deadline": _iso_or_none(deadline(state)) if mine else None,
        "allowed_rooms": allowed_rooms(state, player),
        "asked": _asked_view(state, player),
        "shown_to_me": shown_to_me,
        "shown_by_me": shown_by_me,
    }


def duties(state: RoundsState, player: str) -> DutiesView | None:
    """What a reminder says, or None when ``player`` owes nothing now (R7).

    His turn: ``{"duty": "turn", "turn": n, "deadline": ISO, "allowed_rooms": [...]}``;
    his answer: ``{"duty": "answer", "number": n, "suggestion": {**sugg}, "held":
    [card...], "gm_card": card | None (what the GM shows for him if he does not answer,
    C5; None: he holds none, the GM answers no refutation), "deadline": ISO}``.
    :raises KeyError: ``player`` is not in the game.
    """
    dict(state.players)[player]
    if _my_turn(state, player):
        return {
            "duty": "turn",
            "turn": state.turn,
            "deadline": _iso_or_none(deadline(state)),
            "allowed_rooms": allowed_rooms(state, player),
        }
    asked = _asked_view(state, player)
    if asked is None or state.running is None:
        return None
    suspect, weapon, room = state.running.named
    return {
        "duty": "answer",
        "number": asked["number"],
        "suggestion": state.running.public(),  # the asked view but its held and deadline
        "held": asked["held"],
        "gm_card": gm_default_card(state.deal.hands[player], suspect, weapon, room),
        "deadline": asked["deadline"],
    }


def gm_view(state: RoundsState) -> GmView:
    """Everything the GM sees (``pbp show``).

    ``{"game", "turn", "turn_player", "over", "winner", "seed", "rules": {auto_answer,
    turn_hours, answer_hours, publish_wrong_accusations}, "solution": {suspect, weapon,
    room}, "players": [{"name", "character", "hand": [...], "out": bool,
    "allowed_rooms": [...]}], "awaiting": {"player", "number"} | None, "deadline": ISO
    | None, "suggestions": [{**sugg, "answers": [{"player", "card", "auto", "by_gm",
    "at"}], "asked", "asked_at", "ended_at", "refuted_by"}], "accusations": [{"player",
    "turn", "at", "suspect", "weapon", "room", "correct"}], "skipped": [{"turn",
    "player", "at"}], "commitment": hex, "canonical": str}``; ``suggestions`` and
    ``skipped`` as far as ``state`` holds them (:func:`with_history`).
    """
    waiting = awaiting(state)
    return {
        "game": state.game_id,
        "turn": state.turn,
        "turn_player": whose_turn(state),
        "over": state.over,
        "winner": state.winner,
        "seed": state.seed,
        "rules": {
            "auto_answer": state.rules.auto_answer,
            "turn_hours": state.rules.turn_hours,
            "answer_hours": state.rules.answer_hours,
            "publish_wrong_accusations": state.rules.publish_wrong_accusations,
        },
        "solution": solution_as_json(state.deal.solution),
        "players": [
            {
                "name": p,
                "character": ch,
                "hand": list(state.deal.hands[p]),
                "out": p in state.out,
                "allowed_rooms": allowed_rooms(state, p),
            }
            for p, ch in state.players
        ],
        "awaiting": None if waiting is None else {"player": waiting[0], "number": waiting[1]},
        "deadline": _iso_or_none(deadline(state)),
        "suggestions": [_gm_suggestion(s) for s in state.suggestions],
        "accusations": [a.as_json() for a in state.accusations],
        "skipped": [s.as_json() for s in state.skipped],
        "commitment": commitment(state.canonical),
        "canonical": state.canonical,
    }


def _gm_suggestion(s: Suggestion) -> GmSuggestion:
    """A suggestion as ``pbp show`` lists it: :func:`suggestion_as_json` and who showed
    a card."""
    return {
        **s.public(),
        "answers": [a.as_json() for a in s.answers],
        "asked": s.asked,
        "asked_at": s.asked_at,
        "ended_at": s.ended_at,
        "refuted_by": s.refuted_by,
    }
