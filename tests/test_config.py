"""games.yaml: the bundled example, and the exact problems `pbp check` reports (rules C1, C2)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest

from pbp.config.loading import ConfigError, Problem, load_config
from pbp.games.cluedo.cards import Cards, Deal
from pbp.games.cluedo_days.config import CluedoDaysGame
from pbp.games.cluedo_rounds.config import CluedoRoundsGame
from pbp.games.core import registry
from pbp.games.maniac.config import ManiacGame

REPO = Path(__file__).resolve().parent.parent

# Line numbers matter: the tests below refer to them.
BASE = """\
mail:
  address: gm@example.test
  personal_address: plus
  inbox: {maildir: ./mail/inbox}
  outbox: {maildir: ./mail/outbox}
store: ./pbp.sqlite3
games:
  - id: exler-1
    kind: cluedo_days
    locale: ru
    timezone: Europe/Moscow
    day_closes: "22:30"
    gm: gm-person@example.test
    players:
      - {name: Неташка, email: netashka@example.test}
      - {name: Веталь, email: vetal@example.test}
      - {name: Дуг, email: doug@example.test}
    cards:
      suspects: [Краснова, Горчичников, Белых]
      weapons: [подсвечник, нож, труба]
      rooms: [кухня, терраса, бильярдная, библиотека, кабинет, холл]
"""

IMAP = "imap: {host: imap.example.test, port: 993, username: gm, password_env: PBP_PW, tls: ssl}"


def _write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    """Write ``text`` as ``games.yaml`` in the working directory (so problems say games.yaml)."""
    monkeypatch.chdir(tmp_path)
    path = Path("games.yaml")
    path.write_text(text, encoding="utf-8")
    return path


def _problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, monkeypatch, text))
    return [str(p) for p in caught.value.problems]


def _edit(old: str, new: str) -> str:
    assert BASE.count(old) == 1, old
    return BASE.replace(old, new)


def test_bundled_games_yaml_loads() -> None:
    config = load_config(REPO / "games.yaml")
    assert [g.id for g in config.games] == ["exler-1", "table-1", "maniac-1"]
    game = config.game("exler-1")
    assert isinstance(game, CluedoDaysGame)
    assert game.kind == "cluedo_days"
    assert len(game.to_cards().all()) == 21
    assert game.player_names() == ["Неташка", "Веталь", "Дуг", "Моро", "Мария", "Алиен"]
    assert [p.character for p in game.players][:2] == ["Краснова", "Горчичников"]
    assert (game.locale, game.timezone, game.day_closes) == ("ru", "Europe/Moscow", "22:30")
    assert game.close_time == time(22, 30)
    assert (config.mail.address, config.mail.personal_address) == ("gm@example.test", "plus")
    assert config.mail.inbox.maildir == REPO / "mail" / "inbox"
    assert config.mail.outbox.maildir == REPO / "mail" / "outbox"
    assert config.store == REPO / "pbp.sqlite3"
    assert game.remind_before == timedelta(hours=3)
    assert game.rules.suggestions_per_day == 3
    assert game.to_deal() is None
    assert config.missing_secrets() == []


def test_C1_the_bundled_rounds_game_drops_the_bottom_card_of_each_deck() -> None:
    """Seed 000's P.S.: with five players пистолет, столовая and Черниченко go."""
    game = load_config(REPO / "games.yaml").game("table-1")
    assert isinstance(game, CluedoRoundsGame)
    cards = game.to_cards()
    assert (len(cards.all()), game.turn_hours, game.answer_hours, game.auto_answer) == (
        18,
        24.0,
        12.0,
        "no_match",
    )
    assert {"пистолет", "столовая", "Черниченко"} & set(cards.all()) == set()
    assert (cards.suspects[-1], cards.weapons[-1], cards.rooms[-1]) == (
        "Голубева",
        "веревка",
        "гостиная",
    )
    assert game.rules.publish_wrong_accusations is True


