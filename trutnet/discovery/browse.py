"""Find tables on the LAN (I/O edge): zeroconf for presence, the broker for liveness.

Everything announced is hostile input: TXT values are cut short and stripped of
control characters before anything prints them. mDNS says a table was announced, not
that its host is alive (a killed host stays listed until its records expire). A
found table is shown as open only if its broker answers and still holds the host's
retained lobby message, which the host's last will clears when it dies. That message
must be signed by the table's own host (the table id names its key,
``docs/protocol.md`` 7.10) and name the fingerprint the mDNS records give: a forged or
mismatched announcement hides nothing and points nowhere.
A private table's lobby message is sealed with a key only its password's exchange gives
(docs/protocol.md 9.10): it is shown (as private, from its TXT records) while its broker
holds the host's retained claim of the table's place, which the host's last will clears.

:func:`live_tables` searches once; :class:`LanSearch` goes on searching
(``tables --watch``), so that each look at the LAN sees every table announced since
it began rather than those a short search happened to hear.

The ``game`` record names the game the table plays (a registry name: at most
:data:`MAX_GAME` characters among lowercase letters, digits, ``_ . -``); a record
without a valid one is ignored, and the signed announcement must name the same game.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, ServiceListener, Zeroconf

from trutnet.discovery.announce import SERVICE
from trutnet.net import topics
from trutnet.net.broker import Endpoint
from trutnet.protocol.lobby import check_announcement

MAX_GAME = 32
GAME_NAME = re.compile(rf"[a-z0-9][a-z0-9_.-]{{0,{MAX_GAME - 1}}}")


@dataclass
class FoundTable:
    name: str
    table: str
    endpoint: Endpoint
    txt: dict[str, str]
    live: dict[str, Any] | None = None

    @property
    def private(self) -> bool:
        return self.txt.get("private") == "1"

    @property
    def invite(self) -> int | None:
        """A sealed table's invitation number (9.9); None for another table."""
        if self.txt.get("sealed") == "1" and self.txt.get("invite", "").isdigit():
            return int(self.txt["invite"][:5])
        return None

    @property
    def game(self) -> str:
        """The game the table plays: its host's signed announcement says, else (a
        private table, whose announcement we cannot read) its TXT records."""
        if self.live is not None and isinstance(self.live.get("game"), str):
            return printable(self.live["game"], MAX_GAME)
        return self.txt.get("game", "?")

    @property
    def seats(self) -> str:
        if self.live is not None and "taken" in self.live:
            return printable(f"{self.live.get('taken')}/{self.live.get('players')}", 9)
        return self.txt.get("seats", "?")

    def to_dict(self) -> dict[str, Any]:
        """The table as ``tables --json`` prints it: the same fields for every table,
        so that a script reads each alike; a sealed one's are null but its invitation's
        number, its broker and its status (it says nothing more of itself)."""
        if self.invite is not None:
            status = "sealed" if self.live else "unreachable"
            unsaid = dict.fromkeys(("name", "table", "game", "variant", "seats", "host"))
            return {
                **unsaid,
                "broker": self.endpoint.url,
                "status": status,
                "private": True,
                "invite": self.invite,
            }
        return {
            "name": self.name,
            "table": self.table,
            "broker": self.endpoint.url,
            "game": self.game,
            "variant": self.txt.get("variant"),
            "seats": self.seats,
            "host": self.txt.get("fp"),
            "status": printable(str(self.live.get("status")), 16) if self.live else "unreachable",
            "private": self.private,
            "invite": None,
        }


def printable(text: str, limit: int) -> str:
    """Text from the network made safe to print on a terminal: no control characters
    (no escape sequences), at most ``limit`` characters."""
    return "".join(c if c.isprintable() else "?" for c in text[:limit])


class _Collector(ServiceListener):
    def __init__(self) -> None:
        self.found: dict[str, FoundTable] = {}

    def _read(self, zc: Zeroconf, type_: str, name: str) -> None:
        info = zc.get_service_info(type_, name, timeout=1500)
        if info is None or not info.parsed_addresses():
            return
        txt = {
            printable(k.decode(errors="replace"), 16): printable(
                (v or b"").decode(errors="replace"), 64
            )
            for k, v in info.properties.items()
        }
        address = Endpoint(info.parsed_addresses()[0], info.port or 0)
        if txt.get("v") == "1" and txt.get("sealed") == "1" and txt.get("invite", "").isdigit():
            self.found[name] = FoundTable(f"invitation {txt['invite'][:5]}", "", address, txt)
            return
        if txt.get("v") != "1" or "table" not in txt:
            return
        if not GAME_NAME.fullmatch(txt.get("game", "")):
            return  # which game it plays is what a joiner checks first
        self.found[name] = FoundTable(
            txt.get("name", name),
            txt["table"],
            Endpoint(info.parsed_addresses()[0], info.port or 0),
            txt,
        )

    def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self._read(zc, type_, name)

    def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self._read(zc, type_, name)

    def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self.found.pop(name, None)


