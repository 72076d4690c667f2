"""Announce a hosted table on the LAN with zeroconf (mDNS/DNS-SD), I/O edge.

Service type ``_trutnet._tcp.local.``; the service port is the broker's port; TXT
records: ``v`` (protocol version), ``game`` (the game's registry name, as in the
lobby announcement), ``variant`` (as in the lobby announcement: the game's
``variant`` option and its options that are on), ``seats`` ("taken/total"),
``name`` (table name), ``fp`` (host key fingerprint), ``table`` (table id, hex),
``port`` (broker port), ``status``, ``private`` ("1": the broker wants the table
password, which is never announced). The records are updated as seats fill and
removed at the end.

A sealed table (docs/protocol.md 9.9) says nothing of itself: its records are ``v``,
``sealed`` ("1"), ``invite`` (the nameplate of its invitation code, which a guest
holds anyway) and ``port``, under the instance name ``invite-<nameplate>``; a guest
finds its broker by the nameplate (:func:`~trutnet.discovery.browse.invitation_brokers`).
"""

from __future__ import annotations

import socket
from typing import Any

from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, Zeroconf

from trutnet.net.broker import Endpoint

SERVICE = "_trutnet._tcp.local."


def txt_records(message: dict[str, Any], endpoint: Endpoint) -> dict[str, str]:
    return {
        "v": str(message["v"]),
        "game": message["game"],
        "variant": message["variant"],
        "seats": f"{message['taken']}/{message['players']}",
        "name": message["name"],
        "fp": message["host"],
        "table": message["table"],
        "port": str(endpoint.port),
        "status": message["status"],
        "private": "1" if message.get("private") else "0",
    }


class TableAnnouncer:
    def __init__(self, address: str, interfaces: list[str] | None = None) -> None:
        self.address = address
        if interfaces is None:
            interfaces = [address] if address not in ("0.0.0.0", "") else None
        self.zeroconf = Zeroconf(
            interfaces=interfaces or InterfaceChoice.All, ip_version=IPVersion.V4Only
        )
        self.info: ServiceInfo | None = None

    def update(self, message: dict[str, Any], endpoint: Endpoint) -> None:
        table = message["table"][:8]
        name = f"{message['name'][:40]} {table}"
        self._say(name, f"trutnet-{table}", txt_records(message, endpoint), endpoint)

    def update_sealed(self, nameplate: int, endpoint: Endpoint) -> None:
        """Announce a sealed table: its invitation's nameplate and its broker, no more."""
        txt = {"v": "1", "sealed": "1", "invite": str(nameplate), "port": str(endpoint.port)}
        self._say(f"invite-{nameplate}", f"trutnet-invite-{nameplate}", txt, endpoint)

    def _say(self, name: str, server: str, txt: dict[str, str], endpoint: Endpoint) -> None:
        """Register the records, or update them once registered."""
        info = ServiceInfo(
            SERVICE,
            f"{name}.{SERVICE}",
            port=endpoint.port,
            addresses=[socket.inet_aton(endpoint.host)],
            properties=txt,
            server=f"{server}.local.",
        )
        if self.info is None:
            self.zeroconf.register_service(info)
        else:
            self.zeroconf.update_service(info)
        self.info = info

    def close(self) -> None:
        if self.info is not None:
            self.zeroconf.unregister_service(self.info)
            self.info = None
        self.zeroconf.close()
