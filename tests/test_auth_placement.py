"""Only the receiving server's own ``Authentication-Results`` count, as RFC 8601 §5 places
them (issue 32, item 1): the fields with its authserv-id below exactly
``trusted_received_above`` ``Received`` fields, no more than ``trusted_authserv_fields``
of them; any other field with that id makes the mail unauthenticated, and a fail
beside a pass is no pass (:mod:`pbp.mail.read.authcheck`).

The three faults a hostile tester found (the whole topmost run of adjacent trusted
fields was trusted) are tests ``test_fault_a_…``, ``test_fault_b_…`` and
``test_fault_c_…``, through the intake of seed 000's game (kits.table) as well as on
the pure verdict.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from kits.table import EMAILS, GM, Table, body, utc, write_config

from pbp.config.loading import ConfigError, load_config
from pbp.mail.maildir import deliver
from pbp.mail.read.auth import AuthField
from pbp.mail.read.authcheck import DEFAULT_RECEIVED_ABOVE, TrustedServer, Verdict, verdict
from pbp.mail.read.mime import read_letter
from pbp.store import GM_SEAT

MX = "mx.example.test"
FROM = "cross@example.test"
GAME = "seed-000"
SUGGESTION = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг"

#: Trace fields the receiving side writes, top down.
LMTP = ("Received", f"from {MX} by {MX} with LMTP id Zx81; Tue, 01 Dec 2026 17:05:00 +0300")
SMTP_IN = (
    "Received",
    f"from mail.example.test (mail.example.test [192.0.2.1]) by {MX} (Postfix) with ESMTPS "
    "id 4Q1x; Tue, 01 Dec 2026 17:05:00 +0300",
)
#: The sender's own submission server's trace field, at the head of his message.
SUBMISSION = ("Received", "from [198.51.100.7] by mail.example.test with ESMTPSA id 77a")

PASSED = ("Authentication-Results", f"{MX}; dmarc=pass header.from=example.test")
SPF_PASS = ("Authentication-Results", f"{MX}; spf=pass smtp.mailfrom=example.test")


def header(*fields: tuple[str, str]) -> bytes:
    """``fields`` as header lines, then the message's own header and body."""
    lines = "".join(f"{name}: {value}\r\n" for name, value in fields)
    own = f"From: {FROM}\r\nTo: gm@example.test\r\nSubject: ход\r\n\r\nSTATUS\r\n"
    return (lines + own).encode()


def judge(raw: bytes, server: TrustedServer) -> Verdict:
    """The verdict on a raw mail read as ``pbp run`` reads it."""
    letter = read_letter(raw)
    assert letter.from_address == FROM
    return verdict(letter.authentication_results, FROM, server)


FORGED_BELOW = Verdict(
    False, False, f"Authentication-Results from {MX} below the receiving server's fields (forged)"
)


def too_many(found: int, written: int) -> Verdict:
    return Verdict(
        False,
        False,
        f"more Authentication-Results from {MX} than the server writes ({found}, not "
        f"{written}): one is forged",
    )


# --- the three faults, on the pure verdict ------------------------------------------------


def test_fault_a_a_forged_dmarc_pass_right_below_the_servers_spf_pass_is_no_pass() -> None:
    """A milter's field right above the message's first header; the message starts with
    a forged field of the same id: it was read as one run with the server's."""
    raw = header(
        SMTP_IN, SPF_PASS, ("Authentication-Results", f"{MX}; dmarc=pass header.from=example.test")
    )
    assert judge(raw, TrustedServer(MX, 1, 1)) == too_many(2, 1)


def test_fault_b_a_forged_dkim_pass_beside_the_servers_dkim_fail_is_no_pass() -> None:
    server = (
        "Authentication-Results",
        f"{MX}; dkim=fail header.d=example.test; dmarc=none header.from=example.test",
    )
    forged = ("Authentication-Results", f"{MX}; dkim=pass header.d=example.test")
    raw = header(SMTP_IN, server, forged)
    assert judge(raw, TrustedServer(MX, 1, 1)) == too_many(2, 1)
    # Where the server writes two fields (one of them missing on this mail), the count
    # lets the forgery in; the disagreement stops it.
    assert judge(raw, TrustedServer(MX, 2, 1)) == Verdict(
        False, False, "dkim results disagree: fail, pass"
    )


