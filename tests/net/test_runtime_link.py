"""The MQTT link and the end of a game over a real broker: one connection per link,
and a finished peer that stays until the others have the whole log (9.2)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time

import msgpack
import pytest

from tests.network_helpers import seconds
from trutnet.crypto.identity import Identity
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.net import topics
from trutnet.net.broker import EmbeddedBroker, Endpoint
from trutnet.net.mqtt_link import MqttLink
from trutnet.protocol.envelope import MessageError, parse_entry
from trutnet.protocol.lobby import table_id_for
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.options import Options
from trutnet.runtime.seat_process import Hooks, HostSetup, JoinSetup, host, join
from trutnet.runtime.table_runtime import TableRuntime


@pytest.fixture
def endpoint(broker_kind):
    broker = EmbeddedBroker()
    yield broker.start()
    broker.stop()


@pytest.mark.network
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
        # Then a last message: a second connection would deliver 0..4 again before its
        # own copy of it (one connection delivers in order); read up to that copy.
        assert await sender.publish("t/once", b"end")
        got = []
        while not got or got[-1] != b"end":
            got.append((await asyncio.wait_for(link.inbox.get(), 30))[1])
        got.pop()
        await sender.close()
        await link.close()
        return got

    assert asyncio.run(scenario()) == [bytes([k]) for k in range(5)]


def test_a_cancelled_link_stops_even_when_its_disconnect_fails(endpoint, monkeypatch):
    """aiomqtt's disconnect on the way out of a cancelled session may raise MqttError
    in place of the CancelledError (seen: Ctrl-C in the lobby left ``trutnet play``
    waiting for ever on the event loop's shutdown, its link connected again). A link
    or a short connection told to stop stops, whatever its disconnect raises."""
    import aiomqtt

    from trutnet.net.mqtt_link import mqtt_client

    leave = aiomqtt.Client.__aexit__

    async def failing_exit(self, *exc_info):
        await leave(self, *exc_info)
        raise aiomqtt.MqttError("Disconnected during message iteration")

    monkeypatch.setattr(aiomqtt.Client, "__aexit__", failing_exit)

    async def scenario():
        link = MqttLink([endpoint], ["t/cancel"], "cancelled")
        await link.start()
        await asyncio.wait_for(link.connected.wait(), 10)
        link._task.cancel()  # as the event loop's shutdown does: once
        try:
            done, _ = await asyncio.wait({link._task}, timeout=30)
            assert done and link._task.cancelled(), "the link connected again"
        finally:
            await link.close()  # the test fails rather than hang

        inside = asyncio.Event()

        async def short() -> None:
            async with mqtt_client(endpoint, timeout=5):
                inside.set()
                await asyncio.Event().wait()

        task = asyncio.create_task(short())
        await asyncio.wait_for(inside.wait(), 10)
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=30)
        assert done and task.cancelled()

    asyncio.run(scenario())


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


@pytest.mark.network
def test_a_finished_peer_stays_until_the_others_have_the_whole_log(endpoint):
    """Seat 1 misses the last result for 3 s; seats 0 and 2, finished meanwhile, stay
    (their "done" said) and answer its syncs; all end on one hash, and each leaves
    once it has seen every other seat's "done". Before 9.2's linger, seat 1 was left
    alone with no one to ask."""
    host_key, nonce = Identity.generate(os.urandom), os.urandom(16)
    table_id = table_id_for(host_key.public, nonce)
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

    rosters: list[list[str]] = []

    async def seated(name: str) -> None:
        """The host's lobby lists ``name``."""
        async with asyncio.timeout(60):
            while not any(name in roster for roster in rosters):
                await asyncio.sleep(0.02)

    async def scenario():
        # give_up_after: whoever is left alone gives up, and the test fails, within 60 s
        options = Options(stall_timeout=60, gap_timeout=0.2, linger=seconds(30),
                          give_up_after=seconds(60))  # fmt: skip
        config = TrutConfig(3, start=StartPosition((5, 5, 5), (1, 1, 1), 0))
        lobby = Hooks(on_lobby=lambda roster: rosters.append([name for _, name, _ in roster]))
        hosting = asyncio.create_task(
            host(
                TrutGame(config),
                [endpoint],
                HostSetup(seed="linger", identity=host_key, nonce=nonce, options=options),
                on_event=on("host"),
                hooks=lobby,
            )
        )
        deaf_guest = asyncio.create_task(
            join(
                table_id,
                [endpoint],
                JoinSetup(name="deaf", seed="linger", options=options),
                on_event=on("deaf"),
                hooks=Hooks(on_runtime=guest_runtime),
            )
        )
        await seated("deaf")  # seats go by arrival: the deaf guest takes seat 1
        other = join(
            table_id,
            [endpoint],
            JoinSetup(name="other", seed="linger", options=options),
            on_event=on("other"),
        )
        return await asyncio.wait_for(asyncio.gather(hosting, deaf_guest, other), 120)

    results = asyncio.run(scenario())
    assert [r.seats for r in results] == [[0], [1], [2]]
    assert len({r.state_hash for r in results}) == 1
    assert all(r.halted is None for r in results)
    assert deaf[0].lost > 0  # seat 1 did miss the end live
    finished = {who: data for who, kind, data in events if kind == "finished"}
    assert finished == {who: {"waited_for": []} for who in ("host", "deaf", "other")}


class RecordingLink(MqttLink):
    """A link that never connects and records what the runtime publishes."""

    def __init__(self) -> None:
        super().__init__([Endpoint("127.0.0.1", 1)], [], "unit")
        self.published: list[tuple[str, bytes]] = []
        self._more = asyncio.Event()  # set at each publish

    async def start(self) -> None:
        pass

    async def publish(self, topic, payload, retain=False, wait=30.0):
        self.published.append((topic, payload))
        self._more.set()
        return True

    async def until_published(self, topic: str, count: int) -> None:
        """Return once ``count`` messages went to ``topic`` (woken by each publish)."""
        while sum(t == topic for t, _ in self.published) < count:
            self._more.clear()
            await self._more.wait()


def _runtime_at(entries: int, seat: int = 0):
    """A runtime whose local seat ``seat`` holds the first ``entries`` of a real game."""
    from trutnet.memory_table import play_memory_game

    table = play_memory_game(
        TrutGame(TrutConfig(2)),
        "runtime-unit",
        ["random", "random"],
        lambda t: len(t.log) >= entries,
    )
    peer = table.peers[seat]
    link = RecordingLink()
    runtime = TableRuntime(peer.replica.table_id, link, [LocalSeat(peer.identity, "me", None)])
    runtime.seats[0].peer = peer
    return runtime, table


def play_memory_game_entries(entries: int) -> list[bytes]:
    from trutnet.memory_table import play_memory_game

    table = play_memory_game(
        TrutGame(TrutConfig(2)),
        "runtime-unit",
        ["random", "random"],
        lambda t: len(t.log) >= entries,
    )
    return list(table.log)


def _done_wire(identity, table_id, seat, head):
    from trutnet.protocol.envelope import sign_entry

    return sign_entry(identity, table=table_id, seat=seat, seq=0, prev=head, type="done", body={})


def test_done_counts_only_a_seats_own_signature_at_our_head():
    from trutnet.protocol.untrusted import UntrustedInput

    runtime, table = _runtime_at(12)
    table_id, head = runtime.table_id, runtime.head()
    other = table.identities[1]
    topic = topics.done(table_id, "OTHER")
    assert runtime.waiting_for() == {1}
    outsider = Identity.from_seed(b"\x07" * 32)
    for junk in (
        b"\xc1",
        msgpack.packb([1, 2]),
        msgpack.packb({"seats": [1]}),  # the old unsigned form
        msgpack.packb([_done_wire(outsider, table_id, 1, head).wire]),  # forged
        msgpack.packb([_done_wire(other, b"\x09" * 16, 1, head).wire]),  # another table
        b"\x91" * 900 + b"\xc0",
    ):
        with pytest.raises((UntrustedInput, MessageError)):
            runtime.end.read(topic, junk)
    assert runtime.waiting_for() == {1}
    stale = runtime.seats[0].peer.replica.log.entries[3].id
    runtime.end.read(topic, msgpack.packb([_done_wire(other, table_id, 1, stale).wire]))
    assert runtime.waiting_for() == {1}  # done at another point of the log: not done
    runtime.end.read(topic, msgpack.packb([_done_wire(other, table_id, 1, head).wire]))
    assert runtime.waiting_for() == set()
    signed = msgpack.unpackb(runtime.end.message())
    assert [parse_entry(w).author for w in signed] == [table.identities[0].public]


def test_the_pump_survives_any_payload_on_any_topic_and_counts_what_it_drops():
    runtime, _ = _runtime_at(12)
    table_id = runtime.table_id
    following = play_memory_game_entries(13)[12]
    junk = [b"", b"\xc1", b"\x91" * 900 + b"\xc0", os.urandom(300), msgpack.packb({"head": 5}),
            b"\xdd\xff\xff\xff\xff", msgpack.packb({"kind": "stall", "event": "r"})]  # fmt: skip
    leaves = ("log", "sync", "vote", "notice", "done/X", "join", "presence/X")

    async def scenario():
        pump = asyncio.create_task(runtime._pump())
        for leaf in leaves:
            for payload in junk:
                await runtime.link.inbox.put((topics.table_topic(table_id, leaf), payload))
        await runtime.link.inbox.put((topics.log(table_id), following))  # then a real entry
        async with asyncio.timeout(30):  # until the pump has read it, or died
            while not pump.done() and len(runtime.seats[0].peer.replica.log) < 13:
                await asyncio.sleep(0.01)
        alive = not pump.done()
        pump.cancel()
        return alive

    events = []
    runtime.on_event = lambda kind, data: events.append((kind, data))
    assert asyncio.run(scenario())
    assert runtime.stats.dropped >= len(junk) * 4 - 1  # an empty done is simply ignored
    assert len(runtime.seats[0].peer.replica.log) == 13  # and the table goes on
    assert not [e for e in events if e[0] in ("notice", "result")]


def test_sync_requests_merge_and_are_answered_outside_the_receive_loop():
    from trutnet.protocol.envelope import GENESIS

    runtime, _ = _runtime_at(30)
    entries = runtime.seats[0].peer.replica.log.entries
    request = msgpack.packb({"head": GENESIS}, use_bin_type=True)
    later = msgpack.packb({"head": entries[20].id}, use_bin_type=True)

    async def scenario():
        sender = asyncio.create_task(runtime.sync.serve())
        for _ in range(200):  # the amplification attack: 200 requests from genesis
            runtime._on_sync(request)
            runtime._on_sync(later)
        runtime._on_sync(msgpack.packb({"head": b"\x05" * 32}, use_bin_type=True))  # unknown
        log = topics.log(runtime.table_id)
        async with asyncio.timeout(30):  # until the sender has answered and is idle again
            while (
                runtime.sync.wanted.is_set()
                or runtime.sync.answers.pending
                or sum(t == log for t, _ in runtime.link.published) < len(entries)
            ):
                await asyncio.sleep(0.01)
        sender.cancel()

    asyncio.run(scenario())
    sent = [p for t, p in runtime.link.published if t == topics.log(runtime.table_id)]
    assert sent == [e.wire for e in entries]  # the whole log once, in order


@pytest.mark.network
def test_a_log_that_parted_from_the_tables_is_answered_from_where_it_parted():
    """9.2: a request for a head no one has (a spectator shown another entry than the
    table's, 7.2) is answered, once asked again with the asker's log length, from the
    asker's last position: the table's entry there shows where the logs parted. Without
    a length, or from an asker ahead of this log, it is not this peer's to answer; a
    malformed length is refused."""
    from trutnet.protocol.untrusted import UntrustedInput
    from trutnet.runtime.sync_answers import parse_sync_request, sync_request

    runtime, _ = _runtime_at(30)
    entries = runtime.seats[0].peer.replica.log.entries
    elsewhere = b"\x05" * 32

    async def scenario():
        sender = asyncio.create_task(runtime.sync.serve())
        runtime._on_sync(sync_request(elsewhere))  # no length: someone else may answer
        runtime._on_sync(sync_request(elsewhere, len(entries) + 1))  # ahead of this log
        assert not runtime.sync.answers.pending
        runtime._on_sync(sync_request(elsewhere, 25))
        log = topics.log(runtime.table_id)
        async with asyncio.timeout(30):  # the answer's entries, published by the sender
            await runtime.link.until_published(log, len(entries) - 24)
        sender.cancel()
        await runtime.sync.ask()
        await runtime.sync.ask()  # the same head again: with this log's length

    asyncio.run(scenario())
    sent = [p for t, p in runtime.link.published if t == topics.log(runtime.table_id)]
    assert sent == [e.wire for e in entries[24:]]
    asked = [p for t, p in runtime.link.published if t == topics.sync(runtime.table_id)]
    assert [parse_sync_request(p) for p in asked[-2:]] == [
        (runtime.head(), None),
        (runtime.head(), len(entries)),
    ]
    for bad in ({"head": elsewhere, "at": -1}, {"head": elsewhere, "at": "5"}, {"at": 3}):
        with pytest.raises(UntrustedInput):
            parse_sync_request(msgpack.packb(bad, use_bin_type=True))


def test_reachable_means_a_listener_and_not_a_connection_to_itself(endpoint, monkeypatch):
    from tests.mosquitto import free_port
    from trutnet.runtime import succession

    assert asyncio.run(succession.reachable(endpoint))
    assert not asyncio.run(succession.reachable(Endpoint("127.0.0.1", free_port())))

    class SelfConnected:  # what a TCP simultaneous open onto its own port looks like
        def get_extra_info(self, name):
            return ("127.0.0.1", 40000)

        def close(self):
            pass

        async def wait_closed(self):
            pass

    async def self_connect(host, port):
        return None, SelfConnected()

    monkeypatch.setattr(succession.asyncio, "open_connection", self_connect)
    assert not asyncio.run(succession.reachable(Endpoint("127.0.0.1", 40000)))


@pytest.mark.network
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
        async with asyncio.timeout(30):  # traffic flows: every link has received some
            while not all(link.inbox.qsize() for link in links):
                await asyncio.sleep(0.01)
        peer.send_signal(signal.SIGKILL)
        peer.wait()
        deadline = time.monotonic() + 15  # at once; 15 s for a loaded machine
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
    from trutnet.runtime.succession import reachable

    return reachable(endpoint)


@pytest.mark.network
def test_a_host_says_its_announcement_again_when_someone_clears_it(endpoint):
    """Anyone may publish a retained empty (or forged) message on the lobby topic; the
    host, subscribed to its own announcement, publishes it again at once."""
    from trutnet.protocol.lobby import check_announcement

    host_key, nonce = Identity.generate(os.urandom), os.urandom(16)
    table_id = table_id_for(host_key.public, nonce)

    async def retained(client):
        await client.subscribe(topics.lobby(table_id), qos=1)
        async with asyncio.timeout(5):
            async for message in client.messages:
                await client.unsubscribe(topics.lobby(table_id))
                return message.payload

    async def retained_until(client, wanted):
        """The retained announcement, once ``wanted(it)`` (within 60 s)."""
        async with asyncio.timeout(60):
            while True:
                with contextlib.suppress(TimeoutError):
                    payload = await retained(client)
                    if wanted(payload):
                        return payload
                await asyncio.sleep(0.1)

    async def scenario():
        import aiomqtt

        hosting = asyncio.create_task(
            host(
                TrutGame(TrutConfig(2)),
                [endpoint],
                HostSetup(identity=host_key, nonce=nonce, host_bot=None),
            )
        )
        async with aiomqtt.Client(endpoint.host, endpoint.port) as outsider:
            before = await retained_until(outsider, lambda p: bool(p))  # the host is up
            await outsider.subscribe(topics.lobby(table_id), qos=1)
            heard = 0
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.5):
                    async for _ in outsider.messages:
                        heard += 1
            assert heard <= 2  # the retained copy; an idle host does not repeat itself
            await outsider.unsubscribe(topics.lobby(table_id))
            for forged in (b"", msgpack.packb({"table": table_id.hex(), "status": "open"})):
                await outsider.publish(topics.lobby(table_id), forged, qos=1, retain=True)
                after = await retained_until(outsider, lambda p: p == before)  # said again
                assert after == before
        hosting.cancel()
        return before

    wire = asyncio.run(scenario())
    assert check_announcement(wire, table_id)["status"] == "open"


