"""Sealed tables and invitations over a real broker (docs/protocol.md 9.9): a guest
trades a code for the host's welcome; a wrong code is told so, and the code burns
after the failed guesses; links that share a table key talk through the broker while
an observer subscribed to ``#`` reads nothing of what they say."""

from __future__ import annotations

import asyncio
import os

import pytest

from trutnet.net import topics
from trutnet.net.broker import EmbeddedBroker
from trutnet.net.mqtt_link import MqttLink, mqtt_client
from trutnet.protocol.invitation import MAX_FAILED, Code, InvitationError
from trutnet.protocol.invitation_words import WORDS
from trutnet.protocol.sealed_table import TableSeal
from trutnet.runtime.invitations import InvitationServer, accept_invitation

pytestmark = pytest.mark.network
DEADLINE = 60
TABLE = os.urandom(16)


async def sealed_host(endpoint, setup):
    """A host task that seals its table (``setup.invite``), and the code it serves,
    once it says it (its ``invitation`` event)."""
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.runtime.seat_process import host

    codes: asyncio.Queue[str] = asyncio.Queue()

    def on_host(kind, data):
        if kind == "invitation":
            codes.put_nowait(data["code"])

    hosting = asyncio.create_task(
        host(TrutGame(TrutConfig(2)), [endpoint], setup, on_event=on_host)
    )
    return hosting, await asyncio.wait_for(codes.get(), DEADLINE)


@pytest.fixture
def endpoint(broker_kind):
    broker = EmbeddedBroker()
    yield broker.start()
    broker.stop()


def test_a_code_gives_the_welcome_a_wrong_one_says_so_and_guesses_burn_it(endpoint):
    welcome = os.urandom(200)

    async def scenario():
        server = InvitationServer(endpoint, welcome)
        code = await asyncio.wait_for(server.start(), DEADLINE)
        try:
            typed = str(code).replace("-", " ").upper()  # as a person types it
            got = await asyncio.wait_for(accept_invitation(endpoint, Code.parse(typed)), DEADLINE)
            assert got == welcome
            reasons = []
            wrong_words = [w for w in WORDS if w not in code.words][:MAX_FAILED]
            for word in wrong_words:
                guess = Code(code.nameplate, (code.words[0], word))
                with pytest.raises(InvitationError) as wrong:
                    await asyncio.wait_for(accept_invitation(endpoint, guess), DEADLINE)
                reasons.append(wrong.value.reason)
            assert reasons == ["wrong"] * MAX_FAILED
            # the wrong guesses never confirmed: once their time is up they count
            server.host.tick(server.clock() + 3600)
            with pytest.raises(InvitationError) as burned:
                await asyncio.wait_for(accept_invitation(endpoint, code), DEADLINE)
            assert burned.value.reason == "burned" and "too many times" in str(burned.value)
        finally:
            await server.stop()
        return code

    code = asyncio.run(scenario())

    async def claim_cleared():
        async with mqtt_client(endpoint, timeout=5) as client:
            await client.subscribe(f"trutnet/v1/invite/{code.nameplate}/#", qos=1)
            await client.publish(f"trutnet/v1/invite/{code.nameplate}/x", b"end", qos=1)
            retained = []
            async with asyncio.timeout(DEADLINE):
                async for message in client.messages:
                    if message.payload == b"end":
                        return retained
                    retained.append(message.payload)

    assert not [p for p in asyncio.run(claim_cleared()) if p]  # the nameplate is free again


def test_nobody_answering_a_code_is_said_in_one_line(endpoint):
    async def scenario():
        with pytest.raises(InvitationError) as silent:
            await accept_invitation(endpoint, Code(4321, ("acorn", "zebra")), timeout=1.0)
        return silent.value

    error = asyncio.run(scenario())
    assert error.reason == "silent" and "4321-acorn-zebra" in str(error)


