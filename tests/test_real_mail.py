"""Real mail from real players (issue 5): every client, charset and habit understood.

One test per case of the issue (and per variant), named after it. Each message is built
as raw bytes, the way the client sends it (the names and addresses are made up), and
driven end to end through :class:`pbp.app.service.Service` with a Maildir inbox: it ends
applied, refused with an answer, or kept for the GM and never answered (automatic
mail). Maniac cases play seed 002's game (:mod:`kits.maniac_table`: Вася, Петя, Таня, …; day 1
open from 09:00 UTC); Cluedo cases seed 000's game (:mod:`kits.table`: Кросс, Дуг, Роза)
and, for the reading alone, the issue's own cards (Краснова, нож, кухня, Веталь).
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterator
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from kits import maniac_table
from kits.maniac_table import EMAILS, GAME, START, ManiacTable
from kits.seed_000 import CARDS, PLAYERS
from kits.table import Table, body, named_body, utc

from pbp.games.cluedo.cards import Accuse, Refute, Suggest
from pbp.games.cluedo.parse import parse_cluedo
from pbp.games.core.events import AmbiguousMove, InvalidMove
from pbp.games.maniac.engine import Kill, Vote
from pbp.games.maniac.parse import parse_maniac
from pbp.games.maniac.state import standing_votes
from pbp.mail.maildir import deliver
from pbp.mail.read.mime import read_letter

DAY_1 = START + timedelta(hours=1)  # 10:00 UTC, day 1 of the Maniac game is open
_ids = itertools.count(1)

UTF8 = b"Content-Type: text/plain; charset=utf-8"
GREETING = "вот что сделано по вашему письму."
GREETING_EN = "this is what was done with your mail."
FOOTER = "СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд."
FIX = "Исправьте невыполненные строки и пришлите их снова ответом на это письмо."
VOTE_PETYA = [
    "Выполнено:",
    "",
    "> ГОЛОС: Петя",
    "Понял: ГОЛОС за Петю",
    "Принято: ваш голос — за Петю. Сегодня это ваш 1-й голос за этого игрока.",
    "",
    "Для форума (скопируйте в тред игры):",
    "",
    "[b]Голосую за Петю[/b]",
    "",
]


def message(
    sender: str,
    to: str,
    payload: bytes,
    *headers: bytes,
    subject: bytes = b"Subject: move",
    content_type: bytes | None = UTF8,
) -> bytes:
    """A raw message (CRLF lines) from ``sender`` to ``to``: the usual headers, then
    ``headers`` as given, then ``payload`` as the body (bytes as they travel)."""
    lines = [
        b"From: " + sender.encode(),
        b"To: " + to.encode(),
        b"Date: Tue, 01 Dec 2026 13:00:00 +0300",
        b"Message-ID: <real-%d@example.test>" % next(_ids),
        subject,
        b"MIME-Version: 1.0",
    ]
    if content_type is not None:
        lines.append(content_type)
    lines.extend(headers)
    return b"\r\n".join(lines) + b"\r\n\r\n" + payload


@pytest.fixture
def maniac(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    table.run(START)
    table.new_mail()
    yield table
    table.close()


def from_player(
    table: ManiacTable, player: str, payload: bytes, *headers: bytes, **kw: bytes | None
) -> bytes:
    """A raw message from a Maniac ``player`` to his personal address."""
    to = f"gm+{table.token(player)}@example.test"
    return message(EMAILS[player], to, payload, *headers, **kw)  # type: ignore[arg-type]


def run(table: Table, *raws: bytes, at: datetime = DAY_1) -> tuple[list[str], list[EmailMessage]]:
    """Deliver ``raws`` a second apart from ``at``, run the daemon a minute later: the
    outcomes and the mails sent."""
    for n, raw in enumerate(raws):
        deliver(table.inbox_path, raw, at=at + timedelta(seconds=n))
    outcomes = table.run(at + timedelta(minutes=1))
    return outcomes, table.new_mail()


def answer(mails: list[EmailMessage], address: str, game: str = GAME) -> list[str]:
    """The lines of the one reply to ``address`` after the line naming its ``game``
    (asserted) and its greeting, up to its footer."""
    (mail,) = [m for m in mails if m["To"] == address]
    lines = named_body(mail, game).splitlines()
    assert lines[0].endswith((GREETING, GREETING_EN)) and lines[1] == ""
    return lines[2:]


def votes(table: ManiacTable) -> dict[str, str | None]:
    """The standing votes of the day ``{voter: target}`` (the GM view)."""
    row = table.store.game(GAME)
    assert row is not None
    state = table.service.kind_of("maniac").load(row.state)
    return {ballot.voter: ballot.target for _, ballot in standing_votes(state)}


# --- 1. one bad message among good ones ------------------------------------------------


@pytest.mark.parametrize(
    ("charset", "encoding"), [("x-nope", "cp1251"), ("unknown-8bit", "koi8-r")]
)
def test_case01_broken_encoded_word_in_middle_message(
    maniac: ManiacTable, charset: str, encoding: str
) -> None:
    """The middle message has a broken encoded-word and an unknown charset: it is read
    by the fallback (its bytes are valid in one Cyrillic charset); 1 and 3 are applied
    and none blocks another."""
    first = from_player(maniac, "Вася", "ГОЛОС: Петя\r\n".encode())
    middle = from_player(
        maniac,
        "Петя",
        "ГОЛОС: Таня\r\n".encode(encoding),
        b"Content-Transfer-Encoding: 8bit",
        subject=b"Subject: =?UTF-8?B?A?=",
        content_type=f"Content-Type: text/plain; charset={charset}".encode(),
    )
    last = from_player(maniac, "Оля", "ГОЛОС: Петя\r\n".encode())
    assert read_letter(middle).text == "ГОЛОС: Таня"
    outcomes, mails = run(maniac, first, middle, last)
    assert outcomes == ["applied", "applied", "applied"]
    assert votes(maniac) == {"Вася": "Петя", "Петя": "Таня", "Оля": "Петя"}
    assert answer(mails, EMAILS["Петя"])[3] == "Понял: ГОЛОС за Таню"
    assert [m["Subject"] for m in mails] == [
        "[seed-002] Re: move",
        "[seed-002] Re: A",
        "[seed-002] Re: move",
    ]


def test_case01_undecodable_middle_message_is_answered_and_kept(maniac: ManiacTable) -> None:
    """A middle message whose body cannot be read (no text part at all) is answered
    "could not be read", kept for the GM with a notice; 1 and 3 are applied."""
    first = from_player(maniac, "Вася", "ГОЛОС: Петя\r\n".encode())
    middle = from_player(
        maniac,
        "Петя",
        base64.b64encode(b"\x89PNG\r\n\x1a\n") + b"\r\n",
        b"Content-Transfer-Encoding: base64",
        subject=b"Subject: =?UTF-8?B?A?=",
        content_type=b"Content-Type: image/png",
    )
    last = from_player(maniac, "Оля", "ГОЛОС: Петя\r\n".encode())
    outcomes, mails = run(maniac, first, middle, last)
    assert outcomes == ["applied", "unreadable", "applied"]
    assert votes(maniac) == {"Вася": "Петя", "Оля": "Петя"}
    (kept,) = maniac.store.kept()
    assert kept.reason == "unreadable: no text/plain or text/html part (the message is image/png)"
    assert kept.raw == middle
    (unreadable,) = [m for m in mails if m["To"] == EMAILS["Петя"]]
    assert named_body(unreadable, GAME).splitlines() == [
        "Здравствуйте! Ваше письмо не удалось прочитать: в нём нет текста, только вложения. "
        "Поэтому ходы из него не выполнены. Письмо сохранено, ГМ получил уведомление.",
        "Пришлите ходы ещё раз текстом в самом письме, а не во вложении.",
    ]
    assert [m["To"] for m in mails] == [
        EMAILS["Вася"],
        EMAILS["Петя"],
        "gm-person@example.test",
        EMAILS["Оля"],
    ]


# --- 2. raw 8-bit headers ----------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-8", "cp1251", "koi8-r"])
def test_case02_raw_8bit_from_header(maniac: ManiacTable, encoding: str) -> None:
    """From (and Subject) as raw 8-bit bytes, no RFC 2047: the player is recognised by
    his address, the name and Subject read in the charset the bytes fit."""
    raw = from_player(
        maniac, "Петя", "ГОЛОС: Таня\r\n".encode(), subject="Subject: Ход Пети".encode(encoding)
    ).replace(b"From: petya@example.test", 'From: "Петя" <petya@example.test>'.encode(encoding))
    letter = read_letter(raw)
    assert (letter.from_address, letter.from_name, letter.subject) == (
        "petya@example.test",
        "Петя",
        "Ход Пети",
    )
    outcomes, _ = run(maniac, raw)
    assert outcomes == ["applied"]
    assert votes(maniac) == {"Петя": "Таня"}


# --- 3. an encoded word split inside a Cyrillic letter ----------------------------------


def test_case03_encoded_word_split_inside_a_letter(maniac: ManiacTable) -> None:
    raw = from_player(
        maniac,
        "Вася",
        "ГОЛОС: Петя\r\n".encode(),
        subject=b"Subject: =?UTF-8?Q?=D0=93=D0=9E=D0=9B=D0=9E=D0=A1=3A_=D0?=\r\n"
        b" =?UTF-8?Q?=9F=D0=B5=D1=82=D1=8F?=",
    )
    assert read_letter(raw).subject == "ГОЛОС: Петя"
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert mails[0]["Subject"] == "[seed-002] Re: ГОЛОС: Петя"


def test_case03_the_subject_alone_is_never_a_move(maniac: ManiacTable) -> None:
    raw = from_player(
        maniac,
        "Вася",
        b"",
        subject=b"Subject: =?UTF-8?Q?=D0=93=D0=9E=D0=9B=D0=9E=D0=A1=3A_=D0?=\r\n"
        b" =?UTF-8?Q?=9F=D0=B5=D1=82=D1=8F?=",
    )
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["refused"]
    assert votes(maniac) == {}
    assert answer(mails, EMAILS["Вася"])[:4] == [
        "Не выполнено:",
        "",
        "В тексте письма не найдено ни одной команды, а в теме письма — "
        "«ГОЛОС: Петя». Ходы читаются только из текста письма, не из темы: напишите команду "
        "в самом письме, отдельной строкой.",
        "",
    ]


# --- 4. byte-order marks ------------------------------------------------------------------


def test_case04_bom_before_the_first_header(maniac: ManiacTable) -> None:
    raw = b"\xef\xbb\xbf" + from_player(maniac, "Вася", "ГОЛОС: Петя\r\n".encode())
    letter = read_letter(raw)
    assert (letter.from_address, letter.subject, letter.text) == (
        "vasya@example.test",
        "move",
        "ГОЛОС: Петя",
    )
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert answer(mails, EMAILS["Вася"]) == [*VOTE_PETYA, FOOTER]


def test_case04_bom_before_a_command_in_the_body(maniac: ManiacTable) -> None:
    raw = from_player(maniac, "Вася", "\ufeffГОЛОС: Петя\r\n\ufeffСТАТУС\r\n".encode())
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert votes(maniac) == {"Вася": "Петя"}
    assert "> СТАТУС" in answer(mails, EMAILS["Вася"])
    assert parse_maniac("\ufeffГОЛОС Петя", ["Петя"])[0].move == Vote("Петя")


# --- 5. charsets labelled wrong or not at all ------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "transfer", "payload"),
    [
        # koi8-r 8bit, labelled right
        (
            b"Content-Type: text/plain; charset=koi8-r",
            b"Content-Transfer-Encoding: 8bit",
            "ГОЛОС: Петя\r\n".encode("koi8-r"),
        ),
        # koi8-r 8bit, no label at all
        (None, b"Content-Transfer-Encoding: 8bit", "ГОЛОС: Петя\r\n".encode("koi8-r")),
        # cp1251 quoted-printable
        (
            b"Content-Type: text/plain; charset=windows-1251",
            b"Content-Transfer-Encoding: quoted-printable",
            b"=C3=CE=CB=CE=D1: =CF=E5=F2=FF\r\n",
        ),
        # cp1251 quoted-printable, no charset
        (
            b"Content-Type: text/plain",
            b"Content-Transfer-Encoding: quoted-printable",
            b"=C3=CE=CB=CE=D1: =CF=E5=F2=FF\r\n",
        ),
        # koi8-r bytes labelled windows-1251
        (
            b"Content-Type: text/plain; charset=windows-1251",
            b"Content-Transfer-Encoding: 8bit",
            "ГОЛОС: Петя\r\n".encode("koi8-r"),
        ),
        # cp1251 bytes labelled utf-8
        (
            b"Content-Type: text/plain; charset=utf-8",
            b"Content-Transfer-Encoding: 8bit",
            "ГОЛОС: Петя\r\n".encode("cp1251"),
        ),
        # utf-8 labelled koi8-r
        (
            b"Content-Type: text/plain; charset=koi8-r",
            b"Content-Transfer-Encoding: 8bit",
            "ГОЛОС: Петя\r\n".encode(),
        ),
    ],
    ids=[
        "koi8r",
        "koi8r-unlabelled",
        "cp1251-qp",
        "cp1251-qp-unlabelled",
        "koi8r-as-1251",
        "cp1251-as-utf8",
        "utf8-as-koi8r",
    ],
)
def test_case05_charsets_labelled_wrong_or_not_at_all(
    maniac: ManiacTable, content_type: bytes | None, transfer: bytes, payload: bytes
) -> None:
    raw = from_player(maniac, "Вася", payload, transfer, content_type=content_type)
    assert read_letter(raw).text == "ГОЛОС: Петя"
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert answer(mails, EMAILS["Вася"]) == [*VOTE_PETYA, FOOTER]


def test_case05_a_body_read_as_mojibake_is_never_a_wrong_move(maniac: ManiacTable) -> None:
    """Bytes that no Cyrillic charset reads as a command: the player is told nothing was
    found (never a move for somebody else, never silence)."""
    raw = from_player(
        maniac,
        "Вася",
        "ГОЛОС: Петя\r\n".encode("utf-16-le"),
        b"Content-Transfer-Encoding: 8bit",
        content_type=b"Content-Type: text/plain; charset=x-unknown",
    )
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["refused"]
    assert votes(maniac) == {}
    assert answer(mails, EMAILS["Вася"])[2].startswith("В письме не найдено")


# --- 6. no usable text/plain part -------------------------------------------------------

GMAIL_HTML = (
    '<div dir="ltr"><div>ГОЛОС:&nbsp;Петя</div></div><br><div class="gmail_quote">'
    '<div dir="ltr" class="gmail_attr">пн, 3 мар. 2025 г. в 10:15, Ведущий &lt;'
    '<a href="mailto:gm@example.test">gm@example.test</a>&gt;:<br></div>'
    '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">ГОЛОС: Таня<br>'
    "</blockquote></div>\r\n"
)


def test_case06_empty_plain_part_and_the_move_in_html_with_a_gmail_quote(
    maniac: ManiacTable,
) -> None:
    qp = GMAIL_HTML.encode().replace(b"=", b"=3D")
    payload = (
        b"--b1\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n\r\n"
        b"--b1\r\nContent-Type: text/html; charset=UTF-8\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n" + qp + b"--b1--\r\n"
    )
    raw = from_player(
        maniac,
        "Вася",
        payload,
        content_type=b'Content-Type: multipart/alternative; boundary="b1"',
    )
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert votes(maniac) == {"Вася": "Петя"}
    assert answer(mails, EMAILS["Вася"]) == [*VOTE_PETYA, FOOTER]


def test_case06_html_only(maniac: ManiacTable) -> None:
    html = "<html><body><p>ГОЛОС:&nbsp;Петя</p><blockquote>ГОЛОС: Таня</blockquote></body></html>"
    raw = from_player(
        maniac,
        "Вася",
        html.encode("cp1251"),
        b"Content-Transfer-Encoding: 8bit",
        content_type=b"Content-Type: text/html; charset=windows-1251",
    )
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert answer(mails, EMAILS["Вася"]) == [*VOTE_PETYA, FOOTER]


def test_case06_no_content_type_header_at_all(maniac: ManiacTable) -> None:
    raw = from_player(maniac, "Вася", "ГОЛОС: Петя\r\n".encode(), content_type=None)
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert answer(mails, EMAILS["Вася"]) == [*VOTE_PETYA, FOOTER]


# --- 7. quoted replies ---------------------------------------------------------------------

QUOTES = {
    "gmail_ru": "пн, 3 мар. 2025 г. в 10:15, Ведущий <gm@example.test>:\r\n"
    "> ГОЛОС: Таня\r\n> Пример: ГОЛОС Оля\r\n",
    "outlook_ru": "\r\nОт: Ведущий <gm@example.test>\r\nОтправлено: 3 марта 2025 г. 10:15\r\n"
    "Кому: vasya@example.test\r\nТема: ход\r\n\r\nГОЛОС: Таня\r\nПример: ГОЛОС Оля\r\n",
    "outlook_rule_ru": "________________________________\r\nОт: Ведущий <gm@example.test>\r\n"
    "Отправлено: 3 марта 2025 г. 10:15\r\nКому: vasya@example.test\r\nТема: ход\r\n\r\n"
    "ГОЛОС: Таня\r\n",
    "outlook_original": "-----Original Message-----\r\nFrom: Ведущий <gm@example.test>\r\n"
    "Sent: Monday, March 3, 2025 10:15 AM\r\nTo: vasya@example.test\r\nSubject: ход\r\n\r\n"
    "ГОЛОС: Таня\r\n",
    "thunderbird_ru": "03.03.2025 10:15, Ведущий пишет:\r\n> ГОЛОС: Таня\r\n",
    "thunderbird_en": "On 03.03.2025 10:15, Ведущий wrote:\r\n> ГОЛОС: Таня\r\n",
    "yandex": '03.03.2025, 10:15, "Ведущий" <gm@example.test>:\r\n> ГОЛОС: Таня\r\n',
    "mailru": "Понедельник, 3 марта 2025, 10:15 +03:00 от Ведущий <gm@example.test>:\r\n"
    "> ГОЛОС: Таня\r\n",
    "unmarked_wrote": "Ведущий пишет:\r\nГОЛОС: Таня\r\n",
}


@pytest.mark.parametrize("client", list(QUOTES))
def test_case07_quoted_reply_only_the_new_move(maniac: ManiacTable, client: str) -> None:
    """The quoted vote never runs; where the quote is unmarked, its first line (the old
    vote) is answered as looking quoted (issue 13), never applied."""
    raw = from_player(maniac, "Вася", ("ГОЛОС: Петя\r\n\r\n" + QUOTES[client]).encode())
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert votes(maniac) == {"Вася": "Петя"}
    lines = answer(mails, EMAILS["Вася"])
    if client in ("outlook_ru", "unmarked_wrote"):
        assert lines[: len(VOTE_PETYA) + 2] == [
            *VOTE_PETYA,
            "Похоже на цитату — не выполнено:",
            "> ГОЛОС: Таня",
        ]
        assert lines[-2:] == ["", FOOTER]
    else:
        assert lines == [*VOTE_PETYA, FOOTER]


def test_case07_our_own_example_lines_quoted_back_unmarked_are_never_applied(
    maniac: ManiacTable,
) -> None:
    """A client that quotes without ``>``: the pasted copy of our mail (with its example
    commands) is cut off by In-Reply-To (:func:`pbp.mail.read.echo.strip_echo`)."""
    maniac.move("Вася", "ПОМОЩЬ", at=DAY_1)
    (ours,) = [m for m in maniac.sent() if m["To"] == EMAILS["Вася"]][-1:]
    echoed = "\r\n".join(body(ours).splitlines())
    raw = from_player(
        maniac,
        "Вася",
        ("ГОЛОС: Петя\r\n\r\n" + echoed + "\r\n").encode(),
        b"In-Reply-To: " + str(ours["Message-ID"]).encode(),
    )
    outcomes, mails = run(maniac, raw, at=DAY_1 + timedelta(minutes=5))
    assert outcomes == ["applied"]
    assert votes(maniac) == {"Вася": "Петя"}
    assert answer(mails, EMAILS["Вася"]) == [*VOTE_PETYA, FOOTER]


# --- 8. signatures ---------------------------------------------------------------------------

SIGNATURES = {
    "dash_dash_space": "-- \r\nВася\r\nГОЛОС: Таня\r\n",
    "dash_dash_stripped": "--\r\nВася\r\nГОЛОС: Таня\r\n",
    "iphone_ru": "Отправлено с iPhone\r\n",
    "phone_en": "Sent from my phone\r\n",
    "yandex_mobile": "-- \r\nОтправлено из мобильной Яндекс Почты\r\n",
    "yandex_mobile_bare": "Отправлено из мобильной Яндекс Почты\r\n",
    "mailru_android": "Отправлено из Mail.ru для Android\r\n",
    "outlook_mobile": "Get Outlook for Android\r\n",
    "footer_then_quote": "Отправлено с iPhone\r\n\r\n3 марта 2025 г., в 10:15, Ведущий "
    "<gm@example.test> написал(а):\r\n\r\n> ГОЛОС: Таня\r\n",
}


@pytest.mark.parametrize("signature", list(SIGNATURES))
def test_case08_signatures_are_ignored(maniac: ManiacTable, signature: str) -> None:
    raw = from_player(maniac, "Вася", ("ГОЛОС: Петя\r\n\r\n" + SIGNATURES[signature]).encode())
    assert read_letter(raw).text == "ГОЛОС: Петя"
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert answer(mails, EMAILS["Вася"]) == [*VOTE_PETYA, FOOTER]


def test_case08_a_footer_like_line_followed_by_more_text_is_kept() -> None:
    text = "Sent from my phone because I was out\r\nГОЛОС: Петя\r\n"
    raw = message("vasya@example.test", "gm@example.test", text.encode())
    assert read_letter(raw).text == "Sent from my phone because I was out\nГОЛОС: Петя"


# --- 9. format=flowed --------------------------------------------------------------------


def flowed(payload: str, delsp: bool = False) -> bytes:
    params = "; delsp=yes" if delsp else ""
    return message(
        "cross@example.test",
        "gm@example.test",
        payload.encode(),
        b"Content-Transfer-Encoding: 8bit",
        content_type=f"Content-Type: text/plain; charset=utf-8; format=flowed{params}".encode(),
    )


def test_case09_format_flowed_soft_break_inside_a_command() -> None:
    letter = read_letter(flowed("SUGGEST Краснова, нож, \r\nкухня TO Веталь\r\n"))
    assert letter.text == "SUGGEST Краснова, нож, кухня TO Веталь"
    [line] = parse_cluedo(letter.text, CARDS, PLAYERS)
    assert line.move == Suggest("Краснова", "нож", "кухня", "Веталь")


def test_case09_format_flowed_delsp_and_space_stuffing() -> None:
    letter = read_letter(
        flowed("SUGGEST Краснова, нож, кух \r\nня TO Веталь\r\n  STATUS\r\n", True)
    )
    assert letter.text == "SUGGEST Краснова, нож, кухня TO Веталь\n STATUS"


def test_case09_format_flowed_move_applied_through_the_service(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        raw = message(
            "cross@example.test",
            f"gm+{table.token('Кросс')}@example.test",
            "SUGGEST Маша, нож, \r\nспальня TO Дуг\r\n".encode(),
            b"Content-Transfer-Encoding: 8bit",
            content_type=b"Content-Type: text/plain; charset=utf-8; format=flowed",
        )
        outcomes, mails = run(table, raw, at=utc(2026, 12, 1, 17, 5))
        assert outcomes == ["applied"]
        assert answer(mails, "cross@example.test", "seed-000")[:5] == [
            "Выполнено:",
            "",
            "> SUGGEST Маша, нож, спальня TO Дуг",
            "Понял: ПРЕДПОЛОЖЕНИЕ Маша, Нож, Спальня ДЛЯ Дуг",
            "Принято: предположение №1 для Дуг (Маша, Нож, Спальня). Дуг получит его по почте.",
        ]
    finally:
        table.close()


# --- 10. invisible characters -----------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "ГОЛОС:\u00a0Петя",
        "ГОЛОС:\u202fПетя",
        "ГО\u200bЛОС: Пе\u200bтя",
        "ГОЛОС: \u2060Петя\u200d",
        "\u200eГОЛОС: Петя\u200f",
        "ГОЛОС: Пе\u00adтя",
        "**ГОЛОС**: **Петя**",
        "[b]ГОЛОС[/b]: [b]Петя[/b]",
        "голос: пётя",
        "ГоЛоС: ПЕТЯ",
    ],
)
def test_case10_invisible_characters_and_markup(line: str) -> None:
    [parsed] = parse_maniac(line, ["Вася", "Петя", "Таня"])
    assert (parsed.move, parsed.error) == (Vote("Петя"), None)


def test_case10_nbsp_in_quoted_printable_through_the_service(maniac: ManiacTable) -> None:
    raw = from_player(
        maniac,
        "Вася",
        b"=D0=93=D0=9E=D0=9B=D0=9E=D0=A1:=C2=A0=D0=9F=D0=B5=D1=82=D1=8F\r\n",
        b"Content-Transfer-Encoding: quoted-printable",
    )
    assert read_letter(raw).text == "ГОЛОС: Петя"
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert answer(mails, EMAILS["Вася"])[3] == "Понял: ГОЛОС за Петю"


@pytest.mark.parametrize(
    "line",
    [
        "SUGGEST Краснова, **нож**, кухня TO Веталь",
        "SUGGEST Краснова, [b]нож[/b], кухня TO Веталь",
        "SUGGEST Краснова,\u00a0нож,\u00a0кухня TO\u00a0Веталь",
        "sUgGeSt краснова, НОЖ, кУхНя tO вЕТАЛЬ",
        "SUGGEST Кра\u200bснова, нож, кухня TO Веталь",
    ],
)
def test_case10_cluedo_command_with_markup_and_invisible_characters(line: str) -> None:
    [parsed] = parse_cluedo(line, CARDS, PLAYERS)
    assert parsed.move == Suggest("Краснова", "нож", "кухня", "Веталь")


# --- 11. inflected and misspelt names ----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "move"),
    [
        (
            "SUGGEST Краснова, ножом, в кухне TO Веталь",
            Suggest("Краснова", "нож", "кухня", "Веталь"),
        ),
        (
            "SUGGEST Краснова, веревкой, в бильярдной для Веталя",
            Suggest("Краснова", "веревка", "бильярдная", "Веталь"),
        ),
        (
            "ПРЕДПОЛОЖЕНИЕ Краснова, верёвкой, в танцевальном зале ДЛЯ Веталя",
            Suggest("Краснова", "веревка", "танцевальный зал", "Веталь"),
        ),
        ("ОБВИНЕНИЕ Краснову, ножом, в кухне", Accuse("Краснова", "нож", "кухня")),
        ("REFUTE 7 ножом", Refute("нож", 7)),
    ],
)
def test_case11_inflected_card_and_player_names(line: str, move: object) -> None:
    [parsed] = parse_cluedo(line, CARDS, PLAYERS)
    assert (parsed.move, parsed.error) == (move, None)


@pytest.mark.parametrize(
    ("line", "move"),
    [
        ("ГОЛОС за Петю", Vote("Петя")),
        ("УБИТЬ Васю", Kill(("Вася",), None)),
        ("ГОЛОС против Сашки", Vote("Сашка")),
        ("ГОЛОС Сашу", Vote("Саша")),
    ],
)
def test_case11_inflected_player_names_in_maniac(line: str, move: object) -> None:
    [parsed] = parse_maniac(line, ["Вася", "Петя", "Саша", "Сашка"])
    assert (parsed.move, parsed.error) == (move, None)


@pytest.mark.parametrize(
    ("line", "word", "suggestion"),
    [
        ("ACCUSE Краснова, ножм, кухня", "ножм", "нож"),
        ("ACCUSE Краснва, нож, кухня", "Краснва", "Краснова"),
        ("SUGGEST Краснова, нож, кухня TO Вееталь", "Вееталь", "Веталь"),
    ],
)
def test_case11_one_letter_typo_gets_did_you_mean(line: str, word: str, suggestion: str) -> None:
    [parsed] = parse_cluedo(line, CARDS, PLAYERS)
    assert isinstance(parsed.error, InvalidMove)
    assert (parsed.error.code, parsed.error.params["word"], parsed.error.params["suggestion"]) == (
        "unknown_name",
        word,
        suggestion,
    )


@pytest.mark.parametrize(
    ("line", "word", "candidates"),
    [
        ("ГОЛОС Саш", "Саш", ["Саша", "Сашка"]),
        ("УБИТЬ Са", "Са", ["Саша", "Сашка"]),
        ("ГОЛОС за Саш", "Саш", ["Саша", "Сашка"]),
    ],
)
def test_case11_prefix_of_two_players_is_refused_listing_both(
    line: str, word: str, candidates: list[str]
) -> None:
    [parsed] = parse_maniac(line, ["Вася", "Петя", "Саша", "Сашка"])
    assert parsed.move is None
    assert isinstance(parsed.error, AmbiguousMove)
    # In a kill order the way out is the name as listed, in quotes (ambiguous_target).
    code = "ambiguous_target" if line.startswith("УБИТЬ") else "ambiguous_name"
    assert (parsed.error.code, parsed.error.params["word"], parsed.error.params["candidates"]) == (
        code,
        word,
        candidates,
    )


def test_case11_prefix_of_two_cards_is_refused_listing_both() -> None:
    [parsed] = parse_cluedo("ACCUSE Краснова, нож, т", CARDS, PLAYERS)
    assert isinstance(parsed.error, AmbiguousMove)
    assert parsed.error.params["candidates"] == ["труба", "топор", "танцевальный зал", "терраса"]
    [parsed] = parse_cluedo("REFUTE 1 би", CARDS, PLAYERS)
    assert isinstance(parsed.error, AmbiguousMove)
    assert parsed.error.params["candidates"] == ["бильярдная", "библиотека"]


def test_case11_ambiguous_prefix_through_the_service_lists_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Саш when Саша and Сашка play (seed 002's Катя renamed Сашка): refused listing
    both, nothing applied."""
    plain = maniac_table.games_yaml
    monkeypatch.setattr(
        maniac_table, "games_yaml", lambda *args: plain(*args).replace("Катя", "Сашка")
    )
    table = ManiacTable(tmp_path)
    try:
        table.run(START)
        table.new_mail()
        raw = from_player(table, "Вася", "ГОЛОС Саш\r\n".encode())
        outcomes, mails = run(table, raw)
        assert outcomes == ["refused"]
        assert votes(table) == {}
        assert answer(mails, EMAILS["Вася"]) == [
            "Не выполнено:",
            "",
            "> ГОЛОС Саш",
            "«Саш» подходит сразу к нескольким: Саша, Сашка. Напишите имя "
            "полностью и пришлите ход ещё раз.",
            "",
            FIX,
            FOOTER,
        ]
    finally:
        table.close()


