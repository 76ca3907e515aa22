"""A path the user gives that cannot be used is one sentence and exit 1, never a
traceback (issue 32: no traceback): a templates folder (``PBP_TEMPLATES``) this user
cannot read whole, and the output of ``pbp export`` / ``pbp post`` sent into a file on
a full disk (``pbp export GAME > story.md``). The store's own folder, ``games.yaml`` and
``pbp backup FILE`` are said in one sentence already (tests/test_store_read_only.py,
tests/test_config_bounds.py, tests/test_cli_tools.py); the Maildirs in
tests/test_maildir_access.py.

Before: ``PermissionError: [Errno 13] Permission denied: '…/common'`` and ``OSError:
[Errno 28] No space left on device`` with a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from kits import cli
from kits.daemon import REPO, pbp_argv, pbp_env
from kits.nobody import NOBODY, ROOT, ROOT_ID, as_nobody, give
from kits.table import Table, utc

GAME = "seed-000"


@pytest.fixture
def started() -> Iterator[Path]:
    """seed 000 started, in a folder every user may enter, all :data:`NOBODY`'s, with a
    copy of pbp's templates (``templates/``) beside it; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="pbp-path-faults-"))
    try:
        folder.chmod(0o755)
        table = Table(folder)
        table.run(utc(2026, 12, 1, 17))
        table.close()
        shutil.copytree(REPO / "templates", folder / "templates")
        give(folder, NOBODY)
        yield folder
    finally:
        give(folder, NOBODY)
        for found in [folder, *folder.rglob("*")]:
            if not found.is_symlink():
                found.chmod(0o755 if found.is_dir() else 0o644)
        shutil.rmtree(folder)


def post_as_nobody(folder: Path) -> tuple[int, str, str]:
    """``pbp post GAME`` with ``PBP_TEMPLATES`` = the copy, as :data:`NOBODY`."""

    def command() -> list[object]:
        done = cli.run(folder / "games.yaml", "post", GAME, env={"PBP_TEMPLATES": str(templates)})
        return [done.returncode, done.stdout, done.stderr]

    templates = folder / "templates"
    code, out, err = as_nobody(command)
    return int(code), str(out), str(err)


def closed(folder: Path, what: str) -> str:
    return (
        f"Error: the templates folder {folder / 'templates'} (PBP_TEMPLATES) cannot be read "
        f"by this user ({what}): make it readable for the user pbp runs as (its owner and "
        "mode)\n"
    )


def test_a_templates_file_its_user_cannot_read_is_one_sentence(started: Path) -> None:
    """Found before any text is made: a post would have failed half-way, the daemon in
    its first round."""
    assert post_as_nobody(started)[0] == 0
    shown = started / "templates" / "common" / "understood.j2"
    give(shown, ROOT_ID)
    shown.chmod(0o600 if ROOT else 0o200)
    assert post_as_nobody(started) == (1, "", closed(started, str(shown)))


def test_a_templates_folder_its_user_cannot_enter_is_one_sentence(started: Path) -> None:
    common = started / "templates" / "common"
    give(common, ROOT_ID)
    common.chmod(0o700 if ROOT else 0o000)
    assert post_as_nobody(started) == (1, "", closed(started, f"{common}: Permission denied"))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full to write to")
@pytest.mark.parametrize(
    ("command", "what"), [(("export", GAME, "--force"), "the story"), (("post", GAME), "the post")]
)
def test_pbp_export_into_a_full_disk_is_one_sentence(
    started: Path, command: tuple[str, ...], what: str
) -> None:
    """``pbp export GAME > story.md`` on a full disk (``/dev/full`` is one)."""
    config = started / "games.yaml"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            pbp_argv(config, *command),
            cwd=started,
            env=pbp_env(),
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    said = f"Error: cannot write {what} to the output: No space left on device\n"
    assert (done.returncode, done.stderr) == (1, said)
