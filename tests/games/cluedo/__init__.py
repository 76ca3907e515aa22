"""Conformance suites, one per rule family of RULES.md (``test_rules_cluedo``: C1–C7)."""
