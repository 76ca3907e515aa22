"""Real mail, third pass (issue 33, item 2): signed mail is read as text. One test per
fault, raw bytes through the service: Вася first votes for Таня, then sends his vote
for Петя signed; where there is a quote, his old vote for Таня is inside it. The old
vote must never run again, and the new one must stand.

- an inline PGP clear-signed body (RFC 4880 §7): its first line was taken for a dashed
  reply separator, so the move was dropped and he was told "no command found";
- S/MIME opaque-signed (``application/pkcs7-mime; smime-type=signed-data``, RFC 8551
  §3.5.2): it was taken for encrypted mail, so the move was dropped and he was told so.

Nothing is verified (the signatures and keys here are invented: :mod:`kits.signed`).
Plays seed 002's Maniac game (:mod:`kits.maniac_table`).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from asn1crypto import cms
from kits.maniac_table import EMAILS, ManiacTable
from kits.signed import clear_signed, entity, enveloped_data, signed_data, smime
from kits.table import named_body
from test_real_mail import DAY_1, FOOTER, answer, from_player, run, votes

from pbp.mail.read import smime as smime_module
from pbp.mail.read.armour import open_clear_signed
from pbp.mail.read.mime import read_letter, shown_text
from pbp.mail.read.smime import MAX_SIGNED_DEPTH, octet_pieces

REPLY_AT = DAY_1 + timedelta(minutes=10)
VASYA = EMAILS["Вася"]
#: Вася's answer to his signed vote for Петя (his first for Петя today).
VOTE_PETYA = [
    "Выполнено:",
    "",
    "> ГОЛОС Петя",
    "Понял: ГОЛОС за Петю",
    "Принято: ваш голос — за Петю. Сегодня это ваш 1-й голос за этого игрока.",
    "",
    "Для форума (скопируйте в тред игры):",
    "",
    "[b]Голосую за Петю[/b]",
    "",
    FOOTER,
]
#: A top-posted reply's quote of pbp's answer to his old vote.
QUOTE = (
    "1 дек. 2026 г., в 12:40, pbp <gm@example.test> написал(а):\n"
    "> Вася, вот что сделано по вашему письму.\n"
    "> ГОЛОС Таня\n"
    "> Принято: ваш голос — за Таню.\n"
)
ENCRYPTED_ANSWER = [
    "Здравствуйте! Ваше письмо не удалось прочитать: оно зашифровано или подписано "
    "так, что текст виден только после расшифровки (S/MIME или PGP). Поэтому ходы из него "
    "не выполнены. Письмо сохранено, ГМ получил уведомление.",
    "Пришлите ходы ещё раз обычным текстом, без шифрования.",
]


@pytest.fixture
def maniac(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    table.run(DAY_1 - timedelta(minutes=30))
    table.new_mail()
    outcomes, _mails = run(table, from_player(table, "Вася", "ГОЛОС Таня\r\n".encode()))
    assert outcomes == ["applied"]
    assert votes(table) == {"Вася": "Таня"}
    yield table
    table.close()


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def signed_mail(table: ManiacTable, der: bytes, content_type: str | None = None) -> bytes:
    """Вася's opaque-signed S/MIME mail of the CMS ``der``."""
    head, payload = smime(der) if content_type is None else smime(der, content_type)
    return from_player(table, "Вася", payload, content_type=head)


def vote_answer(table: ManiacTable, raw: bytes) -> list[str]:
    """Deliver ``raw``: asserted applied, with Вася's vote standing for Петя; his
    answer's lines."""
    outcomes, mails = run(table, raw, at=REPLY_AT)
    assert outcomes == ["applied"]
    assert votes(table) == {"Вася": "Петя"}
    return answer(mails, VASYA)


def unreadable_answer(table: ManiacTable, raw: bytes) -> list[str]:
    """Deliver ``raw``: asserted kept as unreadable, the vote for Таня standing; the
    lines of the answer to Вася."""
    outcomes, mails = run(table, raw, at=REPLY_AT)
    assert outcomes == ["unreadable"]
    assert votes(table) == {"Вася": "Таня"}
    (mail,) = [m for m in mails if m["To"] == VASYA]
    return named_body(mail, "seed-002").splitlines()


