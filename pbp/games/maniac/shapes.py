"""The shapes of Maniac's views, mail contexts and events (rules M1–M12 of RULES.md), as
``TypedDict`` classes that mypy checks and the templates name in their headers.

Each is a plain dict at run time (stored as JSON, passed to the templates, which read
it with ``.key``): a template lays out what the kind computed and names the shape it
gets (``view`` — :class:`VotePostView`). Names are seats (``str``); ``day``, ``night``
and ``number`` count from 1 (night *d* follows day *d*, M2); times in events are ISO
8601 strings in UTC (``"2026-12-01T17:05:00+00:00"``), the few ``datetime`` values are
aware. Who builds each: :mod:`pbp.games.maniac.views` (the views),
:mod:`pbp.games.maniac.state` (counts, orders), the engine modules (the events' data,
catalogued in :mod:`pbp.games.maniac.engine`) and :class:`pbp.games.maniac.kind.Maniac`
(the mails' contexts). Imports nothing of Maniac, so every module of it may use these.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, NotRequired, TypedDict

#: The half of a game day a deadline ends (M2): ``"day"`` (its close), ``"night"``.
DeadlinePhase = Literal["day", "night"]
#: A winning side (M12): the town (duty officer, civilians) or the maniac's team.
Team = Literal["town", "maniac"]


# --- pieces ---


class FixedBy(TypedDict):
    """M3: the deadline that fixes an order (:func:`pbp.games.maniac.state.fixed_by`):
    the close of day ``number`` (``phase`` ``"day"``) or the end of night ``number``."""

    phase: DeadlinePhase
    number: int


class OrderJson(TypedDict):
    """One kill order (M3–M5) as :meth:`pbp.games.maniac.state.Order.as_json` gives it:
    ``targets`` (one or two names; none for a skip, ``skip`` True, M4), ``at`` when
    placed or last changed (ISO UTC), ``voided`` (the maniac sat in the cell, M6)."""

    night: int
    targets: list[str]
    skip: bool
    at: str
    voided: bool


class OrderView(OrderJson):
    """An order as the maniac's ``STATUS`` and ``pbp show`` list it: also whether it is
    ``fixed`` (M3) and the deadline that fixes it."""

    fixed: bool
    fixed_by: FixedBy


class Candidate(TypedDict):
    """One player voted for (M9, M11): ``votes`` (standing votes, cell and prison),
    ``prison_votes`` (of them, for prison), ``voters`` in order of casting and the
    ``prison_voters`` among them."""

    player: str
    votes: int
    prison_votes: int
    voters: list[str]
    prison_voters: list[str]


class VoteCount(TypedDict):
    """The count of day ``day``'s votes in the usual forum form (M9, M10;
    :func:`pbp.games.maniac.state.count_ballots`, rule P1): ``candidates`` by votes
    (most first; ties in the order of M10: the first is who the close sends),
    ``not_voted``: the free players without a standing vote, in seating order."""

    day: int
    candidates: list[Candidate]
    not_voted: list[str]


class Seat(TypedDict):
    """A seat as the opening post shows it: the player and his ``character`` (the
    name he plays under; None: none)."""

    name: str
    character: str | None


class CommandsView(TypedDict):
    """What the command help shows (``parts/commands.j2``;
    :func:`pbp.games.maniac.views.commands_view`), the same for every role: the
    examples ``player`` and ``second`` (two seats but the reader's own, M9; None before
    a game is dealt), ``casts`` (casts on one player a day, M9), ``double_kill`` (the
    game has it, M5)."""

    player: str | None
    second: str | None
    casts: int
    double_kill: bool


class RulesJson(TypedDict):
    """The rule numbers (:class:`pbp.games.maniac.state.ManiacRules`)."""

    fan_from: int
    double_kill_from: int
    skip_divisor: int
    casts_per_target: int


# --- the events' data (the catalogue is in pbp.games.maniac.engine) ---


class GameStarted(TypedDict):
    """PUBLIC ``game_started`` (M1, M2): ``commitment`` (hex SHA-256 of the deal,
    DESIGN.md), ``fan`` (the game has one, M1), ``skips`` (per game, M4),
    ``double_kill`` (M5), ``casts_per_target`` (M9), ``started_at`` (ISO UTC)."""

    game: str
    day: int
    players: list[Seat]
    commitment: str
    fan: bool
    skips: int
    double_kill: bool
    casts_per_target: int
    started_at: str


class TieBrokenBy(TypedDict):
    """M10: the players ``tied`` with the chosen one (him first) and the earliest
    standing ``voter`` among them, his vote cast ``at`` (ISO UTC)."""

    tied: list[str]
    voter: str
    at: str


class VoteSplit(TypedDict):
    """M11: the chosen player's standing votes for ``prison`` and for the ``cell``."""

    prison: int
    cell: int


