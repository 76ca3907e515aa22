"""The simple plain-text reader (:mod:`pbp.mail.read.simple`, issue 18): which mails it
reads, and that what it reads is the full reader's letter, byte for byte."""

from __future__ import annotations

import pytest

from pbp.mail.read.mime import Letter, read_letter
from pbp.mail.read.simple import read_simple

HEAD = (
    b"Return-Path: <lev@example.test>\r\n"
    b"Delivered-To: gm+k3x9@example.test\r\n"
    b"From: =?utf-8?b?0JvQtdCy?= <lev@example.test>\r\n"
    b"To: gm+k3x9@example.test\r\n"
    b"Subject: Re: [m-1] =?utf-8?b?0YXQvtC0?=\r\n"
    b"Date: Tue, 01 Dec 2026 10:00:00 +0300\r\n"
    b"Message-ID: <x1@example.test>\r\n"
    b"In-Reply-To: <pbp-1@example.test>\r\n"
    b"MIME-Version: 1.0\r\n"
)
VOTE = "ГОЛОС за Павла\n\nОтправлено с iPhone\n\n> старое письмо\n".encode()


def _read(raw: bytes) -> tuple[Letter | None, Letter]:
    head = read_letter(raw, body=False)
    return read_simple(raw, head), read_letter(raw, head=head, simple=False)


