"""The GM's tools around the mailbox and the store: ``pbp mail`` (drop a message into a
local Maildir inbox), ``pbp mailbox`` (read the local Maildirs), ``pbp backup`` (copy the
store while it is served), ``pbp kept``, ``pbp retry`` and ``pbp dismiss`` (the messages
kept aside for the GM, processing them again, closing them unapplied:
:class:`pbp.app.gm.kept.KeptDesk`).
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path
from zoneinfo import ZoneInfo

import click

from pbp.app.keptview import KeptRow, explain, kept_rows, table
from pbp.app.lock import writer_lock
from pbp.app.seating import seat_warnings
from pbp.cli.common import KEPT_ID, _load, _refused, _service, _when, cli_time, log
from pbp.games.core.events import Refusal
from pbp.mail.maildir import deliver, read_maildir_raw
from pbp.mail.maildirfolders import DONE_FOLDER, KEPT_FOLDER, explain_maildir
from pbp.mail.read.headers import cap
from pbp.mail.read.mime import read_headers, read_letter, shown_text
from pbp.mail.safetext import one_line, strip_controls
from pbp.store import STILL_KEPT, Store, store_exists


@click.command("mail")
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
    --to gm+TOKEN@example.test 'SUGGEST Краснова, нож, кухня TO Веталь'. Put -- before
    the lines when one starts with a dash (a signature '-- ', '-----Original
    Message-----'): pbp mail --from … --to … -- 'ГОЛОС Петя' '-- ' 'Таня'.
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
    inbox = config.mail.inbox.maildir
    try:
        key = deliver(inbox, bytes(message), at=moment)
    except OSError as error:  # another user's inbox, a read-only mount, a full disk
        said = explain_maildir(error, inbox, "inbox") or f"{inbox}: {error}"
        raise click.ClickException(f"{said}; the message was not delivered") from None
    click.echo(key)


#: The folders ``pbp mailbox`` reads, each a Maildir: (setting, sub-folder).
MAILBOXES = {
    "outbox": ("outbox", ""),
    "inbox": ("inbox", ""),
    "done": ("inbox", DONE_FOLDER),
    "kept": ("inbox", KEPT_FOLDER),
}


class _BoxOrNumber(click.Choice):  # type: ignore[type-arg]
    """A mailbox name, or a mail's number of the outbox (``pbp mailbox 3``)."""

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> object:
        if isinstance(value, str) and value.isdigit():
            return value
        return super().convert(value, param, ctx)


@click.command()
@click.argument("box", type=_BoxOrNumber(sorted(MAILBOXES)), default="outbox")
@click.argument("number", type=int, required=False)
@click.option("--to", "recipient", metavar="ADDR", help="Only the mails to this address.")
@click.option(
    "--last",
    is_flag=True,
    help="The newest mail of the list (with --to: the newest to that address), decoded.",
)
@click.pass_obj
def mailbox(
    config_path: Path, box: str, number: int | None, recipient: str | None, last: bool
) -> None:
    """Read the local Maildir mailboxes of a trial game in the terminal: BOX is
    outbox (what pbp sent), inbox (waiting), done (processed) or kept. Without NUMBER,
    one line per mail (number, date, sender, recipient, subject), oldest first; with
    it (or --last: the newest), that mail decoded. E.g. pbp mailbox outbox 3."""
    if box.isdigit():  # the outbox, as when BOX is left out
        if number is not None:
            raise click.UsageError(f"give BOX before NUMBER: pbp mailbox outbox {box}")
        box, number = "outbox", int(box)
    if last and number is not None:
        raise click.UsageError("give NUMBER or --last, not both")
    config = _load(config_path)
    setting, folder = MAILBOXES[box]
    maildir = config.mail.outbox.maildir if setting == "outbox" else config.mail.inbox.maildir
    if maildir is None:
        raise click.ClickException(
            f"the {setting} is not a local Maildir here: read it with a mail client"
        )
    # Read with pbp's own bounded reader: a hostile mail in the inbox must not stall
    # or break this command (its header values cut, its parts at most 50 deep).
    path = Path(maildir) / folder if folder else Path(maildir)
    try:
        found = read_maildir_raw(path)
    except OSError as error:  # a folder or mail of another user's
        reason = error.strerror or str(error)
        where = f" ({error.filename})" if error.filename else ""
        raise click.ClickException(
            f"the Maildir {box} {path} cannot be read by this user: {reason}{where}; make it "
            "readable for him (its owner and mode)"
        ) from None
    mails = [(arrived, raw, read_letter(raw, body=False)) for arrived, raw in found]
    if recipient is not None:
        wanted = recipient.strip().lower()
        mails = [m for m in mails if wanted in m[2].recipients]  # the address, not a part
    zone = ZoneInfo(config.games[0].timezone if config.games else "UTC")
    if last:
        if not mails:
            raise click.ClickException(
                f"no mail in {box}" + (f" to {recipient}" if recipient else "")
            )
        number = len(mails)
    if number is None:
        if not mails:
            click.echo(f"no mail in {box}")
        for index, (arrived, _raw, letter) in enumerate(mails, 1):
            date = letter.date or arrived
            when = cli_time(date, zone)
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


