"""A broker that wants a user name and password (a group's own rendezvous that keeps
strangers off): ``--broker mqtt://USER@host:port``, the password from
``$TRUTNET_BROKER_PASSWORD`` (or asked on the terminal), never in a URL, a file, a
process listing or a line printed; a missing or wrong one is said in one line; a
bridge to such a rendezvous carries the user into Mosquitto's config alone."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.mosquitto import mosquitto
from tests.network_helpers import result_of, spawn_person, wait_for_event
from trutnet.net.broker import (
    BROKER_PASSWORD_ENV,
    BrokerError,
    EmbeddedBroker,
    bridge_endpoint,
    bridge_lines,
    parse_broker_url,
)

SECRET = "rendezvous-pass-71"


def test_a_user_goes_in_the_url_and_its_password_never_does(monkeypatch):
    endpoint = parse_broker_url("mqtts://ana@rv.example:8883")
    assert (endpoint.user, endpoint.host, endpoint.tls) == ("ana", "rv.example", True)
    assert endpoint.url == "mqtts://ana@rv.example:8883"
    assert parse_broker_url(endpoint.url) == endpoint  # round-trips
    assert endpoint.address == "mqtts://rv.example:8883"  # what an announcement says
    with pytest.raises(BrokerError, match=f"does not go in its URL.*set {BROKER_PASSWORD_ENV}"):
        parse_broker_url("mqtt://ana:hunter2@rv.example:1883")
    with pytest.raises(BrokerError, match="user name is 1 to 64"):
        parse_broker_url("mqtt://" + "a" * 65 + "@rv.example:1883")
    monkeypatch.setenv(BROKER_PASSWORD_ENV, SECRET)
    lines = bridge_lines(bridge_endpoint("mqtt://ana@rv.example:1883"), "b")
    assert "remote_username ana" in lines and f"remote_password {SECRET}" in lines
    monkeypatch.setenv(BROKER_PASSWORD_ENV, "two words\nconnection evil")
    with pytest.raises(BrokerError, match="cannot hold spaces"):  # nor a line of its own
        EmbeddedBroker(kind="mosquitto", bridge=bridge_endpoint("mqtt://ana@rv:1883"))


def _person(args: list[str], home: Path, password: str | None) -> subprocess.Popen[str]:
    return spawn_person(args, home, BROKER_PASSWORD_ENV, password)


@pytest.mark.network
def test_a_sealed_table_plays_on_a_broker_that_wants_users_and_refuses_the_others(tmp_path):
    """Ana hosts a sealed table on a Mosquitto that lets in only its users; Bea joins
    by the code with her user. Without a user, and with a wrong password, a joiner is
    told in one line what the broker wants. The password is in no line printed and no
    file kept; the seats' files name the user, so a resume reaches the broker again."""
    with mosquitto({"ana": SECRET, "bea": SECRET + "-b"}) as url:
        port = url.rsplit(":", 1)[1]
        ana_url, bea_url = (f"mqtt://{who}@127.0.0.1:{port}" for who in ("ana", "bea"))
        host = _person(
            ["host", "--players", "2", "--variant", "gatinaise", "--invite", "--broker", ana_url,
             "--json", "--no-announce", "--store", str(tmp_path / "ana")],
            tmp_path / "ana-home", SECRET,
        )  # fmt: skip
        code = wait_for_event(host, lambda e: e.get("event") == "invitation")["code"]

        def joiner(name: str, at: str, password: str | None) -> subprocess.Popen[str]:
            args = ["join", code, "--broker", at, "--bot", "heuristic", "--json"]
            return _person([*args, "--store", str(tmp_path / name)], tmp_path / name, password)

        refusals = []
        for name, at, password in (("anon", url, None), ("wrong", bea_url, "guess")):
            proc = joiner(name, at, password)
            _out, err = proc.communicate(timeout=60)
            refusals.append((proc.returncode, err.strip()))
        bea = joiner("bea", bea_url, SECRET + "-b")
        results = [result_of(p) for p in (bea, host)]
    assert refusals == [
        (
            1,
            f"trutnet join: the broker at {url} refused the connection: it asks for a user"
            f" name, given as mqtt://USER@host:port, and a password, set in {BROKER_PASSWORD_ENV}",
        ),
        (
            1,
            f"trutnet join: the broker at {bea_url} refused user bea: wrong or missing password"
            f" (set {BROKER_PASSWORD_ENV})",
        ),
    ]
    assert results[0]["state_hash"] == results[1]["state_hash"]
    assert all(r["halted"] is None for r in results)
    assert SECRET not in str(results) + str(refusals)
    kept = [f for f in tmp_path.rglob("*") if f.is_file()]
    assert kept and all(SECRET.encode() not in f.read_bytes() for f in kept)
    assert bea_url in (tmp_path / "bea" / "table.txt").read_text()


