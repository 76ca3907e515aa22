"""games.yaml is read as a file, not as anything (issue 32, item 3): a regular file (a
symlink to one is fine) of at most ``--max-config-bytes`` (1 MiB), its YAML within
bounds (an alias bomb, a loop of aliases, a nesting 50 deep are refused while the
parser's events come, before anything is built). At start: one line, exit 1. On a
reload (SIGHUP, through a real ``pbp run``): one ERROR line, the daemon goes on with
the old configuration and answers mail; a FIFO in place of the file never blocks it.

The fault: an alias bomb plus SIGHUP grew the daemon's memory to 17 GB (with a 4 GB
cap: a ``MemoryError`` traceback, the daemon dead) and mail stopped; a FIFO blocked the
reload, under the writer lock, for good.
"""

from __future__ import annotations

import os
import re
import signal
import time
import tracemalloc
from email.message import EmailMessage
from email.utils import make_msgid
from functools import partial
from pathlib import Path

import pytest
from kits.cli import pbp
from kits.daemon import DaemonProcess, run_pbp
from kits.table import write_config
from kits.wait import wait_for

from pbp.app.daemon import Daemon
from pbp.cli import _service
from pbp.config.loading import DEFAULT_MAX_CONFIG_BYTES, ConfigError, Problem, load_config
from pbp.games.core import yamlmarks
from pbp.mail.maildir import deliver, read_maildir

STAMP = re.compile(r"^\S+ \S+ ")


def billion_laughs() -> str:
    """The classic alias bomb: 747 bytes that stand for 10**9 "lol" (nine levels of ten
    aliases of the level below)."""
    lines = ["lol1: &lol1 [" + ", ".join(['"lol"'] * 10) + "]"]
    lines += [f"lol{k}: &lol{k} [" + ", ".join([f"*lol{k - 1}"] * 10) + "]" for k in range(2, 10)]
    return "\n".join(lines) + "\n"


#: Where the bomb is refused: its line 6 (lol6) would take the count of nodes, keys
#: included, from 123,460 to 1,234,572, over 262,144 (a node per 4 bytes of 1 MiB).
BOMB = (
    "6: the document holds more than 262,144 nodes (values, keys, lists, mappings) with "
    "its aliases expanded (an alias bomb?)"
)
DEEP = "1: the document nests lists and mappings more than 50 deep"
LOOP = "2: the alias *a stands inside the node it names (a loop)"
FIFO = ": cannot read the file: it is a FIFO (a named pipe), not a regular file"
DIRECTORY = ": cannot read the file: it is a directory, not a regular file"
LARGE = (
    ": cannot read the file: it holds 1,048,577 bytes, over the limit of 1,048,576 bytes "
    "(--max-config-bytes)"
)


def deep_nesting() -> str:
    """``games: [[[[…]]]]`` 5,000 deep: PyYAML's composer recursed into a RecursionError."""
    return "games: " + "[" * 5000 + "]" * 5000 + "\n"


def too_large(text: str) -> bytes:
    """``text`` padded by a comment to one byte over the default limit (1 MiB)."""
    data = text.encode("utf-8")
    return data + b"#" + b"x" * (DEFAULT_MAX_CONFIG_BYTES - len(data) - 1) + b"\n"


