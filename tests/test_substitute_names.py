"""A substitute's name is held to the rules ``pbp check`` holds a player's to (issue 32,
item 6: names that cannot be misread): ``pbp substitute --name`` and the GM's
SUBSTITUTE / ЗАМЕНА by mail refuse a name that starts with a quote mark (``> Вова``),
holds a command word of any language pbp reads (``Вася ДЛЯ Петя``) or is not in NFKC form
(full-width ``Ｋｏｌｙａ``), one answer naming the name and why; the seat stays with its
player. A hostile probe found them taken: the seat then went to a name no move could
name.

Cluedo by days, seed 000 (kits.table): Кросс, Дуг, Роза. Maniac, seed 002
(kits.maniac_table).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.maniac_table import START, ManiacTable
from kits.table import EMAILS, GM, Table, body, utc

from pbp.cli import main
from pbp.games.core.events import LeverRefused
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT

GAME = "seed-000"
TAIL_EN = " Give the substitute another name; the seat stays with its player.\n"
TAIL_RU = " Дайте заменяющему другое имя; место осталось за прежним игроком.\n"

#: Each name of the issue, the refusal's params and its English and Russian sentences.
REFUSED = [
    pytest.param(
        "> Вова",
        {"name": "> Вова", "why": "quote", "marker": ">"},
        'The name "> Вова" cannot be a player\'s: a mail reads ">" as a quote mark and a '
        "line naming him as a quote, so moves naming him would never count.",
        "Имя «> Вова» не годится для игрока: «>» в письме читается как знак цитаты, а "
        "строка с этим именем — как цитата, так что ходы с ним никогда бы не засчитались.",
        id="quote_mark",
    ),
    pytest.param(
        "Вася ДЛЯ Петя",
        {"name": "Вася ДЛЯ Петя", "why": "command_word", "word": "для"},
        'The name "Вася ДЛЯ Петя" cannot be a player\'s: it holds "для", which a mail in '
        "this game reads as part of a command.",
        "Имя «Вася ДЛЯ Петя» не годится для игрока: в нём есть «для», а это слово письмо "
        "в этой игре читает как часть команды.",
        id="command_word",
    ),
    pytest.param(
        "Ｋｏｌｙａ",
        {"name": "Ｋｏｌｙａ", "why": "not_nfkc", "plain": "Kolya"},
        'The name "Ｋｏｌｙａ" cannot be a player\'s: it is written in full-width or other '
        'compatibility characters, which players do not type; write it as "Kolya".',
        "Имя «Ｋｏｌｙａ» не годится для игрока: оно набрано полноширинными или другими "
        "совместимыми знаками, которыми игроки не пишут; напишите его как «Kolya».",
        id="full_width",
    ),
]

#: A look-alike mixing scripts within a word: by mail the GM parser reads the word in one
#: script (``Kpocc``), so only the command line and ``pbp check`` see it mixed.
MIXED = [
    pytest.param(
        "К\u0070\u006f\u0063\u0063",
        {"name": "Кpocc", "why": "mixed_script", "word": "Кpocc"},
        'The name "Кpocc" cannot be a player\'s: its word "Кpocc" mixes Latin and Cyrillic '
        "letters that look alike, so it would show as another name letter for letter; "
        "write it in one alphabet.",
        "Имя «Кpocc» не годится для игрока: в слове «Кpocc» смешаны похожие латинские и "
        "кириллические буквы, так что оно выглядело бы как другое имя буква в букву; "
        "напишите его одним алфавитом.",
        id="mixed_script_lookalike",
    ),
]

WORDS = [
    pytest.param(
        "Дуг TO Роза",
        {"name": "Дуг TO Роза", "why": "command_word", "word": "to"},
        'The name "Дуг TO Роза" cannot be a player\'s: it holds "to", which a mail in '
        "this game reads as part of a command.",
        "Имя «Дуг TO Роза» не годится для игрока: в нём есть «to», а это слово письмо "
        "в этой игре читает как часть команды.",
        id="english_word_in_a_russian_game",
    ),
]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def gm_mail(table: Table, line: str, to: str, at: datetime) -> None:
    message = EmailMessage(policy=SMTP)
    message["From"] = GM
    message["To"] = to
    message["Subject"] = "команды"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content(line + "\n")
    deliver(table.inbox_path, bytes(message), at=at)


def unchanged(table: Table, events: int) -> None:
    """Nothing logged, the seat with its player, nobody told."""
    assert len(table.store.events(GAME)) == events
    assert table.store.player_email(GAME, "Роза") == EMAILS["Роза"]
    assert table.store.substitutes(GAME) == {}
    table.service.flush_outbox(utc(2026, 12, 31))
    assert table.new_mail() == []


@pytest.mark.parametrize(("name", "params", "english", "russian"), REFUSED + MIXED + WORDS)
def test_pbp_substitute_refuses_a_name_pbp_check_refuses(
    table: Table, name: str, params: dict[str, str], english: str, russian: str
) -> None:
    events = len(table.store.events(GAME))
    with pytest.raises(LeverRefused) as error:
        table.service.gm.substitute(
            GAME, "Роза", name, "vova@example.test", now=utc(2026, 12, 1, 18), via="cli", note=None
        )
    assert (error.value.code, error.value.params) == ("gm_bad_name", params)
    argv = ["-c", str(table.directory / "games.yaml"), "substitute", GAME, "Роза"]
    result = CliRunner().invoke(main, [*argv, "--name", name, "--email", "vova@example.test"])
    assert (result.exit_code, result.output) == (1, f"Error: {english}{TAIL_EN}")
    unchanged(table, events)


@pytest.mark.parametrize(("name", "params", "english", "russian"), REFUSED + WORDS)
def test_substitute_by_mail_refuses_a_name_pbp_check_refuses_without_a_confirmation(
    table: Table, name: str, params: dict[str, str], english: str, russian: str
) -> None:
    """Refused at once, as an unknown seat is: no confirmation asked for a lever that
    cannot be applied."""
    events = len(table.store.events(GAME))
    gm = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    gm_mail(table, f"ЗАМЕНА Розу НА {name} vova@example.test", to=gm, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_refused"]
    (answer,) = table.new_mail()
    assert str(answer["To"]) == GM
    assert f"Не выполнено. {russian}{TAIL_RU}" in body(answer)
    unchanged(table, events)


def test_substitute_refuses_the_other_shapes_of_a_misread_name(table: Table) -> None:
    """The rest of ``pbp check``'s rules, each its reason: a run of dashes (its note
    would begin there), a comma, the GM's seat name, no word, too long."""
    gm = table.service.gm
    at = utc(2026, 12, 1, 18)
    cases: dict[str, dict[str, str | int]] = {
        "Ко -- ля": {"why": "dashes", "dashes": "--"},
        "Ко, ля": {"why": "shape"},
        "": {"why": "shape"},
        GM_SEAT: {"why": "gm_seat"},
        "**": {"why": "no_word"},
        "Статус": {"why": "command_word", "word": "статус"},
        "Я" * 101: {"why": "too_long", "limit": 100, "length": 101},
    }
    for name, params in cases.items():
        with pytest.raises(LeverRefused) as error:
            gm.substitute(GAME, "Роза", name, "new@example.test", now=at, via="cli", note=None)
        shown = "Я" * 20 + "…" if len(name) > 100 else name
        assert (error.value.code, error.value.params) == (
            "gm_bad_name",
            {"name": shown, **params},
        )
    # A name pbp check takes is taken here too (one hyphen inside a word is a name's own).
    gm.substitute(GAME, "Роза", "Анна-Мария", "new@example.test", now=at, via="cli", note=None)
    assert table.store.substitutes(GAME) == {"Роза": "Анна-Мария"}


def test_a_maniac_substitute_named_as_a_vote_word_is_refused(tmp_path: Path) -> None:
    """Maniac's own reading (``ГОЛОС Снять`` withdraws a vote) refuses «Снять» as the
    game's check does."""
    maniac = ManiacTable(tmp_path)
    maniac.run(START)
    with pytest.raises(LeverRefused) as error:
        maniac.service.gm.substitute(
            "seed-002", "Петя", "Снять", "new@example.test", now=START, via="cli", note=None
        )
    assert (error.value.code, error.value.params) == (
        "gm_bad_name",
        {"name": "Снять", "why": "reserved", "word": "снять"},
    )
    maniac.close()
