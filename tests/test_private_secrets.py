"""Hidden information stays hidden in the PRIVATE mails too (hands, shown cards, roles,
kill orders, who the maniac is; rules C2, C4, C6, M1, M3, M6, M8).

Two ways of attacking it:

* **Noninterference.** The same game is played twice ("two worlds") with the same
  moves, differing only in one secret: the card a player shows, a player's hand, who
  holds which role, the maniac's order for a night. Every mail to a player who may not
  know that secret — replies to his own moves (STATUS, HELP, refusals), reminders,
  announcements, a substitute's briefing, the morning's news — and every post the GM
  pastes must read exactly the same in both worlds (random tokens and hashes aside).
  A difference is a leak, whatever template or view it comes from.
* **Specific secrets.** Where the worlds cannot differ only in the secret (a
  substitute's address, the text of another player's mail), a test names the secret
  and the mail that must not carry it, and checks that its owner does get it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

from click.testing import CliRunner
from kits import seed_000
from kits.games import MailSection, game_keys, write_games_yaml
from kits.maniac_table import EMAILS as MANIAC_EMAILS
from kits.maniac_table import GAME as MANIAC_GAME
from kits.maniac_table import GAME_ITEM as MANIAC_ITEM
from kits.maniac_table import PLAYERS as MANIAC_PLAYERS
from kits.maniac_table import ROLES, START, ManiacTable, close, dawn
from kits.table import GM, Table, body, utc

from pbp.cli import main
from pbp.games.core.events import LeverRefused
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT

# --- noninterference: transcripts of two worlds --------------------------------------

#: What differs between two runs of the same game by chance, never by a secret: the
#: personal tokens (addresses and Subject tags) and the salted deal's SHA-256.
_RANDOM = (
    (re.compile(r"gm\+[a-z0-9]{10,16}@"), "gm+TOKEN@"),
    (re.compile(r"\[pbp-[a-z0-9]{10,16}\]"), "[pbp-TOKEN]"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "SHA256"),
)


def normal(text: str) -> str:
    """``text`` with what differs between two runs by chance replaced (:data:`_RANDOM`)."""
    for pattern, replacement in _RANDOM:
        text = pattern.sub(replacement, text)
    return text


def transcript(mails: Sequence[EmailMessage], to: str) -> list[tuple[str, str, str]]:
    """``[(Subject, Reply-To, body)]`` of the mails to ``to``, in order, normalised."""
    return [
        (normal(str(m["Subject"])), normal(str(m["Reply-To"] or "")), normal(body(m)))
        for m in mails
        if str(m["To"]).lower() == to.lower()
    ]


def assert_same_for(
    worlds: Sequence[Sequence[EmailMessage]], observers: Sequence[str], what: str
) -> None:
    """Every observer's mails read the same in every world, and he got some (so that
    the comparison is not empty)."""
    first, *others = worlds
    for observer in observers:
        seen = transcript(first, observer)
        assert seen, f"{observer} got no mail at all ({what})"
        for world in others:
            other = transcript(world, observer)
            assert other == seen, f"{what}: the mails to {observer} differ between worlds"


# --- Maniac -------------------------------------------------------------------------

#: Four civilians in both deals below: their mails may not depend on the others' roles.
CIVILIANS_BOTH = ("Вася", "Петя", "Таня", "Саша")
OTHER_DEAL = {p: "civilian" for p in MANIAC_PLAYERS} | {
    "Маша": "maniac",
    "Катя": "duty_officer",
    "Оля": "fan",
}


def minute(at: datetime, n: int) -> datetime:
    return at + timedelta(minutes=n)


class NamedManiacTable(ManiacTable):
    """Seed 002's game (:class:`kits.maniac_table.ManiacTable`) whose players play under
    other names: ``names`` maps the name a script calls a player by to his seat's."""

    def __init__(
        self, directory: Path, *, roles: dict[str, str], extra: str, names: dict[str, str]
    ) -> None:
        self.names = names
        self.directory = directory
        self.path = directory / "games.yaml"
        item = MANIAC_ITEM.format(
            locale="ru",
            extra=game_keys(extra),
            players="\n".join(
                f"      - {{name: {self.seat(p)}, email: {MANIAC_EMAILS[p]}}}"
                for p in MANIAC_PLAYERS
            ),
            roles="\n".join(f"      {self.seat(p)}: {roles[p]}" for p in MANIAC_PLAYERS),
        )
        write_games_yaml(directory, item)
        self._serve(self.path, START)

    def seat(self, player: str) -> str:
        """The seat's name in this game of the player a script calls ``player``."""
        return self.names.get(player, player)

    def token(self, player: str) -> str:
        token = self.store.player_token(MANIAC_GAME, self.seat(player))
        assert token is not None
        return token


def maniac_world(
    directory: Path,
    roles: dict[str, str],
    script: Callable[[NamedManiacTable], None],
    extra: str = "remind_hours_before: 2\nvote_count_mail: true\n",
    names: dict[str, str] | None = None,
) -> list[EmailMessage]:
    """Every mail of the seed-002 game dealt ``roles`` (its players under ``names``) and
    played by ``script``, with the CLI levers' mails sent too."""
    directory.mkdir()
    table = NamedManiacTable(directory, roles=roles, extra=extra, names=names or {})
    try:
        table.run(START)
        script(table)
        table.service.flush_outbox(utc(2026, 12, 31))
        return table.sent()
    finally:
        table.close()


