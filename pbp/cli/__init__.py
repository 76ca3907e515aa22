"""The ``pbp`` command line (click): the daemon and the GM's tools.

Exit codes: 0 success, 1 a problem the user can fix (bad config, unknown game,
game not started, the store deleted under a running ``pbp run``), 2 wrong usage
(click's own) and ``pbp run`` refusing to deal games into a new, empty store where
the mailbox shows that a store served it before (see :func:`run`, ``--fresh``).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import click
import jinja2

from pbp.config import Config, ConfigError, load_config
from pbp.core import registry
from pbp.core.events import Refusal
from pbp.core.kind import DeadlineCommand
from pbp.daemon import explain_fault
from pbp.gm import paused_since
from pbp.inert import one_line, strip_controls
from pbp.keptview import KeptRow, kept_rows, table
from pbp.lock import holder, writer_lock
from pbp.mail.base import Inbox, Transport
from pbp.mail.maildir import (
    DONE_FOLDER,
    KEPT_FOLDER,
    MaildirInbox,
    MaildirTransport,
    deliver,
    read_maildir_raw,
)
from pbp.parse.mime import cap, read_headers, read_letter, shown_text
from pbp.reader import ChildReader
from pbp.render import Renderer
from pbp.seats import missing_games, seat_warnings
from pbp.service import Service
from pbp.store import (
    GM_SEAT,
    STILL_KEPT,
    Store,
    StoreDamagedError,
    StoreReplacedError,
    StoreVersionError,
)

log = logging.getLogger(__name__)

#: The language of everything the command line prints (its messages, ``pbp show``, a
#: lever's result, a refusal); what pbp mails and the posts keep each game's language.
CLI_LOCALE = "en"


def templates_dir() -> Path:
    """The folder of the Jinja2 templates, the first of:

    ``$PBP_TEMPLATES`` (a GM's own copy), ``templates/`` beside the package (a
    checkout or an editable install), ``<prefix>/share/pbp/templates`` (a normal
    install, see ``pyproject.toml``).

    :raises click.ClickException: none of them exists.
    """
    candidates = [
        Path(os.environ["PBP_TEMPLATES"]) if os.environ.get("PBP_TEMPLATES") else None,
        Path(__file__).resolve().parents[2] / "templates",
        Path(sys.prefix) / "share" / "pbp" / "templates",
    ]
    for candidate in candidates:
        if candidate is not None and (candidate / "ru").is_dir():
            return candidate
    raise click.ClickException("templates not found; set PBP_TEMPLATES to the templates folder")


def _load(path: Path) -> Config:
    try:
        return load_config(path)
    except ConfigError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        raise click.exceptions.Exit(1) from None


def _inbox(config: Config) -> Inbox:
    settings = config.mail.inbox
    if settings.maildir is not None:
        return MaildirInbox(settings.maildir, max_message_size=config.mail.max_message_size)
    from pbp.mail.imap import ImapInbox

    imap = settings.imap
    assert imap is not None
    return ImapInbox(
        imap.host,
        imap.port,
        imap.username,
        imap.password() or "",
        folder=imap.folder,
        tls=imap.tls,
        kept_folder=imap.kept_folder,
        max_message_size=config.mail.max_message_size,
    )


def _transport(config: Config) -> Transport:
    settings = config.mail.outbox
    if settings.maildir is not None:
        return MaildirTransport(settings.maildir)
    from pbp.mail.smtp import SmtpTransport

    smtp = settings.smtp
    assert smtp is not None
    return SmtpTransport(
        smtp.host, smtp.port, username=smtp.username, password=smtp.password(), tls=smtp.tls
    )


def _service(
    config: Config,
    *,
    mail: bool = True,
    create: bool = False,
    inbox: Inbox | None = None,
    transport: Transport | None = None,
) -> Service:
    """The service on the existing store (only ``pbp run`` creates one: ``create``);
    ``mail=False``: without inbox and transport.

    :raises click.ClickException: the store file does not exist and not ``create``.
    """
    if not create and not Path(config.store).exists():
        raise click.ClickException(
            f"there is no store {config.store} yet: `pbp run` starts the games and creates it"
        )
    if mail:
        inbox = inbox or _inbox(config)
        transport = transport or _transport(config)
    return Service(
        config, Store(config.store), Renderer(templates_dir()), inbox=inbox, transport=transport
    )


def _started(service: Service, game_id: str) -> Any:
    try:
        service.game_config(game_id)
    except KeyError as error:
        raise click.ClickException(str(error.args[0])) from None
    row = service.store.game(game_id)
    if row is None:
        raise click.ClickException(f"game {game_id} has not started yet (run `pbp run`)")
    return row


def _behind(service: Service, game_id: str, now: datetime) -> str | None:
    """Why acting on ``game_id`` at ``now`` would run its clock backwards (its last
    event is later: a ``pbp run --once --now`` ahead of the real clock), else None."""
    last = service.store.clock(game_id)
    if last is None or now >= last:
        return None
    zone = service.zone(service.game_config(game_id))
    shown = last.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")
    return (
        f"game {game_id} has run ahead of this clock: its last event is at {shown}, "
        f"later than {now.astimezone(zone).strftime('%Y-%m-%d %H:%M %Z')}, and time in a "
        "game only moves forward"
    )


def _when(text: str | None) -> datetime | None:
    if text is None:
        return None
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise click.BadParameter(f"{text!r}: give a time zone, e.g. 2026-12-01T20:00+03:00")
    return moment.astimezone(UTC)


class _Main(click.Group):
    """The command group: a store written by a newer pbp, or a damaged one, is one
    sentence, whichever command opened it (:class:`~pbp.store.StoreVersionError`,
    :class:`sqlite3.DatabaseError`)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except StoreVersionError as error:
            raise click.ClickException(str(error)) from None
        except sqlite3.DatabaseError as error:
            if isinstance(error, sqlite3.OperationalError):
                raise
            raise click.ClickException(
                f"the store is damaged ({error}): restore a backup (README, Backups)"
            ) from None