class DayClosed(TypedDict):
    """PUBLIC ``day_closed`` (M10, M11): the day's ``counts`` (the candidates of
    :class:`VoteCount`, the first chosen), who went ``to_cell`` or ``to_prison`` (one
    name, or neither: nobody was voted for) and why prison (``"second_night"`` |
    ``"prison_votes"``), the tie rule when used, ``closed_at`` (ISO UTC).
    ``vote_split`` is absent from events stored before it existed."""

    day: int
    counts: list[Candidate]
    not_voted: list[str]
    to_cell: str | None
    to_prison: str | None
    prison_reason: str | None
    tie_broken_by: TieBrokenBy | None
    vote_split: NotRequired[VoteSplit | None]
    closed_at: str


class NightEnded(TypedDict):
    """PUBLIC ``night_ended`` (M6–M8): the ``dead`` (names only, seating order), who is
    ``released`` from the cell, the ``day`` that opens, ``ended_at`` (ISO UTC)."""

    night: int
    dead: list[str]
    released: str | None
    day: int
    ended_at: str


class NightOrder(TypedDict):
    """The order a night carried out (``night_resolution``)."""

    targets: list[str]
    skip: bool


class NightTarget(TypedDict):
    """One target of a kill order and what became of him (M6)."""

    player: str
    result: Literal["killed", "blocked", "already_dead"]


class NightResolution(TypedDict):
    """GM ``night_resolution``: how night ``night`` went and why (M6, M7): the
    ``order`` carried out (None: a miss, M3), the ``outcome``, each target's fate, the
    fan who died in the cell or prison (M7), the ``dead`` and whether a voided skip was
    given back (M4)."""

    night: int
    order: NightOrder | None
    maniac_in_cell: bool
    duty_officer_guards: bool
    outcome: Literal["void", "miss", "skip", "kill"]
    targets: list[NightTarget]
    fan_in_cell: str | None
    dead: list[str]
    skip_restored: bool


class GameOver(TypedDict):
    """PUBLIC ``game_over`` (M12): the ``winners`` (the winning team, the dead included,
    not those the GM removed), every role ``{name: role}`` and the ``canonical`` deal
    line (DESIGN.md)."""

    winner_team: Team
    winners: list[str]
    roles: dict[str, str]
    canonical: str


class PlayerLeft(TypedDict):
    """PUBLIC ``player_left``: the GM removed ``player`` on ``day`` (never his role)."""

    player: str
    day: int
    phase: DeadlinePhase


class OrderFixed(TypedDict):
    """PLAYER ``order_fixed`` to the maniac (M3): the order for ``night`` as fixed at
    the deadline ``fixed_by`` (``missing``: none was given, a miss)."""

    night: int
    targets: list[str]
    skip: bool
    missing: bool
    fixed_by: FixedBy


class VoteVoided(TypedDict):
    """PUBLIC ``vote_voided``: the GM cancelled ``voter``'s vote cast ``at`` (ISO UTC),
    ``voided_at`` (ISO UTC)."""

    day: int
    voter: str
    target: str
    prison: bool
    at: str
    voided_at: str


class OrderVoided(TypedDict):
    """PLAYER ``order_voided`` to the maniac: the GM cancelled his order for ``night``
    at ``voided_at`` (ISO UTC); a new one is due until ``fixed_by`` (M3)."""

    night: int
    targets: list[str]
    skip: bool
    fixed_by: FixedBy
    voided_at: str


class OrderVoidedTold(OrderVoided):
    """An ``order_voided`` as the maniac's mail tells it: also ``until``, the real time
    (aware) a new order is due by (:meth:`pbp.games.maniac.kind.Maniac.order_until`)."""

    until: datetime


# --- the views: STATUS, reminders, the GM ---


class MyVote(TypedDict):
    """A player's standing vote today (M9): for ``target``, to ``prison`` or not (M11)."""

    target: str | None
    prison: bool


class NextOrder(TypedDict):
    """M3: with no night open for orders, the ``night`` ordered next and the ``day`` it
    is given on."""

    night: int
    day: int


