"""A new game is one package and one registry line (issue 15): the guessing game of
``tests/guessgame`` (rules G1–G4 there) is registered here and played by mail through
the real service and the real CLI, in process, with nothing changed outside it. A kind
writes only the abstract members of :class:`pbp.games.core.kind.GameKind` (issue 35): the
base's defaults are a game with no deadlines, one period and no private mails."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import guessgame
import pytest
from click.testing import CliRunner
from guessgame import engine
from guessgame.config import GuessGame
from guessgame.engine import Guess, GuessState
from guessgame.kind import GUESS
from guessgame.parse import GuessMove, parse_guess

from pbp.cli import main
from pbp.games.core import registry
from pbp.games.core.events import Event, IllegalMove, Step, Visibility, event_dict
from pbp.games.core.kind import GameKind, Outstanding, ParsedCommand
from pbp.games.core.registry import KINDS
from pbp.text import catalogs
from pbp.text.render import Renderer

REPO = Path(__file__).resolve().parent.parent

GAMES_YAML = """\
mail:
  address: gm@example.test
  personal_address: plus
  inbox: {maildir: ./mail/inbox}
  outbox: {maildir: ./mail/outbox}
store: ./pbp.sqlite3
games:
  - id: guess-1
    kind: guess
    locale: en
    timezone: Europe/Berlin
    gm: gm-person@example.test
    seed: 7
    high: 20
    players:
      - {name: Alice, email: alice@example.test}
      - {name: Bob, email: bob@example.test}
"""


@pytest.fixture
def guess() -> Iterator[None]:
    registry.register(GUESS)
    yield
    registry.unregister("guess")


def pbp(directory: Path, *args: str) -> str:
    """``pbp -c games.yaml ARGS…`` in process; its output. Fails on a non-zero exit."""
    result = CliRunner().invoke(main, ["-c", str(directory / "games.yaml"), *args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


class Outbox:
    """The mails pbp sent to the Maildir outbox, each read once."""

    def __init__(self, directory: Path) -> None:
        self.new = directory / "mail" / "outbox" / "new"
        self.seen: set[str] = set()

    def fresh(self) -> list[EmailMessage]:
        """The mails sent since the last call."""
        parser = BytesParser(policy=policy.default)
        files = [f for f in sorted(self.new.iterdir()) if f.name not in self.seen]
        self.seen.update(f.name for f in files)
        return [parser.parsebytes(f.read_bytes()) for f in files]


def to(messages: list[EmailMessage], address: str) -> list[EmailMessage]:
    return [m for m in messages if m["To"] == address]


def text(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    content: str = part.get_content()
    return content.replace("\r\n", "\n")


def test_a_game_of_its_own_package_is_checked_played_and_posted_by_pbp(
    tmp_path: Path, guess: None
) -> None:
    (tmp_path / "games.yaml").write_text(GAMES_YAML, encoding="utf-8")
    assert pbp(tmp_path, "check") == f"{tmp_path}/games.yaml: OK: guess-1 (guess, 2 players)\n"
    outbox = Outbox(tmp_path)
    pbp(tmp_path, "run", "--once", "--now", "2026-12-01T10:00:00+00:00")
    sent = outbox.fresh()
    (sheet,) = [m for m in to(sent, "gm-person@example.test") if "the secret" in m["Subject"]]
    assert sheet["Subject"].startswith("[guess-1] GM only: the secret")
    # rule G1: from the seed; after the line naming the game, as every mail of pbp
    assert text(sheet).startswith("Game: guess-1\n\nThe secret is 11 (seed 7).")
    welcome = {m["To"]: m for m in sent if m["Subject"].startswith("[guess-1] Guess the number")}
    assert sorted(welcome) == ["alice@example.test", "bob@example.test"]
    alice = str(welcome["alice@example.test"]["Reply-To"])
    bob = str(welcome["bob@example.test"]["Reply-To"])

    at = "2026-12-01T11:00:00+00:00"
    pbp(tmp_path, "mail", "--from", "alice@example.test", "--to", alice, "--at", at, "GUESS 4")
    pbp(tmp_path, "mail", "--from", "bob@example.test", "--to", bob, "--at", at, "GUESS 25")
    pbp(tmp_path, "run", "--once", "--now", "2026-12-01T11:01:00+00:00")
    replies = outbox.fresh()
    (to_alice,) = to(replies, "alice@example.test")
    assert "> GUESS 4\n4 is wrong: the secret is higher.\n" in text(to_alice)  # rule G2
    assert "For the forum: Alice guesses [b]4[/b]: wrong." in text(to_alice)
    (to_bob,) = to(replies, "bob@example.test")
    # rule G4; Bob is not told Alice's hint (G2: it is hers alone)
    assert "25 is not from 1 to 20: guess a number from 1 to 20." in text(to_bob)
    assert "higher" not in text(to_bob)

    at = "2026-12-01T12:00:00+00:00"
    pbp(tmp_path, "mail", "--from", "bob@example.test", "--to", bob, "--at", at, "GUESS 11")
    pbp(tmp_path, "run", "--once", "--now", "2026-12-01T12:01:00+00:00")
    after = outbox.fresh()
    assert "11 is right: you win!" in text(to(after, "bob@example.test")[0])  # rule G3
    over = [m for m in after if m["Subject"] == "[guess-1] Game over"]
    assert sorted(m["To"] for m in over) == ["alice@example.test", "bob@example.test"]
    assert pbp(tmp_path, "post", "guess-1", "--which", "final") == (
        "[b]Game over[/b]\nBob guessed the secret: [b]11[/b].\n"
    )
    assert pbp(tmp_path, "show", "guess-1").splitlines()[0] == (
        "Secret: 11. Guesses: Alice 4, Bob 11."
    )
    # The story: the kind tells its events (guess/parts/story_line.j2), pbp the end
    # (game_over with a winner), and an event neither tells is named by its kind.
    # The story: the kind tells its own events (guess/parts/story_line.j2), pbp the end
    # (a game_over with a winner), and an event neither tells is named by its kind.
    story = pbp(tmp_path, "export", "guess-1").splitlines()
    assert [line.split(" · ", 2)[2] for line in story if line.startswith("- ")] == [
        "secret.",
        "the game starts: Alice, Bob, a number from 1 to 20.",
        "Alice guesses **4**.",
        "Alice is told: higher.",
        "the game is over: the winner is Bob.",
    ]


def test_a_game_outside_pbp_brings_its_own_catalog(guess: None) -> None:
    """A game's translations in its own package (``GameKind.catalogs``): the guessing
    game's Russian catalog gives its refusal in Russian; pbp's shared texts still come
    from pbp's catalog, and English is the message itself."""
    renderer = Renderer(REPO / "templates", kinds=KINDS)
    said = renderer.error("guess_syntax", {}, locale="ru", kind="guess")
    assert said == "Напишите GUESS и целое число, например: GUESS 7."
    english = renderer.error("guess_syntax", {}, locale="en", kind="guess")
    assert english == "Write GUESS and a whole number, for example: GUESS 7."
    pbps = renderer.error("no_command", {}, locale="ru", kind="guess")
    assert pbps == renderer.error("no_command", {}, locale="ru")
    assert pbps.startswith("В письме не найдено ни одной команды.")


