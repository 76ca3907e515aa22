"""The Maniac texts a native Russian reader found wrong in the last reading (issue 34,
last fixes).

The scripted Maniac games of :mod:`kits.golden` are played once in each locale; each
test is named after the fault, asserts the sentence pbp writes now (in English too
where the English changed) and that the old one is gone from every mail and post.
"""

from __future__ import annotations

import pytest
from kits.golden import LOCALES, play

MANIAC = ("maniac", "maniac_levers")


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Each Maniac scenario's transcript (every mail and post), by locale then scenario."""
    return {
        locale: {
            scenario: play(
                tmp_path_factory.mktemp(f"{scenario}-{locale}"), scenario, locale
            ).transcript()
            for scenario in MANIAC
        }
        for locale in LOCALES
    }


def everywhere(texts: dict[str, dict[str, str]], locale: str) -> str:
    return "\n".join(texts[locale].values())


def mails(text: str) -> list[str]:
    """A transcript's entries, each from its ``====`` line."""
    return ["====" + part for part in text.split("\n====")[1:]]


# --- 1. P2: a role in the player's gender («Любовь — дежурная», «мирная жительница») ---


def test_P2_role_names_follow_the_players_gender(texts: dict[str, dict[str, str]]) -> None:
    ru = everywhere(texts, "ru")
    # The GM sheet, the final post, the game-over mail, the story: a woman's role is feminine.
    assert "  - Любовь: дежурная\n  - Кэт: мирная жительница\n" in ru
    assert "- Любовь — [b]дежурная[/b]\n- Кэт — [b]мирная жительница[/b]\n" in ru
    assert "  - Любовь — дежурная\n  - Кэт — мирная жительница\n" in ru
    assert "Любовь получает роль: дежурная." in ru
    assert "Ваша роль: ДЕЖУРНАЯ." in ru
    assert "Ваша роль: мирная жительница." in ru
    # A man's stays masculine; «маньяк» and «фанат» are the same for both.
    assert "  - Лев — мирный житель\n  - Павел — маньяк\n" in ru
    assert "Ник — фанат" in ru
    for old in (
        "Любовь — дежурный",
        "Любовь: дежурный",
        "Кэт — мирный житель",
        "Мария — [b]мирный житель",
        "Ваша роль: ДЕЖУРНЫЙ.",
    ):
        assert old not in ru
    en = everywhere(texts, "en")
    # English has one form for both.
    assert "  - Любовь: duty officer\n  - Кэт: civilian\n" in en