# --- PGP clear-signed (RFC 4880 §7) ----------------------------------------------------


def test_a_pgp_clear_signed_body_is_read_as_its_signed_text(maniac: ManiacTable) -> None:
    """Before: "В письме не найдено ни одной команды" (the armour line ended the text)."""
    raw = from_player(maniac, "Вася", crlf(clear_signed("ГОЛОС Петя\n\n-- \nВася") + "\n"))
    letter = read_letter(raw)
    assert (letter.text, letter.doubtful, letter.unreadable) == ("ГОЛОС Петя", (), None)
    assert vote_answer(maniac, raw) == VOTE_PETYA


def test_a_dash_escaped_line_is_read_without_its_escape(maniac: ManiacTable) -> None:
    """RFC 4880 §7.1: any line may be escaped ``- ``; ``- ГОЛОС Петя`` is ``ГОЛОС Петя``,
    and the escaped signature line ``- -- `` still ends the text."""
    raw = from_player(maniac, "Вася", crlf(clear_signed("ГОЛОС Петя\n-- \nВася", escape_all=True)))
    assert b"\r\n- \xd0\x93\xd0\x9e\xd0\x9b\xd0\x9e\xd0\xa1 " in raw  # "- ГОЛОС "
    assert read_letter(raw).text == "ГОЛОС Петя"
    assert vote_answer(maniac, raw) == VOTE_PETYA


def test_a_clear_signed_reply_with_a_quoted_old_vote_does_not_run_it(
    maniac: ManiacTable,
) -> None:
    """The client signed the whole reply, its ``>`` quote included."""
    raw = from_player(maniac, "Вася", crlf(clear_signed("ГОЛОС Петя\n\n" + QUOTE)))
    assert read_letter(raw).text == "ГОЛОС Петя"
    assert vote_answer(maniac, raw) == VOTE_PETYA


def test_a_clear_signed_old_mail_pasted_below_own_text_is_a_quote(maniac: ManiacTable) -> None:
    """A reply written above an old signed mail quoted without marks and header: the
    signed text is another mail's, read as a quote and never run."""
    old = clear_signed("ГОЛОС Таня\n\nВася")
    raw = from_player(maniac, "Вася", crlf(f"ГОЛОС Петя\n\n{old}\n"))
    letter = read_letter(raw)
    assert (letter.text, letter.doubtful) == ("ГОЛОС Петя", ())
    assert vote_answer(maniac, raw) == VOTE_PETYA


def test_a_clear_signed_block_inside_a_marked_quote_stays_a_quote() -> None:
    quoted = "\n".join(f"> {line}" for line in clear_signed("ГОЛОС Таня").split("\n"))
    raw = crlf(
        "From: vasya@example.test\nTo: gm+tok@example.test\nSubject: Re\n"
        f"Content-Type: text/plain; charset=utf-8\n\nГОЛОС Петя\n\n{QUOTE}{quoted}\n"
    )
    assert (read_letter(raw).text, read_letter(raw).doubtful) == ("ГОЛОС Петя", ())


def test_text_below_the_signature_is_the_bodys_text_and_a_key_block_is_no_separator() -> None:
    """A signature or public key block is dropped wherever it stands (it was a dashed
    separator: all below it was taken for a quote)."""
    key = (
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGc=\n=abcd\n"
        "-----END PGP PUBLIC KEY BLOCK-----"
    )
    lines = [*clear_signed("ГОЛОС Петя").split("\n"), "", key, "СТАТУС"]
    opened = open_clear_signed("\n".join(lines).split("\n"))
    assert opened == ["ГОЛОС Петя", "", "", "", "СТАТУС"]


def test_an_unsigned_armour_header_line_alone_is_read_to_the_end() -> None:
    """No signature (a phone cut it, or a client lost the blank line): the text to the
    end is the signed text."""
    lines = ["-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256", "ГОЛОС Петя", "СТАТУС"]
    assert open_clear_signed(lines) == ["ГОЛОС Петя", "СТАТУС"]


