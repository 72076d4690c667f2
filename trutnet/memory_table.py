"""A whole table in one process (a harness, not a transport): N table peers, every
entry delivered to everyone at once, each peer's files optional.

Used by ``trutnet selfplay --transport memory``, the benchmarks and the tests. Bots
decide from their own peer's replica, which knows only the public log and that seat's
cards.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from trutnet.bots import Bot, decide, make_bot
from trutnet.crypto import Identity, SeededRandom
from trutnet.engine.api import Game
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.lobby import table_id_for
from trutnet.protocol.table import Rejected, TablePeer
from trutnet.store import PeerStore

MAX_ENTRIES = 200_000


@dataclass
class MemoryTable:
    peers: list[TablePeer]
    log: list[bytes] = field(default_factory=list)
    rejected: list[tuple[int, Rejected]] = field(default_factory=list)
    bots: list[Bot] = field(default_factory=list)
    stores: dict[int, PeerStore] = field(default_factory=dict)
    down: set[int] = field(default_factory=set)
    identities: list[Identity] = field(default_factory=list)

    def broadcast(self, wire: bytes) -> None:
        self.log.append(wire)
        for index, peer in enumerate(self.peers):
            if index in self.down:
                continue
            try:
                peer.receive(wire)
            except Rejected as exc:
                self.rejected.append((index, exc))
            self._persist(index)

    def _persist(self, index: int) -> None:
        store = self.stores.get(index)
        if store is None:
            return
        journal = self.peers[index].replica.journal  # forks included (7.8)
        stored = len(store.entries())
        for wire in journal[stored:]:
            store.append(wire)

    def attach_stores(self, directory: Path) -> None:
        """Persist every peer's log and secrets under ``directory/seat-N``."""
        for index, peer in enumerate(self.peers):
            store = PeerStore(directory / f"seat-{index}")
            self.stores[index] = store
            peer.on_secrets = store.save_secrets
            store.save_secrets(peer.secrets())
            self._persist(index)

    def kill(self, seat: int) -> None:
        """The seat's process dies (its memory is lost; its files stay)."""
        self.down.add(seat)

    def restart(self, seat: int, rng_seed: str) -> None:
        """The seat comes back from its files, then catches up from another peer's log."""
        store = self.stores[seat]
        peer = TablePeer.restore(
            self.identities[seat], store.load_secrets(), store.entries(), SeededRandom(rng_seed)
        )
        peer.on_secrets = store.save_secrets
        donor = next(i for i in range(len(self.peers)) if i not in self.down)
        replica = self.peers[donor].replica  # its log, then its round in progress (7.2)
        peer.catch_up([*(e.wire for e in replica.log.entries), *replica.held()])
        self.peers[seat] = peer
        self.down.discard(seat)
        self._persist(seat)


def table_nonce(seed: int | str) -> bytes:
    return hashlib.sha256(f"table/{seed}".encode()).digest()[:16]


def make_table(
    players: int, seed: int | str, together: Collection[int] = (), trust_own: bool = True
) -> tuple[bytes, list[Identity], list[TablePeer]]:
    """The peers of a new table; the seats ``together`` are played by one process (a
    host and its bots): their replicas check each proof once between them, and none
    of their own unless ``trust_own`` is False (:class:`CheckedProofs`)."""
    shared = CheckedProofs(trust_own=trust_own)
    identities = [
        Identity.from_seed(hashlib.sha256(f"id/{seed}/{s}".encode()).digest())
        for s in range(players)
    ]
    table_id = table_id_for(identities[0].public, table_nonce(seed))
    peers = [
        TablePeer(
            identities[s],
            s,
            table_id,
            SeededRandom(f"peer/{seed}/{s}"),
            shared if s in together else None,
        )
        for s in range(players)
    ]
    return table_id, identities, peers


def new_memory_table(
    game: Game,
    seed: int | str,
    bots: Sequence[str],
    together: Collection[int] = (),
    trust_own: bool = True,
) -> MemoryTable:
    """Peers for a new table of ``game``, with the host's ``open`` entry already delivered
    (``together``, ``trust_own``: the seats one process plays, :func:`make_table`)."""
    _, identities, peers = make_table(game.num_players(), seed, together, trust_own)
    table = MemoryTable(peers, identities=identities)
    table.bots = [
        make_bot(game.name, kind, random.Random(f"{seed}/bot{s}")) for s, kind in enumerate(bots)
    ]
    table.broadcast(
        peers[0].open_table(game, [i.public for i in identities], nonce=table_nonce(seed))
    )
    return table


def step(table: MemoryTable) -> bool:
    """One entry: the next automatic one, or else one bot decision. False when idle."""
    for peer in table.peers:
        if peer.seat in table.down:
            continue
        wire = peer.next_automatic()
        if wire is not None:
            table.broadcast(wire)
            return True
    deciding = [p for p in table.peers if p.seat not in table.down and p.decide()]
    if not deciding:
        return False
    peer = deciding[0]
    state = peer.replica.state
    assert state is not None
    action = decide(table.bots[peer.seat], state, peer.seat)
    table.broadcast(peer.act(str(action)))
    return True


def play_memory_game(
    game: Game,
    seed: int | str,
    bots: Sequence[str],
    until: Callable[[MemoryTable], bool] | None = None,
    together: Collection[int] = (),
    trust_own: bool = True,
) -> MemoryTable:
    """Play one whole game over the in-memory bus with full crypto (or until ``until``);
    ``together``, ``trust_own``: the seats one process plays (:func:`make_table`)."""
    table = new_memory_table(game, seed, bots, together, trust_own)
    while len(table.log) < MAX_ENTRIES and not (until is not None and until(table)):
        if not step(table):
            break
    return table
