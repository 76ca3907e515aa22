"""An existing folder that is no Maildir is refused as a Maildir inbox or outbox (issue
32, second pass).

Before, ``pbp check`` accepted ``inbox: {maildir: /dev}`` (or any folder of the user's
files), and ``pbp run`` made ``cur``, ``new`` and ``tmp`` in it, beside those files. A
folder that holds files but none of ``cur``, ``new``, ``tmp`` is now one sentence at
``pbp check`` and at start, and nothing is made in it; an empty or missing folder is
still made a Maildir.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.table import write_config

from pbp.cli import main


@pytest.mark.parametrize("role", ["inbox", "outbox"])
def test_an_existing_folder_that_is_no_maildir_is_refused_at_check_and_start(
    tmp_path: Path, role: str
) -> None:
    config = write_config(tmp_path)
    folder = tmp_path / "mail" / role
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("my own notes\n", encoding="utf-8")
    said = (
        f"the Maildir {role} {folder} is a folder that holds other files and "
        "no Maildir (no cur, new or tmp in it): give the path of a Maildir, or of a new or "
        "empty folder (pbp makes the Maildir in it)"
    )
    checked = CliRunner().invoke(main, ["-c", str(config), "check"])
    assert (checked.exit_code, checked.output) == (1, f"{config}: error: {said}\n")
    ran = CliRunner().invoke(main, ["-c", str(config), "run", "--once"])
    assert (ran.exit_code, ran.output) == (1, f"Error: {said}\n")
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # nothing made in it


def test_an_empty_folder_is_still_made_a_maildir(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    folder = tmp_path / "mail" / "inbox"
    folder.mkdir(parents=True)
    ran = CliRunner().invoke(main, ["-c", str(config), "run", "--once"])
    assert ran.exit_code == 0, ran.output
    assert {"cur", "new", "tmp"} <= {p.name for p in folder.iterdir()}
