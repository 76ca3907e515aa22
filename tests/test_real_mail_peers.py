"""Real mail, third pass (issue 33): three faults found by reading the public fixture
suites of other reply parsers (mailgun/talon, github/email_reply_parser,
crisp-oss/email-reply-parser) with pbp's reader; their shapes here with example.test
addresses and invented names.

1. A reply typed on the line of a bottom-posted reply header (``reply On …, X wrote:``
   above ``> …``) was dropped with the header, without a word; a ``format=flowed``
   trailing space ran a move into the header line below it the same way.
2. A dashed heading (``----- Ходы -----``, ``=== Ход 3 ===``) was taken for a quote
   separator: the line under it doubtful, the rest set aside (lost without a word once
   anything else held a command).
3. A ``Word:`` heading above a move (``Moves:``) was taken for Discourse's quote title
   ``username:``: the rest of the mail answered "looks quoted — not done".

Оля first votes for Таня (:func:`test_real_mail_forum.start`); the moves below are hers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kits.maniac_table import ManiacTable
from test_real_mail import FOOTER, flowed, votes
from test_real_mail_forum import OLD_VOTE_LISTED, VOTE_PETYA, reply, start
from test_real_mail_quotes import ADVICE

from pbp.mail.read.body import split_reply
from pbp.mail.read.flowed import unflow
from pbp.mail.read.forumquote import forum_quote
from pbp.mail.read.mime import read_letter
from pbp.mail.read.reply import Doubt
from pbp.mail.read.replyheader import attribution_start, reply_header


@pytest.fixture
def olya(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    start(table, "ГОЛОС Таня")
    yield table
    table.close()


# --- 1. text on the line of a bottom-posted reply header ------------------------------------


@pytest.mark.parametrize(
    ("body", "text", "header"),
    [
        # talon's test_reply_and_quotation_splitter_share_line, its three mails
        (
            "reply On Wed, Apr 4, 2012 at 3:59 PM, bob@example.test wrote:\n> Hi",
            "reply",
            "On Wed, Apr 4, 2012 at 3:59 PM, bob@example.test wrote:",
        ),
        (
            "reply--- On Wed, Apr 4, 2012 at 3:59 PM, me@example.test wrote:\n> Hi",
            "reply",
            "--- On Wed, Apr 4, 2012 at 3:59 PM, me@example.test wrote:",
        ),
        (
            "reply\nbla-bla - bla--- On Wed, Apr 4, 2012 at 3:59 PM, me@example.test wrote:\n> Hi",
            "reply\nbla-bla - bla",
            "--- On Wed, Apr 4, 2012 at 3:59 PM, me@example.test wrote:",
        ),
        (
            "ГОЛОС Петя On Wed, Apr 4, 2012 at 3:59 PM, bob@example.test wrote:\n> Hi",
            "ГОЛОС Петя",
            "On Wed, Apr 4, 2012 at 3:59 PM, bob@example.test wrote:",
        ),
        (
            "ГОЛОС Петя пн, 30 нояб. 2026 г. в 12:40, pbp <gm@example.test>:\n> Hi",
            "ГОЛОС Петя",
            "пн, 30 нояб. 2026 г. в 12:40, pbp <gm@example.test>:",
        ),
        (
            "ГОЛОС Петя 1 дек. 2026 г., в 12:40, pbp <gm@example.test> написал(а):\n> Hi",
            "ГОЛОС Петя",
            "1 дек. 2026 г., в 12:40, pbp <gm@example.test> написал(а):",
        ),
    ],
    ids=["talon-1", "talon-dashes", "talon-two-lines", "en", "gmail-ru", "apple-ru"],
)
def test_text_before_a_bottom_posted_reply_header_on_its_line_is_the_senders(
    body: str, text: str, header: str
) -> None:
    """The header is recognised where it starts in the line: what stands before it is
    his text, the header is set aside with the quote (before: both dropped, nothing
    said)."""
    reading = split_reply(body)
    assert (reading.text, reading.doubtful, reading.aside) == (text, (), (header, "Hi"))
    assert Doubt.MARKED in reading.shapes


def test_a_move_on_the_line_of_a_bottom_posted_header_runs(olya: ManiacTable) -> None:
    """Through the service: her move runs, the quoted old vote does not."""
    outcomes, lines = reply(
        olya,
        "ГОЛОС Петя On Tue, 1 Dec 2026 at 12:40, pbp <gm@example.test> wrote:\n> ГОЛОС Таня\n",
    )
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, FOOTER]


def test_a_bottom_posted_header_whose_start_is_unknown_is_doubtful(olya: ManiacTable) -> None:
    """``X <x@…> wrote:`` may start anywhere in its line: text of hers may stand before
    it. The line is answered "looks quoted" (before: dropped without a word, "no
    command found")."""
    body = "ГОЛОС Петя pbp <gm@example.test> wrote:\n> ГОЛОС Таня\n"
    reading = split_reply(body)
    assert (reading.text, reading.doubtful, reading.aside) == (
        "",
        ("ГОЛОС Петя pbp <gm@example.test> wrote:",),
        ("ГОЛОС Таня",),
    )
    outcomes, lines = reply(olya, body)
    assert outcomes == ["status"]
    assert votes(olya) == {"Оля": "Таня"}
    assert lines == [
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Петя pbp <gm@example.test> wrote:",
        ADVICE,
        "",
        FOOTER,
    ]


def test_a_bottom_posted_header_is_set_aside_not_dropped() -> None:
    """Alone on its line it is the quote's: set aside with it (tried when nothing else
    holds a command), and what follows the quote is his."""
    body = "On Tue, 1 Dec 2026 at 12:40, Таня <tanya@example.test> wrote:\n> ГОЛОС Таня\n\nПока"
    reading = split_reply(body)
    assert (reading.text, reading.doubtful, reading.aside) == (
        "Пока",
        (),
        ("On Tue, 1 Dec 2026 at 12:40, Таня <tanya@example.test> wrote:", "ГОЛОС Таня"),
    )


def test_a_top_posted_quote_keeps_the_text_before_its_header_on_the_line() -> None:
    """The same split above an unmarked quote: his text, then the header and the quote's
    first line doubtful as before."""
    reading = split_reply(
        "ГОЛОС Петя On Tue, 1 Dec 2026 at 12:40, Таня <tanya@example.test> wrote:\nГОЛОС Таня"
    )
    assert (reading.text, reading.doubtful) == (
        "ГОЛОС Петя",
        ("On Tue, 1 Dec 2026 at 12:40, Таня <tanya@example.test> wrote:", "ГОЛОС Таня"),
    )


@pytest.mark.parametrize(
    ("line", "start"),
    [
        ("On Tue, 1 Dec 2026 at 12:40, pbp <gm@example.test> wrote:", 0),
        ("-----Original Message-----", 0),
        ("pbp <gm@example.test> wrote on 01.12.2026 12:40:", None),
        ("På 14 september 2015 på 02:23:18, Таня (tanya@example.test) skrev:", 0),
        ("Таня писала:", None),
        ("ГОЛОС Петя On Tue, 1 Dec 2026 at 12:40, pbp <gm@example.test> wrote:", 11),
    ],
)
def test_where_a_reply_header_starts_in_its_line(line: str, start: int | None) -> None:
    """0: it starts the line; None: it may start later, where is not known; else the
    index of its first word (the text before it his)."""
    assert reply_header([line], 0) == 1
    assert attribution_start([line], 0, 1) == start


def test_a_flowed_soft_break_never_joins_a_move_to_a_reply_header() -> None:
    """RFC 3676: a phone's trailing space after his move ran it into the reply header
    below it; the header line is a line of its own (before: text '', the move nowhere,
    as ``Таня писала:`` may start anywhere in a line)."""
    assert unflow("ГОЛОС Петя \nТаня писала:\n> ГОЛОС Таня\n") == (
        "ГОЛОС Петя \nТаня писала:\n> ГОЛОС Таня\n"
    )
    letter = read_letter(flowed("ГОЛОС Петя \r\nТаня писала:\r\n> ГОЛОС Таня\r\n"))
    assert (letter.text, letter.doubtful) == ("ГОЛОС Петя", ("Таня писала:",))
    letter = read_letter(
        flowed(
            "REFUTE 7 knife \r\nOn Tue, 1 Dec 2026 at 12:40, GM <gm@example.test> wrote:\r\n"
            "> Your turn\r\n"
        )
    )
    assert (letter.text, letter.doubtful) == ("REFUTE 7 knife", ())
    # A soft break inside a paragraph still joins.
    assert unflow("ГОЛОС \nПетя\n") == "ГОЛОС Петя\n"


# --- 2. a dashed heading ----------------------------------------------------------------------


@pytest.mark.parametrize("heading", ["----- Ходы -----", "=== Ход 3 ===", "*** Мой ход ***"])
def test_a_dashed_heading_is_the_senders_own_line(heading: str) -> None:
    """Its words name no message and no reply header follows it: his heading, the moves
    under it his (before: the first doubtful, the rest set aside, lost without a word)."""
    body = f"Привет\n\n{heading}\nГОЛОС Петя\nГОЛОС Оля"
    reading = split_reply(body)
    assert (reading.text, reading.doubtful, reading.aside) == (body, (), ())


def test_talons_feedback_below_a_dashed_line_is_kept() -> None:
    """talon's test_feedback_below_left_unparsed: the whole mail is the sender's."""
    body = (
        "Please enter your feedback below. Thank you.\n\n"
        "------------------------------------- Enter Feedback Below "
        "-------------------------------------\n\n"
        "The user experience was unparallelled. Please continue production. I'm sending "
        "payment to ensure\nthat this line is intact."
    )
    assert split_reply(body).text == body


def test_moves_under_a_dashed_heading_run(olya: ManiacTable) -> None:
    outcomes, lines = reply(olya, "Привет\n\n----- Ходы -----\nГОЛОС Петя\n")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [
        *VOTE_PETYA,
        "Пропущено — это не команды:",
        "> Привет",
        "> ----- Ходы -----",
        "",
        FOOTER,
    ]


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "---- Reply Message ----",
        "-----Ursprüngliche Nachricht-----",
        "----- Antwort Nachricht -----",
        "-----Message d'origine-----",
        "----- Oprindelig meddelelse -----",
        "-------- Původní zpráva --------",
        "-------- Исходное сообщение --------",
        "-------- Оригінальне повідомлення --------",
        "————— Original Message —————",
        "=====Original Message=====",
        "------On 12/29/2026 17:32 PM, Таня wrote-----",
    ],
)
def test_a_dashed_separator_naming_a_message_starts_the_quote(separator: str) -> None:
    """Its words name a message (or it is an attribution between dashes): the quote
    starts there, its first line doubtful."""
    reading = split_reply(f"ГОЛОС Петя\n\n{separator}\nГОЛОС Таня\nПока")
    assert (reading.text, reading.doubtful, reading.aside) == (
        "ГОЛОС Петя",
        (separator, "ГОЛОС Таня"),
        ("Пока",),
    )


