"""The MQTT link and the end of a game over a real broker: one connection per link,
and a finished peer that stays until the others have the whole log (9.2)."""

from __future__ import annotations

import asyncio
import os
import time

import msgpack
import pytest

from trutnet.crypto.identity import Identity
from trutnet.engine.games.trut import StartPosition, TrutConfig
from trutnet.net import topics
from trutnet.net.broker import EmbeddedBroker, Endpoint
from trutnet.net.mqtt_link import MqttLink
from trutnet.protocol.envelope import MessageError, parse_entry
from trutnet.runtime.seat_process import Hooks, host, join
from trutnet.runtime.table_runtime import LocalSeat, Options, TableRuntime


@pytest.fixture
def endpoint(broker_kind):
    broker = EmbeddedBroker()
    yield broker.start()
    broker.stop()


def test_a_link_started_twice_keeps_one_connection_and_gets_each_message_once(endpoint):
    async def scenario():
        link = MqttLink([endpoint], ["t/once"], "twice")
        await link.start()
        await link.start()  # the host starts its link, then the runtime starts it again
        await asyncio.wait_for(link.connected.wait(), 10)
        sender = MqttLink([endpoint], [], "sender")
        await sender.start()
        for k in range(5):
            assert await sender.publish("t/once", bytes([k]))
        await asyncio.sleep(0.5)
        got = [link.inbox.get_nowait()[1] for _ in range(link.inbox.qsize())]
        await sender.close()
        await link.close()
        return got

    assert asyncio.run(scenario()) == [bytes([k]) for k in range(5)]


class DeafAtTheEnd:
    """Between a link and its reader: from the echo of ``seat``'s own ``result`` entry
    on, everything on the log topic is lost for ``seconds``. Results are signed in seat
    order, so the peer misses the later seats' results live and must fetch them from
    peers that have finished meanwhile."""

    def __init__(self, link: MqttLink, table: bytes, seat: int, seconds: float) -> None:
        self.source, self.out = link.sink, asyncio.Queue()
        link.inbox = self.out
        self.table, self.seat, self.seconds = table, seat, seconds
        self.deaf_since: float | None = None
        self.lost = 0
        self.task = asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        while True:
            topic, payload = await self.source.get()
            if topic == topics.log(self.table):
                if self.deaf_since is None:
                    try:
                        entry = parse_entry(payload)
                        if entry.type == "result" and entry.seat == self.seat:
                            self.deaf_since = time.monotonic()
                    except MessageError:
                        pass
                since = self.deaf_since
                if since is not None and time.monotonic() - since < self.seconds:
                    self.lost += 1
                    continue
            await self.out.put((topic, payload))


def test_a_finished_peer_stays_until_the_others_have_the_whole_log(endpoint):
    """Seat 1 misses the last result for 3 s; seats 0 and 2, finished meanwhile, stay
    (their "done" said) and answer its syncs; all end on one hash, and each leaves
    once it has seen every other seat's "done". Before 9.2's linger, seat 1 was left
    alone with no one to ask."""
    table_id = os.urandom(16)
    events: list[tuple[str, str, dict]] = []
    deaf: list[DeafAtTheEnd] = []

    def on(who):
        return lambda kind, data: events.append((who, kind, data))

    def guest_runtime(runtime: TableRuntime) -> None:
        original = runtime.link.start

        async def start():
            first = runtime.link._task is None
            await original()
            if first:
                deaf.append(DeafAtTheEnd(runtime.link, table_id, 1, 3.0))

        runtime.link.start = start

    async def scenario():
        options = Options(stall_timeout=60, gap_timeout=0.2, linger=30, give_up_after=15)
        config = TrutConfig(3, start=StartPosition((5, 5, 5), (1, 1, 1), 0))
        hosting = asyncio.create_task(
            host(config, [endpoint], seed="linger", table_id=table_id, options=options,
                 on_event=on("host"))
        )  # fmt: skip
        await asyncio.sleep(0.3)
        deaf_guest = asyncio.create_task(
            join(table_id, [endpoint], "deaf", seed="linger", options=options,
                 on_event=on("deaf"), hooks=Hooks(on_runtime=guest_runtime))
        )  # fmt: skip
        await asyncio.sleep(0.5)  # seats go by arrival: the deaf guest takes seat 1
        other = join(table_id, [endpoint], "other", seed="linger", options=options,
                     on_event=on("other"))  # fmt: skip
        return await asyncio.wait_for(asyncio.gather(hosting, deaf_guest, other), 120)

    results = asyncio.run(scenario())
    assert [r.seats for r in results] == [[0], [1], [2]]
    assert len({r.state_hash for r in results}) == 1
    assert all(r.halted is None for r in results)
    assert deaf[0].lost > 0  # seat 1 did miss the end live
    finished = {who: data for who, kind, data in events if kind == "finished"}
    assert finished == {who: {"waited_for": []} for who in ("host", "deaf", "other")}


