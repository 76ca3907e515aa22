"""``pbp lost``: the mail a restored backup lost (:mod:`pbp.app.lost`), listed, and applied
again with ``--replay``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import click

from pbp.app.lock import writer_lock
from pbp.app.lost import find_lost, replay, table
from pbp.app.seating import seat_warnings
from pbp.cli.common import _load, _service, log


@click.command("lost")
@click.option(
    "--replay",
    "again",
    is_flag=True,
    help="Apply them, in arrival order, as pbp retry does (their senders are answered).",
)
@click.pass_obj
def lost(config_path: Path, again: bool) -> None:
    """List the mail processed and marked done on the server that the store has never
    seen (a backup restored): arrival in the game's zone, sender, game, subject; prints
    "nothing lost" when there is none. With --replay, apply it in arrival order (rule
    D8): each at its arrival time, in the game day it arrived in unless that day has
    closed since. Run it after a restore, before pbp run."""
    config = _load(config_path)
    service = _service(config)
    try:
        assert service.inbox is not None
        try:
            found = find_lost(service.store, config, service.inbox)
        except Exception as error:
            from pbp.app.daemon import explain_fault

            fault = explain_fault(service, error)
            if fault is None:
                raise
            raise click.ClickException(f"{fault}: the mailbox could not be read") from None
        if not found:
            click.echo("nothing lost")
            return
        if not again:
            click.echo(table(found))
            return
        for warning in seat_warnings(config, service.store):
            log.warning("%s", warning)
        now = datetime.now(UTC)
        with writer_lock(config.store) as mine:
            outcomes = replay(service, found, now)
            if mine:  # else the running daemon sends them
                service.flush_outbox(now)
    finally:
        for closing in (service.inbox, service.transport):
            if closing is not None:
                closing.close()
        service.store.close()
    for outcome in outcomes:
        click.echo(f"{outcome.source}: {outcome.outcome} {outcome.game_id or ''}".rstrip())
