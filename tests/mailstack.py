"""Moved to :mod:`kits.mailstack`. This re-export goes once ``maniacmail.py`` and
``test_e2e_maniac.py`` import ``kits.mailstack`` themselves (they are being changed
elsewhere right now)."""

from kits.mailstack import Dovecot, SmtpServer

__all__ = ["Dovecot", "SmtpServer"]