# --- 12. mail that must get no answer ------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        b"Auto-Submitted: auto-replied",
        b"Auto-Submitted: auto-generated",
        b"Auto-Submitted: auto-notified; owner-email=x@example.test",
        b"Precedence: bulk",
        b"Precedence: list",
        b"Precedence: junk",
        b"Return-Path: <>",
        b"X-Autoreply: yes",
        b"X-Autogenerated: Reply",
        b"List-Id: <players.example.test>",
    ],
)
def test_case12_automatic_mail_is_kept_and_never_answered(
    maniac: ManiacTable, header: bytes
) -> None:
    raw = from_player(
        maniac, "Вася", "Я в отпуске до 10 декабря.\r\nГОЛОС: Петя\r\n".encode(), header
    )
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["automatic"]
    assert mails == []
    assert votes(maniac) == {}
    assert [k.reason for k in maniac.store.kept()] == ["automatic or no sender"]


@pytest.mark.parametrize(
    ("sender", "subject"),
    [
        ("MAILER-DAEMON@example.test", b"Subject: Undelivered Mail Returned to Sender"),
        ("Mail Delivery System <postmaster@example.test>", b"Subject: Mail delivery failed"),
        ("vasya@example.test", b"Subject: Automatic reply: move"),
        ("vasya@example.test", b"Subject: Auto: move"),
        ("vasya@example.test", b"Subject: Out of Office: move"),
        ("vasya@example.test", b"Subject: =?UTF-8?B?0JDQstGC0L7QvtGC0LLQtdGCOiBtb3Zl?="),
    ],
    ids=["mailer-daemon", "postmaster", "outlook-oof", "auto", "out-of-office", "avtootvet"],
)
def test_case12_bounces_and_vacation_replies_are_never_answered(
    maniac: ManiacTable, sender: str, subject: bytes
) -> None:
    to = f"gm+{maniac.token('Вася')}@example.test"
    raw = message(sender, to, "ГОЛОС: Петя\r\n".encode(), subject=subject)
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["automatic"]
    assert mails == []
    assert len(maniac.store.kept()) == 1


