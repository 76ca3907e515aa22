"""Mail providers a GM may name instead of writing out servers (``mail: {provider: yandex,
…}`` in ``games.yaml``): each one's IMAP and SMTP host, port and TLS, and how it makes
personal addresses (``plus`` where it delivers ``login+tag@`` to ``login@``, else the
``subject_tag``). Facts from the providers' published client settings (checked for
this release); explicit ``inbox:``/``outbox:``/``personal_address:`` settings override
them.

Pure data: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Tls = Literal["none", "starttls", "ssl"]


@dataclass(frozen=True)
class Provider:
    """One provider's settings for a mailbox on it.

    ``imap``/``smtp``: ``(host, port, tls)``; ``personal_address``: ``"plus"`` or
    ``"subject_tag"``; ``before``: what the GM must do on the provider's side first (one
    sentence, English); ``refused``: None, or why pbp cannot use the provider at all.
    """

    name: str
    imap: tuple[str, int, Tls]
    smtp: tuple[str, int, Tls]
    personal_address: Literal["plus", "subject_tag"]
    before: str
    refused: str | None = None


PROVIDERS: dict[str, Provider] = {
    "yandex": Provider(
        "Yandex Mail",
        ("imap.yandex.ru", 993, "ssl"),
        ("smtp.yandex.ru", 465, "ssl"),
        "plus",
        "allow mail programs (Mail settings, Mail clients: IMAP) and make an app password "
        "for mail (Yandex ID, Security, App passwords); login+tag@yandex.ru reaches the box",
    ),
    "gmail": Provider(
        "Gmail",
        ("imap.gmail.com", 993, "ssl"),
        ("smtp.gmail.com", 465, "ssl"),
        "plus",
        "turn on 2-Step Verification, then make an app password (Google Account, Security, "
        "App passwords); enable IMAP in Gmail's settings where they still offer the switch; "
        "login+tag@gmail.com reaches the box",
    ),
    "mailru": Provider(
        "Mail.ru",
        ("imap.mail.ru", 993, "ssl"),
        ("smtp.mail.ru", 465, "ssl"),
        "subject_tag",
        "make a password for external applications (Mail.ru account, Security, Passwords "
        "for external applications) with IMAP and SMTP access; pbp uses the Subject tag "
        "because delivery of login+tag@mail.ru is not documented by Mail.ru (set "
        "personal_address: plus once a test mail to such an address reached the box)",
    ),
    "outlook": Provider(
        "Outlook.com",
        ("outlook.office365.com", 993, "ssl"),
        ("smtp-mail.outlook.com", 587, "starttls"),
        "plus",
        "",
        refused=(
            "Microsoft's personal mailboxes (outlook.com, hotmail.com, live.com) accept only "
            "OAuth 2.0 sign-in over IMAP and SMTP since September 2024, which pbp does not "
            "support: use another provider (yandex, gmail, mailru) or give inbox: and outbox: "
            "of a server that takes a password"
        ),
    ),
}


def provider(name: str) -> Provider:
    """The provider called ``name`` (``yandex``, ``gmail``, ``mailru``, ``outlook``).

    :raises ValueError: an unknown name (the message lists the known ones), or a
        provider pbp cannot use (:attr:`Provider.refused`).
    """
    found = PROVIDERS.get(name)
    if found is None:
        known = ", ".join(sorted(n for n, p in PROVIDERS.items() if p.refused is None))
        raise ValueError(
            f"unknown provider {name!r}: choose one of {known}, or give inbox: and outbox:"
        )
    if found.refused is not None:
        raise ValueError(f"provider {name}: {found.refused}")
    return found
