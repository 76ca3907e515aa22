"""Mail that broke pbp when a hostile tester played it as players and their clients do
(issue 5, second pass). One test per finding, raw bytes or real pbp mail, exact values.

Cluedo cases play seed 000's game (:mod:`kits.table`: Кросс, Дуг, Роза; help examples
ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза and ОБВИНЕНИЕ Маша, Топор, Столовая —
which in that deal is the solution); Maniac cases seed 002's (:mod:`kits.maniac_table`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from kits.maniac_table import EMAILS as MANIAC_EMAILS
from kits.maniac_table import START as MANIAC_START
from kits.maniac_table import ManiacTable
from kits.seed_000 import CARDS as CLUEDO_CARDS
from kits.seed_000 import PLAYERS as CLUEDO_PLAYERS
from kits.table import EMAILS, Table, body, named_body, utc
from test_real_mail import message

from pbp.app.playermoves import subject_moves
from pbp.games.cluedo.cards import Accuse, Suggest
from pbp.games.cluedo.parse import parse_cluedo
from pbp.games.core.events import InvalidMove
from pbp.games.maniac.engine import Vote
from pbp.games.maniac.parse import parse_maniac
from pbp.mail.maildir import deliver
from pbp.mail.read.body import new_text
from pbp.mail.read.echo import strip_help_echo
from pbp.mail.read.mime import read_letter

START = utc(2026, 12, 1, 17)
DAY = utc(2026, 12, 1, 18)
MANIAC_DAY = MANIAC_START + timedelta(hours=1)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(START)
    table.new_mail()
    yield table
    table.close()


def help_reply(table: Table) -> tuple[str, str]:
    """Кросс asks for HELP: (the Message-ID of pbp's reply, its body with CRLF lines)."""
    table.send("Кросс", "ПОМОЩЬ", at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    (reply,) = table.new_mail()
    return str(reply["Message-ID"]), "\r\n".join(body(reply).splitlines())


def cross(table: Table, payload: str, *headers: bytes) -> bytes:
    to = f"gm+{table.token('Кросс')}@example.test"
    return message(EMAILS["Кросс"], to, payload.encode(), *headers)


def understood(table: Table) -> list[str]:
    """The ``Понял:`` lines of the one reply to Кросс, and whether anything was mailed
    to the GM about an accusation."""
    mails = table.new_mail()
    (reply,) = [m for m in mails if m["To"] == EMAILS["Кросс"]]
    lines = [line for line in body(reply).splitlines() if line.startswith("Понял:")]
    accusations = [m for m in mails if "Обвинение" in str(m["Subject"])]
    return [*lines, f"accusation mails: {len(accusations)}"]


# --- our help pasted back: its example moves are never executed -----------------------


def test_help_quoted_unmarked_in_a_reply_with_references_only_is_never_executed(
    table: Table,
) -> None:
    """Some webmails send References without In-Reply-To. The HELP reply quoted back
    without ``>`` held ПРЕДПОЛОЖЕНИЕ … ДЛЯ Роза and ОБВИНЕНИЕ Маша, Топор, Столовая:
    both were executed (the accusation won the game for a player who wrote STATUS)."""
    message_id, echoed = help_reply(table)
    raw = cross(table, "СТАТУС\r\n\r\n" + echoed + "\r\n", b"References: " + message_id.encode())
    deliver(table.inbox_path, raw, at=DAY + timedelta(minutes=5))
    assert table.run(DAY + timedelta(minutes=6)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_help_pasted_into_a_fresh_mail_is_never_executed(table: Table) -> None:
    """No threading at all: a new mail with STATUS and the help pasted below it."""
    _message_id, echoed = help_reply(table)
    raw = cross(table, "СТАТУС\r\n\r\n" + echoed + "\r\n")
    deliver(table.inbox_path, raw, at=DAY + timedelta(minutes=5))
    assert table.run(DAY + timedelta(minutes=6)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_welcome_mail_pasted_into_a_fresh_mail_is_never_executed(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        table.run(START)
        (welcome,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
        pasted = "\r\n".join(body(welcome).splitlines())
        deliver(table.inbox_path, cross(table, "СТАТУС\r\n" + pasted + "\r\n"), at=DAY)
        assert table.run(DAY + timedelta(minutes=1)) == ["status"]
        assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]
    finally:
        table.close()


def test_the_two_language_example_pair_alone_is_an_echo(table: Table) -> None:
    """The help gives each move twice (Russian, then English): the pair pasted alone."""
    raw = cross(
        table,
        "СТАТУС\r\n    ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Розы\r\n"
        "    SUGGEST Маша, Топор, Столовая TO Розы\r\n",
    )
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_a_move_that_equals_a_help_example_written_alone_is_applied(table: Table) -> None:
    """The player may mean it: one example line (or two that are no neighbours in the
    help) is his own move."""
    raw = cross(table, "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза\r\nОПРОВЕРЖЕНИЕ 7 Топор\r\n")
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["partly_applied"]
    assert understood(table) == [
        "Понял: ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Розы",
        "Понял: ОПРОВЕРЖЕНИЕ 7 Топор",
        "accusation mails: 0",
    ]


def test_strip_help_echo_cuts_at_the_first_line_of_the_pasted_run() -> None:
    help_text = (
        "Commands, one a line:\n\nREFUTE [N] <card>\n    REFUTE 7 knife\n    NO REFUTATION 7\n"
    )
    assert strip_help_echo("STATUS\nREFUTE [N] <card>\nREFUTE 7 knife", help_text) == "STATUS"
    assert strip_help_echo("REFUTE 7 knife\n\nNO REFUTATION 7\nx", help_text) == ""
    assert strip_help_echo("REFUTE 7 knife\nSTATUS\nNO REFUTATION 7", help_text) == (
        "REFUTE 7 knife\nSTATUS\nNO REFUTATION 7"
    )
    assert new_text("STATUS") == "STATUS"


# --- reply headers without the sender's address ------------------------------------------

ATTRIBUTIONS_WITHOUT_ADDRESS = [
    "Среда, 12 марта 2025, 10:15 +03:00 от Ведущий:",  # Mail.ru
    "12 марта 2025 г., в 10:15, Ведущий:",
    "Wednesday, March 12, 2025 10:15 AM, Ведущий:",
    "Ср, 12 мар 2025 в 10:15 Ведущий:",
]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS_WITHOUT_ADDRESS)
def test_a_reply_header_with_a_time_and_a_year_but_no_address_ends_the_new_text(
    attribution: str,
) -> None:
    """Mail.ru quotes without ``>`` under ``… от Ведущий:``: the old move below it was
    executed as new."""
    quoted = f"СТАТУС\n\n{attribution}\nПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза\n"
    assert new_text(quoted) == "СТАТУС"


def test_a_mailru_quote_without_address_is_not_executed(table: Table) -> None:
    raw = cross(
        table,
        "СТАТУС\r\n\r\nСреда, 12 марта 2025, 10:15 +03:00 от Ведущий:\r\n"
        "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза\r\n",
    )
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_a_command_line_with_a_colon_is_no_reply_header() -> None:
    assert new_text("ГОЛОС: Петя\nПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза:") == (
        "ГОЛОС: Петя\nПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза:"
    )


# --- what cannot be read is explained in the player's language ---------------------------

SMIME = (
    b"Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m",
    b"Content-Transfer-Encoding: base64\r\n\r\nMIAGCSqGSIb3DQEHA6CAMIACAQAx",
)
PGP = (
    b'Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary=EE',
    b"\r\n--EE\r\nContent-Type: application/pgp-encrypted\r\n\r\nVersion: 1\r\n--EE\r\n"
    b"Content-Type: application/octet-stream\r\n\r\n-----BEGIN PGP MESSAGE-----\r\nhQEMA\r\n"
    b"-----END PGP MESSAGE-----\r\n--EE--",
)
TNEF = (
    b"Content-Type: multipart/mixed; boundary=TT",
    b"\r\n--TT\r\nContent-Type: application/ms-tnef; name=winmail.dat\r\n"
    b"Content-Transfer-Encoding: base64\r\n\r\neJ8+IhEAAQaQCAAEAAAAAAABAAEAAQeQBgAIAAAA\r\n--TT--",
)
PDF = (
    b"Content-Type: multipart/mixed; boundary=XX",
    b"\r\n--XX\r\nContent-Type: application/pdf; name=moves.pdf\r\nContent-Disposition: "
    b"attachment; filename=moves.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n"
    b"--XX--",
)
WHY = {
    "encrypted": (
        "оно зашифровано или подписано так, что текст виден только после расшифровки "
        "(S/MIME или PGP)",
        "Пришлите ходы ещё раз обычным текстом, без шифрования.",
    ),
    "winmail": (
        "Outlook отправил его в формате RTF (вложение winmail.dat), а не обычным текстом",
        "Пришлите ходы ещё раз обычным текстом: в Outlook выберите формат письма «Обычный "
        "текст» или HTML.",
    ),
    "attachments_only": (
        "в нём нет текста, только вложения",
        "Пришлите ходы ещё раз текстом в самом письме, а не во вложении.",
    ),
}


@pytest.mark.parametrize(
    ("parts", "code"),
    [(SMIME, "encrypted"), (PGP, "encrypted"), (TNEF, "winmail"), (PDF, "attachments_only")],
)
def test_an_unreadable_mail_is_explained_in_the_games_language(
    table: Table, parts: tuple[bytes, bytes], code: str
) -> None:
    """The answer was "Ваше письмо не удалось прочитать (no text/plain or text/html part
    (the message is multipart/encrypted))": English inside Russian, and no hint what to
    do. The technical reason stays in `pbp kept` and the GM's notice."""
    head, payload = parts
    to = f"gm+{table.token('Кросс')}@example.test"
    raw = message(EMAILS["Кросс"], to, payload.lstrip(b"\r\n"), content_type=head)
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["unreadable"]
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    why, what = WHY[code]
    assert named_body(reply, "seed-000").splitlines() == [
        f"Здравствуйте! Ваше письмо не удалось прочитать: {why}. Поэтому ходы из него не "
        "выполнены. Письмо сохранено, ГМ получил уведомление.",
        what,
    ]
    (kept,) = table.store.kept()
    assert kept.reason.startswith("unreadable: no text/plain or text/html part (the message is ")


def test_an_unreadable_mail_is_explained_in_english_for_an_english_game(tmp_path: Path) -> None:
    table = Table(tmp_path, locale="en")
    try:
        table.run(START)
        table.new_mail()
        to = f"gm+{table.token('Кросс')}@example.test"
        head, payload = TNEF
        raw = message(EMAILS["Кросс"], to, payload.lstrip(b"\r\n"), content_type=head)
        deliver(table.inbox_path, raw, at=DAY)
        assert table.run(DAY + timedelta(minutes=1)) == ["unreadable"]
        (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
        assert named_body(reply, "seed-000").splitlines() == [
            "Hello! Your mail could not be read: Outlook sent it in Rich Text format (the "
            "attachment winmail.dat), not as plain text. So its moves were not carried out. "
            "It is kept and the GM has been told.",
            "Please send your moves again as plain text: in Outlook choose the message format "
            "Plain Text or HTML.",
        ]
    finally:
        table.close()


# --- a move in the Subject alone ------------------------------------------------------------


@pytest.mark.parametrize(
    "subject",
    [
        b"Subject: STATUS",
        b"Subject: Re: [seed-000] =?UTF-8?B?0KHQotCQ0KLQo9Ch?=",
        b"Subject: =?UTF-8?B?0J7RgtCyOg==?= RE[2]: [pbp-x] STATUS",
    ],
)
def test_a_move_in_the_subject_alone_is_answered_saying_moves_are_read_from_the_text(
    table: Table, subject: bytes
) -> None:
    """The answer was the bare "no command found", which a player who wrote his move in
    the Subject cannot understand. The Subject is still never executed."""
    to = f"gm+{table.token('Кросс')}@example.test"
    deliver(table.inbox_path, message(EMAILS["Кросс"], to, b"\r\n", subject=subject), at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["refused"]
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    written = "СТАТУС" if b"B?0KHQ" in subject else "STATUS"
    assert named_body(reply, "seed-000").splitlines()[2:5] == [
        "Не выполнено:",
        "",
        f"В тексте письма не найдено ни одной команды, а в теме письма — "
        f"«{written}». Ходы читаются только из текста письма, не из темы: напишите команду "
        "в самом письме, отдельной строкой.",
    ]


def test_a_subject_that_is_no_move_gets_the_plain_no_command_answer(table: Table) -> None:
    to = f"gm+{table.token('Кросс')}@example.test"
    raw = message(EMAILS["Кросс"], to, b"\r\n", subject=b"Subject: Re: [seed-000] hello")
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["refused"]
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    assert named_body(reply, "seed-000").splitlines()[4].startswith("В письме не найдено ни одной")


def test_subject_moves_strips_reply_prefixes_and_tags() -> None:
    assert subject_moves("Re: Fwd: [exler-1] Re[3]: STATUS [pbp-k3x9]") == "STATUS"
    assert subject_moves("Ответ: Отв: ГОЛОС Петя") == "ГОЛОС Петя"
    assert subject_moves("AW: SV: (no subject)") == "(no subject)"


# --- a wrong Content-Transfer-Encoding --------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        "СТАТУС\r\n",  # not base64 at all
        "STATUS\r\n",  # base64 letters only, but decodes to control bytes
        "REFUTE 7 Нож\r\nSTATUS\r\n",
    ],
)
def test_a_plain_body_labelled_base64_is_read_as_written(payload: str) -> None:
    """A relay or client that labels a plain body base64: the answer was "no command"
    with the decoded garbage (``I0Q``) listed as ignored."""
    raw = message(
        EMAILS["Кросс"],
        "gm+x@example.test",
        payload.encode(),
        b"Content-Transfer-Encoding: base64",
    )
    assert read_letter(raw).text == payload.strip().replace("\r\n", "\n")


@pytest.mark.parametrize(
    "payload",
    [b"0KHQotCQ0KLQo9ChDQo=\r\n", b"0KHQotCQ0KLQo9ChDQo\r\n", b"0KHQotCQ\r\n0KLQo9Ch\r\n"],
)
def test_real_base64_with_or_without_padding_is_decoded(payload: bytes) -> None:
    raw = message(
        EMAILS["Кросс"], "gm+x@example.test", payload, b"Content-Transfer-Encoding: base64"
    )
    assert read_letter(raw).text == "СТАТУС"


def test_a_sender_domain_with_the_final_dns_dot_is_the_players_address(table: Table) -> None:
    """``maria@example.test.`` is the same mailbox; it was an unknown sender answered at
    an address that mail clients cannot parse."""
    to = f"gm+{table.token('Кросс')}@example.test"
    raw = message("Кросс <cross@example.test.>", to, "СТАТУС\r\n".encode())
    assert read_letter(raw).from_address == "cross@example.test"
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


# --- a vote that names two players -------------------------------------------------------

MANIAC_PLAYERS = ["Вася", "Петя", "Таня", "Оля", "Саша", "Маша"]


@pytest.mark.parametrize(
    "line", ["ГОЛОС: Петя, Таня", "VOTE Петя, Таня", "ГОЛОС за Петю, Таню", "ГОЛОС Петю; Олю"]
)
def test_a_vote_naming_two_players_is_refused_not_read_as_the_first(line: str) -> None:
    """It was applied as a vote for Петя: a move the player did not write."""
    (parsed,) = parse_maniac(line, MANIAC_PLAYERS)
    assert parsed.move is None
    assert isinstance(parsed.error, InvalidMove)
    assert parsed.error.code == "vote_syntax"


@pytest.mark.parametrize(
    "line", ["ГОЛОС за Петю, потому что он молчит", "ГОЛОС Петя, Таня — подумайте", "ГОЛОС Петю!"]
)
def test_a_vote_with_chat_after_the_name_is_still_the_vote(line: str) -> None:
    (parsed,) = parse_maniac(line, MANIAC_PLAYERS)
    assert parsed.move == Vote("Петя")


# --- a suggestion to two players -------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "players"),
    [
        ("SUGGEST Белых, нож, кухня TO Веталь, Дуг", ["Веталь", "Дуг"]),
        ("ПРЕДПОЛОЖЕНИЕ Белых, нож, кухня ДЛЯ Веталя; Дуга", ["Веталь", "Дуг"]),
        ("SUGGEST Белых, нож, кухня TO Веталь, Дуг, Моро", ["Веталь", "Дуг", "Моро"]),
    ],
)
def test_a_suggestion_to_two_players_is_refused_not_sent_to_the_first(
    line: str, players: list[str]
) -> None:
    """It was sent to Веталь alone: the player did not write that."""
    (parsed,) = parse_cluedo(line, CLUEDO_CARDS, CLUEDO_PLAYERS)
    assert parsed.move is None
    assert isinstance(parsed.error, InvalidMove)
    assert parsed.error.code == "several_addressees"
    assert parsed.error.params == {"players": players, "line": line}


@pytest.mark.parametrize(
    "line",
    [
        "SUGGEST Белых, нож, кухня TO Веталь. Спасибо!",
        "SUGGEST Белых, нож, кухня TO Веталь, Веталь",
    ],
)
def test_a_suggestion_with_chat_after_the_addressee_is_still_the_suggestion(line: str) -> None:
    (parsed,) = parse_cluedo(line, CLUEDO_CARDS, CLUEDO_PLAYERS)
    assert parsed.move == Suggest("Белых", "нож", "кухня", addressee="Веталь")


def test_a_suggestion_to_two_players_is_answered_saying_so(table: Table) -> None:
    deliver(table.inbox_path, cross(table, "SUGGEST Петя, Нож, Спальня TO Дуг, Роза\r\n"), at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["refused"]
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    assert named_body(reply, "seed-000").splitlines()[2:6] == [
        "Не выполнено:",
        "",
        "> SUGGEST Петя, Нож, Спальня TO Дуг, Роза",
        "Предположение адресуется одному игроку, а в строке названы несколько: "
        "Дуг, Роза. Оставьте одного и пришлите ход ещё раз.",
    ]


# --- numbered and bulleted lists ------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "move"),
    [
        ("1. ГОЛОС Таня", Vote("Таня")),
        ("2) VOTE Петя", Vote("Петя")),
        ("• ГОЛОС за Таню", Vote("Таня")),
    ],
)
def test_a_numbered_or_bulleted_maniac_command_is_read(line: str, move: Vote) -> None:
    """Phones number a list of lines: ``1. ГОЛОС Таня`` was answered "no command"."""
    (parsed,) = parse_maniac(line, MANIAC_PLAYERS)
    assert parsed.move == move


def test_numbered_cluedo_commands_are_read() -> None:
    parsed = parse_cluedo(
        "1. SUGGEST Белых, нож, кухня TO Веталь\n2. ACCUSE Белых, нож, кухня",
        CLUEDO_CARDS,
        CLUEDO_PLAYERS,
    )
    assert [p.move for p in parsed] == [
        Suggest("Белых", "нож", "кухня", addressee="Веталь"),
        Accuse("Белых", "нож", "кухня"),
    ]


def test_a_number_without_a_list_mark_is_no_command() -> None:
    assert parse_maniac("2025 ГОЛОС Таня", MANIAC_PLAYERS) == []


# --- a Message-ID reused by another player's client ---------------------------------------


def test_another_players_mail_with_the_same_message_id_is_no_duplicate(table: Table) -> None:
    """Some clients reuse a fixed Message-ID: Дуг's mail was taken for a copy of
    Кросс's, neither applied, nor answered, nor kept."""
    same = b"Message-ID: <1@localhost>"
    first = cross(table, "СТАТУС\r\n").replace(b"Message-ID: <real-", b"X-Old-ID: <real-", 1)
    to = f"gm+{table.token('Дуг')}@example.test"
    second = message(EMAILS["Дуг"], to, "СТАТУС\r\n".encode())
    second = second.replace(b"Message-ID: <real-", b"X-Old-ID: <real-", 1)
    deliver(table.inbox_path, first.replace(b"\r\n\r\n", b"\r\n" + same + b"\r\n\r\n", 1), at=DAY)
    deliver(
        table.inbox_path,
        second.replace(b"\r\n\r\n", b"\r\n" + same + b"\r\n\r\n", 1),
        at=DAY + timedelta(seconds=1),
    )
    deliver(
        table.inbox_path,
        first.replace(b"\r\n\r\n", b"\r\n" + same + b"\r\n\r\n", 1),
        at=DAY + timedelta(seconds=2),
    )
    assert table.run(DAY + timedelta(minutes=1)) == ["status", "status", "duplicate"]
    assert [m["To"] for m in table.new_mail()] == [EMAILS["Кросс"], EMAILS["Дуг"]]


# --- a mail to two personal addresses -----------------------------------------------------


def test_a_mail_to_the_senders_and_another_players_address_is_the_senders(table: Table) -> None:
    """Кросс wrote to Дуг's address and his own (a Cc): it was refused as sent to another
    player's address, his STATUS unanswered."""
    to = f"gm+{table.token('Дуг')}@example.test, gm+{table.token('Кросс')}@example.test"
    deliver(table.inbox_path, message(EMAILS["Кросс"], to, "СТАТУС\r\n".encode()), at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


# --- Outlook on the web -----------------------------------------------------------------------

OWA_REPLY = (
    '<div>ПРЕДПОЛОЖЕНИЕ Петя, Нож, Спальня ДЛЯ Дуг</div><hr style="display:inline-block;'
    'width:98%"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>От:</b> pbp '
    "&lt;gm@example.test&gt;<br><b>Отправлено:</b> 1 декабря 2026 г. 20:15<br><b>Кому:</b> "
    "Кросс<br><b>Тема:</b> ход</font><div>&nbsp;</div></div><div>ОБВИНЕНИЕ Маша, Топор, "
    "Столовая</div>"
)


def test_an_outlook_web_html_reply_leaves_neither_its_rule_nor_the_quoted_move() -> None:
    """The rule above the quote came out as an ignored line "* * *"."""
    raw = message(
        EMAILS["Кросс"],
        "gm+x@example.test",
        OWA_REPLY.encode(),
        content_type=b"Content-Type: text/html; charset=utf-8",
    )
    assert read_letter(raw).text == "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Спальня ДЛЯ Дуг"


def test_maniac_help_pasted_into_a_fresh_mail_is_never_executed(tmp_path: Path) -> None:
    """The Maniac help's examples (УБИТЬ … НОЧЬ 2, ГОЛОС за …) pasted back unthreaded."""
    maniac = ManiacTable(tmp_path)
    try:
        maniac.run(MANIAC_START)
        maniac.new_mail()
        maniac.move("Вася", "ПОМОЩЬ", at=MANIAC_DAY)
        (ours,) = [m for m in maniac.sent() if m["To"] == MANIAC_EMAILS["Вася"]][-1:]
        pasted = "\r\n".join(body(ours).splitlines())
        to = f"gm+{maniac.token('Вася')}@example.test"
        raw = message(MANIAC_EMAILS["Вася"], to, ("СТАТУС\r\n" + pasted + "\r\n").encode())
        deliver(maniac.inbox_path, raw, at=MANIAC_DAY + timedelta(minutes=5))
        assert maniac.run(MANIAC_DAY + timedelta(minutes=6)) == ["status"]
        (reply,) = [m for m in maniac.new_mail() if m["To"] == MANIAC_EMAILS["Вася"]]
        lines = [line for line in body(reply).splitlines() if line.startswith("Понял:")]
        assert lines == ["Понял: СТАТУС"]
    finally:
        maniac.close()


# --- charsets labelled right but read wrong ----------------------------------------------------


def labelled(payload: bytes, charset: str) -> bytes:
    """A mail from Кросс whose text part is ``payload`` labelled ``charset``."""
    return message(
        EMAILS["Кросс"],
        "gm+x@example.test",
        payload,
        content_type=f"Content-Type: text/plain; charset={charset}".encode(),
    )


@pytest.mark.parametrize(
    ("charset", "codec"),
    [
        ("x-mac-cyrillic", "mac-cyrillic"),  # old Mac Mail: was read as windows-1251
        ("utf-16le", "utf-16-le"),  # no byte-order mark: every byte is ASCII
        ("UTF-16BE", "utf-16-be"),
        ("utf-7", "utf-7"),
    ],
)
def test_a_rightly_labelled_rare_charset_is_read(charset: str, codec: str) -> None:
    raw = labelled("ГОЛОС: Петя\r\n".encode(codec), charset)
    assert read_letter(raw).text == "ГОЛОС: Петя"


def test_ascii_text_labelled_utf16_is_read_as_ascii() -> None:
    raw = labelled(b"STATUS\r\n", "utf-16le")
    assert read_letter(raw).text == "STATUS"


# --- text no mail can carry ------------------------------------------------------------------


def test_a_lone_surrogate_in_utf7_is_read_as_a_replacement_character() -> None:
    """UTF-7 can encode half a surrogate pair (``+2AA-``), which no reply can quote."""
    raw = labelled(b"STATUS +2AA-\r\n", "utf-7")
    assert read_letter(raw).text == "STATUS \ufffd"


@pytest.mark.parametrize("charset", ["unicode-escape", "raw-unicode-escape"])
def test_a_python_codec_that_is_no_charset_is_an_unknown_label(charset: str) -> None:
    """Python reads backslash escapes with these; a mail's label is no program."""
    raw = labelled("STATUS \\ud800 \\u0413 Г\r\n".encode("cp1251"), charset)
    assert read_letter(raw).text == "STATUS \\ud800 \\u0413 Г"


def test_a_move_beside_a_lone_surrogate_is_answered(table: Table) -> None:
    """The mail was set aside as an error: the reply quoting its line could not be
    encoded."""
    raw = message(
        EMAILS["Кросс"],
        f"gm+{table.token('Кросс')}@example.test",
        b"+2AA-\r\n" + "СТАТУС\r\n".encode("utf-7"),
        content_type=b"Content-Type: text/plain; charset=utf-7",
    )
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    assert [line for line in body(reply).splitlines() if line.startswith("Понял:")] == [
        "Понял: СТАТУС"
    ]
