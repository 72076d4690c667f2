"""Replacing or abandoning a stalled seat (``docs/protocol.md`` 7.7, 7.8), sans-I/O.

No seat ever makes another seat's keys. A seat the table is stuck on can only be:

* **replaced** by a *newcomer*, a process that holds no seat, which signs an **offer**
  with its own fresh identity and ElGamal key (and proof): an entry-shaped message
  (7.1) of type ``offer``, ``seat`` the stalled seat, seq 0, ``prev`` the head at which
  the table waits, body ``{"hand", "elgamal", "proof", "name"}``. Only a seat with
  partners (a team game) can be replaced, and the partners must all agree;
* **abandoned**: the game ends with no winner and a blame on the stalled seat.

Each other seat that agrees signs a **vote** (type ``vote``, seq 0, ``prev`` the same
head, body ``{"seat", "hand", "taker"}``; ``taker`` is the id of the offer it accepts,
or nil to abandon). A **quorum** is a majority of the other seats that includes every
partner of the stalled seat, all naming the same taker. The **coordinator** (the
stalled seat's lowest partner, or the lowest other seat when it has none) writes the
log entry: ``void`` (votes and the offer) or ``abandon`` (votes). Offers and votes are
not log entries.

Everything here checks signed bytes against the seated keys: a vote signed by any key
other than its seat's is refused, whoever relays it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trutnet.crypto import CryptoError, KeyPair, KeyProof, decode_point, verify_key
from trutnet.crypto.group import Point, RandomBytes
from trutnet.crypto.identity import Identity, fingerprint
from trutnet.crypto.transcript import Context
from trutnet.protocol.envelope import PROTOCOL_VERSION, Entry, MessageError, parse_entry, sign_entry
from trutnet.protocol.lobby import LobbyError, check_name

MAX_OFFER_BYTES = 1024
MAX_VOTE_BYTES = 512


class VoteError(Exception):
    """An offer or votes that do not make a valid replacement or abandon."""


@dataclass(frozen=True, slots=True)
class Offer:
    """A newcomer's signed offer to take ``seat`` from hand ``hand``."""

    entry: Entry
    seat: int
    hand: int
    key: Point
    name: str

    @property
    def id(self) -> bytes:
        return self.entry.id

    @property
    def identity(self) -> bytes:
        return self.entry.author


@dataclass(frozen=True, slots=True)
class Vote:
    """A seated player's signed vote: replace ``stalled`` by ``taker`` (an offer id),
    or abandon the game (``taker`` None), at the log head ``head``."""

    entry: Entry
    voter: int
    stalled: int
    hand: int
    taker: bytes | None

    @property
    def head(self) -> bytes:
        return self.entry.prev


@dataclass(frozen=True, slots=True)
class SeatChange:
    """What a ``void`` or ``abandon`` entry did, for audits and screens: the seat, the
    log index of the entry, the hand from which the taker plays (``void``), the voters,
    the coordinator, and the taker's identity key and name (``void``)."""

    kind: str  # "replaced", "abandoned", or "closed" (over already: the winner stands)
    seat: int
    entry: int
    hand: int
    voters: tuple[int, ...]
    coordinator: int
    taker: bytes | None = None
    name: str | None = None


def partners(stalled: int, team_of: Sequence[int]) -> list[int]:
    """The stalled seat's partners (its team's other seats; none in 2 and 3 players)."""
    return [s for s in range(len(team_of)) if s != stalled and team_of[s] == team_of[stalled]]


def coordinator(stalled: int, team_of: Sequence[int]) -> int:
    """Who writes the ``void`` or ``abandon``: the lowest partner, else the lowest other seat."""
    mates = partners(stalled, team_of)
    return mates[0] if mates else (0 if stalled != 0 else 1)


def votes_needed(players: int) -> int:
    """A majority of the seats other than the stalled one."""
    return (players - 1) // 2 + 1


def quorum_problem(voters: set[int], stalled: int, team_of: Sequence[int]) -> str | None:
    """Why ``voters`` are not a quorum to act on ``stalled``, or None if they are."""
    missing = [s for s in partners(stalled, team_of) if s not in voters]
    if missing:
        return f"the stalled seat's partners must vote (missing {missing})"
    needed = votes_needed(len(team_of))
    if len(voters) < needed:
        return f"{len(voters)} votes; {needed} needed"
    return None


