"""Cluedo by rounds (rules R1–R7 of RULES.md; seed 000): engine, service and e2e tests."""
