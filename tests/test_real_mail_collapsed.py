"""Real mail, third pass (issue 33), the tester's two shapes that executed a quote:

1. A quote header collapsed into one line: Samsung Email glues its header fields onto
   the separator (``-------- Исходное сообщение --------От: Оля <…> Дата: …``), other
   clients write ``From: … Sent: … To: … Subject: …`` on one line or in one HTML
   paragraph, and a reply may run into it; the quote below ran. Samsung's phone footer
   glued onto the end of her move (``ГОЛОС ПетяОтправлено с устройства Samsung
   Galaxy``) is split off.
2. A Discourse quote whose title is a Cyrillic username (``Вася:``, ``вася_петров:``):
   Discourse allows Unicode usernames since 2.3; the old vote below it ran.

Оля first votes for Таня (:func:`test_real_mail_forum.start`); the moves below are hers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kits.maniac_table import EMAILS, ManiacTable
from test_real_mail import FOOTER, answer, from_player, run, votes
from test_real_mail_forum import OLD_VOTE_LISTED, VOTE_PETYA, reply, start
from test_real_mail_quotes import REPLY_AT

from pbp.mail.read.body import split_reply
from pbp.mail.read.forumquote import forum_quote
from pbp.mail.read.mime import read_letter
from pbp.mail.read.reply import Doubt
from pbp.mail.read.replyheader import collapsed_header, reply_header


@pytest.fixture
def olya(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    start(table, "ГОЛОС Таня")
    yield table
    table.close()


# --- 1. a quote header collapsed into one line ---------------------------------------------

#: The tester's collapsed header lines (the address pbp's own is the mail answered's).
SAMSUNG_RU = (
    "-------- Исходное сообщение --------От: Оля <olya@example.test> Дата: 07.12.2026  "
    "22:30  (GMT+03:00) Кому: gm+x@example.test Тема: ход "
)
SAMSUNG_EN = (
    "-------- Original message --------From: Оля <olya@example.test> Date: 12/7/26  "
    "10:30 PM  (GMT+03:00) To: gm+x@example.test Subject: ход "
)
OUTLOOK_EN = (
    "-----Original message----- From: olya@example.test Sent: Monday, December 7, 2026 "
    "10:30 PM To: gm+x@example.test Subject: ход"
)
OUTLOOK_RU = (
    "-----Исходное сообщение----- От: Оля <olya@example.test> Отправлено: 7 декабря "
    "2026 г. 22:30 Кому: gm+x@example.test Тема: ход"
)
NO_DASHES = (
    "From: olya@example.test Sent: Monday, December 7, 2026 10:30 PM To: "
    "gm+x@example.test Subject: ход"
)
COLLAPSED = [SAMSUNG_RU, SAMSUNG_EN, OUTLOOK_EN, OUTLOOK_RU, NO_DASHES]


@pytest.mark.parametrize("header", COLLAPSED)
def test_a_collapsed_header_line_starts_the_quote(header: str) -> None:
    """Before: the separator matched only alone on its line, and a header block was read
    one field a line: the line was her text and the quote below it too."""
    assert collapsed_header(header) == 0
    assert reply_header([header.rstrip()], 0) == 1
    reading = split_reply(f"ГОЛОС Петя\n\n{header}\n\nГОЛОС Таня\n")
    assert (reading.text, reading.doubtful) == ("ГОЛОС Петя", (header.strip(), "ГОЛОС Таня"))


@pytest.mark.parametrize("header", COLLAPSED)
def test_a_move_run_into_a_collapsed_header_line_is_hers(header: str) -> None:
    reading = split_reply(f"ГОЛОС Петя {header}\n\nГОЛОС Таня\n")
    assert (reading.text, reading.doubtful) == ("ГОЛОС Петя", (header.strip(), "ГОЛОС Таня"))


@pytest.mark.parametrize(
    "line",
    [
        "----- Ходы ----- ГОЛОС Петя",
        "От: Оля Кому: Петя",
        "From: olya@example.test To: gm@example.test",  # two kinds of field
        "From: Оля Sent: Monday To: Петя Subject: ход",  # no address
        "ГОЛОС Петя",
    ],
)
def test_a_line_short_of_a_collapsed_header_is_none(line: str) -> None:
    assert collapsed_header(line) is None


@pytest.mark.parametrize("header", COLLAPSED)
def test_the_old_vote_under_a_collapsed_header_is_not_executed(
    olya: ManiacTable, header: str
) -> None:
    """Through the service (before: both votes ran, the final one for Таня)."""
    outcomes, lines = reply(olya, f"ГОЛОС Петя\n\n{header}\n\nГОЛОС Таня\n")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


def test_the_old_vote_under_a_collapsed_header_on_her_line_is_not_executed(
    olya: ManiacTable,
) -> None:
    """Her move on the header's line (before: the line was hers whole, and only the old
    vote in the quote ran)."""
    outcomes, lines = reply(olya, f"ГОЛОС Петя {OUTLOOK_RU}\n\nГОЛОС Таня\n")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


def test_samsung_footer_glued_to_her_move_is_split_off(olya: ManiacTable) -> None:
    """Samsung Email writes its footer right after the text, and the header glued to its
    separator below: her move is ``ГОЛОС Петя`` (before: ``ГОЛОС ПетяОтправлено…`` was
    refused, and the old vote in the quote ran)."""
    body = f"ГОЛОС ПетяОтправлено с устройства Samsung Galaxy\n{SAMSUNG_RU}\n    \n\nГОЛОС Таня\n"
    reading = split_reply(body)
    assert (reading.text, reading.doubtful) == ("ГОЛОС Петя", ())
    assert reading.aside == (SAMSUNG_RU.strip(), "ГОЛОС Таня")
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, FOOTER]


def test_samsung_footer_on_its_own_line_above_a_collapsed_header(olya: ManiacTable) -> None:
    body = f"ГОЛОС Петя\n\n\nОтправлено с устройства Samsung Galaxy\n{SAMSUNG_RU}\n\nГОЛОС Таня\n"
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, FOOTER]


def test_a_footer_word_inside_a_line_is_not_cut() -> None:
    """Only a known phone's footer at the end of a line is split off."""
    body = "ГОЛОС Петя\nОтправлено с дачи"
    assert split_reply(body).text == "ГОЛОС Петя"
    assert split_reply("ГОЛОС ПетяОтправлено с дачи").text == "ГОЛОС ПетяОтправлено с дачи"