def test_entries_waiting_for_a_gap_are_bounded():
    """A seated player who floods entries that extend nothing fills at most
    ``MAX_BUFFERED`` slots; the table goes on."""
    from trutnet.protocol.envelope import sign_entry
    from trutnet.runtime.table_runtime import MAX_BUFFERED

    runtime, table = _runtime_at(12)
    other = table.peers[1]
    for k in range(MAX_BUFFERED + 200):
        entry = sign_entry(other.identity, table=runtime.table_id, seat=1, seq=k + 50,
                           prev=os.urandom(32), type="act", body={"action": "trut"})  # fmt: skip
        runtime.ingest(entry.wire)
    assert len(runtime.buffer) == MAX_BUFFERED
    assert runtime.ingest(play_memory_game_entries(13)[12])  # the real next entry applies


def test_the_cli_loop_keeps_the_mqtt_socket_race_off_screen_and_shows_anything_else():
    """A broker that resets the connection can close paho's socket before the loop
    registers it (``add_writer`` on a dead fd): that is reported by the link itself, not
    as a traceback on a person's screen. Any other loop error is still shown."""
    from trutnet.cli.running import quiet_loop as _quiet_loop

    shown: list[dict] = []

    class Loop:
        def default_exception_handler(self, context: dict) -> None:
            shown.append(context)

    loop = Loop()

    class Handle:
        def __repr__(self) -> str:
            return "<Handle BaseSelectorEventLoop.add_writer(6, <function cb>)>"

    _quiet_loop(loop, {"exception": OSError(9, "Bad file descriptor"), "handle": Handle()})
    _quiet_loop(loop, {"exception": KeyError("6 is not registered"), "handle": Handle()})
    assert shown == []
    other = {"exception": OSError(9, "Bad file descriptor"), "handle": "<Handle other()>"}
    _quiet_loop(loop, other)
    bug = {"exception": ZeroDivisionError(), "handle": Handle()}
    _quiet_loop(loop, bug)
    assert shown == [other, bug]