def test_fault_c_a_forged_field_lower_down_without_a_server_field_is_no_pass() -> None:
    raw = header(SMTP_IN, SUBMISSION, PASSED)
    assert judge(raw, TrustedServer(MX, 1, 1)) == FORGED_BELOW


# --- where the server's fields stand --------------------------------------------------------


@pytest.mark.parametrize("received_above", [0, 1, 2])
def test_the_servers_field_below_its_received_fields_authenticates(received_above: int) -> None:
    """R=0: the field on top (OpenDKIM since its fix, mail.ru); R=1: a milter below the
    MTA's Received (Postfix with OpenDKIM/OpenDMARC/rspamd); R=2: and Dovecot LMTP's
    Received on top, or Gmail."""
    trace = [LMTP, SMTP_IN][-received_above:] if received_above else []
    raw = header(*trace, PASSED, SUBMISSION)
    assert judge(raw, TrustedServer(MX, 1, received_above)) == Verdict(True, True, "dmarc=pass")


@pytest.mark.parametrize("received_above", [0, 1, 2])
def test_a_field_with_the_id_below_the_next_received_field_is_forged(received_above: int) -> None:
    """The sender's copy of the server's field, below the trace field of his own
    submission server: the mail is unauthenticated, whatever the server said."""
    trace = [LMTP, SMTP_IN][-received_above:] if received_above else []
    raw = header(*trace, PASSED, SUBMISSION, PASSED)
    assert judge(raw, TrustedServer(MX, 1, received_above)) == FORGED_BELOW


@pytest.mark.parametrize("received_above", [0, 1, 2])
def test_more_fields_in_the_servers_place_than_it_writes_are_forged(received_above: int) -> None:
    """Sent straight to the server with no Received of his own, the sender's field
    stands right below the server's: only the count tells them apart."""
    trace = [LMTP, SMTP_IN][-received_above:] if received_above else []
    raw = header(*trace, PASSED, SPF_PASS)
    assert judge(raw, TrustedServer(MX, 1, received_above)) == too_many(2, 1)
    assert judge(raw, TrustedServer(MX, 2, received_above)) == Verdict(True, True, "dmarc=pass")
    assert judge(
        header(*trace, PASSED, SPF_PASS, PASSED), TrustedServer(MX, 2, received_above)
    ) == (too_many(3, 2))


def test_a_field_above_the_configured_place_is_not_trusted_and_names_the_setting() -> None:
    raw = header(SMTP_IN, PASSED)
    assert judge(raw, TrustedServer(MX, 1, 2)) == Verdict(
        False,
        False,
        f"Authentication-Results from {MX} below 1 Received fields, not 2: check "
        "mail.trusted_received_above",
    )
    # Set too low, the server's own field reads as one further down: forged.
    assert judge(header(LMTP, SMTP_IN, PASSED), TrustedServer(MX, 1, 1)) == FORGED_BELOW


def test_fields_of_other_servers_anywhere_are_ignored() -> None:
    other = ("Authentication-Results", "mx.other.test; dmarc=fail header.from=example.test")
    raw = header(other, SMTP_IN, other, PASSED, SUBMISSION, other)
    assert judge(raw, TrustedServer(MX, 1, 1)) == Verdict(True, True, "dmarc=pass")


