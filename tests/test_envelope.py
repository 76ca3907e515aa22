"""The envelope is the address recorded (issue 32, item 4, and the Kelvin sign).

A From the reader takes is the address pbp records, and its answer goes to exactly
that address: in ``RCPT TO`` (the outbox row's recipient) and in ``To``. A From that
some step would write otherwise (smtplib's quoting, the header registry) is
``forged_from``: kept for the GM, never answered. Seed 000's game (kits.table):
a stranger writes to Кросс's personal address; strangers are answered once a day
(``wrong_sender``), three strangers a day per personal address.
"""

from __future__ import annotations

import re
import smtplib
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from kits.mailstack import Dovecot, SmtpServer
from kits.table import GM, Table, utc

from pbp.app.ratelimit import Admit, AnswerLimit
from pbp.cli import main
from pbp.games.core import configvalues
from pbp.mail.base import PermanentSendError, Submission
from pbp.mail.compose import compose, flatten
from pbp.mail.maildir import deliver, read_maildir_raw
from pbp.mail.read.address import address_problem, rate_key
from pbp.mail.read.mime import read_letter
from pbp.mail.smtp import SmtpTransport
from pbp.store import OutgoingMail, Store

GAME = "seed-000"
#: pbp's own address in the table's games.yaml.
PBP = "gm@example.test"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def send_raw(table: Table, sender: str, at: datetime, *, to: str | None = None) -> None:
    """Deliver a STATUS mail whose From field is ``sender`` as written (UTF-8 bytes, RFC
    6532), to Кросс's personal address unless ``to`` is given."""
    to = to or f"gm+{table.token('Кросс')}@example.test"
    head = (
        f"From: {sender}\r\nTo: {to}\r\nSubject: ход\r\nDate: {format_datetime(at)}\r\n"
        f"Message-ID: {make_msgid(domain='example.test')}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
    )
    deliver(table.inbox_path, (head + "\r\nСТАТУС\r\n").encode("utf-8"), at=at)


def sent_to(table: Table) -> list[str]:
    """The ``To`` line, as written, of every mail pbp sent since the last look."""
    table.service.flush_outbox(utc(2026, 12, 31))
    fresh = len(table.new_mail())
    found: list[str] = []
    for _at, raw in read_maildir_raw(table.outbox_path)[-fresh:] if fresh else []:
        line = re.search(rb"(?m)^To: (.*)\r$", raw)
        assert line is not None
        found.append(line[1].decode("utf-8"))
    return found


def kept_reasons(table: Table) -> list[str]:
    return [k.reason for k in table.store.kept()]


def queued(table: Table, before: int) -> list[OutgoingMail]:
    """The outbox rows after the first ``before`` (the game's start)."""
    return table.store.outbox()[before:]


# --- refused at reading -----------------------------------------------------------------------

#: Six C1 controls in one address (issue 32: six such variants got three answers, all
#: mailed to ``victim@example.test``, evading the once-a-day limit for strangers).
C1_VARIANTS = [
    "victim\x80@example.test",
    "victim\x81@example.test",
    "vic\x85tim@example.test",
    "\x8dvictim@example.test",
    "victim\x9b@example.test",
    "victim\x9f@example.test",
]


def test_c1_controls_in_a_from_are_forged_from_and_never_answered(table: Table) -> None:
    for n, sender in enumerate(C1_VARIANTS):
        send_raw(table, sender, utc(2026, 12, 1, 17, n + 1))
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["forged_from"] * 6
    codes = ["U+0080", "U+0081", "U+0085", "U+008D", "U+009B", "U+009F"]
    assert kept_reasons(table) == [f"forged_from: a control character {c}" for c in codes]
    assert sent_to(table) == []


@pytest.mark.parametrize("control", [f"\\x{n:02x}" for n in range(0x80, 0xA0)])
def test_every_c1_control_in_an_address_is_refused(control: str) -> None:
    char = chr(int(control[2:], 16))
    assert address_problem(f"vic{char}tim@example.test") == (
        f"the email address contains unsafe characters: U+{ord(char):04X}"
    )


