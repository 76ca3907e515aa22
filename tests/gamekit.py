"""Moved to :mod:`kits.table`. This re-export goes once ``maniackit.py`` and
``test_maniac_service.py`` import ``kits.table`` themselves (they are being changed
elsewhere right now)."""

from kits.table import GM, TEMPLATES, Table, body, summary, utc

__all__ = ["GM", "TEMPLATES", "Table", "body", "summary", "utc"]