@pytest.mark.parametrize("parser", ["libyaml", "python"])
def test_alias_bomb_is_refused_in_a_millisecond_and_kilobytes(
    parser: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bomb that grew the daemon to 17 GB: refused at the 1,234,572nd node of its
    count, with ~70 KB allocated at the peak, libyaml's parser or PyYAML's own. Its time
    is this thread's CPU time, which a busy machine does not stretch (issue 35, item 7)."""
    if parser == "python":
        monkeypatch.setattr(yamlmarks, "_FastLoader", None)
    path = tmp_path / "games.yaml"
    path.write_text(billion_laughs(), encoding="utf-8")
    tracemalloc.start()
    started = time.thread_time()
    try:
        with pytest.raises(ConfigError) as refused:
            load_config(path)
        seconds = time.thread_time() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    line, said = BOMB.split(": ", 1)
    assert refused.value.problems == [Problem(str(path), "", int(line), said)]
    assert seconds < 0.5, seconds
    assert peak < 1_000_000, peak


@pytest.mark.parametrize("parser", ["libyaml", "python"])
@pytest.mark.parametrize(
    ("text", "said"),
    [(billion_laughs(), BOMB), (deep_nesting(), DEEP), ("a: 1\nb: &a [1, *a]\n", LOOP)],
    ids=["alias-bomb", "deep-nesting", "alias-loop"],
)
def test_a_bomb_a_deep_nesting_or_a_loop_in_games_yaml_is_one_line_at_start(
    parser: str, text: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pbp check`` and ``pbp run``: the file and line, why, exit 1 — no traceback
    (deep nesting was PyYAML's RecursionError; a loop of aliases recursed for ever)."""
    if parser == "python":
        monkeypatch.setattr(yamlmarks, "_FastLoader", None)
    config = tmp_path / "games.yaml"
    config.write_text(text, encoding="utf-8")
    for command in (["check"], ["run", "--once"]):
        result = pbp(config, *command)
        assert (result.code, result.out, result.err) == (1, [], [f"{config}:{said}"])


def test_fifo_in_place_of_games_yaml_is_refused_at_start_without_blocking(
    tmp_path: Path,
) -> None:
    """Nobody writes into the FIFO: opening it for reading used to wait for a writer
    for good. A process of its own, so that a block is a timeout, not a hung suite."""
    config = tmp_path / "games.yaml"
    os.mkfifo(config)
    for command in (["check"], ["run"]):
        done = run_pbp(config, *command, timeout=30)
        assert (done.returncode, done.stdout, done.stderr) == (1, "", f"{config}{FIFO}\n")


def test_directory_in_place_of_games_yaml_is_one_line_at_start(tmp_path: Path) -> None:
    config = tmp_path / "games.yaml"
    config.mkdir()
    result = pbp(config, "check")
    assert (result.code, result.out, result.err) == (1, [], [f"{config}{DIRECTORY}"])


def test_games_yaml_over_the_size_limit_is_refused_and_the_flag_raises_the_limit(
    tmp_path: Path,
) -> None:
    """1 MiB + 1 byte (a long comment): refused by every command, before any YAML is
    read; ``--max-config-bytes`` (``pbp check``, ``pbp run``) and its environment
    variable (every command) let it in."""
    config = write_config(tmp_path, start=None)
    config.write_bytes(too_large(config.read_text(encoding="utf-8")))
    for command in (["check"], ["run", "--once"], ["games"]):
        result = pbp(config, *command)
        assert (result.code, result.out, result.err) == (1, [], [f"{config}{LARGE}"])
    assert pbp(config, "check", "--max-config-bytes", "1048577").code == 0
    assert pbp(config, "games", env={"PBP_MAX_CONFIG_BYTES": "1048577"}).code == 0
    small = pbp(config, "check", "--max-config-bytes", "1000")
    assert small.err == [
        f"{config}: cannot read the file: it holds 1,048,577 bytes, over the limit of "
        "1,000 bytes (--max-config-bytes)"
    ]
    wrong = pbp(config, "games", env={"PBP_MAX_CONFIG_BYTES": "1MB"})
    assert (wrong.code, wrong.err[-1]) == (
        2,
        "Error: Invalid value for PBP_MAX_CONFIG_BYTES: '1MB' is not a positive number of bytes",
    )


def test_games_yaml_longer_than_its_size_says_is_read_no_further_than_the_limit(
    tmp_path: Path,
) -> None:
    """A file of /proc claims 0 bytes: at most the limit and one byte are read."""
    config = tmp_path / "games.yaml"
    config.symlink_to("/proc/self/cmdline")
    result = pbp(config, "check", "--max-config-bytes", "10")
    assert (result.code, result.err) == (
        1,
        [
            f"{config}: cannot read the file: it holds more than the limit of 10 bytes "
            "(--max-config-bytes)"
        ],
    )


def test_a_file_of_many_bad_games_lists_the_first_100_problems_and_says_there_are_more(
    tmp_path: Path,
) -> None:
    """250,000 bad games made 250,000 lines (30 MB in one ERROR line on a reload)."""
    config = write_config(tmp_path, start=None)
    text = config.read_text(encoding="utf-8")
    config.write_text(text + "".join(f"  - game-{n}\n" for n in range(300)), "utf-8")
    result = pbp(config, "check")
    assert (result.code, len(result.err)) == (1, 101)
    assert result.err[-1] == f"{config}: more problems not listed (only the first 100)"


def test_a_symlink_to_a_regular_games_yaml_is_read(tmp_path: Path) -> None:
    real = write_config(tmp_path, start=None)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    result = pbp(link, "check")
    assert (result.code, result.out) == (0, [f"{link}: OK: seed-000 (cluedo_days, 3 players)"])


def install(config: Path, shape: str, original: str) -> None:
    """Put ``shape`` in place of ``config`` (whatever is there now)."""
    if config.is_dir():
        config.rmdir()
    else:
        config.unlink()
    if shape == "alias bomb":
        config.write_text(billion_laughs(), encoding="utf-8")
    elif shape == "fifo":
        os.mkfifo(config)
    elif shape == "directory":
        config.mkdir()
    elif shape == "too large":
        config.write_bytes(too_large(original))
    else:
        config.write_text(deep_nesting(), encoding="utf-8")


def refusals_are(daemon: DaemonProcess, count: int) -> bool:
    """Whether ``daemon`` logged ``count`` refused reloads so far."""
    return daemon.output().count("not reloaded") == count


def peak_memory(pid: int) -> int:
    """The peak resident set of process ``pid``, bytes (``VmHWM``)."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    found = re.search(r"^VmHWM:\s+(\d+) kB$", status, re.M)
    assert found is not None, status
    return int(found.group(1)) * 1024


def test_reload_of_an_alias_bomb_a_fifo_a_directory_a_large_or_deep_file_is_one_error_line(
    tmp_path: Path,
) -> None:
    """SIGHUP after each shape in place of games.yaml: one ERROR line each, at once (a
    FIFO does not block), the daemon's memory stays small, and afterwards a player's
    STATUS is answered by the game of the old configuration."""
    config = write_config(tmp_path, start="2026-12-01T00:00")
    original = config.read_text(encoding="utf-8")
    outbox = tmp_path / "mail" / "outbox"
    daemon = DaemonProcess(config)
    shapes = ["alias bomb", "fifo", "directory", "too large", "deep nesting"]
    try:
        wait_for(lambda: len(read_maildir(outbox)) == 5, 30, daemon.output)  # the deal
        for count, shape in enumerate(shapes, start=1):
            install(config, shape, original)
            daemon.signal(signal.SIGHUP)
            wait_for(partial(refusals_are, daemon, count), 30, daemon.output)
        peak = peak_memory(daemon.process.pid)
        welcome = read_maildir(outbox)[0]
        status = EmailMessage()
        status["From"] = str(welcome["To"])
        status["To"] = str(welcome["Reply-To"])
        status["Subject"] = "ход"
        status["Message-ID"] = make_msgid(domain="example.test")
        status.set_content("СТАТУС\n")
        deliver(tmp_path / "mail" / "inbox", bytes(status))
        wait_for(lambda: len(read_maildir(outbox)) == 6, 30, daemon.output)
        assert daemon.process.poll() is None
    finally:
        daemon.stop()
    answer = read_maildir(outbox)[5]
    assert str(answer["To"]) == str(welcome["To"])
    assert "[seed-000]" in str(answer["Subject"])
    assert peak < 300_000_000, peak  # a few hundred bytes used to take 17 GB
    output = daemon.output()
    assert "Traceback" not in output
    lines = [STAMP.sub("", line) for line in output.splitlines()]
    errors = [line for line in lines if line.startswith(("ERROR", "WARNING", "CRITICAL"))]
    not_reloaded = (
        f"ERROR pbp.app.daemon: {config} not reloaded, going on with the old one: {config}"
    )
    assert errors == [
        f"{not_reloaded}:{BOMB}",
        f"{not_reloaded}{FIFO}",
        f"{not_reloaded}{DIRECTORY}",
        f"{not_reloaded}{LARGE}",
        f"{not_reloaded}:{DEEP}",
    ]


@pytest.mark.parametrize(
    ("error", "said"),
    [(MemoryError, "memory"), (RecursionError, "stack (too deep a recursion)")],
)
def test_memory_or_recursion_error_on_reload_is_one_error_line_and_the_old_config_stays(
    error: type[BaseException],
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """What the bounds should never let happen (a 4 GB cap once ended the daemon in a
    MemoryError traceback) is one ERROR line all the same."""
    config = write_config(tmp_path, start=None)
    service = _service(load_config(config), create=True)
    old = service.config
    daemon = Daemon(service)

    def fails(path: Path, max_bytes: int) -> None:
        raise error

    monkeypatch.setattr("pbp.app.daemon.load_config", fails)
    try:
        assert daemon.reload() is False
    finally:
        service.store.close()
    assert service.config is old
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ERROR", f"{config} not reloaded, going on with the old one: reading it ran out of {said}")
    ]


#: A games.yaml that killed a running ``pbp run`` on SIGHUP with a traceback (the
#: hostile pass of issue 32): a NUL or an ESC, even in a comment (PyYAML's ReaderError),
#: the file a symlink to /proc/self/environ (NULs), a time zone of 5,000 letters
#: (zoneinfo's OSError "File name too long"), a reminder of 1e300 hours (it passed
#: ``pbp check``, then the plan's OverflowError).
KILLERS = ["nul", "esc", "environ", "long timezone", "huge reminder"]


def install_killer(config: Path, shape: str, original: str) -> None:
    """Put the games.yaml of ``shape`` (:data:`KILLERS`) in place of ``config``."""
    config.unlink()
    if shape == "environ":
        config.symlink_to("/proc/self/environ")
        return
    text = {
        "nul": "# \x00\n" + original,
        "esc": original.replace("store:", "# \x1b[31m red\nstore:"),
        "long timezone": original.replace("Europe/Moscow", "A" * 5000),
        "huge reminder": original.replace(
            "    players:", "    remind_hours_before: 1e300\n    players:"
        ),
    }[shape]
    assert text != original
    config.write_text(text, encoding="utf-8")


def line_of(text: str, part: str) -> int:
    """The 1-based line of ``text`` where ``part`` first stands."""
    return text[: text.index(part)].count("\n") + 1


def test_reload_of_a_nul_an_esc_proc_environ_a_long_timezone_or_a_huge_reminder_is_one_error_line(
    tmp_path: Path,
) -> None:
    """Each shape, then SIGHUP: one ERROR line saying the line and why, the daemon alive;
    afterwards a player's STATUS is answered by the game of the old configuration."""
    config = write_config(tmp_path, start="2026-12-01T00:00")
    original = config.read_text(encoding="utf-8")
    outbox = tmp_path / "mail" / "outbox"
    daemon = DaemonProcess(config)
    try:
        wait_for(lambda: len(read_maildir(outbox)) == 5, 30, daemon.output)  # the deal
        environ = Path(f"/proc/{daemon.process.pid}/environ").read_bytes().decode("utf-8")
        for count, shape in enumerate(KILLERS, start=1):
            install_killer(config, shape, original)
            daemon.signal(signal.SIGHUP)
            wait_for(partial(refusals_are, daemon, count), 30, daemon.output)
            config.unlink()
            config.write_text(original, encoding="utf-8")
        welcome = read_maildir(outbox)[0]
        status = EmailMessage()
        status["From"] = str(welcome["To"])
        status["To"] = str(welcome["Reply-To"])
        status["Subject"] = "ход"
        status["Message-ID"] = make_msgid(domain="example.test")
        status.set_content("СТАТУС\n")
        deliver(tmp_path / "mail" / "inbox", bytes(status))
        wait_for(lambda: len(read_maildir(outbox)) == 6, 30, daemon.output)
        assert daemon.process.poll() is None
    finally:
        daemon.stop()
    answer = read_maildir(outbox)[5]
    assert str(answer["To"]) == str(welcome["To"])
    assert "[seed-000]" in str(answer["Subject"])
    output = daemon.output()
    assert "Traceback" not in output
    lines = [STAMP.sub("", line) for line in output.splitlines()]
    errors = [line for line in lines if line.startswith(("ERROR", "WARNING", "CRITICAL"))]
    not_reloaded = (
        f"ERROR pbp.app.daemon: {config} not reloaded, going on with the old one: {config}"
    )
    forbidden = "is not allowed in YAML, not even in a comment: remove it"
    first_nul = environ.count("\n", 0, environ.index("\x00")) + 1
    assert errors == [
        f"{not_reloaded}:1: the character U+0000 {forbidden}",
        f"{not_reloaded}:{line_of(original, 'store:')}: the character U+001B {forbidden}",
        f"{not_reloaded}:{first_nul}: the character U+0000 {forbidden}",
        f"{not_reloaded}:{line_of(original, 'timezone:')}: games[0].timezone: a time zone name "
        "of 5,000 characters: IANA names have at most 64 (such as 'Europe/Moscow')",
        f"{not_reloaded}:{line_of(original, '    players:')}: games[0].remind_hours_before: "
        "1e+300 hours is more than 8784 (366 days): give fewer",
    ]


def test_a_failing_plan_on_reload_is_one_error_line_and_the_old_config_and_jobs_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Whatever fails while the new configuration's jobs are planned (an OverflowError
    killed the daemon after ``pbp check`` said OK) is one ERROR line, and nothing of the
    new configuration is used: the plan is made before the swap."""
    config = write_config(tmp_path, start="2099-12-01T20:00")
    service = _service(load_config(config), create=True)
    old = service.config
    daemon = Daemon(service)
    try:
        daemon.schedule()
        planned = dict(daemon._planned)
        assert list(planned) == ["start:seed-000"]

        def overflows(games: object) -> None:
            raise OverflowError("date value out of range")

        monkeypatch.setattr(daemon, "_plan", overflows)
        assert daemon.reload() is False
        assert service.config is old
        assert daemon._planned == planned
        assert daemon.scheduler.get_job("start:seed-000") is not None
    finally:
        service.store.close()
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "ERROR",
            f"{config} not reloaded, going on with the old one: OverflowError: date value "
            "out of range",
        )
    ]