def test_sealed_links_talk_and_an_observer_on_everything_reads_nothing(endpoint):
    key = os.urandom(32)
    said = [(topics.log(TABLE), b"entry: the seven of cups"), (topics.chat(TABLE), b"Ana: hi")]

    async def scenario():
        seen: list[tuple[str, bytes]] = []
        async with mqtt_client(endpoint, timeout=5) as observer:
            await observer.subscribe("#", qos=1)
            reader = MqttLink([endpoint], [topics.table_topic(TABLE, "#")], "reader",
                              seal=TableSeal(key, os.urandom))  # fmt: skip
            writer = MqttLink([endpoint], [], "writer", seal=TableSeal(key, os.urandom))
            for link in (reader, writer):
                await link.start()
                await asyncio.wait_for(link.connected.wait(), DEADLINE)
            for topic, payload in said:
                assert await writer.publish(topic, payload)
            got = [await asyncio.wait_for(reader.inbox.get(), DEADLINE) for _ in said]
            async with asyncio.timeout(DEADLINE):
                async for message in observer.messages:
                    seen.append((str(message.topic), bytes(message.payload)))
                    if len(seen) == len(said):
                        break
            # Anyone may publish on the table's outer topic: what does not open with the
            # key is dropped and counted. Then a sealed message from the same client
            # (one client's messages on a topic keep their order) shows it was passed.
            outer = TableSeal(key, os.urandom).outer(topics.log(TABLE))
            await observer.publish(outer, b"entry: forged in clear", qos=1)
            elsewhere = TableSeal(key, os.urandom).seal(topics.chat(TABLE), b"moved")[1]
            await observer.publish(outer, elsewhere, qos=1)  # sealed for another topic
            await observer.publish(
                *TableSeal(key, os.urandom).seal(topics.log(TABLE), b"ok"), qos=1
            )
            after = await asyncio.wait_for(reader.inbox.get(), DEADLINE)
            for link in (reader, writer):
                await link.close()
            return got, seen, after, reader.unopened

    got, seen, after, unopened = asyncio.run(scenario())
    assert got == said
    assert after == (topics.log(TABLE), b"ok") and unopened == 2
    for topic, payload in seen:
        assert topic.startswith("trutnet/v1/sealed/") and TABLE.hex() not in topic
        for _, plain in said:
            assert plain not in payload and b"cups" not in payload and b"Ana" not in payload


def test_a_whole_sealed_game_by_invitation_shows_the_broker_nothing_in_clear(endpoint):
    """A host seals its table and serves a code; a guest trades the code for the
    table's id and key and plays a whole game; every byte an observer subscribed to
    ``#`` saw is decoded as an entry, a msgpack value and text: no entry, name, card or
    table id is there."""
    from trutnet.protocol.envelope import MessageError, parse_entry
    from trutnet.runtime.invitations import Welcome
    from trutnet.runtime.seat_process import HostSetup, JoinSetup, join

    seen: list[tuple[str, bytes]] = []

    async def scenario():
        async with mqtt_client(endpoint, timeout=5) as observer:
            await observer.subscribe("#", qos=1)

            async def observe():
                async for message in observer.messages:
                    seen.append((str(message.topic), bytes(message.payload)))

            watching = asyncio.create_task(observe())
            setup = HostSetup(name="Hostname-Ana", invite=True, seed="sealed")
            hosting, code = await sealed_host(endpoint, setup)
            welcome = Welcome.read(await accept_invitation(endpoint, Code.parse(code)))
            joined = await asyncio.wait_for(
                join(welcome.table, [endpoint],
                     JoinSetup(name="Guestname-Bea", seed="sealed", table_key=welcome.key)),
                DEADLINE * 3,
            )  # fmt: skip
            hosted = await asyncio.wait_for(hosting, DEADLINE)
            watching.cancel()
            return hosted, joined, welcome

    hosted, joined, welcome = asyncio.run(scenario())
    assert hosted.state_hash == joined.state_hash and hosted.halted is None
    assert joined.seats == [1]
    table_topics = [(t, p) for t, p in seen if t.startswith("trutnet/v1/sealed/")]
    assert len(table_topics) > 50  # the whole game went through the broker
    assert all(not t.startswith("trutnet/v1/table/") and not t.startswith("trutnet/v1/lobby/")
               for t, _ in seen)  # fmt: skip
    for topic, payload in seen:
        assert welcome.table.hex() not in topic
        for secret in (b"Hostname-Ana", b"Guestname-Bea", welcome.table, welcome.key):
            assert secret not in payload, (topic, secret)
        if topic.startswith("trutnet/v1/sealed/") and payload:
            with pytest.raises(MessageError):
                parse_entry(payload)