def test_a_games_own_catalog_with_an_unknown_placeholder_fails_pbp_check(
    tmp_path: Path,
) -> None:
    """Found by a hostile tester: only pbp's catalogs were checked, so a game's own
    msgstr naming a placeholder its msgid lacks passed ``pbp check`` and crashed its
    mail at render time."""
    package = tmp_path / "package"
    shutil.copytree(Path(guessgame.__file__).parent, package)
    po = package / "locale" / "ru" / "LC_MESSAGES" / "guess.po"
    good = po.read_text(encoding="utf-8")
    bad = good.replace('msgstr "Напишите GUESS', 'msgstr "Напишите %(число)s GUESS')
    assert bad != good
    po.write_text(bad, encoding="utf-8")
    kind = copy.copy(GUESS)
    kind.catalogs = package / "locale"
    assert catalogs.problems({"guess": kind}) != []
    registry.register(kind)
    try:
        (tmp_path / "games.yaml").write_text(GAMES_YAML, encoding="utf-8")
        result = CliRunner().invoke(main, ["-c", str(tmp_path / "games.yaml"), "check"])
    finally:
        registry.unregister("guess")
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    assert line.startswith(f"error: {po}:")
    assert "cannot be filled" in line and "число" in line


def test_an_unregistered_kind_is_an_unknown_kind_for_pbp_check(tmp_path: Path) -> None:
    (tmp_path / "games.yaml").write_text(GAMES_YAML, encoding="utf-8")
    result = CliRunner().invoke(main, ["-c", str(tmp_path / "games.yaml"), "check"])
    assert result.exit_code == 1
    assert result.output == (
        f"{tmp_path}/games.yaml:9: games[0].kind: unknown kind 'guess' "
        f"(known: {', '.join(map(repr, registry.names()))})\n"
    )


