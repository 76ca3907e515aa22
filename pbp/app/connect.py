"""``pbp check --connect``: try the real mailbox with the settings of ``games.yaml``
before a game depends on it (README, "Running pbp for real").

Each step is one line, ``ok`` or ``FAILED`` with what to check, never a traceback:

1. IMAP: the server reached (and its TLS), the login, the folder, IDLE (RFC 2177; pbp
   polls every 10 s without it), the done keyword among ``PERMANENTFLAGS`` (RFC 3501
   §7.1: pbp marks processed mail with it, never with ``\\Seen``), the kept folder.
2. SMTP: the server reached (and its TLS), the login (RFC 4954) when one is set.
3. Where ``mail.trusted_authserv_id`` is set: whether the ``Authentication-Results``
   of that server stand where ``trusted_received_above`` and ``trusted_authserv_fields``
   say, read from the newest mail in the folder whose From is a GM address of
   ``games.yaml`` (:func:`pbp.app.placement.placement`: a mismatch is ``FAILED`` with the
   setting to use, since every move would be kept as unauthenticated). Never a
   stranger's mail, which may carry a forged field; with no mail of the GM's, a note
   (the exit status does not change) asking him to send one.
4. A test mail from pbp's address to a personal address of the game mailbox
   (``address+check…@`` with ``personal_address: plus``, else with a ``[pbp-check…]``
   Subject tag), then waiting for it in the IMAP folder: whether and how it came back
   (the plus address kept in ``To``/``Delivered-To``, the tag in the Subject). It gets
   the done keyword at once, so that ``pbp run`` never reads it as a move, and
   ``$PbpCheck``, so that it is no sign of a lost store to ``pbp run``.

A Maildir inbox or outbox has nothing to connect to and passes. :func:`check_connect`
returns the lines and whether everything needed works.
"""

from __future__ import annotations

import ipaddress
import secrets
import smtplib
import ssl
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from imapclient import IMAPClient
from imapclient.exceptions import LoginError

from pbp.app.placement import Mark, placement
from pbp.config.model import Config, ImapSettings, SmtpSettings
from pbp.mail.base import HEADER_BYTES, cut_header, network_fault
from pbp.mail.imap import CHECK_KEYWORD, DONE_KEYWORD
from pbp.mail.imapconnection import said
from pbp.mail.read.authcheck import TrustedServer
from pbp.mail.read.mime import Letter, read_letter
from pbp.text.counted import counted

#: Seconds to wait for the test mail to come back.
WAIT_SECONDS = 60.0
#: Seconds between two looks for it.
LOOK_EVERY_SECONDS = 1.0


@dataclass
class Report:
    """The lines of one check and whether everything needed worked."""

    lines: list[str]
    ok: bool = True

    def good(self, line: str) -> None:
        self.lines.append(f"ok      {line}")

    def bad(self, line: str) -> None:
        self.lines.append(f"FAILED  {line}")
        self.ok = False

    def note(self, line: str) -> None:
        self.lines.append(f"note    {line}")

    def warn(self, line: str) -> None:
        """A danger that does not stop the check (a password sent in clear)."""
        self.lines.append(f"WARNING {line}")

    def add(self, mark: Mark, line: str) -> None:
        """A line marked ``mark``: :meth:`good`, :meth:`bad` or :meth:`warn`."""
        {Mark.OK: self.good, Mark.FAILED: self.bad, Mark.WARNING: self.warn}[mark](line)


def _loopback(host: str) -> bool:
    """True for a host name that stays on this machine: ``localhost`` (RFC 6761: also
    ``*.localhost``) or a loopback address (127.0.0.0/8, ``::1``); no name is looked up."""
    name = host.strip().lower().rstrip(".").strip("[]")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def cleartext_logins(config: Config) -> list[str]:
    """One sentence for each server of ``config`` that pbp would send a password to in
    clear: ``tls: none`` to a host that is not this machine's loopback, with a login
    (IMAP always logs in; SMTP when ``username`` is set). ``pbp check --connect``
    prints them as WARNING lines, ``pbp run`` logs them as warnings at its start."""
    found: list[str] = []
    imap = config.mail.inbox.imap
    smtp = config.mail.outbox.smtp
    servers: list[tuple[str, str, int, str, str | None]] = []
    if imap is not None:
        servers.append(("IMAP", imap.host, imap.port, imap.tls, imap.username))
    if smtp is not None:
        servers.append(("SMTP", smtp.host, smtp.port, smtp.tls, smtp.username))
    for protocol, host, port, tls, username in servers:
        if tls != "none" or username is None or _loopback(host):
            continue
        found.append(
            f"{protocol} {host}:{port}: tls: none sends the password of {username} in clear "
            "over the network, where anyone on the way can read it: use tls: ssl or "
            "starttls (tls: none is for a server on this machine)"
        )
    return found


