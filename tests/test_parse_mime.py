"""read_letter / find_token on raw messages as real clients send them (DESIGN.md, parse).

Every message is built here as bytes: Gmail, Outlook, Yandex, Mail.ru and Thunderbird
shapes, legacy Russian charsets, broken headers. Addresses are ``example.test``.
"""

from __future__ import annotations

import base64
import quopri
import random
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from pbp.mail.base import header_section
from pbp.mail.read.body import new_text
from pbp.mail.read.charset import decode_bytes
from pbp.mail.read.echo import strip_echo
from pbp.mail.read.flowed import unflow
from pbp.mail.read.headers import HEADER_LIMIT, cap, mailboxes
from pbp.mail.read.mime import MAX_TOKENS, Letter, find_token, find_tokens, read_letter


def mail(headers: list[str], body: bytes | str = b"", *, crlf: bool = True) -> bytes:
    """A raw message: header lines (str, UTF-8 where 8-bit), a blank line, ``body``."""
    nl = b"\r\n" if crlf else b"\n"
    head = nl.join(h.encode("utf-8") for h in headers)
    data = body.encode("utf-8") if isinstance(body, str) else body
    if isinstance(body, str) and crlf:
        data = data.replace(b"\n", b"\r\n")
    return head + nl + nl + data


BASIC = [
    "From: Неташка <netashka@example.test>",
    "To: gm+k3x9@example.test",
    "Subject: Re: Ваш ход",
]


# --- headers ---


def test_headers_of_an_ordinary_reply() -> None:
    raw = mail(
        [
            "Return-Path: <netashka@example.test>",
            "Delivered-To: gm+k3x9@example.test",
            "X-Original-To: gm+k3x9@example.test",
            'From: "=?utf-8?B?0J3QtdGC0LDRiNC60LA=?=" <Netashka@Example.TEST>',
            "To: GM <GM+K3X9@example.test>, =?utf-8?Q?=D0=92=D0=B5=D1=82=D0=B0=D0=BB=D1=8C?="
            " <vetal@example.test>",
            "Cc: vetal@example.test, Дуг <dug@example.test>",
            "Subject: =?utf-8?B?UmU6INCf0YDQtdC00L/QvtC70L7QttC10L3QuNC1?=",
            "Message-ID: <move-1@example.test>",
            "In-Reply-To: <hand-1@gm.example.test>",
            "References: <hand-1@gm.example.test>\r\n <hand-2@gm.example.test>",
            "Date: Tue, 1 Dec 2026 21:15:00 +0300",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ],
        "REFUTE 7 нож\n",
    )
    assert read_letter(raw) == Letter(
        message_id="<move-1@example.test>",
        from_address="netashka@example.test",
        from_name="Неташка",
        recipients=("gm+k3x9@example.test", "vetal@example.test", "dug@example.test"),
        subject="Re: Предположение",
        text="REFUTE 7 нож",
        in_reply_to="<hand-1@gm.example.test>",
        references=("<hand-1@gm.example.test>", "<hand-2@gm.example.test>"),
        automatic=False,
        date=datetime(2026, 12, 1, 21, 15, tzinfo=timezone(timedelta(hours=3))),
        unreadable=None,
    )


def test_raw_8bit_utf8_and_cp1251_headers_do_not_crash() -> None:
    raw = (
        b"From: \xd0\x92\xd0\xb5\xd1\x82\xd0\xb0\xd0\xbb\xd1\x8c <vetal@example.test>\r\n"
        b"To: gm+k3x9@example.test\r\n"
        b"Subject: \xcf\xf0\xe5\xe4\xef\xee\xeb\xee\xe6\xe5\xed\xe8\xe5\r\n"
        b"\r\n"
        b"STATUS\r\n"
    )
    letter = read_letter(raw)
    assert (letter.from_name, letter.from_address) == ("Веталь", "vetal@example.test")
    assert letter.subject == "Предположение"
    assert letter.text == "STATUS"
    assert letter.unreadable is None