#: A Gmail-like header, top down (the layout of mail as Gmail delivers it, names
#: changed): two Received fields above the one Authentication-Results of the server,
#: ARC and X-Received fields that are none of these.
GMAIL_LIKE = (
    "Delivered-To: gm@example.test\r\n"
    "Received: by 2002:a05:7010:5c8e:b0:41a with SMTP id r14csp1180mdb;\r\n"
    "        Tue, 1 Dec 2026 06:05:01 -0800 (PST)\r\n"
    "X-Received: by 2002:a17:907:9719:b0:a9a with SMTP id jg25mr1931ejc.6;\r\n"
    "        Tue, 01 Dec 2026 06:05:01 -0800 (PST)\r\n"
    "ARC-Seal: i=1; a=rsa-sha256; t=1796220301; cv=none; d=example.test; s=arc-20240605;\r\n"
    "        b=Zm9v\r\n"
    "ARC-Authentication-Results: i=1; mx.example.test;\r\n"
    "       dkim=pass header.i=@example.test header.s=20230601 header.b=Qm9v;\r\n"
    "       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.test\r\n"
    "Return-Path: <cross@example.test>\r\n"
    "Received: from mail-sor-f41.example.net (mail-sor-f41.example.net. [192.0.2.41])\r\n"
    "        by mx.example.test with SMTPS id a640c23a62f3a-a9a.2026.12.01.06.05.01\r\n"
    "        for <gm@example.test>; Tue, 01 Dec 2026 06:05:01 -0800 (PST)\r\n"
    "Received-SPF: pass (mx.example.test: domain of cross@example.test designates\r\n"
    "        192.0.2.41 as permitted sender) client-ip=192.0.2.41;\r\n"
    "Authentication-Results: mx.example.test;\r\n"
    "       dkim=pass header.i=@example.test header.s=20230601 header.b=Qm9v;\r\n"
    "       spf=pass (mx.example.test: domain of cross@example.test designates 192.0.2.41\r\n"
    "        as permitted sender) smtp.mailfrom=cross@example.test;\r\n"
    "       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.test\r\n"
    "{sender}"
    "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.test; s=20230601;\r\n"
    "        h=to:subject:message-id:date:from:mime-version; bh=YmFy; b=Qm9v\r\n"
    "MIME-Version: 1.0\r\n"
    "From: Кросс <cross@example.test>\r\n"
    "Date: Tue, 1 Dec 2026 17:05:00 +0300\r\n"
    "Message-ID: <CAB1x@mail.example.test>\r\n"
    "Subject: ход\r\n"
    "To: gm+k3x9@example.test\r\n"
    'Content-Type: text/plain; charset="UTF-8"\r\n'
    "\r\n"
    "STATUS\r\n"
)


def test_a_gmail_like_layout_passes_with_the_default_settings() -> None:
    assert DEFAULT_RECEIVED_ABOVE == 2
    raw = GMAIL_LIKE.replace("{sender}", "").encode()
    assert judge(raw, TrustedServer(MX)) == Verdict(True, True, "dmarc=pass")


def test_a_gmail_like_layout_with_a_forged_field_in_the_senders_header_fails() -> None:
    trace = (
        "Received: by mail-sor-f41.example.net with SMTP id 41so3;\r\n"
        "        Tue, 01 Dec 2026 06:05:01 -0800 (PST)\r\n"
    )
    forged = "Authentication-Results: mx.example.test; dmarc=pass header.from=example.test\r\n"
    raw = GMAIL_LIKE.replace("{sender}", trace + forged).encode()
    assert judge(raw, TrustedServer(MX)) == FORGED_BELOW
    # Sent straight to the server, with no trace field of his own: one field too many.
    raw = GMAIL_LIKE.replace("{sender}", forged).encode()
    assert judge(raw, TrustedServer(MX)) == too_many(2, 1)


def test_postfix_with_opendkim_and_opendmarc_delivering_by_lmtp() -> None:
    """Two milters, each inserting its field after the first header (Postfix's own
    Received), and Dovecot LMTP's Received on top: 2 fields below 2 Received fields."""
    dmarc = (
        "Authentication-Results",
        f"{MX}; dmarc=pass (p=none dis=none) header.from=example.test",
    )
    dkim = (
        "Authentication-Results",
        f"{MX}; dkim=pass (2048-bit key; unprotected) header.d=example.test "
        "header.i=@example.test header.b=Qm9v",
    )
    raw = header(("Return-Path", "<cross@example.test>"), LMTP, SMTP_IN, dmarc, dkim, SUBMISSION)
    assert judge(raw, TrustedServer(MX, 2, 2)) == Verdict(True, True, "dmarc=pass")
    assert judge(raw, TrustedServer(MX, 1, 2)) == too_many(2, 1)