def test_case12_auto_submitted_no_is_an_ordinary_mail(maniac: ManiacTable) -> None:
    raw = from_player(maniac, "Вася", "ГОЛОС: Петя\r\n".encode(), b"Auto-Submitted: no")
    outcomes, _ = run(maniac, raw)
    assert outcomes == ["applied"]


def test_case12_a_delivery_report_is_never_answered(maniac: ManiacTable) -> None:
    payload = (
        b"--r\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n"
        b"--r\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; example.test\r\n"
        b"\r\nFinal-Recipient: rfc822; x@example.test\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        b"--r--\r\n"
    )
    raw = from_player(
        maniac,
        "Вася",
        payload,
        content_type=b'Content-Type: multipart/report; report-type=delivery-status; boundary="r"',
    )
    outcomes, mails = run(maniac, raw)
    assert (outcomes, mails) == (["automatic"], [])


# --- 13. a move the player did not write -------------------------------------------------

FORWARD_NOTE = (
    "В письме нет ваших ходов: в нём только пересланное письмо, а ходы из "
    "чужого (или пересланного) письма не выполняются. Напишите ходы сами, своим текстом, "
    "ответом на это письмо."
)


def attached(before: bytes) -> bytes:
    """A multipart/mixed body: ``before`` (parts of his own), then an attached mail from
    Таня with her vote."""
    return (
        before + b"--b2\r\nContent-Type: message/rfc822\r\n\r\n"
        b"From: tanya@example.test\r\nTo: gm@example.test\r\nSubject: move\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\n"
        + "ГОЛОС: Оля\r\n".encode()
        + b"--b2--\r\n"
    )