def test_broken_encoded_word_subject_keeps_what_can_be_read() -> None:
    raw = mail(
        [
            "From: vetal@example.test",
            "Subject: =?utf-8?B?0J/RgNC40LLQtdG?= =?x-unknown?Q?abc?= end",
        ],
        "HELP\n",
    )
    letter = read_letter(raw)
    # RFC 2047 §6.2: the space between two encoded-words is not part of the text.
    assert letter.subject == "Приве\ufffdabc end"
    assert letter.text == "HELP"


def test_missing_from_and_date_in_utc_without_zone() -> None:
    letter = read_letter(mail(["Date: Tue, 1 Dec 2026 21:15:00 -0000"], "STATUS"))
    assert letter.from_address is None
    assert letter.date == datetime(2026, 12, 1, 21, 15, tzinfo=UTC)
    assert read_letter(mail(["Date: someday"], "x")).date is None


def test_message_id_without_brackets_is_kept_as_written() -> None:
    assert read_letter(mail(["Message-ID: abc@example.test"], "x")).message_id == "abc@example.test"


# --- personal tokens ---


def test_find_token_plus_prefers_the_envelope_recipient() -> None:
    raw = mail(
        [
            "Delivered-To: gm+envelope1@example.test",
            "From: vetal@example.test",
            "To: gm+header2@example.test, other+zzz@example.test",
        ]
    )
    letter = read_letter(raw)
    assert letter.recipients == (
        "gm+envelope1@example.test",
        "gm+header2@example.test",
        "other+zzz@example.test",
    )
    assert find_token(letter, "GM@Example.test", "plus") == "envelope1"
    assert find_token(letter, "other@example.test", "plus") == "zzz"
    assert find_token(letter, "nobody@example.test", "plus") is None


def test_find_token_ignores_malformed_tokens_and_reads_subject_tags() -> None:
    letter = Letter(recipients=("gm+bad-token@example.test",), subject="Re: ход [pbp-K3x9] ")
    assert find_token(letter, "gm@example.test", "plus") is None
    assert find_token(letter, "gm@example.test", "subject_tag") == "k3x9"
    assert find_token(Letter(subject="Re: ход"), "gm@example.test", "subject_tag") is None
    with pytest.raises(ValueError):
        find_token(letter, "gm@example.test", "header")  # type: ignore[arg-type]


def test_find_tokens_reads_at_most_sixteen_tokens_of_a_mail() -> None:
    """Each token costs a store lookup: a stranger's mail to 2,000 ``gm+random@``
    recipients gives the first 16, in order, each once."""
    spam = (f"gm+t{n}@example.test" for n in range(2000))
    recipients = ("gm+first@example.test", "gm+first@example.test", *spam)
    expected = ["first", *(f"t{n}" for n in range(15))]
    assert MAX_TOKENS == 16
    assert find_tokens(Letter(recipients=recipients), "gm@example.test", "plus") == expected
    subject = "".join(f"[pbp-t{n}]" for n in range(40))
    tags = find_tokens(Letter(subject=subject), "gm@example.test", "subject_tag")
    assert tags == [f"t{n}" for n in range(16)]


# --- RFC 3834: automatic mail ---


@pytest.mark.parametrize(
    ("header", "automatic"),
    [
        ("Auto-Submitted: auto-replied", True),
        ("Auto-Submitted: auto-generated (vacation)", True),
        ("Auto-Submitted: no", False),
        ("Precedence: bulk", True),
        ("Precedence: junk", True),
        ("Precedence: list", True),
        ("Precedence: first-class", False),
        ("List-Id: <players.example.test>", True),
        ("Return-Path: <>", True),
        ("Return-Path: <netashka@example.test>", False),
        ("X-Autoreply: yes", True),
        ("X-Autorespond: Out of office", True),
        ("X-Mailer: Thunderbird", False),
    ],
)
def test_automatic_mail_is_recognised(header: str, automatic: bool) -> None:
    assert read_letter(mail([*BASIC, header], "STATUS")).automatic is automatic


