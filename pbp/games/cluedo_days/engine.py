"""Cluedo by game days (rules C1–C7, D1–D8 of RULES.md; seed 001). Pure engine.

API (module-level functions; ``state`` is :class:`DaysState`):

- ``start(setup, seed, salt) -> Step`` — deal (C2, seeded; or ``setup.deal``), day 1 open.
- ``apply(state, player, move, at) -> Step`` — one Suggest / Refute / NoRefutation /
  Accuse by ``player`` at ``at`` (aware UTC datetime, the message's arrival, D8).
  Raises :class:`~pbp.games.core.events.IllegalMove` (rules) or ``InvalidMove``.
- ``close_day(state, at) -> Step`` — D6/D7: GM answers (C5), penalties, next day.
- ``remove(state, player, at) -> Step`` — the GM removes a player (C5 answers for him).
- ``void(state, number, at) -> Step`` — the GM cancels an unanswered suggestion.
- ``status(state, player, close_at, next_close_at) -> StatusView``, ``duties(state,
  player, close_at) -> DaysDuties`` (reminders), ``gm_view(state, close_at) -> GmView``
  and ``pending(state, close_at) -> list[Pending]`` — views
  (:mod:`pbp.games.cluedo_days.shapes`) (``close_at``: the current day's close
  as stored, which tells the suggestions the grace carries past it, D6).
- ``kind = "cluedo_days"``: this module is the engine object (``pbp.games.core.events.Engine``).
- ``dump_state(state) -> JsonMap`` / ``load_state(dict) -> DaysState``; ``is_over(state)``.

The state and its queries (``allowance``, ``suggestions_left``) are in
:mod:`pbp.games.cluedo_days.state`, the views in :mod:`pbp.games.cluedo_days.views`;
both are re-exported here.

Event catalogue (``Event.kind`` → ``data``); the templates rely on these shapes, which
are ``TypedDict`` classes in :mod:`pbp.games.cluedo_days.shapes` (``Sugg``,
``DaysGameStarted``, ``Answered``, ``DayClosed``, …) and, for those both variants log,
:mod:`pbp.games.cluedo.shapes`.
``sugg`` below stands for the suggestion fields ``number, day, ordinal, suggester,
addressee, suspect, weapon, room`` (``ordinal``: the suggester's count of the day,
as in the seed's heading "Предположение_2 для Веталь", rule D2; a suggestion the GM
voided keeps its number, so the next one gets a new one) and ``at`` (the
suggestion's arrival, ISO 8601 in UTC, e.g. "2026-12-01T17:05:00+00:00", rule D8).

PUBLIC
  game_started   {game: ID, day: 1, players: [{name, character}], cards: {suspects, weapons, rooms},
                  commitment: hex sha256, suggestions_per_day, max_per_addressee_per_day,
                  answer_grace_hours (D6; absent from games started before it was logged)}
  suggestion_made {**sugg}
  refuted         {**sugg, by_gm: bool, answered_at: ISO UTC}   # never the card (C4)
  not_refuted     {**sugg, by_gm: bool, answered_at: ISO UTC}
  accusation_wrong {player, day, suspect, weapon, room}  # the three cards only when
                  # rules.publish_wrong_accusations, else None each (C6, D5)
  day_closed      {day, gm_answered: [number...], penalties: {player: n} (players still in),
                   allowances: {player: n} (for the next day, players still in), out: [player...],
                   closed_at: ISO UTC, carried: [number...] (in the grace, due next close),
                   carried_early: [number...] (of carried, those due at this close as
                   scheduled: the GM closed the day early, within their grace, D6),
                   accused_wrongly: [player...] (out this day),
                   suggestions: [{**sugg, answer: "refuted"|"not_refuted"|None, by_gm}]
                   (made this day or answered this day, never the card; D7)}
  suggestion_voided {**sugg, voided_at}          # by the GM (pbp void), never answered
  player_removed  {player, day}                  # by the GM (pbp remove); C5 from then on
  game_over       {winner: str | None, solution: {suspect, weapon, room},
                   hands: {player: [card...]}, canonical: str (fairness, DESIGN.md)}
PLAYER (Event.player is the only player who sees it)
  hand_dealt      {character: str | None, hand: [card...]}
  card_shown      {**sugg, card, by_gm: bool}       # to the suggester only (C4)
  accusation_result {suspect, weapon, room, correct: bool}
GM
  deal            {solution: {suspect, weapon, room}, hands: {player: [card...]}, seed, canonical}
  gm_refutation   {**sugg, card: str | None, penalised: bool}  # what the GM showed (C5);
                  # penalised: the addressee has one suggestion fewer for it (D6)
  accusation_made {player, day, suspect, weapon, room, correct: bool, at: ISO UTC}

Refusals (``MoveError.code`` → ``params``; texts in ``templates/<locale>/errors/``):
game_over {winner}; not_a_player {player, players}; player_out {player};
removed_by_gm {player} (C5);
addressee_missing / self_addressed {players: the others}; unknown_addressee {addressee,
players}; no_suggestions_left {day, allowance, penalty, made}; addressee_limit {addressee,
limit, day, open: [the players the suggester may still address today]} (D2: the limit
counts the suggestions of all suggesters together); nothing_to_answer {};
which_suggestion {waiting: [number...]};
unknown_suggestion {number, waiting}; not_addressee {number, addressee, waiting};
already_answered {number, answer, by_gm, waiting}; must_refute {number, suggester, held,
named}; card_not_named / card_not_held {number, suggester, card, named, held};
wrong_category {card, category, allowed}.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from pbp.games.cluedo.cards import (
    Accuse,
    CluedoMove,
    Suggest,
    cards_as_json,
    check_named_cards,
    gm_default_card,
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
from pbp.games.cluedo_days.shapes import (
    Answered,
    CardShown,
    ClosedSugg,
    DayClosed,
    DaysGameStarted,
    GmRefutation,
    SuggestionVoided,
)
from pbp.games.cluedo_days.state import (
    VOIDED,
    Accusation,
    DaysRules,
    DaysSetup,
    DaysState,
    Suggestion,
    addressed_today,
    allowance,
    carried_at_close,
    carried_past,
    dump_state,
    load_state,
    made_today,
    owed,
    per_addressee_left,
    suggestions_left,
)
from pbp.games.cluedo_days.views import (
    duties,
    gm_view,
    pending,
    post_view,
    reply_events,
    status,
)
from pbp.games.core.events import Event, IllegalMove, InvalidMove, Step, Visibility, utc_iso
from pbp.text.fairness import commitment

__all__ = [
    "Accusation",
    "DaysRules",
    "DaysSetup",
    "DaysState",
    "Suggestion",
    "allowance",
    "apply",
    "carried_at_close",
    "carried_past",
    "close_day",
    "dump_state",
    "duties",
    "gm_view",
    "is_over",
    "kind",
    "load_state",
    "pending",
    "post_view",
    "remove",
    "reply_events",
    "start",
    "status",
    "suggestions_left",
    "void",
]

kind = "cluedo_days"  # the Engine protocol's kind (pbp.games.core.events.Engine)

PUBLIC, PLAYER, GM = Visibility.PUBLIC, Visibility.PLAYER, Visibility.GM


# --- start ---


def start(setup: DaysSetup, seed: int, salt: bytes) -> Step[DaysState]:
    """Deal (C2: from ``random.Random(seed)``, or ``setup.deal`` checked) and open day 1 (D1).

    Events: GM ``deal``, one PLAYER ``hand_dealt`` per player (configured order), PUBLIC
    ``game_started`` (with the commitment to the deal, DESIGN.md).

    :raises ValueError: fewer than 3 players (C1), a player named twice, cards that are
        not 3M+3 (C1), an empty salt, or a fixed deal that breaks C2.
    """
    state = DaysState(**dealt(setup, seed, salt))
    started: DaysGameStarted = {
        "game": setup.game_id,
        "day": 1,
        "players": [{"name": p, "character": ch} for p, ch in setup.players],
        "cards": cards_as_json(setup.cards),
        "commitment": commitment(state.canonical),
        "suggestions_per_day": setup.rules.suggestions_per_day,
        "max_per_addressee_per_day": setup.rules.max_per_addressee_per_day,
        "answer_grace_hours": setup.rules.answer_grace_hours,
    }
    return Step(state, [*deal_events(state), Event("game_started", PUBLIC, started)])


# --- moves ---


def apply(state: DaysState, player: str, move: CluedoMove, at: datetime) -> Step[DaysState]:
    """Apply one move of ``player`` that arrived at ``at`` (aware; stored in UTC, D8).

    ``move`` is a :class:`Suggest`, :class:`Refute`, :class:`NoRefutation` or
    :class:`Accuse` (``Status``/``Help`` are answered by the shell from :func:`status`).
    Events per move (see the module docstring for shapes): Suggest → PUBLIC
    ``suggestion_made``; Refute → PUBLIC ``refuted`` + PLAYER ``card_shown`` to the
    suggester; NoRefutation → PUBLIC ``not_refuted``; Accuse → GM ``accusation_made``,
    PLAYER ``accusation_result``, then PUBLIC ``game_over`` (correct, C7) or PUBLIC
    ``accusation_wrong`` (+ ``game_over`` with winner None when nobody is left, C7).

    :raises IllegalMove: ``game_over``; ``not_a_player``; ``player_out`` (C6);
        ``self_addressed``, ``unknown_addressee``, ``no_suggestions_left``,
        ``addressee_limit`` (D2); ``nothing_to_answer``, ``which_suggestion``,
        ``unknown_suggestion``, ``not_addressee``, ``already_answered`` (D3);
        ``must_refute``, ``card_not_named``, ``card_not_held`` (C4).
    :raises InvalidMove: ``addressee_missing`` (D2), ``wrong_category`` (C6).
    :raises ValueError: ``at`` is naive. :raises TypeError: another kind of move.
    """
    return dispatch(state, player, move, at, suggest=_suggest, answer=_answer, accuse=_accuse)


def _suggest(state: DaysState, player: str, move: Suggest, at: str) -> Step[DaysState]:
    others = [p for p in state.names if p != player]
    if move.addressee is None:
        raise InvalidMove("addressee_missing", players=others)
    check_named_cards(state.cards, move.suspect, move.weapon, move.room)
    check_may_act(state, player)  # C5, C6
    if move.addressee == player:
        raise IllegalMove("self_addressed", players=others)
    if move.addressee not in state.names:
        raise IllegalMove("unknown_addressee", addressee=move.addressee, players=others)
    made = made_today(state, player)
    if len(made) >= allowance(state, player):
        raise IllegalMove(
            "no_suggestions_left",
            day=state.day,
            allowance=allowance(state, player),
            penalty=state.penalties.get(player, 0),
            made=len(made),
        )
    limit = state.rules.max_per_addressee_per_day
    if addressed_today(state, move.addressee) >= limit:  # D2: from all suggesters together
        raise IllegalMove(
            "addressee_limit",
            addressee=move.addressee,
            limit=limit,
            day=state.day,
            open=[p for p, n in per_addressee_left(state, player).items() if n],
        )
    number, ordinal = len(state.suggestions) + 1, _next_ordinal(state, player)
    named = (move.suspect, move.weapon, move.room)
    suggestion = Suggestion(number, state.day, ordinal, player, move.addressee, *named, at)
    new = dataclasses.replace(state, suggestions=(*state.suggestions, suggestion))
    events = [Event("suggestion_made", PUBLIC, suggestion.public())]
    if move.addressee in state.removed:
        # C5: the GM answers at once for a player he removed (no penalty: he is gone).
        new, answer = _gm_answer(new, suggestion, at)
        events.extend(answer)
    return Step(new, events)


def _next_ordinal(state: DaysState, player: str) -> int:
    """D2: the heading number of ``player``'s next suggestion today ("Предположение_2
    для Веталь"): one more than every suggestion he made today, a voided one included.
    A voided suggestion stays in the record under its heading (the players may have
    quoted it in the thread), so the next one takes a number not used yet; it no longer
    counts against his allowance (:func:`made_today`)."""
    return sum(s.suggester == player and s.day == state.day for s in state.suggestions) + 1


def _gm_answer(
    state: DaysState, s: Suggestion, at: str, *, penalised: bool = False
) -> tuple[DaysState, list[Event]]:
    """C5: the GM answers suggestion ``s`` for its addressee at ``at`` (ISO UTC) → the
    state with the answer, and GM ``gm_refutation`` (``penalised``: the addressee loses
    a suggestion for it, D6) followed by the answer's events."""
    card = gm_default_card(state.deal.hands[s.addressee], s.suspect, s.weapon, s.room)
    answered = _answered(s, card, by_gm=True, at=at, day=state.day)
    data: GmRefutation = {**s.public(), "card": card, "penalised": penalised}
    events = [Event("gm_refutation", GM, data), *_answer_events(answered)]
    return _replace_suggestion(state, answered), events