MIXED = b'Content-Type: multipart/mixed; boundary="b2"'


def test_case13_an_attached_mail_alone_is_never_executed(maniac: ManiacTable) -> None:
    raw = from_player(maniac, "Вася", attached(b""), content_type=MIXED)
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["refused"]
    assert votes(maniac) == {}
    # No line of his to fix: the note says what to send instead.
    assert answer(mails, EMAILS["Вася"]) == ["Не выполнено:", "", FORWARD_NOTE, "", FOOTER]


def test_case13_an_attached_mail_with_a_note_is_never_executed(maniac: ManiacTable) -> None:
    own = b"--b2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + "Смотрите ниже\r\n".encode()
    raw = from_player(maniac, "Вася", attached(own), content_type=MIXED)
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["refused"]
    assert votes(maniac) == {}
    assert answer(mails, EMAILS["Вася"]) == [
        "Не выполнено:",
        "",
        FORWARD_NOTE,
        "",
        "Пропущено — это не команды:",
        "> Смотрите ниже",
        "",
        FOOTER,
    ]


def test_case13_own_move_applied_and_the_attached_one_not(maniac: ManiacTable) -> None:
    own = b"--b2\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + "ГОЛОС: Петя\r\n".encode()
    raw = from_player(maniac, "Вася", attached(own), content_type=MIXED)
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert votes(maniac) == {"Вася": "Петя"}
    assert answer(mails, EMAILS["Вася"]) == [
        *VOTE_PETYA,
        "В письме есть пересланное письмо: ходы из него не выполняются — это ходы не ваши. "
        "Если там ваши ходы, пришлите их сами, своим текстом, ответом на это письмо.",
        "",
        FOOTER,
    ]