class LanSearch:
    """A search of the LAN that goes on until :meth:`close`: what :meth:`tables`
    returns is what mDNS has said since the search began (a table that said goodbye
    is gone), so that a table is not missed by a search that happened to be short
    (``trutnet tables --watch``)."""

    def __init__(self, interfaces: list[str] | None = None) -> None:
        self.zeroconf = Zeroconf(
            interfaces=interfaces or InterfaceChoice.All, ip_version=IPVersion.V4Only
        )
        self.collector = _Collector()
        self.browser = ServiceBrowser(self.zeroconf, SERVICE, self.collector)

    def tables(self, wait: float) -> list[FoundTable]:
        """After ``wait`` seconds, the tables announced so far (presence only)."""
        time.sleep(wait)
        for _ in range(10):  # the zeroconf thread may add one as we read
            with contextlib.suppress(RuntimeError):
                found = list(self.collector.found.values())
                break
        else:
            found = []
        return [FoundTable(t.name, t.table, t.endpoint, dict(t.txt)) for t in found]

    def live_tables(self, wait: float) -> list[FoundTable]:
        """After ``wait`` seconds, the announced tables whose broker confirms the host is
        there (see :func:`live_tables`)."""
        return _live(self.tables(wait))

    def close(self) -> None:
        self.browser.cancel()
        self.zeroconf.close()


def browse(timeout: float = 2.0, interfaces: list[str] | None = None) -> list[FoundTable]:
    """Tables announced on the LAN within ``timeout`` seconds (presence only)."""
    search = LanSearch(interfaces)
    try:
        return search.tables(timeout)
    finally:
        search.close()


async def place_claimed(endpoint: Endpoint, place: str, timeout: float = 3.0) -> bool:
    """Whether the broker at ``endpoint`` holds a host's claim of the invitation place
    ``place`` (a code's nameplate, a private table's id in hex). A claim is retained,
    so it comes right after the subscription: a marker published after it, on a topic
    of our own, says that none came (no need to wait out ``timeout``)."""
    from trutnet.net.mqtt_link import mqtt_client

    claim = topics.invite_claim(place)
    marker = topics.invite_claim(f"probe-{os.urandom(8).hex()}")
    with contextlib.suppress(Exception):
        async with (
            asyncio.timeout(timeout),
            mqtt_client(endpoint, timeout=timeout) as client,
        ):
            await client.subscribe(claim, qos=1)
            await client.subscribe(marker, qos=1)
            await client.publish(marker, b"?", qos=1)
            async for message in client.messages:
                if str(message.topic) == claim and message.payload:
                    return True
                if str(message.topic) == marker:
                    return False
    return False


async def _liveness(table: FoundTable, timeout: float) -> None:
    from trutnet.net.mqtt_link import mqtt_client

    if table.invite is not None:  # sealed: its broker holds the invitation's claim
        if await place_claimed(table.endpoint, str(table.invite), timeout):
            table.live = {"status": "sealed"}
        return
    if table.private:  # its broker holds the claim of the table's place (9.10)
        if re.fullmatch(r"[0-9a-f]{32}", table.table) and await place_claimed(
            table.endpoint, table.table, timeout
        ):
            table.live = {"status": table.txt.get("status", "open"), "private": True}
        return
    with contextlib.suppress(Exception):
        async with (
            asyncio.timeout(timeout),
            mqtt_client(table.endpoint, timeout=timeout) as client,
        ):
            table_id = bytes.fromhex(table.table)
            lobby = topics.lobby(table_id)
            await client.subscribe(lobby, qos=1)
            async for message in client.messages:
                if str(message.topic) != lobby:
                    continue  # amqtt 0.12 also hands out other topics' retained messages
                payload = message.payload
                if isinstance(payload, bytes) and payload:
                    live = check_announcement(payload, table_id)  # signed by the host
                    txt = table.txt
                    if live["host"] == txt.get("fp") and live["game"] == txt.get("game"):
                        table.live = live
                break


def invitation_brokers(
    nameplate: int, timeout: float = 2.0, interfaces: list[str] | None = None
) -> list[Endpoint]:
    """The brokers of the sealed tables announced on the LAN with ``nameplate`` (the
    number of an invitation code), found within ``timeout`` seconds."""
    return [t.endpoint for t in browse(timeout, interfaces) if t.invite == nameplate]


def live_tables(timeout: float = 2.0, interfaces: list[str] | None = None) -> list[FoundTable]:
    """Announced tables whose broker confirms the host is there."""
    return _live(browse(timeout, interfaces))


def _live(found: list[FoundTable]) -> list[FoundTable]:
    async def check() -> None:
        await asyncio.gather(*(_liveness(t, 1.5) for t in found))

    asyncio.run(check())
    return [t for t in found if t.live is not None]


def pick_table(
    name: str | None, timeout: float = 2.0, interfaces: list[str] | None = None
) -> tuple[Endpoint, bytes] | None:
    """The open table named ``name`` (or the first open one)."""
    for table in live_tables(timeout, interfaces):
        if (
            table.live
            and table.live.get("status") == "open"
            and (name is None or name in (table.name, table.table))
        ):
            return table.endpoint, bytes.fromhex(table.table)
    return None
