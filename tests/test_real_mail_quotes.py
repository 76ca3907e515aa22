"""Real mail, second pass (issue 13): a line that may be quoted is never executed, and a
move written plainly is never missed. One test per kind of trouble, raw bytes through
the service: Вася first votes for Оля, then answers with a vote for Петя written
plainly and, where there is a quote, his old vote for Оля inside it. The old vote must
never run again (M9 counts each vote cast), and the new one must stand.

Plays seed 002's Maniac game (:mod:`kits.maniac_table`); the shapes are invented after the
public reports cited in the issue (email_reply_parser #43, twenty #25330, imap_tools
#247, Gmail-MCP-Server #88, DSharpPlus #2266, boxel #3561, NiKom #124,
email-reply-parser #64).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from kits.maniac_table import EMAILS, ManiacTable
from kits.table import EMAILS as CLUEDO_EMAILS
from kits.table import Table, body, utc
from test_real_mail import DAY_1, FOOTER, VOTE_PETYA, answer, from_player, message, run, votes

from pbp.games.maniac.engine import Vote
from pbp.games.maniac.parse import parse_maniac
from pbp.mail.read.body import split_reply
from pbp.mail.read.mime import read_letter

REPLY_AT = DAY_1 + timedelta(minutes=10)
CLUEDO_START = utc(2026, 12, 1, 17)
VASYA = EMAILS["Вася"]


@pytest.fixture
def maniac(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    table.run(DAY_1 - timedelta(minutes=30))
    table.new_mail()
    outcomes, _mails = run(table, from_player(table, "Вася", "ГОЛОС Оля\r\n".encode()))
    assert outcomes == ["applied"]
    assert votes(table) == {"Вася": "Оля"}
    yield table
    table.close()


def own_and_doubtful(text: str) -> tuple[str, tuple[str, ...]]:
    reply = split_reply(text)
    return reply.text, reply.doubtful


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def reply(table: ManiacTable, raw: bytes) -> list[str]:
    """Deliver Вася's ``raw`` reply: his answer's lines (greeting and footer cut)."""
    outcomes, mails = run(table, raw, at=REPLY_AT)
    assert outcomes == ["applied"]
    return answer(mails, VASYA)


def understood(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("Понял:")]


def looks_quoted_section(lines: list[str]) -> list[str]:
    """The answer's "looks quoted" section: its heading, the lines, the advice."""
    start = lines.index("Похоже на цитату — не выполнено:")
    end = lines.index("", start)
    return lines[start:end]


ADVICE = (
    "Эти строки стоят в цитате или неотличимы от неё: отмечены «>», стоят вплотную под "
    "строкой цитаты, под заголовком цитируемого письма или сообщения с форума, в подписи "
    "или сами похожи на такой заголовок. Если это ваш ход, пришлите его ещё раз отдельной "
    "строкой выше любой цитаты."
)


# --- 1. a re-wrapped quoted line that lost its ">" --------------------------------------


def test_kind1_a_rewrapped_quote_line_without_its_marker_is_not_executed(
    maniac: ManiacTable,
) -> None:
    """iPhone re-flowed a long quoted line: its continuation ``ГОЛОС Оля`` sits between
    ``>`` lines without a marker. Executed before (Вася's vote went back to Оля)."""
    raw = from_player(
        maniac,
        "Вася",
        crlf(
            "ГОЛОС Петя\n\n"
            "1 дек. 2026 г., в 12:40, pbp <gm@example.test> написал(а):\n\n"
            "> Вася, вот что сделано по вашему письму. Принято: ваш голос — за Олю. Чтобы\n"
            "> изменить голос, пришлите новую строку, например\n"
            "ГОЛОС Оля\n"
            "> и он заменит прежний.\n"
        ),
    )
    assert read_letter(raw).text == "ГОЛОС Петя"
    assert read_letter(raw).doubtful == ("ГОЛОС Оля",)
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert lines == [
        *[line.replace("ГОЛОС: Петя", "ГОЛОС Петя") for line in VOTE_PETYA],
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Оля",
        ADVICE,
        "",
        FOOTER,
    ]


