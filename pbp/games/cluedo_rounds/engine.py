"""Cluedo by rounds, the table game (rules C1–C7, R1–R7 of RULES.md; seed 000). Pure engine.

API (module-level functions; ``state`` is :class:`RoundsState`; every ``at`` is an
aware datetime, stored as ISO 8601 in UTC):

- ``start(setup, seed, salt, at) -> Step`` — deal (C2, seeded; or ``setup.deal``) and
  start turn 1, the first player's (R1), at ``at``.
- ``apply(state, player, move, at) -> Step`` — one Suggest / Accuse (on his turn) or
  Refute / NoRefutation (when asked) by ``player``, arrived at ``at`` (D8). Raises
  :class:`~pbp.games.core.events.IllegalMove` (rules) or ``InvalidMove``.
- ``deadline(state) -> datetime | None`` and ``on_deadline(state, at) -> Step`` — R7: the
  next timeout, and what happens at it (a missed turn is skipped; a missed answer is
  given by the GM, C5).
- ``whose_turn(state)``, ``awaiting(state)``, ``allowed_rooms(state, player)``,
  ``turns_before(state, player)`` — queries.
- ``status(state, player) -> StatusView``, ``duties(state, player) -> DutiesView |
  None`` (reminders), ``gm_view(state) -> GmView`` — views
  (:mod:`pbp.games.cluedo_rounds.shapes`).
- ``kind = "cluedo_rounds"``; ``dump_state(state) -> JsonMap`` / ``load_state(dict)``;
  ``is_over(state)``. The state keeps only what the rules need (the latest suggestion,
  counters, each player's previous room for R5), so a move costs the same at any
  point of the game; ``with_history(state, events)`` adds the history from the
  logged events where a view or an answer to an older suggestion needs it
  (``needs_history(state, move)``).

The shell must call :func:`on_deadline` for every deadline that falls before a move's
``at`` before applying that move (D8: mail and timeouts in time order).

Event catalogue (``Event.kind`` → ``data``); the templates rely on these shapes, which
are ``TypedDict`` classes in :mod:`pbp.games.cluedo_rounds.shapes` (``Sugg``,
``TurnStarted``, ``Asked``, ``Answered``, ``RoundEnded``, …) and, for those both
variants log, :mod:`pbp.games.cluedo.shapes`.
``sugg`` stands for the suggestion fields ``number, turn, suggester, suspect, weapon,
room, at`` (``number``: game-wide from 1; ``turn``: the turn it was made in; ``at``:
its arrival, ISO 8601 UTC, e.g. "2026-12-01T17:05:00+00:00"). All times are ISO UTC.

PUBLIC
  game_started   {game: ID, players: [{name, character}], turn_order: [name...],
                  cards: {suspects, weapons, rooms}, commitment: hex sha256,
                  auto_answer, turn_hours, answer_hours, publish_wrong_accusations}
  turn_started   {turn, player, allowed_rooms: [room...] (R5), started_at, deadline}
  suggestion_made {**sugg}
  asked          {number, turn, suggester, player, asked_at, deadline}
                 # who must answer now (R2); only players who have to choose are asked
  refuted        {**sugg, by, auto: bool, by_gm: bool, answered_at}   # never the card (C4)
  not_refuted    {**sugg, by, auto: bool, by_gm: bool, answered_at}
                 (refuted, not_refuted, card_shown: also ``removed: true`` when the GM
                 answered because the player was removed, C5, not late, R7)
                 # auto: answered by the engine (R6); by_gm: by the GM at the deadline (C5)
  round_ended    {number, turn, suggester, refuted_by: str | None, ended_at}   # R2, R3
  turn_skipped   {turn, player, deadline, skipped_at}                          # R7
  accusation_wrong {player, turn, suspect, weapon, room}   # the three cards only when
                 # rules.publish_wrong_accusations (default here: accused aloud), else None
  game_over      {winner: str | None, solution: {suspect, weapon, room},
                  hands: {player: [card...]}, canonical: str (fairness, DESIGN.md)}
PLAYER (Event.player is the only player who sees it)
  hand_dealt     {character: str | None, hand: [card...]}
  card_shown     {**sugg, by, card, auto: bool, by_gm: bool}   # to the suggester only (C4)
  accusation_result {suspect, weapon, room, correct: bool}
GM
  deal           {solution: {suspect, weapon, room}, hands: {player: [card...]}, seed, canonical}
  gm_refutation  {**sugg, player, card: str | None, removed: true (C5 only)}   # R7, C5
  accusation_made {player, turn, suspect, weapon, room, correct: bool, at}

Order of events: a suggestion gives ``suggestion_made``, then for each player round
the table either an answer (automatic, R6) or ``asked`` (and the engine waits); an
answer gives ``refuted`` + ``card_shown`` or ``not_refuted``; the end of the round
gives ``round_ended`` then ``turn_started`` of the next turn (R3).

Refusals (``MoveError.code`` → ``params``; texts in ``templates/<locale>/errors/``):
game_over {winner}; not_a_player {player, players}; player_out {player} (C6);
removed_by_gm {player} (C5);
unexpected_addressee {player} (InvalidMove: a TO part); wrong_category {card, category,
allowed} (InvalidMove); not_your_turn {turn_player, turn} (R1); one_move_per_turn
{number, turn, asked} (R1, R4: he has suggested this turn; ``asked``: who answers now);
same_room {room, allowed} (R5); nothing_to_answer {}; unknown_suggestion {number,
waiting}; not_asked {number, asked: str | None, waiting} (R2); already_answered {number,
answer, by_gm, waiting}; must_refute {number, suggester, held, named};
card_not_named / card_not_held {number, suggester, card, named, held} (C4). ``waiting``:
the numbers the player must answer now (``[]`` or one number).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from pbp.games.cluedo.cards import (
    Accuse,
    CluedoMove,
    Suggest,
    cards_as_json,
    check_named_cards,
    gm_default_card,
    held_cards,
)
from pbp.games.cluedo.engine import (
    accuse,
    check_answer,
    check_may_act,
    deal_events,
    dealt,
    dispatch,
    end_if_nobody_left,
    removal,
)
from pbp.games.cluedo.shapes import Period
from pbp.games.cluedo.state import is_over
from pbp.games.cluedo_rounds.shapes import (
    Answered,
    AnswerFlags,
    Asked,
    CardShown,
    GmRefutation,
    RoundEnded,
    RoundsGameStarted,
    TurnSkipped,
    TurnStarted,
)
from pbp.games.cluedo_rounds.state import (
    AUTO_ANSWERS,
    Accusation,
    Answer,
    AutoAnswer,
    RoundsRules,
    RoundsSetup,
    RoundsState,
    Skip,
    Suggestion,
    allowed_rooms,
    awaiting,
    deadline,
    dump_state,
    find_suggestion,
    load_state,
    needs_history,
    suggestion_as_json,
    turns_before,
    whose_turn,
    with_history,
)
from pbp.games.cluedo_rounds.views import duties, gm_view, status
from pbp.games.core.events import Event, IllegalMove, InvalidMove, Step, Visibility, utc_iso
from pbp.text.fairness import commitment

__all__ = [
    "AUTO_ANSWERS",
    "Accusation",
    "Answer",
    "AutoAnswer",
    "RoundsRules",
    "RoundsSetup",
    "RoundsState",
    "Skip",
    "Suggestion",
    "allowed_rooms",
    "apply",
    "awaiting",
    "deadline",
    "dump_state",
    "duties",
    "find_suggestion",
    "gm_view",
    "is_over",
    "kind",
    "load_state",
    "needs_history",
    "on_deadline",
    "remove",
    "shift_deadline",
    "start",
    "status",
    "suggestion_as_json",
    "turns_before",
    "whose_turn",
    "with_history",
]

kind = "cluedo_rounds"  # the Engine protocol's kind (pbp.games.core.events.Engine)

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM


def _iso_or_none(at: datetime | None) -> str | None:
    return None if at is None else utc_iso(at)


# --- start ---


def start(setup: RoundsSetup, seed: int, salt: bytes, at: datetime) -> Step[RoundsState]:
    """Deal (C2: from ``random.Random(seed)``, or ``setup.deal`` checked) and start turn 1.

    Turn 1 is the first configured player's (R1) and starts at ``at`` (its deadline is
    ``at + turn_hours``, R7). Events: GM ``deal``, one PLAYER ``hand_dealt`` per player
    (turn order), PUBLIC ``game_started`` (with the commitment to the deal, DESIGN.md),
    PUBLIC ``turn_started``.

    :raises ValueError: fewer than 3 players (C1), a player named twice, cards that are
        not 3M+3 (C1), a fixed deal that breaks C2, an empty salt, or a naive ``at``.
    """
    stamp = utc_iso(at)
    names = [name for name, _ in setup.players]
    state = RoundsState(
        **dealt(setup, seed, salt),
        turn_player=names[0],
        turn_started=stamp,
    )
    rules = setup.rules
    started: RoundsGameStarted = {
        "game": setup.game_id,
        "players": [{"name": p, "character": ch} for p, ch in setup.players],
        "turn_order": names,
        "cards": cards_as_json(setup.cards),
        "commitment": commitment(state.canonical),
        "auto_answer": rules.auto_answer,
        "turn_hours": rules.turn_hours,
        "answer_hours": rules.answer_hours,
        "publish_wrong_accusations": rules.publish_wrong_accusations,
    }
    events = [*deal_events(state), Event("game_started", PUBLIC, started), _turn_started(state)]
    return Step(state, events)


def _turn_started(state: RoundsState) -> Event:
    data: TurnStarted = {
        "turn": state.turn,
        "player": state.turn_player,
        "allowed_rooms": allowed_rooms(state, state.turn_player),
        "started_at": state.turn_started,
        "deadline": _iso_or_none(deadline(state)),
    }
    return Event("turn_started", PUBLIC, data)


# --- moves ---


def apply(state: RoundsState, player: str, move: CluedoMove, at: datetime) -> Step[RoundsState]:
    """Apply one move of ``player`` that arrived at ``at`` (aware; stored in UTC, D8).

    ``move`` is a :class:`Suggest` or :class:`Accuse` (on his turn, R1) or a
    :class:`Refute` / :class:`NoRefutation` (when he is asked, R2); ``Status``/``Help``
    are answered by the shell from :func:`status`. Events (shapes in the module
    docstring): Suggest → ``suggestion_made``, then the answering round as far as it
    goes without waiting (R2, R3, R6); an answer → ``refuted`` + ``card_shown`` or
    ``not_refuted``, then the round goes on; Accuse → GM ``accusation_made``, PLAYER
    ``accusation_result``, then ``game_over`` (correct, C7) or ``accusation_wrong``
    and the next ``turn_started`` (or ``game_over`` with no winner when everybody is
    out, C7).

    :raises IllegalMove: ``game_over``; ``not_a_player``; ``player_out`` (C6);
        ``not_your_turn``, ``one_move_per_turn`` (R1, R4); ``same_room`` (R5);
        ``nothing_to_answer``, ``unknown_suggestion``, ``not_asked``,
        ``already_answered`` (R2); ``must_refute``, ``card_not_named``,
        ``card_not_held`` (C4).
    :raises InvalidMove: ``unexpected_addressee`` (a TO part), ``wrong_category`` (C6).
    :raises ValueError: ``at`` is naive. :raises TypeError: another kind of move.
    """
    return dispatch(state, player, move, at, suggest=_suggest, answer=_answer, accuse=_accuse)


def _check_turn(state: RoundsState, player: str) -> None:
    """R1, R4, C5, C6: may ``player`` suggest or accuse now?"""
    check_may_act(state, player)  # C5, C6
    running = state.running
    if running is not None and running.suggester == player:
        raise IllegalMove(
            "one_move_per_turn", number=running.number, turn=running.turn, asked=running.asked
        )
    if running is not None or state.turn_player != player:
        raise IllegalMove("not_your_turn", turn_player=state.turn_player, turn=state.turn)


def _suggest(state: RoundsState, player: str, move: Suggest, at: str) -> Step[RoundsState]:
    if move.addressee is not None:
        raise InvalidMove("unexpected_addressee", player=move.addressee)
    check_named_cards(state.cards, move.suspect, move.weapon, move.room)
    _check_turn(state, player)
    allowed = allowed_rooms(state, player)
    if move.room not in allowed:
        raise IllegalMove("same_room", room=move.room, allowed=allowed)
    number = state.suggestion_count + 1
    suggestion = Suggestion(number, state.turn, player, move.suspect, move.weapon, move.room, at)
    rooms = {**dict(state.last_rooms), player: move.room}  # R5
    new = dataclasses.replace(
        state,
        suggestions=(suggestion,),  # the history stays in the event log (with_history)
        suggestion_count=number,
        last_rooms=tuple((p, rooms[p]) for p in state.names if p in rooms),
    )
    events = [Event("suggestion_made", PUBLIC, suggestion.public())]
    return _run_round(new, at, events)


def _answer(
    state: RoundsState, player: str, number: int | None, card: str | None, at: str
) -> Step[RoundsState]:
    running = state.running
    asked_now = running is not None and running.asked == player
    waiting = [running.number] if running is not None and asked_now else []
    if number is None:
        if running is None or not asked_now:
            raise IllegalMove("nothing_to_answer")
        suggestion = running
    else:
        if not 1 <= number <= state.suggestion_count:
            raise IllegalMove("unknown_suggestion", number=number, waiting=waiting)
        found = find_suggestion(state, number)
        if found is None:
            raise LookupError(f"suggestion {number} needs the game's history (with_history)")
        suggestion = found
        if not (suggestion is running and asked_now):
            mine = next((a for a in suggestion.answers if a.player == player), None)
            if mine is not None:
                answer = "not_refuted" if mine.card is None else "refuted"
                raise IllegalMove(
                    "already_answered",
                    number=number,
                    answer=answer,
                    by_gm=mine.by_gm,
                    waiting=waiting,
                )
            raise IllegalMove("not_asked", number=number, asked=suggestion.asked, waiting=waiting)
    hand, suggester = state.deal.hands[player], suggestion.suggester
    check_answer(hand, suggestion.named, card, number=suggestion.number, suggester=suggester)  # C4
    given = Answer(player, card, auto=False, by_gm=False, at=at)
    new, events = _record(state, given)
    return _run_round(new, at, events)


def _record(state: RoundsState, answer: Answer) -> tuple[RoundsState, list[Event]]:
    """Add ``answer`` to the running round: PUBLIC refuted/not_refuted (never the card,
    C4) and the PLAYER card_shown to the suggester."""
    running = state.running
    assert running is not None
    suggestion = dataclasses.replace(
        running, answers=(*running.answers, answer), asked=None, asked_at=None
    )
    new = dataclasses.replace(state, suggestions=(*state.suggestions[:-1], suggestion))
    flags: AnswerFlags = {"by": answer.player, "auto": answer.auto, "by_gm": answer.by_gm}
    if answer.by_gm and answer.player in state.removed:
        flags["removed"] = True  # C5: answered for a removed player, not a missed deadline
    kind_ = "not_refuted" if answer.card is None else "refuted"
    told: Answered = {**suggestion.public(), **flags, "answered_at": answer.at}
    events = [Event(kind_, PUBLIC, told)]
    if answer.card is not None:
        shown: CardShown = {**suggestion.public(), **flags, "card": answer.card}
        events.append(Event("card_shown", PLAYER, shown, player=suggestion.suggester))
    return new, events


def _gm_refutation(s: Suggestion, player: str, card: str | None, removed: bool) -> GmRefutation:
    """GM ``gm_refutation``: the GM answers suggestion ``s`` for ``player`` with
    ``card`` (None: no refutation; R7, C5); ``removed`` (C5): for a removed player."""
    gm: GmRefutation = {
        "number": s.number,
        "turn": s.turn,
        "suggester": s.suggester,
        "suspect": s.suspect,
        "weapon": s.weapon,
        "room": s.room,
        "at": s.at,
        "player": player,
        "card": card,
    }
    if removed:
        gm["removed"] = True
    return gm


def _answered_at_once(auto_answer: str, held: list[str]) -> bool:
    """R6: True when the engine answers "no refutation" at once for a player holding
    ``held`` of the named cards. A card is never shown automatically: were a single
    named card answered for at once, a player who is asked would be known to hold
    two or more of them, which no manual answer tells."""
    return auto_answer == "no_match" and not held


def _next_seat(names: list[str], after: str) -> str:
    return names[(names.index(after) + 1) % len(names)]


def _run_round(state: RoundsState, at: str, events: list[Event]) -> Step[RoundsState]:
    """Carry the running round on from its last answer (R2, R3, R6) at ``at``.

    Round the table from the player after the last one who answered (after the
    suggester at first): the engine answers for players without a choice (R6) and
    stops at the first one who must answer himself (``asked``). A card shown, or the
    turn to answer reaching the suggester, ends the round and starts the next turn.
    """
    events = list(events)
    while True:
        running = state.running
        assert running is not None
        if running.refutation is not None:
            return _end_round(state, running, at, events)
        last = running.answers[-1].player if running.answers else running.suggester
        player = _next_seat(state.names, last)
        if player == running.suggester:  # R3: nobody could refute
            return _end_round(state, running, at, events)
        if player in state.removed:  # C5: the GM answers at once for a removed player
            card = gm_default_card(state.deal.hands[player], *running.named)
            events.append(Event("gm_refutation", GM, _gm_refutation(running, player, card, True)))
            state, more = _record(state, Answer(player, card, auto=False, by_gm=True, at=at))
            events.extend(more)
            continue
        held = held_cards(state.deal.hands[player], running.named)
        if _answered_at_once(state.rules.auto_answer, held):
            state, more = _record(state, Answer(player, None, auto=True, by_gm=False, at=at))
            events.extend(more)
            continue
        asked = dataclasses.replace(running, asked=player, asked_at=at)
        state = dataclasses.replace(state, suggestions=(*state.suggestions[:-1], asked))
        data: Asked = {
            "number": running.number,
            "turn": running.turn,
            "suggester": running.suggester,
            "player": player,
            "asked_at": at,
            "deadline": _iso_or_none(deadline(state)),
        }
        events.append(Event("asked", PUBLIC, data))
        return Step(state, events)


def _end_round(
    state: RoundsState, running: Suggestion, at: str, events: list[Event]
) -> Step[RoundsState]:
    ended = dataclasses.replace(running, asked=None, asked_at=None, ended_at=at)
    state = dataclasses.replace(state, suggestions=(*state.suggestions[:-1], ended))
    data: RoundEnded = {
        "number": ended.number,
        "turn": ended.turn,
        "suggester": ended.suggester,
        "refuted_by": ended.refuted_by,
        "ended_at": at,
    }
    events = [*events, Event("round_ended", PUBLIC, data)]
    return _next_turn(state, ended.suggester, at, events)


def _next_turn(state: RoundsState, after: str, at: str, events: list[Event]) -> Step[RoundsState]:
    """R3, R4: the next turn goes to the first player after ``after`` who is not out."""
    names = state.names
    start_at = names.index(after)
    order = [names[(start_at + k) % len(names)] for k in range(1, len(names) + 1)]
    player = next(p for p in order if p not in state.out)
    new = dataclasses.replace(state, turn=state.turn + 1, turn_player=player, turn_started=at)
    return Step(new, [*events, _turn_started(new)])


def _accuse(state: RoundsState, player: str, move: Accuse, at: str) -> Step[RoundsState]:
    check_named_cards(state.cards, move.suspect, move.weapon, move.room)
    _check_turn(state, player)
    period: Period = {"turn": state.turn}
    new, events = accuse(state, player, move, at, period=period, record=Accusation)
    if new.over:  # C7: he won, or nobody is left
        return Step(new, events)
    return _next_turn(new, player, at, events)  # R4: out, his turn passes


# --- deadlines ---


def on_deadline(state: RoundsState, at: datetime) -> Step[RoundsState]:
    """R7: the timeout of :func:`deadline`, handled at ``at`` (aware).

    A missed turn is skipped: PUBLIC ``turn_skipped``, then the next turn (the first
    player after him who is not out) starts at ``at``. A missed answer is given by the
    GM (C5: the first held of suspect, weapon, room; else no refutation): GM
    ``gm_refutation``, PUBLIC ``refuted``/``not_refuted`` with ``by_gm`` True (and
    PLAYER ``card_shown``), then the round goes on from ``at`` as after any answer.
    Before the deadline, or once the game is over, nothing happens (no events, same
    state), so a stale or repeated scheduler job does no harm.

    :raises ValueError: ``at`` is naive.
    """
    stamp = utc_iso(at)
    due = deadline(state)
    if due is None or at < due:
        return Step(state, [])
    running = state.running
    if running is None:
        skipped: TurnSkipped = {
            "turn": state.turn,
            "player": state.turn_player,
            "deadline": utc_iso(due),
            "skipped_at": stamp,
        }
        return _next_turn(state, state.turn_player, stamp, [Event("turn_skipped", PUBLIC, skipped)])
    player = running.asked
    assert player is not None
    card = gm_default_card(state.deal.hands[player], *running.named)
    events = [Event("gm_refutation", GM, _gm_refutation(running, player, card, False))]
    new, more = _record(state, Answer(player, card, auto=False, by_gm=True, at=stamp))
    return _run_round(new, stamp, [*events, *more])


def shift_deadline(state: RoundsState, delta: timedelta) -> RoundsState:
    """R7 under a GM's pause or extension: the current timeout comes ``delta`` later.

    The clock the timeout runs from moves: the time the awaited player was asked
    (``asked_at``), else the start of the turn. Events already logged keep their
    times. Once the game is over, nothing changes.
    """
    if state.over:
        return state
    running = state.running
    if running is not None and running.asked_at is not None:
        moved = dataclasses.replace(running, asked_at=utc_iso(_at(running.asked_at) + delta))
        return dataclasses.replace(state, suggestions=(*state.suggestions[:-1], moved))
    return dataclasses.replace(state, turn_started=utc_iso(_at(state.turn_started) + delta))


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def remove(state: RoundsState, player: str, at: datetime) -> Step[RoundsState]:
    """The GM removes ``player`` at ``at`` (aware): his seat stays, he is out (no more
    turns, R4) and the GM answers for him at once whenever he is asked (C5) — now, if
    the running round waits for him. His own turn, if it is his turn, passes to the
    next player. PUBLIC ``player_removed`` {player, turn} first; ``game_over`` with
    no winner when nobody is left (C7).

    :raises IllegalMove: ``game_over``; ``not_a_player``; ``already_removed`` {player}.
    """
    stamp = utc_iso(at)
    new, events = removal(state, player, period={"turn": state.turn})
    new, events = end_if_nobody_left(new, events)  # C7
    if new.over:
        return Step(new, events)
    running = new.running
    if running is not None and running.asked == player:
        card = gm_default_card(new.deal.hands[player], *running.named)
        events.append(Event("gm_refutation", GM, _gm_refutation(running, player, card, True)))
        new, more = _record(new, Answer(player, card, auto=False, by_gm=True, at=stamp))
        return _run_round(new, stamp, [*events, *more])
    if running is None and new.turn_player == player:
        return _next_turn(new, player, stamp, events)
    return Step(new, events)
