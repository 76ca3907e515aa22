"""The words players type come from per-locale data (issue 16, item 1): every parser
reads its keywords from ``pbp/locale/<locale>/keywords.yaml`` (pbp's sections) and its
game's ``keywords/<locale>.yaml`` (:mod:`pbp.text.keywords`, issue 35), so adding a
language is its files, and every locale says every command."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from pbp.app.gm.by_mail import confirms
from pbp.games.cluedo.cards import Accuse, Cards, Help, NoRefutation, Refute, Status, Suggest
from pbp.games.cluedo.parse import parse_cluedo
from pbp.games.maniac import words as maniac_words
from pbp.games.maniac.moves import Help as ManiacHelp
from pbp.games.maniac.moves import Kill, Skip, Unvote, Vote
from pbp.games.maniac.moves import Status as ManiacStatus
from pbp.games.maniac.parse import parse_maniac
from pbp.text import catalogs, keywords
from pbp.text import gmcommands as gm
from pbp.text.commands import asks_new_address

CARDS = Cards(("Белых", "Краснова", "Моро"), ("нож", "веревка", "труба"), ("кухня", "холл", "зал"))
CLUEDO_PLAYERS = ["Неташка", "Веталь", "Дуг"]
MANIAC_PLAYERS = ["Петя", "Вася", "Таня"]

#: The words of a made-up language that the assertions read: pbp's own sections whole,
#: and the bundled games' words (each game's section is completed by :func:`made_up`
#: from its own ``en`` file, so a new game's section needs no entry here).
MADE_UP: dict[str, Any] = {
    "common": {
        "status": {"shown": "ESTADO", "read": ["estado"]},
        "help": {"shown": "AYUDA", "read": ["ayuda"]},
        "and": ["y"],
    },
    "maniac": {
        "vote": {"shown": "VOTAR", "read": ["votar", "voto"]},
        "unvote": {"shown": "DESVOTAR", "read": ["desvotar"]},
        "kill": {"shown": "MATAR", "read": ["matar"]},
        "skip": {"shown": "SALTAR", "read": ["saltar"]},
        "withdraw": ["retirar"],
        "possessive": ["mi"],
        "orders_heading": ["encargo"],
        "prison": {"shown": "CARCEL", "read": ["carcel"]},
        "cell": {"shown": "CELDA", "read": ["celda"]},
        "place_prepositions": ["a", "la"],
        "against": ["contra"],
        "night": {"shown": "NOCHE", "read": ["noche"]},
        "night_bare": [],
        "night_prepositions": ["en"],
        "skip_fillers": ["turno"],
    },
    "cluedo": {
        "suggest": {"shown": "SUGERIR", "read": ["sugerir"]},
        "refute": {"shown": "REFUTAR", "read": ["refutar"]},
        "no_refutation": {"shown": "SIN REFUTAR", "read": []},
        "accuse": {"shown": "ACUSAR", "read": ["acusar"]},
        "negation": ["sin"],
        "addressee": ["para"],
        "number_prepositions": ["a"],
        "suggestion_forms": ["sugerencia"],
        "forum_heading": [],
    },
    "gm": {
        "act": ["POR"],
        "pause": ["PAUSAR"],
        "resume": ["SEGUIR"],
        "extend": ["ALARGAR"],
        "substitute": ["CAMBIAR"],
        "readdress": ["DIRECCION"],
        "remove": ["QUITAR"],
        "void": ["ANULAR"],
        "export": ["EXPORTAR"],
        "help": ["AYUDA"],
        "status": ["ESTADO"],
        "all": ["TODOS"],
        "close_day": ["CERRAR DIA"],
        "end_night": ["TERMINAR NOCHE"],
        "kept": ["GUARDADOS"],
        "retry": ["REINTENTAR"],
        "dismiss": ["DESCARTAR"],
        "new_address": ["NUEVA DIRECCION"],
        "by": ["POR"],
        "hours": ["horas"],
        "confirm": ["CONFIRMO", "SI"],
    },
    "new_address": ["NUEVA DIRECCION"],
}


def _invented(words: Any) -> Any:
    """``words`` (an entry of a keywords file) with every word replaced mechanically:
    ``"vote"`` → ``"xxvote"``, ``"VOTE"`` → ``"XXVOTE"``, ``"word*"`` → ``"xxword*"``."""
    if isinstance(words, dict):
        return {key: _invented(value) for key, value in words.items()}
    if isinstance(words, list):
        return [_invented(word) for word in words]
    return " ".join(("XX" if part.isupper() else "xx") + part for part in str(words).split())


def made_up(known: dict[str, Any] = MADE_UP) -> dict[str, Any]:
    """A made-up locale holding every declared section: ``known``'s words, and
    each game's entries that it lacks made from that game's own ``en`` file
    (:func:`_invented`), so a game added to pbp is read in it with no edit here."""
    data: dict[str, Any] = yaml.safe_load(yaml.safe_dump(known))
    for section in keywords.sections():
        en = yaml.safe_load(section.path("en").read_text(encoding="utf-8")) or {}
        data[section.name] = _invented(en) | data.get(section.name, {})
    return data


def _write(root: Path, locale: str, data: dict[str, Any] | None) -> tuple[keywords.Section, ...]:
    """The words of ``locale`` as files under ``root``: pbp's ``<locale>/keywords.yaml``
    and each game's section in ``games/<section>/<locale>.yaml`` (``data``: every
    section in one mapping, as :func:`made_up`; None: the files pbp ships); the games'
    sections, each moved to its folder under ``root``."""
    moved = []
    target = keywords.keywords_path(locale, root)
    target.parent.mkdir(parents=True, exist_ok=True)
    if data is None:
        shutil.copy(keywords.keywords_path(locale), target)
    else:
        own = {k: v for k, v in data.items() if k not in {s.name for s in keywords.sections()}}
        target.write_text(yaml.safe_dump(own, allow_unicode=True), encoding="utf-8")
    for section in keywords.sections():
        game = dataclasses.replace(section, folder=root / "games" / section.name)
        game.folder.mkdir(parents=True, exist_ok=True)
        if data is None:
            shutil.copy(section.path(locale), game.path(locale))
        else:
            words = yaml.safe_dump(data[section.name], allow_unicode=True)
            game.path(locale).write_text(words, encoding="utf-8")
        moved.append(game)
    return tuple(moved)


@pytest.fixture
def locales(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """``use(files)``: pbp's locales become those of ``files`` ({locale: keywords data,
    or None for pbp's own files}), read from a ``pbp/locale`` made in ``tmp_path`` and
    each game's section from a folder there; pbp's own vocabulary again after the test."""

    def use(files: dict[str, dict[str, Any] | None]) -> None:
        games: tuple[keywords.Section, ...] = ()
        for locale, data in files.items():
            games = _write(tmp_path, locale, data)
        monkeypatch.setattr(catalogs, "LOCALES", tuple(files))
        monkeypatch.setattr(catalogs, "CATALOGS", tmp_path)
        monkeypatch.setattr(keywords, "sections", lambda: games)
        keywords.reload()

    yield use
    monkeypatch.undo()
    keywords.reload()


def maniac(text: str) -> list[Any]:
    return [line.move or line.error for line in parse_maniac(text, MANIAC_PLAYERS)]


def cluedo(text: str) -> list[Any]:
    return [line.move or line.error for line in parse_cluedo(text, CARDS, CLUEDO_PLAYERS)]


def test_a_made_up_locale_is_read_by_every_parser_without_a_code_change(locales: Any) -> None:
    assert maniac("VOTAR Петя") == []  # chat: no such keyword yet
    locales({"ru": None, "en": None, "xx": made_up()})

    assert maniac("VOTAR Петя") == [Vote("Петя")]
    assert maniac("Mi voto: Таня") == [Vote("Таня")]
    assert maniac("VOTAR Петя a la carcel") == [Vote("Петя", prison=True)]
    assert maniac("RETIRAR VOTO") == [Unvote()]
    assert maniac("DESVOTAR") == [Unvote()]
    assert maniac("MATAR Васю y Таню en noche 3") == [Kill(("Вася", "Таня"), 3)]
    assert maniac("SALTAR noche 4") == [Skip(4)]
    assert maniac("ESTADO\nAYUDA") == [ManiacStatus(), ManiacHelp()]
    assert maniac_words.reserved_word("Carcel") == "carcel"
    (error,) = maniac("Votarr Петя")
    assert error.code == "unknown_command"
    assert error.params["suggestion"] == "VOTAR"
    assert error.params["commands"]["xx"] == [
        "VOTAR",
        "VOTAR CARCEL",
        "DESVOTAR",
        "MATAR",
        "SALTAR",
        "ESTADO",
        "AYUDA",
    ]

    assert cluedo("SUGERIR Белых, нож, кухня PARA Веталь") == [
        Suggest("Белых", "нож", "кухня", "Веталь")
    ]
    assert cluedo("REFUTAR a 7 нож") == [Refute("нож", 7)]
    assert cluedo("SIN REFUTAR 7") == [NoRefutation(7)]
    assert cluedo("ACUSAR Белых, нож y кухня") == [Accuse("Белых", "нож", "кухня")]
    assert cluedo("ESTADO") == [Status()]
    (error,) = cluedo("Sin refutarr 7")
    assert (error.code, error.params["suggestion"]) == ("unknown_command", "SIN REFUTAR")

    assert [line.lever for line in gm.parse_gm("PAUSAR\nALARGAR 3 horas\nPAUSE\nCERRAR DIA")] == [
        gm.Pause(),
        gm.Extend(3.0),
        gm.Pause(),
        gm.PassDeadline("close-day"),
    ]
    (line,) = gm.parse_gm("CAMBIAR Петя POR Вова vova@example.test")
    assert line.lever == gm.Substitute("Петя", "Вова", "vova@example.test")
    assert [line.lever for line in gm.parse_gm("ESTADO\nestado todos")] == [
        gm.Status(),
        gm.Status(all=True),
    ]
    assert asks_new_address("Hola\nnueva direccion\n")
    assert confirms("Confirmo.")

    # Russian and English are read as before, beside it.
    assert maniac("ГОЛОС за Петю\nVOTE Таня") == [Vote("Петя"), Vote("Таня")]
    assert cluedo("НЕТ ОПРОВЕРЖЕНИЯ 7") == [NoRefutation(7)]


def test_a_game_without_words_here_is_read_in_words_made_from_its_en_file(locales: Any) -> None:
    """A game added to pbp (here Cluedo, as if :data:`MADE_UP` did not know it) is in
    the made-up locale with no edit of this file."""
    locales({"ru": None, "xx": made_up({k: v for k, v in MADE_UP.items() if k != "cluedo"})})
    assert cluedo("XXACCUSE Белых, нож, кухня\nXXNO XXREFUTATION 7") == [
        Accuse("Белых", "нож", "кухня"),
        NoRefutation(7),
    ]


def test_a_locale_that_lacks_an_entry_is_refused_with_the_entry_named(
    locales: Any, tmp_path: Path
) -> None:
    broken = made_up()
    del broken["maniac"]["vote"]["shown"]
    locales({"ru": None, "xx": broken})
    with pytest.raises(ValueError, match=r"maniac/xx.yaml: maniac.vote: needs"):
        keywords.current()
    broken["maniac"]["vote"]["shown"] = "VOTAR"
    broken["cluedo"]["negation"] = []
    games = _write(tmp_path / "other", "xx", broken)
    with pytest.raises(ValueError, match=r"cluedo/xx.yaml: cluedo.negation: needs a list"):
        keywords.load(("xx",), tmp_path / "other", games)
    broken["cluedo"]["negation"] = ["sin"]
    broken["gm"]["pause"] = []
    games = _write(tmp_path / "third", "xx", broken)
    with pytest.raises(ValueError, match=r"xx/keywords.yaml: gm.pause: needs a list"):
        keywords.load(("xx",), tmp_path / "third", games)


@pytest.mark.parametrize("locale", catalogs.LOCALES)
def test_every_command_of_every_parser_is_written_in_every_locale(
    locales: Any, locale: str
) -> None:
    """Each locale alone (the others' words unknown) says every command of the Maniac,
    Cluedo and GM parsers, in the forms its help shows, and NEW ADDRESS."""
    vocabulary = keywords.load((locale,))
    locales({locale: None})

    def shown(section: str, key: str) -> str:
        return vocabulary.command(section, key, locale).shown

    def word(section: str, key: str) -> str:
        return vocabulary.words(section, key)[0]

    vote, night = shown("maniac", "vote"), shown("maniac", "night")
    assert maniac(
        f"{vote} Петя\n{vote} {shown('maniac', 'prison')} Таня\n{shown('maniac', 'unvote')}\n"
        f"{shown('maniac', 'kill')} Васю {night} 2\n{shown('maniac', 'skip')} {night} 3\n"
        f"{shown('common', 'status')}\n{shown('common', 'help')}"
    ) == [
        Vote("Петя"),
        Vote("Таня", prison=True),
        Unvote(),
        Kill(("Вася",), 2),
        Skip(3),
        ManiacStatus(),
        ManiacHelp(),
    ]
    assert cluedo(
        f"{shown('cluedo', 'suggest')} Белых, нож, кухня {word('cluedo', 'addressee')} Веталь\n"
        f"{shown('cluedo', 'refute')} 7 нож\n{shown('cluedo', 'no_refutation')} 7\n"
        f"{shown('cluedo', 'accuse')} Белых, нож, кухня\n"
        f"{shown('common', 'status')}\n{shown('common', 'help')}"
    ) == [
        Suggest("Белых", "нож", "кухня", "Веталь"),
        Refute("нож", 7),
        NoRefutation(7),
        Accuse("Белых", "нож", "кухня"),
        Status(),
        Help(),
    ]
    levers = gm.parse_gm(
        f"{word('gm', 'act')} Петя: STATUS\n{word('gm', 'pause')}\n{word('gm', 'resume')}\n"
        f"{word('gm', 'extend')} 3\n"
        f"{word('gm', 'substitute')} Петя {word('gm', 'by')} Вова vova@example.test\n"
        f"{word('gm', 'remove')} Петя\n{word('gm', 'void')} 17\n{word('gm', 'export')} html\n"
        f"{word('gm', 'help')}\n{word('gm', 'status')} {word('gm', 'all')}"
    )
    assert [line.lever for line in levers] == [
        gm.Act("Петя", "STATUS"),
        gm.Pause(),
        gm.Resume(),
        gm.Extend(3.0),
        gm.Substitute("Петя", "Вова", "vova@example.test"),
        gm.Remove("Петя"),
        gm.Void(17),
        gm.Export("html"),
        gm.Help(),
        gm.Status(all=True),
    ]
    assert asks_new_address(word("", "new_address"))
    assert confirms(word("gm", "confirm"))


def test_the_vocabulary_is_read_once_and_shows_each_command_per_locale() -> None:
    assert keywords.current() is keywords.current()
    assert keywords.current().shown("maniac", "unvote") == {"ru": "СНЯТЬ ГОЛОС", "en": "UNVOTE"}
    assert keywords.current().read("maniac", "vote") == ("голос", "голосую", "vote")


@pytest.mark.parametrize("locale", catalogs.LOCALES)
def test_the_templates_show_each_command_as_the_keywords_data_does(locale: str) -> None:
    """The echo of a command as understood ("Понял: ГОЛОС за Петра") and the GM's
    confirmation are catalog messages (a whole phrase, its word order the language's);
    each begins with the command as ``keywords.yaml`` shows it, so the two agree."""
    found = catalogs.translations(locale)
    vocabulary = keywords.current()

    def shown(section: str, key: str) -> str:
        return vocabulary.command(section, key, locale).shown

    vote, prison = shown("maniac", "vote"), shown("maniac", "prison")
    starts = {
        found.pgettext("a command as understood", "VOTE %(player)s"): vote,
        found.gettext("VOTE PRISON %(player)s"): f"{vote} {prison}",
        found.pgettext("a command as understood", "VOTE PRISON %(player)s"): f"{vote} {prison}",
        found.gettext("KILL %(player)s"): shown("maniac", "kill"),
        found.gettext(
            "SKIP NIGHT %(night)s"
        ): f"{shown('maniac', 'skip')} {shown('maniac', 'night')}",
        found.gettext("SUGGEST %(suspect)s, %(weapon)s, %(room)s"): shown("cluedo", "suggest"),
        found.gettext("REFUTE %(card)s"): shown("cluedo", "refute"),
        found.gettext("ACCUSE %(suspect)s, %(weapon)s, %(room)s"): shown("cluedo", "accuse"),
    }
    for text, form in starts.items():
        assert text.startswith(f"{form} "), (text, form)
    assert found.gettext("UNVOTE") == shown("maniac", "unvote")
    assert found.gettext("SKIP") == shown("maniac", "skip")
    assert found.gettext("NO REFUTATION") == shown("cluedo", "no_refutation")
    assert found.gettext("STATUS") == shown("common", "status")
    assert found.gettext("HELP") == shown("common", "help")
    for lever, message in [
        ("act", "ACT %(player)s: %(move)s"),
        ("pause", "PAUSE"),
        ("resume", "RESUME"),
        ("extend", "EXTEND %(hours)s h"),
        ("substitute", "SUBSTITUTE %(player)s BY %(name)s %(email)s"),
        ("readdress", "ADDRESS %(player)s %(email)s"),
        ("remove", "REMOVE %(player)s"),
        ("void", "VOID %(event)s"),
        ("export", "EXPORT %(format)s"),
    ]:
        first = found.pgettext("GM command", message).split()[0]
        assert first in vocabulary.words("gm", lever, locale), (lever, first)