def test_kind1_a_line_right_under_the_last_quoted_line_is_not_executed(
    maniac: ManiacTable,
) -> None:
    """The quote's last line re-wrapped: its continuation closes the quote block."""
    raw = from_player(
        maniac,
        "Вася",
        crlf("> Принято: ваш голос — за Олю. Чтобы изменить, пришлите\nГОЛОС Оля\n\nГОЛОС Петя\n"),
    )
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]
    assert looks_quoted_section(lines) == [
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Оля",
        ADVICE,
    ]


def test_kind1_a_doubtful_line_alone_is_answered_looks_quoted_not_no_command(
    maniac: ManiacTable,
) -> None:
    """Nothing but the doubtful line: the answer says it looks quoted (no "no command")."""
    raw = from_player(maniac, "Вася", crlf("> Ваш голос?\nГОЛОС Петя\n"))
    outcomes, mails = run(maniac, raw, at=REPLY_AT)
    assert outcomes == ["status"]
    assert votes(maniac) == {"Вася": "Оля"}
    lines = answer(mails, VASYA)
    assert looks_quoted_section(lines) == [
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Петя",
        ADVICE,
    ]
    assert not any(line.startswith("Не выполнено") for line in lines)


def test_kind1_looks_quoted_in_english(tmp_path: Path) -> None:
    table = ManiacTable(tmp_path, locale="en")
    table.run(DAY_1 - timedelta(minutes=30))
    table.new_mail()
    raw = from_player(
        table, "Вася", crlf("VOTE Петя\n\n> To change it, write\nVOTE Оля\n> again.\n")
    )
    outcomes, mails = run(table, raw)
    assert outcomes == ["applied"]
    assert votes(table) == {"Вася": "Петя"}
    lines = answer(mails, VASYA)
    start = lines.index("Looks quoted — not done:")
    assert lines[start : start + 3] == [
        "Looks quoted — not done:",
        "> VOTE Оля",
        "These lines are in a quote or cannot be told from one: marked with “>”, right under "
        "a quoted line, under the header of a quoted mail or forum post, in a signature, or "
        "looking like such a header themselves. If you meant them, send them again on lines "
        "of their own, above any quote.",
    ]
    table.close()


# --- 2. an Outlook header block in another language -------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        # Outlook for Mac/iOS in Ukrainian, without the underscore line.
        "Від: pbp <gm@example.test>\nДата: вівторок, 1 грудня 2026 р. о 12:40\n"
        "Кому: Вася <vasya@example.test>\nТема: Re: ход\n",
        # Polish: no word list of pbp's knows these keys; the structure does.
        "Od: pbp <gm@example.test>\nWysłano: wtorek, 1 grudnia 2026 12:40\n"
        "Do: vasya@example.test\nTemat: Re: ход\n",
        # Bold keys, the date first.
        "*Дата:* 01.12.2026\n*Від:* pbp <gm@example.test>\n*Кому:* Вася\n",
    ],
    ids=["ukrainian", "polish", "bold-date-first"],
)
def test_kind2_a_header_block_in_any_language_ends_the_new_text(
    maniac: ManiacTable, header: str
) -> None:
    """The unmarked quote below a header block of another language was executed."""
    raw = from_player(
        maniac,
        "Вася",
        crlf(f"ГОЛОС Петя\n\n{header}\nВася, вот что сделано по вашему письму.\nГОЛОС Оля\n"),
    )
    assert read_letter(raw).text == "ГОЛОС Петя"
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]
    assert "Похоже на цитату — не выполнено:" not in lines


def test_kind2_two_command_lines_with_colons_are_no_header_block() -> None:
    """Fields need an address and a date: a player's own ``Key: value`` lines stay."""
    text = "ГОЛОС: Петя\nУБИТЬ: Оля\nВремя: 12:40\n"
    assert own_and_doubtful(text) == ("ГОЛОС: Петя\nУБИТЬ: Оля\nВремя: 12:40", ())


