"""The embedded amqtt broker takes as many connections as its process may open files:
a fixed cap (256, once) would stop a broker serving many tables long before the
machine does."""

from __future__ import annotations

import resource
import socket

import pytest

from trutnet.net import broker_main
from trutnet.net.broker import EmbeddedBroker

CONNECTIONS = 300  # past the old fixed cap of 256


def _connect_packet(client_id: str) -> bytes:
    """An MQTT 3.1.1 CONNECT: clean session, keep-alive 60 s, no user."""
    ident = client_id.encode()
    variable = b"\x00\x04MQTT\x04\x02\x00\x3c"
    payload = len(ident).to_bytes(2, "big") + ident
    body = variable + payload
    assert len(body) < 128  # one byte of remaining length
    return bytes([0x10, len(body)]) + body


def _connack(sock: socket.socket) -> bytes:
    reply = b""
    while len(reply) < 4:
        chunk = sock.recv(4 - len(reply))
        if not chunk:
            break
        reply += chunk
    return reply


@pytest.mark.network
def test_amqtt_takes_more_connections_than_the_old_fixed_cap():
    broker = EmbeddedBroker(kind="amqtt")
    endpoint = broker.start()
    sockets: list[socket.socket] = []
    try:
        for k in range(CONNECTIONS):
            sock = socket.create_connection((endpoint.host, endpoint.port), timeout=60)
            sockets.append(sock)
            sock.sendall(_connect_packet(f"capacity-{k}"))
            # CONNACK, session not present, accepted: every one, the 257th too
            assert _connack(sock) == b"\x20\x02\x00\x00", f"connection {k + 1} refused"
    finally:
        for sock in sockets:
            sock.close()
        broker.stop()


def test_the_connection_limit_follows_the_files_the_process_may_open(monkeypatch):
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (1024, 4096))
    monkeypatch.setattr(resource, "setrlimit", lambda _which, limits: asked.append(limits))
    assert broker_main.connection_limit() == 4096 - broker_main.FILES_KEPT
    assert asked == [(4096, 4096)]  # the soft limit raised to the hard one

    def refused(_which: int, _limits: tuple[int, int]) -> None:
        raise ValueError("not allowed")

    monkeypatch.setattr(resource, "setrlimit", refused)
    assert broker_main.connection_limit() == 1024 - broker_main.FILES_KEPT  # kept as it is
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (10, 10))
    assert broker_main.connection_limit() == 1  # never none
    infinite = resource.RLIM_INFINITY
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (infinite, infinite))
    assert broker_main.connection_limit() == broker_main.MOST_FILES - broker_main.FILES_KEPT
    config = broker_main.broker_config("127.0.0.1", 1883, connections=500)
    assert config["listeners"]["default"]["max_connections"] == 500  # type: ignore[index]