class DoubleKillView(TypedDict):
    """M5: where the maniac's one double kill stands
    (:func:`pbp.games.maniac.views.double_kill_view`): ``state`` ``"none"`` (too few
    players at the start), ``"available"``, ``"booked"`` (ordered for ``night``, still
    changeable until ``fixed_by``), ``"fixed"`` or ``"used"``; ``needed``: players it
    takes; ``voided_night``: the night of one voided in the cell (M6, not used up)."""

    state: Literal["none", "available", "booked", "fixed", "used"]
    night: int | None
    fixed_by: FixedBy | None
    needed: int
    voided_night: int | None


class StatusView(TypedDict):
    """A player's ``STATUS`` (:func:`pbp.games.maniac.views.status`;
    ``parts/status.j2``, the welcome and a substitute's briefing): ``next_day`` (the day
    after night ``day``, M2), ``partner`` (the maniac's fan, the fan's maniac, else
    None, M1), ``removed`` (by the GM; not ``alive`` either), ``casts_left`` ({player:
    casts left today} for each he may vote for; empty when he cannot vote, M9),
    ``prison_vote_for`` (M11), ``in_cell``, ``prisoners``, ``dead``; the maniac's own
    keys only for him (M3–M5). Nothing here tells why a night passed without a death
    (M6)."""

    game: str
    day: int
    next_day: int
    phase: DeadlinePhase
    over: bool
    winner_team: str | None
    role: str
    partner: str | None
    alive: bool
    removed: bool
    in_prison: bool
    my_vote: MyVote | None
    votes: VoteCount
    casts_left: dict[str, int]
    prison_vote_for: list[str]
    in_cell: str | None
    prisoners: list[str]
    dead: list[str]
    commands: CommandsView
    orders: NotRequired[list[OrderView]]
    open_nights: NotRequired[list[int]]
    next_order: NotRequired[NextOrder | None]
    skips_left: NotRequired[int]
    double_kill: NotRequired[DoubleKillView]


class DutiesView(TypedDict):
    """What a reminder says (``mail/reminder.j2``; :func:`pbp.games.maniac.views.duties`):
    ``phase``: which deadline comes; ``vote``: he may vote and has no standing vote
    (M9); ``orders_due``: the maniac's open nights without an order (M3);
    ``fixed_by``: the deadline that fixes them (None without orders due);
    ``fixed_later``: they stay open past the deadline reminded of (day 1, M3)."""

    day: int
    phase: DeadlinePhase
    vote: bool
    orders_due: list[int]
    fixed_by: FixedBy | None
    fixed_later: bool


class GmPlayer(TypedDict):
    """One seat in ``pbp show``: ``cell_nights`` (M10), ``killed_night`` (M6–M8),
    ``left`` (removed by the GM)."""

    name: str
    character: str | None
    role: str
    alive: bool
    in_prison: bool
    in_cell: bool
    cell_nights: list[int]
    killed_night: int | None
    left: bool


class BallotJson(TypedDict):
    """One ballot as kept (:class:`pbp.games.maniac.state.Ballot`): a vote, or a
    withdrawal (``target`` None); ``at`` ISO UTC."""

    day: int
    voter: str
    target: str | None
    prison: bool
    at: str
    voided: bool


class Death(TypedDict):
    """A death in night ``night`` (M6, M7)."""

    night: int
    player: str


class Imprisonment(TypedDict):
    """A player sent to prison at the close of day ``day`` (M11)."""

    day: int
    player: str


class GmView(TypedDict):
    """Everything the GM sees (``pbp show``, ``mail/gm_show.j2``, ``mail/gm_sheet.j2``;
    :func:`pbp.games.maniac.views.gm_view`): ``double_kill_allowed`` (M5: enough
    players at the start), ``double_kill_night`` (not voided), the ``commitment`` (hex)
    of the ``canonical`` deal line; ``started_at`` ISO UTC."""

    game: str
    day: int
    phase: DeadlinePhase
    over: bool
    winner_team: str | None
    seed: int
    rules: RulesJson
    started_at: str
    players: list[GmPlayer]
    orders: list[OrderView]
    open_nights: list[int]
    skips_used: int
    skip_limit: int
    double_kill_allowed: bool
    double_kill_night: int | None
    votes: VoteCount
    ballots: list[BallotJson]
    deaths: list[Death]
    imprisoned: list[Imprisonment]
    commitment: str
    canonical: str


class OutstandingView(TypedDict):
    """What is open, in the GM's ``STATUS`` (``parts/gm_status.j2``,
    :attr:`pbp.games.core.kind.Outstanding.view`): during a day, its live ``votes``
    (the day post's count, rule P1); nothing otherwise."""

    votes: NotRequired[VoteCount]


# --- the public posts (rule P1) ---


class HelpView(TypedDict):
    """``post_view("help")``: the command help of the game dealt."""

    commands: CommandsView


