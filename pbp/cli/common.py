"""What every ``pbp`` command shares: reading ``games.yaml``, the mailbox and the
service on the store, a started game, the GM's clock and the language it prints in.

Every helper that stops a command raises a :class:`click.ClickException` (exit 1, its
message on stderr) or :class:`click.exceptions.Exit`; none prints on success.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import click

from pbp.app.service import Service
from pbp.config.loading import DEFAULT_MAX_CONFIG_BYTES, ConfigError, load_config
from pbp.config.model import Config
from pbp.games.core.events import Refusal
from pbp.games.core.registry import KINDS
from pbp.mail.base import Inbox, Transport
from pbp.mail.maildir import MaildirInbox, MaildirTransport
from pbp.mail.maildirfolders import maildir_problem
from pbp.store import GameRow, Store, store_exists
from pbp.text.render import Renderer

# The one way the command line writes a time (issue 31): every command imports it here.
from pbp.text.timetext import cli_iso, cli_time

__all__ = ["cli_iso", "cli_time"]

#: The one logger of every command: ``pbp.cli``, the name its records had in one module.
log = logging.getLogger("pbp.cli")

#: The language of everything the command line prints (its messages, ``pbp show``, a
#: lever's result, a refusal); what pbp mails and the posts keep each game's language.
CLI_LOCALE = "en"


def templates_dir() -> Path:
    """The folder of the Jinja2 templates, the first of:

    ``$PBP_TEMPLATES`` (a GM's own copy), ``templates/`` beside the package (a
    checkout or an editable install), the package's ``pbp/templates/`` (a normal
    install: the data package ``pbp.templates``, see ``pyproject.toml``).

    :raises click.ClickException: none of them exists; ``$PBP_TEMPLATES`` names a
        folder this user cannot read whole (:func:`_unreadable`).
    """
    own = Path(os.environ["PBP_TEMPLATES"]) if os.environ.get("PBP_TEMPLATES") else None
    if own is not None:
        try:
            # Every pbp template folder holds the shared texts of common/.
            if (own / "common").is_dir():
                entry = _unreadable(own)
                if entry is not None:
                    raise click.ClickException(_closed_templates(own, entry))
                return own
        except OSError as error:  # a folder above it closed to this user
            raise click.ClickException(_closed_templates(own, error)) from None
    for candidate in (
        Path(__file__).resolve().parents[2] / "templates",
        Path(__file__).resolve().parents[1] / "templates",
    ):
        if (candidate / "common").is_dir():
            return candidate
    raise click.ClickException("templates not found; set PBP_TEMPLATES to the templates folder")


def _unreadable(folder: Path) -> OSError | str | None:
    """The first entry under ``folder`` this user cannot read (a folder he may not list
    or enter: its :class:`OSError`; a file: its path), or None. About a millisecond for
    pbp's few hundred templates."""
    failed: list[OSError] = []
    for root, _folders, files in os.walk(folder, onerror=failed.append):
        if failed:
            break
        for name in files:
            if not os.access(Path(root) / name, os.R_OK):
                return str(Path(root) / name)
    return failed[0] if failed else None


def _closed_templates(folder: Path, entry: OSError | str) -> str:
    """The sentence of a ``$PBP_TEMPLATES`` folder that this user cannot read whole."""
    what = f"{entry.filename}: {entry.strerror}" if isinstance(entry, OSError) else entry
    return (
        f"the templates folder {folder} (PBP_TEMPLATES) cannot be read by this user "
        f"({what}): make it readable for the user pbp runs as (its owner and mode)"
    )