def test_base_of_the_table_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_config(_write(tmp_path, monkeypatch, BASE))
    game = config.game("exler-1")
    assert isinstance(game, CluedoDaysGame)
    assert game.to_cards() == Cards(
        ("Краснова", "Горчичников", "Белых"),
        ("подсвечник", "нож", "труба"),
        ("кухня", "терраса", "бильярдная", "библиотека", "кабинет", "холл"),
    )
    assert config.path == Path("games.yaml")
    assert config.store == tmp_path / "pbp.sqlite3"
    assert (game.seed, game.start_at, game.remind_before) == (None, None, None)
    assert game.rules.answer_grace == timedelta(0)
    assert game.rules.publish_wrong_accusations is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            BASE + "    remind_hours_befor: 3\n",
            [
                "games.yaml:22: games[0].remind_hours_befor: unknown key 'remind_hours_befor';"
                " did you mean 'remind_hours_before'? (allowed: cards, catch_up_limit, day_closes,"
                " deal, gm, gm_mail, id, kind, locale, players, post_format, remind_hours_before,"
                " rules, seed, start, timezone, title)"
            ],
            id="unknown key",
        ),
        pytest.param(
            _edit("vetal@example.test", "vetal.example.test"),
            [
                "games.yaml:16: games[0].players[1].email: value is not a valid email address:"
                " 'vetal.example.test'"
            ],
            id="bad email",
        ),
        pytest.param(
            _edit("Europe/Moscow", "Europe/Moskow"),
            [
                "games.yaml:11: games[0].timezone: unknown IANA time zone 'Europe/Moskow';"
                " did you mean 'Europe/Moscow'?"
            ],
            id="bad timezone",
        ),
        pytest.param(
            _edit('"22:30"', '"25:00"'),
            [
                "games.yaml:12: games[0].day_closes: expected a time"
                ' "HH:MM" such as "22:30", got \'25:00\''
            ],
            id="bad time",
        ),
        pytest.param(
            _edit("{name: Дуг,", "{name: Веталь,"),
            ["games.yaml:17: games[0].players[2].name: duplicate name 'Веталь' (also players[1])"],
            id="duplicate player",
        ),
        pytest.param(
            _edit("{name: Дуг,", "{name: ВЕТАЛЬ!,"),
            [
                "games.yaml:17: games[0].players[2].name: name 'ВЕТАЛЬ!' reads as 'Веталь' "
                "(players[1]) in a player's mail: give one of them another name"
            ],
            id="a name read as another's (case, punctuation)",
        ),
        pytest.param(
            _edit("{name: Дуг,", "{name: Bеталь,"),  # a Latin B
            [
                "games.yaml:17: games[0].players[2].name: 'Bеталь': the word 'Bеталь' mixes"
                " Latin and Cyrillic letters, which look alike (a Latin p, o, c shows as a"
                " Cyrillic р, о, с): write it in one alphabet"
            ],
            id="a name read as another's (look-alike letter)",
        ),
        pytest.param(
            _edit("{name: Дуг,", '{name: "@gm",'),
            [
                "games.yaml:17: games[0].players[2].name: name '@gm' is pbp's own name for the"
                " GM's seat in game 'exler-1': give the player another name"
            ],
            id="a name that is the GM's seat",
        ),
        pytest.param(
            _edit("{name: Дуг,", '{name: "***",'),
            [
                "games.yaml:17: games[0].players[2].name: name '***' reads as no word in a"
                " player's mail (markup and punctuation aside): give the player a name with"
                " letters or digits"
            ],
            id="a name read as no word",
        ),
        pytest.param(
            _edit("doug@example.test", "Vetal@Example.test"),
            [
                "games.yaml:17: games[0].players[2].email: duplicate email 'Vetal@Example.test'"
                " (also players[1])"
            ],
            id="duplicate email ignoring case",
        ),
        pytest.param(
            _edit("      - {name: Дуг, email: doug@example.test}\n", ""),
            ["games.yaml:14: games[0].players: rule C1: at least 3 players, got 2"],
            id="2 players",
        ),
        pytest.param(
            _edit("кабинет, холл]", "кабинет, холл, гостиная]"),
            [
                "games.yaml:18: games[0].cards: rule C1: 3 players need 12 cards; the decks hold"
                " 13, and 1 extra card cannot be dropped one per deck per missing player"
            ],
            id="C1 surplus not a multiple of 3",
        ),
        pytest.param(
            _edit(
                "suspects: [Краснова, Горчичников, Белых]\n      weapons: [подсвечник, нож, труба]",
                "suspects: [Краснова]\n      weapons: [подсвечник, нож, труба, топор, Белых]",
            ),
            [
                "games.yaml:18: games[0].cards: rule C1: the suspect deck holds 1; each deck "
                "needs at least 3 cards (with 1 the solution is known from the start, with 2 "
                "one refutation gives it away)"
            ],
            id="C1 a deck of 1 card",
        ),
        pytest.param(
            _edit("кабинет, холл]", "кабинет]"),
            ["games.yaml:18: games[0].cards: rule C1: 3 players need 12 cards, the decks hold 11"],
            id="C1 too few cards",
        ),
        pytest.param(
            BASE
            + "    deal:\n"
            + "      solution: [нож, Белых, кабинет]\n"
            + "      hands:\n"
            + "        Неташка: [Краснова, подсвечник, кухня]\n"
            + "        Веталь: [Горчичников, труба, терраса]\n"
            + "        Дуг: [бильярдная, библиотека, холл, нож]\n",
            [
                "games.yaml:23: games[0].deal.solution[0]: 'нож' is not a suspect:"
                " the solution is suspect, weapon, room",
                "games.yaml:23: games[0].deal.solution[1]: 'Белых' is not a weapon:"
                " the solution is suspect, weapon, room",
                "games.yaml:27: games[0].deal.hands.Дуг: rule C2: a hand holds 3 cards, got 4",
                "games.yaml:27: games[0].deal.hands.Дуг[3]: card 'нож' is dealt twice"
                " (also deal.solution[0])",
            ],
            id="C2 bad fixed deal: order, hand size, a card twice",
        ),
        pytest.param(
            BASE
            + "    deal:\n"
            + "      solution: [Белых, ножж, кабинет]\n"
            + "      hands:\n"
            + "        Неташка: [Краснова, подсвечник, кухня]\n"
            + "        Веталь: [Горчичников, труба, терраса]\n"
            + "        Дог: [бильярдная, библиотека, холл]\n",
            [
                "games.yaml:23: games[0].deal.solution[1]: 'ножж' is not a card in play;"
                " did you mean 'нож'?",
                "games.yaml:24: games[0].deal.hands: no hand for Дуг",
                "games.yaml:27: games[0].deal.hands.Дог: 'Дог' is not a player;"
                " did you mean 'Дуг'?",
            ],
            id="C2 bad fixed deal: unknown card and player",
        ),
        pytest.param(
            _edit("  inbox: {maildir: ./mail/inbox}\n", ""),
            ["games.yaml:1: mail.inbox: required key is missing"],
            id="missing inbox",
        ),
        pytest.param(
            _edit("{maildir: ./mail/inbox}", "{maildir: ./mail/inbox, " + IMAP + "}"),
            ["games.yaml:4: mail.inbox: give exactly one of maildir, imap (got both)"],
            id="both maildir and imap",
        ),
        pytest.param(
            _edit("    locale: ru", "   locale: ru"),
            [
                "games.yaml:10: YAML syntax error: expected <block end>,"
                " but found '<block mapping start>' (look at this line and line 9 above it:"
                " an unclosed quote, a missing ':' or a wrong indent is the usual cause)"
            ],
            id="YAML syntax error",
        ),
        pytest.param(
            _edit("  personal_address: plus\n", "  address: gm2@example.test\n"),
            ["games.yaml:3: mail.address: duplicate key"],
            id="duplicate YAML key",
        ),
        pytest.param(
            _edit("kind: cluedo_days", "kind: cluedo_dayz"),
            [
                "games.yaml:9: games[0].kind: unknown kind 'cluedo_dayz' "
                f"(known: {', '.join(map(repr, registry.names()))})"
            ],
            id="unknown kind",
        ),
        pytest.param(
            _edit("id: exler-1", "id: Exler_1"),
            [
                "games.yaml:8: games[0].id: game id 'Exler_1': lower-case letters, digits"
                " and '-', not first '-'"
            ],
            id="bad game id",
        ),
        pytest.param(
            _edit(
                "    gm: gm-person@example.test\n",
                "    gm: gm-person@example.test\n"
                "    start: '2026-12-01T20:00+03:00'\n"
                "    remind_hours_before: -1\n",
            ),
            [
                "games.yaml:14: games[0].start: give the local time without a UTC"
                " offset (it is in the game's timezone)",
                "games.yaml:15: games[0].remind_hours_before: Input should be greater than or"
                " equal to 0, got -1",
            ],
            id="aware start and negative reminder",
        ),
    ],
)
def test_broken_config_is_reported_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: list[str]
) -> None:
    assert _problems(tmp_path, monkeypatch, text) == expected