def test_a_message_signed_inside_the_signed_text_of_another_is_opened_as_a_quote() -> None:
    """Dash-escaped inside the outer one, it is seen once the outer one is opened: it
    stands below text, so it is a quote."""
    inner = clear_signed("ГОЛОС Таня")
    outer = clear_signed(f"ГОЛОС Петя\n\n{inner}")
    assert "- -----BEGIN PGP SIGNED MESSAGE-----" in outer
    assert open_clear_signed(outer.split("\n")) == ["ГОЛОС Петя", "", "> ГОЛОС Таня", "", ""]


# --- S/MIME opaque-signed (RFC 8551 §3.5.2) ---------------------------------------------


def test_an_smime_opaque_signed_mail_is_read_from_inside_its_container(
    maniac: ManiacTable,
) -> None:
    """Before: "письмо зашифровано…" (the signed text was never looked at)."""
    raw = signed_mail(maniac, signed_data(entity("ГОЛОС Петя\n")))
    letter = read_letter(raw)
    assert (letter.text, letter.unreadable, letter.from_address) == (
        "ГОЛОС Петя",
        None,
        VASYA,
    )
    assert vote_answer(maniac, raw) == VOTE_PETYA


OUTLOOK_ENTITY = (
    b'Content-Type: multipart/alternative; boundary="----=_NextPart_000_0001"\r\n\r\n'
    b'------=_NextPart_000_0001\r\nContent-Type: text/plain; charset="koi8-r"\r\n'
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\n=E7=EF=EC=EF=F3 =F0=C5=D4=D1\r\n\r\n"
    b'------=_NextPart_000_0001\r\nContent-Type: text/html; charset="koi8-r"\r\n'
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\n<html><body><p>=E7=EF=EC=EF=F3 "
    b"=F0=C5=D4=D1</p></body></html>\r\n\r\n------=_NextPart_000_0001--\r\n"
)


@pytest.mark.parametrize(
    ("der", "content_type"),
    [
        # Thunderbird: format=flowed text/plain, DER.
        (
            signed_data(entity("ГОЛОС \nПетя\n", "text/plain; charset=UTF-8; format=flowed")),
            None,
        ),
        # Outlook: BER of indefinite lengths, multipart/alternative inside, koi8-r.
        (signed_data(OUTLOOK_ENTITY, ber=True, piece=64), None),
        # OpenSSL's smime -sign -nodetach: the old x- type.
        (
            signed_data(entity("ГОЛОС Петя\n"), ber=True),
            'application/x-pkcs7-mime; smime-type=signed-data; name="smime.p7m"',
        ),
        # No smime-type: the container tells.
        (signed_data(entity("ГОЛОС Петя\n")), "application/pkcs7-mime; name=smime.p7m"),
        # A gateway's label: a .p7m file as the whole mail.
        (signed_data(entity("ГОЛОС Петя\n")), "application/octet-stream; name=smime.p7m"),
        # A base64 entity inside.
        (
            signed_data(
                b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: "
                b"base64\r\n\r\n" + base64.encodebytes("ГОЛОС Петя\r\n".encode())
            ),
            None,
        ),
    ],
    ids=["thunderbird-flowed", "outlook-ber-alternative", "x-pkcs7", "no-smime-type", "p7m-file",
         "base64-inside"],
)  # fmt: skip
def test_every_shape_of_opaque_signed_mail_is_read(
    maniac: ManiacTable, der: bytes, content_type: str | None
) -> None:
    raw = signed_mail(maniac, der, content_type)
    assert (read_letter(raw).text, read_letter(raw).unreadable) == ("ГОЛОС Петя", None)
    assert vote_answer(maniac, raw) == VOTE_PETYA


def test_an_opaque_signed_reply_with_a_quoted_old_vote_does_not_run_it(
    maniac: ManiacTable,
) -> None:
    raw = signed_mail(maniac, signed_data(entity("ГОЛОС Петя\n\n" + QUOTE)))
    assert read_letter(raw).text == "ГОЛОС Петя"
    assert vote_answer(maniac, raw) == VOTE_PETYA


