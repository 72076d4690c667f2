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
