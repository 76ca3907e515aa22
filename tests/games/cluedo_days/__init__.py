"""Cluedo by game days (rules D1–D8 of RULES.md; seed 001): engine, service and e2e tests."""