def test_a_new_games_model_checks_its_players_as_every_game_does(
    tmp_path: Path, guess: None
) -> None:
    """GameBase.player_problems: a name twice and a player at the GM's address are
    refused for a game of its own package, each at its line."""
    text = GAMES_YAML.replace(
        "{name: Bob, email: bob@example.test}", "{name: Alice, email: gm-person@example.test}"
    )
    (tmp_path / "games.yaml").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["-c", str(tmp_path / "games.yaml"), "check"])
    assert result.exit_code == 1
    assert result.output == (
        f"{tmp_path}/games.yaml:17: games[0].players[1].email: 'gm-person@example.test' is "
        "the GM's address: a player needs one of his own\n"
        f"{tmp_path}/games.yaml:17: games[0].players[1].name: duplicate name 'Alice' "
        "(also players[0])\n"
    )


class Bare(GameKind[GuessState, GuessMove, GuessGame]):
    """The guessing game written with only what every kind must write: the base's
    defaults do the rest (no deadlines, one period, no private mails, no post views)."""

    kind = "guess"
    config_model = GuessGame

    def start(self, game: GuessGame, seed: int, salt: bytes, at: datetime) -> Step[GuessState]:
        return engine.start(game.id, tuple(game.player_names()), game.high, seed)

    def load(self, data: Mapping[str, Any]) -> GuessState:
        return engine.load_state(data)

    def dump(self, state: GuessState) -> dict[str, Any]:
        return engine.dump_state(state)

    def parse(
        self, text: str, state: GuessState, aliases: Mapping[str, str] | None = None
    ) -> list[ParsedCommand[GuessMove]]:
        return parse_guess(text)

    def apply(
        self, state: GuessState, player: str, move: GuessMove, at: datetime
    ) -> Step[GuessState]:
        assert isinstance(move, Guess)
        return engine.apply(state, player, move, at)

    def is_over(self, state: GuessState) -> bool:
        return state.winner is not None

    def players(self, state: GuessState) -> list[str]:
        return list(state.players)

    def status(
        self, game: GuessGame, state: GuessState, player: str, deadline: datetime | None
    ) -> dict[str, Any]:
        return engine.status(state, player)

    def gm_view(self, state: GuessState, deadline: datetime | None = None) -> dict[str, Any]:
        guesses = [{"player": p, "number": n} for p, n, _at in state.guesses]
        return {"secret": state.secret, "guesses": guesses}


@pytest.fixture
def bare(tmp_path: Path) -> Iterator[Bare]:
    """:class:`Bare` registered, with the guessing game's texts but the opening and final
    posts, which lay out their events (the default view of a post is ``{}``)."""
    texts = tmp_path / "texts"
    shutil.copytree(Path(guessgame.__file__).parent / "templates", texts)
    posts = texts / "posts"
    (posts / "opening.j2").write_text(
        '{% for e in events if e.kind == "game_started" %}'
        '{{ ("Guess the number from 1 to " ~ e.data.high)|b }}{% endfor %}',
        encoding="utf-8",
    )
    (posts / "final.j2").write_text(
        '{{ "Game over"|b }}{{ br }}{% for e in events if e.kind == "game_over" %}'
        "{{ e.data.winner }} guessed the secret: {{ e.data.secret|b }}.{% endfor %}",
        encoding="utf-8",
    )

    class BareWithTexts(Bare):
        templates = (texts,)

    kind = BareWithTexts()
    registry.register(kind)
    yield kind
    registry.unregister("guess")