def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


@contextmanager
def _imap(settings: ImapSettings, password: str, report: Report) -> Iterator[IMAPClient | None]:
    """An IMAP connection logged in and with the folder selected, or None after
    reporting why not."""
    where = f"IMAP {settings.host}:{settings.port}"
    try:
        client = IMAPClient(
            settings.host,
            port=settings.port,
            ssl=settings.tls == "ssl",
            ssl_context=_tls_context() if settings.tls != "none" else None,
            timeout=30,
        )
    except Exception as error:
        report.bad(f"{where}: cannot connect: {network_fault(error) or error}")
        yield None
        return
    try:
        if settings.tls == "starttls":
            client.starttls(_tls_context())
    except Exception as error:
        with suppress(Exception):
            client.shutdown()
        report.bad(f"{where}: STARTTLS failed: {network_fault(error) or said(error)}")
        yield None
        return
    tls = {"ssl": "TLS", "starttls": "STARTTLS", "none": "no TLS"}[settings.tls]
    report.good(f"{where}: reached ({tls})")
    try:
        try:
            client.login(settings.username, password)
        except LoginError as error:
            report.bad(
                f"{where}: login as {settings.username} refused ({said(error)}): check "
                "username and the password in password_env (an app password where the "
                "provider wants one; IMAP turned on in the mailbox's settings)"
            )
            yield None
            return
        report.good(f"{where}: logged in as {settings.username}")
        yield client
    except Exception as error:
        report.bad(f"{where}: {network_fault(error) or said(error)}")
        yield None
    finally:
        with suppress(Exception):  # already gone: nothing to release
            client.logout()


def _check_folder(client: IMAPClient, settings: ImapSettings, report: Report) -> bool:
    where = f"IMAP folder {settings.folder!r}"
    try:
        selected = client.select_folder(settings.folder)
    except Exception as error:
        report.bad(f"{where}: cannot be opened ({said(error)}): check folder: in games.yaml")
        return False
    idle = client.has_capability("IDLE")
    report.good(f"{where}: opened, {counted(int(selected.get(b'EXISTS', 0)), 'message')}")
    if idle:
        report.good("IMAP IDLE: yes (new mail is seen at once)")
    else:
        report.note("IMAP IDLE: no (pbp looks for new mail every 10 s)")
    permanent = selected.get(b"PERMANENTFLAGS")
    names = {(f.decode() if isinstance(f, bytes) else str(f)).lower() for f in permanent or ()}
    if permanent is None or "\\*" in names or DONE_KEYWORD.lower() in names:
        report.good(f"IMAP keyword {DONE_KEYWORD}: allowed (processed mail is marked with it)")
    else:
        report.bad(
            f"IMAP keyword {DONE_KEYWORD}: not allowed in {settings.folder!r} (PERMANENTFLAGS "
            f"{' '.join(sorted(names))}): pbp cannot mark processed mail; use another folder "
            "or provider"
        )
        return False
    try:
        if not client.folder_exists(settings.kept_folder):
            client.create_folder(settings.kept_folder)
            client.delete_folder(settings.kept_folder)
            report.good(f"IMAP folder {settings.kept_folder!r}: can be created (pbp will)")
        else:
            report.good(f"IMAP folder {settings.kept_folder!r}: exists")
    except Exception as error:
        report.bad(
            f"IMAP folder {settings.kept_folder!r}: cannot be created ({said(error)}): set "
            "kept_folder: to a folder that exists"
        )
        return False
    return True


#: The newest mails from a GM address whose header ``pbp check --connect`` reads to
#: find the GM's own (IMAP SEARCH FROM matches any part of the field: a stranger's
#: display name may hold the GM's address).
GM_MAIL_LOOKS = 20


def _from_any(addresses: list[str]) -> list[str]:
    """IMAP SEARCH criteria (RFC 3501 §6.4.4) for a From holding one of ``addresses``
    (at least one), each ``OR`` taking the next two keys.

    >>> _from_any(["a@example.test", "b@example.test", "c@example.test"])
    ['OR', 'FROM', 'a@example.test', 'OR', 'FROM', 'b@example.test', 'FROM', 'c@example.test']
    """
    if len(addresses) == 1:
        return ["FROM", addresses[0]]
    return ["OR", "FROM", addresses[0], *_from_any(addresses[1:])]