@click.group(cls=_Main)
@click.option(
    "-c",
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
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


@main.command()
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
@click.pass_obj
def check(config_path: Path, connect: bool, wait: float) -> None:
    """Check games.yaml: every problem with its file, line and path; with --connect,
    the real mailbox too (exit 0 only when everything needed works)."""
    config = _load(config_path)
    missing = config.missing_secrets()
    for name in missing:
        click.echo(
            f"{config_path}: error: environment variable {name} (password_env) is not set",
            err=True,
        )
    lacking = None
    if Path(config.store).exists():  # a game started: its players are fixed
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
    if missing or lacking is not None:
        raise click.exceptions.Exit(1)
    games = ", ".join(f"{g.id} ({g.kind}, {len(g.players)} players)" for g in config.games)
    click.echo(f"{config_path}: OK: {games}")
    if connect:
        from pbp.connect import check_connect

        report = check_connect(config, wait=wait)
        for line in report.lines:
            click.echo(line)
        if not report.ok:
            raise click.exceptions.Exit(1)


@main.command()
@click.option("--once", is_flag=True, help="Process waiting mail and due deadlines, then exit.")
@click.option(
    "--now",
    metavar="ISO",
    help="With --once: act as if it were this time (with zone), e.g. to replay a past day.",
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
    "--fresh",
    is_flag=True,
    help="Deal the games into a new, empty store although the mailbox shows that pbp "
    "served it before (a lost store started anew on purpose).",
)
@click.pass_obj
def run(config_path: Path, once: bool, now: str | None, only: tuple[str, ...], fresh: bool) -> None:
    """Run the daemon on every configured game.

    Refuses (exit 2) to deal games into a new, empty store when the mailbox shows
    that a store served it before, unless --fresh; stops (exit 1) when the store
    file is deleted or replaced while it runs. --now earlier than a named game's
    last event is refused (exit 1): time in a game only moves forward.
    """
    config = _load(config_path)
    if now is not None and not once:
        raise click.UsageError("--now only goes with --once")
    if only and not once:
        raise click.UsageError("--game only goes with --once")
    known = {game.id for game in config.games}
    for game_id in only:
        if game_id not in known:
            raise click.BadParameter(f"no game {game_id!r} in {config_path}", param_hint="--game")
    _require_secrets(config, config_path)
    with writer_lock(config.store) as mine:
        if not mine:
            raise click.ClickException(
                f"another pbp run (pid {holder(config.store) or '?'}) is serving {config.store}"
            )
        # Before SQLite opens the path: it would create the file and take the log over.
        leftover = _leftover_log(Path(config.store))
        inbox, transport = _inbox(config), _transport(config)
        existed = Path(config.store).exists()
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
        # Bodies are read in a child process killed at its budget.
        reader = service.reader = ChildReader(config.mail.cpu_seconds_per_message)
        for warning in seat_warnings(config, service.store):
            log.warning("%s", warning)
        try:
            if once:
                moment = _when(now)
                if moment is not None:
                    for game_id in only or sorted(known):
                        behind = _behind(service, game_id, moment)
                        if behind is not None:
                            raise click.ClickException(f"{behind}: give --now at or after it")
                    fixed = moment
                    service.clock = lambda: fixed  # every part of the round at that time
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
                return
            from pbp.daemon import Daemon

            Daemon(service).run()  # logs the error itself
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


def _leftover_log(store: Path) -> str | None:
    """``"the write-ahead log pbp.sqlite3-wal of a deleted store"`` when the store file
    is missing but its SQLite write-ahead log is still there, else None."""
    wal = store.with_name(store.name + "-wal")
    if store.exists() or not wal.exists():
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


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--day", "day", type=int, help="The post of this game day; default: the current one.")
@click.option(
    "--turn", "turn", type=int, help="In a game by turns: the post of this turn (not --day)."
)
@click.option(
    "--which",
    type=click.Choice(["opening", "day", "turn", *registry.extra_posts(), "final"]),
    help="opening: the first post; day / turn: one period; "
    + "".join(f"{post} ({kinds}), " for post, kinds in registry.extra_posts().items())
    + "final: the end of the game.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bbcode", "markdown"]),
    default="bbcode",
    show_default=True,
)
@click.pass_obj
def post(
    config_path: Path,
    game_id: str,
    day: int | None,
    turn: int | None,
    which: str | None,
    fmt: str,
) -> None:
    """Print a public post of GAME, ready to paste into the forum."""
    config = _load(config_path)
    service = _service(config, mail=False)
    row = _started(service, game_id)
    game = config.game(game_id)
    kind = service.kind_of(row.kind)
    state = kind.load(row.state)
    period = kind.period_post
    asked = "day" if day is not None else "turn" if turn is not None else None
    if day is not None and turn is not None:
        raise click.UsageError("--day and --turn do not go together")
    if asked is not None and asked != period:
        raise click.ClickException(
            f"game {game_id} has {period}s, not {asked}s: use --{period} {day or turn}"
        )
    number = day if day is not None else turn
    if which is None:
        which = period if number is not None or not row.over else "final"
    if which in ("day", "turn") and which != period:
        raise click.ClickException(f"game {game_id} has {period}s, not {which}s")
    if which not in ("opening", "day", "turn", "final", *kind.extra_posts):
        raise click.ClickException(f"game {game_id} has no {which} posts")
    if which == period and number is None:
        number = kind.day(state)
    if which == "final" and not row.over:
        raise click.ClickException(f"game {game_id} is not over yet")
    if which == period and number is not None and not 1 <= number <= kind.day(state):
        raise click.ClickException(
            f"game {game_id} has {period}s 1 to {kind.day(state)}, not {number}"
        )
    # The whole public log: a day's post also shows GM answers carried over (D6).
    events = [s.event for s in service.store.events(game_id, public_only=True)]
    asked_number = number
    if which in kind.extra_posts:
        try:
            number = kind.extra_post_number(which, number, state)
        except LookupError as missing:
            raise click.ClickException(f"game {game_id}: {missing.args[0]}") from None
    try:
        text = service.renderer.public_post(
            which,
            events,
            locale=game.locale,
            fmt="markdown" if fmt == "markdown" else "bbcode",
            **service.mail.post_context(game),
            day=number,
        )
    except (LookupError, jinja2.UndefinedError):
        # The events of that post do not exist yet (a night not over, …).
        shown = asked_number if asked_number is not None else number
        raise click.ClickException(f"game {game_id}: no {which} post for day {shown} yet") from None
    click.echo(text.rstrip("\n"))


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable.")
@click.pass_obj
def show(config_path: Path, game_id: str, as_json: bool) -> None:
    """Print the GM view of GAME: solution, hands, pending answers, allowances."""
    config = _load(config_path)
    service = _service(config, mail=False)
    row = _started(service, game_id)
    kind = service.kind_of(row.kind)
    view = kind.gm_view(service.table.with_history(game_id, kind, kind.load(row.state)))
    game = config.game(game_id)
    closes = row.deadline_at.astimezone(game.zone) if row.deadline_at else None
    view["deadline_at"] = closes.isoformat(timespec="minutes") if closes else None
    view["addresses"] = {
        name: service.mail.personal(token)
        for name in kind.players(kind.load(row.state))
        if (token := service.store.player_token(game_id, name))
    }
    # Where the GM mails his commands (made here for a game started before it existed).
    view["gm_address"] = service.gm.gm_address(game_id)
    view["voidable"] = service.gm.voidable(game_id, datetime.now(UTC))
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False, indent=2, sort_keys=True))
        return
    _subject, body = service.renderer.private_mail(
        f"{row.kind}/gm_show", locale=CLI_LOCALE, game=game_id, view=view
    )
    click.echo(body.rstrip("\n"))
    click.echo(f"\nGM address for commands: {view['gm_address']}")
    if view["voidable"]:
        moves = ", ".join(
            f"{v['event']} ({v['kind']}, {v['player']})"
            if v["player"]
            else f"{v['event']} ({v['kind']})"
            for v in view["voidable"]
        )
        click.echo(f"Moves `pbp void {game_id} EVENT` can cancel, by event number: {moves}")