def void(state: DaysState, number: int, at: datetime) -> Step[DaysState]:
    """The GM cancels suggestion ``number`` at ``at``, as if it had never been made:
    it needs no answer and no longer counts against its suggester's allowance nor its
    addressee's limit of the day (D2); its heading number stays used. Only while
    nothing was built on it: unanswered, and the game not over. PUBLIC
    ``suggestion_voided`` {**sugg, voided_at}.

    :raises IllegalMove: ``game_over``; ``unknown_suggestion`` {number, waiting: []};
        ``void_answered`` {number, answer, by_gm}: it was answered (or voided) already.
    """
    moment = utc_iso(at)
    if state.over:
        raise IllegalMove("game_over", winner=state.winner)
    if not 1 <= number <= len(state.suggestions):
        raise IllegalMove("unknown_suggestion", number=number, waiting=[])
    found = state.suggestions[number - 1]
    if found.answer is not None:
        raise IllegalMove("void_answered", number=number, answer=found.answer, by_gm=found.by_gm)
    new = _replace_suggestion(state, dataclasses.replace(found, answer=VOIDED, answered_at=moment))
    voided: SuggestionVoided = {**found.public(), "voided_at": moment}
    return Step(new, [Event("suggestion_voided", PUBLIC, voided)])


def remove(state: DaysState, player: str, at: datetime) -> Step[DaysState]:
    """The GM removes ``player`` at ``at`` (aware): his seat stays and is answered by
    the GM (C5) — now for what he owes, and at once for every later suggestion to
    him; he can no longer suggest or accuse (as out, C6). PUBLIC ``player_removed``
    {player, day} first, then the GM's answers; ``game_over`` with no winner when
    nobody is left (C7).

    :raises IllegalMove: ``game_over``; ``not_a_player``; ``already_removed`` {player}.
    """
    moment = utc_iso(at)
    new, events = removal(state, player, period={"day": state.day})
    for due in owed(new, player):  # C5: the GM answers what he owes
        new, answer = _gm_answer(new, due, moment)
        events.extend(answer)
    return Step(*end_if_nobody_left(new, events))  # C7


