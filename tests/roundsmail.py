"""Moved to :mod:`kits.mail`, :mod:`kits.daemon` and :mod:`kits.wait`. This re-export
goes once ``maniacmail.py`` and ``test_e2e_maniac.py`` import the kits themselves (they
are being changed elsewhere right now)."""

from kits.daemon import REPO, DaemonProcess
from kits.mail import Received, mailbox, send, subjects
from kits.wait import wait_for

__all__ = ["REPO", "DaemonProcess", "Received", "mailbox", "send", "subjects", "wait_for"]