def test_done_messages_are_advisory_and_malformed_ones_are_dropped():
    me = Identity.from_seed(b"\x01" * 32)
    link = MqttLink([Endpoint("127.0.0.1", 1)], [], "unit")
    runtime = TableRuntime(b"\x02" * 16, link, [LocalSeat(me, "me", None)])
    topic = topics.done(b"\x02" * 16, "OTHER")
    for junk in (b"", b"\xc1", msgpack.packb([1, 2]), msgpack.packb({"seats": "all"}),
                 msgpack.packb({"seats": [-1, 99, "1", None]})):  # fmt: skip
        runtime._on_done(topic, junk)
    assert not any(runtime.finished.values())
    runtime._on_done(topic, msgpack.packb({"name": "x", "seats": [1, 2]}))
    runtime._on_done(topic, msgpack.packb({"name": "x", "seats": []}))  # once done, done
    assert runtime.finished[topic] == {1, 2}
    runtime._on_done(runtime.done_topic, msgpack.packb({"seats": [0]}))  # our own echo
    assert runtime.done_topic not in runtime.finished


def test_reachable_means_a_listener_and_not_a_connection_to_itself(endpoint, monkeypatch):
    from trutnet.runtime import table_runtime

    from .mosquitto import free_port

    assert asyncio.run(table_runtime.reachable(endpoint))
    assert not asyncio.run(table_runtime.reachable(Endpoint("127.0.0.1", free_port())))

    class SelfConnected:  # what a TCP simultaneous open onto its own port looks like
        def get_extra_info(self, name):
            return ("127.0.0.1", 40000)

        def close(self):
            pass

        async def wait_closed(self):
            pass

    async def self_connect(host, port):
        return None, SelfConnected()

    monkeypatch.setattr(table_runtime.asyncio, "open_connection", self_connect)
    assert not asyncio.run(table_runtime.reachable(Endpoint("127.0.0.1", 40000)))


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "with-traffic"])
def test_the_embedded_broker_dies_at_once_with_a_killed_host(busy, broker_kind):
    """A broker that outlived its killed host would keep its port and half-work, and
    the table would sit on it instead of moving on (9.3)."""
    import signal
    import subprocess
    import sys

    script = (
        "from trutnet.net.broker import EmbeddedBroker; import time; "
        "e = EmbeddedBroker().start(); print(e.port, flush=True); time.sleep(600)"
    )
    peer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)

    async def kill_the_host(broker):
        links = []
        for k in range(3 if busy else 0):  # busy: QoS 1 traffic in flight at the kill
            link = MqttLink([broker], ["t/#"], f"c{k}")
            await link.start()
            await asyncio.wait_for(link.connected.wait(), 10)
            links.append(link)

        async def flood(link):
            while True:
                await link.publish("t/x", b"x" * 2000, wait=1)

        floods = [asyncio.create_task(flood(link)) for link in links]
        await asyncio.sleep(0.5)
        peer.send_signal(signal.SIGKILL)
        peer.wait()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and await table_runtime_reachable(broker):
            await asyncio.sleep(0.1)
        gone = not await table_runtime_reachable(broker)
        for task in floods:
            task.cancel()
        for link in links:
            await link.close()
        return gone

    try:
        port = int(peer.stdout.readline())
        assert asyncio.run(asyncio.wait_for(kill_the_host(Endpoint("127.0.0.1", port)), 30))
    finally:
        peer.kill()


def table_runtime_reachable(endpoint):
    from trutnet.runtime.table_runtime import reachable

    return reachable(endpoint)