def test_title_post_format_and_gm_mail_have_defaults_and_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = load_config(_write(tmp_path, monkeypatch, BASE)).games[0]
    assert (game.display_title, game.post_formats, game.gm_mail) == (
        game.id,
        ("bbcode",),
        "each",
    )
    keys = "    title: Маньяк 2\n    post_format: both\n    gm_mail: per_deadline\n"
    game = load_config(
        _write(tmp_path, monkeypatch, _edit("    players:\n", keys + "    players:\n"))
    ).games[0]
    assert (game.display_title, game.post_formats, game.gm_mail) == (
        "Маньяк 2",
        ("bbcode", "markdown"),
        "per_deadline",
    )
    bad = "    title: '[pbp-x] Маньяк'\n    post_format: html\n"
    problems = _problems(tmp_path, monkeypatch, _edit("    players:\n", bad + "    players:\n"))
    assert [p.split(" ")[1] for p in problems] == [
        "games[0].title:",
        "games[0].post_format:",
    ]
    assert "without square brackets" in problems[0]


@pytest.mark.parametrize(
    ("rooms", "surplus"),
    [
        ("кабинет, холл, гостиная]", "1 extra card"),
        ("кабинет, холл, гостиная, зал]", "2 extra cards"),
    ],
    ids=["1 extra card", "2 extra cards"],
)
def test_C1_check_counts_extra_cards_with_the_right_plural(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rooms: str, surplus: str
) -> None:
    """``pbp check`` said "1 extra cards": the count and its noun agree (English, the
    command line's language: :func:`pbp.text.counted.counted`)."""
    text = _edit("кабинет, холл]", rooms)
    have = 12 + int(surplus[0])
    assert _problems(tmp_path, monkeypatch, text) == [
        f"games.yaml:18: games[0].cards: rule C1: 3 players need 12 cards; the decks hold {have}, "
        f"and {surplus} cannot be dropped one per deck per missing player"
    ]


