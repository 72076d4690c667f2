"""What a subscriber is given by the broker, and why the readers do not trust it.

A new subscriber should get only the retained messages of the topics it asked for.
Mosquitto does; amqtt 0.12.1 at times also hands out retained messages of other
topics (``done/+`` gets the lobby message, ``#`` gets ``done`` twice). So the
table's readers check the topic of every message: ``browse._liveness`` (``trutnet
tables`` and ``join``) skips whatever is not the table's own lobby topic, and finds
a live table among other topics' retained messages on either broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import aiomqtt
import pytest

from trutnet.net.broker import EmbeddedBroker, parse_broker_url

from ..mosquitto import mosquitto

pytestmark = pytest.mark.network  # peers, a broker: skipped by -m "not network"


@contextlib.contextmanager
def amqtt():
    broker = EmbeddedBroker(kind="amqtt")
    url = broker.start().url
    try:
        yield url
    finally:
        broker.stop()


async def retained_for(url: str, table: str) -> dict[str, list[tuple[str, bytes]]]:
    endpoint = parse_broker_url(url)
    async with aiomqtt.Client(endpoint.host, endpoint.port) as client:
        await client.publish(f"trutnet/v1/lobby/{table}", b"LOBBY", qos=1, retain=True)
        for leaf in ("presence/FP", "done/FP"):
            await client.publish(
                f"trutnet/v1/table/{table}/{leaf}", leaf.encode(), qos=1, retain=True
            )
    got: dict[str, list[tuple[str, bytes]]] = {}
    for topic in (
        f"trutnet/v1/lobby/{table}",
        f"trutnet/v1/table/{table}/done/+",
        f"trutnet/v1/table/{table}/#",
    ):
        got[topic] = []
        with contextlib.suppress(TimeoutError):
            async with (
                asyncio.timeout(1.5),
                aiomqtt.Client(endpoint.host, endpoint.port) as client,
            ):
                await client.subscribe(topic, qos=1)
                async for message in client.messages:
                    got[topic].append((str(message.topic), bytes(message.payload)))
    return got


def test_mosquitto_gives_a_subscriber_only_the_retained_messages_it_asked_for():
    broker = mosquitto
    table = os.urandom(16).hex()
    with broker() as url:
        got = asyncio.run(retained_for(url, table))
    lobby, done, everything = got.values()
    assert lobby == [(f"trutnet/v1/lobby/{table}", b"LOBBY")]
    assert done == [(f"trutnet/v1/table/{table}/done/FP", b"done/FP")]
    assert sorted(everything) == [
        (f"trutnet/v1/table/{table}/done/FP", b"done/FP"),
        (f"trutnet/v1/table/{table}/presence/FP", b"presence/FP"),
    ]


@pytest.mark.parametrize("broker", [amqtt, mosquitto], ids=["amqtt", "mosquitto"])
def test_tables_finds_a_live_table_among_other_topics_retained_messages(broker):
    """The host's signed announcement is retained beside ``presence`` and ``done``
    messages of the same table; ``tables`` still reads the announcement."""
    from trutnet.crypto import Identity
    from trutnet.discovery.browse import FoundTable, _liveness
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.protocol.lobby import Lobby, sign_announcement
    from trutnet.runtime.seat_process import announcement

    host = Identity.generate(os.urandom)
    lobby = Lobby(TrutGame(TrutConfig(2)), host, "Host", os.urandom(16))
    table = lobby.table_id.hex()
    with broker() as url:
        endpoint = parse_broker_url(url)
        signed = sign_announcement(host, lobby.table_id, announcement(lobby, "T", endpoint, "open"))

        async def scenario():
            async with aiomqtt.Client(endpoint.host, endpoint.port) as client:
                for leaf in ("presence/FP", "done/FP", "done/GP"):
                    await client.publish(
                        f"trutnet/v1/table/{table}/{leaf}", leaf.encode(), qos=1, retain=True
                    )
                await client.publish(f"trutnet/v1/lobby/{table}", signed, qos=1, retain=True)
            found = FoundTable("T", table, endpoint, {"v": "1", "table": table,
                                                      "fp": host.fingerprint,
                                                      "game": "trut"})  # fmt: skip
            await _liveness(found, 3.0)
            return found.live

        live = asyncio.run(scenario())
    assert live is not None and live["table"] == table and live["status"] == "open"
