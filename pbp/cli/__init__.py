"""The ``pbp`` command line (click): the daemon and the GM's tools.

Exit codes: 0 success, 1 a problem the user can fix (bad config, unknown game,
game not started, the store deleted under a running ``pbp run``), 2 wrong usage
(click's own) and ``pbp run`` refusing to deal games into a new, empty store where
the mailbox shows that a store served it before (see :func:`pbp.cli.serve.run`,
``--fresh``).

The commands, by group: :mod:`pbp.cli.serve` (``check``, ``run``), :mod:`pbp.cli.posts`
(``post``, ``show``, ``export``), :mod:`pbp.cli.levers` (the GM's levers and the
deadline commands the game kinds name), :mod:`pbp.cli.mailtools` (``mail``,
``mailbox``, ``backup``, ``kept``, ``retry``), :mod:`pbp.cli.lost` (``lost``); what they
share is :mod:`pbp.cli.common`.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import click

from pbp.cli.common import _inbox, _service, _transport, templates_dir
from pbp.cli.games import games
from pbp.cli.levers import (
    act,
    deadline_commands,
    extend,
    pause,
    readdress,
    remove,
    resume,
    rotate_token,
    substitute,
    void,
)
from pbp.cli.lost import lost
from pbp.cli.mailtools import backup, dismiss, kept, mail_command, mailbox, retry
from pbp.cli.posts import export, post, show
from pbp.cli.serve import check, run
from pbp.games.core.registry import NoKindsError
from pbp.mail.maildirfolders import MaildirAccessError
from pbp.store import StoreOpenError

__all__ = ["_inbox", "_service", "_transport", "main", "templates_dir"]


class _Main(click.Group):
    """The command group: a store that cannot be used as it is (written by a newer pbp,
    of a version no pbp writes, read-only for this user) or a damaged one is one
    sentence and exit 1, whichever command opened it (:class:`~pbp.store.StoreOpenError`,
    :class:`sqlite3.DatabaseError`); so is a Maildir inbox or outbox this user cannot
    use (:class:`~pbp.mail.maildirfolders.MaildirAccessError`), and an installation
    without game kinds (:class:`~pbp.games.core.registry.NoKindsError`: install pbp
    again). The deadline commands the kinds name (:func:`pbp.cli.levers.deadline_commands`)
    are looked up when a command is, never at import."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_deadline_commands()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        return found if found is not None else _deadline_commands().get(cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (StoreOpenError, MaildirAccessError, NoKindsError) as error:
            raise click.ClickException(str(error)) from None
        except sqlite3.DatabaseError as error:
            if isinstance(error, sqlite3.OperationalError):
                raise
            raise click.ClickException(
                f"the store is damaged ({error}): restore a backup (README, Backups)"
            ) from None


def _deadline_commands() -> dict[str, click.Command]:
    """:func:`pbp.cli.levers.deadline_commands`.

    :raises click.ClickException: no game kind is installed (one line, the advice).
    """
    try:
        return deadline_commands()
    except NoKindsError as error:
        raise click.ClickException(str(error)) from None


@click.group(cls=_Main)
@click.option(
    "-c",
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=Path("games.yaml"),
    envvar="PBP_CONFIG",
    show_default=True,
    show_envvar=True,
    help="The games file.",
)
@click.version_option(package_name="pbp", message="pbp %(version)s")
@click.option("-v", "--verbose", is_flag=True, help="Log every step.")
@click.pass_context
def main(ctx: click.Context, config_path: Path, verbose: bool) -> None:
    """pbp runs play-by-post games by email: it reads moves, checks them, answers
    privately and writes the public posts."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not verbose:
        # The daemon replans its jobs every round: APScheduler's notes are noise, and so
        # are imapclient's own ("Connection closed"): pbp logs what matters itself.
        logging.getLogger("apscheduler").setLevel(logging.WARNING)
        logging.getLogger("imapclient").setLevel(logging.WARNING)
    ctx.obj = config_path


# In the order they were written (``pbp --help`` lists them by name).
for _command in (
    check,
    run,
    post,
    show,
    act,
    pause,
    resume,
    extend,
    substitute,
    readdress,
    remove,
    void,
    export,
    rotate_token,
    mail_command,
    mailbox,
    backup,
    kept,
    retry,
    games,
    dismiss,
    lost,
):
    main.add_command(_command)
