"""Shared pytest fixtures: the real mail stack (Dovecot + aiosmtpd), see tests/kits/mailstack.py;
templates compiled once per session (tests/kits/templates.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# tests/ on sys.path: the kits are imported as ``kits.…`` (tests/kits/__init__.py).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kits.golden import Transcripts, transcripts
from kits.mailstack import Dovecot, DovecotMissingError, SmtpServer
from kits.render_log import recording
from kits.templates import shared_environments


@pytest.fixture(autouse=True, scope="session")
def _templates_compiled_once() -> Iterator[None]:
    """Every Renderer of the session shares its Jinja2 environments (kits.templates)."""
    with shared_environments():
        yield


@pytest.fixture(autouse=True, scope="session")
def _renders_recorded() -> Iterator[None]:
    """With ``PBP_RECORD_RENDERS=FILE``, every text rendered is recorded there
    (kits.render_log: replayed to show that a change to the text layer changes no text)."""
    path = os.environ.get("PBP_RECORD_RENDERS")
    if not path:
        yield
        return
    with recording(Path(path)):
        yield


@pytest.fixture(scope="session")
def texts(tmp_path_factory: pytest.TempPathFactory) -> Transcripts:
    """Every golden scenario's transcript, by locale then scenario, played once for all
    the texts' read-through tests (``tests/test_reading_*.py``)."""
    return transcripts(tmp_path_factory.mktemp("golden"))


@pytest.fixture
def dovecot() -> Iterator[Dovecot]:
    """A running Dovecot on 127.0.0.1 (fresh per test, about 25 ms to start).

    Fails (never skips) when Dovecot is not installed: CI runs every test.
    """
    try:
        server = Dovecot()
    except DovecotMissingError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def smtp_server(dovecot: Dovecot) -> Iterator[SmtpServer]:
    """An aiosmtpd server on 127.0.0.1 delivering into ``dovecot`` mailboxes."""
    server = SmtpServer(dovecot)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """CI runs the whole suite: a skipped test, or no test at all, fails the run."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter is not None else 0
    if skipped and exitstatus == 0:
        if reporter is not None:
            reporter.write_line(f"FAILED: {skipped} test(s) skipped; CI runs everything", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