def test_a_person_on_a_terminal_is_asked_the_broker_password_once(monkeypatch):
    """On a terminal, a ``--broker`` (or ``--bridge``) with a user and no
    ``$TRUTNET_BROKER_PASSWORD`` is asked for its password once, unechoed, and every
    connection of the process reads it; Ctrl-C there ends the command in one line."""
    import argparse
    import getpass
    import sys

    from trutnet.cli.arguments import Refused
    from trutnet.cli.passwords import ask_broker_password

    monkeypatch.delenv(BROKER_PASSWORD_ENV, raising=False)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    prompts = []
    monkeypatch.setattr(getpass, "getpass", lambda prompt: prompts.append(prompt) or SECRET)
    args = argparse.Namespace(command="join", broker=None, bridge="mqtt://ana@rv.example:1883")
    ask_broker_password(args)
    assert prompts == ["Password of ana at the broker rv.example: "]
    assert os.environ[BROKER_PASSWORD_ENV] == SECRET
    ask_broker_password(args)  # given already: not asked again
    assert len(prompts) == 1
    monkeypatch.delenv(BROKER_PASSWORD_ENV)
    ask_broker_password(argparse.Namespace(command="join", broker="mqtt://rv:1", bridge=None))
    assert len(prompts) == 1 and BROKER_PASSWORD_ENV not in os.environ  # no user: no password

    def interrupted(prompt):
        raise KeyboardInterrupt

    monkeypatch.setattr(getpass, "getpass", interrupted)
    with pytest.raises(Refused, match=r"^trutnet join: no broker password given$"):
        ask_broker_password(args)


@pytest.mark.network
def test_a_bridge_reaches_a_rendezvous_that_wants_a_user(monkeypatch):
    """The embedded Mosquitto bridges to a rendezvous that lets in only its users: what
    is published on the host's broker reaches the rendezvous, and the password is in
    the bridge's config alone, not in Mosquitto's environment or command line."""
    import asyncio

    from trutnet.net.mqtt_link import mqtt_client

    monkeypatch.setenv(BROKER_PASSWORD_ENV, SECRET)
    with mosquitto({"ana": SECRET}) as url:
        rendezvous = parse_broker_url(url.replace("mqtt://", "mqtt://ana@"))
        local = EmbeddedBroker(kind="mosquitto", bridge=bridge_endpoint(rendezvous.url))
        near = local.start()
        try:
            assert local.pid is not None
            for what in ("environ", "cmdline"):
                assert SECRET.encode() not in Path(f"/proc/{local.pid}/{what}").read_bytes()

            async def across() -> bytes:
                async with mqtt_client(rendezvous) as far, mqtt_client(near) as here:
                    await far.subscribe("trutnet/v1/invite/#", qos=1)
                    while True:  # until the bridge is up: each try waits for the message
                        await here.publish("trutnet/v1/invite/42/ask", b"hello", qos=1)
                        try:
                            async with asyncio.timeout(0.5):
                                async for message in far.messages:
                                    return bytes(message.payload)
                        except TimeoutError:
                            continue

            assert asyncio.run(asyncio.wait_for(across(), 60)) == b"hello"
        finally:
            local.stop()
