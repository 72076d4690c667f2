"""A sealed table across a simulated internet (docs/protocol.md 9.9, docs/broker.md):
two homes behind NAT, a public broker reached through delayed hops, and the person's
path in separate processes. Ana's ``host --invite --broker URL`` prints a code, Bea's
``join CODE --broker URL`` trades it for the table's key, and the game goes on while
Ana's router is renumbered (every NAT mapping lost) and while the broker restarts.
Then a bridged table: Ana's own Mosquitto carries the sealed table to the public
broker (``--bridge``), Cy on Ana's LAN joins by the code alone, Bea from her home by
the code and the public broker, and the three play one table."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.net.test_network_faults import wait_for_entries
from tests.network_helpers import result_of, track, wait_for_event

pytestmark = pytest.mark.network
DEADLINE = 120
HOP_MS = "30"  # each hop between a home and the broker, each way
BROKER_PORT = "1884"  # the broker, on the public machine's loopback
PUBLIC_PORT = "1883"  # the delayed hop in front of it, on the public address


def _broker(internet, tmp_path: Path) -> subprocess.Popen[str]:
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(
        f"listener {BROKER_PORT} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        "log_dest stderr\n"
    )
    command = ["ip", "netns", "exec", internet.public, "mosquitto", "-c", str(conf)]
    return track(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True))  # fmt: skip


def _stop(proc: subprocess.Popen[str]) -> str:
    """Stop ``proc`` (SIGTERM) and return what it printed."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    return proc.communicate(timeout=30)[0]


def _public_broker(internet, tmp_path: Path) -> tuple[subprocess.Popen[str], subprocess.Popen[str]]:
    """The public broker, and the delayed hop in front of it (ready)."""
    mosquitto = _broker(internet, tmp_path)
    hop_args = [internet.PUBLIC, PUBLIC_PORT, "127.0.0.1", BROKER_PORT, HOP_MS]
    hop = track(subprocess.Popen(
        ["ip", "netns", "exec", internet.public, sys.executable, "-m", "tests.net.hop",
         *hop_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).parents[2],
    ))  # fmt: skip
    assert hop.stdout is not None and hop.stdout.readline().strip() == "ready"
    return mosquitto, hop


def _person(tmp_path: Path, ns: str, home: str, *args: str) -> subprocess.Popen[str]:
    """``trutnet ARGS`` as a person at ``home`` runs it, on the machine ``ns``."""
    env = {**os.environ, "HOME": str(tmp_path / home)}
    command = ["ip", "netns", "exec", ns, sys.executable, "-m", "trutnet", *args,
               "--store", str(tmp_path / home)]  # fmt: skip
    return track(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env, cwd=tmp_path))  # fmt: skip


def test_a_bridged_table_seats_a_lan_friend_locally_and_a_far_one_through_the_rendezvous(
    tmp_path, internet
):
    if shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists():
        pytest.fail("this test needs Mosquitto (CI installs it)")
    mosquitto, hop = _public_broker(internet, tmp_path)
    url = f"mqtt://{internet.PUBLIC}:{PUBLIC_PORT}"
    try:
        host = _person(tmp_path, internet.home_a, "ana", "host", "--players", "3", "--invite",
                       "--bridge", url, "--name", "Ana", "--json")  # fmt: skip
        code = wait_for_event(host, lambda e: e.get("event") == "invitation")["code"]
        broker = wait_for_event(host, lambda e: e.get("event") == "broker")
        assert broker["kind"] == "mosquitto" and broker["bridge"] == url, broker
        near = _person(tmp_path, internet.home_a, "cy", "join", code, "--bot", "heuristic",
                       "--name", "Cy", "--json")  # fmt: skip
        far = _person(tmp_path, internet.home_b, "bea", "join", code, "--broker", url,
                      "--bot", "heuristic", "--name", "Bea", "--json")  # fmt: skip
        results = [result_of(p, 600) for p in (host, near, far)]
        assert len({r["state_hash"] for r in results}) == 1, results
        assert results[0]["halted"] is None
        assert sorted(results[0]["names"]) == ["Ana", "Bea", "Cy"]
        said = _stop(hop)
        seen = [line.split()[1] for line in said.splitlines() if line.startswith("from ")]
        # through the public hop: Bea, and from Ana's home the host's check that the
        # rendezvous answers (a TCP connection, then an MQTT one) and then the bridge
        # alone: Ana's seat and Cy's stay on the LAN
        assert seen.count("198.51.100.2") == 3 and "192.0.2.2" in seen, seen
    finally:
        for proc in (hop, mosquitto):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_a_sealed_table_joined_by_code_crosses_two_nats_a_renumbered_router_and_a_broker_restart(
    tmp_path, internet
):
    mosquitto, hop = _public_broker(internet, tmp_path)
    url = f"mqtt://{internet.PUBLIC}:{PUBLIC_PORT}"
    try:
        # the public side has no way into a home: only the routers' addresses reach it
        assert "unreachable" in _route_from_public(internet, "10.1.0.2")
        host = _person(tmp_path, internet.home_a, "ana", "host", "--players", "2", "--invite",
                       "--broker", url, "--name", "Ana", "--json")  # fmt: skip
        code = wait_for_event(host, lambda e: e.get("event") == "invitation")["code"]
        guest = _person(tmp_path, internet.home_b, "bea", "join", code, "--broker", url,
                        "--bot", "heuristic", "--name", "Bea", "--json")  # fmt: skip
        wait_for_entries(tmp_path / "bea", 30, DEADLINE)  # the game is under way
        internet.remap_a()  # Ana's line is renumbered: her connection breaks
        wait_for_event(host, lambda e: e.get("event") == "disconnected", DEADLINE)
        wait_for_event(host, lambda e: e.get("event") == "connected", DEADLINE)
        played = _count(tmp_path / "bea")
        wait_for_entries(tmp_path / "bea", played + 10, DEADLINE)  # and it goes on
        _stop(mosquitto)  # the public broker restarts: what it held is gone
        mosquitto = _broker(internet, tmp_path)
        results = [result_of(guest, 600), result_of(host, 600)]
        assert results[0]["state_hash"] == results[1]["state_hash"], results
        assert results[0]["halted"] is None and results[0]["names"] == ["Ana", "Bea"]
        for result in results:  # each lost the broker twice at least, and came back
            kinds = [e["event"] for e in result["events"]]
            assert kinds.count("connected") >= 2, kinds
        said = _stop(hop)
        seen = {line.split()[1] for line in said.splitlines() if line.startswith("from ")}
        # Ana from both of her router's addresses, Bea from hers: never a home's
        assert {"198.51.100.2", "198.51.100.3", "192.0.2.2"} <= seen, seen
        assert not any(address.startswith("10.") for address in seen), seen
    finally:
        for proc in (hop, mosquitto):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def _route_from_public(internet, address: str) -> str:
    done = subprocess.run(
        ["ip", "netns", "exec", internet.public, "ip", "route", "get", address],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    return done.stdout + done.stderr


def _count(store: Path) -> int:
    from trutnet.store import PeerStore

    return PeerStore(store).count()
