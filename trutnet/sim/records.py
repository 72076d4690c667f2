"""The values a simulated run keeps: one simulated process (:class:`Node`: a seat or
the spectator, its files, what it waits for) and how a run ended
(:class:`RunResult`); an invariant that broke stops the run (:class:`SimFailure`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from trutnet.bots import Bot
from trutnet.crypto import Identity
from trutnet.protocol.replica import TableReplica
from trutnet.protocol.table import TablePeer
from trutnet.runtime.sync_answers import (
    SyncAnswers,
)
from trutnet.sim.invariants import Violation
from trutnet.store import PeerStore


@dataclass
class Node:
    """One simulated process: a seat (or the spectator), its files, what it waits for."""

    name: str
    seat: int | None  # None: the spectator, or a newcomer that holds no seat (yet)
    identity: Identity
    peer: TablePeer | None
    store: PeerStore | None
    bot: Bot | None
    life: int = 0  # how many times it started
    up: bool = True
    gone: bool = False  # killed for good
    gave_up: bool = False  # stopped after ``give_up`` seconds without progress
    left: str = ""  # "left": its game over and lingered; "away": it ended while it was
    dishonest: bool = False
    newcomer: bool = False  # follows the table with no seat, and offers to take one (7.7)
    last_progress: float = 0.0
    rate: float = 1.0  # how fast its clock runs (``Faults.drift``): its timers' unit
    asked: float = float("-inf")
    asked_head: bytes | None = None  # the head of its last sync request
    void_sent: float = float("-inf")
    behind_asked: float = float("-inf")  # when a process behind its log last asked for it
    buffer: dict[bytes, dict[bytes, bytes]] = field(default_factory=dict)
    answers: SyncAnswers = field(default_factory=SyncAnswers)
    votes: dict[tuple[int, bytes], dict[int, bytes]] = field(default_factory=dict)
    voted: dict[tuple[int, bytes], float] = field(default_factory=dict)
    voted_for: dict[tuple[int, bytes], bytes | None] = field(default_factory=dict)
    # (stalled seat, head) -> offer id -> offer (7.7); -> when this newcomer last said its own
    offers: dict[tuple[int, bytes], dict[bytes, bytes]] = field(default_factory=dict)
    offered: dict[tuple[int, bytes], float] = field(default_factory=dict)

    @property
    def spectator(self) -> bool:
        """The process that watches (``trutnet watch``): no seat, and none to take."""
        return self.seat is None and not self.newcomer

    @property
    def replica(self) -> TableReplica:
        assert self.peer is not None
        return self.peer.replica


@dataclass
class RunResult:
    """One seed's run: how it ended, and what happened on the way. ``finished``;
    ``abandoned`` (7.7); ``cut`` (``Faults.hands`` hands were over); ``gave_up``: a seat
    died for good where 7.7 cannot abandon the table (before the open, or once the game
    is over: its last checkpoint, the ``result`` round), and every other
    peer stopped after ``Faults.give_up`` seconds, as the runtime does (``note`` says
    where); ``stopped`` (every replica stopped blaming a seat played dishonestly);
    ``failed`` (an invariant broke: ``violation``)."""

    seed: int
    status: str
    hands: int
    entries: int
    sim_seconds: float
    counts: dict[str, int]  # "bytes": every payload published, once per publish
    violation: str | None
    digest: str  # SHA-256 of every peer's log, in order: the same seed, the same digest
    note: str = ""
    injected: tuple[int, ...] = ()  # the numbers of the faults injected, in order
    # the log's sequential steps: an entry, or an unordered round (its entries name
    # one head): what a table waits for one after another, whatever the network
    steps: int = 0
    wall_seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        del out["wall_seconds"]  # the only figure a replay does not reproduce
        return out


class SimFailure(Exception):
    """An invariant broke: the run stops there."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation
