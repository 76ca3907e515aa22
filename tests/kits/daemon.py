"""``pbp`` as a real subprocess: the one place that knows ``Popen`` and ``PYTHONPATH``;
and the daemon's loop in this process, its clock ahead of (or behind) the wall clock.

Most tests call the command line in-process (:mod:`kits.cli`); these are for the
tests where the process boundary is the point: the exit status of ``pbp run``, its
signals (SIGTERM, SIGHUP, SIGKILL), a second process on the same store.

* :func:`pbp_env` — the environment of a ``pbp`` child (``PYTHONPATH`` = the checkout).
* :func:`run_pbp` — one command, ``python -m pbp -c CONFIG ARGS…``, to its end;
  :func:`run_pbp_ok` — the same, that must succeed with a clean log: its stdout.
* :class:`DaemonProcess` — ``pbp run`` in the background, its output in ``daemon.log``.
* :func:`serve` — :class:`pbp.app.daemon.Daemon` in this process with ``ahead`` (the game's
  clock that far from the wall clock, the scheduler following it), while the test's
  steps run beside it: a deadline at a whole minute comes in seconds.

Example::

    daemon = DaemonProcess(config, env={"PBP_IMAP_PASSWORD": "secret"})
    daemon.wait_running()
    wait_for(lambda: len(read_maildir(outbox)) == 6, 20, daemon.output)
    assert daemon.stop() == 0
    assert run_pbp_ok(config, "close-day", "g-1") == "g-1: day 2 closed\n"
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import TypeVar

from pbp.app.daemon import Daemon
from pbp.app.service import Service

from . import cli
from .wait import wait_for

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[2]

#: What ``pbp run`` logs once it serves (its signal handlers are set).
RUNNING = "pbp running:"

#: A line of a ``pbp`` log that a clean run has none of: a warning, an error, a traceback.
TROUBLE = cli.TROUBLE


def pbp_env(
    env: Mapping[str, str] | None = None, *, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``base`` (default: this process's environment without ``PBP_CONFIG``), then
    ``env``, and ``PYTHONPATH`` = the checkout."""
    start = base if base is not None else os.environ
    found = {name: value for name, value in start.items() if name != "PBP_CONFIG"}
    return {**found, **(env or {}), "PYTHONPATH": str(REPO)}


def pbp_argv(config: Path, *args: str, poll_seconds: float | None = None) -> list[str]:
    """``[python, -m, pbp, -c, CONFIG, ARGS…]``. With ``poll_seconds``, ``python -c CODE``
    instead, CODE setting :data:`pbp.app.daemon.POLL_SECONDS` (the longest wait for mail)
    before it runs ``pbp`` as ``-m`` would: a test that must tell a wait cut short from
    one that ended makes the wait an hour, so that no load blurs the two."""
    if poll_seconds is None:
        return [sys.executable, "-m", "pbp", "-c", str(config), *args]
    code = (
        f"import runpy, pbp.app.daemon; pbp.app.daemon.POLL_SECONDS = {poll_seconds!r}; "
        "runpy.run_module('pbp', run_name='__main__', alter_sys=True)"
    )
    return [sys.executable, "-c", code, "-c", str(config), *args]


def run_pbp(
    config: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    base: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m pbp -c CONFIG ARGS…`` in the config's directory to its end
    (stdout and stderr captured as text; the environment: :func:`pbp_env`)."""
    return subprocess.run(
        pbp_argv(config, *args),
        cwd=config.parent,
        env=pbp_env(env, base=base),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_pbp_ok(
    config: Path, *args: str, env: Mapping[str, str] | None = None, timeout: float = 60.0
) -> str:
    """:func:`run_pbp` that must succeed with a clean log; its stdout.

    :raises AssertionError: a non-zero exit status, or :data:`TROUBLE` in its log
        (stderr; INFO lines are fine).
    """
    done = run_pbp(config, *args, env=env, timeout=timeout)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert not TROUBLE.search(done.stderr), done.stderr
    return done.stdout


class DaemonProcess:
    """``python -m pbp -c CONFIG ARGS…`` (default ``run``) in a subprocess, cwd the
    config's directory; stdout and stderr appended to ``daemon.log`` beside the config
    (kept across restarts), read by :meth:`output`. ``env``/``base``: :func:`pbp_env`;
    ``poll_seconds``: :func:`pbp_argv`.
    """

    def __init__(
        self,
        config: Path,
        env: Mapping[str, str] | None = None,
        *,
        base: Mapping[str, str] | None = None,
        args: tuple[str, ...] = ("run",),
        poll_seconds: float | None = None,
    ) -> None:
        self.log_path = config.parent / "daemon.log"
        self._runs = self.output().count(RUNNING) if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                pbp_argv(config, *args, poll_seconds=poll_seconds),
                cwd=config.parent,
                env=pbp_env(env, base=base),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def output(self) -> str:
        """What the daemon printed so far (its log, with earlier runs' before it)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def running(self) -> bool:
        """Whether this process logged that it serves (its signal handlers are set)."""
        return self.output().count(RUNNING) > self._runs

    def wait_running(self, timeout: float = 60.0) -> None:
        """Return once this process logged that it serves (:meth:`running`).

        :raises AssertionError: not within ``timeout`` s (with the log).
        """
        wait_for(self.running, timeout, self.output)

    def signal(self, signum: int) -> None:
        """Send ``signum`` (e.g. ``signal.SIGHUP``) while it runs."""
        if self.process.poll() is None:
            self.process.send_signal(signum)

    def kill(self) -> int:
        """SIGKILL (a crash); returns the exit status."""
        self.signal(signal.SIGKILL)
        return self.process.wait(10)

    def wait(self, timeout: float) -> int:
        """Wait for it to exit on its own; its exit status.

        :raises subprocess.TimeoutExpired: still running after ``timeout`` s.
        """
        return self.process.wait(timeout)

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then wait; returns the exit status (a kill after ``timeout`` s: -9)."""
        self.signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return -9


def serve(service: Service, steps: Callable[[Daemon], T], *, ahead: timedelta) -> T:
    """Run ``Daemon(service, ahead=ahead)`` (``pbp run``'s loop: IDLE, the APScheduler
    jobs, its SIGTERM handler) in this thread, while ``steps(daemon)`` runs in another;
    when ``steps`` returns or fails, SIGTERM ends the loop. Returns what ``steps``
    returned. The service's clock is the daemon's (``ahead`` of the wall clock; negative:
    behind it); its store is closed after, pytest's signal handlers restored.

    Must be called in the main thread (signal handlers). Example, a day close at a whole
    minute 15 s after the start::

        close = ...  # the game's next day close, a whole minute
        serve(service, check_the_close, ahead=close - timedelta(seconds=15) - now())

    :raises BaseException: what ``steps`` raised.
    """
    daemon = Daemon(service, ahead=ahead)
    service.clock = daemon.clock
    done: list[T] = []
    failed: list[BaseException] = []

    def driver() -> None:
        try:
            done.append(steps(daemon))
        except BaseException as error:
            failed.append(error)
        finally:
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)

    handlers = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    thread = threading.Thread(target=driver, name="test-steps")
    try:
        signal.signal(signal.SIGTERM, daemon.stop)  # a SIGTERM before run() sets its own
        thread.start()
        daemon.run()  # until the driver's SIGTERM
    finally:
        # The driver's SIGTERM must meet the daemon's handler, not pytest's: join first.
        thread.join(300)
        for number, handler in handlers.items():
            signal.signal(number, handler)
        service.store.close()
    if failed:
        raise failed[0]
    return done[0]