def test_C1_five_players_drop_the_bottom_card_of_each_deck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 000: "Если Алиен не успеет, то будут убраны нижние карты каждой группы"."""
    text = (REPO / "games.yaml").read_text(encoding="utf-8")
    alien = "      - {name: Алиен, email: alien@example.test, character: Черниченко}\n"
    assert alien in text
    game = load_config(_write(tmp_path, monkeypatch, text.replace(alien, ""))).game("exler-1")
    assert isinstance(game, CluedoDaysGame)
    cards = game.to_cards()
    assert cards == Cards(
        ("Краснова", "Горчичников", "Белых", "Зеленович", "Голубева"),
        ("подсвечник", "нож", "труба", "топор", "веревка"),
        (
            "кухня",
            "танцевальный зал",
            "терраса",
            "бильярдная",
            "библиотека",
            "кабинет",
            "холл",
            "гостиная",
        ),
    )
    assert len(cards.all()) == 18


def test_C2_fixed_deal_is_given_to_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        BASE
        + "    deal:\n"
        + "      solution: [Белых, нож, кабинет]\n"
        + "      hands:\n"
        + "        Дуг: [бильярдная, библиотека, холл]\n"
        + "        Неташка: [Краснова, подсвечник, кухня]\n"
        + "        Веталь: [Горчичников, труба, терраса]\n"
    )
    game = load_config(_write(tmp_path, monkeypatch, text)).game("exler-1")
    assert isinstance(game, CluedoDaysGame)
    assert game.to_deal() == Deal(
        solution=("Белых", "нож", "кабинет"),
        hands={
            "Неташка": ("Краснова", "подсвечник", "кухня"),
            "Веталь": ("Горчичников", "труба", "терраса"),
            "Дуг": ("бильярдная", "библиотека", "холл"),
        },
    )


def test_options_start_rules_and_yaml_scalars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _edit(
        '    day_closes: "22:30"\n',
        "    day_closes: 9:05\n"  # unquoted: still the text "9:05" (YAML 1.2 scalars)
        "    start: '2026-12-01T20:00'\n"
        "    seed: 010\n"
        "    remind_hours_before: 0.01\n"
        "    rules: {suggestions_per_day: 2, answer_grace_hours: 1.5,"
        " publish_wrong_accusations: true}\n",
    )
    game = load_config(_write(tmp_path, monkeypatch, text)).game("exler-1")
    assert isinstance(game, CluedoDaysGame)
    assert (game.day_closes, game.close_time) == ("09:05", time(9, 5))
    assert game.start_at == datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert game.seed == 10
    assert game.remind_before == timedelta(seconds=36)
    assert (game.rules.suggestions_per_day, game.rules.max_per_addressee_per_day) == (2, 3)
    assert game.rules.answer_grace == timedelta(minutes=90)
    assert game.rules.publish_wrong_accusations is True


def test_imap_smtp_and_missing_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    smtp = (
        "smtp: {host: smtp.example.test, port: 587, username: gm,"
        " password_env: PBP_SMTP, tls: starttls}"
    )
    text = _edit("{maildir: ./mail/inbox}", "{" + IMAP + "}").replace(
        "{maildir: ./mail/outbox}", "{" + smtp + "}"
    )
    config = load_config(_write(tmp_path, monkeypatch, text))
    imap = config.mail.inbox.imap
    assert imap is not None
    assert (imap.host, imap.port, imap.folder, imap.tls) == (
        "imap.example.test",
        993,
        "INBOX",
        "ssl",
    )
    assert config.missing_secrets({"PBP_SMTP": "x"}) == ["PBP_PW"]
    assert config.missing_secrets({}) == ["PBP_PW", "PBP_SMTP"]
    assert imap.password({"PBP_PW": "hunter2"}) == "hunter2"
    assert "hunter2" not in repr(config)


def test_unknown_game_lists_the_known_ids() -> None:
    config = load_config(REPO / "games.yaml")
    with pytest.raises(KeyError, match="no game 'exler-2'; known games: exler-1"):
        config.game("exler-2")


def test_problem_str_and_missing_file(tmp_path: Path) -> None:
    assert str(Problem("games.yaml", "store", 6, "x")) == "games.yaml:6: store: x"
    assert str(Problem("games.yaml", "", None, "x")) == "games.yaml: x"
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "none.yaml")
    (problem,) = caught.value.problems
    assert (problem.path, problem.line) == ("", None)
    assert problem.message.startswith("cannot read the file: [Errno 2] No such file or directory")


def test_duplicate_game_ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = BASE[BASE.index("  - id: exler-1") :]
    assert _problems(tmp_path, monkeypatch, BASE + game) == [
        "games.yaml:22: games[1].id: duplicate game id 'exler-1' (also games[0])"
    ]


def test_R6_R7_rounds_settings_are_checked_at_their_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (REPO / "games.yaml").read_text(encoding="utf-8")
    text = text.replace("turn_hours: 24 ", "turn_hours: 0  ").replace(
        "auto_answer: no_match ", "auto_answer: always   "
    )
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, monkeypatch, text))
    lines = {n for n, line in enumerate(text.splitlines(), 1) if "turn_hours: 0" in line}
    (turn_line,) = lines
    assert [str(p) for p in caught.value.problems] == [
        f"games.yaml:{turn_line}: games[1].turn_hours: Input should be greater than 0, got 0",
        f"games.yaml:{turn_line + 2}: games[1].auto_answer: Input should be 'no_match' or "
        "'none', got 'always'",
    ]


@pytest.mark.parametrize("written", ["forced", "FORCED"])
def test_R6_auto_answer_forced_is_refused_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    text = (REPO / "games.yaml").read_text(encoding="utf-8")
    text = text.replace("auto_answer: no_match ", f"auto_answer: {written}   ")
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, monkeypatch, text))
    (line,) = {n for n, row in enumerate(text.splitlines(), 1) if f"auto_answer: {written}" in row}
    assert [str(p) for p in caught.value.problems] == [
        f"games.yaml:{line}: games[1].auto_answer: 'forced' is not offered: showing a single "
        "matching card at once tells the suggester that a player who is asked holds at least "
        "two of the named cards, which no manual answer tells; use 'no_match' (the default) "
        "or 'none'"
    ]


MANIAC = """\
mail: {address: gm@example.test, inbox: {maildir: ./in}, outbox: {maildir: ./out}}
store: ./pbp.sqlite3
games:
  - id: maniac-1
    kind: maniac
    locale: ru
    timezone: Europe/Moscow
    gm: gm-person@example.test
    day_closes: "22:00"
    night_ends: "10:00"
    players:
