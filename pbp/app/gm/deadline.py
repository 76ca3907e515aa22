"""CLOSE DAY / END NIGHT by mail: a game's current deadline passed now, as ``pbp
close-day`` / ``pbp end-night`` do (:mod:`pbp.cli.levers`), through the same
:meth:`pbp.app.deadlines.Deadlines.close_day`.

The commands are the game kinds' own (:attr:`~pbp.games.core.kind.GameKind.deadline_commands`,
found through the registry): the daemon knows no game by name. A command names the
deadline it passes (``close-day``: a day, ``end-night``: a night); the period is fixed
when the GM is asked to confirm (:func:`expected`), so a day that closed at its time
meanwhile is not followed by the next one's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pbp.app.deadlines import GmClose
from pbp.app.shapes import LeverDone
from pbp.config.model import Game
from pbp.games.core import registry
from pbp.games.core.events import LeverRefused, Step
from pbp.games.core.kind import AnyKind, DeadlineCommand
from pbp.store import Store
from pbp.text.gmcommands import PassDeadline

__all__ = ["DeadlineSource", "GmClose", "expected", "pass_deadline"]


class DeadlineSource(Protocol):
    """What passing a deadline by the GM needs: the games configured, the store and
    the deadlines (:class:`pbp.app.deadlines.Deadlines`; :class:`pbp.app.service.Service`
    gives the same)."""

    @property
    def store(self) -> Store: ...

    def game_config(self, game_id: str) -> Game: ...

    def kind_of(self, game: Game | str) -> AnyKind: ...

    def advance(self, game_id: str, until: datetime, now: datetime | None = None) -> None: ...

    def close_day(
        self,
        game_id: str,
        at: datetime,
        now: datetime | None = None,
        *,
        scheduled: bool = False,
        expect: tuple[str, int] | None = None,
        by_gm: GmClose | None = None,
    ) -> Step[object] | None: ...


def _command(name: str) -> DeadlineCommand:
    """The deadline command ``name`` of any registered kind.

    :raises LeverRefused: ``gm_syntax``: no kind has it."""
    for kind in registry.KINDS.values():
        for command in kind.deadline_commands:
            if command.command == name:
                return command
    raise LeverRefused("gm_syntax", lever=name, syntax=name.upper().replace("-", " "))


def _check(service: DeadlineSource, game_id: str, lever: PassDeadline) -> tuple[AnyKind, str, int]:
    """``(kind, deadline name, period)`` of a game whose current deadline ``lever``
    may pass now.

    :raises LeverRefused: ``gm_not_started``, ``gm_game_over``, ``gm_paused``;
        ``gm_deadline_none`` {game, deadline, turns (bool: played by turns)}: the kind
        has no such deadline; ``gm_deadline_not_now`` {game, deadline, current}: the
        game is in another part of its day; ``gm_deadline_passed`` {game, deadline,
        period}: the period the GM confirmed is over.
    """
    wanted = _command(lever.command).deadline
    try:
        kind = service.kind_of(service.game_config(game_id))
    except KeyError:
        raise LeverRefused("gm_unknown_game", game=game_id) from None
    row = service.store.game(game_id)
    if row is None:
        raise LeverRefused("gm_not_started", game=game_id)
    if row.over:
        raise LeverRefused("gm_game_over", game=game_id)
    state = kind.load(row.state)
    last = service.store.last_event(game_id, ("gm_pause", "gm_resume"))
    if last is not None and last.event.kind == "gm_pause":  # as pbp.app.gm.paused_since
        raise LeverRefused("gm_paused", game=game_id)
    if not any(c.command == lever.command for c in kind.deadline_commands):
        turns = kind.deadline_names == ("turn",)
        raise LeverRefused("gm_deadline_none", game=game_id, deadline=wanted, turns=turns)
    current, period = kind.deadline_name(state), kind.day(state)
    if lever.period is not None and (lever.period, wanted) != (period, current):
        raise LeverRefused("gm_deadline_passed", game=game_id, deadline=wanted, period=lever.period)
    if current != wanted:
        raise LeverRefused("gm_deadline_not_now", game=game_id, deadline=wanted, current=current)
    return kind, current, period


def expected(
    service: DeadlineSource, game_id: str, lever: PassDeadline, now: datetime
) -> PassDeadline:
    """``lever`` with the period it passes at ``now`` (what the GM is asked to
    confirm), after what fell due before ``now`` (rule D8). Raises as :func:`_check`."""
    service.advance(game_id, now)
    _kind, _name, period = _check(service, game_id, lever)
    return PassDeadline(lever.command, period)


def pass_deadline(
    service: DeadlineSource,
    game_id: str,
    lever: PassDeadline,
    *,
    now: datetime,
    via: str,
    note: str | None = None,
) -> LeverDone:
    """Pass the current deadline of ``game_id`` at ``now`` (aware UTC), after every
    deadline due before it (rule D8): the GM defaults, the posts, the next deadline,
    as at its time; the GM's ``gm_close`` event (with ``note``) is logged. Returns
    ``{"lever": "close_day"|…, "deadline", "period", "deadline_at" (the next one, ISO
    UTC or None), "over"}``.

    :raises LeverRefused: see :func:`_check`; ``gm_deadline_passed`` also when another
        writer passed it first.
    """
    service.advance(game_id, now)
    kind, name, period = _check(service, game_id, lever)
    by_gm = GmClose(lever.command, via, note)
    step = service.close_day(game_id, now, now, expect=(name, period), by_gm=by_gm)
    if step is None:
        raise LeverRefused("gm_deadline_passed", game=game_id, deadline=name, period=period)
    row = service.store.game(game_id)
    deadline = row.deadline_at if row is not None else None
    return {
        "lever": lever.command.replace("-", "_"),
        "deadline": name,
        "period": period,
        "deadline_at": deadline.isoformat() if deadline else None,
        "over": kind.is_over(step.state),
        "via": via,
    }