def print_text(text: str, what: str) -> None:
    """Print ``text`` and a newline on stdout, flushed: what ``pbp post`` and ``pbp
    export`` print, which a GM sends into a file (``pbp export GAME > story.md``).

    :raises click.ClickException: stdout could not be written (a full disk or quota
        behind the redirection, ``/dev/full``, an I/O error): one sentence naming
        ``what`` (``"the story"``), not a traceback; stdout then goes nowhere, so that
        nothing fails again at exit. A reader that closed the pipe (``| head``) is no
        error (:class:`BrokenPipeError`, click's own).
    """
    try:
        click.echo(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        try:
            out = sys.stdout.fileno()
        except (OSError, ValueError):  # no file of its own (a test's capture)
            out = None
        if out is not None:
            nowhere = os.open(os.devnull, os.O_WRONLY)
            os.dup2(nowhere, out)
            os.close(nowhere)
        reason = error.strerror or str(error)
        raise click.ClickException(f"cannot write {what} to the output: {reason}") from None


#: The environment variable of ``--max-config-bytes`` (``pbp run``, ``pbp check``); the
#: commands without the option read ``games.yaml`` within it too.
MAX_CONFIG_BYTES_ENV = "PBP_MAX_CONFIG_BYTES"

F = TypeVar("F", bound=Callable[..., object])


def max_config_bytes_option(command: F) -> F:
    """The option ``--max-config-bytes BYTES`` (:data:`MAX_CONFIG_BYTES_ENV`; default
    :data:`pbp.config.loading.DEFAULT_MAX_CONFIG_BYTES`), passed as ``max_config_bytes``."""
    return click.option(
        "--max-config-bytes",
        "max_config_bytes",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_CONFIG_BYTES,
        envvar=MAX_CONFIG_BYTES_ENV,
        show_default=True,
        show_envvar=True,
        metavar="BYTES",
        help="The largest games.yaml to read, also on a reload (SIGHUP); its YAML may "
        "hold a value per 4 bytes of it, aliases expanded. The file must be a regular "
        "file (or a symlink to one).",
    )(command)


def _load(path: Path, max_bytes: int | None = None) -> Config:
    """``games.yaml`` at ``path``, checked, read within ``max_bytes`` (None: the value of
    :data:`MAX_CONFIG_BYTES_ENV`, else :data:`pbp.config.loading.DEFAULT_MAX_CONFIG_BYTES`).

    :raises click.exceptions.Exit: 1 after printing every problem, one a line, to stderr.
    :raises click.BadParameter: :data:`MAX_CONFIG_BYTES_ENV` is set to no positive integer.
    """
    if max_bytes is None:
        given = os.environ.get(MAX_CONFIG_BYTES_ENV, "")
        if not given:
            max_bytes = DEFAULT_MAX_CONFIG_BYTES
        elif not given.isdecimal() or int(given) < 1:
            raise click.BadParameter(
                f"{given!r} is not a positive number of bytes", param_hint=MAX_CONFIG_BYTES_ENV
            )
        else:
            max_bytes = int(given)
    try:
        return load_config(path, max_bytes)
    except ConfigError as error:
        for problem in error.problems:
            click.echo(str(problem), err=True)
        raise click.exceptions.Exit(1) from None


def _inbox(config: Config) -> Inbox:
    """The inbox ``config`` names: a local Maildir or an IMAP account (not yet connected).

    :raises pbp.mail.maildirfolders.MaildirAccessError: a Maildir this user cannot use (every
        command says it in one sentence, :class:`pbp.cli._Main`)."""
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


def maildir_problems(config: Config) -> list[str]:
    """Why this user cannot use the Maildir inbox or outbox ``config`` names, one
    sentence each (:func:`pbp.mail.maildirfolders.maildir_problem`; ``pbp check``); nothing is
    made. ``[]`` for IMAP and SMTP, which ``pbp check --connect`` tries."""
    found: list[str | None] = []
    if config.mail.inbox.maildir is not None:
        found.append(maildir_problem(config.mail.inbox.maildir, "inbox", MaildirInbox.FOLDERS))
    if config.mail.outbox.maildir is not None:
        found.append(maildir_problem(config.mail.outbox.maildir, "outbox"))
    return [problem for problem in found if problem is not None]


def _transport(config: Config) -> Transport:
    """The outbox ``config`` names: a local Maildir or an SMTP server (not yet connected).

    :raises pbp.mail.maildirfolders.MaildirAccessError: as :func:`_inbox`."""
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
    if not create and not store_exists(Path(config.store)):
        raise click.ClickException(
            f"there is no store {config.store} yet: `pbp run` starts the games and creates it"
        )
    if mail:
        inbox = inbox or _inbox(config)
        transport = transport or _transport(config)
    return Service(
        config,
        Store(config.store),
        Renderer(templates_dir(), kinds=KINDS),
        inbox=inbox,
        transport=transport,
    )


def _started(service: Service, game_id: str) -> GameRow:
    """The store's row of ``game_id`` (:meth:`pbp.store.Store.game`).

    :raises click.ClickException: no such game in ``games.yaml``, or not started yet.
    """
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
    return (
        f"game {game_id} has run ahead of this clock: its last event is at "
        f"{cli_time(last, zone)}, later than {cli_time(now, zone)}, and time in a "
        "game only moves forward"
    )


#: The years a time given on the command line may fall in (``--now``, ``--at``): the
#: days of a game are counted from it, and a time at the edge of Python's calendar
#: (year 1 or 9999) would overflow.
FIRST_YEAR, LAST_YEAR = 1970, 2999

#: A kept mail's id on the command line: SQLite's INTEGER (1 to 2**63 - 1).
KEPT_ID = click.IntRange(1, 2**63 - 1)


def _when(text: str | None) -> datetime | None:
    """An ISO 8601 time with its zone (``2026-12-01T20:00+03:00``) in UTC; None for None.

    :raises click.BadParameter: ``text`` is no ISO 8601 time, the time has no zone, or
        its year is outside :data:`FIRST_YEAR`–:data:`LAST_YEAR`.
    """
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a time: write it as 2026-12-01T20:00+03:00"
        ) from None
    if moment.tzinfo is None:
        raise click.BadParameter(f"{text!r}: give a time zone, e.g. 2026-12-01T20:00+03:00")
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        raise click.BadParameter(
            f"{text!r}: a game's time lies between the years {FIRST_YEAR} and {LAST_YEAR}"
        )
    return moment.astimezone(UTC)


def _refused(service: Service, error: Refusal, game_id: str | None = None) -> click.ClickException:
    """The error a refused GM action exits with: its reason in :data:`CLI_LOCALE`, in
    the words of the command line (``pbp pause GAME``, not the mail's ``PAUSE``); the
    text of the kind of the game ``game_id`` when the refusal is its (else pbp's)."""
    kind = service.game_config(game_id).kind if game_id is not None else None
    text = service.renderer.error(error.code, error.params, locale=CLI_LOCALE, kind=kind, cli=True)
    return click.ClickException(text)
