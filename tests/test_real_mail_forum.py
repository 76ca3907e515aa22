"""Real mail, third pass (issue 33, item 1): a forum post pasted with its quote header.

Оля first votes for Таня; then she writes ``ГОЛОС Петя`` and pastes a post from the
game's forum thread, quoted the way its engine shows a quote, with her old vote for
Таня inside. The old vote is never executed (answered "looks quoted — not done"), the
new one always is: raw bytes through the service, the exact final vote and the exact
answer. Before, the XenForo quote (``Оля сказал(а):`` … ``Нажмите для раскрытия...``)
was read as her own text and its old vote applied after her new one.

Plays seed 002's Maniac game (:mod:`kits.maniac_table`); the quote headers are those of
:data:`pbp.mail.read.forumquote.FORUM_QUOTES`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from kits.maniac_table import EMAILS, ManiacTable
from test_real_mail import DAY_1, FOOTER, answer, from_player, run, votes
from test_real_mail_quotes import ADVICE, REPLY_AT, crlf

from pbp.mail.read.body import split_reply
from pbp.mail.read.forumquote import FORUM_QUOTES, forum_quote, is_quote_end
from pbp.mail.read.mime import read_letter
from pbp.mail.read.reply import Doubt

OLYA = EMAILS["Оля"]
#: Her answer's lines for her vote for Петя, written ``ГОЛОС Петя``.
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
]
#: The answer's "looks quoted" section for her old vote inside the quote.
OLD_VOTE_LISTED = ["Похоже на цитату — не выполнено:", "> ГОЛОС Таня", ADVICE, ""]


def start(table: ManiacTable, first: str) -> None:
    """Open day 1 and let Оля vote ``first`` (her old vote for Таня)."""
    table.run(DAY_1 - timedelta(minutes=30))
    table.new_mail()
    outcomes, _mails = run(table, from_player(table, "Оля", crlf(first + "\n")))
    assert outcomes == ["applied"]
    assert votes(table) == {"Оля": "Таня"}


@pytest.fixture
def olya(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    start(table, "ГОЛОС Таня")
    yield table
    table.close()


def reply(table: ManiacTable, body: str) -> tuple[list[str], list[str]]:
    """Deliver Оля's ``body`` ten minutes into day 1: the outcomes and her answer's lines
    (greeting and the line naming the game cut)."""
    outcomes, mails = run(table, from_player(table, "Оля", crlf(body)), at=REPLY_AT)
    return [str(outcome) for outcome in outcomes], answer(mails, OLYA)


# --- XenForo: the mail ------------------------------------------------------------


def test_xenforo_ru_quote_pasted_below_her_move_is_not_executed(olya: ManiacTable) -> None:
    """The issue's mail: her move, then a XenForo quote of her old post. The old vote
    inside it was applied after her new one (the final vote stood for Таня)."""
    body = (
        "ГОЛОС Петя\n\n"
        "Оля сказал(а):\n"
        "Я подумала и решила так:\n"
        "ГОЛОС Таня\n"
        "Нажмите для раскрытия...\n"
    )
    assert read_letter(crlf(body)).text == "ГОЛОС Петя"
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


def test_xenforo_ru_her_move_below_the_quote_runs(olya: ManiacTable) -> None:
    """The end line closes the quote: what she wrote below it is hers."""
    body = "Оля сказал(а):\nГОЛОС Таня\nНажмите для раскрытия...\nПередумала.\nГОЛОС Петя\n"
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [
        *VOTE_PETYA,
        *OLD_VOTE_LISTED,
        "Пропущено — это не команды:",
        "> Передумала.",
        "",
        FOOTER,
    ]


def test_xenforo_en_quote_is_not_executed(tmp_path: Path) -> None:
    """The English forum: ``Olya said:`` … ``Click to expand...``, her move above and a
    line of hers below."""
    table = ManiacTable(tmp_path, locale="en")
    start(table, "VOTE Таня")
    body = "VOTE Петя\n\nOlya said:\nI vote:\nVOTE Таня\nClick to expand...\n\nThat's all.\n"
    outcomes, mails = run(table, from_player(table, "Оля", crlf(body)), at=REPLY_AT)
    assert [str(outcome) for outcome in outcomes] == ["applied"]
    assert votes(table) == {"Оля": "Петя"}
    assert answer(mails, OLYA) == [
        "Done:",
        "",
        "> VOTE Петя",
        "Understood: VOTE Петя",
        "Accepted: your vote for Петя. This is your vote number 1 for this player today.",
        "",
        "For the forum (paste it into the game thread):",
        "",
        "[b]I vote for Петя[/b]",
        "",
        "Looks quoted — not done:",
        "> VOTE Таня",
        "These lines are in a quote or cannot be told from one: marked with “>”, right under "
        "a quoted line, under the header of a quoted mail or forum post, in a signature, or "
        "looking like such a header themselves. If you meant them, send them again on lines "
        "of their own, above any quote.",
        "",
        "Ignored — these are not commands:",
        "> That's all.",
        "",
        "STATUS shows your role and today's votes, HELP the commands.",
    ]
    table.close()


# --- every engine -------------------------------------------------------------------------

#: A post of the forum thread as each engine's page shows it quoted, copied as text.
QUOTES = {
    "phpbb-3.0": "Оля писал(а):\nГОЛОС Таня\n",
    "phpbb-3.2-link-and-date": "Оля писал(а): ↑01 дек 2026, 12:40\nЯ так решила.\nГОЛОС Таня\n",
    "phpbb-en": "Olya wrote: ↑Tue Dec 01, 2026 12:40 pm\nГОЛОС Таня\n",
    "vbulletin-ru": "Цитата:\nСообщение от Оля Посмотреть сообщение\nГОЛОС Таня\n",
    "vbulletin-en": "Quote:\nOriginally Posted by Olya View Post\nГОЛОС Таня\n",
    "vbulletin-5": "Quote Originally Posted by Olya View Post\nГОЛОС Таня\n",
    "ips4-ru": "Оля сказал:\nГОЛОС Таня\n",
    "ips4-ru-dated": "1 час назад, Оля сказал:\nГОЛОС Таня\n",
    "ips4-en-dated": "On 12/1/2026 at 12:40 PM, Olya said:\nГОЛОС Таня\n",
    "ipb3-ru": "Оля (01 Декабрь 2026 - 12:40) писал:\nГОЛОС Таня\n",
    "ipb2-ru": "Цитата(Оля @ 1.12.2026, 12:40)\nГОЛОС Таня\n",
    "smf-ru": "Цитата: Оля от 01 Декабря 2026, 12:40:00\nГОЛОС Таня\n",
    "smf-en": "Quote from: Olya on December 01, 2026, 12:40:00 PM\nГОЛОС Таня\n",
    "smf-uncited-ru": "Цитировать\nГОЛОС Таня\n",
    "ucoz": "Цитата Оля ()\nГОЛОС Таня\n",
    "ucoz-old": "Цитата (Оля)\nГОЛОС Таня\n",
    "mybb-ru": "(01.12.2026, 12:40)Оля Написал:\nГОЛОС Таня\n",
    "mybb-en": "(12-01-2026, 12:40 PM)Olya Wrote:\nГОЛОС Таня\n",
    "rusff": "Оля написал(а):\nГОЛОС Таня\n",
    "punbb-ru": "Оля пишет:\nГОЛОС Таня\n",
    "discourse": "olya:\nГОЛОС Таня\n",
}


@pytest.mark.parametrize("quote", list(QUOTES.values()), ids=list(QUOTES))
def test_a_forum_quote_of_any_engine_is_not_executed(olya: ManiacTable, quote: str) -> None:
    """Her move above a pasted quote of each engine: her move runs, the quote's old vote
    is answered "looks quoted". Most of these ran the old vote before (the headers
    the mail reader did not know: ``сказал:``, ``Цитата: X от …``, ``Цитата X ()``, a
    date after ``писал(а):``…)."""
    reading = split_reply(f"ГОЛОС Петя\n\n{quote}")
    assert reading.text == "ГОЛОС Петя"
    assert Doubt.FORUM_QUOTE in reading.shapes
    outcomes, lines = reply(olya, f"ГОЛОС Петя\n\n{quote}")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


def test_mybb_mail_form_ends_at_its_second_fence(olya: ManiacTable) -> None:
    """MyBB's mail (thread subscriptions) writes a quote as ``NAME Wrote: (DATE)``, a
    line ``--``, the post, a line ``--``: what follows is hers (before, the first ``--``
    was taken for her signature and her move below it was lost)."""
    body = "Оля Написал: (01.12.2026, 12:40)\n--\nГОЛОС Таня\n--\n\nГОЛОС Петя\n"
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


def test_without_an_end_line_what_follows_the_quote_is_doubtful(olya: ManiacTable) -> None:
    """A post copied from a page has no mark where it ends, and a blank line does not
    end it (posts have paragraphs): below a header with no end line nothing is run. Her
    move written there is answered "looks quoted" with the old one, never lost."""
    body = "Оля писал(а):\nГОЛОС Таня\n\nГОЛОС Петя\n"
    outcomes, lines = reply(olya, body)
    assert outcomes == ["status"]
    assert votes(olya) == {"Оля": "Таня"}
    assert lines == [
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Таня",
        "> ГОЛОС Петя",
        ADVICE,
        "",
        FOOTER,
    ]


def test_an_end_line_without_a_header_makes_what_is_above_it_doubtful(
    olya: ManiacTable,
) -> None:
    """A quote without author (``[QUOTE]`` with no name) shows only its end line: the
    lines above it cannot be told from it; her move below it runs."""
    body = "Я голосовала так:\nГОЛОС Таня\nНажмите для раскрытия...\n\nГОЛОС Петя\n"
    assert split_reply(body).doubtful == (
        "Я голосовала так:",
        "ГОЛОС Таня",
        "Нажмите для раскрытия...",
    )
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]


def test_nested_xenforo_quotes_end_at_the_outer_end_line(olya: ManiacTable) -> None:
    """A quote inside the quote shows its own header and end line: the outer quote ends
    at the second end line, not the first."""
    body = (
        "ГОЛОС Петя\n\n"
        "Оля сказал(а):\n"
        "Таня сказал(а):\n"
        "ГОЛОС Оля\n"
        "Нажмите для раскрытия...\n"
        "ГОЛОС Таня\n"
        "Нажмите для раскрытия...\n"
        "Пока!\n"
    )
    reading = split_reply(body)
    assert reading.text == "ГОЛОС Петя\n\nПока!"
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines[: len(VOTE_PETYA) + 3] == [
        *VOTE_PETYA,
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Оля",
        "> ГОЛОС Таня",
    ]


def test_a_forum_header_above_marked_lines_is_doubtful_alone(olya: ManiacTable) -> None:
    """A mail client quoted the pasted quote with ``>``: the marked lines are a quote as
    any, her line below them is hers."""
    body = "Оля сказал(а):\n> ГОЛОС Таня\n\nГОЛОС Петя\n"
    reading = split_reply(body)
    assert (reading.text, reading.doubtful) == ("ГОЛОС Петя", ("Оля сказал(а):",))
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, FOOTER]


# --- the table ----------------------------------------------------------------------------


def test_the_table_has_every_engine_in_russian_and_english_with_its_source() -> None:
    """Each engine the issue names is in the table in both languages (Discourse writes
    no words: its header is the same in every language), each entry names its source."""
    engines = {(entry.engine.split()[0], entry.language) for entry in FORUM_QUOTES}
    for engine in ("XenForo", "phpBB", "vBulletin", "Invision", "MyBB", "SMF", "uCoz", "rusff"):
        assert {(engine, "ru"), (engine, "en")} <= engines, engine
    assert ("Discourse", "en") in engines
    assert all(entry.source and entry.headers for entry in FORUM_QUOTES)


@pytest.mark.parametrize(
    "line",
    [
        "1 дек. 2026 г., в 12:40, pbp <gm@example.test> написал(а):",
        "On Tue, 1 Dec 2026 at 12:40, pbp <gm@example.test> wrote:",
        "ГОЛОС Петя",
        "ГОЛОС: Петя",
        "STATUS:",
        "Итак:",
        "Цитата из правил: голос можно менять",
        "Нажмите сюда",
    ],
)
def test_a_mail_attribution_or_her_own_line_is_no_forum_header(line: str) -> None:
    """An attribution with an address is a mail client's (read as before); her own
    lines, a command word with a colon and Cyrillic headings are no forum header."""
    assert forum_quote(line) is None
    assert not is_quote_end(line)
