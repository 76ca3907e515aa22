"""Mail is served in the middle of a long round of deadlines (issue 6 promise 7).

With a thousand games closing their day at the same minute, a round passes a
thousand deadlines; a move that arrives meanwhile must not wait for all of them
(the benchmark ``benchmarks/run.py`` measures the wait; here only the mechanism is
checked, with the three bundled games on Maildir and the pace set to "always").
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from kits.table import TEMPLATES, utc

import pbp.app.service
from pbp.app.deadlines import Deadlines
from pbp.app.service import Service
from pbp.config.loading import load_config
from pbp.games.core.registry import KINDS
from pbp.mail.maildir import MaildirInbox, MaildirTransport, deliver
from pbp.store import Store
from pbp.text.render import Renderer

ROOT = Path(__file__).resolve().parent.parent
START = utc(2026, 12, 1, 12)  # 15:00 in Moscow: every first deadline is hours ahead
LATER = START + timedelta(days=1, hours=2)  # every game's first deadline has passed


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    shutil.copy(ROOT / "games.yaml", tmp_path / "games.yaml")
    config = load_config(tmp_path / "games.yaml")
    store = Store(config.store)
    served = Service(
        config,
        store,
        Renderer(TEMPLATES, kinds=KINDS),
        inbox=MaildirInbox(tmp_path / "mail" / "inbox"),
        transport=MaildirTransport(tmp_path / "mail" / "outbox"),
        clock=lambda: LATER,
    )
    served.run_once(START)
    yield served
    store.close()


def status_mail(service: Service, game_id: str, player: str, at: datetime) -> tuple[bytes, str]:
    token = service.store.player_token(game_id, player)
    email = service.store.player_email(game_id, player)
    message = EmailMessage(policy=SMTP)
    message["From"] = str(email)
    message["To"] = f"gm+{token}@example.test"
    message["Subject"] = "статус"
    message["Date"] = format_datetime(at)
    message_id = make_msgid(domain="example.test")
    message["Message-ID"] = message_id
    message.set_content("СТАТУС\n")
    return bytes(message), message_id


def test_a_move_arriving_during_the_deadlines_is_answered_before_the_round_ends(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pbp.app.service, "SERVE_EVERY_SECONDS", 0.0)
    inbox = tmp_path / "mail" / "inbox"
    raw, message_id = status_mail(service, "maniac-1", "Вася", LATER)
    original: Callable[..., None] = Deadlines.advance
    order: list[str] = []
    queued: dict[str, int] = {}  # game -> mails in the outbox when its deadline began

    def advance(
        self: Deadlines, game_id: str, until: datetime, now: datetime | None = None
    ) -> None:
        order.append(game_id)
        queued[game_id] = len(self.store.outbox())
        if game_id == "exler-1" and now is None:
            # Arrives while the round passes exler-1's deadline (the first of three).
            deliver(inbox, raw, at=LATER)
        original(self, game_id, until, now)

    monkeypatch.setattr(Deadlines, "advance", advance)
    outcomes = service.run_once(LATER)

    assert [(o.outcome, o.game_id) for o in outcomes] == [("status", "maniac-1")]
    # Served before table-1's deadline, the second game of the round; its own game's
    # day was closed first (D8), by the message itself, not by the round.
    assert order == ["exler-1", "maniac-1", "table-1", "maniac-1"]
    outbox = service.store.outbox()
    answer = next(i for i, m in enumerate(outbox) if message_id.encode() in m.raw)
    assert answer < queued["table-1"] < len(outbox)  # table-1's deadline mailed after it
    assert all(m.sent_at is not None for m in outbox)