def offer_context(table_id: bytes, hand: int, identity: bytes) -> Context:
    """The key proof of an offer names the newcomer's identity: no one can reuse it."""
    return Context(PROTOCOL_VERSION, table_id, hand, f"replace/{identity.hex()}")


def make_offer(
    identity: Identity,
    key: KeyPair,
    table_id: bytes,
    stalled: int,
    head: bytes,
    hand: int,
    name: str,
    rng: RandomBytes,
) -> bytes:
    proof = key.prove(offer_context(table_id, hand, identity.public), stalled, rng)
    return sign_entry(
        identity,
        table=table_id,
        seat=stalled,
        seq=0,
        prev=head,
        type="offer",
        body={"hand": hand, "elgamal": bytes(key.public), "proof": proof.to_bytes(), "name": name},
    ).wire


def _signed_message(
    wire: Any, table_id: bytes, kind: str, limit: int, fields: tuple[str, ...]
) -> Entry:
    """A signed ``offer``/``vote`` entry of this table, of at most ``limit`` bytes, with
    exactly ``fields`` in its body (else VoteError: hostile bytes never crash)."""
    article = "an" if kind[0] in "aeiou" else "a"
    if not isinstance(wire, bytes) or len(wire) > limit:
        raise VoteError(f"{article} {kind} is a signed entry of at most {limit} bytes")
    try:
        entry = parse_entry(wire, table_id)
    except (MessageError, RecursionError, ValueError) as exc:
        raise VoteError(f"bad {kind}: {exc}") from exc
    if entry.type != kind or entry.seq != 0 or set(entry.body) != set(fields):
        raise VoteError(f"{article} {kind} is an entry of type {kind}: {', '.join(fields)}")
    return entry


def parse_offer(wire: Any, table_id: bytes) -> Offer:
    """A well-formed, well-signed offer with a valid key proof (not yet its place)."""
    entry = _signed_message(
        wire, table_id, "offer", MAX_OFFER_BYTES, ("hand", "elgamal", "proof", "name")
    )
    body = entry.body
    hand = body["hand"]
    if type(hand) is not int or not 0 <= hand < 2**32:
        raise VoteError("an offer names a hand number")
    try:
        name = check_name(body["name"])
        elgamal, proof = body["elgamal"], body["proof"]
        if not (isinstance(elgamal, bytes) and isinstance(proof, bytes) and len(proof) == 64):
            raise VoteError("an offer carries an ElGamal key and its proof")
        key = decode_point(elgamal)
        verify_key(
            key, KeyProof.from_bytes(proof), offer_context(table_id, hand, entry.author), entry.seat
        )
    except (CryptoError, LobbyError) as exc:
        raise VoteError(f"bad offer: {exc}") from exc
    return Offer(entry, entry.seat, hand, key, name)


def make_vote(
    identity: Identity,
    table_id: bytes,
    voter: int,
    head: bytes,
    stalled: int,
    hand: int,
    taker: bytes | None,
) -> bytes:
    return sign_entry(
        identity,
        table=table_id,
        seat=voter,
        seq=0,
        prev=head,
        type="vote",
        body={"seat": stalled, "hand": hand, "taker": taker},
    ).wire


def parse_vote(wire: Any, table_id: bytes, seats: Sequence[bytes]) -> Vote:
    """A vote signed by its voter's seated key, for another seat (else VoteError)."""
    entry = _signed_message(wire, table_id, "vote", MAX_VOTE_BYTES, ("seat", "hand", "taker"))
    body = entry.body
    stalled, hand, taker = body["seat"], body["hand"], body["taker"]
    if entry.seat >= len(seats) or seats[entry.seat] != entry.author:
        raise VoteError(f"a vote for seat {entry.seat} signed by a key that is not that seat's")
    if type(stalled) is not int or not 0 <= stalled < len(seats) or stalled == entry.seat:
        raise VoteError("a vote names another seat")
    if type(hand) is not int or not 0 <= hand < 2**32:
        raise VoteError("a vote names a hand number")
    if taker is not None and not (isinstance(taker, bytes) and len(taker) == 32):
        raise VoteError("a vote names an offer id (32 bytes) or nil")
    return Vote(entry, entry.seat, stalled, hand, taker)


