"""Sync in a simulated table (``docs/protocol.md`` 9.2): what the runtime's sync server
does, redone without asyncio. A peer asks with its head (and its log's length when it
asks for the same head again, :func:`sync_request_of`); every process notes the request
and answers through the runtime's own
:class:`~trutnet.runtime.sync_answers.SyncAnswers` (one peer for the table, by rank;
each entry at most once per second); a request naming a head off its log gets the
last ``void``/``abandon`` (7.8), or, with the asker's length, the entries from where
the logs parted.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from trutnet.protocol.envelope import GENESIS
from trutnet.protocol.untrusted import UntrustedInput
from trutnet.runtime.sync_answers import (
    parse_sync_request,
    rank,
    sync_request,
)
from trutnet.sim.records import Node

if TYPE_CHECKING:
    from trutnet.sim.network import Sim

MAX_ANSWER = 2000  # positions a sync answer may reach past its request (MAX_SYNC_ANSWER)


def sync_request_of(node: Node) -> bytes:
    """The runtime's ``_ask_sync``: the head, and the log's length when the same head
    is asked for again (9.2)."""
    head = node.replica.log.head
    again = head == node.asked_head
    node.asked_head = head
    return sync_request(head, len(node.replica.log) if again else None)


class SimSync:
    """Every process's answers to sync requests in one simulated table."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim

    def on_sync(self, node: Node, payload: Any) -> bool:
        """Note a sync request (the runtime's ``_on_sync``); answers go by :meth:`on_send`.
        A spectator answers none, as ``trutnet watch`` (9.2)."""
        sim = self.sim
        if node.spectator:
            return False
        try:
            head, at = parse_sync_request(payload)
        except UntrustedInput:
            sim.counts["refused"] += 1
            return False
        replica = node.replica
        start = 0 if head == GENESIS else replica.log.index_of(head)
        if start is None:
            # 7.8: maybe a seat that wrote at its place before a void or an abandon
            # overrode it: send that entry (at most once a second; the runtime's)
            void = sim._recent_void(replica)  # the Sim's seams: a test takes them away
            if void is not None:
                if sim.now - node.void_sent >= 1.0:
                    node.void_sent = sim.now
                    sim.counts["void_resent"] += 1
                    sim.publish(node, "log", void)
                return False
            start = sim._parting(at, len(replica.log))  # 9.2: where the logs parted
            if start is None:
                return False  # not in this log: someone else may answer
            sim.counts["parted_answered"] += 1
        else:
            start += 0 if head == GENESIS else 1
        if start < len(replica.log):
            node.behind_asked = sim.now  # someone is catching up: a finished one lingers
        seats = {node.seat} if node.seat is not None else set()
        node.answers.asked(start, sim.now, rank(start, seats, max(replica.n, 1)))
        sim.at(0, "send", sim.nodes.index(node))
        return False

    def on_send(self, node: Node) -> bool:
        """Send what is due of the requests noted (the runtime's answers)."""
        sim = self.sim
        replica = node.replica
        entries = replica.log.entries
        held = replica.held()

        def wire_at(position: int) -> bytes | None:
            if position < len(entries):
                return entries[position].wire
            rest = position - len(entries)
            return held[rest] if rest < len(held) else None

        def id_at(position: int) -> bytes | None:
            wire = wire_at(position)
            return None if wire is None else hashlib.sha256(wire).digest()

        positions, wake = node.answers.due(id_at, sim.now, MAX_ANSWER)
        for position in positions:
            wire = wire_at(position)
            assert wire is not None
            node.answers.published(hashlib.sha256(wire).digest(), sim.now, True)
            sim.counts["resent"] += 1
            sim.publish(node, "log", wire)
        index = sim.nodes.index(node)
        if positions:
            sim.at(0, "send", index)
        if wake is not None:
            sim.at(max(0.0, wake - sim.now), "send", index)
        return False