def test_a_signed_mail_inside_a_signed_mail_is_read_up_to_the_bound() -> None:
    """Signed again by a gateway: opened; past :data:`MAX_SIGNED_DEPTH` levels, the mail
    is unreadable as nested too deep."""
    der = signed_data(entity("ГОЛОС Петя\n"))
    for level in range(1, MAX_SIGNED_DEPTH + 2):
        head, payload = smime(der)
        raw = b"From: vasya@example.test\r\nTo: gm+tok@example.test\r\n" + head + b"\r\n\r\n"
        letter = read_letter(raw + payload)
        expected = ("ГОЛОС Петя", "") if level <= MAX_SIGNED_DEPTH else ("", "too_deep")
        assert (letter.text, letter.unreadable_code) == expected, level
        der = signed_data(head + b"\r\n\r\n" + payload)


def test_a_signed_mail_wrapped_with_a_list_footer_is_read(maniac: ManiacTable) -> None:
    """A mailing list or gateway put the signed part into a multipart/mixed beside its
    footer: the part named ``smime.p7m`` (or not named) is opened, the footer read after
    it."""
    head, payload = smime(signed_data(entity("ГОЛОС Петя\n")))
    unnamed = head.replace(b'; name="smime.p7m"', b"").split(b"\r\n")[0]
    for part_head in (head, unnamed + b"\r\nContent-Transfer-Encoding: base64"):
        raw = from_player(
            maniac,
            "Вася",
            b"--XX\r\n" + part_head + b"\r\n\r\n" + payload + b"--XX\r\n"
            b"Content-Type: text/plain; charset=us-ascii\r\n\r\n-- \r\nGame list\r\n--XX--\r\n",
            content_type=b"Content-Type: multipart/mixed; boundary=XX",
        )
        assert (read_letter(raw).text, read_letter(raw).unreadable) == ("ГОЛОС Петя", None)
    assert vote_answer(maniac, raw) == VOTE_PETYA


def test_a_signed_p7m_file_attached_beside_the_text_is_not_opened() -> None:
    """A signed document (``договор.pdf.p7m``) is a file, not the body; a mail forwarded
    as an attachment is another's: neither is read as the sender's text."""
    document = base64.encodebytes(signed_data(entity("ГОЛОС Таня\n"))).decode()
    forwarded_head, forwarded = smime(signed_data(entity("ГОЛОС Таня\n")))
    raw = crlf(
        "From: vasya@example.test\nTo: gm+tok@example.test\nSubject: move\n"
        "Content-Type: multipart/mixed; boundary=XX\n\n--XX\n"
        "Content-Type: text/plain; charset=utf-8\n\nГОЛОС Петя\n--XX\n"
        "Content-Type: application/pkcs7-mime; smime-type=signed-data; "
        "name=dogovor.pdf.p7m\nContent-Disposition: attachment; filename=dogovor.pdf.p7m\n"
        f"Content-Transfer-Encoding: base64\n\n{document}--XX\n"
        "Content-Type: message/rfc822\n\nFrom: tanya@example.test\n"
        f"{forwarded_head.decode()}\n\n{forwarded.decode()}--XX--\n"
    )
    letter = read_letter(raw)
    assert (letter.text, letter.forwarded, letter.unreadable) == ("ГОЛОС Петя", True, None)


def test_the_signed_text_is_shown_to_a_person() -> None:
    """``pbp mailbox`` shows the text inside the container."""
    head, payload = smime(signed_data(entity("ГОЛОС Петя\n\n> ГОЛОС Таня\n")))
    raw = b"From: vasya@example.test\r\n" + head + b"\r\n\r\n" + payload
    assert shown_text(raw) == "ГОЛОС Петя\n\n> ГОЛОС Таня\n"


