"""Test-wide fixtures: peer processes a test spawned never outlive it; brokers of both
kinds; two machines on one LAN, with or without a default route, and a machine with
no network (network namespaces)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

import pytest

from tests.network_helpers import SPAWNED


def pytest_collection_modifyitems(items):
    """A test on a broker of both kinds or on two machines is a network test (the
    others are marked where they are: ``@pytest.mark.network``)."""
    for item in items:
        if {"broker_kind", "two_machines"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.network)


@pytest.fixture(autouse=True)
def _kill_spawned_peers():
    yield
    while SPAWNED:
        proc = SPAWNED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)


@pytest.fixture(autouse=True)
def _english_after_each_test():
    """The language is the process's (``i18n.use``): a test that speaks French in
    this process (``main(["--lang", "fr", ...])``) leaves English behind it."""
    from trutnet import i18n

    yield
    i18n.use("en")


@pytest.fixture(params=["mosquitto", "amqtt"])
def broker_kind(request, monkeypatch):
    """The embedded broker a test runs on (Mosquitto or amqtt), in this process and in
    every peer process it spawns: the same tests for both. The end of a game, private
    tables, announcements and the test game's 2-process game run on both; the real
    games' whole games on one each (``indirect`` parametrisation: Trut's 4-process game
    on amqtt, and on a Mosquitto the test starts itself in tests/net/test_network.py);
    the long fault scenarios (tests/net/test_network_faults.py) run on the default one
    (Mosquitto when installed, as in CI), to keep the suite within its time."""
    monkeypatch.setenv("TRUTNET_EMBEDDED_BROKER", request.param)
    return request.param


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


def _two_namespaces(default_route: bool):
    """Two network namespaces joined by a veth pair, like two machines on one LAN, with
    multicast on (mDNS); with or without a default route. Yields ``[(namespace,
    address), (namespace, address)]``; removed always."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.fail("this test needs root and iproute2 (CI installs and runs as root)")
    tag = uuid.uuid4().hex[:6]
    a, b = f"tn-a-{tag}", f"tn-b-{tag}"
    addresses = {a: "10.199.7.1", b: "10.199.7.2"}
    try:
        _ip("netns", "add", a)
        _ip("netns", "add", b)
        _ip("link", "add", f"va{tag}", "type", "veth", "peer", "name", f"vb{tag}")
        for ns, dev in ((a, f"va{tag}"), (b, f"vb{tag}")):
            _ip("link", "set", dev, "netns", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{addresses[ns]}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "multicast", "on", "up")
            if default_route:
                _ip("-n", ns, "route", "add", "default", "dev", dev)
        yield [(ns, addresses[ns]) for ns in (a, b)]
    finally:
        for ns in (a, b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


@pytest.fixture
def two_machines():
    """Two machines on one LAN with a default route, as a LAN with a router has."""
    yield from _two_namespaces(default_route=True)


@pytest.fixture
def two_machines_no_route():
    """Two machines on a LAN with no default route: a switch at a LAN party, an
    offline home network (only the LAN's own /24 is routed)."""
    yield from _two_namespaces(default_route=False)


@pytest.fixture
def machine_alone():
    """A machine with no network but its loopback (a namespace with ``lo`` up only).
    Yields the namespace's name; removed always."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.fail("this test needs root and iproute2 (CI installs and runs as root)")
    ns = f"tn-lo-{uuid.uuid4().hex[:6]}"
    try:
        _ip("netns", "add", ns)
        _ip("-n", ns, "link", "set", "lo", "up")
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


class Internet:
    """Two homes behind NAT and a public network between them (network namespaces):
    ``home_a`` (10.1.0.2) behind the router ``nat_a`` and ``home_b`` (10.2.0.2) behind
    ``nat_b``, each router masquerading its home's connections behind its own public
    address (198.51.100.2 and 192.0.2.2, nftables), and ``public``, the internet's
    side, which holds ``PUBLIC`` (203.0.113.10) and has no route into either home."""

    PUBLIC = "203.0.113.10"

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.home_a, self.nat_a = f"tn-ha-{tag}", f"tn-na-{tag}"
        self.home_b, self.nat_b = f"tn-hb-{tag}", f"tn-nb-{tag}"
        self.public = f"tn-pub-{tag}"
        self.spaces = (self.home_a, self.nat_a, self.public, self.nat_b, self.home_b)
        self.nat_a_address = "198.51.100.2"

    def _link(self, a: str, a_addr: str, b: str, b_addr: str, name: str) -> None:
        left, right = f"{name}l{self.tag}", f"{name}r{self.tag}"
        _ip("link", "add", left, "type", "veth", "peer", "name", right)
        for ns, dev, addr in ((a, left, a_addr), (b, right, b_addr)):
            _ip("link", "set", dev, "netns", ns)
            _ip("-n", ns, "addr", "add", addr, "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")

    def build(self) -> None:
        for ns in self.spaces:
            _ip("netns", "add", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
        self._link(self.home_a, "10.1.0.2/24", self.nat_a, "10.1.0.1/24", "ha")
        self._link(self.nat_a, f"{self.nat_a_address}/24", self.public, "198.51.100.1/24", "pa")
        self._link(self.home_b, "10.2.0.2/24", self.nat_b, "10.2.0.1/24", "hb")
        self._link(self.nat_b, "192.0.2.2/24", self.public, "192.0.2.1/24", "pb")
        _ip("-n", self.public, "addr", "add", f"{self.PUBLIC}/32", "dev", "lo")
        _ip("-n", self.home_a, "route", "add", "default", "via", "10.1.0.1")
        _ip("-n", self.home_b, "route", "add", "default", "via", "10.2.0.1")
        for nat, gateway, outside in (
            (self.nat_a, "198.51.100.1", f"pal{self.tag}"),
            (self.nat_b, "192.0.2.1", f"pbl{self.tag}"),
        ):
            _ip("-n", nat, "route", "add", "default", "via", gateway)
            self.run(nat, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            self.run(nat, "nft", "add table ip nat")
            hook = "{ type nat hook postrouting priority 100 ; }"
            self.run(nat, "nft", f"add chain ip nat post {hook}")
            self.run(nat, "nft", f'add rule ip nat post oifname "{outside}" masquerade')

    def run(self, ns: str, *command: str) -> str:
        done = subprocess.run(
            ["ip", "netns", "exec", ns, *command], capture_output=True, text=True, timeout=30
        )
        if done.returncode != 0:
            raise AssertionError(f"{command} in {ns}: {done.stderr.strip()}")
        return done.stdout

    def remap_a(self) -> None:
        """Home A's router takes a new public address, as when a provider renumbers a
        line: every mapping it made is gone, and its home's connections break."""
        old = self.nat_a_address
        self.nat_a_address = "198.51.100.3"
        _ip("-n", self.nat_a, "addr", "del", f"{old}/24", "dev", f"pal{self.tag}")
        _ip("-n", self.nat_a, "addr", "add", f"{self.nat_a_address}/24", "dev", f"pal{self.tag}")
        _ip("-n", self.nat_a, "route", "replace", "default", "via", "198.51.100.1")

    def remove(self) -> None:
        for ns in self.spaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


@pytest.fixture
def internet():
    """Two homes behind NAT and a public network (:class:`Internet`); removed always."""
    if os.geteuid() != 0 or shutil.which("ip") is None or shutil.which("nft") is None:
        pytest.fail("this test needs root, iproute2 and nftables (CI installs them)")
    net = Internet(uuid.uuid4().hex[:5])
    try:
        net.build()
        yield net
    finally:
        net.remove()