def _pass_deadline(config_path: Path, game_id: str, name: str, done: str) -> str:
    """Pass GAME's current deadline now if it ends a ``name`` ("day" or "night").

    Mail already waiting is applied first (rule D8), by this process when no daemon
    runs, else by the daemon, which also sends what this queues. Returns the text
    to print.
    """
    config = _load(config_path)
    service = _service(config)
    row = _started(service, game_id)
    if row.over:
        raise click.ClickException(f"game {game_id} is over")
    if paused_since(service.store, game_id) is not None:
        raise click.ClickException(f"game {game_id} is paused: `pbp resume {game_id}` first")
    kind = service.kind_of(row.kind)
    before = kind.load(row.state)
    current = kind.deadline_name(before)
    period = kind.day(before)
    if current != name:
        if current == "turn":
            raise click.ClickException(
                f"game {game_id} is played by turns: each turn and answer has its own deadline"
            )
        if name not in kind.deadline_names:
            raise click.ClickException(f"game {game_id} ({kind.kind}) has no {name}s")
        raise click.ClickException(f"game {game_id}: it is {current} now, not {name}")
    now = datetime.now(UTC)
    behind = _behind(service, game_id, now)
    if behind is not None:
        raise click.ClickException(f"{behind}: wait until then (or use pbp run --once --now)")
    with writer_lock(config.store) as mine:
        if mine:
            service.process_inbox(now)
        step = service.close_day(game_id, now, now, expect=(name, period))
        if mine:
            service.flush_outbox(now)
    if step is None:
        raise click.ClickException(
            f"game {game_id}: {name} {period} was already {done} (at its time, or by another pbp)"
        )
    return f"{game_id}: {name} {period} {done}"


