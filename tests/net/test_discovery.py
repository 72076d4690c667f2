"""Discovery for real: zeroconf on loopback, and across two network namespaces."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from tests import ROOT
from tests.network_helpers import result_of, spawn, track

TRUTNET = [sys.executable, "-m", "trutnet"]


def tables(*prefix: str, interface: str, timeout: float = 2.0) -> list[dict]:
    out = subprocess.run(
        [
            *prefix,
            *TRUTNET,
            "tables",
            "--json",
            "--interface",
            interface,
            "--timeout",
            str(timeout),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def wait_listed(predicate, *prefix, interface, tries=6):
    for _ in range(tries):
        found = [t for t in tables(*prefix, interface=interface) if predicate(t)]
        if found:
            return found[0]
    raise AssertionError("the table was never listed")


LOOPBACK = ["--bind", "127.0.0.1"]  # a host found on loopback is bound there


def listed_rows(name: str, tries: int = 6, **run) -> tuple[list[str], int]:
    """``trutnet tables`` as text, searched again until ``name`` is listed: its rows
    and the index of the table's first row."""
    for _ in range(tries):
        text = subprocess.run(
            [*TRUTNET, "tables", "--interface", "127.0.0.1"],
            capture_output=True, text=True, timeout=60, **run,
        ).stdout  # fmt: skip
        rows = text.splitlines()
        at = next((i for i, line in enumerate(rows) if line.startswith(name)), None)
        if at is not None:
            return rows, at
    raise AssertionError(f"{name} was never listed as text")


@pytest.mark.network
def test_tables_lists_a_live_table_and_drops_a_dead_host_on_loopback():
    name = f"Loop {uuid.uuid4().hex[:6]}"
    host = spawn(["host", "--players", "2", "--table-name", name, "--json", *LOOPBACK])
    try:
        found = wait_listed(lambda t: t["name"] == name, interface="127.0.0.1")
        assert found["seats"] == "1/2" and found["status"] == "open"
        assert found["broker"].startswith("mqtt://127.0.0.1:") and len(found["table"]) == 32
        os.kill(host.pid, signal.SIGKILL)  # mDNS records stay; the liveness check drops it
        host.communicate()
        deadline = time.monotonic() + 60  # its broker dies with it: soon nothing answers
        while [t for t in tables(interface="127.0.0.1") if t["name"] == name]:
            assert time.monotonic() < deadline, "a dead host is still listed"
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()


