"""Outgoing mail keeps its Subject intact through the SMTP path (RFC 2047, RFC 5322)."""

from __future__ import annotations

import io
import random
from datetime import UTC, datetime
from email import message_from_bytes
from email.generator import BytesGenerator
from email.header import Header
from email.message import EmailMessage
from email.policy import SMTP, default

import pytest

from pbp.mail.compose import _subject_header, compose, flatten
from pbp.mail.safetext import strip_controls


@pytest.mark.parametrize(
    "subject",
    [
        "[maniac-e2e] Вечер дня 1: итоги голосования",  # lost its space (CPython gh-92081)
        "[exler-1] Предположение №1: вам показали карту",
        "Re: ход",
        "[maniac-1] Утро после ночи 1: кто погиб и кто вышел из камеры, длинная тема письма",
    ],
)
def test_subject_survives_the_outbox_and_smtp_reserialisation(subject: str) -> None:
    message = compose(
        sender="gm@example.test",
        to="player@example.test",
        subject=subject,
        body="текст",
        message_id="<pbp.1@example.test>",
        date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
        auto_submitted="auto-generated",
    )
    stored = bytes(message)  # what the outbox keeps
    parsed = message_from_bytes(stored, policy=SMTP)  # what the outbox sends ...
    wire = io.BytesIO()
    BytesGenerator(wire, policy=SMTP).flatten(parsed)  # ... as smtplib writes it
    received = message_from_bytes(wire.getvalue(), policy=default)
    assert received["Subject"] == subject
    header = wire.getvalue().split(b"\r\n\r\n")[0]
    assert max(len(line) for line in header.split(b"\r\n")) <= 78


def _by_the_registry(**fields: str) -> bytes:
    """The same headers set the email package's usual way (parsed by its registry)."""
    from email.headerregistry import Address
    from email.message import EmailMessage

    message = EmailMessage(policy=SMTP)
    name, address = fields.pop("From").split("|")
    local, _, domain = address.partition("@")
    message["From"] = Address(name, local, domain)
    for header, value in fields.items():
        if header == "Subject":
            message.set_raw("Subject", value)
        else:
            message[header] = value
    message.set_content("текст\n", charset="utf-8")
    return bytes(message)


@pytest.mark.parametrize(
    ("sender_name", "to", "references"),
    [
        ("pbp", "player@example.test", ["<a@example.test>"]),
        ("Ведущий «Клуэдо»", "rosa@example.test", []),
        (
            'a "quoted", name',
            "p" * 70 + "@example.test",
            [f"<{n}.x@example.test>" for n in range(6)],
        ),
    ],
)
def test_headers_set_without_the_registry_are_the_same_bytes(
    sender_name: str, to: str, references: list[str]
) -> None:
    """Issue 7: short printable ASCII values skip the header registry's parse;
    anything else (non-ASCII, long, an address list to refold) still goes through it."""
    date = datetime(2026, 12, 1, 19, 30, tzinfo=UTC)
    message = compose(
        sender="gm@example.test",
        to=to,
        subject="Ход 4",
        body="текст\n",
        message_id="<pbp.1@example.test>",
        date=date,
        auto_submitted="auto-replied",
        reply_to="gm+k3x9@example.test",
        in_reply_to="<m1@example.test>",
        references=references,
        sender_name=sender_name,
    )
    thread = [*references, "<m1@example.test>"]
    expected = _by_the_registry(
        From=f"{sender_name}|gm@example.test",
        To=to,
        **{"Reply-To": "gm+k3x9@example.test"},
        Subject=dict(message.raw_items())["Subject"],
        Date="Tue, 01 Dec 2026 19:30:00 +0000",
        **{"Message-ID": "<pbp.1@example.test>", "In-Reply-To": "<m1@example.test>"},
        References=" ".join(thread),
        **{"Auto-Submitted": "auto-replied"},
    )
    assert bytes(message) == expected
    assert flatten(message) == expected


_LONG_RU = "Ваше предположение №3 (Петя, нож, столовая) принято; его опровергает Кросс."
_LONG_EN = "Your suggestion no. 3 (Peter, knife, dining room) stands; Cross answers it now."


