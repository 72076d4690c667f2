"""Every MQTT client a command opens is closed before the command's event loop ends.

A paho client left to the garbage collector closes its socket in ``Client.__del__``,
through aiomqtt's callbacks on a loop that is gone: "Exception ignored in:
Client.__del__", 20 lines under a refusal that should be one (when the loop ends
while a connection attempt is still running in its thread: a race). Nothing hides
that any more; so each command whose loop ends (``join`` refusing a table of another
game, ``join`` at a port where no broker answers, ``host``, ``watch``) is run here in
this process, and no paho client may reach its finalizer with a socket (its own or
its wake-up pair) still open: the finalizer is what runs on a dead loop. Nothing
unraisable may come of a garbage collection either. The refusal run as a person runs
it (a separate process) prints one line, no "Exception ignored".
"""

from __future__ import annotations

import gc
import socket
import sys

import paho.mqtt.client as paho
import pytest

from tests.network_helpers import result_of, spawn
from trutnet.cli import main
from trutnet.net.broker import EmbeddedBroker
from trutnet.runtime.events import announced_table


@pytest.fixture(scope="module")
def broker():
    broker = EmbeddedBroker()
    url = broker.start().url
    yield url
    broker.stop()


def holds_a_socket(client: paho.Client) -> bool:
    return any(s is not None for s in (client._sock, client._sockpairR, client._sockpairW))


def assert_closed_after(argv: list[str], expected: int, monkeypatch) -> None:
    """Run ``trutnet ARGV`` in this process: no paho client reaches its finalizer
    holding a socket, none is left alive holding one, and finalizing whatever is left
    raises nothing."""
    unclosed: list[str] = []
    finalize = paho.Client.__del__

    def spy(client: paho.Client) -> None:
        if holds_a_socket(client):
            unclosed.append(f"{client._host}:{client._port}")
        finalize(client)

    monkeypatch.setattr(paho.Client, "__del__", spy)
    caught: list[object] = []
    hook = sys.unraisablehook
    sys.unraisablehook = caught.append
    try:
        code = main(argv)
        for _ in range(3):
            gc.collect()
        alive = [o for o in gc.get_objects() if isinstance(o, paho.Client) and holds_a_socket(o)]
    finally:
        sys.unraisablehook = hook
    assert code == expected, f"trutnet {' '.join(argv[:2])} exited {code}"
    assert unclosed == [], f"MQTT clients left to the finalizer by trutnet {argv[0]}: {unclosed}"
    assert alive == [], f"{len(alive)} MQTT client(s) left open by trutnet {argv[0]}"
    shown = [f"{getattr(u, 'object', None)!r}: {getattr(u, 'exc_value', None)!r}" for u in caught]
    assert shown == [], f"unraisable errors after trutnet {argv[0]}: {shown}"


def test_join_refusing_a_table_of_another_game_closes_its_clients(broker, tmp_path, monkeypatch):
    host = spawn(
        [
            "host",
            "--players",
            "2",
            "--broker",
            broker,
            "--no-announce",
            "--json",
            "--store",
            str(tmp_path / "host"),
        ]
    )
    table, _ = announced_table(host)
    argv = ["join", "--game", "truco", "--broker", broker, "--table", table]
    try:
        assert_closed_after([*argv, "--store", str(tmp_path / "j"), "--json"], 1, monkeypatch)
    finally:
        host.kill()
        host.communicate(timeout=30)


def test_join_where_no_broker_answers_closes_its_clients(tmp_path, monkeypatch):
    """A port that takes TCP connections and never speaks MQTT: the connection attempt
    is cut off by the probe's deadline."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    url = f"mqtt://127.0.0.1:{silent.getsockname()[1]}"
    try:
        argv = ["join", "--broker", url, "--table", "ab" * 16, "--store", str(tmp_path / "j")]
        assert_closed_after(argv, 1, monkeypatch)
    finally:
        silent.close()


def test_host_and_watch_close_their_clients(broker, tmp_path, monkeypatch):
    """A whole game hosted here (a bot in the other seat), then a spectator of another
    game watched here to its end."""
    argv = ["host", "--players", "2", "--bots", "1", "--broker", broker, "--no-announce"]
    argv += ["--store", str(tmp_path / "host"), "--json", "--seed", "closed", "--linger", "2"]
    assert_closed_after(argv, 0, monkeypatch)

    other = spawn(
        [
            "host",
            "--players",
            "2",
            "--bots",
            "1",
            "--broker",
            broker,
            "--no-announce",
            "--store",
            str(tmp_path / "other"),
            "--json",
            "--seed",
            "watched",
        ]
    )
    table, _early = announced_table(other)
    argv = ["watch", "--broker", broker, "--table", table, "--json", "--name", "Eve"]
    try:
        assert_closed_after(argv, 0, monkeypatch)
    finally:
        result_of(other, timeout=120)


def test_a_refusal_in_its_own_process_prints_no_finalizer_traceback(broker, tmp_path):
    """As a person runs it: ``join`` refusing a table of another game says one line."""
    host = spawn(
        [
            "host",
            "--players",
            "2",
            "--broker",
            broker,
            "--no-announce",
            "--json",
            "--store",
            str(tmp_path / "host"),
        ]
    )
    table, _ = announced_table(host)
    try:
        for k in range(3):
            join = spawn(
                [
                    "join",
                    "--game",
                    "truco",
                    "--broker",
                    broker,
                    "--table",
                    table,
                    "--store",
                    str(tmp_path / f"j{k}"),
                ]
            )
            _out, err = join.communicate(timeout=60)
            assert join.returncode == 1, err
            assert "Exception ignored" not in err and len(err.splitlines()) == 1, err
    finally:
        host.kill()
        host.communicate(timeout=30)