def test_a_server_that_writes_no_field_leaves_its_place_to_a_forgery() -> None:
    """What pbp cannot see (README: leave trusted_authserv_id unset for such a server):
    when the server writes nothing on a mail, the sender's field sent straight to it
    stands exactly where the server's would."""
    assert judge(header(SMTP_IN, PASSED), TrustedServer(MX, 1, 1)) == Verdict(
        True, True, "dmarc=pass"
    )


# --- a fail beside a pass ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        # DMARC fail anywhere, even of another From domain.
        (
            "dmarc=fail header.from=other.test; dkim=pass header.d=example.test",
            Verdict(False, False, "dmarc=fail"),
        ),
        (
            "dkim=pass header.d=example.test; dkim=fail header.d=mail.example.test",
            Verdict(False, False, "dkim results disagree: pass, fail"),
        ),
        # A result that names no domain may be about this From.
        (
            "dkim=pass header.d=example.test; dkim=none",
            Verdict(False, False, "dkim results disagree: pass, none"),
        ),
        (
            "spf=softfail smtp.mailfrom=example.test; spf=pass smtp.mailfrom=example.test",
            Verdict(False, False, "spf results disagree: softfail, pass"),
        ),
        # A broken signature with DMARC passing by SPF: no pass of DKIM to doubt.
        (
            "spf=pass smtp.mailfrom=example.test; dkim=fail header.d=example.test; "
            "dmarc=pass header.from=example.test",
            Verdict(True, True, "dmarc=pass"),
        ),
        (
            "dkim=fail header.d=example.test; dkim=pass header.d=example.test; "
            "dmarc=pass header.from=example.test",
            Verdict(False, False, "dkim results disagree: fail, pass"),
        ),
        # Another domain's failing signature (a list's) beside the From's passing one.
        (
            "dkim=fail header.d=lists.other.test; dkim=pass header.d=example.test",
            Verdict(True, False, "dkim=pass header.d=example.test"),
        ),
        # SPF of the HELO name is not the identity DMARC aligns.
        (
            "spf=none smtp.helo=mail.example.test; spf=pass smtp.mailfrom=bounce@example.test",
            Verdict(True, False, "spf=pass smtp.mailfrom=bounce@example.test"),
        ),
        # A forwarded mail: SPF fails at the last hop, DKIM and so DMARC pass.
        (
            "dkim=pass header.d=example.test; spf=fail smtp.mailfrom=example.test; "
            "dmarc=pass header.from=example.test",
            Verdict(True, True, "dmarc=pass"),
        ),
        (
            "dkim=bestguesspass header.d=example.test",
            Verdict(False, False, "no dmarc, no aligned dkim or spf pass"),
        ),
    ],
)
def test_a_fail_beside_a_pass_is_no_pass(results: str, expected: Verdict) -> None:
    assert verdict([AuthField(f"{MX}; {results}", 0)], FROM, TrustedServer(MX, 1, 0)) == expected


# --- through the intake: a GM's lever, a player's move --------------------------------------


@pytest.fixture
def milter(tmp_path: Path) -> Iterator[Table]:
    """Seed 000's game where ``mx.example.test`` writes one field below its own
    Received field (a milter's place behind Postfix)."""
    table = Table(tmp_path, trusted=MX, received_above=1)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def arrive(
    table: Table,
    *lines: str,
    above: Sequence[tuple[str, str]],
    at: datetime,
    sender: str,
    to: str,
) -> None:
    """Deliver a plain mail from ``sender`` to ``to`` whose header starts with ``above``
    (the receiving side's trace fields, then whatever the sender put on top of his
    message), top down."""
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "ход"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("\n".join(lines) + "\n")
    top = "".join(f"{name}: {value}\r\n" for name, value in above).encode()
    deliver(table.inbox_path, top + bytes(message), at=at)


