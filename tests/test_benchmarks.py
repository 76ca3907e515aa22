"""The benchmark script stays runnable (issue 7): ``benchmarks/run.py --quick`` with a
few moves of each figure against its own Dovecot and SMTP sink. Only that it runs and
prints every figure with its goal is checked here; the figures themselves are
measured by the full run (README "Performance"), never by a timed unit test."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FIGURES = [
    "throughput",
    "latency p50",
    "latency p95",
    "latency share p95",
    "cost per move",
    "first start (dealing)",
    "start-up",
    "RSS after start",
    "RSS after a day of moves",
    "longest wait of a move during the closes",
]


def test_benchmark_runs_in_quick_mode() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    names = [line.split(":")[0] for line in done.stdout.splitlines()]
    assert names == FIGURES, done.stdout + done.stderr[-3000:]
    for line in done.stdout.splitlines():
        # "name: value unit (goal …[; ratio r]) ok|MISSED  [note]"
        assert re.match(r"[^:]+: [\d,]+\.\d{3} \S.* \(goal [^)]+\)", line), line
        if not line.startswith("first start"):
            assert re.search(r"; ratio \d+\.\d\d\) (ok|MISSED)", line), line
