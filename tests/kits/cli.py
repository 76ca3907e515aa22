"""The ``pbp`` command line in this process (click's ``CliRunner``), as a subprocess sees it.

:func:`pbp` runs ``pbp -c CONFIG ARGS…`` with the config's directory as the working
directory and gives back what a ``python -m pbp`` child would have shown: its exit
status, its stdout lines and its stderr lines, log records included (the format of
``pbp.cli.main``'s ``logging.basicConfig``: ``"2026-12-01 20:00:00,123 INFO pbp.x: …"``)
and an uncaught exception as a ``Traceback`` with status 1. ``PBP_CONFIG`` is unset
while it runs. No interpreter start-up: about 0.4 s less per command than
:func:`kits.daemon.run_pbp`, which stays for what needs a process of its own
(signals, a second process on a store, the exit status of ``pbp run``).

Example::

    result = pbp(config, "run", "--once", "--now", "2025-03-01T20:00+03:00")
    assert result.code == 0 and result.out == []
    done = run(config, "post", "ru-1")   # the same as a CompletedProcess
    assert done.returncode == 0 and done.stderr == ""
    assert run_ok(config, "close-day", "ru-1") == "ru-1: day 2 closed\n"
"""

from __future__ import annotations

import contextlib
import logging
import re
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from pbp.cli import main

#: ``pbp.cli.main``'s log format.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

#: A line of a ``pbp`` log that a clean run has none of: a warning, an error, a traceback.
TROUBLE = re.compile(r" (ERROR|WARNING|CRITICAL) |Traceback")


@dataclass(frozen=True)
class Result:
    """One finished ``pbp`` command: exit code, stdout and stderr lines."""

    code: int
    out: list[str]
    err: list[str]

    @property
    def log(self) -> list[str]:
        """stderr log records without their time stamp: ``"INFO pbp.app.service: …"``."""
        return [
            re.sub(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ", "", line)
            for line in self.err
            if re.match(r"^\d{4}-\d\d-\d\d ", line)
        ]


class _Stderr:
    """A stream that writes to whatever ``sys.stderr`` is now (the runner's capture)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


@contextlib.contextmanager
def _logging_to_stderr(verbose: bool) -> Iterator[None]:
    """What ``logging.basicConfig`` in ``pbp.cli.main`` does in a fresh process (here
    the root logger has pytest's handlers already, so it does nothing); undone after."""
    root = logging.getLogger()
    handler = logging.StreamHandler(_Stderr())
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def run(
    config: Path, *args: str, env: Mapping[str, str | None] | None = None
) -> subprocess.CompletedProcess[str]:
    """``pbp -c CONFIG ARGS…`` in-process, in the config's directory: what
    :func:`kits.daemon.run_pbp` gives for a child (exit status, stdout, stderr as text).

    ``env``: variables set (a value ``None``: unset) while it runs.
    """
    runner = CliRunner()
    environ: dict[str, str | None] = {"PBP_CONFIG": None, **(env or {})}
    argv = ["-c", str(config), *args]
    with contextlib.chdir(config.parent), _logging_to_stderr("-v" in args):
        done = runner.invoke(main, argv, env=environ)
    err = done.stderr
    code = done.exit_code
    error = done.exception
    if error is not None and not isinstance(error, SystemExit):
        err += "".join(traceback.format_exception(error))
        code = 1
    return subprocess.CompletedProcess(["pbp", *argv], code, done.stdout, err)


def pbp(config: Path, *args: str, env: Mapping[str, str | None] | None = None) -> Result:
    """:func:`run` as a :class:`Result` of lines."""
    done = run(config, *args, env=env)
    return Result(done.returncode, done.stdout.splitlines(), done.stderr.splitlines())


def run_ok(config: Path, *args: str, env: Mapping[str, str | None] | None = None) -> str:
    """:func:`run` that must succeed with a clean log; its stdout (what
    :func:`kits.daemon.run_pbp_ok` gives for a child).

    :raises AssertionError: a non-zero exit status, or :data:`TROUBLE` in its stderr
        (INFO lines are fine).
    """
    done = run(config, *args, env=env)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert not TROUBLE.search(done.stderr), done.stderr
    return done.stdout