def test_delivery_status_report_is_automatic() -> None:
    raw = mail(
        [
            "From: MAILER-DAEMON@example.test",
            "To: gm@example.test",
            "Subject: Undelivered Mail Returned to Sender",
            'Content-Type: multipart/report; report-type=delivery-status; boundary="r"',
        ],
        "--r\n"
        "Content-Type: text/plain\n\n"
        "Your message could not be delivered.\n"
        "--r\n"
        "Content-Type: message/delivery-status\n\n"
        "Reporting-MTA: dns; mx.example.test\n\n"
        "Final-Recipient: rfc822; vetal@example.test\nAction: failed\nStatus: 5.1.1\n"
        "--r--\n",
    )
    letter = read_letter(raw)
    assert letter.automatic is True
    assert letter.text == "Your message could not be delivered."


# --- bodies from real clients ---


def test_gmail_multipart_alternative_reply_uses_the_plain_part_without_the_quote() -> None:
    raw = mail(
        [*BASIC, "MIME-Version: 1.0", 'Content-Type: multipart/alternative; boundary="000"'],
        "--000\n"
        'Content-Type: text/plain; charset="UTF-8"\n'
        "Content-Transfer-Encoding: base64\n\n"
        + base64.encodebytes(
            "REFUTE 7 нож\n\n"
            "On Tue, 1 Dec 2026 at 20:00, GM <\n"
            "gm+k3x9@example.test> wrote:\n\n"
            "> SUGGEST Краснова, нож, кухня TO Неташка\n"
            ">\n".encode()
        ).decode()
        + "--000\n"
        'Content-Type: text/html; charset="UTF-8"\n\n'
        '<div dir="ltr">REFUTE 7 нож</div><br><div class="gmail_quote">'
        '<div dir="ltr" class="gmail_attr">On Tue, 1 Dec 2026 at 20:00, GM &lt;'
        '<a href="mailto:gm+k3x9@example.test">gm+k3x9@example.test</a>&gt; wrote:<br></div>'
        '<blockquote class="gmail_quote">SUGGEST Краснова, нож, кухня TO Неташка</blockquote>'
        "</div>\n"
        "--000--\n",
    )
    assert read_letter(raw).text == "REFUTE 7 нож"


def test_gmail_html_only_falls_back_when_the_plain_part_is_empty() -> None:
    raw = mail(
        [*BASIC, 'Content-Type: multipart/alternative; boundary="000"'],
        "--000\n"
        'Content-Type: text/plain; charset="UTF-8"\n\n'
        "\n"
        "--000\n"
        'Content-Type: text/html; charset="UTF-8"\n\n'
        '<div dir="ltr"><b>SUGGEST</b> Краснова,&nbsp;нож, кухня TO Веталь<br>'
        "1. STATUS<br>-- <br>"
        '<div class="gmail_signature">Неташка, игрок</div></div>'
        '<div class="gmail_quote"><div class="gmail_attr">пн, 1 дек. 2026 г. в 10:00, GM '
        "&lt;gm@example.test&gt;:</div><blockquote>old</blockquote></div>\n"
        "--000--\n",
    )
    assert read_letter(raw).text == "SUGGEST Краснова, нож, кухня TO Веталь\n1. STATUS"


def test_html_blockquote_between_new_text_is_dropped_alone() -> None:
    raw = mail(
        [*BASIC, "Content-Type: text/html; charset=utf-8"],
        "<p>Ответ ниже</p><blockquote><p>REFUTE 1 нож</p><blockquote>x</blockquote>"
        "</blockquote><p>NO REFUTATION 3</p>",
    )
    assert read_letter(raw).text == "Ответ ниже\n\nNO REFUTATION 3"