def _find_owed(state: DaysState, player: str, number: int | None) -> Suggestion:
    """D3: the suggestion ``player`` answers; ``waiting`` in errors: the numbers he owes."""
    pending = owed(state, player)
    waiting = [s.number for s in pending]
    if number is None:
        if not pending:
            raise IllegalMove("nothing_to_answer")
        if len(pending) > 1:
            raise IllegalMove("which_suggestion", waiting=waiting)
        return pending[0]
    if not 1 <= number <= len(state.suggestions):
        raise IllegalMove("unknown_suggestion", number=number, waiting=waiting)
    found = state.suggestions[number - 1]
    if found.addressee != player:
        raise IllegalMove(
            "not_addressee", number=number, addressee=found.addressee, waiting=waiting
        )
    if found.answer is not None:
        raise IllegalMove(
            "already_answered",
            number=number,
            answer=found.answer,
            by_gm=found.by_gm,
            waiting=waiting,
        )
    return found


def _answer(
    state: DaysState, player: str, number: int | None, card: str | None, at: str
) -> Step[DaysState]:
    suggestion = _find_owed(state, player, number)
    named = (suggestion.suspect, suggestion.weapon, suggestion.room)
    hand, suggester = state.deal.hands[player], suggestion.suggester
    check_answer(hand, named, card, number=suggestion.number, suggester=suggester)  # C4
    answered = _answered(suggestion, card, by_gm=False, at=at, day=state.day)
    return Step(_replace_suggestion(state, answered), _answer_events(answered))


