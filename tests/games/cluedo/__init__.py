"""Cluedo, what both variants share (rules C1–C7 of RULES.md): the card helpers, the command
parser, the wording of a suggestion, and the conformance suite run for both variants
(``test_rules_*``, one driver per variant in :mod:`games.cluedo.drivers`)."""