def gm_address(table: Table) -> str:
    return f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"


def kept_reasons(table: Table) -> list[str]:
    return [k.reason for k in table.store.kept()]


def test_fault_a_a_gm_lever_with_a_forged_dmarc_pass_below_the_servers_spf_pass_waits(
    milter: Table,
) -> None:
    """Before: the forged field joined the server's run and the PAUSE was applied at
    once, without the GM's confirmation."""
    forged = ("Authentication-Results", f"{MX}; dmarc=pass header.from=example.test")
    arrive(
        milter,
        "ПАУЗА",
        above=[SMTP_IN, SPF_PASS, forged],
        at=utc(2026, 12, 1, 18),
        sender=GM,
        to=gm_address(milter),
    )
    assert milter.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    assert milter.store.last_event(GAME, ("gm_pause",)) is None


def test_a_gm_lever_with_the_servers_dmarc_pass_in_its_place_is_applied_at_once(
    milter: Table,
) -> None:
    arrive(
        milter,
        "ПАУЗА",
        above=[SMTP_IN, PASSED, SUBMISSION],
        at=utc(2026, 12, 1, 18),
        sender=GM,
        to=gm_address(milter),
    )
    assert milter.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    assert milter.store.last_event(GAME, ("gm_pause",)) is not None


def test_a_gm_confirmation_the_server_marks_dmarc_fail_confirms_nothing(milter: Table) -> None:
    """Before: a reply to the confirmation code from the GM's registered address with the
    server's own ``dmarc=fail`` (a forged GM From) applied the lever (``gm_applied``).
    Now it is kept as a player's unauthenticated mail is, and the lever stays pending:
    the GM's own authenticated reply to the same code still applies it."""
    arrive(
        milter,
        "ПАУЗА",
        above=[SMTP_IN, SPF_PASS],
        at=utc(2026, 12, 1, 18),
        sender=GM,
        to=gm_address(milter),
    )
    assert milter.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (asked,) = milter.new_mail()
    code = str(asked["Reply-To"])
    failed = (
        "Authentication-Results",
        f"{MX}; spf=fail smtp.mailfrom=example.test; dmarc=fail header.from=example.test",
    )
    arrive(milter, "да", above=[SMTP_IN, failed], at=utc(2026, 12, 1, 18, 5), sender=GM, to=code)
    assert milter.run(utc(2026, 12, 1, 18, 6)) == ["unauthenticated"]
    assert milter.store.last_event(GAME, ("gm_pause",)) is None
    assert kept_reasons(milter) == ["unauthenticated: dmarc=fail"]
    assert milter.store.pending_confirmations(GAME, utc(2026, 12, 1, 18, 6)) == 1
    (told,) = milter.new_mail()  # what a player is told (the kept row is the GM's)
    assert (told["To"], told["Subject"]) == (GM, "[seed-000] Re: ход")
    assert body(told).startswith("Игра: seed-000\n\nПочтовый сервер не подтвердил, что письмо")
    arrive(milter, "да", above=[SMTP_IN, PASSED], at=utc(2026, 12, 1, 18, 7), sender=GM, to=code)
    assert milter.run(utc(2026, 12, 1, 18, 8)) == ["gm_applied"]
    assert milter.store.last_event(GAME, ("gm_pause",)) is not None


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        (1, too_many(2, 1).reason),
        (2, "dkim results disagree: fail, pass"),
    ],
)
def test_fault_b_a_players_move_with_a_forged_dkim_pass_beside_the_servers_fail_is_kept(
    tmp_path: Path, fields: int, reason: str
) -> None:
    """Before: the server's ``dkim=fail; dmarc=none`` and the forged ``dkim=pass`` right
    below it were read as one run, and the DKIM pass applied the move."""
    table = Table(tmp_path, trusted=MX, received_above=1, trusted_fields=fields)
    try:
        table.run(utc(2026, 12, 1, 17))
        server = (
            "Authentication-Results",
            f"{MX}; dkim=fail header.d=example.test; dmarc=none header.from=example.test",
        )
        forged = ("Authentication-Results", f"{MX}; dkim=pass header.d=example.test")
        arrive(
            table,
            SUGGESTION,
            above=[SMTP_IN, server, forged],
            at=utc(2026, 12, 1, 17, 5),
            sender=EMAILS["Кросс"],
            to=f"gm+{table.token('Кросс')}@example.test",
        )
        assert table.run(utc(2026, 12, 1, 17, 6)) == ["unauthenticated"]
        assert kept_reasons(table) == [f"unauthenticated: {reason}"]
        assert table.store.last_event(GAME, ("suggestion_made",)) is None
    finally:
        table.close()