def test_outlook_reply_cuts_at_the_from_sent_block() -> None:
    raw = mail(
        [*BASIC, "Content-Type: text/plain; charset=windows-1251"],
        "НЕТ ОПРОВЕРЖЕНИЯ 12\r\n\r\n"
        "________________________________\r\n"
        "From: GM <gm+k3x9@example.test>\r\n"
        "Sent: Tuesday, December 1, 2026 8:00 PM\r\n"
        "To: Неташка <netashka@example.test>\r\n"
        "Subject: Предположение 12\r\n\r\n"
        "SUGGEST Краснова, нож, кухня TO Неташка\r\n".encode("cp1251"),
    )
    assert read_letter(raw).text == "НЕТ ОПРОВЕРЖЕНИЯ 12"


def test_outlook_original_message_separator() -> None:
    body = "REFUTE 3 топор\n\n-----Original Message-----\nFrom: gm@example.test\nREFUTE 9 нож\n"
    assert read_letter(mail(BASIC, body)).text == "REFUTE 3 топор"


@pytest.mark.parametrize(
    "header",
    [
        '01.12.2026, 10:00, "GM" <gm+k3x9@example.test>:',  # Yandex
        "пн, 1 дек. 2026 г. в 10:00, GM <gm+k3x9@example.test>:",  # Gmail, Russian
        "Понедельник, 1 декабря 2026, 10:00 +03:00 от GM <gm+k3x9@example.test>:",  # Mail.ru
        "01.12.2026 10:00, GM пишет:",  # Thunderbird, Russian
        "-------- Пересылаемое сообщение --------",
        "-------- Исходное сообщение --------",
    ],
)
def test_russian_reply_headers_cut_the_quoted_text(header: str) -> None:
    body = f"СТАТУС\n\n{header}\nSUGGEST Краснова, нож, кухня TO Неташка\nREFUTE 1 нож\n"
    assert read_letter(mail(BASIC, body)).text == "СТАТУС"


def test_bottom_posting_keeps_the_text_after_the_quote() -> None:
    body = (
        "On Tue, 1 Dec 2026 at 20:00, GM <gm@example.test> wrote:\n"
        "> Suggestion 7 is waiting for your answer.\n"
        ">\n"
        "\n"
        "NO REFUTATION 7\n"
        "\n"
        "-- \n"
        "Веталь\n"
        "REFUTE 1 нож\n"
    )
    assert read_letter(mail(BASIC, body)).text == "NO REFUTATION 7"


def test_no_content_type_is_plain_text_and_bom_is_removed() -> None:
    raw = mail(["From: vetal@example.test"], "\ufeffСТАТУС\r\nПОМОЩЬ\r\n".encode())
    assert read_letter(raw).text == "СТАТУС\nПОМОЩЬ"


def test_cp1251_quoted_printable_body() -> None:
    body = quopri.encodestring("ОПРОВЕРЖЕНИЕ 5 в бильярдной\n".encode("cp1251")).decode()
    raw = mail(
        [
            *BASIC,
            "Content-Type: text/plain; charset=windows-1251",
            "Content-Transfer-Encoding: quoted-printable",
        ],
        body,
    )
    assert body.startswith("=CE=CF=D0=CE=C2")  # "ОПРОВ" in windows-1251
    assert read_letter(raw).text == "ОПРОВЕРЖЕНИЕ 5 в бильярдной"


def test_koi8r_body_labelled_windows_1251_is_read_right() -> None:
    text = "ПРЕДПОЛОЖЕНИЕ Белых, верёвка, холл ДЛЯ Веталь"
    raw = mail(
        [*BASIC, "Content-Type: text/plain; charset=windows-1251"],
        text.encode("koi8-r"),
    )
    assert read_letter(raw).text == text


def test_unknown_or_missing_charset_falls_back_utf8_then_cp1251() -> None:
    utf8 = mail([*BASIC, "Content-Type: text/plain; charset=x-mac-klingon"], "СТАТУС нож")
    assert read_letter(utf8).text == "СТАТУС нож"
    cp1251 = mail([*BASIC, "Content-Type: text/plain"], "СТАТУС нож".encode("cp1251"))
    assert read_letter(cp1251).text == "СТАТУС нож"