@pytest.mark.parametrize(
    "body",
    [
        "",
        "\n",
        "text\n",
        "текст",
        "a\n\n\nb\n",
        "x" * 78 + "\n",
        "x" * 79 + "\n",
        "ж" * 39 + "\n",
        "ж" * 40 + "\n",
        _LONG_RU + "\n",
        _LONG_EN + "\n",
        "\n".join([_LONG_EN] * 10) + "\n",
        "\n".join([_LONG_EN] * 11) + "\n" + _LONG_RU,
        "\n".join([_LONG_EN] * 10 + [_LONG_RU] * 5) + "\n",
        "\n".join(["short"] * 10 + [_LONG_RU]) + "\n",
        "tab\there\n" + "=" * 90 + "\n",
        "From the start\n.\n..\n" + _LONG_RU + "\n",
        "\u2028line separator and \x85 next line\n",
    ],
)
def test_the_body_is_the_one_set_content_makes(body: str) -> None:
    """Issue 18: compose sets the body's fields and encoding itself (not through
    ``set_content`` and the header registry); the bytes are the same, whichever
    transfer encoding the email package picks (7bit, 8bit, base64, quoted-printable)."""
    message = compose(
        sender="gm@example.test",
        to="player@example.test",
        subject="Ход",
        body=body,
        message_id="<pbp.1@example.test>",
        date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
        auto_submitted="auto-generated",
    )
    expected = EmailMessage(policy=SMTP)
    for name, value in message.raw_items():
        if name == "Content-Type":
            break
        expected.set_raw(name, value)
    expected.set_content(strip_controls(body), charset="utf-8")
    assert bytes(message) == bytes(expected)
    assert flatten(message) == bytes(expected)


def _subjects() -> list[str]:
    """Subjects of every length up to 200 characters from alphabets of 1 to 4 UTF-8
    bytes a character, mixed, with spaces (a fixed seed: the same cases every run)."""
    rng = random.Random(18)
    alphabets = ["ab c", "жк л", "ab жк", "€ ab", "😀 ж a", "[exler-1] Предположение №"]
    found = ["x", "ж", "😀", "Re: ход", "[maniac-e2e] Вечер дня 1: итоги голосования"]
    for length in range(1, 201):
        for alphabet in alphabets:
            found.append("".join(rng.choice(alphabet) for _ in range(length)).strip() or "x")
    return found


def test_the_subject_is_folded_as_the_header_class_folds_it() -> None:
    """Issue 18: compose encodes the Subject itself (the email package's Header tried
    every prefix of the text); the value is the one ``Header.encode`` gives."""
    for subject in _subjects():
        expected = Header(subject, "utf-8", header_name="Subject").encode("\r\n")
        assert _subject_header(subject) == expected, subject


def _bodies() -> list[str]:
    """Bodies of every mix of ASCII, Cyrillic and other text around the choice between
    quoted-printable and base64 (a fixed seed: the same cases every run)."""
    rng = random.Random(1818)
    pieces = ["a", "word ", "ж", "Ёлка ", " ", "=", "\t", "😀", ".", "x" * 80, "€", "\n", "\n\n"]
    found = []
    for _ in range(600):
        weights = [rng.random() for _ in pieces]
        found.append("".join(rng.choices(pieces, weights, k=rng.randint(1, 300))))
    return found


def test_the_transfer_encoding_is_chosen_as_set_content_chooses_it() -> None:
    """Issue 18: base64 is chosen without quoting the first lines when quoted-printable
    cannot be the shorter; every body still gets the bytes ``set_content`` gives, and
    a second mail with the same fields (their folding kept) the same bytes as
    ``bytes(message)``."""
    chosen = set()
    for body in _bodies():
        message = compose(
            sender="gm@example.test",
            to="player@example.test",
            subject="Ход",
            body=body,
            message_id="<pbp.1@example.test>",
            date=datetime(2026, 12, 1, 19, 30, tzinfo=UTC),
            auto_submitted="auto-generated",
        )
        expected = EmailMessage(policy=SMTP)
        for name, value in message.raw_items():
            if name == "Content-Type":
                break
            expected.set_raw(name, value)
        expected.set_content(strip_controls(body), charset="utf-8")
        assert flatten(message) == bytes(expected) == bytes(message), body
        chosen.add(str(message["Content-Transfer-Encoding"]))
    assert chosen == {"7bit", "8bit", "base64", "quoted-printable"}


def test_date_field_keeps_each_mails_own_offset_for_the_same_instant() -> None:
    """The same instant in two zones is one cache key by equality, two Date values."""
    from datetime import timedelta, timezone

    def date_of(when: datetime) -> str:
        message = compose(
            sender="gm@example.test",
            to="player@example.test",
            subject="s",
            body="b",
            message_id="<pbp.1@example.test>",
            date=when,
            auto_submitted="auto-generated",
        )
        return str(message["Date"])

    utc = datetime(2026, 12, 1, 19, 30, 5, 250_000, tzinfo=UTC)
    moscow = utc.astimezone(timezone(timedelta(hours=3)))
    assert utc == moscow
    assert date_of(utc) == "Tue, 01 Dec 2026 19:30:05 +0000"
    assert date_of(moscow) == "Tue, 01 Dec 2026 22:30:05 +0300"
    assert date_of(utc.replace(microsecond=0)) == "Tue, 01 Dec 2026 19:30:05 +0000"
