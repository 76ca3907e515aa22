"""Golden texts (issue 16): every mail and post of one scripted game of each kind, in
each locale, compared with ``tests/golden/<scenario>.<locale>.txt`` (read line by line
when written; a change to any text shows as a diff of those files in review).

To write the files anew after a deliberate change of texts::

    PBP_GOLDEN=update .venv/bin/python -m pytest -q tests/test_golden_texts.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from kits.golden import LOCALES, SCENARIOS, Pseudo, play, untranslated

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_texts(tmp_path: Path, scenario: str, locale: str) -> None:
    text = play(tmp_path, scenario, locale).transcript()
    path = GOLDEN / f"{scenario}.{locale}.txt"
    if os.environ.get("PBP_GOLDEN") == "update":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(True), text.splitlines(True), str(path), "now", n=2
        )
    )
    assert diff == "", diff


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_pseudo_locale_shows_every_text_of_a_game_translated(
    tmp_path: Path, scenario: str
) -> None:
    # Every message translated to "⟦message⟧": no letters may be left outside the
    # brackets but the game's own data (issue 16: adding a language is a catalog).
    table = play(tmp_path, scenario, "en", {"en": Pseudo()})
    assert len(table.entries) > 20
    assert untranslated(table) == []