def test_utf8_body_labelled_cp1251_is_read_as_utf8() -> None:
    raw = mail([*BASIC, "Content-Type: text/plain; charset=windows-1251"], "Опровержение 3 нож")
    assert read_letter(raw).text == "Опровержение 3 нож"


def test_format_flowed_lines_are_joined() -> None:
    raw = mail(
        [*BASIC, "Content-Type: text/plain; charset=utf-8; format=flowed; delsp=no"],
        "SUGGEST Горчичников, подсвечник, \nтанцевальный зал TO Неташка\n",
    )
    assert read_letter(raw).text == "SUGGEST Горчичников, подсвечник, танцевальный зал TO Неташка"
    assert unflow("a \nb\n-- \nsig", delsp=False) == "a b\n-- \nsig"
    assert unflow("ab \ncd", delsp=True) == "abcd"


# --- what cannot be read ---


def test_a_message_without_text_is_unreadable_but_keeps_its_sender() -> None:
    raw = mail(
        [*BASIC, "Message-ID: <img@example.test>", "Content-Type: image/png"],
        base64.encodebytes(b"\x89PNG\r\n\x1a\n").decode(),
    )
    letter = read_letter(raw)
    assert letter.unreadable == "no text/plain or text/html part (the message is image/png)"
    assert letter.unreadable_code == "attachments_only"
    assert letter.from_address == "netashka@example.test"
    assert letter.message_id == "<img@example.test>"
    assert letter.text == ""


def test_empty_and_garbage_input_never_raises() -> None:
    assert read_letter(b"") == Letter(unreadable="empty message", unreadable_code="empty")
    for raw in (
        b"\x00\xff\xfe",
        b"From: <<<@@@>>>\r\n\r\n",
        b"Content-Type: multipart/mixed\r\n\r\nx",
    ):
        assert isinstance(read_letter(raw), Letter)
    broken = read_letter(
        b"From: a@example.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b"
    )
    assert broken.from_address == "a@example.test"


# --- the helpers ---


def test_decode_bytes_choices() -> None:
    assert decode_bytes("нож".encode("koi8-r"), "windows-1251") == ("нож", "koi8-r")
    assert decode_bytes("Белых".encode("koi8-r"), "cp1251") == ("Белых", "koi8-r")
    assert decode_bytes("Белых".encode("cp1251"), "koi8-r") == ("Белых", "cp1251")
    assert decode_bytes("СТАТУС".encode("cp1251"), "cp1251") == ("СТАТУС", "cp1251")
    assert decode_bytes("für".encode("latin-1"), "iso-8859-1") == ("für", "iso8859-1")
    assert decode_bytes(b"plain", None) == ("plain", "ascii")


def test_new_text_signature_and_quotes() -> None:
    assert new_text("STATUS\r\n> old\r\n-- \r\nsig") == "STATUS"
    assert new_text("\n\nHELP  \n\n") == "HELP"
    assert new_text("a\u00a0b\u200b") == "a b"


# --- who the sender is (attack report, item 4) ---


def test_an_address_as_display_name_does_not_hide_the_real_address() -> None:
    raw = mail(["From: netashka@example.test <evil@evil.test>", "To: gm+k3x9@example.test"], "x")
    letter = read_letter(raw)
    assert (letter.from_address, letter.from_name) == ("evil@evil.test", "netashka@example.test")
    raw = mail(['From: "netashka@example.test" (Неташка) <Evil@Evil.test>'], "x")
    assert read_letter(raw).from_address == "evil@evil.test"


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("netashka@example.test <evil@evil.test>", [("netashka@example.test", "evil@evil.test")]),
        ("Неташка <n@example.test>", [("Неташка", "n@example.test")]),
        (
            '"Дуг, игрок" <dug@example.test>, vetal@example.test (Веталь)',
            [("Дуг, игрок", "dug@example.test"), ("Веталь", "vetal@example.test")],
        ),
        ("=?utf-8?B?0J3QtdGC0LDRiNC60LA=?= <n@example.test>", [("Неташка", "n@example.test")]),
        (
            "Игроки: a@example.test, b@example.test;",
            [("", "a@example.test"), ("", "b@example.test")],
        ),
        ("undisclosed-recipients:;", []),
        ("a <b@example.test> <c@example.test>", [("a", None)]),
        ("Vetal vetal@example.test", [("Vetal", "vetal@example.test")]),
        ("<@relay.example.test:x@example.test>", [("", "x@example.test")]),
        ("<<<@@@>>>", [(">>", None)]),
        ("a" * 1000, [("a" * 1000, None)]),
    ],
)
def test_mailboxes(value: str, found: list[tuple[str, str | None]]) -> None:
    assert mailboxes(value) == found