def test_a_dashed_separator_in_an_unknown_language_above_a_header_starts_the_quote() -> None:
    """Words pbp has no list for, but a header block follows: the quote starts at the
    dashed line."""
    body = (
        "ГОЛОС Петя\n\n-------- Algne kiri --------\nSaatja: Таня <tanya@example.test>\n"
        "Saadetud: 01.12.2026 12:40\nAdressaat: Оля\nTeema: ход\n\nГОЛОС Таня"
    )
    reading = split_reply(body)
    assert reading.text == "ГОЛОС Петя"
    assert reading.doubtful[:2] == (
        "-------- Algne kiri --------",
        "Saatja: Таня <tanya@example.test>",
    )
    assert "ГОЛОС Таня" in reading.aside


# --- 3. a Word: heading ------------------------------------------------------------------------


@pytest.mark.parametrize("heading", ["Moves:", "Two:", "Update:", "upd:", "p.s.:", "P.S.:"])
def test_a_word_heading_above_a_move_is_no_forum_quote(heading: str) -> None:
    """A capitalised word, capitals or a heading word is no Discourse username: the move
    below is his (before: "looks quoted — not done")."""
    assert forum_quote(heading) is None
    body = f"{heading}\nREFUTE 7 knife"
    reading = split_reply(body)
    assert (reading.text, reading.doubtful) == (body, ())


def test_a_move_under_a_word_heading_runs(olya: ManiacTable) -> None:
    outcomes, lines = reply(olya, "Moves:\nГОЛОС Петя\n")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, "Пропущено — это не команды:", "> Moves:", "", FOOTER]


@pytest.mark.parametrize("title", ["olya:", "olya_k:", "Olya88:"])
def test_a_discourse_quote_copied_with_a_blank_line_under_its_title_is_not_executed(
    olya: ManiacTable, title: str
) -> None:
    """A page copied as text puts a blank line between the quote's title and the post
    (before: the title was a quote's only with the post right below it, and the old
    vote ran)."""
    body = f"ГОЛОС Петя\n\n{title}\n\nГОЛОС Таня\n"
    assert split_reply(body).text == "ГОЛОС Петя"
    outcomes, lines = reply(olya, body)
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [*VOTE_PETYA, *OLD_VOTE_LISTED, FOOTER]