# --- only encrypted mail stays unreadable ------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [
        'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
        # Labelled signed, but the container holds enveloped data.
        'application/pkcs7-mime; smime-type=signed-data; name="smime.p7m"',
        "application/pkcs7-mime; name=smime.p7m",
    ],
    ids=["enveloped", "mislabelled-signed", "unlabelled"],
)
def test_an_enveloped_data_mail_still_gets_the_encrypted_answer(
    maniac: ManiacTable, content_type: str
) -> None:
    raw = signed_mail(maniac, enveloped_data(), content_type)
    assert read_letter(raw).unreadable_code == "encrypted"
    assert unreadable_answer(maniac, raw) == ENCRYPTED_ANSWER


def test_signed_then_encrypted_then_signed_gets_the_encrypted_answer(maniac: ManiacTable) -> None:
    """RFC 8551 §3.7 triple wrapping: the outer signature opened, the encrypted middle
    not."""
    head, payload = smime(enveloped_data(), "application/pkcs7-mime; smime-type=enveloped-data")
    raw = signed_mail(maniac, signed_data(head + b"\r\n\r\n" + payload))
    assert unreadable_answer(maniac, raw) == ENCRYPTED_ANSWER


def test_an_inline_pgp_encrypted_body_gets_the_encrypted_answer(maniac: ManiacTable) -> None:
    """``-----BEGIN PGP MESSAGE-----`` (Enigmail's inline PGP, Mailvelope pasted): its
    armour line was a dashed separator, and he was told his mail held no command."""
    armour = "-----BEGIN PGP MESSAGE-----\n\nhQEMA5i3pOmGfYq1\n=ab\n-----END PGP MESSAGE-----"
    raw = from_player(maniac, "Вася", crlf(f"\n{armour}\n"))
    letter = read_letter(raw)
    assert (letter.unreadable_code, letter.doubtful) == ("encrypted", ())
    assert unreadable_answer(maniac, raw) == ENCRYPTED_ANSWER


# --- hostile containers ---------------------------------------------------------------

GOOD = signed_data(entity("ГОЛОС Петя\n"))
_AT_CONTENT = GOOD.index(b"Content-Type")  # after the eContent's two header bytes
_OID_SIGNED = bytes.fromhex("06092a864886f70d010702")
_OID_DATA = bytes.fromhex("06092a864886f70d010701")


def _tiny_pieces(count: int) -> bytes:
    """A signed container whose content is ``count`` one-byte pieces (BER)."""
    pieces = b"\x04\x01\n" * count
    encapsulated = b"\x30\x80" + _OID_DATA + b"\xa0\x80\x24\x80" + pieces + b"\x00" * 6
    signed = b"\x30\x80\x02\x01\x01\x31\x00" + encapsulated + b"\x31\x00\x00\x00"
    return b"\x30\x80" + _OID_SIGNED + b"\xa0\x80" + signed + b"\x00" * 4


def _nested_pieces(depth: int, *, definite: bool = False) -> bytes:
    """A signed container whose content is pieces nested ``depth`` deep (BER), of
    indefinite lengths or (``definite``) of definite ones but the outermost (asn1crypto
    reads a constructed string of indefinite length only)."""
    pieces = b"\x04\x01a"
    if not definite:
        pieces = b"\x24\x80" * depth + pieces + b"\x00\x00" * depth
    else:
        for _ in range(depth - 1):
            pieces = b"\x24\x84" + len(pieces).to_bytes(4, "big") + pieces
        pieces = b"\x24\x80" + pieces + b"\x00\x00"
    encapsulated = b"\x30\x80" + _OID_DATA + b"\xa0\x80" + pieces + b"\x00" * 4
    signed = b"\x30\x80\x02\x01\x01\x31\x00" + encapsulated + b"\x31\x00\x00\x00"
    return b"\x30\x80" + _OID_SIGNED + b"\xa0\x80" + signed + b"\x00" * 4


def detached() -> bytes:
    """A ``SignedData`` without its content (a detached signature, RFC 5652 §5.2)."""
    signed = cms.SignedData(
        {
            "version": "v1",
            "digest_algorithms": [],
            "encap_content_info": {"content_type": "data"},
            "signer_infos": [],
        }
    )
    return bytes(cms.ContentInfo({"content_type": "signed_data", "content": signed}).dump())