def _deadline_command(found: DeadlineCommand) -> click.Command:
    """The CLI command of ``found`` (``pbp close-day GAME``, ``pbp end-night GAME``)."""

    @click.argument("game_id", metavar="GAME")
    @click.pass_obj
    def command(config_path: Path, game_id: str) -> None:
        click.echo(_pass_deadline(config_path, game_id, found.deadline, found.done))

    return click.command(found.command, help=found.help)(command)


for _found in {c.command: c for k in registry.KINDS.values() for c in k.deadline_commands}.values():
    main.add_command(_deadline_command(_found))


def _lever(
    config_path: Path, game_id: str, lever: str, pull: Callable[[Service, datetime], dict[str, Any]]
) -> None:
    """Pull one GM lever (:mod:`pbp.gm`) on GAME now and print its result.

    As ``close-day``: under the writer lock, mail already waiting is applied first
    (rule D8) and what the lever queues is sent, unless a daemon runs (it then does
    both, and applies mail held by a pause). A refusal exits with code 1 and its reason.
    """
    config = _load(config_path)
    service = _service(config)
    _started(service, game_id)
    game = config.game(game_id)
    now = datetime.now(UTC)
    behind = _behind(service, game_id, now)
    if behind is not None:
        raise click.ClickException(f"{behind}: wait until then")
    with writer_lock(config.store) as mine:
        if mine:
            service.process_inbox(now)
        try:
            done = pull(service, now)
        except Refusal as error:
            text = service.renderer.error(error.code, error.params, locale=CLI_LOCALE)
            raise click.ClickException(text) from None
        if mine:
            service.gm.replay_held(now)
            service.flush_outbox(now)
    results = [{"line": "", "lever": lever, "done": done}]
    click.echo(service.gm.result_text(game, results, locale=CLI_LOCALE).rstrip())


