"""A small scripted IMAP server (RFC 3501 subset) on 127.0.0.1, for the faults and
quirks a real server cannot be made to show on demand (issue 6, promises 2 and 4).

It speaks just what :class:`pbp.mail.imap.ImapInbox` sends through imapclient:
CAPABILITY, LOGIN, SELECT, NOOP, UID SEARCH, UID FETCH, UID STORE, IDLE/DONE,
LOGOUT, with any user and password and one folder. Faults, switched on by the
test at any moment:

* ``bye_in_idle``: 0.2 s into an IDLE, ``* BYE`` and the connection is closed;
* ``silent_idle``: IDLE is acknowledged and then nothing is ever announced;
* ``mute``: every command after SELECT is read and never answered (a dead peer);
* ``search_extra``: ``UID SEARCH`` also returns the highest UID, done or not (a
  server answering ``UID n:*`` with the last old message, RFC 3501 §6.4.8);
* ``flags_only``: UIDs whose FETCH returns only ``FLAGS`` (once each);
* ``ghosts``: UIDs that SEARCH returns but FETCH does not (expunged in between);
* :meth:`ScriptedImap.reset_all`: every open connection is reset (RST).

``commands`` logs every command received, e.g. ``"UID SEARCH NOT KEYWORD $PbpDone"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import socket
import struct
import threading
from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["ScriptedImap"]


@dataclass
class Stored:
    raw: bytes
    internaldate: datetime
    flags: set[str] = field(default_factory=set)


class ScriptedImap:
    """Run with ``with ScriptedImap() as server:``; ``server.port`` is its port."""

    def __init__(self, uidvalidity: int = 1764600000) -> None:
        self.uidvalidity = uidvalidity
        self.messages: dict[int, Stored] = {}
        self.commands: list[str] = []
        self.bye_in_idle = False
        self.silent_idle = False
        self.mute = False
        self.search_extra = False
        self.flags_only: set[int] = set()
        self.ghosts: set[int] = set()
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._idle_waiters: list[asyncio.Event] = []

    # -- the test's side ---------------------------------------------------

    def add(self, raw: bytes, internaldate: datetime) -> int:
        """Deliver a message; returns its UID. Waiting IDLEs get ``* n EXISTS``."""
        uid = max(self.messages, default=0) + 1
        self.messages[uid] = Stored(raw, internaldate)
        self._loop.call_soon_threadsafe(self._announce)
        return uid

    def reset_all(self) -> None:
        """Reset (RST) every open connection."""

        def reset() -> None:
            for writer in list(self._writers):
                sock = writer.get_extra_info("socket")
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                writer.transport.abort()

        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), self._loop).result(5)
        self._loop.call_soon_threadsafe(reset)
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0.05), self._loop).result(5)

    def __enter__(self) -> ScriptedImap:
        blocked = {signal.SIGTERM, signal.SIGINT}
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        try:
            self._thread.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self._loop
        ).result(5)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        async def shut() -> None:
            assert self._server is not None
            self._server.close()
            for writer in list(self._writers):
                writer.transport.abort()
            await asyncio.sleep(0.05)
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(shut(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    # -- the server's side -------------------------------------------------

    def _announce(self) -> None:
        for event in self._idle_waiters:
            event.set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        selected = False
        try:
            writer.write(b"* OK [CAPABILITY IMAP4rev1 IDLE UIDPLUS] scripted ready\r\n")
            while line := await reader.readline():
                text = line.decode("utf-8", "replace").rstrip("\r\n")
                tag, _, command = text.partition(" ")
                self.commands.append(command)
                if self.mute and selected:
                    continue
                verb = command.split(" ", 1)[0].upper()
                if verb == "UID":
                    verb = "UID " + command.split(" ", 2)[1].upper()
                if verb == "IDLE":
                    if not await self._idle(tag, reader, writer):
                        return
                    continue
                reply = self._answer(verb, command)
                if verb == "SELECT":
                    selected = True
                writer.write(reply.replace(b"TAG ", tag.encode() + b" "))
                await writer.drain()
                if verb == "LOGOUT":
                    return
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _idle(
        self, tag: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """One IDLE; False when the connection was closed (BYE)."""
        writer.write(b"+ idling\r\n")
        await writer.drain()
        if self.bye_in_idle:
            await asyncio.sleep(0.2)
            writer.write(b"* BYE scripted server shutting down\r\n")
            await writer.drain()
            return False
        announced = asyncio.Event()
        self._idle_waiters.append(announced)
        done = asyncio.ensure_future(reader.readline())
        try:
            while not done.done():
                waiting = asyncio.ensure_future(announced.wait())
                await asyncio.wait({done, waiting}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
                if announced.is_set() and not self.silent_idle:
                    writer.write(f"* {len(self.messages)} EXISTS\r\n".encode())
                    await writer.drain()
                announced.clear()
        finally:
            self._idle_waiters.remove(announced)
        self.commands.append(done.result().decode().strip())  # DONE
        if not done.result():
            return False
        writer.write(tag.encode() + b" OK IDLE terminated\r\n")
        await writer.drain()
        return True

    def _answer(self, verb: str, command: str) -> bytes:
        if verb == "CAPABILITY":
            return b"* CAPABILITY IMAP4rev1 IDLE UIDPLUS\r\nTAG OK done\r\n"
        if verb in ("LOGIN", "NOOP", "UNSELECT", "CLOSE"):
            return b"TAG OK done\r\n"
        if verb == "LOGOUT":
            return b"* BYE bye\r\nTAG OK done\r\n"
        if verb == "SELECT":
            return (
                f"* {len(self.messages)} EXISTS\r\n* 0 RECENT\r\n"
                f"* OK [UIDVALIDITY {self.uidvalidity}] UIDs valid\r\n"
                f"* OK [UIDNEXT {max(self.messages, default=0) + 1}] next\r\n"
                "* FLAGS (\\Seen \\Deleted $PbpDone)\r\n"
                "* OK [PERMANENTFLAGS (\\Seen \\Deleted $PbpDone \\*)] flags\r\n"
                "TAG OK [READ-WRITE] selected\r\n"
            ).encode()
        if verb == "UID SEARCH":
            keyword = command.rsplit(" ", 1)[1]
            uids = [u for u, m in self.messages.items() if keyword not in m.flags]
            uids += sorted(self.ghosts)
            if self.search_extra and self.messages:
                uids.append(max(self.messages))
            found = " ".join(str(u) for u in sorted(set(uids)))
            return f"* SEARCH {found}\r\nTAG OK done\r\n".replace("SEARCH \r", "SEARCH\r").encode()
        if verb == "UID FETCH":
            return self._fetch(command)
        if verb == "UID STORE":
            match = re.match(r"UID STORE ([\d,:]+) \+FLAGS(?:\.SILENT)? \((.*)\)", command, re.I)
            assert match is not None, command
            for uid in _uids(match.group(1)):
                if uid in self.messages:
                    self.messages[uid].flags.update(match.group(2).split())
            return b"TAG OK stored\r\n"
        return b"TAG BAD unknown command\r\n"

    def _fetch(self, command: str) -> bytes:
        out = b""
        for number, uid in enumerate(_uids(command.split(" ")[2]), start=1):
            stored = self.messages.get(uid)
            if stored is None:
                continue  # a ghost: expunged since SEARCH
            flags = " ".join(sorted(stored.flags))
            if uid in self.flags_only:
                self.flags_only.discard(uid)
                out += f"* {number} FETCH (UID {uid} FLAGS ({flags}))\r\n".encode()
                continue
            # The items asked for (RFC 3501 §6.4.5): RFC822.SIZE, INTERNALDATE, BODY.PEEK[]
            # (whole, or its first bytes).
            items = command.rsplit("(", 1)[1].rstrip(")").upper().split()
            parts = [f"UID {uid}".encode()]
            if "RFC822.SIZE" in items:
                parts.append(f"RFC822.SIZE {len(stored.raw)}".encode())
            if "INTERNALDATE" in items:
                date = stored.internaldate.strftime("%d-%b-%Y %H:%M:%S %z")
                parts.append(f'INTERNALDATE "{date}"'.encode())
            if "BODY.PEEK[]" in items:
                parts.append(f"BODY[] {{{len(stored.raw)}}}\r\n".encode() + stored.raw)
            for item in items:  # BODY.PEEK[]<0.n>: the first n bytes, as BODY[]<0>
                if item.startswith("BODY.PEEK[]<0."):
                    first = stored.raw[: int(item[len("BODY.PEEK[]<0.") : -1])]
                    parts.append(f"BODY[]<0> {{{len(first)}}}\r\n".encode() + first)
            out += f"* {number} FETCH (".encode() + b" ".join(parts) + b")\r\n"
        return out + b"TAG OK fetched\r\n"


def _uids(text: str) -> list[int]:
    found: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition(":")
        found.extend(range(int(low), int(high or low) + 1))
    return found
