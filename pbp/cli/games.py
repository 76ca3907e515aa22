"""``pbp games``: every game of ``games.yaml`` on one screen, for the GM at the terminal.

The rows are the GM's STATUS by mail (:func:`pbp.app.gmview.game_status`), laid out as an
aligned table or given as JSON; nothing here computes what a game owes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import click

from pbp.app.gmview import GameStatus, game_status, owed_line
from pbp.cli.common import _load, _when, cli_time, templates_dir
from pbp.config.model import Config, Game
from pbp.games.core.registry import KINDS
from pbp.store import Store, store_exists
from pbp.text.columns import aligned
from pbp.text.render import Renderer
from pbp.text.seatnames import ShownName

#: The columns of ``pbp games``; the last, who owes what, is as long as it needs.
HEAD = ("GAME", "KIND", "PHASE", "NEXT DEADLINE", "LEFT", "PAUSED", "KEPT", "OWES")


def _span(seconds: int | None) -> str:
    """``3959`` → ``"1 h 5 min"``; None → ``"-"``."""
    if seconds is None:
        return "-"
    hours, rest = divmod(seconds, 3600)
    return f"{hours} h {rest // 60} min"


def _cells(status: GameStatus, config: Config) -> tuple[str, ...]:
    """One game's row of :data:`HEAD`: a game not started shows when it starts as its
    next deadline; a paused one the time its pause keeps for ``pbp resume``."""
    zone = config.game(status.game).zone
    if not status.started:
        phase = "not started"
        at = status.start_at
    elif status.over:
        phase, at = "over", None
    else:
        phase, at = f"{status.phase} {status.period}", status.deadline_at
    left = status.paused_left_seconds if status.paused else status.left_seconds
    kept = f"{len(status.kept)} ({', '.join(map(str, status.kept))})" if status.kept else "-"
    return (
        status.game,
        status.kind,
        phase,
        cli_time(at, zone) if at is not None else "-",
        _span(left),
        "yes" if status.paused else "no",
        kept,
        owed_line(status.outstanding),
    )


def table(rows: list[tuple[str, ...]]) -> str:
    """``rows`` under :data:`HEAD`, each column as wide as its widest cell (the last
    left as it is), no trailing newline."""
    lines = [HEAD, *rows]
    return aligned(lines)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: one JSON list.")
@click.option(
    "--now",
    metavar="ISO",
    help="Count the time left from this time (with zone), e.g. 2026-12-01T20:00+03:00.",
)
@click.pass_obj
def games(config_path: Path, as_json: bool, now: str | None) -> None:
    """Every game on one screen: id, kind, phase (day, night or turn and its number; not
    started; over), the next deadline in the game's time zone and the time left, paused
    or not, the kept mail waiting for it (ids from `pbp kept`) and who owes what (the
    GM's STATUS by mail, short). --json: the same rows, times in ISO 8601 with offset."""
    config = _load(config_path)
    moment = _when(now) or datetime.now(UTC)
    ids = [game.id for game in config.games]
    if store_exists(Path(config.store)):
        renderer = Renderer(templates_dir(), kinds=KINDS)

        def labels(game: Game, substitutes: Mapping[str, str]) -> Mapping[str, ShownName]:
            # As the game's posts name the seat («Света (вместо Киры)»).
            return renderer.shown_names(game.locale, substitutes, genders=game.genders())

        with Store(config.store) as store:
            found = game_status(config, store, ids, moment, labels)
    else:
        found = game_status(config, None, ids, moment)
    if as_json:
        rows = [status.as_json(config.game(status.game)) for status in found]
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    click.echo(table([_cells(status, config) for status in found]))