# --- bounded work on hostile headers (item 3) ---


def test_a_huge_from_without_at_sign_gives_no_sender() -> None:
    raw = b"From: " + b"a" * 150_000 + b"\r\nTo: gm@example.test\r\n\r\nSTATUS\r\n"
    letter = read_letter(raw)
    assert (letter.from_address, letter.from_name) == (None, "")
    assert letter.recipients == ("gm@example.test",)
    assert letter.text == "STATUS"


def test_a_huge_subject_of_encoded_words_is_cut_at_a_word() -> None:
    word = b"=?utf-8?B?0J/RgNC40LLQtdGC?= "  # "Привет", 29 bytes with its space
    raw = b"From: a@example.test\r\nSubject: " + word * 19_310 + b"\r\n\r\nSTATUS\r\n"
    assert len(raw) > 560_000
    letter = read_letter(raw)
    # HEADER_LIMIT (4096) holds 141 whole encoded-words: cut at the space after the 141st.
    assert HEADER_LIMIT == 4096
    assert letter.subject == "Привет" * 141
    assert letter.from_address == "a@example.test"


def test_huge_address_lists_and_content_type_are_cut() -> None:
    raw = (
        b"From: a@example.test\r\nTo: "
        + b"x@example.test, " * 35_000
        + b"gm+k3x9@example.test\r\nContent-Type: text/plain; "
        + b"a=b; " * 100_000
        + b"charset=utf-8\r\n\r\nSTATUS\r\n"
    )
    letter = read_letter(raw)
    assert letter.recipients == ("x@example.test",)  # the token beyond the limit is lost
    assert letter.text == "STATUS"


def test_cap() -> None:
    assert cap("abc", 5) == "abc"
    assert cap("aaaa bbbb cccc", 12) == "aaaa bbbb"
    assert cap("aaaaaaaaaaaaaa", 12) == "aaaaaaaaaaaa"
    assert cap("a bbbbbbbbbbbbb", 12) == "a bbbbbbbbbb"  # no space in the last quarter


def test_many_reply_headers_in_a_row_are_all_dropped() -> None:
    body = "NO REFUTATION 7\n" + "X пишет:\n> old\n" * 40_000
    assert new_text(body) == "NO REFUTATION 7"


# --- charset labels (item 8) ---


@pytest.mark.parametrize("label", ["iso-8859-1", "ISO-8859-15", "windows-1252", "us-ascii"])
def test_utf8_body_with_a_western_label_is_read_as_utf8(label: str) -> None:
    raw = mail([*BASIC, f"Content-Type: text/plain; charset={label}"], "ОПРОВЕРЖЕНИЕ 3 нож")
    assert read_letter(raw).text == "ОПРОВЕРЖЕНИЕ 3 нож"
    assert decode_bytes("нож".encode(), label) == ("нож", "utf-8")
    assert decode_bytes("café".encode("cp1252"), "windows-1252") == ("café", "cp1252")


# --- reply headers (item 2) ---


@pytest.mark.parametrize(
    "header",
    [
        "---- On Tue, 01 Dec 2026 11:00:05 +0300 pbp <gm+x@example.test> wrote ----",  # Zoho
        "---- В Вт, 01 дек 2026 11:00:05 +0300 pbp <gm+x@example.test> написал ----",
        '01.12.2026, 12:00, "pbp":',  # Yandex, no address
        "________________________________",  # Outlook's separator alone
    ],
)
def test_more_reply_headers_cut_the_quoted_text(header: str) -> None:
    body = f"СТАТУС\n\n{header}\nSUGGEST Краснова, нож, кухня TO Неташка\nREFUTE 1 нож\n"
    assert read_letter(mail(BASIC, body)).text == "СТАТУС"


