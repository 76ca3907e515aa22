"""Issue 34's read-through of whole scripted games (kits.golden) as a newcomer GM did:
texts that named the game by its id though it has a ``title``, a forum heading that
left its addressee in the nominative, and a command help whose example suggested to
the reader himself (rules D2, P2)."""

from __future__ import annotations

from kits.golden import Transcripts


def _mails(texts: Transcripts, scenario: str) -> list[str]:
    return texts["ru"][scenario].split("==== ")[1:]


def test_P2_a_game_with_a_title_is_named_by_it_in_the_welcome_and_the_opening_post(
    texts: Transcripts,
) -> None:
    mails = _mails(texts, "cluedo_days_levers")
    text = "\n".join(mails)
    assert "Начинается игра «Клуэдо по дням» — Клуэдо по игровым дням." in text
    assert "**«Клуэдо по дням»: день 1 открыт**" in text
    assert "«golden-cluedo-days»" not in text


def test_D2_P2_the_forum_heading_names_its_addressee_in_the_genitive(texts: Transcripts) -> None:
    text = "\n".join(_mails(texts, "cluedo_days"))
    assert "[b]Предположение_1 для Веталя (№1)[/b]" in text  # Веталь: a man in games.yaml
    assert "[b]Предположение_1 для Неташки (№2)[/b]" in text
    assert "[b]Предположение_1 для Дуг (№3)[/b]" in text  # Дуг: a woman, indeclinable
    assert "для Неташка" not in text


def test_D2_the_help_example_never_suggests_to_the_reader_himself(texts: Transcripts) -> None:
    mails = _mails(texts, "cluedo_days")
    welcome = {
        m.split("\n")[0].split("→ ")[1].split(" <")[0]: m
        for m in mails
        if "Клуэдо: ваши карты" in m.split("\n")[1]
    }
    example = "    ПРЕДПОЛОЖЕНИЕ Краснова, Топор, Терраса ДЛЯ "
    forum = "  Подойдёт и форма с форума: заголовок «Предположение_1 для "
    assert example + "Дуг" in welcome["Неташка"]
    assert example + "Неташки" in welcome["Дуг"]  # the last player: the first is his example
    assert example + "Дуг" not in welcome["Дуг"]
    assert forum + "Неташки»," in welcome["Дуг"]
