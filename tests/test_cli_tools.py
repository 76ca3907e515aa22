"""The GM's reading tools on the bundled ``games.yaml`` (issue 14, item 7).

``pbp mailbox`` reads the trial Maildir folders in the terminal (list and show,
decoded), ``pbp --version`` and ``--help`` say what a new user needs, and every
"E.g. pbp …" example in a command's help runs as written on a copy of the
bundled ``games.yaml`` once its games have started.
"""

from __future__ import annotations

import re
import shlex
import shutil
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from kits.cli import run
from kits.games import write_games_yaml
from kits.table import seed_000

from pbp.cli import main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the bundled ``games.yaml`` in an empty directory (its Maildirs and
    store are created beside it); ``PBP_CONFIG`` names it."""
    config = tmp_path / "games.yaml"
    shutil.copy(REPO / "games.yaml", config)
    monkeypatch.setenv("PBP_CONFIG", str(config))
    return config


def pbp_cli(*args: str) -> Result:
    """``pbp ARGS…`` in-process, on ``$PBP_CONFIG``."""
    return CliRunner().invoke(main, list(args))


def test_mailbox_lists_the_inbox_in_the_games_zone_and_shows_one_mail_decoded(
    bundled: Path,
) -> None:
    sent = pbp_cli(
        "mail", "--from", "netashka@example.test", "--to", "gm+abc@example.test",
        "--subject", "Ход", "--at", "2026-03-01T12:00:00+00:00", "ГОЛОС Петя", "вторая строка",
    )  # fmt: skip
    assert sent.exit_code == 0, sent.output

    listing = pbp_cli("mailbox", "inbox")
    shown = pbp_cli("mailbox", "inbox", "1")

    # 12:00 UTC is 15:00 in Europe/Moscow, the zone of the first game.
    assert listing.output == (
        "  1  2026-03-01 15:00 MSK  netashka@example.test → gm+abc@example.test  Ход\n"
    )
    assert shown.output == (
        "Date: Sun, 01 Mar 2026 12:00:00 +0000\n"
        "From: netashka@example.test\n"
        "To: gm+abc@example.test\n"
        "Subject: Ход\n"
        "\n"
        "ГОЛОС Петя\n"
        "вторая строка\n"
    )


def test_mailbox_without_mail_says_so_and_a_number_out_of_range_is_refused(
    bundled: Path,
) -> None:
    empty = pbp_cli("mailbox")
    missing = pbp_cli("mailbox", "kept", "2")

    assert (empty.exit_code, empty.output) == (0, "no mail in outbox\n")
    assert missing.exit_code == 1
    assert missing.output == "Error: no mail 2 in kept (it holds 0)\n"


def test_mailbox_outbox_to_one_player_after_the_start_lists_her_welcome_mails(
    bundled: Path,
) -> None:
    started = pbp_cli("run", "--once", "--now", "2026-03-02T09:00:00+03:00")
    assert started.exit_code == 0, started.output

    everything = pbp_cli("mailbox", "outbox")
    hers = pbp_cli("mailbox", "outbox", "--to", "netashka@example.test")
    first = pbp_cli("mailbox", "outbox", "--to", "netashka@example.test", "1")

    lines = hers.output.splitlines()
    assert all(" pbp <gm@example.test> → " in line for line in lines)
    subjects = [line.split(" → ", 1)[1] for line in lines]
    assert subjects == [
        "netashka@example.test  [exler-1] Клуэдо: ваши карты",
        "netashka@example.test  [table-1] Клуэдо: ваши карты",
    ]
    assert len(everything.output.splitlines()) > len(subjects)
    head = first.output.split("\n\n", 1)[0].splitlines()
    assert [line.split(":", 1)[0] for line in head] == ["Date", "From", "To", "Reply-To", "Subject"]
    assert head[2:5:2] == ["To: netashka@example.test", "Subject: [exler-1] Клуэдо: ваши карты"]
    # Decoded, not base64: the body is the welcome text itself.
    assert "Здравствуйте, Неташка!\n" in first.output
    assert "Ваш персонаж: Краснова." in first.output
    # BOX left out before a number is the outbox, as the usage line says.
    assert pbp_cli("mailbox", "--to", "netashka@example.test", "1").output == first.output


def test_mailbox_of_an_imap_inbox_is_refused_with_what_to_use_instead(
    bundled: Path,
) -> None:
    text = bundled.read_text(encoding="utf-8").replace(
        "inbox: {maildir: ./mail/inbox}",
        "inbox: {imap: {host: imap.example.test, port: 993, username: gm@example.test,"
        " password_env: PBP_TEST_UNSET, tls: ssl}}",
    )
    bundled.write_text(text, encoding="utf-8")

    refused = pbp_cli("mailbox", "done")

    assert refused.exit_code == 1
    assert refused.output == (
        "Error: the inbox is not a local Maildir here: read it with a mail client\n"
    )


def test_mailbox_never_follows_a_symlink_in_the_maildir(bundled: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("From: root@example.test\nSubject: secret\n\nhidden\n", encoding="utf-8")
    new = tmp_path / "mail" / "outbox" / "new"
    new.mkdir(parents=True)
    (new / "1796150086.M1P1Q1.vm").symlink_to(secret)

    listing = pbp_cli("mailbox", "outbox")

    assert listing.output == "no mail in outbox\n"


def test_version_names_the_installed_release(bundled: Path) -> None:
    shown = pbp_cli("--version")

    assert (shown.exit_code, shown.output) == (0, f"pbp {version('pbp')}\n")


def test_help_names_the_pbp_config_variable(bundled: Path) -> None:
    shown = pbp_cli("--help")

    assert "[env var: PBP_CONFIG;" in " ".join(shown.output.split())


def help_examples() -> list[tuple[str, str]]:
    """(command, example) of every "E.g. pbp …" in a command's help, as one line."""
    found = []
    for name, command in sorted(main.commands.items()):
        text = " ".join((command.help or "").split())
        for example in re.findall(r"[Ee]\.g\. (pbp .*?)\.(?:\s|$)", text):
            found.append((name, example))
    return found


