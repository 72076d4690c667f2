"""Discovery for real: zeroconf on loopback, and across two network namespaces."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid

from .network_helpers import result_of, spawn, track

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


def test_tables_lists_a_live_table_and_drops_a_dead_host_on_loopback():
    name = f"Loop {uuid.uuid4().hex[:6]}"
    host = spawn(["host", "--players", "2", "--table-name", name, "--json"])
    try:
        found = wait_listed(lambda t: t["name"] == name, interface="127.0.0.1")
        assert found["seats"] == "1/2" and found["status"] == "open"
        assert found["broker"].startswith("mqtt://127.0.0.1:") and len(found["table"]) == 32
        os.kill(host.pid, signal.SIGKILL)  # mDNS records stay; the liveness check drops it
        host.communicate()
        time.sleep(0.5)
        assert not [t for t in tables(interface="127.0.0.1") if t["name"] == name]
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()


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