# --- 3. text around an inline picture ---------------------------------------------------

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(32)).decode()


def test_kind3_every_text_part_around_an_inline_picture_is_read(maniac: ManiacTable) -> None:
    """Apple Mail: multipart/mixed of text/plain, image/png inline, text/plain; the move
    is in the second text part (only the first was read)."""
    payload = crlf(
        "--b1\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
        "Смотрите, что я нашёл:\n"
        "--b1\n"
        "Content-Type: image/png; name=photo.png\n"
        "Content-Disposition: inline; filename=photo.png\n"
        "Content-Transfer-Encoding: base64\n\n"
        f"{PNG}\n"
        "--b1\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
        "ГОЛОС Петя\n"
        "--b1--\n"
    )
    raw = from_player(
        maniac, "Вася", payload, content_type=b'Content-Type: multipart/mixed; boundary="b1"'
    )
    assert read_letter(raw).text == "Смотрите, что я нашёл:\nГОЛОС Петя"
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]


def test_kind3_an_attached_text_file_is_not_read() -> None:
    """A text/plain attachment is no part of the mail's text."""
    payload = crlf(
        "--b1\nContent-Type: text/plain; charset=utf-8\n\nСТАТУС\n"
        "--b1\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Disposition: attachment; filename=old.txt\n\nГОЛОС Оля\n"
        "--b1--\n"
    )
    raw = from_player_raw(payload, b'Content-Type: multipart/mixed; boundary="b1"')
    assert read_letter(raw).text == "СТАТУС"


def from_player_raw(payload: bytes, content_type: bytes) -> bytes:
    """Вася's mail as raw bytes, for the reader alone."""
    return message(VASYA, "gm+x@example.test", payload, content_type=content_type)


# --- 4. a text/plain part that is only a stub -------------------------------------------


@pytest.mark.parametrize(
    "stub",
    [
        "Это письмо в формате HTML. Откройте его в программе, которая показывает HTML.",
        "This message requires an HTML-capable mail reader.",
        "Сообщение",
    ],
    ids=["ru-phrase", "en-phrase", "much-shorter"],
)
def test_kind4_the_html_part_is_read_when_the_plain_part_is_a_stub(
    maniac: ManiacTable, stub: str
) -> None:
    payload = crlf(
        "--a1\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
        f"{stub}\n"
        "--a1\n"
        "Content-Type: text/html; charset=utf-8\n\n"
        "<html><body><p>Привет! Сегодня так:</p><p>ГОЛОС Петя</p></body></html>\n"
        "--a1--\n"
    )
    raw = from_player(
        maniac,
        "Вася",
        payload,
        content_type=b'Content-Type: multipart/alternative; boundary="a1"',
    )
    assert read_letter(raw).text == "Привет! Сегодня так:\n\nГОЛОС Петя"
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]


def test_kind4_a_plain_part_that_says_the_same_as_the_html_is_read() -> None:
    payload = crlf(
        "--a1\nContent-Type: text/plain; charset=utf-8\n\nГОЛОС Петя\n"
        "--a1\nContent-Type: text/html; charset=utf-8\n\n<p><b>ГОЛОС Петя</b></p>\n"
        "--a1--\n"
    )
    raw = from_player_raw(payload, b'Content-Type: multipart/alternative; boundary="a1"')
    assert read_letter(raw).text == "ГОЛОС Петя"


# --- 5. and 6. emoji and smart punctuation ----------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "ГОЛОС: «Петя» 👍",
        "ГОЛОС Петя ✌️",  # with a variation selector
        "Голос за Петю 🙂",
        "ГОЛОС “Петя” 👍🏻",  # a skin tone
        "👉 ГОЛОС Петя",
        "✅ ГОЛОС Петя",
        "▶️ ГОЛОС: Петя!",
    ],
)
def test_kind5_and_kind6_emoji_and_smart_quotes_around_a_vote(
    maniac: ManiacTable, line: str
) -> None:
    raw = from_player(maniac, "Вася", f"{line}\r\n".encode())
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]


