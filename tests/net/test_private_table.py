"""Private tables (docs/protocol.md 9.10): a sealed table whose key its host gives to
whoever proves the table password in a password-authenticated exchange. The password
never crosses the wire (not in an MQTT CONNECT, not in any message), the broker lets
anyone in and reads nothing, a stranger and a wrong password are refused in one clear
line, wrong guesses lock the table's door for a while, and the password shows up
nowhere: not in events, announcements, files or process listings."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.mosquitto import free_port
from tests.network_helpers import TRUTNET, result_of, spawn_person, wait_for_event
from trutnet.bench.delay_proxy import DelayProxy
from trutnet.discovery.announce import txt_records
from trutnet.discovery.browse import FoundTable, _liveness, place_claimed
from trutnet.net.broker import EmbeddedBroker, Endpoint, parse_broker_url
from trutnet.net.mqtt_link import mqtt_client
from trutnet.net.private import PASSWORD_ENV
from trutnet.protocol.invitation import (
    CONFIRM_SECONDS,
    LOCK_SECONDS,
    MAX_FAILED,
    InvitationError,
    TablePassword,
)
from trutnet.runtime.invitations import InvitationServer, Welcome, accept_invitation

pytestmark = pytest.mark.network  # peers, a broker: skipped by -m "not network"

SECRET = "correct horse battery"
SHORT = ["--variant", "gatinaise"]  # first to 5 Longs: the shorter game, all a test needs
DEADLINE = 60


class TappedProxy(DelayProxy):
    """A proxy on loopback that keeps every byte its clients send to the broker, as
    anyone on the path (or the broker) sees them."""

    def __init__(self, target: Endpoint) -> None:
        super().__init__(target, 0)
        self.sent: list[bytes] = []

    def listener(self):
        return self.sent.append


def _peer(args: list[str], password: str | None, home: Path) -> subprocess.Popen[str]:
    return spawn_person(args, home, PASSWORD_ENV, password)


# the exchange on each broker is the lock test's below; a whole game on the default one
@pytest.mark.parametrize("broker_kind", ["mosquitto"], indirect=True)
def test_a_private_game_never_sends_its_password_and_shows_the_broker_nothing(
    broker_kind, tmp_path
):
    """Ana hosts a private table on a broker reached through a tapping proxy; an
    observer subscribes to ``#``. A stranger without the password is told the table
    is private and how to give it; ``--private`` with no password and no terminal is
    told where to put it; a wrong password is told so; Bea, with the right one, plays
    a whole game. The password is in no byte any client sent (the MQTT CONNECTs
    included), every message the broker carried is sealed or part of the exchange, and
    no name is in any of them; the seats' events and files hold no password, and Bea's
    folder keeps the table's key (0600) for a resume."""
    from trutnet.protocol.envelope import MessageError, parse_entry

    broker = EmbeddedBroker()
    proxy = TappedProxy(broker.start())
    url = f"mqtt://127.0.0.1:{proxy.start().port}"
    seen: list[tuple[str, bytes]] = []
    ready, stop = asyncio.Event(), asyncio.Event()

    async def observe() -> None:
        async with mqtt_client(broker.endpoint, timeout=5) as observer:
            await observer.subscribe("#", qos=1)
            ready.set()
            async for message in observer.messages:
                seen.append((str(message.topic), bytes(message.payload)))
                if stop.is_set():
                    break

    common = ["--json", "--stall-timeout", "60", "--broker", url]
    try:
        host = _peer(
            ["host", "--players", "2", *SHORT, "--private", "--name", "Hostname-Ana",
             "--store", str(tmp_path / "ana"), *common],
            SECRET, tmp_path / "ana-home",
        )  # fmt: skip
        first = wait_for_event(host, lambda e: e.get("event") == "table")
        table = first["table"]
        assert first["private"] is True

        def joiner(name: str, password: str | None, private: bool) -> subprocess.Popen[str]:
            args = ["join", "--bot", "heuristic", "--table", table, "--name", name]
            args += ["--store", str(tmp_path / name), *common]
            return _peer([*args, *(["--private"] if private else [])], password, tmp_path / name)

        async def game() -> list[dict]:
            watching = asyncio.create_task(observe())
            await asyncio.wait_for(ready.wait(), DEADLINE)
            refusals = []
            for who, password, private in (
                ("stranger", None, False),
                ("asked", None, True),  # --private, no password and no terminal
                ("guesser", "guess", True),
            ):
                proc = joiner(who, password, private)
                out, err = await asyncio.to_thread(proc.communicate, timeout=DEADLINE)
                refusals.append((proc.returncode, out, err.strip()))
            friend = joiner("Guestname-Bea", SECRET, True)
            results = await asyncio.to_thread(lambda: [result_of(p) for p in (host, friend)])
            stop.set()
            async with mqtt_client(broker.endpoint, timeout=5) as poke:
                await poke.publish("trutnet/v1/invite/done", b"", qos=1)  # wakes the observer
            await asyncio.wait_for(watching, DEADLINE)
            return [refusals, results]

        refusals, results = asyncio.run(game())
    finally:
        proxy.stop()
        broker.stop()
    stranger, asked, guesser = refusals
    assert stranger == (
        1,
        "",
        f"trutnet join: the table at {url} is private: it needs the table password "
        f"(join --private, or set {PASSWORD_ENV})",
    )
    assert asked[0] == 2 and f"a private table needs its password: set {PASSWORD_ENV}" in asked[2]
    assert guesser == (1, "", "trutnet join: wrong table password")
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results) and results[0]["hands"] >= 1
    wire = b"".join(proxy.sent)
    assert len(wire) > 10_000 and SECRET.encode() not in wire  # never sent, to anyone
    assert len([t for t, _ in seen if t.startswith("trutnet/v1/sealed/")]) > 50
    for topic, payload in seen:
        assert topic.startswith(("trutnet/v1/sealed/", "trutnet/v1/invite/")), topic
        for secret in (b"Hostname-Ana", b"Guestname-Bea", SECRET.encode()):
            assert secret not in payload, (topic, secret)
        if topic.startswith("trutnet/v1/sealed/") and payload:
            with pytest.raises(MessageError):
                parse_entry(payload)
    shown = json.dumps([r["events"] for r in results]) + json.dumps(refusals)
    assert SECRET not in shown
    for kept in tmp_path.rglob("*"):  # nor in any file the seats keep
        if kept.is_file():
            assert SECRET.encode() not in kept.read_bytes()
    key = tmp_path / "Guestname-Bea" / "table.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32


