"""Real mail, third pass (issue 33, items 3 and 4): other quote marks, Outlook's
labelled inline comments, and a header block that names pbp's mail without
In-Reply-To. Raw bytes through the service: Оля (From ``Оля Петрова``) first votes for
Таня, then answers with her own move ``ГОЛОС Петя`` and, where there is a quote, the
old vote for Таня inside it. The old vote never runs again (M9 counts each vote cast:
it would be her 2nd for Таня), and the new one stands.

Plays seed 002's Maniac game (:mod:`kits.maniac_table`). The quote marks are mutt's
default ``quote_regex`` (``|``, ``:``, ``}``) and what Outlook, Claws Mail and Pine let
the user choose as a prefix; the labels are Outlook's "Mark my comments with".
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from kits.maniac_table import EMAILS, ManiacTable
from test_real_mail import DAY_1, FOOTER, answer, message, run, votes
from test_real_mail_quotes import ADVICE

from pbp.mail.read.mime import read_letter

OLYA = EMAILS["Оля"]
REPLY_AT = DAY_1 + timedelta(minutes=10)
#: The answer to her new vote, exactly (after the greeting).
PETYA = [
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
LOOKS_QUOTED = "Похоже на цитату — не выполнено:"
#: pbp's answer to her first vote, as a client quotes it unmarked; ``{comment}`` is
#: where she writes inside it.
OUR_ANSWER = """\
Игра: seed-002

Оля, вот что сделано по вашему письму.

Выполнено:

> ГОЛОС Таня
Понял: ГОЛОС за Таню
{comment}
Принято: ваш голос — за Таню. Сегодня это ваш 1-й голос за этого игрока.

Для форума (скопируйте в тред игры):

[b]Голосую за Таню[/b]

СТАТУС — ваша роль и голоса дня, ПОМОЩЬ — список команд.
"""
#: The Subject of pbp's answer to her first vote.
ANSWER_SUBJECT = "[seed-002] Re: move"
#: Russian Outlook's header block above the mail answered, naming that answer.
HEADER = (
    "От: pbp <gm@example.test>\n"
    "Отправлено: 1 декабря 2026 г. 13:00\n"
    "Кому: Оля Петрова <olya@example.test>\n"
    f"Тема: {ANSWER_SUBJECT}\n\n"
)


@pytest.fixture
def maniac(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    table.run(DAY_1 - timedelta(minutes=30))
    table.new_mail()
    outcomes, _mails = run(table, from_olya(table, "ГОЛОС Таня\n"))
    assert outcomes == ["applied"]
    assert votes(table) == {"Оля": "Таня"}
    yield table
    table.close()


def from_olya(
    table: ManiacTable,
    body: str,
    *headers: bytes,
    name: str = "Оля Петрова",
    content_type: bytes = b"Content-Type: text/plain; charset=utf-8",
) -> bytes:
    """Оля's raw mail (CRLF lines) to her personal address; ``name``: her From's
    display name (``""``: none)."""
    sender = f'"{name}" <{OLYA}>' if name else OLYA
    to = f"gm+{table.token('Оля')}@example.test"
    payload = body.replace("\n", "\r\n").encode()
    return message(sender, to, payload, *headers, content_type=content_type)


def in_reply_to_our_answer(table: ManiacTable) -> bytes:
    """An In-Reply-To naming pbp's last mail to Оля (Outlook sends one)."""
    (*_, last) = [mail for mail in table.store.outbox() if mail.recipient == OLYA]
    return b"In-Reply-To: " + last.message_id.encode()


def reply(table: ManiacTable, raw: bytes, outcome: str = "applied") -> list[str]:
    """Deliver Оля's ``raw`` mail: her answer's lines after the greeting."""
    outcomes, mails = run(table, raw, at=REPLY_AT)
    assert outcomes == [outcome]
    return answer(mails, OLYA)


def looks_quoted(*lines: str) -> list[str]:
    """The answer's "looks quoted" section listing ``lines``, and the blank after it."""
    return [LOOKS_QUOTED, *(f"> {line}" for line in lines), ADVICE, ""]


# --- (a) Outlook's inline comments, labelled with the sender's name -----------------------