_NOTE = click.option("--note", help="The GM's note, kept in the log (and announced, where public).")


@main.command()
@click.argument("game_id", metavar="GAME")
@click.argument("player")
@click.argument("move")
@_NOTE
@click.pass_obj
def act(config_path: Path, game_id: str, player: str, move: str, note: str | None) -> None:
    """Enter MOVE for PLAYER (a lost mail): checked and answered exactly as his own
    mail, marked as entered by the GM. E.g. pbp act exler-1 Неташка 'SUGGEST Краснова,
    нож, кухня TO Веталь'."""
    _lever(
        config_path,
        game_id,
        "act",
        lambda s, now: s.gm.act(game_id, player, move, now=now, via="cli", note=note),
    )


@main.command()
@click.argument("game_id", metavar="GAME")
@_NOTE
@click.pass_obj
def pause(config_path: Path, game_id: str, note: str | None) -> None:
    """Pause GAME: no deadline passes; players' mail is kept until `pbp resume`."""
    _lever(
        config_path,
        game_id,
        "pause",
        lambda s, now: s.gm.pause(game_id, now=now, via="cli", note=note),
    )


@main.command()
@click.argument("game_id", metavar="GAME")
@_NOTE
@click.pass_obj
def resume(config_path: Path, game_id: str, note: str | None) -> None:
    """Resume GAME: the deadline is as far ahead as at the pause; held mail is applied
    in arrival order (D8)."""
    _lever(
        config_path,
        game_id,
        "resume",
        lambda s, now: s.gm.resume(game_id, now=now, via="cli", note=note),
    )


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--hours", type=float, required=True, help="How many hours later (e.g. 1.5).")
@_NOTE
@click.pass_obj
def extend(config_path: Path, game_id: str, hours: float, note: str | None) -> None:
    """Move GAME's current deadline HOURS later (reminders follow)."""
    _lever(
        config_path,
        game_id,
        "extend",
        lambda s, now: s.gm.extend(game_id, hours, now=now, via="cli", note=note),
    )