def test_a_trailing_backslash_is_forged_from_not_answered_without_it(table: Table) -> None:
    """``victim@example.test\\`` was recorded as written and mailed to
    ``victim@example.test``."""
    send_raw(table, "victim@example.test\\", utc(2026, 12, 1, 17, 1))
    send_raw(table, "Victim <victim@example.test\\>", utc(2026, 12, 1, 17, 2))
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["forged_from"] * 2
    reason = (
        "forged_from: not a valid address: the part after the @-sign contains invalid "
        'characters: "\\"'
    )
    assert kept_reasons(table) == [reason, reason]
    assert sent_to(table) == []


def test_a_backslash_in_the_local_part_is_forged_from_not_answered_quoted(table: Table) -> None:
    """``vic\\tim@example.test`` was mailed to ``"vic\\\\tim"@example.test``."""
    send_raw(table, "vic\\tim@example.test", utc(2026, 12, 1, 17, 1))
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["forged_from"]
    assert kept_reasons(table) == [
        "forged_from: not a valid address: the email address contains invalid characters "
        'before the @-sign: "\\"'
    ]
    assert sent_to(table) == []


@pytest.mark.parametrize(
    ("sender", "problem"),
    [
        # A quoted local part with a space was read as its last word's address and
        # answered there: "vic tim"@… at tim@….
        ('"vic tim"@example.test', "quoting the part before the @-sign is not allowed here"),
        (
            "<vic\u200btim@example.test>",
            "the email address contains unsafe characters: ZERO WIDTH SPACE",
        ),
        ("vic\u2060tim@example.test", "the email address contains unsafe characters: WORD JOINER"),
        (
            "victim\ufeff@example.test",
            "the email address contains unsafe characters: ZERO WIDTH NO-BREAK SPACE",
        ),
    ],
)
def test_white_space_inside_an_address_is_forged_from(
    table: Table, sender: str, problem: str
) -> None:
    send_raw(table, sender, utc(2026, 12, 1, 17, 1))
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["forged_from"]
    assert kept_reasons(table) == [f"forged_from: not a valid address: {problem}"]
    assert sent_to(table) == []


def test_a_kelvin_sign_does_not_fold_onto_k_and_play_for_the_registered_player(
    table: Table,
) -> None:
    """U+212A KELVIN SIGN lower-cases to ASCII ``k``: ``\\u212aolya@…`` was read as
    ``kolya@…``, so it played Дуг's seat once Дуг played from ``kolya@example.test``;
    no different address may match a registered player's."""
    result = CliRunner().invoke(
        main,
        [
            "-c",
            str(table.directory / "games.yaml"),
            "readdress",
            GAME,
            "Дуга",
            "--email",
            "kolya@example.test",
        ],
    )
    assert result.exit_code == 0, result.output
    table.new_mail()
    to = f"gm+{table.token('Дуг')}@example.test"
    send_raw(table, "\u212aolya@example.test", utc(2026, 12, 1, 17, 1), to=to)
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["forged_from"]
    assert kept_reasons(table) == [
        'forged_from: not a valid address: not in Unicode NFKC form: U+212A KELVIN SIGN (NFKC: "K")'
    ]
    assert sent_to(table) == []
    # His own address still plays.
    send_raw(table, "kolya@example.test", utc(2026, 12, 1, 17, 11), to=to)
    assert table.run(utc(2026, 12, 1, 17, 12)) == ["status"]
    assert sent_to(table) == ["kolya@example.test"]


def test_an_address_with_an_undecodable_byte_is_refused() -> None:
    """Raw bytes that decode to U+FFFD: two different addresses would read as one."""
    assert address_problem("vic\ufffdtim@example.test") == (
        "an undecodable byte (U+FFFD REPLACEMENT CHARACTER)"
    )


@pytest.mark.parametrize(
    ("field", "address"),
    [
        ("\u212aolya@example.test", "kolya@example.test"),
        ("ｋolya@example.test", "ｋolya@example.test"),
        ("kolya@ｅxample.test", "kolya@ｅxample.test"),
    ],
)
def test_a_from_outside_nfkc_form_names_no_sender(field: str, address: str) -> None:
    letter = read_letter(f"From: {field}\r\nSubject: x\r\n\r\nhi\r\n".encode(), body=False)
    assert letter.from_address == address
    assert letter.from_problem is not None
    assert letter.from_problem.startswith("not a valid address: not in Unicode NFKC form: U+")


