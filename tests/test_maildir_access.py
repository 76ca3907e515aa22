"""A Maildir inbox or outbox pbp's user cannot write is one sentence, never a traceback
(issue 32: no traceback).

What it looks like for real: the Maildir (or one of its folders) belongs to another
user (made by root, pbp then run as its service user; a folder copied without its
modes), or sits on a read-only mount. At start, ``pbp run``, ``pbp check`` and every
command that opens the mailbox say so in one sentence and exit 1; while ``pbp run``
serves (the folders' owner changed under it), each round that meets it logs one ERROR
line, as a mail server down is logged, and the daemon goes on; the outbox's mail waits
for its next try with one WARNING line. Tested as the unprivileged user 65534 when the
suite runs as root (:mod:`kits.nobody`).

Before, each ended in ``PermissionError: [Errno 13] Permission denied:
'…/mail/inbox/.done/maildirfolder'`` with a traceback (the daemon: a traceback every
round).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from kits.nobody import NOBODY, ROOT, ROOT_ID, NobodyDaemon, as_nobody, give, pbp
from kits.table import EMAILS, Table, utc
from kits.wait import wait_for

from pbp.mail.base import TransientSendError
from pbp.mail.maildir import MaildirTransport, deliver, read_maildir

FIX = (
    "make it readable and writable for the user pbp runs as (its owner and mode, or a "
    "read-write mount)"
)
ONCE = ("run", "--once", "--now", "2026-12-01T20:10+03:00")


@pytest.fixture
def started() -> Iterator[Path]:
    """A folder every user may enter, holding seed 000's games.yaml, its started store
    and its Maildirs, all :data:`kits.nobody.NOBODY`'s (the commands' user); removed
    afterwards. Not ``tmp_path``: its parents are closed to other users."""
    folder = Path(tempfile.mkdtemp(prefix="pbp-maildir-access-"))
    try:
        folder.chmod(0o755)
        table = Table(folder)
        table.run(utc(2026, 12, 1, 17))
        table.close()
        give(folder, NOBODY)
        yield folder
    finally:
        give(folder, NOBODY)  # writable again, to be removed
        shutil.rmtree(folder)


def read_only(maildir: Path, folder: str) -> str:
    """``folder`` of ``maildir`` another user's; the sentence that names it."""
    give(maildir / folder, ROOT_ID)
    role = maildir.name
    return (
        f"the Maildir {role} {maildir} is read-only for this user ({maildir / folder} cannot "
        f"be written): {FIX}"
    )


def status_mail(at_minute: int) -> bytes:
    message = EmailMessage()
    message["From"] = EMAILS["Роза"]
    message["To"] = "gm@example.test"
    message["Subject"] = "статус"
    message["Date"] = format_datetime(utc(2026, 12, 1, 17, at_minute))
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("STATUS\n")
    return bytes(message)


@pytest.mark.parametrize(("maildir", "folder"), [("inbox", "new"), ("outbox", "new")])
def test_a_maildir_read_only_for_pbps_user_is_one_sentence_and_exit_1_at_start(
    started: Path, maildir: str, folder: str
) -> None:
    config = started / "games.yaml"
    said = read_only(started / "mail" / maildir, folder)
    for command in (ONCE, ("pause", "seed-000")):
        assert pbp(config, *command) == (1, "", f"Error: {said}\n"), command
    assert pbp(config, "check") == (1, "", f"{config}: error: {said}\n")
    daemon = NobodyDaemon(config, started / "daemon.log")
    wait_for(lambda: not daemon.alive(), 30, daemon.output)
    assert (daemon.stop(), daemon.output()) == (1, f"Error: {said}\n")


def test_a_done_folder_read_only_for_pbps_user_is_named_at_start(started: Path) -> None:
    """``.done``, where the inbox's mail goes once applied, is checked before any mail
    is read."""
    inbox = started / "mail" / "inbox"
    said = read_only(inbox, ".done/cur")
    assert pbp(started / "games.yaml", *ONCE) == (1, "", f"Error: {said}\n")