@click.command()
@click.argument("target", metavar="FILE", type=click.Path(path_type=Path))
@click.pass_obj
def backup(config_path: Path, target: Path) -> None:
    """Copy the store to FILE, safely while `pbp run` runs (SQLite's online backup).

    To restore: stop pbp, delete the store's -wal and -shm files if they are there,
    copy FILE over the store, start pbp again.

    Example: pbp backup backups/pbp-2026-12-01.sqlite3"""
    config = _load(config_path)
    if not store_exists(Path(config.store)):
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


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: one JSON list.")
@click.option(
    "--explain",
    "explain_reasons",
    is_flag=True,
    help="Print every reason a mail is kept for and what to do.",
)
@click.pass_obj
def kept(config_path: Path, as_json: bool, explain_reasons: bool) -> None:
    """List messages kept aside for the GM (unreadable, automatic, from strangers,
    failed, held by a pause): id, arrival in the game's time zone, sender, game,
    subject, the reason in words, and what became of it (waiting, retried, resumed,
    dismissed). --explain: every reason in words with what the GM can do."""
    if explain_reasons:
        click.echo(explain())
        return
    config = _load(config_path)
    rows: list[KeptRow] = []
    if store_exists(Path(config.store)):
        with Store(config.store) as store:
            rows = kept_rows(store, config)
    if as_json:
        click.echo(json.dumps([row.as_json() for row in rows], ensure_ascii=False, indent=2))
    elif not rows:
        click.echo("nothing kept")
    else:
        click.echo(table(rows))


@click.command()
@click.argument("kept_ids", metavar="ID...", nargs=-1, required=True, type=KEPT_ID)
@click.pass_obj
def retry(config_path: Path, kept_ids: tuple[int, ...]) -> None:
    """Process kept messages (ids from `pbp kept`) again, after a fix, in their arrival
    order (rule D8). Exit 1 when one of them stays kept (crashes again, or is kept
    again for a reason: nothing is sent again then), or when one cannot succeed as it
    is (no personal address in it, a From not the player's registered address, …: it
    says why and which command helps, and none is processed)."""
    config = _load(config_path)
    service = _service(config)
    for warning in seat_warnings(config, service.store):
        log.warning("%s", warning)
    now = datetime.now(UTC)
    try:
        with writer_lock(config.store) as mine:
            outcomes = service.kept.retry(kept_ids, now, via="cli")
            if mine:  # else the running daemon sends them
                service.flush_outbox(now)
    except LookupError as error:
        raise click.ClickException(str(error.args[0])) from None
    except Refusal as error:
        raise _refused(service, error) from None
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


@click.command()
@click.argument("kept_ids", metavar="ID...", nargs=-1, required=True, type=KEPT_ID)
@click.pass_obj
def dismiss(config_path: Path, kept_ids: tuple[int, ...]) -> None:
    """Close kept messages (ids from `pbp kept`) without applying them: a stranger's
    spam, a bounce, a mail whose moves you entered with `pbp act`. Each stays in the
    store, shown as dismissed by `pbp kept`, no longer waiting. Exit 1, nothing
    closed, when one is unknown, dismissed already, held by a pause or done."""
    config = _load(config_path)
    service = _service(config)
    now = datetime.now(UTC)
    try:
        with writer_lock(config.store):
            closed = service.kept.dismiss(kept_ids, now, via="cli")
    except LookupError as error:
        raise click.ClickException(str(error.args[0])) from None
    except Refusal as error:
        raise _refused(service, error) from None
    finally:
        if service.transport is not None:
            service.transport.close()
        service.store.close()
    for kept_id in closed:
        click.echo(f"kept:{kept_id}: dismissed")
