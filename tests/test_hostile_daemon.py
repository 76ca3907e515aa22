"""A real ``pbp run`` under hostile mail (issue 12): a player's STATUS sent right after
each hostile mail is answered, on less than 2 CPU seconds of the daemon's work for both
mails, and no stranger is answered. (The wall-clock wait of each shape, the 2 s goal, is
a figure of ``benchmarks/daemon_waits.py``: issue 35, item 7.)"""

from __future__ import annotations

from pathlib import Path

from kits.hostile_daemons import BODY_SHAPES, MaildirRun

from pbp.config.loading import load_config

#: CPU seconds the daemon and its children may spend on a hostile mail and the STATUS
#: after it: below one message's budget (``mail.cpu_seconds_per_message``, 3 s).
WORK = 2.0


def test_a_status_after_each_hostile_mail_is_answered_on_under_two_cpu_seconds(
    tmp_path: Path,
) -> None:
    """Each hostile mail, then Кросс's STATUS at once: the STATUS is answered, no stranger
    is, and the daemon with its children (the forkserver, the reader child of
    :mod:`pbp.app.reader`) spends less than 2 CPU seconds from the hostile mail's delivery
    until both mails are handled (their rows in the store) and the STATUS answered.

    CPU seconds (:func:`kits.cputime.tree_cpu_seconds`), not a wall-clock wait: the work
    done, which a busy machine does not stretch (issue 35, item 7). The bound holds what
    the former "answered within 2 s" held: less than one message's CPU budget
    (``mail.cpu_seconds_per_message``, 3 s), so a mail cut by its budget — in the daemon
    (:func:`pbp.app.budget.cpu_budget`) or in the reader child, killed at its budget —
    cannot pass; every shape is read by linear work far below it. The wall wait is
    measured and printed by ``benchmarks/daemon_waits.py``; here 60 s is only a guard
    against a hang (:data:`kits.hostile_daemons.HANG`).
    """
    run = MaildirRun(tmp_path)
    try:
        run.start()
        work = {name: run.status_after(name).cpu for name in BODY_SHAPES}
        assert load_config(run.config).mail.cpu_seconds_per_message > WORK
        assert {name: cpu < WORK for name, cpu in work.items()} == dict.fromkeys(
            BODY_SHAPES, True
        ), work
        assert run.to("spam@elsewhere.test") == []
    finally:
        code = run.stop()
    assert code == 0, run.daemon.output()