def test_fault_a_an_outlook_comment_inside_the_quote_is_run(maniac: ManiacTable) -> None:
    """``[Оля] ГОЛОС Петя`` written inside pbp's answer quoted unmarked under a header
    block: dropped before ("no command found"). The quote's own vote line
    (``[b]Голосую за Таню[/b]``) is not labelled and never runs."""
    body = HEADER + OUR_ANSWER.format(comment="[Оля] ГОЛОС Петя")
    raw = from_olya(maniac, body, in_reply_to_our_answer(maniac))
    assert "ГОЛОС Петя" not in read_letter(raw).text  # only her label makes it hers
    assert reply(maniac, raw) == [*PETYA, FOOTER]
    assert votes(maniac) == {"Оля": "Петя"}


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Оля Петрова", "[Оля Петрова]"),
        ("Оля Петрова", "[ОП]"),
        ("Оля Петрова", "[О.П.]"),
        ("Оля Петрова", "[Петрова]"),
        ("Петрова, Оля", "[Оля Петрова]"),
        ("Olya Petrova", "[OP]"),
        ("Olya Petrova", "[Olya Petrova]"),
        ("", "[Оля]"),  # no display name: her seat's name
    ],
)
def test_fault_a_a_comment_labelled_by_name_or_initials_is_the_senders(
    maniac: ManiacTable, name: str, label: str
) -> None:
    """No In-Reply-To: the header block alone names pbp's answer (item 4); the
    labelled line is hers wherever the echo of pbp's answer is cut."""
    body = HEADER + OUR_ANSWER.format(comment=f"{label} ГОЛОС Петя")
    assert reply(maniac, from_olya(maniac, body, name=name)) == [*PETYA, FOOTER]
    assert votes(maniac) == {"Оля": "Петя"}


def test_fault_a_comments_in_a_quote_below_her_greeting(maniac: ManiacTable) -> None:
    """English Outlook, top-posting: her greeting, the separator and header, pbp's mail
    with her comment labelled by initials; the quote's unlabelled old vote and one
    labelled by somebody else never run (the latter is said, as looking quoted)."""
    quote = OUR_ANSWER.format(comment="ГОЛОС Таня\n[Таня] ГОЛОС Таня\n\n[ОП] ГОЛОС Петя")
    body = (
        "Привет!\n\n-----Original Message-----\nFrom: pbp <gm@example.test>\n"
        "Sent: Tuesday, December 1, 2026 1:00 PM\nTo: Olya Petrova <olya@example.test>\n"
        "Subject: Re: move\n\n" + quote
    )
    lines = reply(maniac, from_olya(maniac, body))
    assert votes(maniac) == {"Оля": "Петя"}
    assert lines == [
        *PETYA,
        *looks_quoted("ГОЛОС Таня"),
        "Пропущено — это не команды:",
        "> Привет!",
        "",
        FOOTER,
    ]


def test_fault_a_an_outlook_html_comment_is_run(maniac: ManiacTable) -> None:
    """Outlook's HTML: the label in bold italics and colour, the quote under its
    bordered header ``<div>``."""
    html = (
        "<html><body><div><div style='border:none;border-top:solid #E1E1E1 1.0pt'>"
        "<p><b>От:</b> pbp &lt;gm@example.test&gt;<br><b>Отправлено:</b> 1 декабря 2026 г. "
        "13:00<br><b>Кому:</b> Оля Петрова &lt;olya@example.test&gt;<br><b>Тема:</b> "
        f"{ANSWER_SUBJECT}</p></div><p>Оля, вот что сделано по вашему письму.</p>"
        "<p>&gt; ГОЛОС Таня<br>Понял: ГОЛОС за Таню</p><p><b><i><span style='color:#1F497D'>"
        "[О.П.] </span></i></b>ГОЛОС Петя</p><p>[b]Голосую за Таню[/b]</p></div></body></html>"
    )
    raw = from_olya(
        maniac,
        html,
        in_reply_to_our_answer(maniac),
        content_type=b"Content-Type: text/html; charset=utf-8",
    )
    assert reply(maniac, raw) == [*PETYA, FOOTER]
    assert votes(maniac) == {"Оля": "Петя"}


def test_fault_a_an_unlabelled_line_of_the_quote_never_runs(maniac: ManiacTable) -> None:
    """The header block names no mail of pbp's (its Subject is none pbp sent), so every
    unlabelled line under it may be the quote: the old vote is only said."""
    body = HEADER.replace(ANSWER_SUBJECT, "Re: ход") + "ГОЛОС Таня\n\n[Оля] ГОЛОС Петя\n"
    lines = reply(maniac, from_olya(maniac, body))
    assert votes(maniac) == {"Оля": "Петя"}
    assert lines == [*PETYA, *looks_quoted("ГОЛОС Таня"), FOOTER]