@pytest.mark.parametrize(
    "separator",
    [
        "---------- Forwarded message ---------",
        "-------- Пересылаемое сообщение --------",
        "Begin forwarded message:",
        "-------- Перенаправленное сообщение --------",
    ],
)
def test_case13_an_inline_forward_is_never_executed(maniac: ManiacTable, separator: str) -> None:
    text = (
        f"Глянь\r\n\r\n{separator}\r\nОт: Таня <tanya@example.test>\r\n"
        "Дата: пн, 3 мар. 2025 г. в 10:15\r\nТема: ход\r\nКому: <gm@example.test>\r\n\r\n"
        "ГОЛОС: Оля\r\n"
    )
    raw = from_player(maniac, "Вася", text.encode())
    letter = read_letter(raw)
    assert (letter.text, letter.forwarded) == ("Глянь", True)
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["refused"]
    assert votes(maniac) == {}
    assert answer(mails, EMAILS["Вася"])[2] == FORWARD_NOTE


# --- the reply states the moves as understood, sorted -----------------------------------


def test_reply_sorts_applied_refused_and_ignored_lines_with_the_moves_understood(
    maniac: ManiacTable,
) -> None:
    raw = from_player(
        maniac,
        "Вася",
        "Привет всем!\r\nголос за петю\r\nУБИТЬ Таню\r\nГолсо Оля\r\nну и денёк\r\n".encode(),
    )
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["partly_applied"]
    assert answer(mails, EMAILS["Вася"]) == [
        "Выполнено:",
        "",
        "> голос за петю",
        "Понял: ГОЛОС за Петю",
        "Принято: ваш голос — за Петю. Сегодня это ваш 1-й голос за этого игрока.",
        "",
        "Для форума (скопируйте в тред игры):",
        "",
        "[b]Голосую за Петю[/b]",
        "",
        "Не выполнено:",
        "",
        "> УБИТЬ Таню",
        "Понял: УБИТЬ Таню",
        "Заказы на убийство и пропуски (УБИТЬ, ПРОПУСК) делает только маньяк. "
        "Вы можете голосовать: ГОЛОС <игрок>.",
        "",
        "> Голсо Оля",
        "Не понял команду «Голсо» — возможно, ГОЛОС?",
        "Команды: ГОЛОС, ГОЛОС ТЮРЬМА, СНЯТЬ ГОЛОС, УБИТЬ, ПРОПУСК, СТАТУС, ПОМОЩЬ (или "
        "по-английски: VOTE, VOTE PRISON, UNVOTE, KILL, SKIP, STATUS, HELP), каждая с начала "
        "строки.",
        "",
        "Пропущено — это не команды:",
        "> Привет всем!",
        "> ну и денёк",
        "",
        FIX,
        FOOTER,
    ]