def test_paho_lines_about_a_lost_socket_do_not_reach_stderr():
    """paho logs 'failed to receive on socket' at ERROR; Python's last-resort handler
    would print it on a person's screen. The link's client logger, and the commands for
    every other client they open (the lobby watch, probes), keep it back (a fresh
    process, as a person's: no logging configured)."""
    import subprocess
    import sys

    code = (
        "import logging\n"
        "import trutnet.cli.running\n"
        "from trutnet.net.mqtt_link import client_log\n"
        "client_log.error('failed to receive on socket: reset')\n"
        "logging.getLogger('mqtt').error('failed to receive on socket: default client')\n"
        "logging.getLogger('trutnet.net.elsewhere').error('still shown')\n"
    )
    err = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stderr
    assert "failed to receive" not in err and "still shown" in err


class BrokerlessLink(RecordingLink):
    """A link that never reaches a broker: every publish waits for a connection that
    never comes (a real link waits up to its ``wait``; this one, for ever)."""

    async def publish(self, topic, payload, retain=False, wait=30.0):
        self.published.append((topic, payload))
        await asyncio.Event().wait()
        return False


def test_with_no_broker_a_peer_gives_up_when_asked_not_when_its_publishes_end():
    """--give-up-after S: a peer waiting for another seat, with no broker, stops after
    S seconds of no progress even though the idle step's publishes (a sync request, a
    stall notice, a vote) are still waiting for a connection."""
    runtime, _ = _runtime_at(12)
    expected = runtime.seats[0].peer.replica.expected()
    assert expected is not None
    runtime, _ = _runtime_at(12, seat=1 - expected[0])  # the other seat is to write
    runtime.link = link = BrokerlessLink()
    runtime.options = Options(stall_timeout=0.3, gap_timeout=0.1, linger=0.1, give_up_after=0.8)
    events: list[str] = []
    runtime.on_event = lambda kind, data: events.append(kind)

    async def main():
        await asyncio.wait_for(runtime.run(), 20)

    asyncio.run(main())
    assert runtime.gave_up and "gave_up" in events
    assert link.published  # the idle step did try to publish, and stayed waiting