def cli(directory: Path, *args: str) -> str:
    """What ``pbp -c DIRECTORY/games.yaml ARGS…`` prints (exit status 0)."""
    result = CliRunner().invoke(main, ["-c", str(directory / "games.yaml"), *args])
    assert result.exit_code == 0, result.output
    return result.output


#: ``pbp post`` of every Maniac post a GM may print for pasting after night 2.
MANIAC_POSTS = (
    (),
    ("--which", "opening"),
    ("--day", "1"),
    ("--which", "evening", "--day", "1"),
    ("--which", "morning", "--day", "2"),
    ("--which", "evening", "--day", "2", "--format", "markdown"),
    ("--which", "morning", "--day", "3", "--format", "markdown"),
)


def every_player(table: NamedManiacTable, lines: Sequence[str], at: datetime) -> None:
    """Each player of the game sends ``lines``, a minute apart from ``at`` on."""
    for i, player in enumerate(MANIAC_PLAYERS):
        table.move(player, *lines, at=minute(at, i))


def role_blind_script(table: NamedManiacTable) -> None:
    """Moves that read the same whoever holds which role: every player asks STATUS and
    HELP, tries a kill order (the maniac's goes through, the others' are refused), a
    skip, a second kill, and votes; the GM acts, substitutes and removes seats by name.
    Саша dies on night 1 whoever the maniac is (both maniacs order her)."""
    every_player(table, ["СТАТУС", "ПОМОЩЬ"], utc(2026, 12, 1, 9, 10))
    every_player(table, ["УБИТЬ Сашу НОЧЬ 1", "ПРОПУСК НОЧЬ 2"], utc(2026, 12, 1, 9, 30))
    every_player(table, ["УБИТЬ Колю", "УБИТЬ Машу", "УБИТЬ себя"], utc(2026, 12, 1, 9, 50))
    # Votes for civilians of both deals only (a fan in the cell would die, M7).
    for i, player in enumerate(MANIAC_PLAYERS):
        target = "Петю" if player != "Петя" else "Таню"
        table.move(player, f"ГОЛОС за {target}", "СТАТУС", at=utc(2026, 12, 1, 11, i))
    gm = table.service.gm
    gm.act(
        MANIAC_GAME,
        table.seat("Маша"),
        "ГОЛОС за Таню",
        now=utc(2026, 12, 1, 12),
        via="cli",
        note=None,
    )
    # The GM enters an order for both maniacs: one goes through, the other is refused
    # to the GM alone (no mail to the seat).
    for i, seat in enumerate(("Коля", "Маша")):
        try:
            gm.act(
                MANIAC_GAME,
                table.seat(seat),
                "УБИТЬ Сашу НОЧЬ 1",
                now=minute(utc(2026, 12, 1, 12, 1), i),
                via="cli",
                note=None,
            )
        except LeverRefused as refused:
            assert refused.code == "gm_act_refused"
    # The seats of both maniacs, both fans and a civilian go to substitutes; Дима (duty
    # in one deal) leaves (a removal; neither maniac is removed, M12's check sees no win).
    for i, seat in enumerate(("Коля", "Маша", "Лена", "Оля", "Таня")):
        gm.substitute(
            MANIAC_GAME,
            table.seat(seat),
            f"Новичок{i}",
            f"new{i}@example.test",
            now=utc(2026, 12, 1, 13, i),
            via="cli",
            note="замена",
        )
    gm.remove(MANIAC_GAME, table.seat("Дима"), now=utc(2026, 12, 1, 14), via="cli", note="пропал")
    table.send("Таня", "СТАТУС", "ПОМОЩЬ", at=utc(2026, 12, 1, 14, 5), sender="new4@example.test")
    table.run(utc(2026, 12, 1, 14, 6))
    # A pause: the mail is held, then applied on resume.
    gm.pause(MANIAC_GAME, now=utc(2026, 12, 1, 15), via="cli", note=None)
    every_player(table, ["СТАТУС", "ГОЛОС за Петю"], utc(2026, 12, 1, 15, 5))
    gm.resume(MANIAC_GAME, now=utc(2026, 12, 1, 16), via="cli", note=None)
    table.run(utc(2026, 12, 1, 16, 1))
    table.at(utc(2026, 12, 1, 17, 30))  # the reminders of day 1
    table.at(close(1))  # Петя in the cell
    every_player(table, ["СТАТУС"], minute(close(1), 5))
    table.at(utc(2026, 12, 2, 5, 30))  # the reminders of night 1
    table.at(dawn(1))  # Саша dies
    every_player(table, ["СТАТУС", "ГОЛОС за Таню"], minute(dawn(1), 5))
    gm.remove(MANIAC_GAME, table.seat("Вася"), now=minute(dawn(1), 30), via="cli", note=None)
    every_player(table, ["СТАТУС"], minute(dawn(1), 35))


