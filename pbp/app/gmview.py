"""Where each game stands, for its GM: the view of his ``STATUS`` mail command
(:mod:`pbp.app.gm.by_mail`) and of ``pbp games`` (:mod:`pbp.cli.posts`), computed once here
(:func:`game_status`) and only laid out by ``common/mail/gm_status.j2`` or printed.

What a game owes and counts comes from its kind (:meth:`pbp.games.core.kind.GameKind.outstanding`:
the reminders' duties and the live count); the rest is the game's row, its log and the
kept mail, which every kind shares. The view holds hidden facts (whose order is due):
it goes to the GM only, never into a post or a player's mail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from pbp.app.keptview import kept_rows
from pbp.app.running import paused_since
from pbp.app.table import standing_deadline
from pbp.config.model import Config, Game
from pbp.games.core.events import Json
from pbp.games.core.kind import Outstanding
from pbp.games.core.registry import kind_named
from pbp.store import Store
from pbp.text.seatnames import ShownName, renamed

__all__ = [
    "LEVER_EVENTS",
    "GameStatus",
    "Labels",
    "LastLever",
    "SeatPlayer",
    "SeatView",
    "game_status",
    "owed_line",
    "seat_views",
]

#: The events the GM's levers log (:mod:`pbp.app.gm`), of which the latest is shown. Not
#: ``gm_seat_address`` (a substitution's second event: the substitution is the lever)
#: nor ``gm_address_rotated`` (a player's own NEW ADDRESS logs it too). ``gm_close``: the
#: GM passed a deadline (CLOSE DAY, END NIGHT, ``pbp close-day``…). RETRY and DISMISS log
#: no game event: they act on a kept mail (``pbp kept`` keeps who dismissed it and when),
#: and a retried move that applies is logged as the player's own move.
LEVER_EVENTS = (
    "gm_act",
    "gm_close",
    "gm_pause",
    "gm_resume",
    "gm_extend",
    "gm_substitute",
    "gm_readdress",
    "gm_remove",
    "gm_void",
)


@dataclass(frozen=True)
class LastLever:
    """The GM's latest lever on a game: ``lever`` its name (``"pause"``, ``"extend"``…:
    the event kind without ``gm_``; a ``gm_close`` by its command: ``"close_day"``,
    ``"end_night"``), ``at`` when (aware UTC), ``via`` (``"cli"``,
    ``"mail"``), his ``note``, and the seat it named (act, substitute, readdress,
    remove), if any."""

    lever: str
    at: datetime
    via: str | None
    note: str | None
    player: str | None

    def as_json(self, game: Game) -> dict[str, Json]:
        """``{"lever", "at" (ISO 8601 with the offset of ``game``'s zone), "via", "note",
        "player"}``."""
        return {
            "lever": self.lever,
            "at": _iso(self.at, game),
            "via": self.via,
            "note": self.note,
            "player": self.player,
        }


@dataclass(frozen=True)
class SeatPlayer:
    """One player of a seat: his ``name`` (the seat's own for the player dealt it), the
    ``email`` he plays or played from (his registered address, the last one ``pbp
    readdress`` gave), ``since`` (aware UTC: the game's start, or when the GM gave him
    the seat) and ``until`` (aware UTC: when the next player took it; None: he plays it
    now)."""

    name: str
    email: str
    since: datetime
    until: datetime | None

    def as_json(self, game: Game) -> dict[str, Json]:
        """``{"name", "email", "since", "until"}``, times as ISO 8601 with the offset of
        ``game``'s zone, to the minute (``until`` only for an earlier player)."""
        found: dict[str, Json] = {
            "name": self.name,
            "email": self.email,
            "since": _iso(self.since, game),
        }
        return found if self.until is None else {**found, "until": _iso(self.until, game)}


@dataclass(frozen=True)
class SeatView:
    """A seat (its own ``seat`` name), the :class:`SeatPlayer` who plays it now
    (``player``) and those who played it before (``earlier``, oldest first), for the
    GM's eyes only (``pbp show``, his STATUS): it holds the registered addresses."""

    seat: str
    player: SeatPlayer
    earlier: tuple[SeatPlayer, ...]

    def as_json(self, game: Game) -> dict[str, Json]:
        """``{"seat", "player" (his name now), "email", "since", "earlier": [{"name",
        "email", "since", "until"}]}`` (:meth:`SeatPlayer.as_json`), as ``pbp show
        --json`` gives it."""
        now = self.player.as_json(game)
        return {
            "seat": self.seat,
            "player": now["name"],
            "email": now["email"],
            "since": now["since"],
            "earlier": [h.as_json(game) for h in self.earlier],
        }


def seat_views(store: Store, game_id: str, players: Sequence[str]) -> tuple[SeatView, ...]:
    """Each seat of ``players`` (the game's order, :meth:`pbp.games.core.kind.GameKind.players`)
    with who plays it and who did (:meth:`pbp.store.Store.holders`); a seat the store
    does not know is left out, and so is every seat of a game not started."""
    holders = store.holders(game_id)
    views: list[SeatView] = []
    for seat in players:
        held = holders.get(seat)
        if not held:
            continue
        ends = [h.since for h in held[1:]]
        players_of = [
            SeatPlayer(h.name, h.email, h.since, end)
            for h, end in zip(held, [*ends, None], strict=True)
        ]
        views.append(SeatView(seat, players_of[-1], tuple(players_of[:-1])))
    return tuple(views)


@dataclass(frozen=True)
class GameStatus:
    """One game as its GM sees it now.

    ``phase``: what its current deadline ends (the kind's ``deadline_name``: ``"day"``,
    ``"night"``, ``"turn"``), with ``period`` (the game day or turn); both None when the
    game has not started or is over. ``deadline_at``: the next deadline (aware UTC; None:
    none, paused, not started, over) and ``left_seconds`` until it (≥ 0; a deadline due
    but not yet passed shows 0). ``paused_at``: when the GM paused it (None: it runs),
    ``paused_left_seconds``: the time the pause keeps for RESUME (None: no deadline then).
    ``start_at``: when a game not started starts (aware, its zone), None if unset.
    ``outstanding``: who owes what and the open count or answers (the kind's,
    :meth:`~pbp.games.core.kind.GameKind.outstanding`); ``kept``: the ids of the kept mail
    waiting for this game (``pbp kept``); ``last_lever``: the GM's latest lever;
    ``seats``: who plays each seat now, at which registered address, and who did
    (:func:`seat_views`; empty before the start). ``title``: the game's name in its
    mails (:attr:`pbp.config.model.Game.display_title`: its ``title``, else its id ``game``).
    """

    game: str
    title: str
    kind: str
    timezone: str
    started: bool
    over: bool
    phase: str | None
    period: int | None
    deadline_at: datetime | None
    left_seconds: int | None
    paused_at: datetime | None
    paused_left_seconds: int | None
    start_at: datetime | None
    outstanding: Outstanding
    kept: tuple[int, ...]
    last_lever: LastLever | None
    seats: tuple[SeatView, ...] = ()

    @property
    def paused(self) -> bool:
        """True while the GM's pause holds the game."""
        return self.paused_at is not None

    def as_json(self, game: Game) -> dict[str, object]:
        """The status as ``pbp games --json`` gives it: the fields above, times as ISO
        8601 with the offset of ``game``'s zone, ``outstanding`` as ``owed`` (``[{"player",
        "duty", "numbers"}]``) and ``open`` (the kind's view), ``paused`` a bool,
        ``seats`` as :meth:`SeatView.as_json`."""
        return {
            "game": self.game,
            "kind": self.kind,
            "timezone": self.timezone,
            "started": self.started,
            "over": self.over,
            "phase": self.phase,
            "period": self.period,
            "deadline_at": _iso(self.deadline_at, game),
            "left_seconds": self.left_seconds,
            "paused": self.paused,
            "paused_at": _iso(self.paused_at, game),
            "paused_left_seconds": self.paused_left_seconds,
            "start_at": _iso(self.start_at, game),
            "owed": [
                {"player": o.player, "duty": o.duty, "numbers": list(o.numbers)}
                for o in self.outstanding.owed
            ],
            "open": dict(self.outstanding.view),
            "kept": list(self.kept),
            "last_lever": self.last_lever.as_json(game) if self.last_lever else None,
            "seats": [seat.as_json(game) for seat in self.seats],
        }


def _iso(when: datetime | None, game: Game) -> str | None:
    return None if when is None else when.astimezone(game.zone).isoformat(timespec="minutes")


#: How a text names the seats substitutes play in a game (``pbp substitute``): given the
#: game and its ``{seat: substitute's name}`` (:meth:`pbp.store.Store.substitutes`, never
#: empty), ``{seat: ShownName}`` («Света (вместо Киры)»,
#: :meth:`pbp.text.render.Renderer.shown_names`).
Labels = Callable[[Game, Mapping[str, str]], Mapping[str, ShownName]]


def game_status(
    config: Config,
    store: Store | None,
    game_ids: list[str],
    now: datetime,
    labels: Labels | None = None,
) -> list[GameStatus]:
    """The :class:`GameStatus` of each game of ``game_ids`` (in that order) at ``now``
    (aware), from ``store`` and ``config``; without a store (``pbp run`` has not made
    one yet) every game is not started. Reads only. ``labels``: how the text names a
    seat a substitute plays; who owes what (``outstanding``, its ``owed`` and ``view``)
    then names that seat so, as the posts do («Света (вместо Киры)»); None: by the
    seat's own name.

    :raises KeyError: a game id ``config`` does not have.
    """
    if store is None:
        return [_not_started(config.game(g), (), None) for g in game_ids]
    waiting = [kept for kept in store.kept() if kept.waiting]
    kept_of: dict[str, list[int]] = {}
    for row in kept_rows(store, config, waiting) if waiting else ():
        if row.game is not None:
            kept_of.setdefault(row.game, []).append(row.id)
    return [_one(config.game(g), store, tuple(kept_of.get(g, ())), now, labels) for g in game_ids]


def _labelled(outstanding: Outstanding, names: Mapping[str, ShownName]) -> Outstanding:
    """``outstanding`` with each seat of ``names`` named by its label (:func:`renamed`)."""
    if not names:
        return outstanding
    owed = tuple(
        dataclasses.replace(o, player=names.get(o.player, o.player)) for o in outstanding.owed
    )
    return Outstanding(owed, renamed(dict(outstanding.view), names))


def _one(
    game: Game, store: Store, kept: tuple[int, ...], now: datetime, labels: Labels | None
) -> GameStatus:
    row = store.game(game.id)
    last = store.last_event(game.id, LEVER_EVENTS)
    lever = None
    if last is not None:
        data = last.event.data
        lever = LastLever(
            # A close is named by its command: "close_day", "end_night".
            data["command"].replace("-", "_")
            if last.event.kind == "gm_close"
            else last.event.kind.removeprefix("gm_"),
            last.at,
            data.get("via"),
            data.get("note"),
            data.get("player"),
        )
    if row is None:
        return _not_started(game, kept, lever)
    kind = kind_named(row.kind)
    state = kind.with_history(
        kind.load(row.state), lambda: [stored.event for stored in store.events(game.id)]
    )
    over = row.over or kind.is_over(state)
    substitutes = store.substitutes(game.id) if labels is not None else {}
    names = labels(game, substitutes) if substitutes and labels is not None else {}
    pause = paused_since(store, game.id) if not over else None
    deadline = None if over else row.deadline_at
    left = None if deadline is None else max(0, int((deadline - now).total_seconds()))
    kept_left = pause.event.data.get("remaining_seconds") if pause is not None else None
    outstanding = Outstanding()
    if not over:  # due as the deadline stands, paused or not (Cluedo by days' grace, D6)
        standing = standing_deadline(store, game.id, deadline)
        outstanding = _labelled(kind.outstanding(state, standing), names)
    return GameStatus(
        game=game.id,
        title=game.display_title,
        kind=row.kind,
        timezone=game.timezone,
        started=True,
        over=over,
        phase=None if over else kind.deadline_name(state),
        period=None if over else kind.day(state),
        deadline_at=deadline,
        left_seconds=left,
        paused_at=pause.at if pause is not None else None,
        paused_left_seconds=kept_left,
        start_at=game.start_at,
        outstanding=outstanding,
        kept=kept,
        last_lever=lever,
        seats=seat_views(store, game.id, kind.players(state)),
    )


def _not_started(game: Game, kept: tuple[int, ...], lever: LastLever | None) -> GameStatus:
    return GameStatus(
        game.id, game.display_title, game.kind, game.timezone, False, False, None, None,
        None, None, None, None, game.start_at, Outstanding(), kept, lever,
    )  # fmt: skip


def owed_line(outstanding: Outstanding) -> str:
    """Who owes what in one short line, by duty in the order first owed, each duty's
    numbers after the player: ``"vote: Петя, Вася; order: Коля (1, 2)"``; ``"-"`` when
    nobody owes anything (``pbp games``)."""
    by_duty: dict[str, list[str]] = {}
    for owed in outstanding.owed:
        numbers = f" ({', '.join(map(str, owed.numbers))})" if owed.numbers else ""
        by_duty.setdefault(owed.duty, []).append(owed.player + numbers)
    return "; ".join(f"{duty}: {', '.join(who)}" for duty, who in by_duty.items()) or "-"