def test_an_inbox_that_cannot_be_made_is_one_sentence(started: Path) -> None:
    mail = started / "mail"
    shutil.rmtree(mail / "inbox")
    give(mail, ROOT_ID)
    said = (
        f"the Maildir inbox {mail / 'inbox'} cannot be made: {mail} is read-only for this "
        f"user; {FIX}"
    )
    assert pbp(started / "games.yaml", *ONCE) == (1, "", f"Error: {said}\n")
    assert not (mail / "inbox").exists()


def test_an_inbox_whose_maildirfolder_mark_is_another_users_is_used(started: Path) -> None:
    """The mark of a Maildir++ folder is made once, never touched again: another user's
    is no fault (before: ``PermissionError`` touching it)."""
    mark = started / "mail" / "inbox" / ".done" / "maildirfolder"
    give(mark, ROOT_ID)
    mark.chmod(0o644)
    assert pbp(started / "games.yaml", *ONCE) == (0, "", "")
    assert mark.stat().st_uid == ROOT_ID or not ROOT


def test_the_daemon_logs_one_error_line_a_round_while_the_inbox_is_read_only_and_goes_on(
    started: Path,
) -> None:
    """``.done/new`` becomes another user's while ``pbp run`` serves: the mail that
    arrives is applied and answered, then cannot be moved into ``.done``: one ERROR line
    for that round, as a mail server down (the next try backs off), no traceback; once
    the folder is his again, the next round moves it, and the daemon stops cleanly."""
    config = started / "games.yaml"
    inbox = started / "mail" / "inbox"
    daemon = NobodyDaemon(config, started / "daemon.log")
    try:
        daemon.wait_running()
        said = read_only(inbox, ".done/new")
        deliver(inbox, status_mail(1))
        wait_for(lambda: "ERROR" in daemon.output(), 30, daemon.output)
        give(inbox / ".done", NOBODY)
        wait_for(lambda: len(read_maildir(inbox / ".done")) == 1, 30, daemon.output)
        assert daemon.alive()
    finally:
        assert daemon.stop() == 0
    log = daemon.output()
    assert "Traceback" not in log
    errors = [line.split(" ", 2)[2] for line in log.splitlines() if " ERROR " in line]
    assert errors == [f"ERROR pbp.app.daemon: {said}; next try in 5 s"]
    # The mail was applied once and answered once, its STATUS to Роза.
    answers = [m for m in read_maildir(started / "mail" / "outbox") if m["To"] == EMAILS["Роза"]]
    assert len(answers) == 2  # the welcome and the answer


def test_an_outbox_read_only_while_serving_is_a_transient_failure_in_one_sentence(
    started: Path,
) -> None:
    """The mail waits in the store for its next try (the outbox's WARNING line names
    the sentence), as with an SMTP server down."""
    outbox = started / "mail" / "outbox"
    transport = MaildirTransport(outbox)  # opened while it was his
    said = read_only(outbox, "tmp")

    def send() -> str | None:
        try:
            transport.sendmail("gm@example.test", [EMAILS["Роза"]], b"Subject: x\r\n\r\nx\r\n")
        except TransientSendError as error:
            return str(error)
        return None

    assert as_nobody(send) == said


def test_pbp_mail_into_an_inbox_read_only_for_its_user_is_one_sentence(started: Path) -> None:
    """``pbp mail`` drops a message into the inbox: not delivered, said so."""
    said = read_only(started / "mail" / "inbox", "new")
    argv = ("mail", "--from", EMAILS["Роза"], "--to", "gm@example.test", "STATUS")
    assert pbp(started / "games.yaml", *argv) == (
        1,
        "",
        f"Error: {said}; the message was not delivered\n",
    )


def test_pbp_mailbox_of_an_outbox_its_user_cannot_read_is_one_sentence(started: Path) -> None:
    outbox = started / "mail" / "outbox"
    give(outbox / "new", ROOT_ID)
    (outbox / "new").chmod(0o700 if ROOT else 0o300)
    try:
        assert pbp(started / "games.yaml", "mailbox") == (
            1,
            "",
            f"Error: the Maildir outbox {outbox} cannot be read by this user: Permission "
            f"denied ({outbox / 'new'}); make it readable for him (its owner and mode)\n",
        )
    finally:
        (outbox / "new").chmod(0o755)
