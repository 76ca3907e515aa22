"""``pbp`` as a user who may not write what root made: the real shape of a store or a
mailbox that belongs to another user (made by root, pbp then run as its service user;
a folder copied without its modes).

Root writes any file whatever its mode, so a ``chmod`` shows nothing when the suite runs
as root: then a command runs in a forked child that became the unprivileged user
:data:`NOBODY` (65534; ``setuid`` drops every capability), on files root owns, with
everything pbp needs already imported by this process (no interpreter start-up, no
checkout it must be able to read). Run unprivileged, the suite takes the write bits
away instead (``chmod``) and runs the command as itself.

* :func:`as_nobody` — a function's JSON-able result, computed as :data:`NOBODY`.
* :func:`pbp` — ``pbp -c CONFIG ARGS…`` (:func:`kits.cli.run`) so:
  ``(exit status, stdout, stderr)``.
* :class:`NobodyDaemon` — ``pbp run`` so, in the background, its output in a file.
* :func:`give` — a path (and what it holds) to :data:`NOBODY`, or back to root.

Example::

    give(folder, NOBODY)                      # his store, his mailboxes
    give(folder / "mail" / "inbox", ROOT_ID)  # but not the inbox
    assert pbp(config, "run", "--once") == (1, "", "Error: the Maildir inbox …\\n")
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbp.cli import main

from . import cli
from .wait import wait_for

#: What pbp imports only when it first needs it (the daemon's scheduler and its
#: executor, the body reader's forkserver, ``pbp run``'s start), imported here while the
#: suite may read every file: :data:`NOBODY` may not read the interpreter's own modules
#: on every machine (a Python installed under /root).
LATER = (
    "apscheduler.executors.pool",
    "apscheduler.jobstores.memory",
    "apscheduler.schedulers.background",
    "apscheduler.triggers.date",
    "concurrent.futures.thread",
    "multiprocessing.forkserver",
    "pbp.app.connect",
    "pbp.app.daemon",
    "pbp.app.lost",
)
for _name in LATER:
    importlib.import_module(_name)

NOBODY = 65534
ROOT_ID = 0
#: Whether the suite runs as root (then :data:`NOBODY` runs the commands).
ROOT = os.geteuid() == 0


def become_nobody() -> None:
    """In a forked child: become :data:`NOBODY` for good (no groups, no capability)."""
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def give(path: Path, owner: int) -> None:
    """``path`` and everything under it to ``owner`` (:data:`NOBODY` or
    :data:`ROOT_ID`) as root: then only :data:`NOBODY` can write what is his. Run
    unprivileged (the commands run as the suite's user): a folder given to root loses
    its write bits (555), one given to :data:`NOBODY` gets them back (755)."""
    for found in [path, *path.rglob("*")]:
        if ROOT:
            os.chown(found, owner, owner, follow_symlinks=False)
        elif found.is_dir() and not found.is_symlink():
            found.chmod(0o755 if owner == NOBODY else 0o555)


def as_nobody(work: Callable[[], Any]) -> Any:
    """``work()``'s result (JSON-able) as :data:`NOBODY` computes it: as root, in a
    forked child that became him; else here. An exception in the child comes back as
    ``AssertionError`` with its traceback, never a hang."""
    if not ROOT:
        return work()
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's coverage is not collected)
        status = 0
        try:
            os.close(reading)
            become_nobody()
            answer: Any = {"done": work()}
        except BaseException:  # the test reads it, never a hang
            answer = {"failed": traceback.format_exc()}
        try:
            with os.fdopen(writing, "w", encoding="utf-8") as pipe:
                json.dump(answer, pipe)
        except BaseException:
            status = 1
        os._exit(status)
    os.close(writing)
    with os.fdopen(reading, encoding="utf-8") as pipe:
        answer = json.load(pipe)
    assert os.waitpid(child, 0)[1] == 0
    if "failed" in answer:
        raise AssertionError(f"as nobody:\n{answer['failed']}")
    return answer["done"]


def pbp(config: Path, *args: str) -> tuple[int, str, str]:
    """``pbp -c CONFIG ARGS…`` (:func:`kits.cli.run`: a traceback shows in stderr, exit
    1) as :data:`NOBODY`: ``(exit status, stdout, stderr)``."""

    def command() -> list[Any]:
        done = cli.run(config, *args)
        return [done.returncode, done.stdout, done.stderr]

    code, out, err = as_nobody(command)
    return int(code), str(out), str(err)


class NobodyDaemon:
    """``pbp -c CONFIG run`` as :data:`NOBODY` in a forked child (as root; else as the
    suite's user), in the config's folder; what it prints (its log) goes to
    ``log_path``, read by :meth:`output`. As ``python -m pbp`` runs it, but without an
    interpreter of its own: SIGTERM stops it (:meth:`stop`)."""

    def __init__(self, config: Path, log_path: Path) -> None:
        self.log_path = log_path
        log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        child = os.fork()
        if child == 0:  # pragma: no cover (the child's coverage is not collected)
            code = 98
            try:
                os.dup2(log, 1)
                os.dup2(log, 2)
                # Its own streams on the log (pytest's capture is this process's).
                out = open(1, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
                sys.stdout = sys.stderr = out
                root = logging.getLogger()
                for handler in root.handlers[:]:  # pytest's: main's basicConfig adds its own
                    root.removeHandler(handler)
                if ROOT:
                    become_nobody()
                os.chdir(config.parent)
                main(["-c", str(config), "run"], prog_name="pbp")
                code = 0
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else int(done.code is not None)
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                os._exit(code)
        os.close(log)
        self.pid = child
        self.status: int | None = None

    def output(self) -> str:
        """What it printed so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_running(self, timeout: float = 30.0) -> None:
        """Return once it logged that it serves (its signal handlers are set)."""
        wait_for(lambda: "pbp running:" in self.output(), timeout, self.output)

    def alive(self) -> bool:
        """Whether it still runs."""
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status is None

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait; its exit status (-9 after a kill past ``timeout`` s)."""
        if self.alive():
            os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                self.status = -9
                break
            time.sleep(0.05)
        assert self.status is not None
        return self.status