def check_votes(
    wires: Any,
    table_id: bytes,
    seats: Sequence[bytes],
    team_of: Sequence[int],
    head: bytes,
    stalled: int,
    hand: int,
    taker: bytes | None,
) -> list[Vote]:
    """The votes, if they are a quorum for ``taker`` (None: abandon) on ``stalled`` at
    ``head``; VoteError otherwise."""
    if taker is not None and not partners(stalled, team_of):
        raise VoteError("only a seat with partners can be replaced; the others may abandon")
    if not isinstance(wires, list) or len(wires) > len(seats):
        raise VoteError("votes are a list, one per seat at most")
    voters: dict[int, Vote] = {}
    for wire in wires:
        vote = parse_vote(wire, table_id, seats)
        if vote.head != head or (vote.stalled, vote.hand, vote.taker) != (stalled, hand, taker):
            raise VoteError("every vote is for this seat, hand, taker and point of the log")
        if vote.voter in voters:
            raise VoteError("one vote per seat")
        voters[vote.voter] = vote
    problem = quorum_problem(set(voters), stalled, team_of)
    if problem is not None:
        raise VoteError(problem)
    return sorted(voters.values(), key=lambda v: v.voter)


def taker_for(
    voter: int,
    stalled: int,
    team_of: Sequence[int],
    offers: Mapping[bytes, bytes],
    votes: Mapping[int, bytes],
    table_id: bytes,
    seats: Sequence[bytes],
    accepted: Callable[[bytes], bool],
) -> bytes | None:
    """The offer (its id) ``voter`` votes for on ``stalled`` (7.7): a partner of the
    stalled seat, the lowest id among the ``offers`` whose author it ``accepted``; any
    other seat, the offer a partner voted for in ``votes`` (voter -> vote), never one
    of its own choosing: who plays a seat is its team's decision. None: no such offer."""
    mates = partners(stalled, team_of)
    if voter in mates:
        return min((i for i, w in offers.items() if accepted(parse_entry(w).author)), default=None)
    for other, wire in sorted(votes.items()):
        try:
            taker = parse_vote(wire, table_id, seats).taker
        except VoteError:
            continue
        if other in mates and taker in offers:
            return taker
    return None


def pick_quorum(
    votes: Mapping[int, bytes],
    offers: Mapping[bytes, bytes],
    table_id: bytes,
    seats: Sequence[bytes],
    team_of: Sequence[int],
    head: bytes,
    stalled: int,
    hand: int,
) -> tuple[bytes | None, list[bytes]] | None:
    """From the votes gathered (voter -> wire) and the offers known (id -> wire), a
    taker's offer (None: abandon) and a quorum of votes for it; a replacement first."""
    by_taker: dict[bytes | None, list[bytes]] = {}
    for wire in votes.values():
        try:
            vote = parse_vote(wire, table_id, seats)
        except VoteError:
            continue
        if vote.head == head and (vote.stalled, vote.hand) == (stalled, hand):
            by_taker.setdefault(vote.taker, []).append(wire)
    candidates = sorted((t for t in by_taker if t is not None and t in offers), key=bytes)
    for taker in [*candidates, None]:
        wires = by_taker.get(taker, [])
        try:
            check_votes(wires, table_id, seats, team_of, head, stalled, hand, taker)
        except VoteError:
            continue
        return (offers[taker] if taker is not None else None), wires
    return None


def describe(change: SeatChange) -> str:
    """One line for people (``trutnet verify``, screens): who voted, which seat, and who
    plays it from which hand, or that the game was abandoned."""
    voters = ", ".join(str(v) for v in change.voters)
    if change.kind == "closed":
        return (
            f"entry {change.entry}: game closed without seat {change.seat}'s signature"
            f" (blamed: the table waited for it after the last move); the result stands;"
            f" voted by seats {voters}, written by seat {change.coordinator}"
        )
    if change.kind == "abandoned":
        return (
            f"entry {change.entry}: game abandoned, no winner: the table waited for seat "
            f"{change.seat} (blamed); voted by seats {voters}, written by seat "
            f"{change.coordinator}"
        )
    key = fingerprint(change.taker) if change.taker is not None else "?"
    return (
        f"entry {change.entry}: seat {change.seat} replaced: hand void; voted by seats "
        f"{voters}, written by seat {change.coordinator}; from hand {change.hand + 1} the "
        f"seat is played by newcomer {change.name!r} (key {key})"
    )