PLAYERS
ROLES"""


def _maniac(count: int, roles: dict[str, str] | None = None) -> str:
    names = [f"Игрок{i}" for i in range(1, count + 1)]
    players = "\n".join(
        f"      - {{name: {n}, email: p{i}@example.test}}" for i, n in enumerate(names, 1)
    )
    block = ""
    if roles is not None:
        block = "    roles:\n" + "".join(f"      {n}: {r}\n" for n, r in roles.items())
    return MANIAC.replace("PLAYERS", players).replace("ROLES", block)


def test_M1_a_maniac_game_has_8_to_15_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _problems(tmp_path, monkeypatch, _maniac(7)) == [
        "games.yaml:11: games[0].players: rule M1: at least 8 players, got 7"
    ]
    assert _problems(tmp_path, monkeypatch, _maniac(16)) == [
        "games.yaml:11: games[0].players: rule M1: at most 15 players, got 16"
    ]
    game = load_config(_write(tmp_path, monkeypatch, _maniac(12))).game("maniac-1")
    assert isinstance(game, ManiacGame)
    assert (game.close_time, game.night_end_time, game.vote_count_mail) == (
        time(22, 0),
        time(10, 0),
        False,
    )


def test_a_maniac_player_named_as_a_command_word_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ГОЛОС Снять`` withdraws a vote, ``УБИТЬ Пропуск`` is a skip, ``ГОЛОС Тюрьма``
    a vote without a name: a player so named could never be named (a hostile probe)."""
    text = _maniac(8).replace("Игрок2,", "Снять,").replace("Игрок5,", "Тюрьма,")
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:13: games[0].players[1].name: name 'Снять': a player's mail reads "
        "'снять' as part of a command (ГОЛОС Снять withdraws a vote): give the player "
        "another name",
        # A command's own word (ТЮРЬМА): the sentence every game's check gives.
        "games.yaml:16: games[0].players[4].name: name 'Тюрьма' holds 'тюрьма', a command "
        "word (of any language pbp reads), which a mail would read as part of a command: "
        "give the player another name",
    ]


def test_a_name_with_an_invisible_or_control_character_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name pasted with a direction mark was never declined («за Маша\u200f») and a
    bidi override was shown without it in the fairness string, whose SHA-256 was of
    the name with it (a hostile probe): such names are refused, cards' too."""
    text = _edit("{name: Веталь, email", '{name: "Веталь\u200f", email').replace(
        "weapons: [подсвечник,", 'weapons: ["под\u202eсвечник",'
    )
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:16: games[0].players[1].name: 'Веталь\\u200f': a name holds the "
        "invisible or control character U+200F (pasted with it?), which texts do not "
        "show and mail does not read: remove it",
        "games.yaml:20: games[0].cards.weapons[0]: 'под\\u202eсвечник': a name holds the "
        "invisible or control character U+202E (pasted with it?), which texts do not "
        "show and mail does not read: remove it",
    ]


