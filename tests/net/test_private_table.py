"""Private tables: the embedded broker (Mosquitto and amqtt) wants the table password,
clients without it or with a wrong one are refused in one clear line, and the
password shows up nowhere: not in events, announcements, logs or process listings."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from pathlib import Path

import aiomqtt
import pytest

from tests.mosquitto import free_port
from tests.network_helpers import TRUTNET, result_of, track
from trutnet.discovery.announce import txt_records
from trutnet.discovery.browse import FoundTable, _liveness
from trutnet.net.broker import TABLE_USER, EmbeddedBroker, Endpoint
from trutnet.net.mqtt_link import MqttLink
from trutnet.net.private import PASSWORD_ENV, check_access

pytestmark = pytest.mark.network  # peers, a broker: skipped by -m "not network"

SECRET = "correct horse battery"
SHORT = ["--variant", "gatinaise"]  # first to 5 Longs: the shorter game, all a test needs


def test_a_private_broker_refuses_no_password_and_a_wrong_one(broker_kind, monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, SECRET)  # as a host has it: the broker must not
    broker = EmbeddedBroker(password=SECRET)
    endpoint = broker.start()
    try:
        pid = broker.pid
        assert broker.kind == broker_kind and pid is not None
        for where in ("cmdline", "environ"):  # not in a process listing, nor inherited
            assert SECRET.encode() not in Path(f"/proc/{pid}/{where}").read_bytes()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        folders = [Path(a) for a in argv if "trutnet-broker-" in a]
        assert folders and not any(f.exists() for f in folders)  # the hash file is gone too
        missing = asyncio.run(check_access(endpoint, None))
        wrong = asyncio.run(check_access(endpoint, "guess"))
        assert missing == (
            f"the table at {endpoint.url} is private: it needs the table password "
            f"(join --private, or set {PASSWORD_ENV})"
        )
        assert wrong == f"the table at {endpoint.url} refused the password: wrong table password"
        assert asyncio.run(check_access(endpoint, SECRET)) is None

        async def anonymous_subscribe() -> None:  # the hostile LAN client of issue 9
            async with aiomqtt.Client(endpoint.host, endpoint.port, timeout=5) as client:
                await client.subscribe("#")

        try:
            asyncio.run(anonymous_subscribe())
            raise AssertionError("an anonymous client got in")
        except aiomqtt.MqttCodeError as exc:
            assert "authorized" in str(exc.rc).lower()
    finally:
        broker.stop()


def test_a_link_with_the_password_talks_and_one_without_is_told_why(broker_kind):
    broker = EmbeddedBroker(password=SECRET)
    endpoint = broker.start()

    async def scenario() -> tuple[bytes, str | None, bool]:
        good = MqttLink([endpoint], ["t/x"], "good", password=SECRET)
        bad = MqttLink([endpoint], ["t/x"], "bad", password="guess")
        await good.start()
        await bad.start()
        await asyncio.wait_for(good.connected.wait(), 10)
        assert await good.publish("t/x", b"hello")
        got = await asyncio.wait_for(good.inbox.get(), 10)
        deadline = time.monotonic() + 10
        while bad.refused is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        connected = bad.connected.is_set()
        await good.close()
        await bad.close()
        return got[1], bad.refused, connected

    try:
        payload, refused, connected = asyncio.run(scenario())
    finally:
        broker.stop()
    assert payload == b"hello" and not connected
    assert refused is not None and "wrong table password" in refused and SECRET not in refused


def test_the_announcement_says_private_and_holds_no_password(broker_kind):
    message = {
        "v": 1,
        "game": "trut",
        "variant": "classic",
        "players": 2,
        "taken": 1,
        "name": "t",
        "host": "ab",
        "table": "00" * 16,
        "broker": "mqtt://127.0.0.1:1",
        "status": "open",
        "private": True,
    }
    broker = EmbeddedBroker(password=SECRET)
    endpoint = broker.start()
    try:
        txt = txt_records(message, endpoint)
        assert txt["private"] == "1" and SECRET not in json.dumps(txt)
        found = FoundTable("t", "00" * 16, endpoint, txt)
        asyncio.run(_liveness(found, 3))  # alive: its broker answers, refusing us
        assert found.live is not None and found.to_dict()["private"] is True
        assert found.to_dict()["status"] == "open"
    finally:
        broker.stop()
    gone = FoundTable("t", "00" * 16, Endpoint("127.0.0.1", free_port()), txt)
    asyncio.run(_liveness(gone, 3))
    assert gone.live is None  # a dead host's table is not listed
    assert txt_records({**message, "private": False}, endpoint)["private"] == "0"


def _peer(args: list[str], password: str | None) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != PASSWORD_ENV}
    env["PYTHONUNBUFFERED"] = "1"
    if password is not None:
        env[PASSWORD_ENV] = password
    return track(
        subprocess.Popen(
            [*TRUTNET, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
    )


# the refusals of each broker are the tests above; a whole private game on one of them
@pytest.mark.parametrize("broker_kind", ["amqtt"], indirect=True)
def test_a_private_table_refuses_strangers_and_plays_with_friends(broker_kind, tmp_path):
    common = ["--seed", "private", "--json", "--stall-timeout", "60"]
    host = _peer(
        [
            "host",
            "--players",
            "2",
            *SHORT,
            "--private",
            "--no-announce",
            "--store",
            str(tmp_path / "host"),
            *common,
        ],
        SECRET,
    )
    first = json.loads(host.stdout.readline())
    second = json.loads(host.stdout.readline())
    table = first["table"]
    assert first["event"] == "table" and first["private"] is True
    assert second == {
        "event": "broker",
        "who": "host",
        "broker": first["broker"],
        "kind": broker_kind,
        "private": True,
        "bridge": None,
    }
    url = first["broker"]

    def joiner(name: str, password: str | None, private: bool) -> subprocess.Popen[str]:
        args = ["join", "--bot", "heuristic", "--broker", url, "--table", table, "--name", name]
        return _peer(
            [*args, *(["--private"] if private else []), "--store", str(tmp_path / name), *common],
            password,
        )

    stranger = joiner("stranger", None, False)
    out, err = stranger.communicate(timeout=60)
    assert stranger.returncode == 1 and out == ""
    assert err.strip() == (
        f"trutnet join: the table at {url} is private: it needs the table password "
        f"(join --private, or set {PASSWORD_ENV})"
    )
    no_terminal = joiner("asked", None, True)  # --private, no password and no terminal
    out, err = no_terminal.communicate(timeout=60)
    assert no_terminal.returncode == 2
    assert f"a private table needs its password: set {PASSWORD_ENV}" in err
    guesser = joiner("guesser", "guess", True)
    out, err = guesser.communicate(timeout=60)
    assert guesser.returncode == 1
    assert err.strip() == (
        f"trutnet join: the table at {url} refused the password: wrong table password"
    )
    friend = joiner("friend", SECRET, True)
    results = [result_of(p) for p in (host, friend)]
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results) and results[0]["hands"] >= 1
    seen = json.dumps([r["events"] for r in results]) + out + err + str(first)
    assert SECRET not in seen
    for store in tmp_path.rglob("*"):  # nor in any file the seats keep
        if store.is_file():
            assert SECRET.encode() not in store.read_bytes()
    assert TABLE_USER == "trutnet"


def test_tables_and_join_show_a_private_table_found_on_the_lan(tmp_path):
    import uuid

    name = f"Private {uuid.uuid4().hex[:6]}"
    common = ["--seed", "lan-private", "--json", "--stall-timeout", "60"]
    on_loopback = ["--table-name", name, "--bind", "127.0.0.1"]  # found on loopback
    host = _peer(
        ["host", "--players", "2", *SHORT, "--private", *on_loopback, *common],
        SECRET,
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
    refused = _peer([*join, *common], None)  # found private: asked, and no terminal to ask on
    out, err = refused.communicate(timeout=60)
    assert refused.returncode == 2 and f"set {PASSWORD_ENV}" in err
    friend = _peer([*join, "--store", str(tmp_path / "friend"), *common], SECRET)
    results = [result_of(p) for p in (friend, host)]  # the friend's error first, if any
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)


def test_a_seat_resumed_at_a_private_table_is_asked_its_password(monkeypatch, capsys):
    """``join --resume --store DIR`` (the command printed when a seat leaves, with no
    --private) at a private table asks for its password on a terminal instead of ending
    with "it needs the table password"; without a terminal it still says why."""
    import trutnet.net.private as private
    from trutnet.cli import passwords

    endpoint = Endpoint("127.0.0.1", 1883)

    async def check_access(at, password, timeout=5.0):
        return None if password == SECRET else private.refused_message(at, password)

    monkeypatch.setattr(private, "check_access", check_access)
    typed = iter(["guess", SECRET])
    monkeypatch.setattr(private, "table_password", lambda prompt="": next(typed))
    monkeypatch.setattr(passwords, "password_typed", lambda: True)
    assert passwords.let_in(endpoint, None) == SECRET
    said = capsys.readouterr().err.splitlines()
    assert said == [
        "This table is private: type its password.",
        "Wrong table password; type it again.",
    ]
    monkeypatch.setattr(passwords, "password_typed", lambda: False)
    with pytest.raises(passwords.JoinError, match="is private: it needs the table password"):
        passwords.let_in(endpoint, None)