@pytest.mark.network
def test_discovery_and_a_whole_game_across_two_network_namespaces(two_machines):
    (ns_a, addr_a), (ns_b, addr_b) = two_machines
    name = "Netns table"
    host = track(
        subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                ns_a,
                *TRUTNET,
                "host",
                "--players",
                "2",
                "--bind",
                addr_a,
                "--table-name",
                name,
                "--json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    )
    try:
        found = wait_listed(
            lambda t: t["name"] == name, "ip", "netns", "exec", ns_b, interface=addr_b
        )
        assert found["broker"].startswith(f"mqtt://{addr_a}:")
        assert found["seats"] == "1/2" and found["status"] == "open"
        guest = track(
            subprocess.Popen(
                [
                    "ip",
                    "netns",
                    "exec",
                    ns_b,
                    *TRUTNET,
                    "join",
                    "--bot",
                    "heuristic",
                    name,
                    "--interface",
                    addr_b,
                    "--timeout",
                    "3",
                    "--json",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        results = [result_of(guest), result_of(host)]
        assert results[0]["state_hash"] == results[1]["state_hash"]
    finally:
        for proc in (host,):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


# ----------------------------------------------------- the game, in TXT and `tables`


class _Info:
    def __init__(self, properties: dict[bytes, bytes]) -> None:
        self.properties, self.port = properties, 1883

    def parsed_addresses(self) -> list[str]:
        return ["127.0.0.1"]


class _Zeroconf:
    def __init__(self, info: _Info) -> None:
        self.info = info

    def get_service_info(self, type_: str, name: str, timeout: int = 0) -> _Info:
        return self.info


def announced(game: str = "tokens") -> tuple[dict, bytes, bytes]:
    """A host's lobby announcement of a table of ``game``, signed, and the table id."""
    from trutnet.crypto.identity import Identity
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.net.broker import Endpoint
    from trutnet.protocol.lobby import Lobby, sign_announcement
    from trutnet.runtime.seat_process import announcement

    host = Identity.generate(os.urandom)
    lobby = Lobby(TrutGame(TrutConfig(2)), host, "Ana", os.urandom(16))
    body = announcement(lobby, "Ana's table", Endpoint("127.0.0.1", 1883), "open")
    body["game"] = game  # what the host's own lobby says (the game is the host's choice)
    return body, sign_announcement(host, lobby.table_id, body), lobby.table_id


def collected(message: dict) -> list:
    """What ``trutnet tables`` makes of the TXT records that ``host`` announces."""
    from trutnet.discovery import browse
    from trutnet.discovery.announce import SERVICE, txt_records
    from trutnet.net.broker import Endpoint

    txt = txt_records(message, Endpoint("127.0.0.1", 1883))
    collector = browse._Collector()
    properties = {k.encode(): v.encode() for k, v in txt.items()}
    collector._read(_Zeroconf(_Info(properties)), SERVICE, f"t.{SERVICE}")  # type: ignore[arg-type]
    return list(collector.found.values())


def test_the_txt_records_carry_the_game_and_a_bad_one_is_dropped():
    body, _, _ = announced("tokens")
    (found,) = collected({k: v for k, v in body.items() if k != "nonce"})
    assert found.txt["game"] == "tokens" and found.game == "tokens"
    assert found.to_dict()["game"] == "tokens"
    for bad in ("", "Trut", "tr\x1but", "x" * 33, "trut table"):
        assert collected({**body, "game": bad}) == [], bad  # not listed at all


@pytest.mark.network
def test_a_table_is_live_only_if_its_signed_announcement_names_the_txt_game(monkeypatch):
    """The TXT records say one game, the host's signed announcement another: the table
    is not shown as live (someone else's records, or a stale one)."""
    import asyncio

    import aiomqtt

    from trutnet.discovery import browse

    body, signed, _ = announced("tokens")

    class Client:
        def __init__(self, *args, **kwargs) -> None:
            pass

        async def __aenter__(self):
            return self

        async def __aexit__(self, *exc) -> None:
            return None

        async def subscribe(self, topic, qos=0) -> None:
            self.topic = topic

        @property
        def messages(self):
            async def one():
                yield type("M", (), {"payload": signed, "topic": self.topic})()

            return one()

    monkeypatch.setattr(aiomqtt, "Client", Client)
    plain = {k: v for k, v in body.items() if k != "nonce"}
    for txt_game, live in (("tokens", True), ("trut", False)):
        (table,) = collected({**plain, "game": txt_game})
        asyncio.run(browse._liveness(table, 1.0))
        assert (table.live is not None) is live, txt_game
        if live:
            assert table.live["game"] == "tokens" and table.game == "tokens"


@pytest.mark.network
def test_tables_names_each_tables_game_and_how_to_join_it(monkeypatch, capsys):
    import argparse

    from trutnet.cli import lan_tables
    from trutnet.discovery import browse

    tables = []
    for game in ("tokens", "trut"):
        body, _, _ = announced(game)
        plain = {k: v for k, v in body.items() if k != "nonce"}
        (table,) = collected({**plain, "name": f"{game} table"})
        table.live = plain
        tables.append(table)
    monkeypatch.setattr(browse, "live_tables", lambda timeout=2.0, interfaces=None: tables)
    args = argparse.Namespace(timeout=0.1, interface=None, json=True, watch=False)
    assert lan_tables.cmd_tables(args) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [t["game"] for t in listed] == ["tokens", "trut"]
    args.json = False
    assert lan_tables.cmd_tables(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [  # three lines a table, at most 80 columns; --json has every field
        "tokens table   tokens classic, seats 1/2, open",
        f"  host {tables[0].txt['fp']} at mqtt://127.0.0.1:1883",
        '  join: trutnet join "tokens table" --game tokens',
    ]
    assert lines[3] == "trut table   trut classic, seats 1/2, open"
    assert lines[5] == '  join: trutnet join "trut table"'  # the default game needs no --game


@pytest.mark.network
def test_tables_lists_a_table_of_another_game_on_loopback():
    """``host --game tokens`` (its plugin from $TRUTNET_GAME_PLUGINS): ``tables`` says
    it plays tokens; a joiner asking for Trut by name is told which game it is."""

    root = ROOT
    env = {**os.environ, "PYTHONPATH": str(root), "TRUTNET_GAME_PLUGINS": "tests.games.plugin"}
    name = f"Tokens {uuid.uuid4().hex[:6]}"
    host = track(
        subprocess.Popen(
            [*TRUTNET, "host", "--game", "tokens", "--table-name", name, "--json", *LOOPBACK],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=root,
        )
    )
    try:
        found = wait_listed(lambda t: t["name"] == name, interface="127.0.0.1")
        assert found["game"] == "tokens" and found["seats"] == "1/2"
        rows, at = listed_rows(name, env=env, cwd=root)
        assert rows[at] == f"{name}   tokens, seats 1/2, open"
        assert rows[at + 2] == f'  join: trutnet join "{name}" --game tokens'
        joined = subprocess.run(
            [*TRUTNET, "join", name, "--interface", "127.0.0.1", "--bot", "random",
             "--timeout", "8"],
            capture_output=True, text=True, timeout=60, env=env, cwd=root,
        )  # fmt: skip
        assert joined.returncode == 1
        assert joined.stderr.splitlines()[-1] == (
            f"trutnet join: table {name!r} plays tokens, not trut: join it with --game tokens"
        )
    finally:
        host.kill()
        host.communicate()


def test_a_sealed_table_is_found_by_its_invitation_number_and_says_nothing_else():
    """A sealed table's records (9.4, 9.9) are its number and port: a browser keeps it as
    a table with an invitation and no name, game or table id; a record whose number is
    not a number is dropped."""
    from trutnet.discovery import browse
    from trutnet.discovery.announce import SERVICE

    collector = browse._Collector()
    for name, invite in (("a", b"42"), ("b", b"x42")):
        txt = {b"v": b"1", b"sealed": b"1", b"invite": invite, b"port": b"1883"}
        collector._read(_Zeroconf(_Info(txt)), SERVICE, f"{name}.{SERVICE}")  # type: ignore[arg-type]
    (found,) = collector.found.values()
    assert found.invite == 42 and found.table == "" and found.live is None
    listed = found.to_dict()
    assert listed == {
        **dict.fromkeys(("name", "table", "game", "variant", "seats", "host")),
        "invite": 42,
        "broker": "mqtt://127.0.0.1:1883",
        "status": "unreachable",
        "private": True,
    }
    # the same fields as an open table's, for a script that reads each alike
    from trutnet.net.broker import Endpoint

    opened = browse.FoundTable("Ana's", "ab" * 16, Endpoint("127.0.0.1", 1883), {"v": "1"})
    assert set(listed) == set(opened.to_dict()) and opened.to_dict()["invite"] is None
