"""Maniac (rules M1–M12 of RULES.md; seed 002): engine, parser, service and e2e tests."""
