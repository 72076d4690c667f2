"""Fuzz the body handlers: fuzzed bodies, correctly signed by the seat whose turn it
is, offered to a seat's peer (``TablePeer.receive`` -> ``TableReplica.receive``) fed a
valid prefix of a real game: Trut, or the test game Tokens with its ``deluxe`` option,
whose entries carry what Trut's never do (seals, unseals, shares sealed to a second
viewer, a shuffle of a deck with a carried card).

The signature and chain checks pass, so the input reaches every ``_on_<type>``
handler (open, keys, commit, reveal, shuffle, shares, act, play, checkpoint, void,
result) and the crypto decoders behind them, at every phase of the game.

Input: byte 0 picks the prefix (a snapshot before one real entry), byte 1 the entry
type (0: the real one; else any type), the rest is the msgpack body.
Property: the entry is accepted or refused with ``Rejected``, nothing else; after
either, the replica still answers ``expected()``.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import atheris
import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet.crypto import SeededRandom
    from trutnet.protocol.envelope import parse_entry, sign_entry
    from trutnet.protocol.table import TYPE_LIMITS, Rejected, TablePeer

from tests.fuzz import common

NAME = "replica"
ALLOWED = (Rejected,)
TYPES = ["", *sorted(TYPE_LIMITS), "vote", "join"]


def build() -> tuple[list[tuple[int, TablePeer]], list]:
    """Snapshots of the receiving seat's peer before each real entry where the entry
    type changes (every phase), and the real entries, of every corpus game."""
    common.make_immutable_atomic()
    snaps: list[tuple[int, TablePeer]] = []
    entries: list = []
    for kind in common.GAMES:
        game_snaps, game_entries = build_game(kind)
        snaps += [(index + len(entries), peer) for index, peer in game_snaps]
        entries += game_entries
    return snaps, entries


def build_game(kind: str) -> tuple[list[tuple[int, TablePeer]], list]:
    """The snapshots and entries of one corpus game (at most 125 snapshots)."""
    table_id, wires = common.game(kind)
    ids = common.identities()
    entries = [parse_entry(w) for w in wires]
    peers = [
        TablePeer(ids[s], s, table_id, SeededRandom(f"peer/{common.GAME_SEED}/{s}"))
        for s in range(common.PLAYERS)
    ]
    # the memory bus derives each seat's ElGamal key from its rng: replay to learn cards
    snaps: list[tuple[int, TablePeer]] = []
    last = None
    for index, entry in enumerate(entries):
        if (entry.type, entry.seat) != last or index % 17 == 0:
            receiver = peers[(entry.seat + 1) % common.PLAYERS]
            snaps.append((index, copy.deepcopy(receiver)))
            last = (entry.type, entry.seat)
        for peer in peers:
            peer.receive(wires[index])
    step = len(snaps) / 125
    snaps = [snaps[int(k * step)] for k in range(125)] if len(snaps) > 125 else snaps
    return snaps, entries


def check(data: bytes) -> None:
    if len(data) < 2:
        return
    index, snapshot = SNAPS[data[0] % len(SNAPS)]
    real = ENTRIES[index]
    kind = TYPES[data[1] % len(TYPES)] or real.type
    try:
        body = msgpack.unpackb(data[2:], raw=False, strict_map_key=False)
    except Exception:
        return  # not a body: the envelope harness covers undecodable bytes
    if not isinstance(body, dict):
        body = {"value": body}
    try:
        wire = sign_entry(
            IDS[real.seat],
            table=real.table,
            seat=real.seat,
            seq=real.seq,
            prev=real.prev,
            type=kind,
            body=body,
        ).wire
    except Exception:
        return  # a body the signer refuses (non-string keys...): covered by envelope
    peer = copy.deepcopy(snapshot)
    try:
        peer.receive(wire)
    finally:
        peer.replica.expected()


def seeds() -> list[bytes]:
    out = []
    for k, (index, _) in enumerate(SNAPS):
        out.append(bytes([k, 0]) + msgpack.packb(ENTRIES[index].body, use_bin_type=True))
    return out


SNAPS, ENTRIES = build()
IDS = common.identities()
test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    common.main(NAME, test_one_input, seeds())