@main.command()
@click.argument("game_id", metavar="GAME")
@click.argument("player")
@click.option("--name", required=True, help="The substitute's name (the seat keeps its own).")
@click.option("--email", required=True, help="The substitute's address.")
@_NOTE
@click.pass_obj
def substitute(
    config_path: Path, game_id: str, player: str, name: str, email: str, note: str | None
) -> None:
    """Give PLAYER's seat to a substitute: hand or role, history and open duties stay;
    the old personal address stops working; the substitute gets a briefing."""
    _lever(
        config_path,
        game_id,
        "substitute",
        lambda s, now: s.gm.substitute(game_id, player, name, email, now=now, via="cli", note=note),
    )


@main.command()
@click.argument("game_id", metavar="GAME")
@click.argument("player")
@_NOTE
@click.pass_obj
def remove(config_path: Path, game_id: str, player: str, note: str | None) -> None:
    """Remove PLAYER. Cluedo: the seat stays, answered by the GM (C5). Maniac: the
    player leaves the game, role not revealed, and the win check (M12) runs."""
    _lever(
        config_path,
        game_id,
        "remove",
        lambda s, now: s.gm.remove(game_id, player, now=now, via="cli", note=note),
    )


@main.command()
@click.argument("game_id", metavar="GAME")
@click.argument("event", type=int)
@_NOTE
@click.pass_obj
def void(config_path: Path, game_id: str, event: int, note: str | None) -> None:
    """Cancel the move logged as EVENT (its number in the log) by a compensating event:
    an unanswered suggestion, a standing vote, a kill order not yet fixed. Refused, with
    the reason, when a later event builds on it."""
    _lever(
        config_path,
        game_id,
        "void",
        lambda s, now: s.gm.void(game_id, event, now=now, via="cli", note=note),
    )


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "bbcode", "html"]),
    default="markdown",
    show_default=True,
)
@click.option("--force", is_flag=True, help="Also while the game runs (for the GM's eyes only).")
@click.pass_obj
def export(config_path: Path, game_id: str, fmt: str, force: bool) -> None:
    """Print the whole story of GAME after it ended, every private fact revealed: the
    deal or roles, every shown card, every order, every GM action, per day."""
    from pbp.export import story

    config = _load(config_path)
    service = _service(config, mail=False)
    _started(service, game_id)
    try:
        text = story(service, game_id, fmt, force=force)
    except Refusal as error:
        text = service.renderer.error(error.code, error.params, locale=CLI_LOCALE)
        raise click.ClickException(text) from None
    click.echo(text.rstrip("\n"))


@main.command("rotate-token")
@click.argument("game_id", metavar="GAME")
@click.argument("player", required=False)
@click.option("--gm", "gm_seat", is_flag=True, help="A new GM address instead of a player's.")
@click.pass_obj
def rotate_token(config_path: Path, game_id: str, player: str | None, gm_seat: bool) -> None:
    """A new personal address for PLAYER (or, with --gm, the GM) of GAME, when the old
    one leaked: the old one stops working at once (mail to it is answered that it was
    replaced). The player is mailed the new address at his registered address; the
    new address is printed."""
    if gm_seat == (player is not None):
        raise click.UsageError("give PLAYER or --gm (not both)")
    config = _load(config_path)
    service = _service(config)
    _started(service, game_id)
    now = datetime.now(UTC)
    with writer_lock(config.store) as mine:
        try:
            token = service.gm.new_address_by_gm(game_id, player or GM_SEAT, now=now)
        except Refusal as error:
            text = service.renderer.error(error.code, error.params, locale=CLI_LOCALE)
            raise click.ClickException(text) from None
        if mine:
            service.flush_outbox(now)
    tag = "" if service.plus else f" (Subject tag [pbp-{token}])"
    click.echo(f"{service.mail.personal(token)}{tag}")