# --- 7. The Bat!/FidoNet-style quote -----------------------------------------------------


def test_kind7_the_bat_quote_with_initials_and_the_answer_below(maniac: ManiacTable) -> None:
    """``Вы писали …:`` then lines prefixed with initials (``p>``), the answer below the
    quote, then a signature: the answer was missed."""
    raw = from_player(
        maniac,
        "Вася",
        crlf(
            "Здравствуйте, pbp.\n\n"
            "Вы писали 1 декабря 2026 г., 12:41:10:\n\n"
            "p> Вася, вот что сделано по вашему письму.\n"
            "p> > ГОЛОС Оля\n"
            "p> Понял: ГОЛОС за Олю\n\n"
            "ГОЛОС Петя\n\n"
            "-- \n"
            "С уважением,\n"
            " Вася                          mailto:vasya@example.test\n"
        ),
    )
    assert read_letter(raw).text == "Здравствуйте, pbp.\n\n\n\nГОЛОС Петя"
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]
    assert lines[lines.index("Пропущено — это не команды:") + 1] == "> Здравствуйте, pbp."


# --- 8. bottom-posting below a header block with no quoted body -------------------------

HEADER_BLOCK = (
    "Отправлено: 1 декабря 2026 г. 12:40\n"
    "От: pbp <gm@example.test>\n"
    "Кому: Вася <vasya@example.test>\n"
    "Тема: Re: ход\n\n"
)


def last_answer_id(table: ManiacTable) -> bytes:
    """The Message-ID of pbp's last mail to Вася (the one he answers)."""
    (*_, last) = [m for m in table.store.outbox() if m.recipient == VASYA]
    return last.message_id.encode()


def test_kind8_a_reply_under_a_header_block_at_the_top_is_read(maniac: ManiacTable) -> None:
    """The header of the mail answered at the top, the reply under it (the move was
    missed); the line of our answer he left there (its forum snippet) does not run."""
    raw = from_player(
        maniac,
        "Вася",
        crlf(HEADER_BLOCK + "ГОЛОС Петя\n\n[b]Голосую за Олю[/b]\n"),
        b"In-Reply-To: " + last_answer_id(maniac),
    )
    assert read_letter(raw).text == "ГОЛОС Петя\n\n[b]Голосую за Олю[/b]"
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]
    assert looks_quoted_section(lines)[1] == "> [b]Голосую за Олю[/b]"


def test_kind8_under_a_header_block_answering_no_mail_of_ours_nothing_runs(
    maniac: ManiacTable,
) -> None:
    """No In-Reply-To or References of ours: what stands under the header block may be
    the unmarked quote of any mail, so it is answered as looking quoted, not run."""
    raw = from_player(maniac, "Вася", crlf(HEADER_BLOCK + "ГОЛОС Петя\n"))
    outcomes, mails = run(maniac, raw, at=REPLY_AT)
    assert outcomes == ["status"]
    assert votes(maniac) == {"Вася": "Оля"}
    assert looks_quoted_section(answer(mails, VASYA)) == [
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Петя",
        ADVICE,
    ]


def test_kind8_a_header_block_under_own_text_still_ends_it() -> None:
    """Below the sender's own text the same block starts the quote (top-posting): the
    header and the quote's first line are doubtful (answered as looking quoted)."""
    text = (
        "ГОЛОС Петя\n\nОтправлено: 1 декабря 2026 г. 12:40\nОт: pbp <gm@example.test>\n"
        "Кому: Вася <vasya@example.test>\nТема: Re: ход\n\nГОЛОС Оля\nещё\n"
    )
    assert own_and_doubtful(text) == (
        "ГОЛОС Петя",
        (
            "Отправлено: 1 декабря 2026 г. 12:40",
            "От: pbp <gm@example.test>",
            "Кому: Вася <vasya@example.test>",
            "Тема: Re: ход",
            "ГОЛОС Оля",
        ),
    )


# --- GroupWise ---------------------------------------------------------------------------