def test_a_name_too_long_for_a_command_line_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """«ГОЛОС за» a player of 500 letters was refused as line_too_long, and three cards
    of 200 letters made every suggestion too long (a hostile probe)."""
    long = "Б" * 101
    text = _edit("{name: Веталь, email", f"{{name: {long}, email").replace(
        "weapons: [подсвечник,", f"weapons: [{'Н' * 100},"
    )
    assert _problems(tmp_path, monkeypatch, text) == [
        f"games.yaml:16: games[0].players[1].name: '{'Б' * 20}'…: a name is at most 100 "
        "characters, not 101 (a move naming it must fit in one command line)",
    ]


def test_a_name_that_starts_with_a_quote_mark_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ГОЛОС`` on one line and ``> Вова`` wrapped onto the next is a quote, so is a
    line under initials (``ВП> …``), and a forum ``[quote`` tag quotes the rest of its
    line: such a name could never be named (a hostile probe; `pbp check` took it)."""
    text = _edit("{name: Веталь, email", '{name: "> Вова", email').replace(
        "weapons: [подсвечник,", 'weapons: ["нож [quote=Дуг]",'
    )
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:16: games[0].players[1].name: '> Вова': a mail reads '>' as a quote "
        "mark and the line naming it as quoted, so it would never count: give a name "
        "without it",
        "games.yaml:20: games[0].cards.weapons[0]: 'нож [quote=Дуг]': a mail reads "
        "'[quote' as a quote mark and the line naming it as quoted, so it would never "
        "count: give a name without it",
    ]
    initials = _edit("{name: Веталь, email", '{name: "ВП> Вова", email')
    assert _problems(tmp_path, monkeypatch, initials) == [
        "games.yaml:16: games[0].players[1].name: 'ВП> Вова': a mail reads 'ВП>' as a "
        "quote mark and the line naming it as quoted, so it would never count: give a "
        "name without it",
    ]


def test_a_name_with_a_run_of_dashes_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ИСКЛЮЧИТЬ Ко -- ля`` removes «Ко» with the note «ля»; an em dash between spaces
    starts the GM's note too, and a player's chat after a name (a hostile probe)."""
    text = _edit("{name: Веталь, email", '{name: "Ко -- ля", email').replace(
        "rooms: [кухня, терраса,", "rooms: [кухня, Зал — малый,"
    )
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:16: games[0].players[1].name: 'Ко -- ля': a mail reads '--' in a "
        "name as where a note or chat begins (ИСКЛЮЧИТЬ Ко -- ля removes «Ко»): give a "
        "name without a run of dashes or a dash between spaces",
        "games.yaml:21: games[0].cards.rooms[1]: 'Зал — малый': a mail reads '—' in a "
        "name as where a note or chat begins (ИСКЛЮЧИТЬ Ко -- ля removes «Ко»): give a "
        "name without a run of dashes or a dash between spaces",
    ]
    # One hyphen inside a word is a name's own.
    fine = _edit("{name: Веталь, email", "{name: Анна-Мария, email")
    assert load_config(_write(tmp_path, monkeypatch, fine)).game("exler-1")


def test_a_name_holding_a_command_word_of_the_games_locale_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ПРЕДПОЛОЖЕНИЕ Маша, Нож, Столовая ДЛЯ Вася ДЛЯ Петя`` read the room as
    «Столовая ДЛЯ Вася»; a card «Статус» is the command STATUS. Whole words, case
    aside; the words of the game's language (a hostile probe)."""
    text = _edit("{name: Веталь, email", "{name: Вася ДЛЯ Петя, email").replace(
        "weapons: [подсвечник,", "weapons: [статус,"
    )
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:16: games[0].players[1].name: name 'Вася ДЛЯ Петя' holds 'для', a "
        "command word (of any language pbp reads), which a mail would read as part of a "
        "command: give the player another name",
        "games.yaml:20: games[0].cards.weapons[0]: card 'статус' holds 'статус', a command "
        "word of the game's language, which a mail would read as part of a command: "
        "give the card another name",
    ]
    gm_word = _edit("{name: Веталь, email", "{name: Зелёный на Холме, email")
    assert _problems(tmp_path, monkeypatch, gm_word) == [
        "games.yaml:16: games[0].players[1].name: name 'Зелёный на Холме' holds 'на', a "
        "command word (of any language pbp reads), which a mail would read as part of a "
        "command: give the player another name",
    ]
    # Inside a word is no command word.
    fine = _edit("{name: Веталь, email", "{name: Длявсех Statusov, email")
    assert load_config(_write(tmp_path, monkeypatch, fine)).game("exler-1")


