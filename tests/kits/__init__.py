"""The test suite's kits: everything tests share beyond ``conftest.py``'s fixtures.

Imported as ``kits.…``: ``tests/`` is on ``sys.path`` (``tests/conftest.py`` puts it
there; so do ``benchmarks/*.py``).

* :mod:`kits.games` — the one ``games.yaml`` builder (:class:`~kits.games.MailSection`,
  :func:`~kits.games.games_yaml`, :func:`~kits.games.write_games_yaml`).
* :mod:`kits.table`, :mod:`kits.rounds_table` — a seed-000 Cluedo game (by game days,
  by rounds) on Maildir transports with a test-controlled clock, driven in-process;
  :mod:`kits.maniac_table` — seed 002's Maniac game the same way.
* :mod:`kits.seed_000`, :mod:`kits.seed_002` — the seeds' worked examples (seed 000's
  cards, deal and players; seed 002's tie), defined once for every test that plays them.
* :mod:`kits.maniac_mail` — the ten-player Maniac game of ``games/maniac/test_e2e.py``
  through the real mail stack: its ``games.yaml``, deadlines, Subjects and posts.
* :mod:`kits.mailstack` — a real Dovecot and an aiosmtpd server (the ``dovecot`` and
  ``smtp_server`` fixtures of ``conftest.py``).
* :mod:`kits.mail` — a player's side of the real mail stack: :class:`~kits.mail.Received`
  (one message of a mailbox), :func:`~kits.mail.mailbox`, :func:`~kits.mail.send`,
  :class:`~kits.mail.Mailboxes` (wait for a mail there).
* :mod:`kits.daemon` — ``pbp`` as a subprocess (:class:`~kits.daemon.DaemonProcess`,
  :func:`~kits.daemon.run_pbp`): the one place that knows ``Popen`` and ``PYTHONPATH``;
  and :func:`~kits.daemon.serve`, ``pbp run``'s loop in this process with its clock
  ahead of (or behind) the wall clock.
* :mod:`kits.cli` — the ``pbp`` command line in-process (click's ``CliRunner``), giving
  what a child process shows (exit status, stdout, stderr with its log records).
* :mod:`kits.wait` — :func:`~kits.wait.wait_for`, polling until a condition holds.
* :mod:`kits.clock` — :class:`~kits.clock.FakeClock`, a clock only the code under test
  moves (a wait's exact length on any machine), and IMAP IDLE on it (:func:`~kits.clock.idle_on`).
* :mod:`kits.cputime` — the CPU seconds a process tree spent (a real daemon's work, not
  its wall time).
* :mod:`kits.crash` — three games in one daemon and the facts two runs must share.
* :mod:`kits.imapscript` — a scripted IMAP server for faults Dovecot cannot show.
* :mod:`kits.bodyshapes` — hostile mail bodies.
"""
