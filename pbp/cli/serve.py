"""``pbp check`` (games.yaml, and with ``--connect`` the real mailbox) and ``pbp run``
(the daemon, or one round with ``--once``).

``pbp run`` exits 1 on a problem the GM can fix (a secret not set, games.yaml not
matching the store, another ``pbp run`` serving the store, the store deleted or
replaced under it) and 2 when it refuses to deal the games into a new, empty store of
a mailbox served before (unless ``--fresh``) or finds the store damaged.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import click

from pbp.app.daemon import explain_fault
from pbp.app.lock import holder, writer_lock
from pbp.app.reader import ChildReader
from pbp.app.seating import missing_games, seat_warnings
from pbp.app.service import Service
from pbp.cli.common import (
    _behind,
    _inbox,
    _load,
    _refused,
    _service,
    _transport,
    _when,
    log,
    maildir_problems,
    max_config_bytes_option,
)
from pbp.config.loading import ConfigError, load_config
from pbp.config.model import Config, unset_secrets
from pbp.games.core.events import Refusal
from pbp.games.core.registry import KINDS
from pbp.mail.base import Inbox, Transport
from pbp.mail.maildir import MaildirTransport
from pbp.store import Store, StoreDamagedError, StoreReplacedError, store_exists
from pbp.text import catalogs, keywords
from pbp.text.counted import counted


@click.command()
@click.option(
    "--connect",
    is_flag=True,
    help="Also log in to the IMAP and SMTP servers and send a test mail to the game "
    "address, waiting for it to come back (one line per step).",
)
@click.option(
    "--wait",
    type=float,
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="With --connect: how long to wait for the test mail.",
)
@max_config_bytes_option
@click.pass_obj
def check(config_path: Path, connect: bool, wait: float, max_config_bytes: int) -> None:
    """Check games.yaml: every problem with its file, line and path; a Maildir inbox or
    outbox this user cannot read and write; with --connect, the real mailbox too (exit
    0 only when everything needed works). The mail passwords (password_env) are needed
    only to connect: without --connect, one not set is a warning."""
    try:
        config = load_config(config_path, max_config_bytes)
    except ConfigError as error:
        # Every problem at once: a variable not set beside the file's errors too.
        _unset_secrets(config_path, unset_secrets(error.secrets), connect)
        for found in error.problems:
            click.echo(str(found), err=True)
        raise click.exceptions.Exit(1) from None
    unset = config.missing_secrets()
    missing = unset if connect else []
    _unset_secrets(config_path, unset, connect)
    # pbp's own texts, installed with it, and the games' own catalogs
    damaged = catalogs.problems(KINDS) + keywords.problems()
    for problem in damaged:
        click.echo(f"error: {problem}", err=True)
    lacking = None
    if store_exists(Path(config.store)):  # a game started: its players are fixed
        with Store(config.store) as store:
            damage = store.damage()
            if damage is not None:
                lacking = f"the store {config.store} is damaged ({damage}): restore a backup"
            else:
                for warning in seat_warnings(config, store):
                    click.echo(f"{config_path}: warning: {warning}", err=True)
                lacking = missing_games(config, store)
    if lacking is not None:
        click.echo(f"{config_path}: error: {lacking}", err=True)
    closed = maildir_problems(config)  # as the user pbp check runs as: run it as pbp's
    for problem in closed:
        click.echo(f"{config_path}: error: {problem}", err=True)
    for warning in _trust_without_server(config):
        click.echo(f"{config_path}: warning: {warning}", err=True)
    for game in config.games:
        for warning in game.check_warnings():
            click.echo(f"{config_path}: warning: {game.id}: {warning}", err=True)
    if missing or damaged or lacking is not None or closed:
        raise click.exceptions.Exit(1)
    games = ", ".join(
        f"{g.id} ({g.kind}, {counted(len(g.players), 'player')})" for g in config.games
    )
    click.echo(f"{config_path}: OK: {games}")
    if connect:
        from pbp.app.connect import check_connect

        report = check_connect(config, wait=wait)
        for line in report.lines:
            click.echo(line)
        if not report.ok:
            raise click.exceptions.Exit(1)


def _trust_without_server(config: Config) -> list[str]:
    """A warning when ``mail.trusted_authserv_id`` is set for a local Maildir inbox: in
    the trial mail comes from ``pbp mail`` and no receiving server writes
    ``Authentication-Results``, so every move would be kept as unauthenticated. Not an
    error: a mail server of the owner's own may deliver into that Maildir and write
    them (pbp cannot tell from here)."""
    mail = config.mail
    if mail.trusted_authserv_id is None or mail.inbox.maildir is None:
        return []
    return [
        f"mail.trusted_authserv_id: {mail.trusted_authserv_id} is set, but the inbox is a "
        "local Maildir: unless a mail server delivers into it and writes "
        "Authentication-Results, every move will be kept as unauthenticated; in the trial "
        "(pbp mail) remove trusted_authserv_id"
    ]


def _unset_secrets(config_path: Path, unset: list[str], connect: bool) -> None:
    """One line each for the ``password_env`` variables ``unset``: an error with
    ``--connect`` (it logs in), else a warning (the file is checked without them)."""
    for name in unset:
        if connect:
            click.echo(
                f"{config_path}: error: environment variable {name} (password_env) is not set",
                err=True,
            )
        else:
            click.echo(
                f"{config_path}: warning: environment variable {name} (password_env) is not "
                "set: `pbp run` and `pbp check --connect` need it",
                err=True,
            )


@click.command()
@click.option("--once", is_flag=True, help="Process waiting mail and due deadlines, then exit.")
@click.option(
    "--now",
    metavar="ISO",
    help=(
        "With --once: act as if it were this time (with zone), e.g. to pass a deadline"
        " now; never earlier than a game's last event (time in a game only moves forward)."
    ),
)
@click.option(
    "--game",
    "only",
    metavar="GAME",
    multiple=True,
    help="With --once: start and pass the deadlines of this game only (repeatable; "
    "default: every game). Mail is processed for all.",
)
@click.option(
    "--catch-up",
    "catch_up",
    metavar="GAME",
    multiple=True,
    help="Pass the deadlines GAME missed while pbp was away, in time order, with their "
    "posts (repeatable): a game paused after an outage (catch_up_limit) goes on from its "
    "first missed deadline, its held mail applied in arrival order.",
)
@click.option(
    "--fresh",
    is_flag=True,
    help="Deal the games into a new, empty store although the mailbox shows that pbp "
    "served it before (a lost store started anew on purpose).",
)
@max_config_bytes_option
@click.pass_obj
def run(
    config_path: Path,
    once: bool,
    now: str | None,
    only: tuple[str, ...],
    catch_up: tuple[str, ...],
    fresh: bool,
    max_config_bytes: int,
) -> None:
    """Run the daemon on every configured game.

    Refuses (exit 2) to deal games into a new, empty store when the mailbox shows
    that a store served it before, unless --fresh; stops (exit 1) when the store
    file is deleted or replaced while it runs. --now earlier than a named game's
    last event is refused (exit 1): time in a game only moves forward. When more of a
    game's deadlines fell due while pbp was away than its catch_up_limit allows, the
    game is paused and the GM told (rule P3): pbp resume goes on from now, --catch-up
    passes them.
    """
    config = _load(config_path, max_config_bytes)
    _check_run_options(config, config_path, once=once, now=now, only=only)
    _check_games(config, config_path, catch_up, "--catch-up")
    _require_secrets(config, config_path)
    damaged = catalogs.problems(KINDS) + keywords.problems()
    if damaged:  # every text would come out wrong: refuse before any mail is read
        raise click.ClickException("pbp's texts are damaged: " + "; ".join(damaged))
    with writer_lock(config.store) as mine:
        if not mine:
            raise click.ClickException(
                f"another pbp run (pid {holder(config.store) or '?'}) is serving {config.store}"
            )
        service = _serving(config, config_path, fresh=fresh)
        # Bodies are read in a child process killed at its budget.
        reader = service.reader = ChildReader(config.mail.cpu_seconds_per_message)
        from pbp.app.connect import cleartext_logins

        for warning in [*seat_warnings(config, service.store), *cleartext_logins(config)]:
            log.warning("%s", warning)
        try:
            if once:
                _one_round(service, config, now=now, only=only, catch_up=catch_up)
            else:
                from pbp.app.daemon import Daemon

                _catch_up(service, catch_up, datetime.now(UTC))

                # logs the error itself
                Daemon(service, max_config_bytes=max_config_bytes).run()
        except StoreReplacedError as error:
            if once:
                log.error("%s", error)
            # A damaged store is not restarted into (the unit's RestartPreventExitStatus).
            raise click.exceptions.Exit(2 if isinstance(error, StoreDamagedError) else 1) from None
        finally:
            reader.close()
            if once:  # the daemon closes its own; a round alone must too (no stray sockets)
                for closing in (service.inbox, service.transport):
                    if closing is not None:
                        closing.close()
                service.store.close()


def _check_run_options(
    config: Config, config_path: Path, *, once: bool, now: str | None, only: tuple[str, ...]
) -> None:
    """Refuse (exit 2) ``--now`` or ``--game`` without ``--once``, and a ``--game`` that
    ``games.yaml`` does not name.

    :raises click.UsageError: an option that only goes with ``--once``.
    :raises click.BadParameter: an unknown game.
    """
    if now is not None and not once:
        raise click.UsageError("--now only goes with --once")
    if only and not once:
        raise click.UsageError("--game only goes with --once")
    _check_games(config, config_path, only, "--game")


def _check_games(config: Config, config_path: Path, games: tuple[str, ...], option: str) -> None:
    """Refuse (exit 2) a game id of ``option`` that ``games.yaml`` does not name.

    :raises click.BadParameter: an unknown game.
    """
    known = {game.id for game in config.games}
    for game_id in games:
        if game_id not in known:
            raise click.BadParameter(f"no game {game_id!r} in {config_path}", param_hint=option)


def _catch_up(service: Service, games: tuple[str, ...], now: datetime) -> None:
    """``--catch-up GAME``: let the rounds of this process pass the deadlines each game
    missed, in time order (:meth:`pbp.app.outage.Outages.catch_up`), one line each.

    :raises click.ClickException: a game not started, over, or paused by the GM.
    """
    for game_id in games:
        try:
            done = service.outages.catch_up(game_id, now)
        except Refusal as error:
            raise _refused(service, error, game_id) from None
        except ValueError as error:
            raise click.ClickException(str(error)) from None
        since = done["deadline_at"]  # resumed: its first missed deadline
        if done["resumed"] and since is not None:
            at = since.isoformat()
            click.echo(f"{game_id}: catching up from the deadline of {at}, in time order")
        else:
            click.echo(f"{game_id}: catching up any missed deadlines, in time order")


def _require_secrets(config: Config, config_path: Path) -> None:
    """Stop (exit 1, one line) when a ``password_env`` variable is not set.

    :raises click.ClickException: naming the first such variable and where it is used.
    """
    missing = config.missing_secrets()
    if missing:
        names = ", ".join(missing)
        raise click.ClickException(
            f"{config_path}: the environment variable {names} (password_env) is not set: "
            "set it to the mailbox's password before starting pbp"
        )


def _serving(config: Config, config_path: Path, *, fresh: bool) -> Service:
    """The service ``pbp run`` serves with (under the writer lock), on the store it
    creates when there is none, with the configured inbox and outbox.

    :raises click.exceptions.Exit: 2 when the store is new or empty but the mailbox
        was served before, unless ``fresh`` (:func:`_refuse_if_served`).
    :raises click.ClickException: the mailbox cannot be asked; or a started game is
        missing from ``games.yaml`` (exit 1: the unit tries again every 30 s).
    """
    # Before SQLite opens the path: it would create the file and take the log over.
    leftover = _leftover_log(Path(config.store))
    inbox, transport = _inbox(config), _transport(config)
    existed = store_exists(Path(config.store))
    if not fresh and not existed:
        _refuse_if_served(config, inbox, transport, leftover)
    service = _service(config, create=True, inbox=inbox, transport=transport)
    if not fresh and existed and service.store.is_empty():
        _refuse_if_served(config, inbox, transport, leftover)
    lacking = missing_games(config, service.store)
    if lacking is not None:
        service.store.close()
        # Exit 1: the service tries again every 30 s and comes up once the file is fixed.
        raise click.ClickException(f"{config_path}{lacking.removeprefix('games.yaml')}")
    return service


def _one_round(
    service: Service,
    config: Config,
    *,
    now: str | None,
    only: tuple[str, ...],
    catch_up: tuple[str, ...] = (),
) -> None:
    """``pbp run --once``: waiting mail and due deadlines (of the ``only`` games, if
    any), at ``now`` (ISO with zone) if given, then one line per outcome on stdout;
    ``catch_up``: the games whose missed deadlines it passes all (:func:`_catch_up`).

    :raises click.ClickException: ``now`` is earlier than a named game's last event, or
        the round failed for a reason :func:`pbp.app.daemon.explain_fault` knows.
    :raises click.exceptions.Exit: 2 when the store turns out damaged.
    """
    moment = _when(now)
    if moment is not None:
        for game_id in only or sorted({game.id for game in config.games}):
            behind = _behind(service, game_id, moment)
            if behind is not None:
                raise click.ClickException(f"{behind}: give --now at or after it")
        fixed = moment
        service.clock = lambda: fixed  # every part of the round at that time
    _catch_up(service, catch_up, moment or datetime.now(UTC))
    try:
        outcomes = service.run_once(moment, games=set(only) or None)
    except Exception as error:
        if isinstance(error, sqlite3.DatabaseError) and not isinstance(
            error, sqlite3.OperationalError
        ):
            click.echo(
                f"Error: the store {config.store} is damaged ({error}): restore "
                "a backup (README, Backups)",
                err=True,
            )
            raise click.exceptions.Exit(2) from None
        fault = explain_fault(service, error)
        if fault is None:
            raise
        log.debug("the failed round", exc_info=True)
        raise click.ClickException(f"{fault} (what was done before is kept)") from None
    for outcome in outcomes:
        line = f"{outcome.source}: {outcome.outcome} {outcome.game_id or ''}"
        click.echo(line.rstrip())


def _leftover_log(store: Path) -> str | None:
    """``"the write-ahead log pbp.sqlite3-wal of a deleted store"`` when the store file
    is missing but its SQLite write-ahead log is still there, else None."""
    wal = store.with_name(store.name + "-wal")
    if store_exists(store) or not wal.exists():
        return None
    return f"the write-ahead log {wal} of a deleted store"


def _refuse_if_served(
    config: Config, inbox: Inbox, transport: Transport, leftover: str | None
) -> None:
    """Exit 2 when the mailbox shows that pbp served it before (mail marked done, pbp's
    own mail in a Maildir outbox, a store's leftover log): the store was lost, and
    dealing anew would mail every player new hands and roles.

    :raises click.exceptions.Exit: 2 when there is such evidence.
    :raises click.ClickException: the inbox cannot be asked (server unreachable).
    """
    evidence = [leftover] if leftover else []
    sources: list[Inbox | MaildirTransport] = [inbox]
    if isinstance(transport, MaildirTransport):
        sources.append(transport)
    for source in sources:
        try:
            found = source.has_history()
        except Exception as error:  # an IMAP server down, a login refused
            explain = getattr(source, "explain", None)
            said = explain(error) if explain is not None else None
            raise click.ClickException(
                f"the store {config.store} is new and empty, and the mailbox cannot be "
                f"checked for mail pbp processed before: {said or error}; try again, or "
                "start anew on purpose with: pbp run --fresh"
            ) from None
        if found:
            evidence.append(found)
    if not evidence:
        return
    store = config.store
    click.echo(
        f"pbp run: refusing to deal the games into the new, empty store {store}: this "
        f"mailbox was served before ({'; '.join(evidence)}).\n"
        f"To restore a backup: stop every pbp process, delete {store}-wal and {store}-shm "
        f"if they are there, copy the backup to {store}, then start pbp run again.\n"
        "To start anew on purpose (every game dealt again, new hands and roles mailed to "
        "every player): pbp run --fresh",
        err=True,
    )
    raise click.exceptions.Exit(2)