def test_maniac_a_civilian_reads_the_same_whoever_holds_the_other_roles(tmp_path: Path) -> None:
    """M1: only the maniac, the fan and the GM know who is who. Two deals differ in who
    is the maniac, the duty officer and the fan; the civilians of both deals get the
    very same mails, through STATUS, HELP, refused orders, votes, reminders, the GM's
    act, substitutions and a removal, the evening and the morning."""
    worlds = [
        maniac_world(tmp_path / "a", ROLES, role_blind_script),
        maniac_world(tmp_path / "b", OTHER_DEAL, role_blind_script),
    ]
    observers = [MANIAC_EMAILS[p] for p in CIVILIANS_BOTH]
    assert_same_for(worlds, [*observers, "new4@example.test"], "roles")
    # The posts the GM pastes (in the game's post_format, BBCode) read the same too; only
    # his own facts ("GM only", the sheet, the night, the vote count, his levers' results)
    # differ.
    pasted = [
        [m for m in world if str(m["Subject"]).endswith((" — BBCode", " — Markdown"))]
        for world in worlds
    ]
    assert [normal(body(m)) for m in pasted[0]] == [normal(body(m)) for m in pasted[1]]
    assert len(pasted[0]) > 10
    printed = [
        [normal(cli(tmp_path / name, "post", MANIAC_GAME, *args)) for args in MANIAC_POSTS[:5]]
        for name in ("a", "b")
    ]
    assert printed[0] == printed[1]
    # The comparison can fail: the maniacs' and the fans' own mails do differ.
    for seat in ("Коля", "Лена"):
        assert transcript(worlds[0], MANIAC_EMAILS[seat]) != transcript(
            worlds[1], MANIAC_EMAILS[seat]
        )
    sasha = transcript(worlds[0], MANIAC_EMAILS["Саша"])
    assert any("вас убили" in text for _s, _r, text in sasha)


#: Role words as names: a civilian of both deals is called Маньяк, the duty officer
#: of one deal Мирный, the fan of one deal Дежурная (names no command reads, M9).
ROLE_NAMES = {"Вася": "Маньяк", "Дима": "Мирный", "Лена": "Дежурная"}


def test_maniac_players_named_like_roles_learn_no_role(tmp_path: Path) -> None:
    """M1 again, with players named like the roles: Маньяк (a civilian in both deals,
    who reads «Маньяк, вот что сделано…» and «голос за Маньяка»), Мирный, Дежурная."""
    worlds = [
        maniac_world(tmp_path / name, roles, role_blind_script, names=ROLE_NAMES)
        for name, roles in (("a", ROLES), ("b", OTHER_DEAL))
    ]
    observers = [MANIAC_EMAILS[p] for p in CIVILIANS_BOTH]
    assert_same_for(worlds, [*observers, "new4@example.test"], "roles, under role names")
    vasya = transcript(worlds[0], MANIAC_EMAILS["Вася"])
    assert vasya[0][2].startswith(f"Игра: {MANIAC_GAME}\n\nЗдравствуйте, Маньяк!")
    assert "Ваша роль: МИРНЫЙ ЖИТЕЛЬ." in vasya[0][2]
    lena = [transcript(world, MANIAC_EMAILS["Лена"]) for world in worlds]
    assert lena[0] != lena[1]


def night_script(order: Sequence[str]) -> Callable[[NamedManiacTable], None]:
    """Day 1 sends Саша to the cell while the maniac gives ``order`` (lines; none: a
    miss); both nights pass with everyone asking STATUS; night 2 kills Оля."""

    def script(table: NamedManiacTable) -> None:
        if order:
            table.move("Коля", *order, at=utc(2026, 12, 1, 9, 5))
        table.move("Коля", "УБИТЬ Олю НОЧЬ 2", at=utc(2026, 12, 1, 9, 6))
        for i, player in enumerate(MANIAC_PLAYERS):
            target = "Сашу" if player != "Саша" else "Таню"
            table.move(player, f"ГОЛОС за {target}", at=utc(2026, 12, 1, 10, i))
        table.at(utc(2026, 12, 1, 17, 30))
        table.at(close(1))
        every_player(table, ["СТАТУС"], minute(close(1), 5))
        table.at(utc(2026, 12, 2, 5, 30))
        table.at(dawn(1))
        every_player(table, ["СТАТУС"], minute(dawn(1), 5))
        table.at(close(2))
        table.at(dawn(2))
        every_player(table, ["СТАТУС"], minute(dawn(2), 5))

    return script