def _signed_deep(levels: int) -> bytes:
    der = GOOD
    for _ in range(levels):
        head, payload = smime(der)
        der = signed_data(head + b"\r\n\r\n" + payload)
    return der


HOSTILE = {
    "truncated": (GOOD[: len(GOOD) // 2], "body_error"),
    "huge-outer-length": (b"\x30\x84\xff\xff\xff\xff" + GOOD[2:], "body_error"),
    "huge-content-length": (
        GOOD[: _AT_CONTENT - 2] + b"\x04\x84\x7f\xff\xff\xff" + GOOD[_AT_CONTENT:],
        "body_error",
    ),
    "length-of-9-octets": (b"\x30\x89" + b"\xff" * 9 + GOOD[4:], "body_error"),
    "garbage": (b"\xff" * 3000, "body_error"),
    "empty": (b"", "body_error"),
    "indefinite-nested-deep": (
        b"\x30\x80" + _OID_SIGNED + b"\xa0\x80" + b"\x30\x80" * 5000 + b"\x00\x00" * 5002,
        "body_error",
    ),
    "pieces-nested-deep": (_nested_pieces(2000), "body_error"),
    "definite-pieces-nested-deep": (_nested_pieces(2000, definite=True), "body_error"),
    "pieces-unended": (_tiny_pieces(10)[:-10], "body_error"),
    "signed-nested-deep": (_signed_deep(6), "too_deep"),
    "detached": (detached(), "body_error"),
}


@pytest.mark.parametrize(("der", "code"), HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_signed_container_is_kept_and_answered_within_the_budget(
    maniac: ManiacTable, der: bytes, code: str
) -> None:
    """Truncated, lengths past the end, nested deep: read in well under the budget,
    unreadable with the GM told why, the sender answered; no traceback."""
    raw = signed_mail(maniac, der)
    started = time.thread_time()
    letter = read_letter(raw)
    assert time.thread_time() - started < 0.5
    assert (letter.text, letter.unreadable_code) == ("", code)
    assert letter.unreadable is not None and "Traceback" not in letter.unreadable
    lines = unreadable_answer(maniac, raw)
    assert lines[0].startswith("Здравствуйте! Ваше письмо не удалось прочитать: ")
    (kept,) = maniac.store.kept()
    assert kept.reason == f"unreadable: {letter.unreadable}"


def test_a_body_error_container_is_answered_in_the_players_words(maniac: ManiacTable) -> None:
    assert unreadable_answer(maniac, signed_mail(maniac, GOOD[:100])) == [
        "Здравствуйте! Ваше письмо не удалось прочитать: его текст не удалось разобрать. "
        "Поэтому ходы из него не выполнены. Письмо сохранено, ГМ получил уведомление.",
        "Пришлите ходы ещё раз обычным текстом.",
    ]


def test_a_megabyte_of_one_byte_pieces_is_read_in_linear_time() -> None:
    """asn1crypto builds an object of each piece (4 s for this); the pieces are read by
    :func:`octet_pieces` instead."""
    der = _tiny_pieces(330_000)  # a mail of some 1.3 MB
    head, payload = smime(der)
    raw = b"From: vasya@example.test\r\nTo: gm+tok@example.test\r\n" + head + b"\r\n\r\n"
    started = time.thread_time()
    letter = read_letter(raw + payload)
    assert time.thread_time() - started < 3.0
    assert (letter.text, letter.unreadable_code) == ("", "")
    assert octet_pieces(b"\x04\x01a" * 3 + b"\x24\x80\x04\x01b\x00\x00") == b"aaab"


def test_over_max_signed_parts_is_too_many_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(smime_module, "MAX_SIGNED_PARTS", 1)
    head, payload = smime(GOOD)
    part = head + b"\r\n\r\n" + payload
    raw = (
        b"From: vasya@example.test\r\nTo: gm+tok@example.test\r\n"
        b"Content-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\n"
        + part
        + b"\r\n--XX\r\n"
        + part
        + b"\r\n--XX--\r\n"
    )
    letter = read_letter(raw)
    assert (letter.unreadable, letter.unreadable_code) == (
        "over 1 signed S/MIME parts",
        "too_many_parts",
    )