class SlowBrokerlessLink(RecordingLink):
    """A link with no broker that waits as a real one does: up to ``wait``, then fails."""

    async def publish(self, topic, payload, retain=False, wait=30.0):
        self.published.append((topic, payload))
        await asyncio.sleep(wait)
        return False


def test_with_no_broker_a_seat_that_writes_gives_up_when_asked():
    """The seat to write signs, saves and publishes its entry; with no broker the
    publish waits for one, but not past --give-up-after (the others would get the
    entry by sync once a broker is back)."""
    import random

    from trutnet.bots import make_bot

    runtime, _ = _runtime_at(12)
    expected = runtime.seats[0].peer.replica.expected()
    assert expected is not None
    runtime, _ = _runtime_at(12, seat=expected[0])  # this seat is to write
    runtime.seats[0].bot = make_bot("trut", "random", random.Random(1))
    runtime.link = link = SlowBrokerlessLink()
    runtime.options = Options(stall_timeout=0.3, gap_timeout=0.1, linger=0.1, give_up_after=0.8)
    before = len(runtime.seats[0].peer.replica.log)

    async def main():
        await asyncio.wait_for(runtime.run(), 20)

    asyncio.run(main())
    assert runtime.gave_up
    assert len(runtime.seats[0].peer.replica.log) > before  # it did write, and stayed
    assert any(topic == topics.log(runtime.table_id) for topic, _ in link.published)