def test_fault_a_english_command_words_in_a_russian_game_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Russian game reads English commands too (``SUGGEST … TO …``): before, ``Дуг TO
    Роза``, ``Дуг FOR Роза`` and ``Дуг AND Роза`` passed."""
    for word in ("TO", "FOR", "AND"):
        text = _edit("{name: Веталь, email", f"{{name: Дуг {word} Роза, email")
        assert _problems(tmp_path, monkeypatch, text) == [
            f"games.yaml:16: games[0].players[1].name: name 'Дуг {word} Роза' holds "
            f"'{word.lower()}', a command word (of any language pbp reads), which a mail "
            "would read as part of a command: give the player another name",
        ]


def test_fault_b_a_name_mixing_latin_and_cyrillic_letters_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Кpocc`` (a Cyrillic К, Latin p, o, c, c) showed as «Кросс» in every post."""
    text = _edit("{name: Веталь, email", "{name: К\u0070\u006f\u0063\u0063, email")
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:16: games[0].players[1].name: 'Кpocc': the word 'Кpocc' mixes Latin "
        "and Cyrillic letters, which look alike (a Latin p, o, c shows as a Cyrillic р, о, "
        "с): write it in one alphabet",
    ]


def test_a_full_width_name_not_in_nfkc_form_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Ｋｏｌｙａ`` (full-width) is never what a player types: «ГОЛОС Kolya» named
    nobody (a hostile probe)."""
    text = _edit("{name: Веталь, email", "{name: Ｋｏｌｙａ, email").replace(
        "rooms: [кухня, терраса,", "rooms: [кухня, ﬁнская баня,"
    )
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:16: games[0].players[1].name: 'Ｋｏｌｙａ' is not in Unicode NFKC "
        "form (full-width or other compatibility characters, which players do not type): "
        "write it as 'Kolya'",
        "games.yaml:21: games[0].cards.rooms[1]: 'ﬁнская баня' is not in Unicode NFKC "
        "form (full-width or other compatibility characters, which players do not type): "
        "write it as 'fiнская баня'",
    ]


def test_pbp_check_refuses_each_misreadable_name_of_the_issue_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The four names `pbp check` accepted: exit 1, one line each, naming the name."""
    from click.testing import CliRunner

    from pbp.cli import main

    text = (
        BASE.replace("{name: Неташка, email", '{name: "> Вова", email')
        .replace("{name: Веталь, email", '{name: "Ко -- ля", email')
        .replace("{name: Дуг, email", "{name: Вася ДЛЯ Петя, email")
        .replace("    cards:", "      - {name: Ｋｏｌｙａ, email: kolya@example.test}\n    cards:")
    )
    path = _write(tmp_path, monkeypatch, text)
    result = CliRunner().invoke(main, ["-c", str(path), "check"])
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert [line.split(": ", 2)[1] for line in lines] == [
        "games[0].players[0].name",
        "games[0].players[1].name",
        "games[0].players[2].name",
        "games[0].players[3].name",
    ]
    assert [line.split(": ", 2)[2].split(" ", 2)[:2] for line in lines] == [
        ["'>", "Вова':"],
        ["'Ко", "--"],
        ["name", "'Вася"],
        ["'Ｋｏｌｙａ'", "is"],
    ]
    assert "Traceback" not in result.output