def _answered(s: Suggestion, card: str | None, *, by_gm: bool, at: str, day: int) -> Suggestion:
    answer = "not_refuted" if card is None else "refuted"
    return dataclasses.replace(
        s, answer=answer, card=card, by_gm=by_gm, answered_at=at, answered_day=day
    )


def _replace_suggestion(state: DaysState, new: Suggestion) -> DaysState:
    suggestions = list(state.suggestions)
    suggestions[new.number - 1] = new
    return dataclasses.replace(state, suggestions=tuple(suggestions))


def _answer_events(s: Suggestion) -> list[Event]:
    """PUBLIC refuted/not_refuted (never the card, C4) and the PLAYER card_shown."""
    assert s.answer is not None and s.answered_at is not None
    public: Answered = {**s.public(), "by_gm": s.by_gm, "answered_at": s.answered_at}
    events = [Event(s.answer, PUBLIC, public)]
    if s.card is not None:
        shown: CardShown = {**s.public(), "card": s.card, "by_gm": s.by_gm}
        events.append(Event("card_shown", PLAYER, shown, player=s.suggester))
    return events


def _accuse(state: DaysState, player: str, move: Accuse, at: str) -> Step[DaysState]:
    """C6, C7: an accusation at any time of the day (D5)."""
    check_named_cards(state.cards, move.suspect, move.weapon, move.room)
    check_may_act(state, player)  # C5, C6
    period: Period = {"day": state.day}
    return Step(*accuse(state, player, move, at, period=period, record=Accusation))


