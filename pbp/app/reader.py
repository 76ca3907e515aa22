"""Reading a letter's body in a child process that is killed when it overruns its budget.

:func:`pbp.app.budget.cpu_budget` cuts pure-Python work at a bytecode boundary, but not
one long call into C (a regular expression gone quadratic on a shape nobody thought
of). ``pbp run`` therefore reads bodies in a child process (:class:`ChildReader`):
the parent waits for the answer while watching the child's CPU time
(``/proc/PID/stat``) and kills it once the budget is spent, so no mail can hold up
the others whatever the body holds. The child is started once (``forkserver``: it
is forked from a clean process, not from the daemon and its threads) and again
after a kill; a letter costs one round trip through a pipe. The letter of the header
section, read by the daemon before, goes with the message: the child takes its header
fields from it and reads only the body (:func:`pbp.mail.read.mime.read_letter`'s ``head``).
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import os
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Protocol

from pbp.app.budget import BudgetExceeded, cpu_budget
from pbp.app.settings import Settings
from pbp.mail.read.mime import Letter, read_letter

log = logging.getLogger(__name__)

#: How often the parent looks at the child's CPU time while it reads, seconds.
POLL_SECONDS = 0.02
#: Wall time allowed per CPU second of budget (a busy machine runs the child slowly).
WALL_PER_CPU = 10.0


class LetterReader(Protocol):
    """Reads a whole letter as :func:`pbp.mail.read.mime.read_letter` does, its header
    fields taken from ``head`` when given (the letter of the same message's header
    section)."""

    def __call__(self, raw: bytes, *, head: Letter | None = None) -> Letter: ...


def _serve(connection: Connection, read: LetterReader) -> None:
    """The child: read each message sent (with its header section's letter), answer
    with its :class:`Letter`."""
    while True:
        try:
            raw, head = connection.recv()
        except EOFError:
            return
        connection.send(read(raw, head=head))


def _cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of process ``pid``, seconds (None: not readable)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return None
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (proc(5), fields 14, 15)
    return ticks / os.sysconf("SC_CLK_TCK")


class ChildReader:
    """``reader(raw, head=letter) -> Letter``: ``read`` (default
    :func:`pbp.mail.read.mime.read_letter`; a module-level function) in a child process, on
    at most ``seconds`` of CPU time (and ``WALL_PER_CPU`` times as much wall time).

    :raises BudgetExceeded: the child overran; it was killed (the next call starts a
        new one).
    :raises RuntimeError: the child died otherwise (the next call starts a new one).
    """

    def __init__(self, seconds: float, read: LetterReader = read_letter) -> None:
        self.seconds = seconds
        self.read = read
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(["pbp.mail.read.mime"])
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None

    def _start(self) -> tuple[BaseProcess, Connection]:
        if self._process is None or self._connection is None or not self._process.is_alive():
            ours, theirs = self._context.Pipe()
            process = self._context.Process(
                target=_serve, args=(theirs, self.read), name="pbp-reader", daemon=True
            )
            process.start()
            theirs.close()
            self._process, self._connection = process, ours
        return self._process, self._connection

    def __call__(self, raw: bytes, *, head: Letter | None = None) -> Letter:
        process, connection = self._start()
        assert process.pid is not None
        start_cpu = _cpu_seconds(process.pid) or 0.0
        start_wall = time.monotonic()
        try:
            connection.send((raw, head))
            while not connection.poll(POLL_SECONDS):
                used = (_cpu_seconds(process.pid) or start_cpu) - start_cpu
                wall = time.monotonic() - start_wall
                if used > self.seconds or wall > self.seconds * WALL_PER_CPU:
                    log.warning("reading a message overran %g s of CPU: reader killed", used)
                    self.close()
                    raise BudgetExceeded(self.seconds)
            letter = connection.recv()
        except (EOFError, OSError) as error:  # the child died: start anew next time
            self.close()
            raise RuntimeError(f"the reader process died ({error!r})") from error
        assert isinstance(letter, Letter)
        return letter

    def close(self) -> None:
        """Stop the child (it is started again at the next read)."""
        if self._connection is not None:
            self._connection.close()
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
        self._process = self._connection = None


class BodyReader:
    """``read_body(raw, head) -> Letter``: the whole letter of ``raw`` (its header
    section already read as ``head``, whose header fields it takes: one reading of
    them), read within the CPU budget (``mail.cpu_seconds_per_message`` of the
    configuration now): by :attr:`child` (a :class:`ChildReader` in ``pbp run``), else in
    this process on :func:`pbp.app.budget.cpu_budget`. Over it, ``head`` marked
    unreadable (:func:`too_complex`). The intake's body step
    (:meth:`pbp.app.intake.Intake.read_body`) and the rules that must see a body before
    it (a GM at a player's address, a retired address, a confirmation) read with it."""

    def __init__(self, settings: Settings, child: LetterReader | None = None) -> None:
        self.settings = settings
        self.child = child

    def __call__(self, raw: bytes, head: Letter) -> Letter:
        try:
            if self.child is not None:
                return self.child(raw, head=head)
            with cpu_budget(self.settings.config.mail.cpu_seconds_per_message):
                return read_letter(raw, head=head)
        except BudgetExceeded as exceeded:
            return too_complex(head, exceeded)


def unread_header(exceeded: BudgetExceeded) -> Letter:
    """The letter of a header section that could not be read within its CPU budget: no
    single sender to trust or answer (``from_problem``), kept for the GM's digest."""
    problem = f"header section not read: reading it took {exceeded}"
    return too_complex(Letter(from_problem=problem), exceeded)


def too_complex(letter: Letter, exceeded: BudgetExceeded) -> Letter:
    """``letter`` marked unreadable because reading or parsing it spent its CPU budget."""
    return dataclasses.replace(
        letter,
        text="",
        forwarded=False,
        unreadable=f"reading it took {exceeded}",
        unreadable_code="too_complex",
    )