def test_fault_c_a_players_move_with_only_a_forged_field_lower_down_is_kept(
    milter: Table,
) -> None:
    """Before: with no field of the server at all, the forged one further down was the
    topmost run and the move was applied."""
    arrive(
        milter,
        SUGGESTION,
        above=[SMTP_IN, SUBMISSION, PASSED],
        at=utc(2026, 12, 1, 17, 5),
        sender=EMAILS["Кросс"],
        to=f"gm+{milter.token('Кросс')}@example.test",
    )
    assert milter.run(utc(2026, 12, 1, 17, 6)) == ["unauthenticated"]
    assert kept_reasons(milter) == [f"unauthenticated: {FORGED_BELOW.reason}"]
    # The same move with the server's pass in its place is applied.
    arrive(
        milter,
        SUGGESTION,
        above=[SMTP_IN, PASSED, SUBMISSION],
        at=utc(2026, 12, 1, 17, 7),
        sender=EMAILS["Кросс"],
        to=f"gm+{milter.token('Кросс')}@example.test",
    )
    assert milter.run(utc(2026, 12, 1, 17, 8)) == ["applied"]


# --- the settings ---------------------------------------------------------------------------


def test_the_settings_default_to_one_field_below_two_received_fields(tmp_path: Path) -> None:
    path = write_config(tmp_path, trusted=MX, received_above=2)
    assert load_config(path).mail.trusted_server == TrustedServer(MX, 1, 2)
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("  trusted_received_above: 2\n", "").replace(
            "  trusted_authserv_fields: 1\n", ""
        ),
        encoding="utf-8",
    )
    assert load_config(path).mail.trusted_server == TrustedServer(MX, 1, DEFAULT_RECEIVED_ABOVE)
    (tmp_path / "none").mkdir()
    assert load_config(write_config(tmp_path / "none")).mail.trusted_server is None


@pytest.mark.parametrize(
    ("received_above", "fields", "problem"),
    [
        (9, 1, "trusted_received_above: Input should be less than or equal to 8, got 9"),
        (-1, 1, "trusted_received_above: Input should be greater than or equal to 0, got -1"),
        (0, 0, "trusted_authserv_fields: Input should be greater than or equal to 1, got 0"),
        (0, 9, "trusted_authserv_fields: Input should be less than or equal to 8, got 9"),
    ],
)
def test_the_settings_are_bounded(
    tmp_path: Path, received_above: int, fields: int, problem: str
) -> None:
    path = write_config(tmp_path, trusted=MX, received_above=received_above, trusted_fields=fields)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert [str(p).split(": ", 1)[1] for p in caught.value.problems] == [f"mail.{problem}"]


@pytest.mark.parametrize(
    ("authserv_id", "provider"),
    [("mxfront3q.mail.yandex.net", "Yandex"), ("mx1.messagingengine.com", "Fastmail")],
)
def test_an_authserv_id_that_changes_from_mail_to_mail_is_refused(
    tmp_path: Path, authserv_id: str, provider: str
) -> None:
    path = write_config(tmp_path, trusted=authserv_id)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert [str(p).split(": ", 1)[1] for p in caught.value.problems] == [
        f"mail.trusted_authserv_id: {provider} writes the name of the server "
        f"that took the mail ({authserv_id}), which changes from mail to mail: no one name "
        "matches its fields, and pbp cannot tell them from a sender's; leave "
        "trusted_authserv_id unset"
    ]