def test_a_groupwise_reply_header_ends_the_new_text(maniac: ManiacTable) -> None:
    """``>>> Name <addr> date >>>`` looked like a quoted line, and the unmarked quote
    below it ran."""
    raw = from_player(
        maniac,
        "Вася",
        crlf(
            "ГОЛОС Петя\n\n"
            ">>> pbp <gm@example.test> 01.12.2026 12:40 >>>\n"
            "Вася, вот что сделано по вашему письму.\n"
            "ГОЛОС Оля\n"
        ),
    )
    assert read_letter(raw).text == "ГОЛОС Петя"
    lines = reply(maniac, raw)
    assert votes(maniac) == {"Вася": "Петя"}
    assert understood(lines) == ["Понял: ГОЛОС за Петю"]


def test_a_mail_read_twice_gives_the_same_letter() -> None:
    """The reader is pure: the doubtful lines are part of the Letter, the same each time."""
    raw = from_player_raw(crlf("> a\nГОЛОС Оля\n> b\n"), b"Content-Type: text/plain; charset=utf-8")
    first, second = read_letter(raw), read_letter(raw)
    assert first == second
    assert (first.text, first.doubtful) == ("", ("ГОЛОС Оля",))


@pytest.mark.parametrize(
    "header",
    [
        "Am 01.12.2026 um 12:40 schrieb pbp:",
        "Le mar. 1 déc. 2026 à 12:40, pbp a écrit :",
        "El mar, 1 dic 2026 a las 12:40, pbp escribió:",
        "pbp napisał(a):",
        "Вы писали:",
    ],
)
def test_wrote_headers_in_other_languages_end_the_new_text(header: str) -> None:
    assert own_and_doubtful(f"ГОЛОС Петя\n\n{header}\nГОЛОС Оля\n") == (
        "ГОЛОС Петя",
        (header.strip(), "ГОЛОС Оля"),
    )


def test_a_quoted_winning_accusation_in_cluedo_is_answered_looks_quoted(tmp_path: Path) -> None:
    """Cluedo (seed 000, whose solution is Маша, Топор, Столовая): a re-wrapped quote that
    holds the winning accusation would end the game unseen. It does not run; STATUS
    does, and the accusation is listed as looking quoted."""
    table = Table(tmp_path)
    table.run(CLUEDO_START)
    table.new_mail()
    table.send(
        "Кросс",
        "СТАТУС",
        "",
        "> Кто-то в треде предлагал:",
        "ОБВИНЕНИЕ Маша, Топор, Столовая",
        "> но я не уверен.",
        at=CLUEDO_START + timedelta(hours=1),
    )
    assert table.run(CLUEDO_START + timedelta(hours=1, minutes=1)) == ["status"]
    mails = table.new_mail()
    assert [m["To"] for m in mails] == [CLUEDO_EMAILS["Кросс"]]
    lines = body(mails[0]).splitlines()
    start = lines.index("Похоже на цитату — не выполнено:")
    assert lines[start : start + 3] == [
        "Похоже на цитату — не выполнено:",
        "> ОБВИНЕНИЕ Маша, Топор, Столовая",
        ADVICE,
    ]
    kinds = [stored.event.kind for stored in table.store.events("seed-000")]
    assert "accusation_made" not in kinds and "game_over" not in kinds
    table.close()


# --- the hostile second pass: more quote shapes, more plain moves -------------------------


def own_moves(body: str, content_type: str = "text/plain") -> list[object]:
    """The moves the service would run from Вася's mail of ``body`` answering none of
    pbp's mails (so every line under a top header block counts as doubtful)."""
    raw = from_player_raw(
        body.replace("\n", "\r\n").encode(),
        f"Content-Type: {content_type}; charset=utf-8".encode(),
    )
    return own_moves_raw(raw)


def own_moves_raw(raw: bytes) -> list[object]:
    """The moves the service would run from the raw mail ``raw`` (as :func:`own_moves`)."""
    reply = read_letter(raw).reply
    own = reply.own(reply.whole, None).text
    return [line.move for line in parse_maniac(own, MANIAC_PLAYERS) if line.move is not None]