def test_fault_a_a_label_that_is_not_hers_is_answered_looks_quoted(maniac: ManiacTable) -> None:
    """A label pbp cannot tie to her (no display name; ``OP`` is not ``Оля``): never
    run, and never missed without a word (not "no command found")."""
    body = HEADER + OUR_ANSWER.format(comment="[OP] ГОЛОС Петя")
    lines = reply(maniac, from_olya(maniac, body, name=""), outcome="status")
    assert votes(maniac) == {"Оля": "Таня"}
    assert lines == [*looks_quoted("ГОЛОС Петя"), FOOTER]


def test_fault_a_her_comment_in_an_older_mail_never_runs_again(maniac: ManiacTable) -> None:
    """She answers her own sent mail (Outlook's Reply on it): her old comment ``[Оля]
    ГОЛОС Таня`` stands under pbp's header inside it, a deeper quote: never run again."""
    body = (
        "От: Оля Петрова <olya@example.test>\nОтправлено: 1 декабря 2026 г. 13:05\n"
        f"Кому: pbp <gm+{maniac.token('Оля')}@example.test>\nТема: RE: {ANSWER_SUBJECT}\n\n"
        + HEADER
        + OUR_ANSWER.format(comment="[Оля] ГОЛОС Таня")
    )
    outcomes, _mails = run(maniac, from_olya(maniac, body), at=REPLY_AT)
    # Nothing new of hers: answered "looks quoted — not done" (never silent), not run.
    assert outcomes == ["status"]
    assert votes(maniac) == {"Оля": "Таня"}
    kinds = [e.event.kind for e in maniac.store.events("seed-002")]
    assert kinds.count("vote_cast") == 1


def test_fault_a_her_comment_in_a_forwarded_mail_never_runs(maniac: ManiacTable) -> None:
    """A forwarded mail is never executed, her labels inside it neither."""
    body = (
        "ГОЛОС Петя\n\n---------- Forwarded message ---------\n"
        "From: Оля Петрова <olya@example.test>\nDate: Tue, Dec 1, 2026 at 1:05 PM\n"
        "Subject: move\nTo: pbp <gm@example.test>\n\n[Оля] ГОЛОС Таня\n"
    )
    outcomes, _mails = run(maniac, from_olya(maniac, body), at=REPLY_AT)
    assert outcomes == ["applied"]
    assert votes(maniac) == {"Оля": "Петя"}
    kinds = [e.event.kind for e in maniac.store.events("seed-002")]
    assert kinds.count("vote_cast") == 2


# --- (b) other quote marks ---------------------------------------------------------------

BAR_QUOTE = (
    "1 дек. 2026 г., в 13:00, pbp <gm@example.test> написал(а):\n\n"
    "{mark}Оля, вот что сделано по вашему письму.\n"
    "{mark}> ГОЛОС Таня\n"
    "{mark}ГОЛОС Таня\n"
    "{mark}[b]Голосую за Таню[/b]\n\n"
    "ГОЛОС Петя\n"
)


@pytest.mark.parametrize("mark", ["| ", "|", ": ", "} ", "| | ", "|| ", ": : ", "| > "])
def test_fault_b_a_quote_of_another_mark_with_the_reply_below(
    maniac: ManiacTable, mark: str
) -> None:
    """An attribution, lines quoted with the mark the user chose, the reply below: the
    move was taken for part of a top-posted quote ("no command found")."""
    raw = from_olya(maniac, BAR_QUOTE.format(mark=mark))
    assert read_letter(raw).text == "ГОЛОС Петя"
    assert reply(maniac, raw) == [*PETYA, FOOTER]
    assert votes(maniac) == {"Оля": "Петя"}


def test_fault_b_nested_bar_quotes_and_an_interleaved_answer(maniac: ManiacTable) -> None:
    """``| |`` inside ``|``, her answer between two quoted blocks: only hers runs."""
    body = (
        "Оля Петрова писала:\n"
        "| pbp <gm@example.test> wrote:\n"
        "| | ГОЛОС Таня\n"
        "| [b]Голосую за Таню[/b]\n\n"
        "ГОЛОС Петя\n\n"
        "|| ГОЛОС Таня\n"
    )
    assert reply(maniac, from_olya(maniac, body)) == [*PETYA, FOOTER]
    assert votes(maniac) == {"Оля": "Петя"}


