"""How long reading each hostile mail body takes, and how much memory (issue 12, item 1).

Run from the repository (after ``./scripts/test`` or ``./scripts/bench`` installed ``.venv``)::

    .venv/bin/python benchmarks/hostile.py                  # every shape at 1 and 2 MB
    .venv/bin/python benchmarks/hostile.py --sizes 1 --only blank_lines,html_br

For each shape of ``tests/kits/bodyshapes.py`` and each size, a fresh Python process builds
the mail (from a player), reads it (:func:`pbp.mail.read.mime.read_letter`) and parses its
text as each bundled game does (Cluedo by days and by rounds, Maniac: the command
parser, :func:`pbp.mail.read.echo.strip_help_echo`, :func:`pbp.app.playermoves.ignored_lines`);
it reports the thread CPU seconds of that work and its peak RSS
(``getrusage(RUSAGE_SELF).ru_maxrss`` of that process, which includes the
interpreter and pbp's modules: the ``baseline`` row is a process that imports the
same and reads nothing). One table row per shape and size::

    shape                             size   CPU s  peak RSS MB
    blank_lines                       1 MB   0.431         98.2

Exit status 0 when every shape at 1 MB took at most 1 CPU second, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

MEGABYTE = 1_000_000
#: Thread CPU seconds allowed for a shape at 1 MB (tests/test_hostile_bodies.py).
BUDGET = 1.0
HELP = "Команды:\n    ГОЛОС Игрок\n    ПОМОЩЬ\nПишите по одной команде в строке.\n"


def child(name: str, size: int) -> dict[str, float]:
    """Read shape ``name`` (``"baseline"``: nothing) at ``size`` bytes in this process:
    ``{"cpu": thread CPU seconds, "rss_mb": peak RSS in MB}``."""
    from kits.bodyshapes import BY_NAME
    from kits.seed_000 import CARDS, PLAYERS

    from pbp.app.playermoves import ignored_lines
    from pbp.games.cluedo.parse import parse_cluedo
    from pbp.games.maniac.parse import parse_maniac
    from pbp.mail.read.echo import strip_help_echo
    from pbp.mail.read.mime import read_letter

    seconds = 0.0
    if name != "baseline":
        raw = BY_NAME[name].raw(size)
        started = time.thread_time()
        letter = read_letter(raw)
        text = strip_help_echo(letter.text, HELP)
        parse_cluedo(text, CARDS, PLAYERS)
        parse_cluedo(text, CARDS, PLAYERS, addressed=False)
        parse_maniac(text, ["Вася", "Петя", "Саша", "Таня"])
        ignored_lines(text, [])
        seconds = time.thread_time() - started
    # ru_maxrss is in kilobytes on Linux.
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"cpu": seconds, "rss_mb": rss}


def measure(name: str, size: int) -> dict[str, float]:
    """:func:`child` in a fresh process."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", name, str(size)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,2", help="sizes in MB, comma-separated")
    parser.add_argument("--only", default="", help="shape names, comma-separated")
    parser.add_argument("--child", nargs=2, metavar=("SHAPE", "BYTES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return 0
    from kits.bodyshapes import SHAPES

    names = [shape.name for shape in SHAPES]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"unknown shapes: {', '.join(unknown)}; known: {', '.join(names)}")
        names = [name for name in names if name in wanted]
    sizes = [float(size) for size in args.sizes.split(",")]
    print(f"{'shape':32} {'size':>6} {'CPU s':>7} {'peak RSS MB':>12}")
    base = measure("baseline", 0)
    print(f"{'baseline':32} {'-':>6} {base['cpu']:7.3f} {base['rss_mb']:12.1f}", flush=True)
    over = []
    for name in names:
        for size in sizes:
            found = measure(name, int(size * MEGABYTE))
            shown = f"{size:g} MB"
            print(f"{name:32} {shown:>6} {found['cpu']:7.3f} {found['rss_mb']:12.1f}", flush=True)
            if size <= 1 and found["cpu"] > BUDGET:
                over.append(name)
    if over:
        print(f"over {BUDGET:g} CPU s at 1 MB: {', '.join(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