def test_short_underscore_rules_and_dashes_in_text_are_kept() -> None:
    body = "СТАТУС\n__________\nпомощь ---- очень нужна ----\n"
    assert new_text(body) == "СТАТУС\n__________\nпомощь ---- очень нужна ----"


# --- echoes of our own mail (item 2) ---

SENT = (
    "Предположение 7 от Веталь: Белых, нож, кухня.\n"
    "У вас есть: нож.\n"
    "\n"
    "Ответьте одной строкой:\n"
    "ОПРОВЕРЖЕНИЕ 7 <карта>\n"
    "Например:\n"
    "ОПРОВЕРЖЕНИЕ 1 Пистолет\n"
    "\n"
    "Ваш личный адрес: gm+k3x9@example.test\n"
)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            "ОПРОВЕРЖЕНИЕ 7 нож\n\nПредположение 7 от Веталь: Белых, нож, кухня.\n"
            "  У вас есть: нож.  \nОПРОВЕРЖЕНИЕ 7 <карта>",
            "ОПРОВЕРЖЕНИЕ 7 нож",
        ),
        ("STATUS\nОтветьте одной строкой:\n\nОПРОВЕРЖЕНИЕ 7 <карта>\nREFUTE 1 нож", "STATUS"),
        ("Ответьте одной строкой:\nОПРОВЕРЖЕНИЕ 7 <карта>", ""),
        ("ОПРОВЕРЖЕНИЕ 1 Пистолет", "ОПРОВЕРЖЕНИЕ 1 Пистолет"),
        (
            "ОПРОВЕРЖЕНИЕ 1 Пистолет\nспасибо\nНапример:",
            "ОПРОВЕРЖЕНИЕ 1 Пистолет\nспасибо\nНапример:",
        ),
        (
            "> Ответьте одной строкой:\n> ОПРОВЕРЖЕНИЕ 7 <карта>",
            "> Ответьте одной строкой:\n> ОПРОВЕРЖЕНИЕ 7 <карта>",
        ),
        ("", ""),
    ],
)
def test_strip_echo(text: str, kept: str) -> None:
    assert strip_echo(text, SENT) == kept


def test_strip_echo_with_nothing_sent_keeps_everything() -> None:
    assert strip_echo("STATUS\nHELP", "") == "STATUS\nHELP"


def test_a_command_right_above_a_one_line_attribution_is_kept() -> None:
    body = "REFUTE 1 нож\nНеташка пишет:\nSUGGEST Краснова, нож, кухня TO Неташка\n"
    assert new_text(body) == "REFUTE 1 нож"
    wrapped = "STATUS\n\nOn Tue, 1 Dec 2026 at 20:00, GM <\ngm@example.test> wrote:\nHELP\n"
    assert new_text(wrapped) == "STATUS"


def test_a_message_of_thousands_of_tiny_parts_is_unreadable_but_keeps_its_headers() -> None:
    part = b"--b\r\nContent-Type: text/plain\r\n\r\nREFUTE 1 nozh\r\n"
    raw = (
        b"From: Vetal <vetal@example.test>\r\nTo: gm+k3x9@example.test\r\n"
        b"Message-ID: <parts@example.test>\r\n"
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + part * 1001 + b"--b--\r\n"
    )
    letter = read_letter(raw)
    assert letter.unreadable == "over 1000 MIME boundary lines"
    assert letter.text == ""
    assert (letter.from_address, letter.message_id) == (
        "vetal@example.test",
        "<parts@example.test>",
    )
    assert letter.recipients == ("gm+k3x9@example.test",)
    assert read_letter(raw.replace(part * 1001, part * 999)).text.startswith("REFUTE 1 nozh")