# --- the answer goes to the address recorded, as it is -----------------------------------------


#: Valid addr-specs (RFC 5322 §3.2.3 atext) the reader took for none (an apostrophe:
#: ``o'brien`` was forged_from) or that go through a parser on their way out.
UNUSUAL = ["o'brien+pbp@example.test", "{x}|~!#$%&*/^_`-y=z@example.test"]
#: A local part of atext that looks like an RFC 2047 encoded-word, in a To line over 78
#: characters: the header registry refolded it, decoding the word, and the answer went
#: to ``xaaa…@example.test``.
ENCODED_LOOK = "=?utf-8?q?x?=" + "a" * 50 + "@example.test"


@pytest.mark.parametrize("address", UNUSUAL, ids=["apostrophe", "specials"])
def test_the_envelope_and_the_to_are_the_recorded_recipient_of_an_unusual_address(
    table: Table, dovecot: Dovecot, address: str
) -> None:
    server = SmtpServer(dovecot, deliver=False)
    server.start()
    table.service.transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    before = len(table.store.outbox())
    try:
        send_raw(table, address, utc(2026, 12, 1, 17, 1))
        assert table.run(utc(2026, 12, 1, 17, 10)) == ["wrong_sender"]
    finally:
        table.service.transport.close()
        server.stop()
    (row,) = queued(table, before)
    assert row.recipient == address
    (delivery,) = server.deliveries
    assert (delivery.mail_from, delivery.rcpt_tos) == (PBP, (address,))
    assert f"\r\nTo: {address}\r\n".encode() in delivery.content


def test_a_long_to_of_an_encoded_word_look_is_the_recorded_recipient(table: Table) -> None:
    """(aiosmtpd itself decodes such a word in ``RCPT TO``: the Maildir outbox shows
    what pbp wrote.)"""
    before = len(table.store.outbox())
    send_raw(table, ENCODED_LOOK, utc(2026, 12, 1, 17, 1))
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["wrong_sender"]
    (row,) = queued(table, before)
    assert row.recipient == ENCODED_LOOK
    assert sent_to(table) == [ENCODED_LOOK]


def test_a_non_ascii_address_is_answered_by_smtputf8_with_a_utf8_header(
    table: Table, dovecot: Dovecot
) -> None:
    """RFC 6531/6532: ``пётр@example.test`` was mailed to an encoded-word address."""
    server = SmtpServer(dovecot, deliver=False, smtputf8=True)
    server.start()
    table.service.transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    before = len(table.store.outbox())
    try:
        send_raw(table, "Пётр <ПЁТР@example.test>", utc(2026, 12, 1, 17, 1))
        assert table.run(utc(2026, 12, 1, 17, 10)) == ["wrong_sender"]
    finally:
        table.service.transport.close()
        server.stop()
    (row,) = queued(table, before)
    assert (row.recipient, row.sent_at is not None) == ("пётр@example.test", True)
    (delivery,) = server.deliveries
    assert (delivery.mail_from, delivery.rcpt_tos) == (PBP, ("пётр@example.test",))
    assert "\r\nTo: пётр@example.test\r\n".encode() in delivery.content
    received = message_from_bytes(delivery.content, policy=policy.default)
    assert str(received["To"]) == "пётр@example.test"


def test_a_non_ascii_address_without_smtputf8_is_kept_for_the_gm_and_sent_nowhere_else(
    table: Table, dovecot: Dovecot, caplog: pytest.LogCaptureFixture
) -> None:
    server = SmtpServer(dovecot, deliver=False, smtputf8=False)
    server.start()
    table.service.transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    before = len(table.store.outbox())
    try:
        send_raw(table, "пётр@example.test", utc(2026, 12, 1, 17, 1))
        with caplog.at_level("WARNING", logger="pbp.app.sending"):
            assert table.run(utc(2026, 12, 1, 17, 10)) == ["wrong_sender"]
    finally:
        table.service.transport.close()
        server.stop()
    reason = (
        f"SMTP 127.0.0.1:{server.port}: the server does not offer SMTPUTF8 (RFC 6531), "
        "which пётр@example.test needs: not sent"
    )
    answer, notice = queued(table, before)
    assert (answer.recipient, answer.sent_at, answer.failed) == ("пётр@example.test", None, reason)
    assert kept_reasons(table) == ["wrong_sender"]
    # Only the GM was mailed: that his game's answer could not go.
    assert [(d.mail_from, d.rcpt_tos) for d in server.deliveries] == [(PBP, (GM,))]
    assert notice.recipient == GM
    told = message_from_bytes(server.deliveries[0].content, policy=policy.default)
    assert reason in str(told.get_content())
    assert [r.getMessage() for r in caplog.records if r.name == "pbp.app.sending"] == [
        f"mail {answer.message_id} to пётр@example.test refused for good: {reason}"
    ]