MANIAC_PLAYERS = ["Вася", "Петя", "Таня", "Оля"]
PETYA = [Vote("Петя")]

QUOTE_SHAPES = {
    # Samsung Email: one <div> a field, so html2text puts blank lines between them.
    "samsung-html-uk": (
        "<div>ГОЛОС Петя</div><div><br></div><div><div>-------- Оригінальне повідомлення "
        "--------</div><div>Від: pbp &lt;gm@example.test&gt; </div><div>Дата: 01.12.26 12:40 "
        "(GMT+02:00) </div><div>Кому: Вася &lt;vasya@example.test&gt; </div><div>Тема: Re: ход "
        "</div></div><div>Вася, вот что сделано.</div><div>ГОЛОС Оля</div>",
        "text/html",
    ),
    "outlook-de-no-address": (
        "ГОЛОС Петя\n\n-----Ursprüngliche Nachricht-----\nVon: pbp\nGesendet: Dienstag, "
        "1. Dezember 2026 12:40\nAn: Вася\nBetreff: AW: ход\n\nГОЛОС Оля\n",
        "text/plain",
    ),
    "outlook-it-no-separator": (
        "ГОЛОС Петя\n\nDa: pbp\nInviato: martedì 1 dicembre 2026 12:40\nA: Вася\n"
        "Oggetto: R: ход\n\nГОЛОС Оля\n",
        "text/plain",
    ),
    "dashed-separator-fr": (
        "ГОЛОС Петя\n\n-----Message d'origine-----\nГОЛОС Оля\n",
        "text/plain",
    ),
    "lotus-notes": (
        "ГОЛОС Петя\n\n             pbp\n             <gm@example.test>\n"
        "                                     To\n"
        "             01.12.2026 12:40          Вася <vasya@example.test>\n"
        "                                     cc\n                                Subject\n"
        "                   Re: ход\n\nГОЛОС Оля\n",
        "text/plain",
    ),
    "forum-copy-phpbb": ("ГОЛОС Петя\n\nТаня писал(а):\nГОЛОС Оля\n", "text/plain"),
    "forum-copy-ipb": (
        "ГОЛОС Петя\n\nЦитата (Таня @ 1.12.2026, 12:40)\nГОЛОС Оля\n",
        "text/plain",
    ),
    "forum-copy-vbulletin": (
        "ГОЛОС Петя\n\nЦитата:\nСообщение от Таня\nГОЛОС Оля\n",
        "text/plain",
    ),
    "telegram-copy": ("ГОЛОС Петя\n\nТаня, [01.12.2026 12:40]\nГОЛОС Оля\n", "text/plain"),
    "wrote-without-colon": (
        "ГОЛОС Петя\n\nOn Tue, 1 Dec 2026 12:40:43 +0300 pbp <gm@example.test> wrote\n\n"
        "ГОЛОС Оля\n",
        "text/plain",
    ),
    "finnish-dotted-time": (
        "ГОЛОС Петя\n\nti 1.12.2026 klo 12.40 pbp\n<gm@example.test> kirjoitti:\n\nГОЛОС Оля\n",
        "text/plain",
    ),
    "yandex-dotted-time": (
        'ГОЛОС Петя\n\n01.12.2026, 12.40, "pbp" <gm@example.test>:\n\nГОЛОС Оля\n',
        "text/plain",
    ),
    "ukrainian-napysav": ("ГОЛОС Петя\n\npbp написав:\nГОЛОС Оля\n", "text/plain"),
    "yahoo-napisal": ("ГОЛОС Петя\n\npbp написал(-а):\nГОЛОС Оля\n", "text/plain"),
    "chinese-xiedao": (
        "ГОЛОС Петя\n\n2026年12月1日 12:40，pbp <gm@example.test> 写道：\nГОЛОС Оля\n",
        "text/plain",
    ),
    # The third pass: Word's quote, full-width colons, combining marks, tables.
    "word-blockquote": (
        "<div>ГОЛОС Петя</div><blockquote style='border:none;border-left:solid #CCCCCC 1.0pt;"
        "padding:0cm 0cm 0cm 6.0pt;margin-left:4.8pt'><div><p>ГОЛОС Оля</p></div></blockquote>",
        "text/html",
    ),
    "chinese-fields": (
        "ГОЛОС Петя\n\n发件人：Вася <vasya@example.test>\n发送时间：2026年12月1日 12:40\n"
        "收件人：pbp <gm@example.test>\n主题：ход\n\nГОЛОС Оля\n",
        "text/plain",
    ),
    "thai-fields": (
        "ГОЛОС Петя\n\nจาก: Вася <vasya@example.test>\nส่ง: 1 ธันวาคม 2569 12:40\nถึง: pbp\n"
        "เรื่อง: ход\n\nГОЛОС Оля\n",
        "text/plain",
    ),
    "table-fields-es": (
        "<div>ГОЛОС Петя</div><table><tr><td>De:</td><td>Вася &lt;vasya@example.test&gt;</td>"
        "</tr><tr><td>Para:</td><td>pbp</td></tr><tr><td>Fecha:</td><td>01/12/2026 12:40</td>"
        "</tr><tr><td>Asunto:</td><td>ход</td></tr></table><br>ГОЛОС Оля",
        "text/html",
    ),
    "html-fields-with-empty-paragraphs": (
        "<p>ГОЛОС Петя</p><p><br></p><p>De: Вася &lt;vasya@example.test&gt;</p><p><br></p>"
        "<p>Enviado: martes, 1 de diciembre de 2026 12:40</p><p><br></p><p>Para: pbp</p>"
        "<p><br></p><p>Asunto: ход</p><p><br></p><p>ГОЛОС Оля</p>",
        "text/html",
    ),
    "em-dash-separator": ("ГОЛОС Петя\n\n————— Original Message —————\nГОЛОС Оля\n", "text/plain"),
    "equals-separator": ("ГОЛОС Петя\n\n=====Original Message=====\nГОЛОС Оля\n", "text/plain"),
    "italian-ha-scritto": ("ГОЛОС Петя\n\npbp ha scritto:\nГОЛОС Оля\n", "text/plain"),
}