def test_reply_in_english_states_the_suggestion_understood(tmp_path: Path) -> None:
    table = Table(tmp_path, locale="en")
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        table.send(
            "Кросс", "Hi!", "suggest маша ножом в спальне для Дуга", at=utc(2026, 12, 1, 17, 5)
        )
        assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
        lines = named_body(table.new_mail()[0], "seed-000").splitlines()
        assert lines[2:7] == [
            "Done:",
            "",
            "> suggest маша ножом в спальне для Дуга",
            "Understood: SUGGEST Маша, Нож, Спальня TO Дуг",
            "Accepted: suggestion #1 to Дуг (Маша, Нож, Спальня). Дуг gets it by mail.",
        ]
        assert lines[-4:-1] == ["Ignored — these are not commands:", "> Hi!", ""]
    finally:
        table.close()


def test_case13_a_gmail_html_forward_is_never_executed(maniac: ManiacTable) -> None:
    html = (
        '<div dir="ltr"><br><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        "---------- Forwarded message ---------<br>От: <strong>Таня</strong> "
        "&lt;tanya@example.test&gt;<br>Date: пн, 3 мар. 2025 г. в 10:15<br></div><br>"
        "<div>ГОЛОС: Оля</div></div></div>\r\n"
    )
    payload = (
        b"--b1\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n\r\n"
        b"--b1\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n" + html.encode() + b"--b1--\r\n"
    )
    raw = from_player(
        maniac, "Вася", payload, content_type=b'Content-Type: multipart/alternative; boundary="b1"'
    )
    letter = read_letter(raw)
    assert (letter.text, letter.forwarded) == ("", True)
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["refused"]
    assert votes(maniac) == {}
    assert answer(mails, EMAILS["Вася"])[2] == FORWARD_NOTE