def test_an_envelope_smtplib_would_rewrite_is_not_sent(dovecot: Dovecot) -> None:
    """smtplib writes ``RCPT TO`` as the email package reads the address: a comment
    dropped, ``a(b)@example.test`` sent to ``a@example.test``."""
    server = SmtpServer(dovecot, deliver=False)
    server.start()
    transport = SmtpTransport("127.0.0.1", server.port, timeout=10)
    raw = b"From: pbp <gm@example.test>\r\nTo: a@example.test\r\n\r\nhi\r\n"
    try:
        with pytest.raises(PermanentSendError) as refused:
            transport.sendmail(PBP, ["a(b)@example.test"], raw)
        outcomes = list(
            transport.send_each(
                [
                    Submission(PBP, ["rosa@example.test"], raw),
                    Submission(PBP, ["a(b)@example.test"], raw),
                    Submission(PBP, ["doug@example.test"], raw),
                ]
            )
        )
    finally:
        transport.close()
        server.stop()
    message = "the address 'a(b)@example.test' would go out as '<a@example.test>': not sent"
    assert str(refused.value) == message
    assert [None if o is None else str(o) for o in outcomes] == [None, message, None]
    assert [d.rcpt_tos for d in server.deliveries] == [
        ("rosa@example.test",),
        ("doug@example.test",),
    ]


@pytest.mark.parametrize(
    "to", ["victim\x81@example.test", "vic\\tim@example.test", "Роза <rosa@example.test>"]
)
def test_compose_never_writes_another_address_than_it_is_given(to: str) -> None:
    with pytest.raises(ValueError, match="not an address to send to as it is written"):
        compose(
            sender=PBP,
            to=to,
            subject="x",
            body="x\n",
            message_id="<pbp.1@example.test>",
            date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
            auto_submitted="auto-replied",
        )


def test_a_long_to_line_is_written_as_it_is() -> None:
    address = ENCODED_LOOK
    message = compose(
        sender=PBP,
        to=address,
        subject="x",
        body="x\n",
        message_id="<pbp.1@example.test>",
        date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
        auto_submitted="auto-replied",
    )
    assert f"\r\nTo: {address}\r\n".encode() in flatten(message)
    assert flatten(message) == bytes(message)


# --- rate limits count every spelling of one address ---------------------------------------------


def test_the_rate_limit_is_keyed_on_the_normalised_address(tmp_path: Path) -> None:
    """NFKC and case-folded: a full-width ``ｋ`` or an upper-case domain gets no window
    of its own."""
    store = Store(tmp_path / "pbp.sqlite3")
    try:
        limit = AnswerLimit(store, per_hour=2)
        now = utc(2026, 12, 1, 17)
        spellings = ["kolya@example.test", "ｋolya@example.test", "Kolya@EXAMPLE.test"]
        with store.transaction():
            admitted = [limit.admit(address, now)[0] for address in spellings]
        assert admitted == [Admit.ANSWER, Admit.ANSWER, Admit.SLOW_DOWN]
        assert {rate_key(a) for a in [*spellings, "\u212aolya@example.test"]} == {
            "kolya@example.test"
        }
    finally:
        store.close()