def test_a_header_value_seen_before_is_not_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 18: policy.default parses a field each time it is read; the header objects
    of values seen before are handed out again, and the letter read is the same."""
    from email.headerregistry import HeaderRegistry

    from pbp.mail.read import headers

    monkeypatch.setattr(headers.POLICY.header_factory, "_kept", {})
    built: list[str] = []
    real = HeaderRegistry.__call__

    def spy(self: HeaderRegistry, name: str, value: str) -> object:
        built.append(name.lower())
        return real(self, name, value)

    monkeypatch.setattr(HeaderRegistry, "__call__", spy)
    raw = (
        b"From: Cross <cross@example.test>\r\nTo: gm+abc@example.test\r\nSubject: move\r\n"
        b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSTATUS\r\n"
    )
    first = read_letter(raw)
    assert built.count("content-type") == 1  # read a dozen times, parsed once
    built.clear()
    assert read_letter(raw) == first
    assert built == []


_REPORT = (
    b"From: a@example.test\r\nTo: gm@example.test\r\nSubject: x\r\n"
    b'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
    b"--b\r\nContent-Type: text/plain\r\n\r\nundelivered\r\n"
    b"--b\r\nContent-Type: message/delivery-status\r\n\r\nAction: failed\r\n--b--\r\n"
)
_MIXED_REPORT = _REPORT.replace(
    b"multipart/report; report-type=delivery-status", b"multipart/mixed"
)


@pytest.mark.parametrize(
    "raw",
    [
        b"From: Neta <Netashka@Example.test>\r\nTo: gm+k3x9@example.test\r\nSubject: move\r\n"
        b"Message-ID: <m1@example.test>\r\nIn-Reply-To: <pbp.1@example.test>\r\n\r\nSTATUS\r\n",
        _MIXED_REPORT,  # automatic by a part the header section does not show
        b"\xef\xbb\xbf\r\nFrom: a@example.test\r\nTo: gm@example.test\r\n\r\nSTATUS\r\n",
        b"From: a@example.test\r\nTo: gm@example.test\r\nnot a field\r\nSTATUS\r\n",
        b"From: a@example.test\r\nTo: gm@example.test\r\n",
        b"From: a@example.test\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n"
        + b"--x\r\n\r\nSTATUS\r\n" * 1001,  # too many parts: the header section alone
        b"",
    ],
    ids=["plain", "report-part", "leading-junk", "no-blank-line", "no-body", "parts", "empty"],
)
def test_the_letter_read_on_its_header_sections_letter_is_the_same(raw: bytes) -> None:
    """Issue 18: the body read with ``head`` (the header section's letter) takes its
    header fields from it; the letter is the one read from scratch, ``automatic``
    included (seen in the parts only by the whole parse)."""
    head = read_letter(raw, body=False)
    assert read_letter(raw, head=head) == read_letter(raw)


def test_a_mail_automatic_only_by_its_parts_is_so_with_head() -> None:
    head = read_letter(_MIXED_REPORT, body=False)
    assert (head.automatic, read_letter(_MIXED_REPORT, head=head).automatic) == (False, True)


def test_the_header_section_ends_at_the_first_empty_line_of_either_kind() -> None:
    """RFC 5322 §2.1: the section ends after the first empty line, LF or CRLF; a message
    without one is all header (the regular expression ``\\A\\r?\\n|\\n\\r?\\n`` it
    replaced, on every short mix of CR, LF and text: issue 18)."""
    pattern = re.compile(rb"\A\r?\n|\n\r?\n")
    rng = random.Random(18)
    for _ in range(20_000):
        data = bytes(rng.choice(b"\r\na ") for _ in range(rng.randint(0, 10)))
        end = pattern.search(data)
        assert header_section(data) == (data if end is None else data[: end.end()]), data
    assert header_section(b"To: a\r\nX: b\n\r\nbody\n\nmore") == b"To: a\r\nX: b\n\r\n"
    assert header_section(b"\r\nbody") == b"\r\n"
    assert header_section(b"To: a\r\n") == b"To: a\r\n"