def test_a_finished_peer_lingers_while_a_peer_behind_still_asks_for_the_log():
    """Every seat has the end, but a newcomer or a spectator that came late is still
    asking for the log: the finished peer stays (up to ``linger``) while such requests
    come, and leaves once they stop. Before, it left at once, and a newcomer left with
    half a log waited for ever."""
    runtime, table = _runtime_at(10_000)  # a whole game
    replica = runtime.seats[0].peer.replica
    assert replica.state.is_terminal()
    done = msgpack.packb(
        [_done_wire(table.identities[1], runtime.table_id, 1, runtime.head()).wire]
    )
    runtime.end.read(topics.done(runtime.table_id, "OTHER"), done)
    assert runtime.waiting_for() == set()
    runtime.options = Options(gap_timeout=0.05, linger=seconds(60))
    assert not runtime.sync.catching_up()
    runtime._on_sync(msgpack.packb({"head": runtime.head()}, use_bin_type=True))
    assert not runtime.sync.catching_up()  # a peer level with us needs nothing
    runtime._on_sync(msgpack.packb({"head": b"\x05" * 32}, use_bin_type=True))
    assert not runtime.sync.catching_up()  # a head not in our log: someone else's answer
    behind = replica.log.entries[200].id
    runtime._on_sync(msgpack.packb({"head": behind}, use_bin_type=True))
    assert runtime.sync.catching_up()

    steps: asyncio.Queue[str] = asyncio.Queue()  # each lingering step re-subscribes once

    async def step(topic: str) -> None:
        steps.put_nowait(topic)

    runtime.link.resubscribe = step  # type: ignore[method-assign]

    async def scenario():
        lingering = asyncio.create_task(runtime._linger())
        for _ in range(3):  # the late peer keeps asking, and the finished one stays
            runtime._on_sync(msgpack.packb({"head": behind}, use_bin_type=True))
            await asyncio.wait_for(steps.get(), 30)  # one more lingering step went by
            assert not lingering.done()
        assert any(t == runtime.end.topic for t, _ in runtime.link.published)  # said done
        runtime.sync.behind_asked = float("-inf")  # it has caught up: no more requests
        await asyncio.wait_for(lingering, 30)

    asyncio.run(scenario())


