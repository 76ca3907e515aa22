"""The views of a Maniac game (rules M1–M12 of RULES.md): a player's ``STATUS``
answer, what his reminder says, everything the GM sees, and what the public posts of
the votes show (:func:`post_view`: the day's count, live or final, the evening's
result, the morning's dead and who is still in the game, the final post's roles,
from the public events alone), and what the command help shows
(:func:`commands_view`). Pure; re-exported by :mod:`pbp.games.maniac.engine`. Their
shapes are the ``TypedDict`` classes of :mod:`pbp.games.maniac.shapes`; the posts' views
read the game from its public events through :mod:`pbp.games.maniac.record`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal, cast, overload

from pbp.games.core.events import Event, JsonMap
from pbp.games.maniac.record import ballots_of, day_closed, free_players, imprisoned
from pbp.games.maniac.shapes import (
    CommandsView,
    DayClosed,
    DoubleKillView,
    DutiesView,
    EveningView,
    FinalView,
    GameOver,
    GameStarted,
    GmView,
    HelpView,
    MorningView,
    NextOrder,
    OrderView,
    PostView,
    ResultView,
    StatusView,
    Tie,
    VoteCount,
    VotePostView,
)
from pbp.games.maniac.state import (
    MANIAC_TEAM,
    TOWN,
    ManiacRules,
    ManiacState,
    casts,
    count_ballots,
    double_kill_allowed,
    double_kill_night,
    fixed_by,
    is_fixed,
    open_nights,
    order_for,
    skip_limit,
    skips_used,
    standing_votes,
    vote_count,
    vote_targets,
)
from pbp.text.fairness import commitment


def _orders_view(state: ManiacState) -> list[OrderView]:
    return [
        {**o.as_json(), "fixed": is_fixed(state, o.night), "fixed_by": fixed_by(o.night)}
        for o in state.orders
    ]


def status(state: ManiacState, player: str) -> StatusView:
    """The private ``STATUS`` answer of ``player`` (:class:`~pbp.games.maniac.shapes.StatusView`).

    Everyone: ``{"game", "day", "next_day" (the day after night ``day``, M2), "phase",
    "over", "winner_team", "role", "partner"
    (the maniac's fan / the fan's maniac, else None, M1), "alive", "removed" (the GM
    removed him; not ``alive`` either), "in_prison",
    "my_vote": {"target", "prison"} | None, "votes": vote_count(state),
    "casts_left": {player: n} (today, for each player he may vote for; {} when he
    cannot vote now, M9), "prison_vote_for": [player...] (M11), "in_cell": player |
    None, "prisoners": [...], "dead": [...], "commands": :func:`commands_view` (what
    his HELP shows)}``. The maniac also gets ``"orders":
    [{"night", "targets", "skip", "at", "voided", "fixed", "fixed_by": {"phase",
    "number"} (M3, :func:`fixed_by`)}], "open_nights": [n...], "next_order": {"night",
    "day"} | None (M3: with no night open, during a night after the first, the night
    ordered next and the day it is given on),
    "skips_left": n`` (M4) and ``"double_kill"``: :func:`double_kill_view` (M5). Nothing here
    tells why a night passed without a death (M6).

    :raises KeyError: ``player`` is not in the game.
    """
    role = state.role_of(player)
    partner = None
    if role == "maniac":
        partner = state.holder("fan")
    elif role == "fan":
        partner = state.maniac
    can_vote = not state.over and state.phase == "day" and state.free(player)
    mine = next((b for _, b in standing_votes(state) if b.voter == player), None)
    limit = state.rules.casts_per_target
    targets = vote_targets(state, player) if can_vote else []
    view: StatusView = {
        "game": state.game_id,
        "day": state.day,
        "next_day": state.day + 1,  # M2: night d is followed by day d + 1
        "phase": state.phase,
        "over": state.over,
        "winner_team": state.winner_team,
        "role": role,
        "partner": partner,
        "alive": state.alive(player),
        "removed": player in state.left,
        "in_prison": state.in_prison(player),
        "my_vote": None if mine is None else {"target": mine.target, "prison": mine.prison},
        "votes": vote_count(state),
        "casts_left": {t: max(0, limit - casts(state, player, t)) for t in targets},
        "prison_vote_for": [t for t in targets if state.was_in_cell(t)],
        "in_cell": state.cell,
        "prisoners": [p for _, p in state.imprisoned],
        "dead": [p for _, p in state.deaths],
        "commands": commands_view(
            [name for name, _ in state.players],
            limit,
            double_kill_allowed(state),
            reader=player,
        ),
    }
    if role == "maniac":
        view["orders"] = _orders_view(state)
        view["open_nights"] = open_nights(state)
        view["next_order"] = _next_order(state)
        view["skips_left"] = max(0, skip_limit(state) - skips_used(state))
        view["double_kill"] = double_kill_view(state)
    return view


def _next_order(state: ManiacState) -> NextOrder | None:
    """M3: while no night is open for orders (during night *d* ≥ 2), ``{"night": d + 2,
    "day": d + 1}``, the order given next and its day; else None."""
    if state.over or open_nights(state):
        return None
    return {"night": state.day + 2, "day": state.day + 1}


def double_kill_view(state: ManiacState) -> DoubleKillView:
    """M5: where the maniac's one double kill stands, for his ``STATUS``: ``{"state",
    "night": n | None, "fixed_by": {"phase", "number"} | None, "needed": n,
    "voided_night": n | None}``.

    ``state``: ``"none"`` (the game began with fewer than ``needed`` players),
    ``"available"``, ``"booked"`` (ordered for ``night``, and the order may still be
    changed until ``fixed_by``, M3), ``"fixed"`` (ordered for ``night``, fixed, that
    night still to come: voided if he spends it in the cell, M6) or ``"used"`` (the
    night ``night`` has passed with it). ``voided_night``: the night of a double kill
    voided because he sat in the cell (M6), which is not used up (M5); with
    ``"available"`` it is why the double kill is there again.
    """
    needed = state.rules.double_kill_from
    voided = next((o.night for o in state.orders if len(o.targets) == 2 and o.voided), None)
    view: DoubleKillView = {
        "state": "none",
        "night": None,
        "fixed_by": None,
        "needed": needed,
        "voided_night": voided,
    }
    if not double_kill_allowed(state):
        return view
    night = double_kill_night(state)  # a voided one is not used up (M5)
    if night is None:
        return {**view, "state": "available"}
    if not is_fixed(state, night):
        return {**view, "state": "booked", "night": night, "fixed_by": fixed_by(night)}
    return {**view, "state": "used" if night < state.day else "fixed", "night": night}


def duties(state: ManiacState, player: str) -> DutiesView | None:
    """What a reminder says, or None when ``player`` owes nothing now.

    ``{"day": d, "phase": "day" | "night", "vote": bool (during a day: he may vote
    and has no standing vote, M9), "orders_due": [night...] (the maniac only: the
    nights of :func:`open_nights` without an order, M3), "fixed_by": {"phase",
    "number"} | None (the deadline that fixes those orders, :func:`fixed_by`; None
    without orders due), "fixed_later": bool (the orders due stay open past the
    deadline reminded of, until the later one ``fixed_by`` names: on day 1 the orders
    for nights 1 and 2 may still be given and changed during night 1, M3)}``; None
    when both are empty and once the game is over. During night 1 the maniac may still
    owe the orders for nights 1 and 2 (M3); a later night owes nothing.

    :raises KeyError: ``player`` is not in the game.
    """
    role = state.role_of(player)
    if state.over:
        return None
    vote = (
        state.phase == "day"
        and state.free(player)
        and all(b.voter != player for _, b in standing_votes(state))
    )
    due: list[int] = []
    if role == "maniac":
        due = [n for n in open_nights(state) if order_for(state, n) is None]
    if not vote and not due:
        return None
    fixed = fixed_by(due[0]) if due else None
    return {
        "day": state.day,
        "phase": state.phase,
        "vote": vote,
        "orders_due": due,
        "fixed_by": fixed,
        "fixed_later": fixed is not None and fixed != {"phase": state.phase, "number": state.day},
    }


def gm_view(state: ManiacState) -> GmView:
    """Everything the GM sees (``pbp show``).

    ``{"game", "day", "phase", "over", "winner_team", "seed", "rules": {...},
    "started_at", "players": [{"name", "character", "role", "alive", "in_prison",
    "in_cell": bool, "cell_nights": [n...],
    "killed_night": n | None (M6–M8), "left": bool (removed by the GM)}],
    "orders": [{"night", "targets", "skip",
    "at", "voided", "fixed", "fixed_by"}], "open_nights": [n...], "skips_used",
    "skip_limit", "double_kill_allowed": bool (M5: enough players at the start),
    "double_kill_night": n | None (M5, not voided), "votes": vote_count(state),
    "ballots": [{"day",
    "voter", "target", "prison", "at"}], "deaths": [{"night", "player"}],
    "imprisoned": [{"day", "player"}], "commitment": hex, "canonical": str}``.
    """
    return {
        "game": state.game_id,
        "day": state.day,
        "phase": state.phase,
        "over": state.over,
        "winner_team": state.winner_team,
        "seed": state.seed,
        "rules": {
            "fan_from": state.rules.fan_from,
            "double_kill_from": state.rules.double_kill_from,
            "skip_divisor": state.rules.skip_divisor,
            "casts_per_target": state.rules.casts_per_target,
        },
        "started_at": state.started_at,
        "players": [
            {
                "name": p,
                "character": ch,
                "role": state.role_of(p),
                "alive": state.alive(p),
                "in_prison": state.in_prison(p),
                "in_cell": state.cell == p,
                "cell_nights": [n for n, q in state.cell_nights if q == p],
                "killed_night": next((n for n, q in state.deaths if q == p), None),
                "left": p in state.left,
            }
            for p, ch in state.players
        ],
        "orders": _orders_view(state),
        "open_nights": open_nights(state),
        "skips_used": skips_used(state),
        "skip_limit": skip_limit(state),
        "double_kill_allowed": double_kill_allowed(state),
        "double_kill_night": double_kill_night(state),
        "votes": vote_count(state),
        "ballots": [
            {
                "day": b.day,
                "voter": b.voter,
                "target": b.target,
                "prison": b.prison,
                "at": b.at,
                "voided": b.voided,
            }
            for b in state.ballots
        ],
        "deaths": [{"night": n, "player": p} for n, p in state.deaths],
        "imprisoned": [{"day": d, "player": p} for d, p in state.imprisoned],
        "commitment": commitment(state.canonical),
        "canonical": state.canonical,
    }


# --- the public posts of the votes (rule P1) ---


@overload
def post_view(post: Literal["day"], events: Sequence[Event], day: int | None) -> VotePostView: ...
@overload
def post_view(
    post: Literal["evening"], events: Sequence[Event], day: int | None
) -> EveningView: ...
@overload
def post_view(
    post: Literal["morning"], events: Sequence[Event], day: int | None
) -> MorningView: ...
@overload
def post_view(post: Literal["final"], events: Sequence[Event], day: int | None) -> FinalView: ...
@overload
def post_view(post: Literal["help"], events: Sequence[Event], day: int | None) -> HelpView: ...
@overload
def post_view(
    post: Literal["opening", "welcome"], events: Sequence[Event], day: int | None
) -> GameStarted: ...
@overload
def post_view(post: str, events: Sequence[Event], day: int | None) -> PostView: ...
def post_view(post: str, events: Sequence[Event], day: int | None) -> PostView:
    """What the public post ``post`` of game day ``day`` (None: the latest) shows, from
    the game's PUBLIC ``events`` (in log order): the ``day`` post
    :func:`vote_post_view`, the ``evening`` post :func:`evening_view`, the ``morning``
    post :func:`morning_view` (``day``: the night that ended), the ``final`` post
    :func:`final_view`, and ``help`` (the command help, public: the same for every
    role) ``{"commands": commands_view}``; ``{}`` for the others (they lay out their
    events as they are).

    :raises LookupError: the evening of a day that has not closed, the morning of a
        night that has not ended, the final post of a game not over.
    """
    if post == "day":
        return vote_post_view(events, day)
    if post == "evening":
        return evening_view(events, day)
    if post == "morning":
        return morning_view(events, day)
    if post == "final":
        return final_view(events)
    if post == "help":
        return {"commands": commands_of(events)}
    if post in ("opening", "welcome"):
        return start_view(events)
    return {}


def start_view(events: Sequence[Event]) -> GameStarted:
    """What the opening post and the welcome mail show of the game dealt (M1, M2): the
    ``game_started`` among ``events`` as it is, ``{"game", "day", "players": [{"name",
    "character"}], "commitment", "fan": bool, "skips": n, "double_kill": bool,
    "casts_per_target": n, "started_at"}``.

    :raises LookupError: no ``game_started`` among ``events``.
    """
    started = [e.data for e in events if e.kind == "game_started"]
    if not started:
        raise LookupError("no game_started event")
    return cast(GameStarted, dict(started[-1]))


#: The GM-only facts the GM's mail beside each post lists (:func:`gm_facts`).
_GM_FACTS: dict[str, tuple[str, ...]] = {
    "evening": ("order_fixed",),  # M3: a day's close fixes the order for the night after next
    "morning": ("night_resolution",),
    "final": ("night_resolution",),
}


def gm_facts(post: str, period: int | None, private: Sequence[JsonMap]) -> list[JsonMap]:
    """The GM-only facts (event dicts ``{kind, …}``, in log order) that the GM's mail
    beside the post ``post`` of ``period`` lists, of the non-public ``private`` ones
    logged with it: the roles, the fixed orders and how each night went for the
    opening; the orders a day's close fixed for the ``evening``; how the night went for
    the ``morning``, and on the morning after night 1 also the order for night 2 that
    its end fixed (M3); how the last night went for the ``final`` post.

    >>> facts = [{"kind": "order_fixed", "night": 2}, {"kind": "night_resolution"}]
    >>> [f["kind"] for f in gm_facts("morning", 1, facts)]
    ['order_fixed', 'night_resolution']
    >>> [f["kind"] for f in gm_facts("morning", 2, facts)]
    ['night_resolution']
    """
    kinds = _GM_FACTS.get(post, ("roles", "order_fixed", "night_resolution"))
    if post == "morning" and period == 1:
        kinds = ("order_fixed", "night_resolution")
    return [fact for fact in private if fact["kind"] in kinds]


def commands_view(
    players: Sequence[str], casts: int, double_kill: bool, reader: str | None = None
) -> CommandsView:
    """What the command help shows (``parts/commands.j2``), the same for every role:
    ``{"player": name | None, "second": name | None (the examples: the last two seats
    but the ``reader``'s own — a help never shows him voting for or killing himself,
    M9; None before a game is dealt), "casts": n (M9: casts on one player a day),
    "double_kill": bool (M5: the game has it)}``.

    >>> commands_view(["Лев", "Мария", "Илья"], 2, False)
    {'player': 'Илья', 'second': 'Мария', 'casts': 2, 'double_kill': False}
    >>> commands_view(["Лев", "Мария", "Илья"], 2, False, reader="Илья")["player"]
    'Мария'
    """
    others = [p for p in players if p != reader]
    return {
        "player": others[-1] if others else None,
        "second": others[-2] if len(others) > 1 else None,
        "casts": casts,
        "double_kill": double_kill,
    }


def commands_of(events: Sequence[Event]) -> CommandsView:
    """:func:`commands_view` of the game the ``game_started`` among ``events`` dealt
    (its seats, ``casts_per_target`` and ``double_kill``); without one, no examples,
    the default rules and no double kill."""
    started = next((e.data for e in events if e.kind == "game_started"), None)
    if started is None:
        return commands_view([], ManiacRules().casts_per_target, False)
    return commands_view(
        [p["name"] for p in started["players"]],
        int(started["casts_per_target"]),
        bool(started["double_kill"]),
    )


def morning_view(events: Sequence[Event], night: int | None) -> MorningView:
    """The morning after night ``night`` (None: the last that ended) as its post shows
    it (M6–M8, M12): ``{"night": n, "day": n + 1, "dead": [name...] (names only, M8),
    "released": name | None (leaves the cell), "game_over": bool, "free": [name...]
    (alive, not in prison, not removed, in seating order, M9), "prison": [name...]
    (in order of imprisonment)}``. Who is where is counted from the events up to that
    morning, so a later post does not change it (rule P1).

    :raises LookupError: no such night has ended.
    """
    ends = [i for i, e in enumerate(events) if e.kind == "night_ended"]
    if night is not None:
        ends = [i for i in ends if int(events[i].data["night"]) == night]
    if not ends:
        raise LookupError(f"night {night} has not ended" if night else "no night has ended")
    upto = events[: ends[-1] + 1]
    ended = upto[-1].data
    return {
        "night": ended["night"],
        "day": ended["day"],
        "dead": list(ended["dead"]),
        "released": ended["released"],
        "game_over": any(e.kind == "game_over" for e in events),
        "free": free_players(upto),
        "prison": [p for _, p in imprisoned(upto)],
    }


def final_view(events: Sequence[Event]) -> FinalView:
    """The final post (M12): ``{"winner_team": "town" | "maniac", "winners":
    [name...] (the winning team, the dead included; never a player the GM removed),
    "removed_winners": [name...] (players of the winning team the GM removed, in the
    order removed: not among the winners), "roles": [{"player", "role", "killed_night":
    n | None, "prison_day": d | None, "left_day": d | None (removed by the GM)}] (in the
    order of the game's roles), "canonical": the deal line,
    "commitment": hex | None (what the opening post published; None without a
    ``game_started`` among ``events``)}``.

    :raises LookupError: the game is not over (no ``game_over`` among ``events``).
    """
    over = next((e.data for e in reversed(events) if e.kind == "game_over"), None)
    if over is None:
        raise LookupError("the game is not over")
    killed = {
        p: int(e.data["night"]) for e in events if e.kind == "night_ended" for p in e.data["dead"]
    }
    prison = {p: d for d, p in imprisoned(events)}
    left = {e.data["player"]: int(e.data["day"]) for e in events if e.kind == "player_left"}
    started = [e.data for e in events if e.kind == "game_started"]
    team = TOWN if over["winner_team"] == "town" else MANIAC_TEAM
    return {
        "winner_team": over["winner_team"],
        # A game that ended before game_over left the removed out listed them (M12).
        "winners": [p for p in over["winners"] if p not in left],
        "removed_winners": [p for p in left if over["roles"].get(p) in team],
        "roles": [
            {
                "player": p,
                "role": r,
                "killed_night": killed.get(p),
                "prison_day": prison.get(p),
                "left_day": left.get(p),
            }
            for p, r in over["roles"].items()
        ],
        "canonical": over["canonical"],
        "commitment": started[-1]["commitment"] if started else None,
    }


def player_outcome(
    over: GameOver, player: str, removed: Collection[str]
) -> Literal["won", "lost", "removed"]:
    """What the end of the game (the ``game_over`` data ``over``, M12) is for ``player``,
    as his mail tells it, ``removed`` being the players the GM removed: ``"won"``
    (among the winners), ``"removed"`` (his team won, but the GM removed him, so he is
    not among the winners) or ``"lost"``.

    >>> over: GameOver = {"winner_team": "town", "winners": ["Лев"], "canonical": "",
    ...     "roles": {"Лев": "civilian", "Мария": "civilian", "Павел": "maniac"}}
    >>> [player_outcome(over, p, ["Мария"]) for p in ("Лев", "Мария", "Павел")]
    ['won', 'removed', 'lost']
    """
    if player in removed:
        team = TOWN if over["winner_team"] == "town" else MANIAC_TEAM
        return "removed" if over["roles"].get(player) in team else "lost"
    return "won" if player in over["winners"] else "lost"


def vote_post_view(events: Sequence[Event], day: int | None) -> VotePostView:
    """The votes of game day ``day`` (None: the last day with a vote, a close or a
    morning; 1 before any) as its post shows them (M9–M11): ``{"day": d, "closed":
    bool, "count": {"day", "candidates", "not_voted"} (the shape of
    :func:`~pbp.games.maniac.state.count_ballots`), "result": :func:`result_view` |
    None (while the day runs)}``.

    Once the day has closed, its count is the one its ``day_closed`` event holds;
    until then it is :func:`~pbp.games.maniac.state.count_ballots` of the day's ballots
    as the public events give them (votes cast, withdrawn, voided by the GM) — the
    function the close counts with, so a voided vote leaves the live count and the
    result at once (rule P1).
    """
    if day is None:
        days = [int(e.data["day"]) for e in events if e.kind in _DAY_EVENTS]
        day = max(days, default=1)
    closed = day_closed(events, day)
    if closed is not None:
        return {
            "day": day,
            "closed": True,
            "count": _closed_count(closed),
            "result": result_view(closed),
        }
    count = count_ballots(ballots_of(events), day, free_players(events))
    return {"day": day, "closed": False, "count": count, "result": None}


def evening_view(events: Sequence[Event], day: int | None) -> EveningView:
    """The close of game day ``day`` (None: the last closed) as its evening post shows
    it (M10–M12): ``{"day": d, "count": {"day", "candidates", "not_voted"}, "result":
    :func:`result_view`, "game_over": bool (``events`` hold the end of the game)}``.

    :raises LookupError: day ``day`` has not closed (no ``day_closed`` among ``events``).
    """
    if day is None:
        day = max((int(e.data["day"]) for e in events if e.kind == "day_closed"), default=0)
    closed = day_closed(events, day)
    if closed is None:
        raise LookupError(f"day {day} has not closed")
    over = any(e.kind == "game_over" for e in events)
    return {
        "day": day,
        "count": _closed_count(closed),
        "result": result_view(closed),
        "game_over": over,
    }


def result_view(closed: DayClosed) -> ResultView:
    """What the close of a day decided (M10, M11), from its ``day_closed`` data:
    ``{"to_cell": name | None, "to_prison": name | None, "chosen": the one of them
    (None: nobody was voted for), "prison_reason": "second_night" | "prison_votes" |
    None, "tie": {"tied": [name...], "votes": n (each), "voter": name (whose standing
    vote broke it)} | None, "vote_split": {"prison": n, "cell": n} | None (absent
    from events stored before it existed)}``."""
    broken = closed["tie_broken_by"]
    tie: Tie | None = None
    if broken:
        votes = closed["counts"][0]["votes"]  # the chosen one's: M10 ties are equal counts
        tie = {"tied": broken["tied"], "votes": votes, "voter": broken["voter"]}
    return {
        "to_cell": closed["to_cell"],
        "to_prison": closed["to_prison"],
        "chosen": closed["to_cell"] or closed["to_prison"],
        "prison_reason": closed["prison_reason"],
        "tie": tie,
        "vote_split": closed.get("vote_split"),
    }


#: The events whose day makes the latest day of a ``day`` post asked without one.
_DAY_EVENTS = ("day_closed", "vote_cast", "night_ended")


def _closed_count(closed: DayClosed) -> VoteCount:
    """The final count of a closed day, as its ``day_closed`` holds it."""
    return {"day": closed["day"], "candidates": closed["counts"], "not_voted": closed["not_voted"]}
