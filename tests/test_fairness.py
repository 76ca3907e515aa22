"""The fairness commitment to a deal (DESIGN.md, "Fairness commitment")."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kits import seed_000

from pbp.text.fairness import canonical_deal, commitment, verify

#: Seed 000's deal (kits.seed_000) as JSON has it: lists of cards.
HANDS: dict[str, list[str]] = {player: list(hand) for player, hand in seed_000.HANDS.items()}
SEED_000_DEAL: dict[str, Any] = {
    "solution": {"suspect": "Маша", "weapon": "Топор", "room": "Столовая"},
    "hands": HANDS,
}


def test_canonical_deal_is_sorted_compact_utf8_json() -> None:
    text = canonical_deal("exler-1", bytes([0, 1, 0xAB, 0xFF]), SEED_000_DEAL)
    assert text == (
        '{"deal":{"hands":{"Дуг":["Спальня","Пистолет","Молоток"],'
        '"Кросс":["Петя","Ваня","Нож"],"Роза":["Библиотека","Канделябр","Веревка"]},'
        '"solution":{"room":"Столовая","suspect":"Маша","weapon":"Топор"}},'
        '"game":"exler-1","salt":"0001abff"}'
    )
    assert json.loads(text)["deal"] == SEED_000_DEAL


def test_canonical_deal_keeps_hand_order_and_ignores_mapping_order() -> None:
    reordered = {"hands": dict(reversed(HANDS.items())), **SEED_000_DEAL}
    assert canonical_deal("g", b"\x07", reordered) == canonical_deal("g", b"\x07", SEED_000_DEAL)
    swapped = {
        **SEED_000_DEAL,
        "hands": {**HANDS, "Кросс": ["Нож", "Петя", "Ваня"]},
    }
    assert canonical_deal("g", b"\x07", swapped) != canonical_deal("g", b"\x07", SEED_000_DEAL)


def test_commitment_is_sha256_hex_of_the_utf8_text() -> None:
    assert commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert commitment("нож") == hashlib.sha256("нож".encode()).hexdigest()
    assert commitment("нож") == "69d10b6f9d9e76486306b23e4840cc4c7b7b315855aa2f47f6bdc628487abe15"


def test_verify_accepts_the_commitment_in_any_case_and_refuses_another() -> None:
    text = canonical_deal("g", b"\x01" * 32, SEED_000_DEAL)
    digest = commitment(text)
    assert verify(text, digest) is True
    assert verify(text, digest.upper()) is True
    assert verify(text.replace("Нож", "Топор"), digest) is False


def test_salt_changes_the_commitment() -> None:
    one = commitment(canonical_deal("g", b"\x01" * 32, SEED_000_DEAL))
    two = commitment(canonical_deal("g", b"\x02" * 32, SEED_000_DEAL))
    assert one != two
