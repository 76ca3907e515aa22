"""Fairness commitment to a deal (DESIGN.md, "Fairness commitment"; rule C2).

At the start the opening post publishes :func:`commitment` of :func:`canonical_deal`;
the final post prints the canonical text itself, so anyone can recompute the hash.
The salt (32 random bytes, never derived from the shuffle seed) keeps the hash from
being brute-forced over the few possible deals. Pure: only ``json`` and ``hashlib``. In the
text layer, below the games: the games commit to their deals with it, and a text's
``sha256`` filter (:mod:`pbp.text.environment`) shows the commitment of a canonical text.

The same functions serve every game: the deal is any JSON-able mapping — for Cluedo
``{"solution": {"suspect", "weapon", "room"}, "hands": {player: [card, ...]}}``
(see :func:`pbp.games.cluedo.cards.deal_as_json`), for Maniac the roles.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping


def canonical_deal(game_id: str, salt: bytes, deal: Mapping[str, object]) -> str:
    """The canonical text: JSON of ``{"game": ID, "salt": HEX, "deal": deal}``, keys
    sorted at every level, no spaces, non-ASCII kept as is (the text is UTF-8 encoded
    for hashing). ``HEX`` is the salt in lowercase hexadecimal.

    >>> canonical_deal("g", b"\\x01\\xab", {"hands": {"Дуг": ["нож"]}, "solution": {}})
    '{"deal":{"hands":{"Дуг":["нож"]},"solution":{}},"game":"g","salt":"01ab"}'

    :raises TypeError: ``deal`` holds a value that is not JSON (e.g. a set).
    """
    document = {"game": game_id, "salt": salt.hex(), "deal": deal}
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def commitment(canonical: str) -> str:
    """SHA-256 of the UTF-8 bytes of ``canonical``, as 64 lowercase hex digits."""
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def verify(canonical: str, published: str) -> bool:
    """True when ``published`` (hex, any case) is the commitment of ``canonical``."""
    return hmac.compare_digest(commitment(canonical), published.lower())