def test_a_seat_that_says_it_left_is_shown_as_left_and_only_by_its_own_key():
    """A person who quits mid-game has the seat sign a ``left`` notice: the others'
    stall line says the player left rather than "left, or lost?". Only the seat's own
    key can say it left; once it writes again (resumed), it is no longer "left"."""
    from trutnet.protocol.envelope import sign_entry
    from trutnet.protocol.untrusted import UntrustedInput

    runtime, table = _runtime_at(12)
    replica = runtime.seats[0].peer.replica
    stalled = replica.expected()[0]
    runtime.options = Options(stall_timeout=0)
    runtime.running = True

    def notice(key, seat, body):
        return sign_entry(key, table=runtime.table_id, seat=seat, seq=0, prev=replica.log.head,
                          type="notice", body=body).wire  # fmt: skip

    said = {"kind": "left", "seat": stalled, "since_entry": 12}
    other = 1 - stalled
    for forged in (
        notice(table.identities[other], other, said),  # another seat cannot say it for him
        notice(table.identities[stalled], stalled, {**said, "seat": other}),
        notice(table.identities[stalled], stalled, {**said, "since_entry": "x"}),
        notice(table.identities[stalled], stalled, {**said, "extra": 1}),
    ):
        with pytest.raises((UntrustedInput, MessageError)):
            runtime.notices.read(forged)
    assert runtime.stall().seat == stalled and not runtime.stall().left
    runtime.notices.read(notice(table.identities[stalled], stalled, said))
    assert runtime.stall().left
    runtime.notices.left[stalled] = 3  # it left long ago and has written since: back, not left
    assert any(e.seat == stalled for e in replica.log.entries[3:])
    assert not runtime.stall().left