def test_M6_nobody_but_the_maniac_can_tell_a_blocked_kill_from_a_skip_or_a_miss(
    tmp_path: Path,
) -> None:
    """M6: "nobody is ever told why a night passed without a death". The maniac orders
    the player in the cell (the duty officer guards it: blocked), orders a skip, or
    orders nothing (a miss). Every other player — the duty officer, the target in the
    cell and the fan included — reads the same mails, and the GM pastes the same posts."""
    worlds = [
        maniac_world(tmp_path / name, ROLES, night_script(order))
        for name, order in (
            ("blocked", ["УБИТЬ Сашу НОЧЬ 1"]),
            ("skip", ["ПРОПУСК НОЧЬ 1"]),
            ("miss", []),
        )
    ]
    others = [MANIAC_EMAILS[p] for p in MANIAC_PLAYERS if p != "Коля"]
    assert_same_for(worlds, others, "the night's outcome")
    pasted = [
        [normal(body(m)) for m in world if str(m["Subject"]).endswith((" — BBCode", " — Markdown"))]
        for world in worlds
    ]
    assert pasted[0] == pasted[1] == pasted[2]
    # What `pbp post` prints for pasting reads the same; `pbp show`, the GM's, does not.
    printed = [
        [normal(cli(tmp_path / name, "post", MANIAC_GAME, *args)) for args in MANIAC_POSTS]
        for name in ("blocked", "skip", "miss")
    ]
    assert printed[0] == printed[1] == printed[2]
    shown = [cli(tmp_path / name, "show", MANIAC_GAME) for name in ("blocked", "skip")]
    assert normal(shown[0]) != normal(shown[1])
    # The maniac and the GM do tell them apart (the comparison can fail).
    kolya = [transcript(world, MANIAC_EMAILS["Коля"]) for world in worlds]
    assert kolya[0] != kolya[1] != kolya[2]
    gm = [transcript(world, GM) for world in worlds]
    assert gm[0] != gm[1] != gm[2]
    olya = transcript(worlds[0], MANIAC_EMAILS["Оля"])
    assert any("вас убили" in text for _s, _r, text in olya)


# --- Cluedo by game days ------------------------------------------------------------

CLUEDO_EMAILS = {
    "Кросс": "cross@example.test",
    "Дуг": "doug@example.test",
    "Роза": "rosa@example.test",
}
#: Seed 000's deal (kits.table): Кросс Петя, Ваня, Нож; Дуг Спальня, Пистолет, Молоток;
#: Роза Библиотека, Канделябр, Веревка; the solution Маша, Топор, Столовая.
SEED_HANDS = {player: list(hand) for player, hand in seed_000.HANDS.items()}
#: Петя and Спальня change hands: every answer of the script below stays the same.
SWAPPED_HANDS = SEED_HANDS | {
    "Кросс": ["Спальня", "Ваня", "Нож"],
    "Дуг": ["Петя", "Пистолет", "Молоток"],
}

CLUEDO_ITEM = """\
  - id: seed-000
    kind: {kind}
    locale: ru
    timezone: Europe/Moscow
    gm: gm-person@example.test
    seed: 1234
    start: "2026-12-01T20:00"
{extra}    players:
      - {{name: Кросс, email: cross@example.test, gender: m}}
      - {{name: Дуг, email: doug@example.test, gender: f}}
      - {{name: {rosa}, email: rosa@example.test, gender: f}}
    cards:
      suspects: [Маша, Петя, Ваня]
      weapons: [Топор, Пистолет, Канделябр, Молоток, Веревка, Нож]
      rooms: [Столовая, Спальня, Библиотека]
    deal:
      solution: [Маша, Топор, Столовая]
      hands:
{hands}
"""


class CluedoTable(Table):
    """Seed 000's game (``kind``: cluedo_days or cluedo_rounds) dealt ``hands``, on
    Maildir transports with a test-controlled clock (:class:`kits.table.Table`'s)."""

    def __init__(
        self,
        directory: Path,
        hands: dict[str, list[str]],
        *,
        kind: str = "cluedo_days",
        extra: str = "",
        personal_address: str = "plus",
        mail: str = "",
        rosa: str = "Роза",
    ) -> None:
        self.directory = directory
        self.trusted = None
        #: The name the third seat plays under (the scripts call it Роза).
        self.rosa = rosa
        item = CLUEDO_ITEM.format(
            kind=kind,
            extra=game_keys(extra),
            rosa=rosa,
            hands="\n".join(f"        {self.seat(p)}: [{', '.join(h)}]" for p, h in hands.items()),
        )
        path = write_games_yaml(
            directory, item, mail=MailSection(personal_address=personal_address, extra=mail)
        )
        self._serve(path, utc(2026, 12, 1, 17))

    def seat(self, player: str) -> str:
        """The seat's name in this game of the player a script calls ``player``."""
        return self.rosa if player == "Роза" else player

    def token(self, player: str) -> str:
        """The personal token of ``player`` (as a script calls him)."""
        token = self.store.player_token("seed-000", self.seat(player))
        assert token is not None
        return token

    def move(self, player: str, *lines: str, at: datetime) -> None:
        """``player`` mails ``lines`` arriving at ``at``; the daemon runs a minute later."""
        self.send(player, *lines, at=at)
        self.run(at + timedelta(minutes=1))

    def tagged(self, sender: str, token: str, *lines: str, at: datetime) -> None:
        """``sender`` mails ``lines`` to pbp's own address with the Subject tag of
        ``token`` (``personal_address: subject_tag``); the daemon runs a minute later."""
        message = EmailMessage(policy=SMTP)
        message["From"] = sender
        message["To"] = "gm@example.test"
        message["Subject"] = f"ход [pbp-{token}]"
        message["Date"] = format_datetime(at)
        message["Message-ID"] = make_msgid(domain="example.test")
        message.set_content("\n".join(lines) + "\n")
        deliver(self.inbox_path, bytes(message), at=at)
        self.run(at + timedelta(minutes=1))