@main.command("mail")
@click.option("--from", "sender", required=True, help="The sender's address.")
@click.option("--to", "recipient", required=True, help="The recipient (a personal address).")
@click.option("--subject", default="pbp", show_default=True)
@click.option("--at", "at", metavar="ISO", help="Arrival time with zone (default: now).")
@click.argument("body", nargs=-1, required=True)
@click.pass_obj
def mail_command(
    config_path: Path,
    sender: str,
    recipient: str,
    subject: str,
    at: str | None,
    body: tuple[str, ...],
) -> None:
    """Drop a message into the local Maildir inbox (try a game without a mail server).

    Each BODY argument is one line, e.g. pbp mail --from a@example.test
    --to gm+TOKEN@example.test 'SUGGEST Краснова, нож, кухня TO Веталь'.
    """
    config = _load(config_path)
    if config.mail.inbox.maildir is None:
        raise click.ClickException("the inbox is IMAP: send real mail instead")
    message = EmailMessage(policy=SMTP)
    message["From"] = sender.strip()
    message["To"] = recipient.strip()
    message["Subject"] = subject
    moment = _when(at) or datetime.now(UTC)
    message["Date"] = format_datetime(moment)
    message["Message-ID"] = make_msgid(domain=sender.partition("@")[2] or None)
    message.set_content("\n".join(body) + "\n")
    key = deliver(config.mail.inbox.maildir, bytes(message), at=moment)
    click.echo(key)


#: The folders ``pbp mailbox`` reads, each a Maildir: (setting, sub-folder).
MAILBOXES = {
    "outbox": ("outbox", ""),
    "inbox": ("inbox", ""),
    "done": ("inbox", DONE_FOLDER),
    "kept": ("inbox", KEPT_FOLDER),
}


@main.command()
@click.argument("box", type=click.Choice(sorted(MAILBOXES)), default="outbox")
@click.argument("number", type=int, required=False)
@click.option("--to", "recipient", metavar="ADDR", help="Only the mails to this address.")
@click.pass_obj
def mailbox(config_path: Path, box: str, number: int | None, recipient: str | None) -> None:
    """Read the local Maildir mailboxes of a trial game in the terminal: BOX is
    outbox (what pbp sent), inbox (waiting), done (processed) or kept. Without NUMBER,
    one line per mail (number, date, sender, recipient, subject), oldest first; with
    it, that mail decoded. E.g. pbp mailbox outbox 3."""
    config = _load(config_path)
    setting, folder = MAILBOXES[box]
    maildir = config.mail.outbox.maildir if setting == "outbox" else config.mail.inbox.maildir
    if maildir is None:
        raise click.ClickException(
            f"the {setting} is not a local Maildir here: read it with a mail client"
        )
    # Read with pbp's own bounded reader: a hostile mail in the inbox must not stall
    # or break this command (its header values cut, its parts at most 50 deep).
    found = read_maildir_raw(Path(maildir) / folder if folder else Path(maildir))
    mails = [(arrived, raw, read_letter(raw, body=False)) for arrived, raw in found]
    if recipient is not None:
        wanted = recipient.strip().lower()
        mails = [m for m in mails if any(wanted in r for r in m[2].recipients)]
    zone = ZoneInfo(config.games[0].timezone if config.games else "UTC")
    if number is None:
        if not mails:
            click.echo(f"no mail in {box}")
        for index, (arrived, _raw, letter) in enumerate(mails, 1):
            date = letter.date or arrived
            when = date.astimezone(zone).strftime("%Y-%m-%d %H:%M")
            address = letter.from_address or "-"
            sender = one_line(f"{letter.from_name} <{address}>" if letter.from_name else address)
            to = one_line(
                ", ".join(letter.recipients[:2]) + (" …" if len(letter.recipients) > 2 else "")
            )
            click.echo(f"{index:>3}  {when}  {sender} → {to}  {one_line(letter.subject)}")
        return
    if not 1 <= number <= len(mails):
        raise click.ClickException(f"no mail {number} in {box} (it holds {len(mails)})")
    arrived, raw, letter = mails[number - 1]
    headers = read_headers(raw)
    for header in ("Date", "From", "To", "Reply-To", "Subject"):
        if headers.get(header) is not None:
            click.echo(f"{header}: {one_line(cap(str(headers[header]), 300))}")
    click.echo("")
    click.echo(strip_controls(shown_text(raw)).rstrip("\n"))