class Tie(TypedDict):
    """M10: the players ``tied``, the ``votes`` each had, the ``voter`` whose standing
    vote broke it."""

    tied: list[str]
    votes: int
    voter: str


class ResultView(TypedDict):
    """What the close of a day decided (M10, M11;
    :func:`pbp.games.maniac.views.result_view`): ``chosen`` (who went to the cell or to
    prison; None: nobody was voted for), ``tie`` (the tied, the ``votes`` each, whose
    standing vote broke it), ``vote_split`` (None when absent from an old event)."""

    to_cell: str | None
    to_prison: str | None
    chosen: str | None
    prison_reason: str | None
    tie: Tie | None
    vote_split: VoteSplit | None


class VotePostView(TypedDict):
    """The ``day`` post (``posts/day.j2``; :func:`pbp.games.maniac.views.vote_post_view`):
    the day's count, live or (``closed``) final, and its ``result`` (None while the day
    runs)."""

    day: int
    closed: bool
    count: VoteCount
    result: ResultView | None


class EveningView(TypedDict):
    """The ``evening`` post (``posts/evening.j2``; :func:`pbp.games.maniac.views.evening_view`):
    the final count of day ``day``, its result, and whether the game ended (M12)."""

    day: int
    count: VoteCount
    result: ResultView
    game_over: bool


class MorningView(TypedDict):
    """The ``morning`` post (``posts/morning.j2``; :func:`pbp.games.maniac.views.morning_view`):
    the night that ended and the ``day`` that opens, the ``dead`` (names only, M8), who
    is ``released`` from the cell, the ``free`` players (alive, not in prison nor
    removed, seating order, M9) and the ``prison`` (in order of imprisonment), counted
    up to that morning."""

    night: int
    day: int
    dead: list[str]
    released: str | None
    game_over: bool
    free: list[str]
    prison: list[str]


class RoleLine(TypedDict):
    """One role of the final post: the night he was killed, the day he went to prison,
    the day the GM removed him (None: not)."""

    player: str
    role: str
    killed_night: int | None
    prison_day: int | None
    left_day: int | None


class FinalView(TypedDict):
    """The ``final`` post (``posts/final.j2``; :func:`pbp.games.maniac.views.final_view`,
    M12): the ``winners`` (never a player the GM removed: those of the winning team are
    ``removed_winners``), every role in the deal's order, the ``canonical`` deal line
    and the ``commitment`` the opening published (None: no ``game_started``)."""

    winner_team: Team
    winners: list[str]
    removed_winners: list[str]
    roles: list[RoleLine]
    canonical: str
    commitment: str | None


class NoView(TypedDict):
    """A post that needs no view: its template lays out its ``events``."""


#: What :func:`pbp.games.maniac.views.post_view` gives: the opening and the welcome
#: :class:`GameStarted`, ``help`` :class:`HelpView`, ``day``, ``evening``, ``morning``,
#: ``final`` theirs, any other post :class:`NoView`.
PostView = GameStarted | HelpView | VotePostView | EveningView | MorningView | FinalView | NoView


# --- the contexts of the kind's mails (pbp.games.maniac.kind.Maniac) ---


class MailContext(TypedDict):
    """What every Maniac mail and post gets (:meth:`~pbp.games.maniac.kind.Maniac.mail_context`):
    when days close and nights end, local wall-clock times in the game's zone
    (``"22:00"``)."""

    day_closes: str
    night_ends: str


class GmVotesMail(TypedDict):
    """``mail/gm_votes.j2`` (``vote_count_mail: true``): the ``count`` after a change."""

    count: VoteCount


class OrderFixedMail(TypedDict):
    """``mail/order_fixed.j2`` to the maniac (M3)."""

    order: OrderFixed


class GmNightMail(TypedDict):
    """``mail/gm_night.j2`` to the GM alone (M6, M7)."""

    night: NightResolution


class VoidedMail(TypedDict):
    """``mail/voided.j2`` (``pbp void``): the maniac's order, or a voter's vote."""

    what: Literal["order", "vote"]
    voided: OrderVoidedTold | VoteVoided


class KilledMail(TypedDict):
    """``mail/killed.j2`` to a player who died in the night (M6–M8)."""

    night: NightEnded


class GameOverMail(TypedDict):
    """``mail/game_over.j2`` to every player (M12): ``outcome`` for him
    (:func:`pbp.games.maniac.views.player_outcome`)."""

    result: GameOver
    outcome: Literal["won", "lost", "removed"]


class RemovedMail(TypedDict):
    """``mail/removed.j2`` to the player the GM removed."""

    left: PlayerLeft