def test_wrong_passwords_lock_the_door_a_while_and_the_right_one_comes_in_after(broker_kind):
    """Over a real broker, on a clock the test moves: MAX_FAILED wrong passwords (each
    counted once its exchange is left unconfirmed) lock the table; the right password
    is then refused as locked, in words that say to wait; once the lock is over it
    gives the table's key; the table's claim is cleared when its host stops."""
    broker = EmbeddedBroker()
    endpoint = broker.start()
    table, key = os.urandom(16), os.urandom(32)
    now = [0.0]

    async def scenario() -> list[str]:
        welcome = Welcome(table, key, endpoint.url).pack()
        server = InvitationServer(
            endpoint, welcome, float("inf"), TablePassword(table, SECRET), clock=lambda: now[0]
        )
        await server.start()
        said = []
        try:
            for k in range(MAX_FAILED):
                guess = TablePassword(table, f"guess {k}")
                with pytest.raises(InvitationError) as wrong:
                    await accept_invitation(endpoint, guess, timeout=DEADLINE)
                said.append(wrong.value.reason)
            now[0] += CONFIRM_SECONDS + 1  # the guesses' exchanges are left unconfirmed
            with pytest.raises(InvitationError) as locked:
                await accept_invitation(endpoint, TablePassword(table, SECRET), timeout=DEADLINE)
            said.append(str(locked.value))
            now[0] += LOCK_SECONDS
            got = await accept_invitation(endpoint, TablePassword(table, SECRET), timeout=DEADLINE)
            assert Welcome.read(got).key == key
            assert await place_claimed(endpoint, table.hex())
        finally:
            await server.stop()
        assert not await place_claimed(endpoint, table.hex())  # its claim is cleared
        return said

    try:
        said = asyncio.run(scenario())
    finally:
        broker.stop()
    assert said[:MAX_FAILED] == ["wrong"] * MAX_FAILED
    assert said[-1] == (
        "the table refused too many wrong passwords and takes none for a while:"
        " try again in a few minutes"
    )


