"""Replacing a stalled seat by a bot (``docs/protocol.md`` 7.7), sans-I/O.

A seat the table has waited for too long can be replaced. Each other seat that
agrees signs a **vote**: an entry-shaped message (7.1) of type ``vote``, seq 0, whose
``prev`` is the log head at which the table is stuck and whose body is ``{"seat":
stalled, "hand": hand number}``. Votes are not log entries. The **coordinator** (the
lowest seat other than the stalled one) writes a ``void`` entry carrying a majority of
the other seats' votes, a new identity key and a new ElGamal key (with its proof) for
the seat. Every replica checks the votes against its own head, voids the hand in
progress (D16), and re-keys the seat; from the next hand a bot plays it.
"""

from __future__ import annotations

from typing import Any

from trutnet.crypto.identity import Identity
from trutnet.protocol.envelope import Entry, MessageError, parse_entry, sign_entry


class VoteError(Exception):
    """Votes that do not make a valid replacement."""


def coordinator(stalled: int, players: int) -> int:
    return 0 if stalled != 0 else 1 % players


def votes_needed(players: int) -> int:
    """A majority of the seats other than the stalled one."""
    return (players - 1) // 2 + 1


def make_vote(
    identity: Identity, table_id: bytes, voter: int, head: bytes, stalled: int, hand: int
) -> bytes:
    return sign_entry(
        identity,
        table=table_id,
        seat=voter,
        seq=0,
        prev=head,
        type="vote",
        body={"seat": stalled, "hand": hand},
    ).wire


def check_votes(
    wires: Any, table_id: bytes, seats: list[bytes], head: bytes, stalled: int, hand: int
) -> list[Entry]:
    """The votes, if they are a valid majority for replacing ``stalled`` at ``head``."""
    if not isinstance(wires, list) or len(wires) > len(seats):
        raise VoteError("votes are a list, one per seat at most")
    voters: dict[int, Entry] = {}
    for wire in wires:
        try:
            vote = parse_entry(wire, table_id) if isinstance(wire, bytes) else None
        except MessageError as exc:
            raise VoteError(f"bad vote: {exc}") from exc
        if vote is None or vote.type != "vote" or vote.seq != 0:
            raise VoteError("a vote is a signed entry of type vote")
        if vote.seat == stalled or vote.seat >= len(seats) or seats[vote.seat] != vote.author:
            raise VoteError("a vote comes from another seated player, signed with its key")
        if vote.prev != head or vote.body != {"seat": stalled, "hand": hand}:
            raise VoteError("a vote is for this seat, this hand and this point of the log")
        if vote.seat in voters:
            raise VoteError("one vote per seat")
        voters[vote.seat] = vote
    if len(voters) < votes_needed(len(seats)):
        raise VoteError(f"{len(voters)} votes; {votes_needed(len(seats))} needed")
    return list(voters.values())