# --- day close ---


def close_day(state: DaysState, at: datetime) -> Step[DaysState]:
    """Close the current day at ``at`` (aware) and open the next (D6, D7).

    Every unanswered suggestion that arrived at least ``answer_grace_hours`` before
    both ``at`` and the close as scheduled, or was carried from the day before, is
    answered by the GM (C5), in number order: GM ``gm_refutation``, PUBLIC
    ``refuted``/``not_refuted`` with ``by_gm`` True, PLAYER ``card_shown`` when a card
    was shown; its addressee has one suggestion fewer the next day per such answer
    (D6), unless he is out (he has none to lose: no penalty). Suggestions of the day
    within the grace stay due until the next close (once: D6, D7;
    :func:`~pbp.games.cluedo_days.state.carried_at_close`): those within the grace of
    ``at`` only, when the GM closes the day before its scheduled time
    (``state.close_moved`` below 0), are its ``carried_early``. Then PUBLIC
    ``day_closed`` (D7) and the day number goes up by one.
    A finished game is left as it is (no events), so a late scheduler job does no harm.

    :raises ValueError: ``at`` is naive.
    """
    closed_at = utc_iso(at)
    if state.over:
        return Step(state, [])
    unanswered = [s for s in state.suggestions if s.answer is None]
    due = [s for s in unanswered if not carried_at_close(state, s, at)]
    carried = [s for s in unanswered if carried_at_close(state, s, at)]
    answered, events, penalties = _gm_answers_at_close(state, due, closed_at)
    new = dataclasses.replace(answered, day=state.day + 1, penalties=penalties, close_moved=0.0)
    early = [s.number for s in carried if not carried_past(state, s, at)]
    carry = ([s.number for s in carried], early)
    events.append(_day_closed(state, new, closed_at, [s.number for s in due], carry))
    return Step(new, events)


def _gm_answers_at_close(
    state: DaysState, due: list[Suggestion], closed_at: str
) -> tuple[DaysState, list[Event], dict[str, int]]:
    """C5, D6: the GM answers each of ``due`` at ``closed_at`` (ISO UTC) → the state with
    the answers, their events (per suggestion: GM ``gm_refutation``, then the answer's
    own events) and the penalties for the next day ``{addressee: n}`` (one per answer;
    none for a player who is out: he has no suggestion to lose)."""
    events: list[Event] = []
    penalties: dict[str, int] = {}
    new = state
    for s in due:
        penalised = s.addressee not in state.out
        new, answer = _gm_answer(new, s, closed_at, penalised=penalised)
        events.extend(answer)
        if penalised:
            penalties[s.addressee] = penalties.get(s.addressee, 0) + 1
    return new, events, penalties


def _day_closed(
    state: DaysState,
    new: DaysState,
    closed_at: str,
    gm_answered: list[int],
    carry: tuple[list[int], list[int]],
) -> Event:
    """D7: PUBLIC ``day_closed`` of day ``state.day`` (``new``: the next day's state;
    shape in the module docstring): the suggestions made or answered that day (never
    a card, never a voided one), those carried to the next close and of them those
    carried by an early close (``carry``), the penalties and allowances for the next
    day, who is out and who accused wrongly that day."""
    carried, early = carry
    summary: list[ClosedSugg] = [
        {**s.public(), "answer": s.answer, "by_gm": s.by_gm}
        for s in new.suggestions
        if (s.day == state.day or s.answered_day == state.day) and s.answer != VOIDED
    ]
    closed: DayClosed = {
        "day": state.day,
        "closed_at": closed_at,
        "gm_answered": gm_answered,
        "penalties": dict(new.penalties),
        "allowances": {p: allowance(new, p) for p in new.names if p not in new.out},
        "out": list(new.out),
        "suggestions": summary,
        "carried": carried,
        "carried_early": early,
        "accused_wrongly": [
            a.player for a in new.accusations if a.day == state.day and not a.correct
        ],
    }
    return Event("day_closed", PUBLIC, closed)