@pytest.mark.parametrize(
    ("fields", "body"),
    [
        # A phone's reply: UTF-8, 8bit.
        (b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n", VOTE),
        # iOS Mail: quoted-printable, the charset quoted and in capitals.
        (
            b'Content-Type: text/plain;\r\n\tcharset="UTF-8"\r\n'
            b"Content-Transfer-Encoding: quoted-printable\r\n",
            b"=D0=93=D0=9E=D0=9B=D0=9E=D0=A1 =D0=B7=D0=B0 =D0=9F=D0=B0=D0=B2=D0=BB=D0=B0\r\n",
        ),
        # Thunderbird: format=flowed, a soft line break joined.
        (
            b"Content-Type: text/plain; charset=UTF-8; format=flowed\r\n"
            b"Content-Transfer-Encoding: 8bit\r\n",
            "ГОЛОС за \r\nПавла\r\n".encode(),
        ),
        # An old client: KOI8-R, declared.
        (b"Content-Type: text/plain; charset=koi8-r\r\n", "ГОЛОС за Павла\r\n".encode("koi8-r")),
        # No Content-Type at all, windows-1251 bytes: the charset guessed.
        (b"", "ГОЛОС за Павла\r\n".encode("cp1251")),
    ],
)
def test_the_simple_reader_reads_a_plain_mail_as_the_full_reader(
    fields: bytes, body: bytes
) -> None:
    simple, full = _read(HEAD + fields + b"\r\n" + body)
    assert simple is not None
    assert simple == full
    assert simple.text.splitlines()[0] == "ГОЛОС за Павла"


def test_the_simple_reader_keeps_quoted_lines_doubtful_as_the_full_reader() -> None:
    fields = b"Content-Type: text/plain; charset=utf-8\r\n"
    simple, full = _read(HEAD + fields + b"\r\n" + VOTE)
    assert simple == full
    assert simple is not None and simple.text == "ГОЛОС за Павла"
    assert simple.automatic is False and simple.forwarded is False


@pytest.mark.parametrize(
    "fields",
    [
        b"Content-Type: multipart/alternative; boundary=zz\r\n",
        b"Content-Type: text/html; charset=utf-8\r\n",
        b"Content-Type: text/plain; charset=utf-8; name=note.txt\r\n",  # another parameter
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Type: text/html\r\n",
        b"Content-Transfer-Encoding: base64\r\n",
        b"Content-Transfer-Encoding: x-uuencode\r\n",
        b"Auto-Submitted: auto-replied\r\n",  # RFC 3834: the full reader says automatic
        b"Precedence: bulk\r\n",
        b"List-Id: <players.example.test>\r\n",
        b"Return-Path: <>\r\n",
        b"Content-Type: =?utf-8?q?text/plain?=\r\n",
        b"Not a header line\r\n",
        b"X-Note: a lone CR\rhere\r\n",
    ],
)
def test_the_simple_reader_leaves_anything_unusual_to_the_full_reader(fields: bytes) -> None:
    raw = HEAD + fields + b"\r\n" + VOTE
    simple, full = _read(raw)
    assert simple is None
    head = read_letter(raw, body=False)
    assert read_letter(raw, head=head) == full


def test_a_vacation_reply_or_a_bounce_is_left_to_the_full_reader() -> None:
    vacation = HEAD.replace(b"Re: [m-1]", b"Automatic reply:") + b"\r\n" + VOTE
    bounce = HEAD.replace(b"<lev@example.test>\r\nTo", b"<MAILER-DAEMON@example.test>\r\nTo")
    for raw in (vacation, bounce + b"\r\n" + VOTE):
        simple, full = _read(raw)
        assert simple is None
        assert full.automatic is True


@pytest.mark.parametrize(
    "encoding",
    [
        b"Content-Transfer-Encoding: quoted-printable \r\n",  # a blank after the value
        b"Content-Transfer-Encoding:\r\n quoted-printable\r\n",  # folded onto the next line
        b"Content-Transfer-Encoding: quoted-printable\x0c\r\n",
    ],
)
def test_a_transfer_encoding_the_standard_library_does_not_undo_is_left_to_it(
    encoding: bytes,
) -> None:
    # get_payload compares the value unstripped: the body is not decoded there, and
    # must not be here.
    raw = HEAD + encoding + b"\r\nVOTE=20x=3D\r\n"
    simple, full = _read(raw)
    assert simple is None
    assert full.text == "VOTE=20x=3D"
    assert read_letter(raw, head=read_letter(raw, body=False)) == full


@pytest.mark.parametrize(
    "path", [b"<\x1c>", b"\x1f<>", b"< \x1e >", b"<>\x1d"], ids=["1c", "1f", "1e", "1d"]
)
def test_a_null_return_path_with_a_control_byte_is_left_to_the_full_reader(path: bytes) -> None:
    # To the full reader's text pattern \x1c-\x1f are white space: a null path, so
    # automatic mail, never answered.
    raw = HEAD.replace(b"Return-Path: <lev@example.test>", b"Return-Path: " + path) + b"\r\n" + VOTE
    simple, full = _read(raw)
    assert simple is None
    assert full.automatic is True
    assert read_letter(raw, head=read_letter(raw, body=False)) == full


@pytest.mark.parametrize("disposition", [b"inline; filename*", b"attachment;name*", b";filename*"])
def test_a_disposition_the_standard_library_cannot_parse_is_left_to_the_full_reader(
    disposition: bytes,
) -> None:
    # The standard library's parser raises IndexError on these parameters: the full
    # reader cannot read the body and says so; the fast path must not read a move.
    raw = HEAD + b"Content-Disposition: " + disposition + b"\r\n\r\n" + VOTE
    simple, full = _read(raw)
    assert simple is None
    assert full.unreadable_code == "body_error"
    assert full.text == ""
    assert read_letter(raw, head=read_letter(raw, body=False)) == full


@pytest.mark.parametrize("disposition", [b"inline", b"Attachment \t"])
def test_a_bare_disposition_is_read_by_the_simple_reader(disposition: bytes) -> None:
    simple, full = _read(HEAD + b"Content-Disposition: " + disposition + b"\r\n\r\n" + VOTE)
    assert simple is not None
    assert simple == full
    assert simple.text == "ГОЛОС за Павла"


@pytest.mark.parametrize("charset", [b"undefined", b"x-undefined", b'"UNDEFINED"'])
def test_a_charset_whose_codec_always_fails_is_guessed_by_both_readers(charset: bytes) -> None:
    # Python's "undefined" codec raises a plain UnicodeError on any byte: the charset is
    # then taken as unknown and guessed (UTF-8 here), by either reader alike.
    fields = b"Content-Type: text/plain; charset=" + charset + b"\r\n"
    raw = HEAD + fields + b"Content-Transfer-Encoding: 8bit\r\n\r\n" + VOTE
    simple, full = _read(raw)
    assert simple == full
    assert full.unreadable is None
    assert full.text == "ГОЛОС за Павла"