def test_the_announcement_says_private_holds_no_password_and_lives_by_its_claim(broker_kind):
    """A private table is listed (from its TXT records) while its broker holds its
    host's claim of the table's place: not before, not after the host has gone."""
    table = os.urandom(16)
    message = {
        "v": 1,
        "game": "trut",
        "variant": "classic",
        "players": 2,
        "taken": 1,
        "name": "t",
        "host": "ab",
        "table": table.hex(),
        "broker": "mqtt://127.0.0.1:1",
        "status": "open",
        "private": True,
    }
    broker = EmbeddedBroker()
    endpoint = broker.start()

    async def listed() -> bool:
        found = FoundTable("t", table.hex(), endpoint, txt_records(message, endpoint))
        await _liveness(found, 3)
        if found.live is not None:
            assert found.to_dict()["private"] is True and found.to_dict()["status"] == "open"
        return found.live is not None

    async def scenario() -> list[bool]:
        seen = [await listed()]
        server = InvitationServer(endpoint, b"", float("inf"), TablePassword(table, SECRET))
        await server.start()
        seen.append(await listed())
        await server.stop()
        seen.append(await listed())
        return seen

    try:
        txt = txt_records(message, endpoint)
        assert txt["private"] == "1" and SECRET not in json.dumps(txt)
        assert asyncio.run(scenario()) == [False, True, False]
    finally:
        broker.stop()
    gone = FoundTable("t", table.hex(), Endpoint("127.0.0.1", free_port()), txt)
    asyncio.run(_liveness(gone, 3))
    assert gone.live is None  # a dead host's table is not listed
    assert txt_records({**message, "private": False}, endpoint)["private"] == "0"


def test_tables_and_join_show_a_private_table_found_on_the_lan(tmp_path):
    import uuid

    name = f"Private {uuid.uuid4().hex[:6]}"
    common = ["--seed", "lan-private", "--json", "--stall-timeout", "60"]
    on_loopback = ["--table-name", name, "--bind", "127.0.0.1"]  # found on loopback
    host = _peer(
        ["host", "--players", "2", *SHORT, "--private", *on_loopback, *common],
        SECRET,
        tmp_path / "host",
    )
    listing = ["tables", "--interface", "127.0.0.1", "--timeout", "2"]
    found = None
    for _ in range(6):
        out = subprocess.run(
            [*TRUTNET, *listing, "--json"], capture_output=True, text=True, timeout=60
        )
        found = next(
            (t for t in json.loads(out.stdout.splitlines()[-1]) if t["name"] == name), None
        )
        if found:
            break
    assert found is not None, "the private table was never listed"
    assert found["private"] is True and found["status"] == "open" and found["seats"] == "1/2"
    line = None
    for _ in range(6):
        text = subprocess.run([*TRUTNET, *listing], capture_output=True, text=True, timeout=60)
        rows = text.stdout.splitlines()
        at = next((i for i, x in enumerate(rows) if x.startswith(name)), None)
        line = None if at is None else rows[at : at + 3]
        if line:
            break
    assert line is not None, "the private table was never listed as text"
    assert line[0].endswith(", private") and all(len(row) <= 80 for row in line)
    assert line[2] == f'  join: trutnet join "{name}" --private'
    join = ["join", name, "--interface", "127.0.0.1", "--timeout", "5", "--bot", "heuristic"]
    join += ["--name", "friend"]
    refused = _peer([*join, *common], None, tmp_path / "none")  # asked, with no terminal
    out, err = refused.communicate(timeout=60)
    assert refused.returncode == 2 and f"set {PASSWORD_ENV}" in err
    friend = _peer([*join, "--store", str(tmp_path / "friend"), *common], SECRET, tmp_path / "f")
    results = [result_of(p) for p in (friend, host)]  # the friend's error first, if any
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)