def test_two_machines_with_no_route_play_a_sealed_table_joined_by_its_code(
    tmp_path, two_machines_no_route
):
    """The person's path, in processes, with default arguments: ``trutnet host
    --invite`` on one machine prints a code; ``trutnet join CODE`` on the other finds
    the table's broker on the LAN by the code's number, trades the code for the table's
    key, and plays a whole game; a wrong code is refused in one line first."""
    import subprocess
    import sys

    from tests.network_helpers import result_of, track, wait_for_event

    (ns_a, _addr_a), (ns_b, _addr_b) = two_machines_no_route
    trutnet = [sys.executable, "-m", "trutnet"]
    env = {**os.environ, "HOME": str(tmp_path)}

    def on(ns, *args):
        command = ["ip", "netns", "exec", ns, *trutnet, *args]
        return track(subprocess.Popen(command, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env))  # fmt: skip

    host = on(ns_a, "host", "--players", "2", "--invite", "--json")
    try:
        code = wait_for_event(host, lambda e: e.get("event") == "invitation")["code"]
        number, first, second = code.split("-")
        table = wait_for_event(host, lambda e: e.get("event") == "table")
        # `tables` lists the sealed table by its number alone; a bare `join` says how in
        listed = ""
        for _ in range(8):  # mDNS may take a search or two to carry it
            lister = on(ns_b, "tables")
            listed, err = lister.communicate(timeout=DEADLINE)
            if f"invitation {number}" in listed:
                break
        assert f"invitation {number}   a sealed table" in listed, (listed, err)
        assert table["table"] not in listed and table["name"] not in listed
        bare = on(ns_b, "join", "--bot", "random")
        _, err = bare.communicate(timeout=DEADLINE)
        assert bare.returncode == 1 and f"trutnet join {number}-WORD-WORD" in err, err
        wrong_word = next(w for w in WORDS if w not in (first, second))
        wrong = on(ns_b, "join", f"{number}-{first}-{wrong_word}", "--bot", "random", "--json")
        _, err = wrong.communicate(timeout=DEADLINE * 2)
        assert wrong.returncode == 1, err
        assert "the code did not match" in err and len(err.strip().splitlines()) == 1
        guest = on(ns_b, "join", code, "--bot", "heuristic", "--json")
        results = [result_of(guest), result_of(host)]
        assert results[0]["state_hash"] == results[1]["state_hash"]
        assert results[0]["halted"] is None
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()


def test_the_network_bench_plays_a_sealed_table():
    """``bench network --sealed``: the host process seals its table and prints a code,
    the joiner processes come in by it, and the peers agree on the game's end (on the
    default broker only: the whole game over both is tested above)."""
    from trutnet.bench.network_bench import Played, real_game
    from trutnet.games.trut.rules import TrutConfig, TrutGame

    broker = EmbeddedBroker()
    played = Played(TrutGame(TrutConfig(2)), ["--players", "2"], "heuristic", sealed=True)
    try:
        figures = real_game(broker.start(), "bench-sealed", played)
    finally:
        broker.stop()
    assert figures["agree"] and figures["hands"] >= 1, figures


