"""Hostile mail bodies (issue 12, item 1): the shapes that an attacker, or a broken
client, sends to make reading a mail slow — each built at any size, from a player of
seed 002's Maniac game (:mod:`kits.maniac_table`) or from a stranger.

Every shape carries the move ``СТАТУС`` before its filler, so that a test can check
that the move is still read. Used by ``tests/test_hostile_bodies.py``,
``tests/test_fuzz_mail.py`` and ``benchmarks/hostile.py``.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

MOVE = "СТАТУС"
PLAYER = "vasya@example.test"
STRANGER = "stranger@example.test"
PLAIN = b"Content-Type: text/plain; charset=utf-8"
HTML = b"Content-Type: text/html; charset=utf-8"


def head(sender: str, to: str = "gm+tok@example.test") -> bytes:
    """The header block (without the content headers) of a mail from ``sender``."""
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: move\r\n"
        "Message-ID: <hostile@example.test>\r\nMIME-Version: 1.0\r\n"
    ).encode()


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit.encode()))


@dataclass(frozen=True)
class Shape:
    """One hostile body.

    - ``name``: what it is (``"blank_lines"``);
    - ``content``: its content headers (``Content-Type`` …, CRLF-separated);
    - ``body``: the body (bytes as sent) of about ``size`` bytes;
    - ``text``: :attr:`pbp.mail.read.mime.Letter.text` expected of it, or None when only
      its first line is known (``first``);
    - ``code``: the :attr:`~pbp.mail.read.mime.Letter.unreadable_code` expected (``""``:
      read).
    """

    name: str
    content: bytes
    body: Callable[[int], bytes]
    text: str | None = MOVE
    first: str = MOVE
    code: str = ""

    def raw(self, size: int, sender: str = PLAYER, to: str = "gm+tok@example.test") -> bytes:
        """The whole mail, about ``size`` bytes, from ``sender`` to ``to``."""
        top = head(sender, to) + self.content + b"\r\n\r\n"
        return top + self.body(max(0, size - len(top)))


def _plain(
    name: str, unit: str, text: str | None = MOVE, first: str = MOVE, code: str = ""
) -> Shape:
    """``MOVE`` and then ``unit`` again and again, as text/plain."""
    return Shape(
        name, PLAIN, lambda n: (MOVE + "\n" + _repeat(unit, n)).encode(), text, first, code
    )


def _html(name: str, unit: str, text: str | None = MOVE) -> Shape:
    """``<p>MOVE</p>`` and then ``unit`` again and again, as text/html."""
    return Shape(name, HTML, lambda n: (f"<p>{MOVE}</p>" + _repeat(unit, n)).encode(), text)


def _b64_blank(size: int) -> bytes:
    return base64.encodebytes((MOVE + "\n" + "\n" * (size * 3 // 4)).encode())


def _qp_soft(size: int) -> bytes:
    return f"{MOVE}\r\n".encode() + b"=\r\n" * (size // 3)


def _flowed(size: int) -> bytes:
    return (MOVE + "\n" + _repeat("word ", size - 20) + "\nend\n").encode()


def _nested_rfc822(size: int) -> bytes:
    level = b"Content-Type: message/rfc822\r\n\r\nFrom: a@example.test\r\n"
    inner = b"Content-Type: text/plain\r\n\r\n" + MOVE.encode() + b"\r\n"
    return level * max(1, size // len(level)) + inner


#: Levels of :func:`_nested_multipart`: below ``MAX_BOUNDARY_LINES`` (never closed, one
#: boundary line a level), so that the nesting, not the count of parts, is refused.
MULTIPART_LEVELS = 990


def _nested_multipart(size: int) -> bytes:
    levels = [
        f"--b{i}\r\nContent-Type: multipart/mixed; boundary=b{i + 1}\r\n\r\n"
        for i in range(MULTIPART_LEVELS)
    ]
    inner = f"--b{len(levels)}\r\nContent-Type: text/plain\r\n\r\n{MOVE}\r\n"
    data = "".join(levels) + inner
    return (data + "x" * max(0, size - len(data))).encode()


#: The armour header line of an inline PGP clear-signed text (RFC 4880 §7).
_PGP_SIGNED = "-----BEGIN PGP SIGNED MESSAGE-----\n"
SMIME = (
    b"Content-Type: application/pkcs7-mime; smime-type=signed-data; name=smime.p7m\r\n"
    b"Content-Transfer-Encoding: base64"
)
#: DER of the object identifiers id-signedData and id-data (RFC 5652 §5.1, §4).
_ID_SIGNED_DATA = bytes.fromhex("06092a864886f70d010702")
_ID_DATA = bytes.fromhex("06092a864886f70d010701")


def _smime_pieces(size: int) -> bytes:
    """An S/MIME opaque-signed body (RFC 8551 §3.5.2) whose signed entity, a text/plain
    ``MOVE`` and blank lines, is written in one-byte pieces of a constructed OCTET
    STRING (BER, X.690 §8.7.3), inside containers of indefinite length."""
    entity = f"Content-Type: text/plain; charset=utf-8\r\n\r\n{MOVE}\r\n".encode()
    pieces = b"".join(b"\x04\x01" + bytes([byte]) for byte in entity)
    pieces += b"\x04\x01\n" * max(0, (size * 3 // 4) // 3 - len(entity))
    encapsulated = b"\x30\x80" + _ID_DATA + b"\xa0\x80\x24\x80" + pieces + b"\x00" * 6
    signed = b"\x30\x80\x02\x01\x01\x31\x00" + encapsulated + b"\x31\x00\x00\x00"
    der = b"\x30\x80" + _ID_SIGNED_DATA + b"\xa0\x80" + signed + b"\x00" * 4
    return base64.encodebytes(der)


SHAPES: list[Shape] = [
    # Plain text: white space, runs and long lines.
    _plain("blank_lines", "\n"),
    _plain("space_newline", " \n"),
    _plain("crlf_blank", "\r\n"),
    _plain("cr_runs", "\r"),
    _plain("tabs", "\t"),
    _plain("spaces_then_word", " ", text=None),
    _plain("long_line_no_space", "a", text=None),
    _plain("long_line_of_words", "word ", text=None),
    _plain("chat_lines", "Привет всем, как дела у вас сегодня\n", text=None),
    _plain("misspelt_commands", "Голсо Петя\n", text=None),
    _plain("commands", "ГОЛОС Петя\n", text=None),
    _plain("nul_bytes", "\x00", text=None),
    _plain("control_bytes", "\x01\x02\x1b\x7f", text=None),
    # Quotes, separators, signatures.
    _plain("quote_markers_spaced", "> "),
    _plain("quote_markers", ">"),
    _plain("deep_quoted_lines", ">" * 40 + " ГОЛОС Петя\n"),
    _plain("original_message_lines", " -----Original Message-----\n"),
    _plain("forwarded_message_lines", " ---------- Forwarded message ---------\n"),
    _plain("signature_separators", "-- \n", text="", code="too_many_parts", first=""),
    _plain("attribution_lines", "On Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:\n"),
    _plain("outlook_from_lines", "From: x\n", text=None),
    _plain("client_footers", "Sent from my iPhone\n", text=None),
    _plain("underscore_lines", "________\n", text=None),
    _plain("underscore_dash_lines", "_\n-\n", text=None),
    _plain("forum_quote_opens", "[quote=", text=None),
    _plain("forum_quotes", "[quote]x[/quote]", text=None),
    # Forum posts pasted as text (issue 33): headers alone (nested, never ended), and
    # whole quotes one after the other.
    _plain("forum_said_headers", "Оля сказал(а):\n"),
    _plain("forum_said_quotes", "Оля сказал(а):\nГОЛОС Петя\nНажмите для раскрытия...\n"),
    # Transfer encodings and format=flowed.
    Shape(
        "quoted_printable_soft_breaks",
        PLAIN + b"\r\nContent-Transfer-Encoding: quoted-printable",
        _qp_soft,
    ),
    Shape("base64_blank_lines", PLAIN + b"\r\nContent-Transfer-Encoding: base64", _b64_blank),
    Shape("flowed_soft_breaks", PLAIN + b"; format=flowed", _flowed, text=None),
    Shape(
        "flowed_blank_lines",
        PLAIN + b"; format=flowed",
        lambda n: (MOVE + "\n" + _repeat(" \n", n)).encode(),
    ),
    # HTML.
    _html("html_br", "<br>"),
    _html("html_nested_div", "<div>"),
    _html("html_paragraphs", "<p>"),
    _html("html_nested_blockquote", "<blockquote>"),
    _html("html_nested_table", "<table><tr><td>"),
    _html("html_nested_lists", "<ul><li>x", text=None),
    _html("html_unclosed_tags", "<b", text=None),
    _html("html_lt_runs", "<", text=None),
    _html("html_nbsp", "&nbsp;"),
    _html("html_nested_gmail_quote", '<div class="gmail_quote">'),
    Shape(
        "html_style_block", HTML, lambda n: f"<style>{_repeat('a{b:c}', n)}</style>{MOVE}".encode()
    ),
    Shape("html_comment", HTML, lambda n: f"<!--{_repeat('x', n)}-->{MOVE}".encode()),
    _html("html_comment_opens", "<!--"),
    _html("html_comments", "<!--x-->"),
    Shape("html_cr_runs", HTML, lambda n: (f"<p>{MOVE}</p>" + "\r" * n).encode()),
    # MIME nesting (item 9).
    Shape("nested_rfc822", b"Content-Type: message/rfc822", _nested_rfc822, "", "", "too_deep"),
    Shape(
        "nested_multipart",
        b"Content-Type: multipart/mixed; boundary=b0",
        _nested_multipart,
        "",
        "",
        "too_deep",
    ),
    # Signed mail (issue 33): PGP armour lines, S/MIME in tiny pieces.
    Shape(
        "pgp_dash_escaped_lines",
        PLAIN,
        lambda n: (_PGP_SIGNED + "Hash: SHA256\n\n" + MOVE + "\n" + _repeat("- \n", n)).encode(),
    ),
    # Lines starting with "--" are counted as MIME boundaries (MAX_BOUNDARY_LINES).
    _plain("pgp_signed_armour_lines", _PGP_SIGNED, text="", first="", code="too_many_parts"),
    _plain(
        "pgp_signature_lines",
        "-----BEGIN PGP SIGNATURE-----\n",
        text="",
        first="",
        code="too_many_parts",
    ),
    Shape("smime_one_byte_pieces", SMIME, _smime_pieces),
]
BY_NAME = {shape.name: shape for shape in SHAPES}