def test_a_password_typed_wrong_is_asked_again_and_every_try_is_one_exchange(monkeypatch, capsys):
    """On a terminal, a wrong password is said and asked again, up to the tries; each
    try is one exchange with the host (one guess it counts); without a terminal the
    first wrong one is the end, in one line."""
    import trutnet.net.private as private
    import trutnet.runtime.invitations as invitations
    from trutnet.cli import passwords

    endpoint, table, key = Endpoint("127.0.0.1", 1883), os.urandom(16), os.urandom(32)
    tried = []

    async def exchange(at, secret, watch=False):
        tried.append(secret.text)
        if secret.text != SECRET:
            raise InvitationError("wrong table password", "wrong")
        return Welcome(table, key, at.url).pack()

    monkeypatch.setattr(invitations, "accept_invitation", exchange)
    typed = iter([SECRET])
    monkeypatch.setattr(private, "table_password", lambda prompt="": next(typed))
    monkeypatch.setattr(passwords, "password_typed", lambda: True)
    assert passwords.let_in(endpoint, table, "guess", watch=False) == key
    assert tried == ["guess", SECRET]
    assert capsys.readouterr().err.splitlines() == ["Wrong table password; type it again."]
    monkeypatch.setattr(passwords, "password_typed", lambda: False)
    with pytest.raises(passwords.PasswordRefused, match=r"^wrong table password$"):
        passwords.let_in(endpoint, table, "guess", watch=False)
    assert tried == ["guess", SECRET, "guess"]


@pytest.mark.parametrize("broker_kind", ["mosquitto"], indirect=True)  # a Mosquitto bridge
def test_a_bridged_private_table_lets_a_friend_in_through_the_rendezvous(broker_kind, tmp_path):
    """``host --private --bridge URL``: the table's own Mosquitto carries the sealed
    table and the password's exchange to a rendezvous; a friend who reaches only the
    rendezvous comes in with ``--broker URL --table ID --private`` and the password,
    and both seats end on one state."""
    from tests.mosquitto import mosquitto

    with mosquitto() as rendezvous:
        host = _peer(
            ["host", "--players", "2", *SHORT, "--private", "--bridge", rendezvous,
             "--bind", "127.0.0.1", "--no-announce", "--json"],
            SECRET, tmp_path / "ana",
        )  # fmt: skip
        table = wait_for_event(host, lambda e: e.get("event") == "table")["table"]
        far = parse_broker_url(rendezvous)
        deadline = time.monotonic() + DEADLINE  # until the bridge carried the claim across
        while not asyncio.run(place_claimed(far, table)):
            assert time.monotonic() < deadline, "the rendezvous never held the table's claim"
        friend = _peer(
            ["join", "--broker", rendezvous, "--table", table, "--private", "--bot",
             "heuristic", "--json"],
            SECRET, tmp_path / "bea",
        )  # fmt: skip
        results = [result_of(p) for p in (friend, host)]
    assert len({r["state_hash"] for r in results}) == 1, results
    assert all(r["halted"] is None for r in results)


def test_a_table_found_private_by_its_claim_asks_only_where_a_person_types(monkeypatch, capsys):
    """``join --broker URL --table ID`` without ``--private`` at a private table: with
    the password in the environment it goes in without a word; on a terminal it says
    the table is private before asking; with neither, one line says what to give."""
    import argparse
    import sys

    import trutnet.discovery.browse as browse
    from trutnet.cli import passwords
    from trutnet.cli.arguments import Refused

    async def claimed(endpoint, place, timeout=3.0):
        return True

    key = os.urandom(32)
    monkeypatch.setattr(browse, "place_claimed", claimed)
    monkeypatch.setattr(passwords, "let_in", lambda *args: key)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    endpoint, table = Endpoint("127.0.0.1", 1883), os.urandom(16)

    def enter() -> argparse.Namespace:
        args = argparse.Namespace(broker=endpoint.url, private=False, table_key=None)
        passwords.enter_private(args, endpoint, table, False, "join")
        return args

    monkeypatch.setenv(PASSWORD_ENV, SECRET)
    assert enter().table_key == key and capsys.readouterr().err == ""
    monkeypatch.delenv(PASSWORD_ENV)
    with pytest.raises(Refused, match="is private: it needs the table password"):
        enter()
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("trutnet.net.private.getpass.getpass", lambda prompt: SECRET)
    assert enter().table_key == key
    assert capsys.readouterr().err == "This table is private: type its password.\n"