def test_the_stall_a_screen_shows_is_computed_at_the_time_given():
    """The health room reads no clock: ``stall_at(table, now)`` says nothing before the
    stall timeout has passed since the table's last progress, then names the seat
    waited for and when this process votes (twice the void timeout for a seat with a
    partner, once without: 7.7); no sleep, the times are given."""
    from trutnet.runtime.table_health import stall_at

    runtime, _ = _runtime_at(12)
    replica = runtime.seats[0].peer.replica
    stalled = replica.expected()[0]
    runtime.options = Options(stall_timeout=30.0, void_timeout=100.0)
    runtime.running = True
    since = runtime.last_progress
    assert stall_at(runtime, since + 29.9) is None
    stall = stall_at(runtime, since + 30.0)
    assert stall is not None and stall.seat == stalled and stall.since == since
    mine = runtime.local_seats()
    assert stall.vote_at == (since + 100.0 if stalled not in mine and mine else None)
    assert stall.votes == {} and stall.offers == [] and not stall.left


def test_a_persons_decision_that_the_table_outran_is_refused_aloud():
    """A person's key press is queued (``LocalSeat.pending``) and signed at the next
    write. If the table moved on meanwhile (the move is no longer legal, or it is not
    this seat's decision any more), nothing is signed and a ``decision_refused`` event
    says which move and why: a move never vanishes without a word."""
    runtime, _ = _runtime_at(12)
    peer = runtime.seats[0].peer
    expected = peer.replica.expected()
    runtime, _ = _runtime_at(12, seat=expected[0])  # the seat with a decision now
    peer, seat = runtime.seats[0].peer, runtime.seats[0]
    assert peer.decide()
    events: list = []
    runtime.on_event = lambda kind, data: events.append((kind, data))
    before = len(peer.replica.log)
    seat.pending = "play 99x"  # legal when queued, say; not now
    assert not asyncio.run(runtime._write())
    assert seat.pending is None and len(peer.replica.log) == before
    assert events == [
        (
            "decision_refused",
            {
                "seat": peer.seat,
                "action": "play 99x",
                "why": "the table moved on: it is not a legal move now",
            },
        )
    ]
    legal = str(peer.replica.state.legal_actions(peer.seat)[0])
    seat.pending = legal  # still legal: signed and sent, no refusal
    assert asyncio.run(runtime._write()) and len(peer.replica.log) == before + 1
    assert seat.pending is None and len(events) == 1
    other, _ = _runtime_at(12, seat=1 - expected[0])  # a seat whose decision it is not
    other.on_event = lambda kind, data: events.append((kind, data))
    other.seats[0].pending = legal
    asyncio.run(other._write())
    assert other.seats[0].pending is None
    assert (
        events[-1][0] == "decision_refused" and "not this seat's decision" in events[-1][1]["why"]
    )