@main.command()
@click.argument("target", metavar="FILE", type=click.Path(path_type=Path))
@click.pass_obj
def backup(config_path: Path, target: Path) -> None:
    """Copy the store to FILE, safely while `pbp run` runs (SQLite's online backup).

    To restore: stop pbp, delete the store's -wal and -shm files if they are there,
    copy FILE over the store, start pbp again.

    Example: pbp backup backups/pbp-2026-12-01.sqlite3"""
    config = _load(config_path)
    if not Path(config.store).exists():
        raise click.ClickException(f"there is no store {config.store} yet: nothing to back up")
    if target.resolve() == Path(config.store).resolve():
        raise click.ClickException(f"{target} is the store itself: name another file")
    if target.is_dir() or str(target).endswith(("/", os.sep)):
        raise click.ClickException(
            f"{target} is a folder: name the file, e.g. {target}/pbp.sqlite3"
        )
    if not target.parent.is_dir():
        raise click.ClickException(
            f"the folder {target.parent} does not exist: make it first (mkdir -p {target.parent})"
        )
    try:
        with Store(config.store) as store:
            damage = store.damage()
            if damage is not None:
                raise click.ClickException(
                    f"the store {config.store} is damaged ({damage}): not copied (restore an "
                    "older backup instead)"
                )
            store.backup(target)
    except (OSError, sqlite3.Error) as error:
        said = getattr(error, "strerror", None) or str(error)
        raise click.ClickException(f"cannot write {target}: {said}") from None
    click.echo(f"backed up {config.store} to {target}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: one JSON list.")
@click.pass_obj
def kept(config_path: Path, as_json: bool) -> None:
    """List messages kept aside for the GM (unreadable, automatic, from strangers,
    failed, held by a pause): id, arrival in the game's time zone, sender, game,
    subject, the reason in words, and what became of it (waiting, retried, resumed)."""
    config = _load(config_path)
    rows: list[KeptRow] = []
    if Path(config.store).exists():
        with Store(config.store) as store:
            rows = kept_rows(store, config)
    if as_json:
        click.echo(json.dumps([row.as_json() for row in rows], ensure_ascii=False, indent=2))
    elif not rows:
        click.echo("nothing kept")
    else:
        click.echo(table(rows))


@main.command()
@click.argument("kept_ids", metavar="ID...", nargs=-1, required=True, type=int)
@click.pass_obj
def retry(config_path: Path, kept_ids: tuple[int, ...]) -> None:
    """Process kept messages (ids from `pbp kept`) again, after a fix, in their arrival
    order (rule D8). Exit 1 when one of them stays kept (crashes again, or is kept
    again for a reason: nothing is sent again then)."""
    config = _load(config_path)
    service = _service(config)
    for warning in seat_warnings(config, service.store):
        log.warning("%s", warning)
    now = datetime.now(UTC)
    try:
        with writer_lock(config.store) as mine:
            outcomes = service.retry(kept_ids, now)
            if mine:  # else the running daemon sends them
                service.flush_outbox(now)
    except LookupError as error:
        raise click.ClickException(str(error.args[0])) from None
    finally:
        if service.transport is not None:
            service.transport.close()
        service.store.close()
    failed = False
    for outcome in outcomes:
        note = f" ({'; '.join(outcome.notes)})" if outcome.notes and outcome.notes[0] else ""
        click.echo(f"{outcome.source}: {outcome.outcome} {outcome.game_id or ''}".rstrip() + note)
        failed = failed or outcome.outcome in STILL_KEPT
    if failed:
        raise click.exceptions.Exit(1)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