def test_a_kind_of_only_the_abstract_members_is_registered_and_played(
    tmp_path: Path, bare: Bare
) -> None:
    (tmp_path / "games.yaml").write_text(GAMES_YAML, encoding="utf-8")
    assert pbp(tmp_path, "check") == f"{tmp_path}/games.yaml: OK: guess-1 (guess, 2 players)\n"
    outbox = Outbox(tmp_path)
    pbp(tmp_path, "run", "--once", "--now", "2026-12-01T10:00:00+00:00")
    sent = outbox.fresh()
    (sheet,) = [m for m in to(sent, "gm-person@example.test") if "the secret" in m["Subject"]]
    assert text(sheet).startswith("Game: guess-1\n\nThe secret is 11 (seed 7).")  # rule G1
    welcome = {m["To"]: m for m in sent if m["Subject"].startswith("[guess-1] Guess the number")}
    assert sorted(welcome) == ["alice@example.test", "bob@example.test"]
    alice = str(welcome["alice@example.test"]["Reply-To"])
    bob = str(welcome["bob@example.test"]["Reply-To"])

    at = "2026-12-01T11:00:00+00:00"
    pbp(tmp_path, "mail", "--from", "alice@example.test", "--to", alice, "--at", at, "GUESS 4")
    pbp(tmp_path, "run", "--once", "--now", "2026-12-01T11:01:00+00:00")
    (to_alice,) = to(outbox.fresh(), "alice@example.test")
    # rule G2, the move's events as they are (the default reply_events)
    assert "> GUESS 4\n4 is wrong: the secret is higher.\n" in text(to_alice)

    at = "2026-12-01T12:00:00+00:00"
    pbp(tmp_path, "mail", "--from", "bob@example.test", "--to", bob, "--at", at, "GUESS 11")
    pbp(tmp_path, "run", "--once", "--now", "2026-12-01T12:01:00+00:00")
    after = outbox.fresh()
    assert "11 is right: you win!" in text(to(after, "bob@example.test")[0])  # rule G3
    # No private mails by default: nobody is mailed the end of the game.
    assert [m for m in after if m["Subject"] == "[guess-1] Game over"] == []
    assert pbp(tmp_path, "post", "guess-1", "--which", "final") == (
        "[b]Game over[/b]\nBob guessed the secret: [b]11[/b].\n"
    )
    assert pbp(tmp_path, "show", "guess-1").splitlines()[0] == (
        "Secret: 11. Guesses: Alice 4, Bob 11."
    )


def test_a_kind_that_leaves_out_an_abstract_member_cannot_be_made() -> None:
    class NoViews(GameKind[Any, Any, Any]):
        kind = "no_views"
        config_model = GuessGame

    with pytest.raises(TypeError, match="abstract"):
        NoViews()  # type: ignore[abstract]
    assert GameKind.__abstractmethods__ == {
        "kind",
        "config_model",
        "start",
        "load",
        "dump",
        "parse",
        "apply",
        "is_over",
        "players",
        "status",
        "gm_view",
    }


def test_the_defaults_are_a_game_without_deadlines_periods_or_private_mails() -> None:
    """What the daemon gets from a kind that overrides nothing (:class:`Bare`)."""
    kind = Bare()
    game = GuessGame.model_validate(
        {
            "id": "guess-1",
            "kind": "guess",
            "locale": "en",
            "timezone": "Europe/Berlin",
            "gm": "gm-person@example.test",
            "players": [{"name": "Alice", "email": "alice@example.test"}],
        }
    )
    at = datetime(2026, 12, 1, 10, tzinfo=UTC)
    started = kind.start(game, 7, b"salt", at)
    state = started.state
    public = [e for e in started.events if e.visibility is Visibility.PUBLIC]
    private = [{"kind": "secret", "visibility": "gm", "player": None, "secret": 2}]
    assert kind.templates == (Path("guess"),)  # templates/guess/ in the renderer's tree
    assert kind.period_post == "day"
    assert kind.extra_posts == ()
    assert kind.own_period_posts == ()
    assert kind.deadline_names == ()
    assert kind.deadline_commands == ()
    assert kind.mail_context(game) == {}
    assert kind.day(state) == 1
    assert kind.posts(state, started) == []
    with pytest.raises(LookupError) as no_post:
        kind.extra_post_number("evening", None, state)
    assert no_post.value.args == ("no evening posts",)
    assert kind.post_view("opening", public, None) == {}
    assert kind.post_view("help", public, None) == {}
    assert kind.gm_facts("final", 1, private) == private
    assert kind.first_deadline(game, state, at) is None
    assert kind.next_deadline(game, state, at, at) is None
    assert kind.shift_deadline(state, timedelta(hours=2)) is state
    assert kind.deadline_name(state) == "none"
    assert kind.on_deadline(state, at) == Step(state, [])

    def unread() -> list[Event]:
        raise AssertionError("the log is not read")

    assert kind.with_history(state, unread) is state
    with pytest.raises(IllegalMove) as removed:
        kind.remove(state, "Alice", at)
    assert (removed.value.code, removed.value.params) == ("gm_unsupported", {"lever": "remove"})
    with pytest.raises(IllegalMove) as voided:
        kind.void(state, started.events[0], at)
    assert (voided.value.code, voided.value.params) == (
        "void_kind",
        {"kind": "secret", "allowed": []},
    )
    moved = kind.apply(state, "Alice", Guess(1), at)
    assert kind.reply_events(game, moved.state, moved.events, "Alice", None) == [
        event_dict(e) for e in moved.events
    ]
    assert kind.duties(state, "Alice", at) is None
    assert kind.outstanding(state, at) == Outstanding()
    assert kind.outstanding(state, at).owed == ()
    assert kind.notifications(game, moved.state, moved.events, None) == []