@pytest.mark.parametrize("shape", sorted(QUOTE_SHAPES))
def test_an_old_vote_under_any_header_shape_never_runs(shape: str) -> None:
    assert own_moves(*QUOTE_SHAPES[shape]) == PETYA


def test_a_plain_part_with_its_quote_is_read_although_the_html_one_looks_longer() -> None:
    """Samsung's multipart/alternative: the plain part reads right, the HTML one hides
    its quote from the reader; the stub rule compares the parts whole, so the plain
    part is the mail (before, the HTML part's missed quote ran)."""
    plain = (
        "ГОЛОС Петя\n\n-------- Оригінальне повідомлення --------\nВід: pbp <gm@example.test>\n"
        "Дата: 01.12.26 12:40\nКому: Вася\nТема: Re: ход\nВася, вот что сделано.\nГОЛОС Оля\n"
    )
    html, _type = QUOTE_SHAPES["samsung-html-uk"]
    payload = (
        "--a1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        + plain.replace("\n", "\r\n")
        + "--a1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        + html
        + "\r\n--a1--\r\n"
    ).encode()
    raw = from_player_raw(payload, b'Content-Type: multipart/alternative; boundary="a1"')
    assert read_letter(raw).text == "ГОЛОС Петя"


def test_an_inline_text_file_is_not_the_senders_text() -> None:
    """Apple Mail inlines a .txt attachment (Content-Disposition: inline, a filename)."""
    payload = crlf(
        "--b1\nContent-Type: text/plain; charset=utf-8\n\nГОЛОС Петя\n"
        "--b1\nContent-Type: text/plain; charset=utf-8; name=vchera.txt\n"
        'Content-Disposition: inline; filename="vchera.txt"\n\nГОЛОС Оля\n'
        "--b1\nContent-Type: text/plain; charset=utf-8\n\nдо вечера\n"
        "--b1--\n"
    )
    raw = from_player_raw(payload, b'Content-Type: multipart/mixed; boundary="b1"')
    assert read_letter(raw).text == "ГОЛОС Петя\nдо вечера"


