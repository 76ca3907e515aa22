"""A new game is one package and one registry line (issue 15): the guessing game of
``tests/guessgame`` (rules G1–G4 there) is registered here and played by mail through
the real service and the real CLI, in process, with nothing changed outside it."""

from __future__ import annotations

from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from guessgame.kind import GUESS

from pbp.cli import main
from pbp.games.core import registry

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


def test_an_unregistered_kind_is_an_unknown_kind_for_pbp_check(tmp_path: Path) -> None:
    (tmp_path / "games.yaml").write_text(GAMES_YAML, encoding="utf-8")
    result = CliRunner().invoke(main, ["-c", str(tmp_path / "games.yaml"), "check"])
    assert result.exit_code == 1
    assert result.output == (
        f"{tmp_path}/games.yaml:9: games[0].kind: unknown kind 'guess' "
        "(known: 'cluedo_days', 'cluedo_rounds', 'maniac')\n"
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