def cluedo_world(
    directory: Path,
    hands: dict[str, list[str]],
    script: Callable[[CluedoTable], None],
    *,
    kind: str = "cluedo_days",
    extra: str = "remind_hours_before: 1\n",
    rosa: str = "Роза",
) -> list[EmailMessage]:
    """Every mail of seed 000's game dealt ``hands`` and played by ``script``."""
    directory.mkdir()
    timing = (
        'day_closes: "22:30"\n' if kind == "cluedo_days" else "turn_hours: 24\nanswer_hours: 12\n"
    )
    table = CluedoTable(directory, hands, kind=kind, extra=timing + extra, rosa=rosa)
    try:
        table.run(utc(2026, 12, 1, 17))
        script(table)
        table.service.flush_outbox(utc(2026, 12, 31))
        return table.sent()
    finally:
        table.close()


def days_script(shown: str, accused: str) -> Callable[[CluedoTable], None]:
    """Day 1: Кросс, Роза and Дуг suggest; Дуг shows ``shown`` for suggestion 1;
    everybody asks STATUS and HELP; Роза and Кросс send answers that are not theirs to
    give; Кросс accuses ``accused`` (wrong: he is out, D5); suggestion 4 is left to the
    GM at the close (C5, D6). Day 2: Дуг's seat goes to a substitute, Кросс is removed
    (the GM answers Роза's suggestion for him at once, C5)."""

    def script(table: CluedoTable) -> None:
        day1 = utc(2026, 12, 1, 17)
        table.move("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Молоток, Спальня ДЛЯ Дуг", at=minute(day1, 1))
        table.move("Роза", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Столовая ДЛЯ Дуг", at=minute(day1, 3))
        table.move("Дуг", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Библиотека ДЛЯ Кросс", at=minute(day1, 5))
        table.move("Дуг", f"ОПРОВЕРЖЕНИЕ 1 {shown}", "ОПРОВЕРЖЕНИЕ 2 Пистолет", at=minute(day1, 7))
        table.move("Кросс", "ОПРОВЕРЖЕНИЕ 3 Нож", at=minute(day1, 9))
        table.move("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Библиотека ДЛЯ Дуг", at=minute(day1, 11))
        for i, player in enumerate(CLUEDO_EMAILS):
            table.move(player, "СТАТУС", "ПОМОЩЬ", at=minute(day1, 13 + 2 * i))
        table.move(
            "Роза",
            "ОПРОВЕРЖЕНИЕ 1 Петя",
            "НЕТ ОПРОВЕРЖЕНИЯ 3",
            "ОПРОВЕРЖЕНИЕ Нож",
            "ОПРОВЕРЖЕНИЕ 4 Пистолет",
            "ОПРОВЕРЖЕНИЕ 9 Пистолет",
            at=minute(day1, 21),
        )
        table.move("Кросс", "ОПРОВЕРЖЕНИЕ 4 Пистолет", "НЕТ ОПРОВЕРЖЕНИЯ 1", at=minute(day1, 23))
        table.move("Кросс", f"ОБВИНЕНИЕ {accused}", at=minute(day1, 25))
        table.run(utc(2026, 12, 1, 18, 30))  # the reminders
        table.run(utc(2026, 12, 1, 19, 30))  # the close: the GM answers #4
        day2 = utc(2026, 12, 1, 20)
        for i, player in enumerate(CLUEDO_EMAILS):
            table.move(player, "СТАТУС", at=minute(day2, i))
        table.move("Роза", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Кросс", at=minute(day2, 5))
        gm = table.service.gm
        gm.substitute(
            "seed-000",
            "Дуг",
            "Вова",
            "vova@example.test",
            now=minute(day2, 10),
            via="cli",
            note=None,
        )
        gm.remove("seed-000", "Кросс", now=minute(day2, 12), via="cli", note="пропал")
        for i, player in enumerate(CLUEDO_EMAILS):
            table.move(player, "СТАТУС", at=minute(day2, 20 + i))
        # Роза's seat goes to a substitute too, who asks STATUS.
        gm.substitute(
            "seed-000",
            table.seat("Роза"),
            "Рита",
            "rita@example.test",
            now=minute(day2, 30),
            via="cli",
            note=None,
        )
        table.send("Роза", "СТАТУС", "ПОМОЩЬ", at=minute(day2, 31), sender="rita@example.test")
        table.run(utc(2026, 12, 2, 19, 30))

    return script


def test_cluedo_days_others_read_the_same_whatever_card_was_shown_and_was_accused(
    tmp_path: Path,
) -> None:
    """C4, C6, D5: the card shown goes to the suggester alone, a wrong accusation's
    cards to the GM alone. Роза reads the same mails (replies to STATUS, HELP and to
    answers that are not hers, reminders, GM answers, the removal) whether Дуг showed
    Кросс Молоток or Спальня, and Дуг too whatever Кросс accused."""
    right = "Ваня, Нож, Спальня"
    worlds = [
        cluedo_world(tmp_path / "a", SEED_HANDS, days_script("Молоток", right)),
        cluedo_world(tmp_path / "shown", SEED_HANDS, days_script("Спальня", right)),
        cluedo_world(
            tmp_path / "accused", SEED_HANDS, days_script("Молоток", "Петя, Веревка, Библиотека")
        ),
    ]
    rosa = [CLUEDO_EMAILS["Роза"], "rita@example.test"]
    assert_same_for(worlds, rosa, "the card shown, the accusation")
    assert_same_for(
        [worlds[0], worlds[2]], [CLUEDO_EMAILS["Дуг"], "vova@example.test"], "the accusation"
    )
    pasted = [
        [normal(body(m)) for m in world if str(m["Subject"]).endswith((" — BBCode", " — Markdown"))]
        for world in worlds
    ]
    assert pasted[0] == pasted[1] == pasted[2]
    # The comparison can fail: the suggester and the GM do see the card.
    cross = [transcript(world, CLUEDO_EMAILS["Кросс"]) for world in worlds[:2]]
    assert cross[0] != cross[1]
    assert any("Дуг показывает вам карту «Спальня»." in t for _s, _r, t in cross[1])


def test_cluedo_days_others_read_the_same_whatever_the_hands_beyond_their_answers(
    tmp_path: Path,
) -> None:
    """C2: a hand is known to its owner and the GM only. Петя and Спальня change hands
    between Кросс and Дуг; every answer of the game stays the same, and so does every
    mail to Роза and every post the GM pastes (the substitute who takes Дуг's seat does
    get its hand)."""
    worlds = [
        cluedo_world(tmp_path / "a", SEED_HANDS, days_script("Молоток", "Ваня, Нож, Спальня")),
        cluedo_world(tmp_path / "b", SWAPPED_HANDS, days_script("Молоток", "Ваня, Нож, Спальня")),
    ]
    assert_same_for(worlds, [CLUEDO_EMAILS["Роза"], "rita@example.test"], "the hands")
    pasted = [
        [normal(body(m)) for m in world if str(m["Subject"]).endswith((" — BBCode", " — Markdown"))]
        for world in worlds
    ]
    assert pasted[0] == pasted[1]
    # Until the end of the game: the final post is not reached here (nobody won).
    assert not any("Игра окончена" in text for text in pasted[0])
    vova = [transcript(world, "vova@example.test") for world in worlds]
    assert vova[0] != vova[1]  # the briefing gives the seat's hand


def test_cluedo_days_a_player_named_like_a_card_learns_no_more(tmp_path: Path) -> None:
    """The third player plays under a card's name: Нож (a card of Кросс's hand) or
    Веревка (one of her own), read in every mail beside the cards. She still reads the
    same mails whichever card Дуг showed Кросс and whatever Кросс accused, and her
    substitute too."""
    for name in ("Нож", "Веревка"):
        worlds = [
            cluedo_world(
                tmp_path / f"{name}-{shown}-{n}",
                SEED_HANDS,
                days_script(shown, accused),
                rosa=name,
            )
            for n, (shown, accused) in enumerate(
                (
                    ("Молоток", "Ваня, Нож, Спальня"),
                    ("Спальня", "Ваня, Нож, Спальня"),
                    ("Молоток", "Петя, Веревка, Библиотека"),
                )
            )
        ]
        assert_same_for(worlds, [CLUEDO_EMAILS["Роза"], "rita@example.test"], name)
        rosa = transcript(worlds[0], CLUEDO_EMAILS["Роза"])
        assert any("Ваши карты: Библиотека, Канделябр, Веревка." in t for _s, _r, t in rosa)
        cross = [transcript(world, CLUEDO_EMAILS["Кросс"]) for world in worlds[:2]]
        assert cross[0] != cross[1]


# --- Cluedo by rounds ---------------------------------------------------------------


def rounds_script(shown: str) -> Callable[[CluedoTable], None]:
    """Turn 1: Кросс suggests, Дуг shows ``shown``; Роза asks STATUS and HELP and sends
    what is not hers to send; turn 2: Дуг suggests and Роза never answers (the GM shows
    her card at the deadline, R7, C5); then Дуг's seat goes to a substitute, Кросс is
    removed and the game runs on for a day (missed turns)."""

    def script(table: CluedoTable) -> None:
        at = utc(2026, 12, 1, 17)
        table.move("Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", at=minute(at, 5))
        table.move(
            "Роза",
            "СТАТУС",
            "ПОМОЩЬ",
            "ОПРОВЕРЖЕНИЕ 1 Петя",
            "ОПРОВЕРЖЕНИЕ Библиотека",
            "ПРЕДПОЛОЖЕНИЕ Маша, Нож, Столовая",
            at=minute(at, 10),
        )
        table.move("Дуг", f"ОПРОВЕРЖЕНИЕ 1 {shown}", at=minute(at, 15))
        table.move("Дуг", "ПРЕДПОЛОЖЕНИЕ Маша, Нож, Библиотека", at=minute(at, 20))
        for i, player in enumerate(CLUEDO_EMAILS):
            table.move(player, "СТАТУС", at=minute(at, 25 + i))
        table.move("Кросс", "ОПРОВЕРЖЕНИЕ 1 Петя", "ОПРОВЕРЖЕНИЕ 2 Нож", at=minute(at, 30))
        table.run(utc(2026, 12, 2, 4, 30))  # the reminder of Роза's answer
        table.run(utc(2026, 12, 2, 5, 30))  # the GM answers for her
        for i, player in enumerate(CLUEDO_EMAILS):
            table.move(player, "СТАТУС", at=utc(2026, 12, 2, 6, i))
        gm = table.service.gm
        gm.substitute(
            "seed-000",
            "Дуг",
            "Вова",
            "vova@example.test",
            now=utc(2026, 12, 2, 6, 10),
            via="cli",
            note=None,
        )
        gm.remove("seed-000", "Кросс", now=utc(2026, 12, 2, 6, 12), via="cli", note=None)
        for i, player in enumerate(CLUEDO_EMAILS):
            table.move(player, "СТАТУС", at=utc(2026, 12, 2, 7, i))
        table.run(utc(2026, 12, 3, 12))

    return script


def test_cluedo_rounds_others_read_the_same_whatever_card_was_shown(tmp_path: Path) -> None:
    """C4, R2: the card shown goes to the suggester alone. Роза reads the same mails
    (replies to STATUS, HELP and to what is not hers to send, the reminder, the GM's
    answer for her, the removal) and the GM pastes the same posts whether Дуг showed
    Кросс Молоток or Спальня."""
    worlds = [
        cluedo_world(tmp_path / name, SEED_HANDS, rounds_script(card), kind="cluedo_rounds")
        for name, card in (("hammer", "Молоток"), ("bedroom", "Спальня"))
    ]
    assert_same_for(worlds, [CLUEDO_EMAILS["Роза"]], "the card shown")
    pasted = [
        [normal(body(m)) for m in world if str(m["Subject"]).endswith((" — BBCode", " — Markdown"))]
        for world in worlds
    ]
    assert pasted[0] == pasted[1]
    cross = [transcript(world, CLUEDO_EMAILS["Кросс"]) for world in worlds]
    assert any("Дуг показывает вам карту «Спальня»." in t for _s, _r, t in cross[1])
    assert cross[0] != cross[1]


# --- specific secrets ---------------------------------------------------------------


def test_held_back_answers_reach_the_old_player_without_his_substitutes_address(
    tmp_path: Path,
) -> None:
    """The rate limit holds back Дуг's answers for a summary (``max_answers_per_hour``);
    meanwhile the GM gives the seat to Вова. The summary still goes to Дуг (they are
    his answers), but never with Вова's new personal address: with
    ``personal_address: subject_tag`` that address is the Subject tag, a bearer secret
    that lets its holder write for the seat (README, "Security")."""
    table = CluedoTable(
        tmp_path,
        SEED_HANDS,
        extra='day_closes: "22:30"\n',
        personal_address="subject_tag",
        mail="max_answers_per_hour: 2\n",
    )
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        old = table.token("Дуг")
        for i in range(4):  # 2 answered, the "slow down", one more held back
            table.tagged("doug@example.test", old, "СТАТУС", at=utc(2026, 12, 1, 17, 1 + 2 * i))
        table.new_mail()
        table.service.gm.substitute(
            "seed-000",
            "Дуг",
            "Вова",
            "vova@example.test",
            now=utc(2026, 12, 1, 17, 20),
            via="cli",
            note=None,
        )
        table.service.flush_outbox(utc(2026, 12, 1, 17, 20))
        new = table.token("Дуг")
        assert new != old
        briefing = [m for m in table.new_mail() if m["To"] == "vova@example.test"]
        assert f"[pbp-{new}]" in str(briefing[0]["Subject"])  # the owner has it
        table.run(utc(2026, 12, 1, 18, 5))  # the hour is over: the summary
        (summary,) = [m for m in table.new_mail() if m["To"] == "doug@example.test"]
        assert "Ваши карты: Спальня, Пистолет, Молоток." in body(summary)  # his own answers
        for text in (str(summary["Subject"]), str(summary["Reply-To"]), body(summary)):
            assert new not in text, text
    finally:
        table.close()


def probe_script(shown: str, guess: str, found: list[str]) -> Callable[[CluedoTable], None]:
    """Кросс asks Дуг, Дуг shows ``shown``. Роза has come by the Message-ID of the
    mail that told Кросс the card (a Cc of his reply, its References) and answers "it":
    her mail says In-Reply-To that Message-ID and holds a line of that mail's template
    and her ``guess`` of its other line. ``found`` gets the Message-ID."""

    def script(table: CluedoTable) -> None:
        table.move(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 1)
        )
        table.new_mail()
        table.move("Дуг", f"ОПРОВЕРЖЕНИЕ 1 {shown}", at=utc(2026, 12, 1, 17, 3))
        (told,) = [m for m in table.new_mail() if m["To"] == CLUEDO_EMAILS["Кросс"]][-1:]
        assert f"Дуг показывает вам карту «{shown}»." in body(told)
        found.append(str(told["Message-ID"]))
        table.send(
            "Роза",
            "СТАТУС",
            "",
            f"Дуг показывает вам карту «{guess}».",
            "Эту карту знаете только вы и ГМ; остальные видят лишь, что предположение "
            "опровергнуто.",
            at=utc(2026, 12, 1, 17, 5),
            headers=[("In-Reply-To", found[-1]), ("References", found[-1])],
        )
        table.run(utc(2026, 12, 1, 17, 6))

    return script


def test_a_mail_answering_another_players_mail_learns_nothing_of_it(tmp_path: Path) -> None:
    """C4: the card shown is the suggester's alone. pbp cuts a player's mail where it
    repeats the mail of ours it answers (In-Reply-To), and lists the lines it did not
    read as commands. Роза, who names the Message-ID of the mail that told Кросс his
    card, must not learn from her answer whether her guess of its text was right: the
    mail she answers is not hers, so nothing of it is used to read hers."""
    ids: list[str] = []
    worlds = [
        cluedo_world(tmp_path / name, SEED_HANDS, probe_script(shown, "Пистолет", ids))
        for name, shown in (("pistol", "Пистолет"), ("bedroom", "Спальня"))
    ]
    assert_same_for(worlds, [CLUEDO_EMAILS["Роза"]], "the card shown to Кросс")
    (reply,) = [
        m for m in worlds[0] if m["To"] == CLUEDO_EMAILS["Роза"] and m["In-Reply-To"] is not None
    ]
    assert "Ваши карты: Библиотека, Канделябр, Веревка." in body(reply)
    # Her own mail, her own lines: she sees all of them, as she wrote them.
    assert "> Дуг показывает вам карту «Пистолет»." in body(reply)


def test_nobody_but_the_seat_gets_anything_of_it_by_writing_to_its_address(
    tmp_path: Path,
) -> None:
    """A stranger, another player, the GM, a Cc to two seats, a Reply-To pointing
    elsewhere: of Кросс's seat (his hand, his personal address) only Кросс's own mail
    gets an answer that holds anything, and that answer goes to his registered address."""
    table = CluedoTable(tmp_path, SEED_HANDS, extra='day_closes: "22:30"\n')
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        cross = f"gm+{table.token('Кросс')}@example.test"
        rosa = f"gm+{table.token('Роза')}@example.test"
        at = utc(2026, 12, 1, 17, 10)
        table.send("Кросс", "СТАТУС", at=at, sender="evil@evil.test")
        table.send("Кросс", "СТАТУС", at=minute(at, 1), sender=CLUEDO_EMAILS["Роза"])
        table.send("Кросс", "СТАТУС", at=minute(at, 2), sender=GM)
        table.send(
            "Роза", "СТАТУС", at=minute(at, 3), headers=[("Cc", cross)]
        )  # To: her own, Cc: his
        table.send(
            "Кросс", "СТАТУС", at=minute(at, 4), to=f"{cross}, {rosa}", sender=CLUEDO_EMAILS["Роза"]
        )
        table.send("Кросс", "СТАТУС", at=minute(at, 5), headers=[("Reply-To", "evil@evil.test")])
        table.send(
            "Кросс",
            "СТАТУС",
            at=minute(at, 6),
            sender="evil@evil.test",
            headers=[("Sender", CLUEDO_EMAILS["Кросс"])],
        )
        table.run(minute(at, 10))
        mails = table.new_mail()
        hand = "Петя, Ваня, Нож"
        token = table.token("Кросс")
        to_cross = [m for m in mails if m["To"] == CLUEDO_EMAILS["Кросс"]]
        assert len(to_cross) == 1 and hand in body(to_cross[0])  # the Reply-To's mail
        assert to_cross[0]["Reply-To"] == cross
        for mail in mails:
            if mail["To"] == CLUEDO_EMAILS["Кросс"]:
                continue
            text = f"{mail['Subject']}\n{mail['Reply-To']}\n{body(mail)}"
            assert hand not in text, (mail["To"], text)
            assert token not in text, (mail["To"], text)
        assert not any(m["To"] == "evil@evil.test" and token in body(m) for m in mails)
        # Роза's mails were answered as hers (her hand), never as Кросс's.
        to_rosa = [body(m) for m in mails if m["To"] == CLUEDO_EMAILS["Роза"]]
        assert any("Ваши карты: Библиотека, Канделябр, Веревка." in t for t in to_rosa)
    finally:
        table.close()


def test_the_story_is_not_mailed_while_the_game_runs(tmp_path: Path) -> None:
    """The export reveals every role and order: asked for by mail (and confirmed)
    while the game runs, it is refused and nothing of it is mailed."""
    table = ManiacTable(tmp_path)
    try:
        table.run(START)
        table.move("Коля", "УБИТЬ Сашу", at=utc(2026, 12, 1, 9, 5))
        token = table.store.player_token(MANIAC_GAME, GM_SEAT)
        message = EmailMessage(policy=SMTP)
        message["From"] = GM
        message["To"] = f"gm+{token}@example.test"
        message["Subject"] = "команды"
        message["Message-ID"] = make_msgid(domain="example.test")
        message.set_content("ЭКСПОРТ markdown\n")
        deliver(table.inbox_path, bytes(message), at=utc(2026, 12, 1, 9, 10))
        table.run(utc(2026, 12, 1, 9, 11))
        (confirm,) = table.new_mail()
        reply = EmailMessage(policy=SMTP)
        reply["From"] = GM
        reply["To"] = str(confirm["Reply-To"])
        reply["Subject"] = f"Re: {confirm['Subject']}"
        reply["In-Reply-To"] = str(confirm["Message-ID"])
        reply["Message-ID"] = make_msgid(domain="example.test")
        reply.set_content("да\n")
        deliver(table.inbox_path, bytes(reply), at=utc(2026, 12, 1, 9, 12))
        assert table.run(utc(2026, 12, 1, 9, 13)) == ["gm_refused"]
        (result,) = table.new_mail()
        assert result["To"] == GM
        text = body(result)
        assert "ЭКСПОРТ markdown" in text
        for secret in ("маньяк", "Коля —", "Сашу", "Саша"):
            assert secret not in text, text
    finally:
        table.close()