@pytest.mark.parametrize(
    "line",
    [
        "o   ГОЛОС Петя",  # Outlook's level-2 bullet through HTML
        "Ø   ГОЛОС Петя",  # Wingdings bullets
        "§\tГОЛОС Петя",
        "а) ГОЛОС Петя",
        "b) ГОЛОС Петя",
        "1️⃣ ГОЛОС Петя",
        "=> ГОЛОС Петя",
        "## ГОЛОС Петя",  # <h2> through html2text
    ],
)
def test_a_vote_behind_any_list_marker_is_read(line: str) -> None:
    assert own_moves(line + "\n") == PETYA


def test_gmails_indent_more_is_the_senders_own_text() -> None:
    html = (
        '<div>Привет</div><blockquote style="margin:0 0 0 40px;border:none;padding:0px">'
        '<div>ГОЛОС Петя</div></blockquote><div class="gmail_quote"><blockquote '
        'class="gmail_quote" style="border-left:1px solid #ccc">ГОЛОС Оля</blockquote></div>'
    )
    assert own_moves(html, "text/html") == PETYA


def test_a_flowed_trailing_space_never_joins_own_text_and_a_quote() -> None:
    """RFC 3676 §4.5: a soft break joins only lines of the same quote depth; a phone's
    trailing space made ``ГОЛОС \\n> Оля`` a vote for Оля."""
    payload = crlf("ГОЛОС \n> Оля\n\nГОЛОС \nПетя\n")
    raw = from_player_raw(payload, b"Content-Type: text/plain; charset=utf-8; format=flowed")
    assert read_letter(raw).text == "ГОЛОС\n\nГОЛОС Петя"
    assert own_moves_raw(raw) == PETYA


@pytest.mark.parametrize(
    ("body", "listed"),
    [
        ("----- Исходное сообщение -----\nГОЛОС Петя\n", ["> ГОЛОС Петя"]),
        ("Таня вчера писала:\nГОЛОС Петя\n", ["> ГОЛОС Петя"]),
    ],
    ids=["dashed", "wrote-line"],
)
def test_a_move_taken_for_a_quote_header_or_footer_is_answered_looks_quoted(
    maniac: ManiacTable, body: str, listed: list[str]
) -> None:
    """Never run (it may be quoted), never missed without a word: before, the answer
    said only that the mail held no command."""
    outcomes, mails = run(maniac, from_player(maniac, "Вася", crlf(body)), at=REPLY_AT)
    assert outcomes == ["status"]
    assert votes(maniac) == {"Вася": "Оля"}
    lines = answer(mails, VASYA)
    start = lines.index("Похоже на цитату — не выполнено:")
    assert lines[start + 1 : start + 1 + len(listed)] == listed
    assert not any("не найдено ни одной команды" in line for line in lines)


def test_own_key_value_lines_at_the_top_are_no_header_of_a_quote() -> None:
    """Four ``Key: value`` lines with a date but no address at the very top are the
    player's own notes, not the header of a mail answered."""
    body = "Игра: Маньяк\nДень: 1 декабря 2026\nРоль: мирный\nВремя: 12:40\n\nГОЛОС Петя\n"
    assert own_moves(body) == PETYA


def test_a_line_that_begins_like_a_phone_footer_but_goes_on_is_the_senders() -> None:
    """A footer is short and alone: with a comma and more after it, it is his text (the
    answer lists it among the lines that are no command, not as nothing at all)."""
    assert own_and_doubtful("Отправлено с дачи, ГОЛОС Петя завтра\n") == (
        "Отправлено с дачи, ГОЛОС Петя завтра",
        (),
    )
    assert own_and_doubtful("ГОЛОС Петя\n\nОтправлено с iPhone\n") == (
        "ГОЛОС Петя",
        ("Отправлено с iPhone",),
    )