@pytest.mark.parametrize("line", ["| ГОЛОС Таня", ": ГОЛОС Таня", "} ГОЛОС Таня"])
def test_fault_b_a_marked_line_without_an_attribution_never_runs(
    maniac: ManiacTable, line: str
) -> None:
    """No attribution above it: the line may still be quoted, so it is only said."""
    lines = reply(maniac, from_olya(maniac, f"{line}\n\nГОЛОС Петя\n"))
    assert votes(maniac) == {"Оля": "Петя"}
    assert lines == [*PETYA, *looks_quoted("ГОЛОС Таня"), FOOTER]


def test_fault_b_a_smiley_is_no_quote_mark() -> None:
    """``:)`` at the start of her line is mutt's smiley, not a quote mark."""
    raw = message(OLYA, "gm@example.test", "Таня писала:\n:) ГОЛОС Таня\n".encode())
    assert read_letter(raw).doubtful == ("Таня писала:", ":) ГОЛОС Таня")


# --- (c) a header block naming pbp's mail, no In-Reply-To --------------------------------


def test_fault_c_a_header_block_naming_our_mail_is_answering_it(maniac: ManiacTable) -> None:
    """Отправлено/От/Кому/Тема of pbp's answer, her move below, no In-Reply-To: the move
    was listed as looking quoted and not applied."""
    body = (
        "Отправлено: 1 декабря 2026 г. 13:00\nОт: pbp <gm@example.test>\n"
        f"Кому: Оля Петрова <olya@example.test>\nТема: {ANSWER_SUBJECT}\n\nГОЛОС Петя\n"
    )
    assert reply(maniac, from_olya(maniac, body)) == [*PETYA, FOOTER]
    assert votes(maniac) == {"Оля": "Петя"}


def test_fault_c_the_mail_named_below_the_move_never_runs(maniac: ManiacTable) -> None:
    """Her move, then pbp's answer pasted unmarked (its old vote line among it): the
    lines of that mail are not hers."""
    body = HEADER + "ГОЛОС Петя\n\n" + OUR_ANSWER.format(comment="")
    assert reply(maniac, from_olya(maniac, body)) == [*PETYA, FOOTER]
    assert votes(maniac) == {"Оля": "Петя"}


def test_fault_c_an_english_header_naming_her_personal_address(maniac: ManiacTable) -> None:
    """Gmail-style English fields; the address is her personal one, the line of our mail
    she kept (its forum snippet) is said as looking quoted."""
    personal = f"gm+{maniac.token('Оля')}@example.test"
    body = (
        f"From: pbp <{personal}>\nDate: Tue, Dec 1, 2026 at 1:00 PM\nTo: Olya <olya@example.test>\n"
        f"Subject: {ANSWER_SUBJECT}\n\nГОЛОС Петя\n\n[b]Голосую за Таню[/b]\n"
    )
    lines = reply(maniac, from_olya(maniac, body))
    assert votes(maniac) == {"Оля": "Петя"}
    assert lines == [*PETYA, *looks_quoted("[b]Голосую за Таню[/b]"), FOOTER]


def test_fault_c_a_subject_pbp_sent_to_another_player_names_nothing(maniac: ManiacTable) -> None:
    """pbp's answer to Петя's mail is no mail to Оля: under a header naming it,
    everything may be quoted."""
    outcomes, _mails = run(
        maniac,
        message(
            EMAILS["Петя"],
            f"gm+{maniac.token('Петя')}@example.test",
            "СТАТУС\r\n".encode(),
            subject=b"Subject: vopros",
        ),
    )
    assert outcomes == ["status"]
    body = HEADER.replace(ANSWER_SUBJECT, "[seed-002] Re: vopros") + "ГОЛОС Петя\n"
    lines = reply(maniac, from_olya(maniac, body), outcome="status")
    assert votes(maniac) == {"Оля": "Таня"}
    assert lines == [*looks_quoted("ГОЛОС Петя"), FOOTER]


def test_fault_c_a_header_naming_another_sender_names_nothing(maniac: ManiacTable) -> None:
    """The right Subject but no address of pbp's in the block (a mail of Таня's)."""
    body = HEADER.replace("pbp <gm@example.test>", "Таня <tanya@example.test>") + "ГОЛОС Петя\n"
    lines = reply(maniac, from_olya(maniac, body), outcome="status")
    assert votes(maniac) == {"Оля": "Таня"}
    assert lines == [*looks_quoted("ГОЛОС Петя"), FOOTER]
