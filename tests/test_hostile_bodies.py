"""Hostile mail bodies are read in linear time (issue 12, item 1) and a mail nested too
deep is kept as unreadable and explained (item 9).

Each shape of :mod:`kits.bodyshapes` (runs of blank lines, ``" \\n"``, ``\\r``, long lines,
nested ``>`` quote markers, separators, NUL and control bytes, quoted-printable soft
breaks, format=flowed, base64, ``<br>`` runs, nested ``<div>``/``<blockquote>``/
``<table>``/lists, unclosed tags, entities, huge ``<style>`` and comments, forum
``[quote=``, nested MIME parts) is read at 1 MB, as a player's mail by
:func:`~pbp.mail.read.mime.read_letter` and the command parsers of the bundled games
(Cluedo by days and by rounds, Maniac, the GM's commands), and as a stranger's mail by
:func:`~pbp.mail.read.mime.read_letter`. Each is asserted to take at most three seconds of
the thread's CPU time (:func:`time.thread_time`): a generous bound that a slow or busy
machine keeps (the slowest shape takes 0.3-1.3 s there), as super-linear reading took
tens of seconds to minutes on these shapes (65 s for 50 KB of blank lines); the growth
with the size is checked on its own (:func:`test_reading_time_grows_linearly_with_the_size`);
and the move written before the filler is still read.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from kits.bodyshapes import BY_NAME, MOVE, PLAIN, PLAYER, SHAPES, STRANGER, Shape, head
from kits.seed_000 import CARDS, PLAYERS
from kits.table import EMAILS, Table, body, named_body, utc

from pbp.app.playermoves import ignored_lines
from pbp.games.cluedo.cards import Status as CluedoStatus
from pbp.games.cluedo.parse import parse_cluedo
from pbp.games.maniac.engine import Status as ManiacStatus
from pbp.games.maniac.parse import parse_maniac
from pbp.mail.maildir import deliver
from pbp.mail.read import markup
from pbp.mail.read.automatic import is_automatic
from pbp.mail.read.echo import strip_echo, strip_help_echo
from pbp.mail.read.forumtags import unquote_forum
from pbp.mail.read.markup import html_to_text, tame_html
from pbp.mail.read.mime import read_letter
from pbp.mail.read.mimetree import MAX_PART_DEPTH
from pbp.mail.read.textparts import MAX_TEXT_LINES
from pbp.text.commands import MAX_LINES
from pbp.text.gmcommands import parse_gm

MEGABYTE = 1_000_000
#: Thread CPU seconds allowed for reading one mail of :data:`MEGABYTE` and parsing it.
BUDGET = 3.0
MANIAC_PLAYERS = ["Вася", "Петя", "Саша", "Таня"]
HELP = "Команды:\n    ГОЛОС Игрок\n    ПОМОЩЬ\nПишите по одной команде в строке.\n"
START = utc(2026, 12, 1, 17)
DAY = utc(2026, 12, 1, 18)

#: Each bundled game's parser, and what it reads the move ``СТАТУС`` as.
GAMES: dict[str, tuple[Callable[[str], Sequence[Any]], object]] = {
    "cluedo_days": (lambda text: parse_cluedo(text, CARDS, PLAYERS), CluedoStatus()),
    "cluedo_rounds": (
        lambda text: parse_cluedo(text, CARDS, PLAYERS, addressed=False),
        CluedoStatus(),
    ),
    "maniac": (lambda text: parse_maniac(text, MANIAC_PLAYERS), ManiacStatus()),
}


def cpu(work: Callable[[], Any]) -> tuple[Any, float]:
    """``(work(), thread CPU seconds it took)``."""
    started = time.thread_time()
    result = work()
    return result, time.thread_time() - started


def check_text(shape: Shape, text: str) -> None:
    if shape.text is not None:
        assert text == shape.text
    assert text.split("\n")[0] == shape.first


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_a_players_hostile_mail_of_1_mb_is_read_and_parsed_within_the_budget(shape: Shape) -> None:
    raw = shape.raw(MEGABYTE)
    assert MEGABYTE - 100 <= len(raw) <= MEGABYTE + 20_000
    letter, reading = cpu(lambda: read_letter(raw))
    assert (letter.from_address, letter.unreadable_code) == (PLAYER, shape.code)
    check_text(shape, letter.text)
    for name, (parse, status) in GAMES.items():

        def handle(parse: Callable[[str], Sequence[Any]] = parse) -> Sequence[Any]:
            text = strip_help_echo(strip_echo(letter.text, HELP), HELP)
            commands = parse(text)
            ignored_lines(text, [])
            return commands

        commands, parsing = cpu(handle)
        assert reading + parsing <= BUDGET, (name, reading, parsing)
        if shape.code == "":
            assert commands[0].move == status, name
            assert commands[0].line_no == 1
    gm_commands, gm_parsing = cpu(lambda: parse_gm(letter.text))
    assert reading + gm_parsing <= BUDGET
    assert len(gm_commands) <= MAX_LINES


@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
def test_a_strangers_hostile_mail_of_1_mb_is_read_within_the_budget(shape: Shape) -> None:
    letter, reading = cpu(lambda: read_letter(shape.raw(MEGABYTE, STRANGER)))
    assert reading <= BUDGET
    assert (letter.from_address, letter.unreadable_code) == (STRANGER, shape.code)
    check_text(shape, letter.text)


#: The shapes that were super-linear before (seconds to minutes at 50 KB to 1 MB).
WERE_QUADRATIC = [
    "blank_lines",
    "space_newline",
    "cr_runs",
    "flowed_blank_lines",
    "base64_blank_lines",
    "html_br",
    "html_nested_div",
    "html_unclosed_tags",
    "html_nested_lists",
    "html_cr_runs",
    "forum_quote_opens",
    "outlook_from_lines",
]


@pytest.mark.parametrize("name", WERE_QUADRATIC)
def test_reading_time_grows_linearly_with_the_size(name: str) -> None:
    """Four times the size takes at most about four times as long (quadratic: 16)."""
    shape = BY_NAME[name]

    def seconds(size: int) -> float:
        raw = shape.raw(size)

        def work() -> None:
            letter = read_letter(raw)
            parse_maniac(letter.text, MANIAC_PLAYERS)

        return min(cpu(work)[1] for _ in range(2))

    small, large = seconds(MEGABYTE // 4), seconds(MEGABYTE)
    assert large <= 8 * small + 0.05, (small, large)


# --- what is read of them ---


def test_the_move_before_a_megabyte_of_blank_lines_is_the_only_command() -> None:
    letter = read_letter(BY_NAME["blank_lines"].raw(MEGABYTE))
    assert letter.text == MOVE
    assert [(c.line_no, c.move) for c in parse_maniac(letter.text, MANIAC_PLAYERS)] == [
        (1, ManiacStatus())
    ]


def test_the_parsers_read_the_first_lines_and_leave_the_rest_to_the_ignored_list() -> None:
    text = "\n".join(["Привет"] * (MAX_LINES - 1) + ["СТАТУС", "ПОМОЩЬ"])
    assert [c.line_no for c in parse_maniac(text, MANIAC_PLAYERS)] == [MAX_LINES]
    assert [c.line_no for c in parse_cluedo(text, CARDS, PLAYERS)] == [MAX_LINES]
    assert ignored_lines(text, []) == ["Привет"] * (MAX_LINES - 1) + ["СТАТУС", "ПОМОЩЬ"]


def test_a_text_part_is_read_to_max_text_lines() -> None:
    """The quote reader spent 2 s on 900,000 one-character lines (1.8 MB)."""
    lines = ["СТАТУС"] + ["_"] * (MAX_TEXT_LINES - 2) + ["ПОМОЩЬ", "ГОЛОС Петя"]
    raw = head(PLAYER) + PLAIN + b"\r\n\r\n" + "\n".join(lines).encode()
    assert read_letter(raw, body=True).text.split("\n")[-2:] == ["_", "ПОМОЩЬ"]


def test_a_forum_quote_tag_ends_at_the_first_bracket_within_300_characters() -> None:
    tag = "[quote=" + "a" * 300 + "]"
    too_long = "[quote=" + "a" * 301 + "]"
    assert unquote_forum([tag + "СТАТУС"]) == [("", True)]
    assert unquote_forum([too_long + "СТАТУС"]) == [(too_long + "СТАТУС", False)]
    assert unquote_forum(["[quote=[quote=x]y[/quote]z"]) == [("z", True)]


def test_honest_html_reaches_html2text_unchanged_but_for_its_quotes() -> None:
    html = (
        '<html><head><style>p {margin:0}</style></head><body><div dir="ltr">'
        "<p>ГОЛОС Петя<br></p><ul><li>a</li></ul><!-- a <b> comment --></div>"
        '<div class="gmail_quote"><div>old</div><blockquote>older</blockquote></div>'
        "<p>x &lt; y &amp; z</p></body></html>"
    )
    assert tame_html(html) == html.replace(
        '<div class="gmail_quote"><div>old</div><blockquote>older</blockquote></div>', ""
    ).replace("<!-- a <b> comment -->", "")


def test_comments_are_left_out_and_an_unclosed_one_hides_the_rest() -> None:
    """HTMLParser looked for the end of an unclosed comment again from each later
    ``<!--``: 1.8 MB of them took over 3 s, and a STATUS before them went unread."""
    assert tame_html("<p>СТАТУС</p><!-- a --><p>ПОМОЩЬ</p><!--<!--<p>ГОЛОС</p>") == (
        "<p>СТАТУС</p><p>ПОМОЩЬ</p>"
    )
    assert html_to_text("<p>СТАТУС</p>" + "<!--" * 450_000) == "СТАТУС"


def test_a_stray_less_than_sign_is_escaped_and_read_as_text() -> None:
    assert tame_html("<p>СТАТУС</p><b<b x<3") == "<p>СТАТУС</p>&lt;b&lt;b x&lt;3"
    assert html_to_text("<p>СТАТУС</p><b<b x<3") == "СТАТУС\n\n<b<b x<3"


def test_lists_nest_at_most_max_nesting_deep_in_the_text() -> None:
    depth = markup.MAX_NESTING + 10
    text = html_to_text("<p>СТАТУС</p>" + "<ul><li>x" * depth)
    lines = text.split("\n")
    assert lines[:2] == ["СТАТУС", ""]
    items = [line for line in lines if line.strip() == "* x"]
    assert len(items) == depth
    indents = [len(line) - len(line.lstrip()) for line in items]
    assert indents[: markup.MAX_NESTING] == [2 * (level + 1) for level in range(markup.MAX_NESTING)]
    assert set(indents[markup.MAX_NESTING :]) == {2 * markup.MAX_NESTING}


def test_html_after_max_tags_is_not_read() -> None:
    html = "<p>СТАТУС</p>" + "<br>" * markup.MAX_TAGS + "ПОМОЩЬ"
    assert html_to_text(html) == "СТАТУС"
    assert html_to_text("<p>СТАТУС</p>" + "&amp;" * markup.MAX_TAGS + "x") == (
        "СТАТУС\n\n" + "&" * (markup.MAX_TAGS - 2)
    )


# --- nested MIME parts (item 9) ---


@pytest.mark.parametrize("name", ["nested_rfc822", "nested_multipart"])
def test_a_mail_nested_a_thousand_deep_is_unreadable_with_its_headers_read(name: str) -> None:
    """It raised RecursionError; the mail was kept as automatic and nobody was told."""
    letter = read_letter(BY_NAME[name].raw(60_000))
    assert (letter.from_address, letter.subject, letter.message_id) == (
        PLAYER,
        "move",
        "<hostile@example.test>",
    )
    assert (letter.unreadable, letter.unreadable_code, letter.text) == (
        f"MIME parts nested over {MAX_PART_DEPTH} deep",
        "too_deep",
        "",
    )
    assert letter.automatic is False


def nested(levels: int) -> bytes:
    """A mail of ``levels`` attached mails, one inside the other, the last with a move."""
    mail = b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + MOVE.encode() + b"\r\n"
    for _ in range(levels):
        mail = b"Content-Type: message/rfc822\r\n\r\nFrom: a@example.test\r\n" + mail
    return b"From: " + PLAYER.encode() + b"\r\nSubject: fwd\r\n" + mail


def test_a_mail_nested_just_below_the_limit_is_read() -> None:
    letter = read_letter(nested(MAX_PART_DEPTH))
    assert (letter.unreadable_code, letter.forwarded) == ("", True)
    assert read_letter(nested(MAX_PART_DEPTH + 1)).unreadable_code == "too_deep"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(START)
    table.new_mail()
    yield table
    table.close()


def test_a_players_too_deep_mail_is_kept_and_he_is_told_why(table: Table) -> None:
    to = f"gm+{table.token('Кросс')}@example.test"
    raw = BY_NAME["nested_rfc822"].raw(60_000, EMAILS["Кросс"], to)
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["unreadable"]
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    assert named_body(reply, "seed-000").splitlines() == [
        "Здравствуйте! Ваше письмо не удалось прочитать: его части вложены друг в друга "
        "слишком глубоко (письмо в письме в письме…). Поэтому ходы из него не выполнены. "
        "Письмо сохранено, ГМ получил уведомление.",
        "Пришлите ходы ещё раз новым письмом обычным текстом, не пересылая в нём другие письма.",
    ]
    (kept,) = table.store.kept()
    assert kept.reason == f"unreadable: MIME parts nested over {MAX_PART_DEPTH} deep"


def test_a_too_deep_mail_is_explained_in_english_for_an_english_game(tmp_path: Path) -> None:
    table = Table(tmp_path, locale="en")
    try:
        table.run(START)
        table.new_mail()
        to = f"gm+{table.token('Кросс')}@example.test"
        raw = BY_NAME["nested_multipart"].raw(60_000, EMAILS["Кросс"], to)
        deliver(table.inbox_path, raw, at=DAY)
        assert table.run(DAY + timedelta(minutes=1)) == ["unreadable"]
        (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
        assert named_body(reply, "seed-000").splitlines() == [
            "Hello! Your mail could not be read: its parts are nested too deeply (a mail "
            "inside a mail inside a mail…). So its moves were not carried out. It is kept "
            "and the GM has been told.",
            "Please send your moves again in a new plain-text mail, without other mails "
            "forwarded in it.",
        ]
    finally:
        table.close()


def test_a_players_megabyte_of_blank_lines_after_status_is_answered(table: Table) -> None:
    to = f"gm+{table.token('Кросс')}@example.test"
    raw = BY_NAME["blank_lines"].raw(MEGABYTE, EMAILS["Кросс"], to)
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    assert "> СТАТУС" in body(reply).splitlines()


def test_the_hostile_benchmark_prints_a_row_per_shape_and_size() -> None:
    """``benchmarks/hostile.py`` stays runnable (its figures are in README)."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "hostile.py"
    done = subprocess.run(
        [sys.executable, str(script), "--sizes", "0.01,0.02", "--only", "blank_lines,html_br"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = done.stdout.splitlines()
    assert rows[0].split() == ["shape", "size", "CPU", "s", "peak", "RSS", "MB"]
    assert [row.split()[:3] for row in rows[1:]] == [
        ["baseline", "-", "0.000"],
        ["blank_lines", "0.01", "MB"],
        ["blank_lines", "0.02", "MB"],
        ["html_br", "0.01", "MB"],
        ["html_br", "0.02", "MB"],
    ]
    for row in rows[1:]:
        assert re.fullmatch(r"\S+ +(-|[\d.]+ MB) +\d+\.\d{3} +\d+\.\d", row), row


def test_a_bounce_report_beside_a_deep_chain_of_parts_is_still_automatic() -> None:
    """``Message.walk`` recursed into the chain first and hit RecursionError, which
    ``is_automatic`` took for "not automatic": a bounce would have been answered."""
    chain = EmailMessage()
    chain.set_content(MOVE)
    for _ in range(5_000):
        outer = EmailMessage()
        outer.set_type("message/rfc822")
        outer.set_payload([chain])
        chain = outer
    report = EmailMessage()
    report.set_type("message/delivery-status")
    bounce = EmailMessage()
    bounce["From"] = "robot@example.test"
    bounce.set_type("multipart/mixed")
    bounce.set_payload([chain, report])
    assert is_automatic(bounce) is True