def test_a_sealed_table_plays_over_mqtt_on_websockets():
    """``ws://host:port/path``: MQTT over WebSockets, as brokers beyond a firewall often
    offer it (here amqtt's WebSockets listener, in its own thread and loop); a whole
    sealed game by invitation goes through it."""
    import threading

    from amqtt.broker import Broker

    from tests.cli.test_person_path import free_port
    from trutnet.net.broker import parse_broker_url
    from trutnet.runtime.invitations import Welcome
    from trutnet.runtime.seat_process import HostSetup, JoinSetup, join

    port = free_port()
    endpoint = parse_broker_url(f"ws://127.0.0.1:{port}/mqtt")
    assert endpoint.path == "/mqtt" and endpoint.url == f"ws://127.0.0.1:{port}/mqtt"
    config = {
        "listeners": {"default": {"type": "ws", "bind": f"127.0.0.1:{port}"}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }
    ready, running = threading.Event(), {}

    def serve():
        async def run():
            broker = Broker(config)
            await broker.start()
            running["loop"], running["stop"] = asyncio.get_running_loop(), asyncio.Event()
            ready.set()
            await running["stop"].wait()  # set from the test's thread
            await broker.shutdown()

        asyncio.run(run())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(DEADLINE)

    async def scenario():
        hosting, code = await sealed_host(endpoint, HostSetup(invite=True, seed="ws"))
        welcome = Welcome.read(await accept_invitation(endpoint, Code.parse(code)))
        assert welcome.broker == endpoint.url
        joined = await asyncio.wait_for(
            join(welcome.table, [endpoint], JoinSetup(seed="ws", table_key=welcome.key)),
            DEADLINE * 3,
        )
        return await asyncio.wait_for(hosting, DEADLINE), joined

    try:
        hosted, joined = asyncio.run(scenario())
    finally:
        running["loop"].call_soon_threadsafe(running["stop"].set)
        thread.join(DEADLINE)
    assert hosted.state_hash == joined.state_hash and hosted.halted is None


def test_a_spectator_watches_a_full_sealed_table_by_its_code(tmp_path):
    """``trutnet watch CODE``: once every seat is taken the code lets no one else sit,
    but it still gives a spectator the table's key; the spectator follows the whole
    game and ends on the players' state hash. A joiner with the same code is told the
    table is full."""
    import signal
    import subprocess
    import sys

    from tests.network_helpers import result_of, track, wait_for_event

    trutnet = [sys.executable, "-m", "trutnet"]

    def run(home: str, *args: str) -> subprocess.Popen[str]:
        env = {**os.environ, "HOME": str(tmp_path / home)}
        return track(subprocess.Popen([*trutnet, *args], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env))  # fmt: skip

    host = run("ana", "host", "--players", "2", "--invite", "--bind", "127.0.0.1", "--json",
               "--no-announce", "--stall-timeout", "300")  # fmt: skip
    url = wait_for_event(host, lambda e: e.get("event") == "connected")["broker"]
    code = wait_for_event(host, lambda e: e.get("event") == "invitation")["code"]
    guest = run("bea", "join", code, "--broker", url, "--bot", "heuristic", "--json",
                "--stall-timeout", "300")  # fmt: skip
    wait_for_event(host, lambda e: e.get("event") == "joined" and e.get("seat") == 1)
    guest.send_signal(signal.SIGSTOP)  # the table waits for Bea: the game is not over soon
    try:
        late = run("cy", "join", code, "--broker", url, "--bot", "random", "--json")
        _, err = late.communicate(timeout=DEADLINE)
        assert late.returncode == 1 and "full or closed" in err, err
        spectator = run("dee", "watch", code, "--broker", url, "--json", "--name", "Dee")
        wait_for_event(spectator, lambda e: e.get("event") == "caught_up", DEADLINE)
    finally:
        guest.send_signal(signal.SIGCONT)
    results = [result_of(p) for p in (host, guest, spectator)]
    assert len({r["state_hash"] for r in results}) == 1, results
    assert results[2]["halted"] is None
    caught = [e for e in results[2]["events"] if e["event"] == "caught_up"]
    assert caught, results[2]["events"][:5]  # it read the log as far as the table


def test_a_code_outlives_a_broker_restart(broker_kind):
    """The host keeps serving its code through the game (spectators come by it): when
    the broker restarts, the server reaches it again and claims its nameplate again,
    with the same code, and the code still gives the welcome."""
    from tests.mosquitto import free_port

    port = free_port()
    broker = EmbeddedBroker(port=port)
    endpoint = broker.start()
    welcome = os.urandom(64)

    async def claimed_again(code) -> None:
        """Wait (on the broker's word) until the nameplate's claim is retained again."""
        async with asyncio.timeout(DEADLINE), mqtt_client(endpoint, timeout=5) as client:
            await client.subscribe(f"trutnet/v1/invite/{code.nameplate}", qos=1)
            async for message in client.messages:
                if message.payload:
                    return

    async def scenario():
        nonlocal broker
        server = InvitationServer(endpoint, welcome)
        code = await asyncio.wait_for(server.start(), DEADLINE)
        try:
            assert await accept_invitation(endpoint, code) == welcome
            broker.stop()
            broker = EmbeddedBroker(port=port)
            broker.start()  # listening once it returns
            await claimed_again(code)
            assert server.code == code
            assert await asyncio.wait_for(accept_invitation(endpoint, code), DEADLINE) == welcome
        finally:
            await server.stop()

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()
