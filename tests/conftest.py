"""Test-wide fixtures: peer processes a test spawned never outlive it."""

from __future__ import annotations

import pytest

from .network_helpers import SPAWNED


@pytest.fixture(autouse=True)
def _kill_spawned_peers():
    yield
    while SPAWNED:
        proc = SPAWNED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)


@pytest.fixture(params=["mosquitto", "amqtt"])
def broker_kind(request, monkeypatch):
    """The embedded broker a test runs on (Mosquitto or amqtt), in this process and in
    every peer process it spawns: the same tests for both."""
    monkeypatch.setenv("TRUTNET_EMBEDDED_BROKER", request.param)
    return request.param
