"""What a crash does to a seat's files: a kill while the peer appended its log's last
record leaves that record cut short (:func:`may_tear`, :func:`tear_last`)."""

from __future__ import annotations

import random

from trutnet.store import PeerStore


def may_tear(store: PeerStore, unsent: bytes | None) -> bool:
    """Whether a crash may have torn the log's last record: only if it is ``unsent``,
    the seat's own entry just saved and not sent. Any other record was whole on disk
    before the peer did anything more (the runtime saves, with fsync, before it acts or
    publishes), and a peer killed at a random moment has acted since."""
    if not store.log_path.exists():
        return False
    wires = store.entries()
    return bool(wires) and wires[-1] == unsent


def tear_last(store: PeerStore, rng: random.Random) -> PeerStore:
    """Cut the log's last record short on disk (by some of its bytes, or all of them);
    the store as the seat reads it back at its restart."""
    last = store.entries()[-1]
    size = store.log_path.stat().st_size
    cut = rng.randint(1, 4 + len(last))  # into the record, or all of it
    with store.log_path.open("r+b") as file:
        file.truncate(size - cut)
    return PeerStore(store.directory)
