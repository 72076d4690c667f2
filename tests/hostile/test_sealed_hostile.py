"""Hostile peers on a sealed table (docs/protocol.md 9.9): an outsider on the broker
who lacks the table key sees only sealed topics, and turns everything it sees against
the table while a real game is played on it. It replays every sealed message (some
as retained), flips a byte of others, moves them to another of the table's topics,
cuts them short, clears what the broker keeps, and sends garbage of every size.
The game must end as an honest one: both seats on one state hash, no seat stopped,
and the links counted what did not open, dropped and never read."""

from __future__ import annotations

import asyncio
import os
import random

import pytest

from trutnet.net.broker import EmbeddedBroker
from trutnet.net.mqtt_link import mqtt_client
from trutnet.protocol.invitation import Code
from trutnet.runtime.invitations import Welcome, accept_invitation
from trutnet.runtime.seat_process import Hooks, HostSetup, JoinSetup, host, join

pytestmark = pytest.mark.network
DEADLINE = 240
SEALED = "trutnet/v1/sealed/"


class Attack:
    """What the outsider sent, by kind."""

    def __init__(self) -> None:
        self.sent: dict[str, int] = {}
        self.seen = 0

    def count(self, kind: str) -> None:
        self.sent[kind] = self.sent.get(kind, 0) + 1


async def attack(endpoint, over: asyncio.Event, said: Attack) -> None:
    """Subscribe to every sealed topic, and turn each message seen against the table."""
    rng = random.Random(7)
    async with mqtt_client(endpoint, timeout=5) as outsider:
        await outsider.subscribe(SEALED + "#", qos=0)
        topics: list[str] = []

        async def publish(kind: str, topic: str, payload: bytes, retain: bool = False) -> None:
            await outsider.publish(topic, payload, qos=0, retain=retain)
            said.count(kind)

        async def hostile() -> None:
            async for message in outsider.messages:
                topic, payload = str(message.topic), bytes(message.payload)
                said.seen += 1
                if topic not in topics:
                    topics.append(topic)
                    await publish("garbage", topic, os.urandom(rng.choice((1, 40, 4000, 60000))))
                if not payload or said.seen % 2:
                    continue
                await publish("replayed", topic, payload, retain=said.seen % 10 == 0)
                flipped = bytearray(payload)
                flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
                await publish("flipped", topic, bytes(flipped))
                await publish("moved", rng.choice(topics), payload)
                await publish("cut", topic, payload[: rng.randrange(min(len(payload), 30))])
                if said.seen % 20 == 0:
                    await publish("cleared", rng.choice(topics), b"", retain=True)

        task = asyncio.create_task(hostile())
        await over.wait()
        task.cancel()


@pytest.mark.timeout(DEADLINE + 60)
def test_an_outsider_without_the_key_replays_tampers_and_floods_and_the_game_ends_honestly():
    broker = EmbeddedBroker()
    endpoint = broker.start()
    said = Attack()
    links = []

    async def scenario():
        over = asyncio.Event()
        attacker = asyncio.create_task(attack(endpoint, over, said))
        codes: asyncio.Queue[str] = asyncio.Queue()

        def on_host(kind, data):
            if kind == "invitation":
                codes.put_nowait(data["code"])

        def keep(runtime):
            links.append(runtime.link)

        from trutnet.games.trut.rules import TrutConfig, TrutGame

        hosting = asyncio.create_task(
            host(TrutGame(TrutConfig(2)), [endpoint], HostSetup(name="Ana", invite=True),
                 hooks=Hooks(on_runtime=keep), on_event=on_host)
        )  # fmt: skip
        code = await asyncio.wait_for(codes.get(), 60)
        welcome = Welcome.read(await accept_invitation(endpoint, Code.parse(code)))
        joined = await asyncio.wait_for(
            join(welcome.table, [endpoint], JoinSetup(name="Bea", table_key=welcome.key),
                 hooks=Hooks(on_runtime=keep)),
            DEADLINE,
        )  # fmt: skip
        hosted = await asyncio.wait_for(hosting, 60)
        over.set()
        await attacker
        return hosted, joined

    try:
        hosted, joined = asyncio.run(scenario())
    finally:
        broker.stop()
    assert hosted.state_hash == joined.state_hash
    assert hosted.halted is None and joined.halted is None
    kinds = {"garbage", "replayed", "flipped", "moved", "cut", "cleared"}
    assert kinds <= set(said.sent), said.sent
    assert sum(said.sent.values()) > 200, said.sent  # the whole game long
    # what the outsider forged never opened: each link dropped and counted it
    assert len(links) == 2 and all(link.unopened > 20 for link in links), [
        link.unopened for link in links
    ]