def test_the_rate_limit_counts_each_spelling_of_an_idn_domain_together(tmp_path: Path) -> None:
    """Before: ``idnvictim@пример.рф`` and ``idnvictim@xn--e1afmkfd.xn--p1ai`` (one
    mailbox) got a window each (NFKC and casefold only). The domain is keyed in its
    IDNA A-label form; ``ß`` stays apart from ``ss`` (two IDNA2008 domains)."""
    store = Store(tmp_path / "pbp.sqlite3")
    try:
        limit = AnswerLimit(store, per_hour=1)
        now = utc(2026, 12, 1, 17)
        spellings = [
            "idnvictim@пример.рф",
            "idnvictim@xn--e1afmkfd.xn--p1ai",
            "idnvictim@ПРИМЕР.РФ",
        ]
        with store.transaction():
            admitted = [limit.admit(a, now)[0] for a in spellings]
        assert admitted == [Admit.ANSWER, Admit.SLOW_DOWN, Admit.DEFER]
        assert {rate_key(a) for a in spellings} == {"idnvictim@xn--e1afmkfd.xn--p1ai"}
        assert rate_key("a@straße.test") == "a@xn--strae-oqa.test"
        assert rate_key("a@strasse.test") == "a@strasse.test"
    finally:
        store.close()


# --- whatever the reader takes goes out as it is -----------------------------------------------

#: Pieces of addresses: atext, specials, quotes, controls of C0 and C1, invisible and
#: non-NFKC characters, non-ASCII letters, encoded-word looks.
PIECES = [
    "a", "Z", "0", ".", "..", "+", "-", "_", "'", "=?", "?=", "!#$%&*/^`{|}~", "\\", '"',
    " ", "\t", "(c)", "<", ">", ",", ";", ":", "[", "]", "@", "\x00", "\x1c", "\x7f",
    "\x81", "\x85", "\x9f", "\u00a0", "\u200b", "\u2060", "\ufeff", "\u212a", "ｋ",
    "\u3002", "e\u0301", "ё", "Ё", "ß", "İ", "ς", "\ufffd", "",
]  # fmt: skip
DOMAINS = ["example.test", "Example.TEST", "пример.рф", "xn--80ak6aa92e.test", "ex.ample.test"]
#: How the address stands in the field.
SHAPES = ["{}", "<{}>", "Name <{}>", '"N, M" <{}>', "{} (comment)", "Name {}"]


@settings(derandomize=True, deadline=None, database=None, max_examples=600)
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=4),
    st.lists(st.sampled_from(PIECES), max_size=2),
    st.sampled_from(DOMAINS),
    st.sampled_from(SHAPES),
)
def test_an_address_the_reader_takes_is_the_one_composed_and_sent(
    local: list[str], tail: list[str], domain: str, shape: str
) -> None:
    """Whatever From the reader records an address of without a problem, that address
    is a ``To`` written as it is, an envelope smtplib sends as it is, and, when ASCII,
    one ``games.yaml`` takes too (or refuses for its stricter syntax alone)."""
    field = shape.format(f"{''.join(local)}@{domain}{''.join(tail)}")
    letter = read_letter(f"From: {field}\r\nSubject: x\r\n\r\nhi\r\n".encode(), body=False)
    address = letter.from_address
    if address is None or letter.from_problem is not None:
        return
    assert address_problem(address) is None
    message = compose(
        sender=PBP,
        to=address,
        subject="x",
        body="x\n",
        message_id="<pbp.1@example.test>",
        date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
        auto_submitted="auto-replied",
    )
    assert f"\r\nTo: {address}\r\n".encode() in flatten(message)
    assert smtplib.quoteaddr(address) == f"<{address}>"
    if address.isascii():
        assert configvalues.address_problem(address) in (None, "not a valid email address")


@pytest.mark.parametrize(
    ("email", "problem"),
    [
        (
            "vasya@host.local",
            "the part after the @-sign is a special-use or reserved name that cannot be used "
            "with email",
        ),
        (
            "vasya@example.123",
            "the part after the @-sign is not valid. It is not within a valid top-level domain",
        ),
    ],
)
def test_games_yaml_refuses_an_address_whose_mail_pbp_would_not_read(
    email: str, problem: str
) -> None:
    """Else the reader keeps the player's every mail as forged_from, and composing his
    answers fails."""
    assert configvalues.address_problem(email) == (
        f"pbp would neither read mail from it nor answer it: {problem}"
    )