def _gm_mail(client: IMAPClient, gms: list[str]) -> Letter | None:
    """The header of the newest mail of the selected folder whose From is one of the
    GM addresses ``gms`` (lower-cased), no test mail of this command; None when
    there is none among the :data:`GM_MAIL_LOOKS` newest that name one. Each header
    is read to :data:`~pbp.mail.base.HEADER_BYTES` at most, as ``pbp run`` does."""
    criteria = ["NOT", "KEYWORD", CHECK_KEYWORD, *_from_any(gms)]
    found = client.search(criteria, None if all(a.isascii() for a in gms) else "UTF-8")
    newest = sorted(found, reverse=True)[:GM_MAIL_LOOKS]
    if not newest:
        return None
    # RFC 3501 §6.4.5: BODY.PEEK[HEADER]<0.n>, answered as BODY[HEADER]<0>.
    data = client.fetch(newest, [f"BODY.PEEK[HEADER]<0.{HEADER_BYTES}>"])
    for uid in newest:
        section = data.get(uid, {}).get(b"BODY[HEADER]<0>")
        if not isinstance(section, bytes):
            continue  # expunged since the search
        letter = read_letter(cut_header(section), body=False)
        if letter.from_problem is None and letter.from_address in gms:
            return letter
    return None


def _check_placement(
    client: IMAPClient, config: Config, server: TrustedServer, report: Report
) -> None:
    """Step 3 (module doc): :func:`pbp.app.placement.placement` of the GM's newest own mail
    in the selected folder, or a note that there is none to look at."""
    where = f"Authentication-Results from {server.authserv_id}"
    gms = list(dict.fromkeys(game.gm.lower() for game in config.games))
    resend = (
        f"send one mail from the GM's mailbox ({' or '.join(gms)}) to "
        f"{config.mail.address} and run pbp check --connect again"
    )
    try:
        letter = _gm_mail(client, gms)
        tests = client.search(["KEYWORD", CHECK_KEYWORD]) if letter is None else []
    except Exception as error:
        report.note(f"{where}: not checked: the GM's mail could not be read ({said(error)})")
        return
    if letter is None:
        skipped = " (pbp's own test mail skipped)" if tests else ""
        report.note(f"{where}: not checked: no mail from the GM in the folder{skipped}: {resend}")
        return
    mark, line = placement(letter, server, resend=resend)
    report.add(mark, line)


def _smtp(settings: SmtpSettings, password: str | None, report: Report) -> smtplib.SMTP | None:
    where = f"SMTP {settings.host}:{settings.port}"
    smtp: smtplib.SMTP
    try:
        if settings.tls == "ssl":
            smtp = smtplib.SMTP_SSL(
                settings.host, settings.port, timeout=30, context=_tls_context()
            )
        else:
            smtp = smtplib.SMTP(settings.host, settings.port, timeout=30)
    except Exception as error:
        report.bad(f"{where}: cannot connect: {network_fault(error) or error}")
        return None
    try:
        smtp.ehlo()
        if settings.tls == "starttls":
            smtp.starttls(context=_tls_context())
            smtp.ehlo()
    except Exception as error:
        smtp.close()
        report.bad(f"{where}: cannot start the session: {network_fault(error) or error}")
        return None
    tls = {"ssl": "TLS", "starttls": "STARTTLS", "none": "no TLS"}[settings.tls]
    report.good(f"{where}: reached ({tls})")
    if settings.username is None:
        report.note(f"{where}: no login set (username, password_env): sending without one")
        return smtp
    try:
        smtp.login(settings.username, password or "")
    except smtplib.SMTPNotSupportedError:
        # No AUTH offered (RFC 4954): the server takes mail without a login here, and
        # no password can fix that.
        report.bad(
            f"{where}: the server offers no login (no AUTH in its EHLO reply): leave "
            "username and password_env out of smtp, or use the port where it asks for one"
        )
        smtp.close()
        return None
    except smtplib.SMTPException as error:
        reply = getattr(error, "smtp_error", b"")
        said = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(error)
        report.bad(
            f"{where}: login as {settings.username} refused ({said.strip() or error}): check "
            "username and the password in password_env"
        )
        smtp.close()
        return None
    report.good(f"{where}: logged in as {settings.username}")
    return smtp