def test_a_cluedo_card_whose_name_begins_as_a_refutation_word_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ОПРОВЕРЖЕНИЕ Нет выхода`` reads as NO REFUTATION, ``ОПРОВЕРЖЕНИЕ 12 стульев``
    as a refutation of suggestion 12 with a card «стульев», and the refusal asked for
    the same line again: such a card could not be shown by name (a hostile probe)."""
    text = _edit("rooms: [кухня, терраса,", "rooms: [кухня, Нет выхода,").replace(
        "weapons: [подсвечник,", "weapons: [12 стульев,"
    )
    assert _problems(tmp_path, monkeypatch, text) == [
        "games.yaml:20: games[0].cards.weapons[0]: card '12 стульев': a player's REFUTE "
        "reads '12' as part of the command (REFUTE No… is NO REFUTATION, REFUTE 12… "
        "refutes suggestion #12): give the card a name that begins with another word",
        "games.yaml:21: games[0].cards.rooms[1]: card 'Нет выхода': a player's REFUTE "
        "reads 'нет' as part of the command (REFUTE No… is NO REFUTATION, REFUTE 12… "
        "refutes suggestion #12): give the card a name that begins with another word",
    ]
    # A word of the command elsewhere in a card's name is read right.
    fine = _edit("rooms: [кухня, терраса,", "rooms: [кухня, Комната для гостей,")
    assert load_config(_write(tmp_path, monkeypatch, fine)).game("exler-1")


def test_M1_fixed_roles_need_one_maniac_one_duty_officer_and_a_fan_from_10(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roles = {f"Игрок{i}": "civilian" for i in range(1, 11)}
    roles["Игрок1"] = "maniac"
    roles["Игрок2"] = "maniac"
    assert _problems(tmp_path, monkeypatch, _maniac(10, roles)) == [
        "games.yaml:22: games[0].roles: rule M1: 10 players need 1 player with the role "
        "maniac, got 2",
        "games.yaml:22: games[0].roles: rule M1: 10 players need 1 player with the role "
        "duty_officer, got 0",
        "games.yaml:22: games[0].roles: rule M1: 10 players need 1 player with the role fan, got 0",
    ]


def test_M1_check_counts_the_players_a_role_needs_with_the_right_plural(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pbp check`` said "9 players need 0 fan": a count and its noun agree (English,
    the command line's language: :func:`pbp.text.counted.counted`)."""
    roles = {f"Игрок{i}": "civilian" for i in range(1, 10)}
    roles["Игрок1"] = "maniac"
    roles["Игрок2"] = "duty_officer"
    roles["Игрок3"] = "fan"
    assert _problems(tmp_path, monkeypatch, _maniac(9, roles)) == [
        "games.yaml:21: games[0].roles: rule M1: 9 players need 0 players with the role fan, got 1",
    ]


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "netashka@example.test",
            "netashka@localhost",
            "games[0].players[0].email: address 'netashka@localhost': its domain has no dot: "
            "mail cannot reach it",
        ),
        (
            "netashka@example.test",
            "postmaster@example.test",
            "games[0].players[0].email: address 'postmaster@example.test': postmaster@ is where "
            "bounces come from: its mail is never read as moves",
        ),
        (
            "netashka@example.test",
            "gm-person@example.test",
            "games[0].players[0].email: 'gm-person@example.test' is the GM's address: a player "
            "needs one of his own",
        ),
        (
            "netashka@example.test",
            "GM+mine@example.test",
            "games[0].players[0].email: 'GM+mine@example.test' is pbp's own mailbox: give a "
            "person's address",
        ),
    ],
    ids=["no-dot", "bounce-sender", "the-gms", "pbps-own"],
)
def test_check_refuses_an_address_no_player_can_have(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    path = tmp_path / "games.yaml"
    text = (REPO / "games.yaml").read_text(encoding="utf-8")
    # The first game's first player only (Неташка plays two games).
    start = text.index("players:")
    path.write_text(text[:start] + text[start:].replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert [line.split(": ", 1)[1] for line in str(raised.value).splitlines()] == [said]


def test_check_lists_the_checks_across_fields_beside_the_field_errors(tmp_path: Path) -> None:
    """README walk-through, item 3: a player at a bounce sender's address, one at a
    domain without a dot and one at the GM's address are three problems, all listed at
    once, each at its line (the GM's address check is one across fields, which pydantic
    runs only once every field passed); so is a name twice and pbp's own mailbox."""
    path = tmp_path / "games.yaml"
    text = (REPO / "games.yaml").read_text(encoding="utf-8")
    start = text.index("players:")  # the first game's players only
    rest = text[start:]
    for old, new in (
        ("netashka@example.test", "postmaster@example.test"),
        ("doug@example.test", "doug@localhost"),
        ("moro@example.test", "gm-person@example.test"),
        ("{name: Мария,", "{name: Веталь,"),
        ("alien@example.test", "gm+alien@example.test"),
    ):
        rest = rest.replace(old, new, 1)
    path.write_text(text[:start] + rest, encoding="utf-8")
    line = text[:start].count("\n") + 2  # the line of the first player
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value).splitlines() == [
        f"{path}:{line}: games[0].players[0].email: address 'postmaster@example.test': "
        "postmaster@ is where bounces come from: its mail is never read as moves",
        f"{path}:{line + 2}: games[0].players[2].email: address 'doug@localhost': its domain "
        "has no dot: mail cannot reach it",
        f"{path}:{line + 3}: games[0].players[3].email: 'gm-person@example.test' is the GM's "
        "address: a player needs one of his own",
        f"{path}:{line + 4}: games[0].players[4].name: duplicate name 'Веталь' (also players[1])",
        f"{path}:{line + 5}: games[0].players[5].email: 'gm+alien@example.test' is pbp's own "
        "mailbox: give a person's address",
    ]


def test_check_lists_a_check_across_fields_once_when_it_is_the_only_problem(
    tmp_path: Path,
) -> None:
    """Without a field error the model's own check says it, and it is not said twice."""
    path = tmp_path / "games.yaml"
    text = (REPO / "games.yaml").read_text(encoding="utf-8")
    start = text.index("players:")
    rest = text[start:].replace("moro@example.test", "gm-person@example.test", 1)
    path.write_text(text[:start] + rest, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert [line.split(": ", 1)[1] for line in str(raised.value).splitlines()] == [
        "games[0].players[3].email: 'gm-person@example.test' is the GM's address: a player "
        "needs one of his own"
    ]
