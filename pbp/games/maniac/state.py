"""The state of a Maniac game (rules M1–M12 of RULES.md; seed 002): queries, JSON.

Split from :mod:`pbp.games.maniac.engine` (the rules: moves, day close, night end) so
each module stays small; the views built on these queries are in
:mod:`pbp.games.maniac.views`. Pure: no I/O, no clock. Times are stored as ISO 8601
strings in UTC (``"2026-12-01T17:05:00+00:00"``).

Vocabulary (RULES.md): game day *d* is followed by night *d* (M2). During day *d* the
living players not in prison vote (M9); the close of day *d* sends one player to the
**cell** for night *d* or to **prison** for good (M10, M11). The maniac's **kill
order** (or **skip**) for nights 1 and 2 is given on day 1 or during night 1 and fixed
at the end of night 1; for a later night *n* it is *due* on day *n - 1* and fixed at
that day's close (M3, :func:`fixed_by`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pbp.games.core.events import IllegalMove, JsonMap, SetupError, flat_dict
from pbp.games.maniac.shapes import FixedBy, OrderJson, Team, VoteCount
from pbp.text.fairness import canonical_deal

Role = Literal["maniac", "duty_officer", "fan", "civilian"]
ROLES: tuple[str, ...] = ("maniac", "duty_officer", "fan", "civilian")
TOWN: frozenset[str] = frozenset({"duty_officer", "civilian"})  # M1: the town
MANIAC_TEAM: frozenset[str] = frozenset({"maniac", "fan"})  # M1: the maniac's team
MIN_PLAYERS, MAX_PLAYERS = 8, 15  # M1
Phase = Literal["day", "night"]


@dataclass(frozen=True)
class ManiacRules:
    """The rule numbers of RULES.md M1–M12, with their defaults.

    ``fan_from``: players needed for a fan (M1, 10); ``double_kill_from``: players
    needed for the one double kill (M5, 12); ``skip_divisor``: skips per game are
    ``floor(N / skip_divisor)`` for N players at the start (M4, 3);
    ``casts_per_target``: casts one voter may make on one player per day (M9, 2).

    :raises ValueError: a number below 1.
    """

    fan_from: int = 10  # M1
    double_kill_from: int = 12  # M5
    skip_divisor: int = 3  # M4
    casts_per_target: int = 2  # M9

    def __post_init__(self) -> None:
        if min(dataclasses.astuple(self)) < 1:
            raise SetupError(f"rules M1, M4, M5, M9: every number must be >= 1 in {self!r}")


@dataclass(frozen=True)
class ManiacSetup:
    """What the config gives to ``start``.

    ``players``: ``(name, character or None)`` in seating order, e.g.
    ``(("Вася", None), ("Петя", None), ...)``; ``roles``: a fixed deal
    ``{player: "maniac" | "duty_officer" | "fan" | "civilian"}`` (checked by M1) or
    None to deal from the seed.
    """

    game_id: str
    players: tuple[tuple[str, str | None], ...]
    rules: ManiacRules = field(default_factory=ManiacRules)
    roles: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Ballot:
    """One vote cast (``target`` set) or withdrawn (``target`` None, UNVOTE) on ``day``.

    ``prison``: a vote for prison (M11); ``at``: its arrival, ISO UTC (D8). The
    game's ballots are kept in arrival order; the index is the order of casting
    that breaks ties (M10). ``voided``: cancelled by the GM, as if never cast (the
    voter's vote before it stands again; it is not a cast, M9).
    """

    day: int
    voter: str
    target: str | None
    prison: bool
    at: str
    voided: bool = False


@dataclass(frozen=True)
class Order:
    """The maniac's order for ``night`` (M3): ``targets`` (one, or two for the double
    kill of M5) or a skip (``targets == ()``, M4). ``at``: when it was placed or last
    changed (ISO UTC). ``voided``: the maniac spent that night in the cell (M6)."""

    night: int
    targets: tuple[str, ...]
    at: str
    voided: bool = False

    @property
    def skip(self) -> bool:
        """True for a skip order (M4)."""
        return not self.targets

    def as_json(self) -> OrderJson:
        """``{"night", "targets": [...], "skip": bool, "at", "voided"}``."""
        return {
            "night": self.night,
            "targets": list(self.targets),
            "skip": self.skip,
            "at": self.at,
            "voided": self.voided,
        }


@dataclass(frozen=True)
class ManiacState:
    """The whole state of one game; immutable, JSON round trip by :func:`dump_state`.

    ``roles``: ``(player, role)`` in seating order; ``day``: the current game day (M2),
    also during night ``day`` (``phase == "night"``); ``cell_nights``: ``(night,
    player)`` for every night spent in the cell (M10); ``imprisoned``: ``(day,
    player)`` in the order sent to prison (M11); ``deaths``: ``(night, player)``
    (M6, M7); ``salt``: hex of the fairness salt; ``left``: players the GM removed
    (they take no further part, as the dead, M8). Once ``over``, ``day`` and
    ``phase`` stay those of the end.
    """

    game_id: str
    players: tuple[tuple[str, str | None], ...]
    rules: ManiacRules
    roles: tuple[tuple[str, str], ...]
    seed: int
    salt: str
    started_at: str
    day: int = 1
    phase: Phase = "day"
    ballots: tuple[Ballot, ...] = ()
    orders: tuple[Order, ...] = ()
    cell_nights: tuple[tuple[int, str], ...] = ()
    imprisoned: tuple[tuple[int, str], ...] = ()
    deaths: tuple[tuple[int, str], ...] = ()
    winner_team: Team | None = None
    over: bool = False
    left: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        """Player names in seating order."""
        return [name for name, _ in self.players]

    def role_of(self, player: str) -> str:
        """The role of ``player``. :raises KeyError: not a player."""
        return dict(self.roles)[player]

    def holder(self, role: str) -> str | None:
        """The player who has ``role`` (maniac, duty_officer, fan), or None."""
        return next((p for p, r in self.roles if r == role), None)

    @property
    def maniac(self) -> str:
        """The maniac (M1: there is always one)."""
        found = self.holder("maniac")
        assert found is not None
        return found

    @property
    def canonical(self) -> str:
        """The fairness text of this game's roles (DESIGN.md): the deal is
        ``{"roles": {player: role}}``."""
        return canonical_deal(self.game_id, bytes.fromhex(self.salt), roles_deal(self.roles))

    @property
    def cell(self) -> str | None:
        """The player in the cell now (during night ``day`` only), or None (M10, M8)."""
        if self.phase != "night":
            return None
        return next((p for n, p in self.cell_nights if n == self.day), None)

    def alive(self, player: str) -> bool:
        """True unless ``player`` died (M6, M7) or left the game (removed by the GM)."""
        return player not in self.left and all(p != player for _, p in self.deaths)

    def in_prison(self, player: str) -> bool:
        """True once ``player`` went to prison (M11), dead or alive."""
        return any(p == player for _, p in self.imprisoned)

    def free(self, player: str) -> bool:
        """Alive and not in prison: may vote and be voted for (M9)."""
        return self.alive(player) and not self.in_prison(player)

    def was_in_cell(self, player: str) -> bool:
        """True when ``player`` has spent at least one night in the cell (M11)."""
        return any(p == player for _, p in self.cell_nights)


def roles_deal(roles: tuple[tuple[str, str], ...]) -> dict[str, dict[str, str]]:
    """The deal committed to (DESIGN.md): ``{"roles": {player: role}}``."""
    return {"roles": dict(roles)}


def check_roles(names: list[str], roles: Mapping[str, str], rules: ManiacRules) -> None:
    """M1 for a fixed deal ``{player: role}`` of the players ``names``.

    :raises ValueError: naming the rule and the problem (a player without a role or
        a role for a non-player, an unknown role, wrong role counts)."""
    if set(roles) != set(names):
        raise SetupError(
            f"rule M1: roles must name every player once; players {names}, roles {sorted(roles)}"
        )
    unknown = sorted({r for r in roles.values() if r not in ROLES})
    if unknown:
        raise SetupError(f"rule M1: unknown roles {unknown}; roles are {', '.join(ROLES)}")
    fans = 1 if len(names) >= rules.fan_from else 0
    for role, want in (("maniac", 1), ("duty_officer", 1), ("fan", fans)):
        got = sum(1 for r in roles.values() if r == role)
        if got != want:
            raise SetupError(f"rule M1: {len(names)} players need {want} {role}, got {got}")


def deal_roles(names: list[str], rules: ManiacRules, rng: random.Random) -> dict[str, str]:
    """M1: shuffle the players with ``rng``; the first is the maniac, the second the duty
    officer, the third the fan (from ``rules.fan_from`` players), the rest civilians.

    >>> deal_roles(["A", "B", "C", "D"], ManiacRules(fan_from=4), random.Random(1))
    {'A': 'duty_officer', 'B': 'civilian', 'C': 'fan', 'D': 'maniac'}
    """
    shuffled = list(names)
    rng.shuffle(shuffled)
    special = ["maniac", "duty_officer"] + (["fan"] if len(names) >= rules.fan_from else [])
    dealt = dict(zip(shuffled, special, strict=False))
    return {p: dealt.get(p, "civilian") for p in names}


# --- queries ---


def phase(state: ManiacState) -> Phase:
    """``"day"`` (votes, M9) or ``"night"`` (between the day close and the night end, M2)."""
    return state.phase


def day(state: ManiacState) -> int:
    """The current game day, 1-based (during night *d*: *d*)."""
    return state.day


def is_over(state: ManiacState) -> bool:
    """True once a side has won (M12)."""
    return state.over


def fixed_by(night: int) -> FixedBy:
    """M3: the deadline that fixes the order for ``night``: ``{"phase": "night",
    "number": 1}`` (the end of night 1) for nights 1 and 2, else ``{"phase": "day",
    "number": night - 1}`` (the close of that day).

    >>> fixed_by(2), fixed_by(5)
    ({'phase': 'night', 'number': 1}, {'phase': 'day', 'number': 4})
    """
    if night <= 2:
        return {"phase": "night", "number": 1}
    return {"phase": "day", "number": night - 1}


def _deadline_index(phase_: str, number: int) -> int:
    """The deadlines in time order: the close of day *d* is ``2d``, the end of night *d*
    is ``2d + 1``."""
    return 2 * number + (1 if phase_ == "night" else 0)


def _deadlines_passed(state: ManiacState) -> int:
    """The index (:func:`_deadline_index`) of the last deadline passed: during day *d*
    night *d - 1* has ended, during night *d* day *d* has closed."""
    return 2 * state.day - (1 if state.phase == "day" else 0)


def nights_fixed_at(phase_: str, number: int) -> list[int]:
    """M3: the nights whose orders the close of day ``number`` (``phase_ == "day"``) or
    the end of night ``number`` (``"night"``) fixes: ``[1, 2]`` at the end of night 1,
    ``[d + 1]`` at the close of day *d* ≥ 2, else none (the close of day 1 fixes
    nothing: the orders for nights 1 and 2 may still be given during night 1).

    >>> nights_fixed_at("day", 1), nights_fixed_at("night", 1), nights_fixed_at("day", 3)
    ([], [1, 2], [4])
    """
    if phase_ == "night":
        return [1, 2] if number == 1 else []
    return [] if number == 1 else [number + 1]


def open_nights(state: ManiacState) -> list[int]:
    """M3: the nights whose orders the maniac may place or change now, each until the
    deadline :func:`fixed_by` gives, and the nights he is to order for (the reminders,
    :func:`pbp.games.maniac.views.duties`): nights 1 and 2 on day 1 and during night 1
    (the seed's "в первый игровой день (или ночь)"), night *d + 1* on a later day *d*;
    none during a later night *d* (the order for night *d + 2* is given on day *d + 1*,
    seed 002: "Во второй день маньяк пишет: 3 ночь"). The one rule every view that lists
    open nights uses (``pbp show``, ``STATUS``, the refusals, the reminders)."""
    if state.over:
        return []
    if state.day == 1:
        return [1, 2]
    return [state.day + 1] if state.phase == "day" else []


def order_for(state: ManiacState, night: int) -> Order | None:
    """The order placed for ``night``, or None (a miss once fixed, M3)."""
    return next((o for o in state.orders if o.night == night), None)


def is_fixed(state: ManiacState, night: int) -> bool:
    """M3: True once the deadline that fixes the order for ``night`` (:func:`fixed_by`)
    has passed."""
    deadline = fixed_by(night)
    return _deadline_index(deadline["phase"], deadline["number"]) <= _deadlines_passed(state)


def skip_limit(state: ManiacState) -> int:
    """M4: skips per game, ``floor(N / 3)`` for N players at the start."""
    return len(state.players) // state.rules.skip_divisor


def skips_used(state: ManiacState) -> int:
    """M4: skip orders placed and not voided (a voided skip is not used up, M6)."""
    return sum(1 for o in state.orders if o.skip and not o.voided)


def double_kill_allowed(state: ManiacState) -> bool:
    """M5: True when the game started with enough players for the double kill."""
    return len(state.players) >= state.rules.double_kill_from


def double_kill_night(state: ManiacState, orders: Iterable[Order] | None = None) -> int | None:
    """M5: the night of the order with two targets that uses up the double kill (placed
    or fixed), or None. A double kill voided because the maniac sat in the cell or
    prison that night (M6) is not used up, as a voided skip is not (seed 2.3).
    ``orders``: those to look at (default: all of the state's)."""
    found = state.orders if orders is None else orders
    return next((o.night for o in found if len(o.targets) == 2 and not o.voided), None)


def casts(state: ManiacState, voter: str, target: str) -> int:
    """M9: votes ``voter`` has cast on ``target`` today (cell and prison votes alike)."""
    return sum(
        1
        for b in state.ballots
        if b.day == state.day and b.voter == voter and b.target == target and not b.voided
    )


def standing_votes(state: ManiacState) -> list[tuple[int, Ballot]]:
    """M9: ``(index, ballot)`` of every voter's last vote today, not withdrawn, in
    order of casting (``index``: position in ``state.ballots``)."""
    return standing_of(state.ballots, state.day)


def standing_of(ballots: Sequence[Ballot], day: int) -> list[tuple[int, Ballot]]:
    """M9: ``(index, ballot)`` of every voter's last vote of ``day`` among ``ballots``
    (in arrival order), not voided and not withdrawn, in order of casting (``index``:
    position in ``ballots``)."""
    last: dict[str, tuple[int, Ballot]] = {}
    for index, ballot in enumerate(ballots):
        if ballot.day == day and not ballot.voided:
            last[ballot.voter] = (index, ballot)
    return sorted((v for v in last.values() if v[1].target is not None), key=lambda v: v[0])


def vote_count(state: ManiacState) -> VoteCount:
    """The current count of the votes of the current day, in the usual forum form (M9):
    :func:`count_ballots` of the state's ballots and its living players not in prison.
    During night *d*: the final count of day *d*."""
    free = [p for p in state.names if state.free(p)]
    return count_ballots(state.ballots, state.day, free)


def count_ballots(ballots: Sequence[Ballot], day: int, free: Sequence[str]) -> VoteCount:
    """The count of the votes of ``day`` among ``ballots`` (in arrival order), in the
    usual forum form (M9, M10); ``free``: the living players not in prison, in seating
    order. The one count of a day: the live count of its post, ``pbp show`` and the
    close (:func:`vote_count`, :func:`pbp.games.maniac.views.vote_post_view`; rule P1).

    ``{"day": 2, "candidates": [{"player": "Таня", "votes": 2, "prison_votes": 0,
    "voters": ["Петя", "Вася"], "prison_voters": []}, ...], "not_voted": ["Оля"]}``:
    candidates by votes (most first), ties in the order of M10 (earliest standing vote
    first; the first candidate is who the close would send); ``voters`` in order of
    casting of their standing votes; ``not_voted``: the ``free`` players with no
    standing vote, in their order.
    """
    standing = standing_of(ballots, day)
    first: dict[str, int] = {}
    voters: dict[str, list[Ballot]] = {}
    for index, ballot in standing:
        assert ballot.target is not None
        first.setdefault(ballot.target, index)
        voters.setdefault(ballot.target, []).append(ballot)
    order = sorted(voters, key=lambda t: (-len(voters[t]), first[t]))
    voted = {b.voter for _, b in standing}
    return {
        "day": day,
        "candidates": [
            {
                "player": t,
                "votes": len(voters[t]),
                "prison_votes": sum(b.prison for b in voters[t]),
                "voters": [b.voter for b in voters[t]],
                "prison_voters": [b.voter for b in voters[t] if b.prison],
            }
            for t in order
        ],
        "not_voted": [p for p in free if p not in voted],
    }


def vote_targets(state: ManiacState, voter: str) -> list[str]:
    """M9: who ``voter`` may name at all: the other living players not in prison."""
    return [p for p in state.names if p != voter and state.free(p)]


def order_targets(state: ManiacState) -> list[str]:
    """M3: who the maniac may name: the living players but himself."""
    return [p for p in state.names if p != state.maniac and state.alive(p)]


def check_named(state: ManiacState, name: str, allowed: list[str]) -> None:
    """M3, M9: ``name`` (a vote's or an order's target) is a living player; ``allowed``:
    who may be named instead, for the refusal.

    :raises IllegalMove: ``not_a_player`` {player, players}, ``target_removed``
        {target, players} (the GM removed him), ``target_dead`` {target, players}.
    """
    if name not in state.names:
        raise IllegalMove("not_a_player", player=name, players=allowed)
    if name in state.left:
        raise IllegalMove("target_removed", target=name, players=allowed)
    if not state.alive(name):
        raise IllegalMove("target_dead", target=name, players=allowed)


# --- storage ---


def dump_state(state: ManiacState) -> JsonMap:
    """State → JSON-able dict; ``load_state(dump_state(s)) == s`` exactly."""
    return {
        "game_id": state.game_id,
        "players": [[p, ch] for p, ch in state.players],
        "rules": dataclasses.asdict(state.rules),
        "roles": [[p, r] for p, r in state.roles],
        "seed": state.seed,
        "salt": state.salt,
        "started_at": state.started_at,
        "day": state.day,
        "phase": state.phase,
        "ballots": [flat_dict(b) for b in state.ballots],
        "orders": [
            {"night": o.night, "targets": list(o.targets), "at": o.at, "voided": o.voided}
            for o in state.orders
        ],
        "cell_nights": [[n, p] for n, p in state.cell_nights],
        "imprisoned": [[d, p] for d, p in state.imprisoned],
        "deaths": [[n, p] for n, p in state.deaths],
        "winner_team": state.winner_team,
        "over": state.over,
        "left": list(state.left),
    }


def load_state(data: Mapping[str, Any]) -> ManiacState:
    """Inverse of :func:`dump_state`. :raises KeyError, TypeError, ValueError: malformed data."""
    phase_ = data["phase"]
    if phase_ not in ("day", "night"):
        raise ValueError(f"phase must be 'day' or 'night', got {phase_!r}")
    return ManiacState(
        game_id=data["game_id"],
        players=tuple((p, ch) for p, ch in data["players"]),
        rules=ManiacRules(**{k: int(v) for k, v in data["rules"].items()}),
        roles=tuple((p, r) for p, r in data["roles"]),
        seed=int(data["seed"]),
        salt=data["salt"],
        started_at=data["started_at"],
        day=int(data["day"]),
        phase=phase_,
        ballots=tuple(Ballot(**b) for b in data["ballots"]),
        orders=tuple(
            Order(int(o["night"]), tuple(o["targets"]), o["at"], bool(o["voided"]))
            for o in data["orders"]
        ),
        cell_nights=tuple((int(n), p) for n, p in data["cell_nights"]),
        imprisoned=tuple((int(d), p) for d, p in data["imprisoned"]),
        deaths=tuple((int(n), p) for n, p in data["deaths"]),
        winner_team=data["winner_team"],
        over=bool(data["over"]),
        left=tuple(data.get("left", ())),
    )