def _check_test_mail(
    config: Config,
    client: IMAPClient,
    smtp: smtplib.SMTP,
    report: Report,
    *,
    wait: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> None:
    """Step 4 (module doc): the test mail sent by ``smtp`` (closed after) and waited for
    in the selected folder of ``client`` for ``wait`` seconds."""
    tag = "check" + secrets.token_hex(4)
    message = _test_mail(config, tag)
    try:
        smtp.send_message(message)
    except smtplib.SMTPException as error:
        report.bad(f"test mail to {message['To']}: refused by SMTP ({error})")
        smtp.close()
        return
    smtp.quit()
    came = _wait_for(client, message, wait, clock, sleep)
    if came is None:
        hint = (
            "the provider may not deliver plus addresses: try personal_address: subject_tag"
            if config.mail.personal_address == "plus"
            else "check that mail to the address reaches this folder"
        )
        report.bad(f"test mail to {message['To']}: did not arrive in {wait:.0f} s: {hint}")
        return
    header, seconds = came
    _check_came_back(config, message, tag, read_letter(header, body=False), seconds, report)


def _check_came_back(
    config: Config, message: EmailMessage, tag: str, letter: Letter, seconds: float, report: Report
) -> None:
    """Whether the test mail ``message`` came back (``letter``, its headers) with what
    tells the seats apart: the plus address in a recipient field, or the Subject tag."""
    if config.mail.personal_address == "plus":
        wanted = str(message["To"]).lower()
        if wanted in letter.recipients:
            report.good(f"test mail to {wanted}: came back in {seconds:.1f} s, plus address kept")
        else:
            report.bad(
                f"test mail to {wanted}: came back in {seconds:.1f} s but without the plus "
                "address (To/Delivered-To): use personal_address: subject_tag"
            )
    elif f"[pbp-{tag}]" in letter.subject.lower():
        report.good(f"test mail: came back in {seconds:.1f} s, Subject tag kept")
    else:
        report.bad("test mail: came back without its Subject tag: pbp cannot tell seats apart")


def _test_mail(config: Config, tag: str) -> EmailMessage:
    mail = config.mail
    local, _at, domain = mail.address.partition("@")
    message = EmailMessage()
    message["From"] = mail.address
    if mail.personal_address == "plus":
        message["To"] = f"{local}+{tag}@{domain}"
        message["Subject"] = "pbp check --connect"
    else:
        message["To"] = mail.address
        message["Subject"] = f"pbp check --connect [pbp-{tag}]"
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = make_msgid(idstring=tag, domain=domain)
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: never a move, never answered
    message.set_content("A test mail of pbp check --connect: it is marked done at once.\n")
    return message


def _wait_for(
    client: IMAPClient,
    message: EmailMessage,
    wait: float,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
) -> tuple[bytes, float] | None:
    """The test mail as it came back and the seconds it took, or None."""
    message_id = str(message["Message-ID"])
    start = clock()
    while True:
        client.noop()
        found = client.search(["HEADER", "Message-ID", message_id])
        if found:
            data = client.fetch(found[:1], ["BODY.PEEK[HEADER]"])
            header = next(iter(data.values()))[b"BODY[HEADER]"]
            # Never read by pbp run, and no sign of a lost store (has_history).
            client.add_flags(found, [DONE_KEYWORD, CHECK_KEYWORD])
            return bytes(header), clock() - start
        if clock() - start >= wait:
            return None
        sleep(LOOK_EVERY_SECONDS)


def check_connect(
    config: Config,
    *,
    wait: float = WAIT_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Report:
    """Try the mailbox of ``config`` (module doc); ``wait``: seconds for the test mail.

    Returns the :class:`Report`; never raises for a server's or the network's fault.
    """
    report = Report([])
    for sentence in cleartext_logins(config):
        report.warn(sentence)
    imap = config.mail.inbox.imap
    smtp_settings = config.mail.outbox.smtp
    if imap is None:
        report.note("inbox: a local Maildir, nothing to connect to")
    if smtp_settings is None:
        report.note("outbox: a local Maildir, nothing to connect to")
    smtp = _smtp(smtp_settings, smtp_settings.password(), report) if smtp_settings else None
    if imap is None:
        if smtp is not None:
            smtp.quit()
        return report
    with _imap(imap, imap.password() or "", report) as client:
        if client is None or not _check_folder(client, imap, report):
            if smtp is not None:
                smtp.quit()
            return report
        server = config.mail.trusted_server
        if server is not None:
            _check_placement(client, config, server, report)
        if smtp is None:
            if smtp_settings is not None:
                report.note("test mail: not sent (SMTP failed)")
            return report
        _check_test_mail(config, client, smtp, report, wait=wait, clock=clock, sleep=sleep)
    return report