def test_reply_lists_at_most_ten_ignored_lines_each_cut(maniac: ManiacTable) -> None:
    chat = ["ы" * 100] + [f"строка {n}" for n in range(1, 13)]
    raw = from_player(maniac, "Вася", "\r\n".join(["ГОЛОС: Петя", *chat, ""]).encode())
    outcomes, mails = run(maniac, raw)
    assert outcomes == ["applied"]
    assert answer(mails, EMAILS["Вася"])[len(VOTE_PETYA) :] == [
        "Пропущено — это не команды:",
        "> " + "ы" * 79 + "…",
        *[f"> строка {n}" for n in range(1, 10)],
        "…и ещё 3 строки.",
        "",
        FOOTER,
    ]


def test_reply_in_english_states_the_maniac_order_understood(tmp_path: Path) -> None:
    table = ManiacTable(tmp_path, locale="en")
    try:
        table.run(START)
        table.new_mail()
        mails = table.move("Коля", "убиваю Васю на 2-ю ночь", "пропуск", at=DAY_1)
        lines = answer(mails, EMAILS["Коля"])
        assert [line for line in lines if line.startswith(("> ", "Understood: "))] == [
            "> убиваю Васю на 2-ю ночь",
            "Understood: KILL Вася NIGHT 2",
            "> пропуск",
            "Understood: SKIP",
        ]
        assert lines[0] == "Done:"
    finally:
        table.close()
