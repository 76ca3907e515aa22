"""Issue 12, item 7: outside text is inert.

Text a GM or a player supplies (a lever's note, a substitute's name, a Subject, a
Message-ID) is shown as it is in a post, never as BBCode or Markdown markup
(:mod:`pbp.text.inert`, applied to every ``{{ value }}`` of a post by :mod:`pbp.text.render`), and
no control character of it reaches a mail body or header; a Subject echoed to the GM
stays on one line.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from kits.table import GM, TEMPLATES, Table, body, named_body, summary, utc

from pbp.games.core.events import Event, Visibility
from pbp.games.core.registry import KINDS
from pbp.mail.maildir import deliver
from pbp.mail.safetext import msg_ids, one_line, strip_controls
from pbp.text.inert import escape_bbcode, escape_markdown
from pbp.text.render import Renderer

GAME = "seed-000"
ZWSP = "\u200b"
PAUSED = (
    "\n\nПока игра на паузе, сроки стоят: день 1 не закроется. Ходы, присланные за это время, "
    "сохраняются и будут учтены в порядке прихода, когда игра продолжится.\n"
)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    # Both formats: the escaping of each is what these tests check.
    table = Table(tmp_path, extra="post_format: both\n")
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def flushed(table: Table) -> list[EmailMessage]:
    """Send what the levers queued; the new mails."""
    table.service.flush_outbox(utc(2026, 12, 31))
    return table.new_mail()


def announced(table: Table, lever: str = "пауза") -> tuple[str, str]:
    """The (BBCode, Markdown) announcement the GM got for the lever just pulled."""
    bbcode, markdown = [m for m in flushed(table) if "Объявление для форума" in m["Subject"]]
    assert bbcode["Subject"] == f"[seed-000] Объявление для форума: {lever} — BBCode"
    assert markdown["Subject"] == f"[seed-000] Объявление для форума: {lever} — Markdown"
    return body(bbcode), body(markdown)


# --- posts ------------------------------------------------------------------------------


def test_a_bbcode_link_as_the_gm_note_of_a_pause_is_shown_not_linked(table: Table) -> None:
    note = "[url=http://evil.example.test]x[/url]"
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=note)
    bbcode, markdown = announced(table)
    assert bbcode == (
        f"[b]Игра приостановлена.[/b]\n\nПримечание ГМа: [{ZWSP}url=http://evil.example.test]x[{ZWSP}/url]"
        + PAUSED
    )
    assert markdown == (
        "**Игра приостановлена.**\n\n"
        r"Примечание ГМа: \[url=http://evil.example.test\]x\[/url\]" + PAUSED
    )
    # Shown as typed: the forum shows the zero-width space as nothing.
    assert bbcode.replace(ZWSP, "").startswith(
        f"[b]Игра приостановлена.[/b]\n\nПримечание ГМа: {note}\n"
    )


def test_markdown_emphasis_and_a_link_in_a_gm_note_are_shown_as_typed(table: Table) -> None:
    note = "*bold* [link](http://x.example.test)"
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=note)
    bbcode, markdown = announced(table)
    assert markdown == (
        "**Игра приостановлена.**\n\n"
        r"Примечание ГМа: \*bold\* \[link\](http://x.example.test)" + PAUSED
    )
    assert bbcode == (
        f"[b]Игра приостановлена.[/b]\n\nПримечание ГМа: *bold* [{ZWSP}link](http://x.example.test)"
        + PAUSED
    )


def test_a_substitute_named_with_bbcode_colour_is_announced_by_his_literal_name(
    table: Table,
) -> None:
    name = "[color=red]Вова[/color]"
    table.service.gm.substitute(
        GAME, "Дуг", name, "vova@example.test", now=utc(2026, 12, 1, 17, 10), via="cli", note=None
    )
    bbcode, markdown = announced(table, "замена игрока")
    kept = (
        "\n\nМесто сохраняет имя Дуг со всем, что у него есть и что за ним числится."
        " В постах теперь будут оба имени, и годится любое из них.\n"
    )
    assert bbcode == f"[b][{ZWSP}color=red]Вова[{ZWSP}/color] заменяет Дуг.[/b]" + kept
    assert markdown == r"**\[color=red\]Вова\[/color\] заменяет Дуг.**" + kept


def test_html_special_characters_in_a_name_are_neither_html_escaped_nor_markup() -> None:
    """Posts are rendered with autoescape (macros keep their markup); nothing may
    come out HTML-escaped (``&amp;``, ``&#39;``) on the way."""
    renderer = Renderer(TEMPLATES, kinds=KINDS)
    events = [
        Event(
            "gm_substitute",
            Visibility.PUBLIC,
            {"player": "Дуг", "name": 'O\'Brien & <Co> "x"', "note": "a < b > c & d"},
        )
    ]
    context = {"game": GAME, "timezone": "Europe/Moscow", "note": None}
    bbcode = renderer.public_post("gm", events, locale="en", fmt="bbcode", kind="common", **context)
    markdown = renderer.public_post(
        "gm", events, locale="en", fmt="markdown", kind="common", **context
    )
    assert bbcode.splitlines()[:3] == [
        '[b]O\'Brien & <Co> "x" replaces Дуг.[/b]',
        "",
        "GM's note: a < b > c & d",
    ]
    assert markdown.splitlines()[:3] == [
        '**O\'Brien & \\<Co\\> "x" replaces Дуг.**',
        "",
        "GM's note: a \\< b \\> c & d",
    ]


def test_a_name_that_would_start_a_markdown_list_or_heading_is_escaped() -> None:
    assert escape_markdown("# Вова") == r"\# Вова"
    assert escape_markdown("- Вова\n1. Петя\n+ Оля") == "\\- Вова\n1\\. Петя\n\\+ Оля"
    assert escape_markdown("`code` ~~x~~ a|b <b>") == r"\`code\` \~\~x\~\~ a\|b \<b\>"
    # Only what could be markup: intraword "_", numbers and plain words stay.
    assert escape_markdown("New_York 1.5 ч. order_placed") == "New_York 1.5 ч. order_placed"
    assert escape_markdown("_a_") == r"\_a\_"


def test_a_bbcode_name_cannot_open_or_close_any_tag() -> None:
    assert escape_bbcode("[/quote][quote=Вова]x") == f"[{ZWSP}/quote][{ZWSP}quote=Вова]x"
    assert escape_bbcode("a ] b") == "a ] b"


def test_the_fairness_string_in_a_code_block_is_kept_exact_but_cannot_close_it() -> None:
    renderer = Renderer(TEMPLATES, kinds=KINDS)
    env = renderer._env("ru", "bbcode")
    template = env.from_string("{{ text|code }}")
    assert template.render(text='{"a":[1,2]}') == '[code]{"a":[1,2]}[/code]'
    assert template.render(text="x[/code]y") == f"[code]x[{ZWSP}/code]y[/code]"
    markdown = renderer._env("ru", "markdown").from_string("{{ text|code }}")
    assert markdown.render(text="a ``` b") == "````\na ``` b\n````"


# --- mail bodies and headers ------------------------------------------------------------


def encoded(text: str) -> str:
    """``text`` as one RFC 2047 encoded word (UTF-8, base64)."""
    return "=?utf-8?b?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def deliver_raw(table: Table, to: str, subject: str, message_id: str, extra: str = "") -> None:
    """Kross's mail with raw header values, as a hostile client writes them."""
    raw = (
        "From: cross@example.test\r\n"
        f"To: {to}\r\n"
        f"Subject: {subject}\r\n"
        "Date: Tue, 01 Dec 2026 17:05:00 +0000\r\n"
        f"Message-ID: {message_id}\r\n"
        f"{extra}"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "\r\n"
        "СТАТУС\r\n"
    )
    deliver(table.inbox_path, raw.encode("utf-8"), at=utc(2026, 12, 1, 17, 5))


def test_a_crlf_in_an_encoded_subject_writes_no_line_of_its_own_in_the_gm_notice(
    table: Table,
) -> None:
    """Kross writes to Дуг's personal address: the GM is told, with the Subject."""
    subject = encoded("Hi\r\nSender: gm@example.test")
    to = f"gm+{table.token('Дуг')}@example.test"
    deliver_raw(table, to, subject, "<m.1@example.test>")
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["wrong_sender"]
    mails = table.new_mail()
    (notice,) = [m for m in mails if m["To"] == GM]
    assert named_body(notice, GAME) == (
        "Письмо не обработано и отложено под №1; все отложенные письма перечисляет команда "
        "ОТЛОЖЕННЫЕ.\n"
        "  Причина: письмо пришло на личный адрес другого игрока\n"
        "  Отправитель: cross@example.test\n"
        "  Тема: Hi Sender: gm@example.test\n"
        "  Получено: 1 декабря 2026 г., 20:05 по Москве\n"
        "\n"
        "Ответьте ПОВТОРИТЬ 1, когда адрес отправителя будет верным, ЗА Кросса: <ход>, чтобы "
        "самому внести ходы из этого письма, или ОТКЛОНИТЬ 1, чтобы закрыть его, не "
        "применяя.\n"
    )
    (answer,) = [m for m in mails if m["To"] == "cross@example.test"]
    assert answer["Subject"] == "[seed-000] Re: Hi Sender: gm@example.test"


def test_esc_bel_and_nul_in_the_subject_reach_no_header_and_no_body(table: Table) -> None:
    subject = encoded("ход\x1b[31m\x07\x00 конец")
    to = f"gm+{table.token('Дуг')}@example.test"
    deliver_raw(table, to, subject, "<m.2@example.test>")
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["wrong_sender"]
    mails = table.new_mail()
    assert summary(mails) == [
        ("cross@example.test", "[seed-000] Re: ход[31m конец"),
        (GM, "[seed-000] Отложено: письмо пришло на личный адрес другого игрока"),
    ]
    for mail in mails:
        raw = bytes(mail)
        assert not [c for c in b"\x1b\x07\x00" if c in raw], raw
    assert "  Тема: ход[31m конец\n" in body(mails[1])


def test_an_esc_in_the_players_message_id_never_reaches_in_reply_to(table: Table) -> None:
    to = f"gm+{table.token('Кросс')}@example.test"
    deliver_raw(
        table,
        to,
        "ход",
        "<a\x1b[31m@evil.example.test>",
        extra="References: <ok.1@example.test> <bad\x1b@example.test>\r\n",
    )
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["status"]
    (answer,) = table.new_mail()
    assert answer["In-Reply-To"] is None and answer["References"] is None
    assert b"\x1b" not in bytes(answer)
    # A well-formed id is still echoed, threading the answer (RFC 5322 §3.6.4).
    deliver_raw(
        table,
        to,
        "ход",
        "<m.3@example.test>",
        extra="In-Reply-To: <c\x1b@example.test>\r\nReferences: <ok.1@example.test>\r\n",
    )
    assert table.run(utc(2026, 12, 1, 17, 7)) == ["status"]
    (answer,) = table.new_mail()
    assert answer["In-Reply-To"] == "<m.3@example.test>"
    assert answer["References"] == "<ok.1@example.test> <m.3@example.test>"


def test_control_characters_are_removed_and_lines_folded() -> None:
    assert strip_controls("a\x00b\x07c\x1bd\x7fe\x85f\u202eg\u2066h\ti\nj\rk") == "abcdefgh\ti\njk"
    assert one_line("  Hi\r\n\tSender:\x1b gm@example.test \u2028x ") == (
        "Hi Sender: gm@example.test x"
    )
    assert msg_ids("<a@b.example.test> <c\x1b@d> <e@f>") == ["<a@b.example.test>", "<e@f>"]
    assert msg_ids("<\u202ea@b>") == []


@pytest.mark.parametrize(
    ("fmt", "expected"),
    [
        ("bbcode", f"a & <b>|[b]x[/b]O'B & [{ZWSP}i]|O'B & [{ZWSP}i], [b]x[/b]|[i]O'B[/i]"),
        ("markdown", r"a & \<b\>|**x**O'B & \[i\]|O'B & \[i\], **x**|[i]O'B[/i]"),
    ],
)
def test_no_template_construct_html_escapes_or_lets_markup_through(fmt: str, expected: str) -> None:
    """A literal, ``markup ~ name``, a join of markup and names, a macro: whatever a new
    template writes, a name is inert and nothing comes out HTML-escaped."""
    env = Renderer(TEMPLATES, kinds=KINDS)._env("en", fmt)  # type: ignore[arg-type]
    template = env.from_string(
        '{{ "a & <b>" }}|{{ ("x"|b) ~ name }}|{{ [name, "x"|b]|join(", ") }}|'
        "{% macro m(x) %}[i]{{ x }}[/i]{% endmacro %}{{ m(short) }}"
    )
    assert template.render(name="O'B & [i]", short="O'B") == expected