def test_the_old_vote_under_a_collapsed_html_header_is_not_executed(olya: ManiacTable) -> None:
    """An HTML-only mail with the fields in spans in one paragraph."""
    html = (
        "<html><body><p>ГОЛОС Петя</p><p>-----Original message----- "
        "<span>From: olya@example.test</span> <span>Sent: Monday, December 7, 2026 10:30 PM"
        "</span> <span>To: gm+x@example.test</span> <span>Subject: ход</span></p>"
        "<p>ГОЛОС Таня</p></body></html>\n"
    )
    raw = from_player(
        olya, "Оля", html.encode(), content_type=b"Content-Type: text/html; charset=utf-8"
    )
    assert read_letter(raw).text == "ГОЛОС Петя"
    outcomes, mails = run(olya, raw, at=REPLY_AT)
    assert [str(outcome) for outcome in outcomes] == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert answer(mails, EMAILS["Оля"]) == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


# --- 2. a Discourse quote titled with a Cyrillic username ------------------------------------


@pytest.mark.parametrize("title", ["вася:", "вася_петров:", "Вася88:", "vasya:"])
def test_a_unicode_discourse_username_is_a_quote_title(title: str) -> None:
    """Discourse allows Unicode usernames since 2.3 (before: ASCII ones only)."""
    entry = forum_quote(title)
    assert entry is not None
    assert entry.engine == "Discourse"


@pytest.mark.parametrize("heading", ["Ходы:", "ходы:", "Итог:", "Вася:", "ГОЛОС:", "p.s.:"])
def test_a_cyrillic_heading_is_no_discourse_username(heading: str) -> None:
    """A capitalised word is a quote title only as a seat's name (:meth:`with_titles`)."""
    assert forum_quote(heading) is None


@pytest.mark.parametrize("title", ["Вася:", "вася_петров:", "vasya:"])
@pytest.mark.parametrize("gap", ["", "\n"])
def test_a_discourse_quote_titled_with_a_cyrillic_username_is_not_executed(
    olya: ManiacTable, title: str, gap: str
) -> None:
    """``Вася`` is a seat of the game: his name alone above a post is its title (before:
    both votes ran, the final one for Таня)."""
    outcomes, lines = reply(olya, f"ГОЛОС Петя\n\n{title}\n{gap}ГОЛОС Таня\n")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


def test_a_seat_title_is_doubtful_to_the_end() -> None:
    reading = split_reply("ГОЛОС Петя\n\nВася:\n\nГОЛОС Таня\nИ ещё\n")
    titled = reading.with_titles(["Вася", "Таня"])
    assert (titled.text, titled.doubtful) == ("ГОЛОС Петя", ("Вася:", "ГОЛОС Таня", "И ещё"))
    assert Doubt.FORUM_QUOTE in titled.shapes
    assert reading.with_titles(["Петя"]) is reading
    assert split_reply("ГОЛОС Петя\n\nВася:").with_titles(["Вася"]).text == "ГОЛОС Петя\n\nВася:"


@pytest.mark.parametrize("heading", ["Ходы:", "Moves:"])
def test_moves_under_a_heading_still_run(olya: ManiacTable, heading: str) -> None:
    outcomes, lines = reply(olya, f"{heading}\nГОЛОС Петя\n")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, "Пропущено — это не команды:", f"> {heading}", "", FOOTER]