def test_help_examples_are_the_ones_expected() -> None:
    assert help_examples() == [
        ("act", "pbp act exler-1 Неташка 'SUGGEST Краснова, нож, кухня TO Веталь'"),
        (
            "mail",
            "pbp mail --from a@example.test --to gm+TOKEN@example.test "
            "'SUGGEST Краснова, нож, кухня TO Веталь'",
        ),
        ("mailbox", "pbp mailbox outbox 3"),
    ]


@pytest.mark.parametrize(("command", "example"), help_examples())
def test_every_help_example_runs_as_written_on_the_bundled_games(
    bundled: Path, command: str, example: str
) -> None:
    started = pbp_cli("run", "--once")
    assert started.exit_code == 0, started.output

    args = shlex.split(example)[1:]
    ran = pbp_cli(*args)

    assert ran.exit_code == 0, ran.output
    assert not ran.output.startswith("Error")


def test_mailbox_reads_hostile_mail_with_the_bounded_reader(bundled: Path) -> None:
    """A mail of 1,000 nested message/rfc822 parts broke ``pbp mailbox`` (RecursionError
    on every later call), and one with 20,000 To addresses stalled it: both are listed,
    the first shown as too deep, the second's To cut."""
    from kits.bodyshapes import SHAPES

    from pbp.mail.maildir import deliver

    inbox = bundled.parent / "mail" / "inbox"
    (nested,) = [shape for shape in SHAPES if shape.name == "nested_rfc822"]
    deliver(inbox, nested.raw(40_000, "stranger@example.test"))
    many = ", ".join(f"p{n}@example.test" for n in range(20_000))
    # Subject above To: the header section is read to 64 KB only (HEADER_BYTES).
    deliver(inbox, f"From: s@example.test\r\nSubject: x\r\nTo: {many}\r\n\r\nhi\r\n".encode())
    listing = pbp_cli("mailbox", "inbox")
    assert listing.exit_code == 0, listing.output
    lines = listing.output.splitlines()
    assert [re.sub(r"^\s*\d+\s+\S+ \S+ \S+\s+", "", line) for line in lines] == [
        "stranger@example.test → gm+tok@example.test  move",
        "s@example.test → p0@example.test, p1@example.test …  x",
    ]
    shown = pbp_cli("mailbox", "inbox", "1")
    assert (shown.exit_code, shown.output.split("\n\n", 1)[1]) == (
        0,
        "[parts nested too deep to show]\n",
    )
    shown = pbp_cli("mailbox", "inbox", "2")
    to = [line for line in shown.output.splitlines() if line.startswith("To: ")]
    assert len(to) == 1 and len(to[0]) <= 4 + 300


def test_a_now_that_is_no_time_is_refused_in_one_line(tmp_path: Path) -> None:
    """``pbp run --once --now tomorrow``: a usage error naming the form, no traceback."""
    config = write_games_yaml(tmp_path, seed_000())
    done = run(config, "run", "--once", "--now", "tomorrow")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert (
        "Invalid value: 'tomorrow' is not a time: write it as 2026-12-01T20:00+03:00" in done.stderr
    )


def test_mailbox_to_an_address_is_that_address_not_one_that_contains_it(bundled: Path) -> None:
    """``--to olya@example.test`` listed Коля's mail to ``kolya@example.test`` too (a
    substring match): the trial's ``--last`` then showed another player's mail."""
    from pbp.mail.maildir import deliver

    inbox = bundled.parent / "mail" / "inbox"
    for to, subject in (("kolya@example.test", "his"), ("olya@example.test", "hers")):
        deliver(
            inbox, f"From: s@example.test\r\nTo: {to}\r\nSubject: {subject}\r\n\r\nhi\r\n".encode()
        )
    listing = pbp_cli("mailbox", "inbox", "--to", "OLYA@example.test")
    assert [line.rsplit("  ", 1)[1] for line in listing.output.splitlines()] == ["hers"]


def test_mail_takes_body_lines_that_start_with_a_dash_after_a_double_dash(bundled: Path) -> None:
    """``pbp mail … '-- '`` was taken for an option (click), and a bare ``--`` line was
    swallowed as the end of options: the README's signature example delivered no
    signature. After ``--`` every line is the body's, the first dash line included."""
    done = pbp_cli(
        "mail", "--from", "a@example.test", "--to", "gm@example.test",
        "--", "ГОЛОС Петя", "-- ", "Таня", "-----Original Message-----",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    listing = pbp_cli("mailbox", "inbox", "1")
    assert (
        listing.output.split("\n\n", 1)[1] == "ГОЛОС Петя\n-- \nТаня\n-----Original Message-----\n"
    )
