"""A link's :meth:`~trutnet.net.mqtt_link.MqttLink.send`, on a real embedded broker
(Mosquitto and amqtt): a peer's log entries go out one after another without waiting
for the broker's acknowledgement of each, still in the order they were written, and a
link that closes right after sending lets them reach the broker first."""

from __future__ import annotations

import asyncio

import pytest

from trutnet.net.broker import EmbeddedBroker
from trutnet.net.mqtt_link import MqttLink

pytestmark = pytest.mark.network  # a broker: skipped by -m "not network"

COUNT = 300


def test_sent_messages_keep_their_order_and_closing_lets_them_finish(broker_kind):
    broker = EmbeddedBroker()
    endpoint = broker.start()

    async def scenario() -> tuple[list[bytes], int]:
        reader = MqttLink([endpoint], ["t/log"], "reader")
        writer = MqttLink([endpoint], [], "writer")
        await reader.start()
        await writer.start()
        await asyncio.wait_for(reader.connected.wait(), 10)
        await asyncio.wait_for(writer.connected.wait(), 10)
        for n in range(COUNT):  # handed over at once: none waits for an acknowledgement
            writer.send("t/log", n.to_bytes(2, "big"))
        under_way = len(writer._sending)
        await writer.close()  # right away: what was handed over still goes out
        got = [(await asyncio.wait_for(reader.inbox.get(), 10))[1] for _ in range(COUNT)]
        await reader.close()
        return got, under_way

    try:
        got, under_way = asyncio.run(scenario())
    finally:
        broker.stop()
    assert under_way > 0  # send returned before the broker acknowledged them
    assert got == [n.to_bytes(2, "big") for n in range(COUNT)]
