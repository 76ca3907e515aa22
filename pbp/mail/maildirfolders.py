"""The folders of a Maildir pbp uses (:mod:`pbp.mail.maildir`): making them
(:func:`ensure_maildir`, :func:`mark_folder`, :func:`open_maildir`), and telling why
this process's user cannot use one.

A Maildir pbp's user cannot read, write or make (another user's, a read-only mount) is
refused when the inbox or outbox is opened, in one sentence (:func:`maildir_problem`,
:class:`MaildirAccessError`), and a fault of the file system met later (the folders'
owner changed while ``pbp run`` serves) is that sentence too
(:meth:`pbp.mail.maildir.MaildirInbox.explain`, the outbox's
:class:`~pbp.mail.base.TransientSendError`), never a traceback.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

DONE_FOLDER = ".done"
"""Maildir++ subfolder (relative to the Maildir root) holding processed messages."""

KEPT_FOLDER = ".pbp-kept"
"""Maildir++ subfolder holding a copy of every message set aside for the GM."""
_SUBDIRS = ("tmp", "new", "cur")


def ensure_maildir(path: Path) -> None:
    """Create ``path`` and its ``tmp/``, ``new/``, ``cur/`` when missing."""
    for sub in _SUBDIRS:
        (path / sub).mkdir(parents=True, exist_ok=True)


def mark_folder(folder: Path) -> None:
    """Make the Maildir++ folder ``folder`` (:func:`ensure_maildir`) with its
    ``maildirfolder`` mark, which is made once and never touched again (another user's
    mark would be no fault)."""
    ensure_maildir(folder)
    mark = folder / "maildirfolder"
    if not mark.exists():
        mark.touch()


class MaildirAccessError(Exception):
    """A Maildir this process's user cannot use as pbp must (:func:`maildir_problem`);
    ``str()`` is one sentence naming the Maildir, the folder at fault and what to do."""


#: ``os.access`` as the process acts (its effective ids), where the system can say so.
_EFFECTIVE = os.access in os.supports_effective_ids


def _can(path: Path, mode: int) -> bool:
    return os.access(path, mode, effective_ids=_EFFECTIVE)


def maildir_problem(path: Path, role: str, folders: Sequence[str] = ()) -> str | None:
    """Why this process's user cannot use the Maildir at ``path`` as pbp's ``role``
    (``"inbox"``, ``"outbox"``: the sentence's word), with its Maildir++ ``folders``
    (the inbox's :data:`DONE_FOLDER` and :data:`KEPT_FOLDER`), or None. Creates nothing.

    pbp reads and writes every folder of it (``tmp/``, ``new/``, ``cur/``, each
    folder's too: mail is delivered through ``tmp/`` and moved out of ``new/`` and
    ``cur/``), and enters ``path`` itself; a folder missing is made later, so the one
    it is made in must be writable. The first fault found, as one sentence:

    - ``the Maildir inbox mail/inbox is read-only for this user (mail/inbox/new cannot
      be written): make it readable and writable for the user pbp runs as (its owner
      and mode, or a read-write mount)`` (another user's folder, or a read-only mount);
    - ``… cannot be read by this user (…)``; ``… cannot be reached by this user (…)``
      (a folder above it closed to him); ``… cannot be made: mail is read-only for this
      user; …`` or ``… is not a folder``; ``… is no Maildir: mail/inbox/new is not a
      folder``; ``… is a folder that holds other files and no Maildir …`` (an existing
      folder with neither ``cur``, ``new`` nor ``tmp`` in it, which pbp would turn into a
      Maildir beside its files: ``/dev``, a home folder).
    """
    what = f"the Maildir {role} {path}"
    fix = (
        "make it readable and writable for the user pbp runs as (its owner and mode, or a "
        "read-write mount)"
    )
    order = ("new", "cur", "tmp")  # where mail is first: the folder a reader would look at
    folders_of = [path / sub for sub in order]
    for folder in folders:
        folders_of += [path / folder, *(path / folder / sub for sub in order)]
    for directory in [path, *folders_of]:
        try:
            found = os.stat(directory)
        except FileNotFoundError:
            above = directory.parent
            while not above.exists() and above != above.parent:
                above = above.parent
            if not above.is_dir():
                return f"{what} cannot be made: {above} is not a folder"
            if not _can(above, os.W_OK | os.X_OK):
                return f"{what} cannot be made: {above} is read-only for this user; {fix}"
            continue
        except OSError as error:  # a folder above it that he may not enter
            reason = error.strerror or type(error).__name__
            return f"{what} cannot be reached by this user ({directory}: {reason}): {fix}"
        if not stat.S_ISDIR(found.st_mode):
            return f"{what} is no Maildir: {directory} is not a folder"
        if not _can(directory, os.R_OK | os.X_OK):
            return f"{what} cannot be read by this user ({directory}): {fix}"
        if directory == path and not _maildir_or_empty(path, folders):
            return (
                f"{what} is a folder that holds other files and no Maildir (no cur, new or "
                "tmp in it): give the path of a Maildir, or of a new or empty folder (pbp "
                "makes the Maildir in it)"
            )
        if directory != path and not _can(directory, os.W_OK):
            return f"{what} is read-only for this user ({directory} cannot be written): {fix}"
    return None


def _maildir_or_empty(path: Path, folders: Sequence[str] = ()) -> bool:
    """Whether the folder ``path`` holds a Maildir's ``cur``, ``new`` or ``tmp`` or one
    of pbp's Maildir++ ``folders`` (``.done``: an inbox of an older pbp, or one whose
    ``new`` was removed), or nothing at all (pbp may make a Maildir there). Reads one
    entry at most beyond those ``lstat`` calls."""
    if any(os.path.lexists(path / sub) for sub in (*_SUBDIRS, *folders)):
        return True
    with os.scandir(path) as entries:
        return next(entries, None) is None


def open_maildir(path: Path, role: str, folders: Sequence[str] = (), made: int = 0) -> None:
    """Make the Maildir at ``path`` and the first ``made`` of its Maildir++ ``folders``
    where missing, once :func:`maildir_problem` finds nothing in the way of any of
    them (the others are made when first needed).

    :raises MaildirAccessError: its sentence (or what making a folder met)."""
    problem = maildir_problem(path, role, folders)
    if problem is None:
        try:
            ensure_maildir(path)
            for folder in folders[:made]:
                mark_folder(path / folder)
        except OSError as error:
            problem = maildir_problem(path, role, folders) or maildir_fault(path, role, error)
    if problem is not None:
        raise MaildirAccessError(problem)


def maildir_fault(path: Path, role: str, error: OSError) -> str:
    """``error`` met in the Maildir at ``path`` as one sentence (its place and reason)."""
    reason = error.strerror or str(error) or type(error).__name__
    place = f" ({error.filename})" if error.filename else ""
    return f"the Maildir {role} {path} cannot be used: {reason}{place}"


def explain_maildir(
    error: BaseException, path: Path, role: str, folders: Sequence[str] = ()
) -> str | None:
    """``error`` as one sentence when it is the Maildir's at ``path`` (an
    :class:`OSError` on a file in it: :func:`maildir_problem`'s sentence, else its
    reason and file; a :class:`MaildirAccessError`), else None."""
    if isinstance(error, MaildirAccessError):
        return str(error)
    if not isinstance(error, OSError) or not error.filename:
        return None
    where = os.path.abspath(os.fsdecode(error.filename))
    if not Path(where).is_relative_to(os.path.abspath(path)):
        return None
    return maildir_problem(path, role, folders) or maildir_fault(path, role, error)
