"""Replacing a seat the table waits for (docs/protocol.md 7.7), for one process's table
runtime: :class:`Replacement` keeps the offers and votes seen on the ``vote`` topic
(only those signed by the key they claim, for the point the table is stuck at),
offers this process's newcomer for a stalled partner's seat, votes for this process's
seats (for the newcomer the stalled seat's team accepts, or to abandon), writes the
``void`` or ``abandon`` once a quorum agrees when one of its seats coordinates, and
says once when a local seat was replaced or a local newcomer took a seat.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from trutnet.crypto.identity import fingerprint
from trutnet.net import topics
from trutnet.protocol.envelope import MessageError, parse_entry
from trutnet.protocol.replace import (
    VoteError,
    coordinator,
    parse_offer,
    parse_vote,
    partners,
    pick_quorum,
    taker_for,
)
from trutnet.protocol.table import LocalError
from trutnet.runtime.events import Offer, SeatChanged, TookSeat, Vote, VoteReleased, YouWereReplaced

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime

MAX_VOTE_BYTES = 1024  # a vote or an offer on the wire
SAY_AGAIN = 2.0  # seconds before a vote or an offer unchanged is published again


class Replacement:
    """The offers and votes on a stalled seat, as one table runtime's process sees them."""

    def __init__(self, table: TableRuntime) -> None:
        self.table = table
        # (stalled seat, head) -> voter -> vote; -> offer id -> offer
        self.votes: dict[tuple[int, bytes], dict[int, bytes]] = {}
        self.offers: dict[tuple[int, bytes], dict[bytes, bytes]] = {}
        # (stalled, head, voter) -> (taker voted for, when it was last said)
        self._voted: dict[tuple[int, bytes, int], tuple[bytes | None, float]] = {}
        self._vote_times: dict[tuple[int, bytes], float] = {}
        self._offered: dict[tuple[int, bytes], tuple[bytes, float]] = {}  # our offers
        self._told_replaced: set[int] = set()
        self._told_taken: set[int] = set()
        self._changes_seen = 0

    def stall_key(self, stalled: int) -> tuple[int, bytes] | None:
        """(stalled seat, head) if the table is stuck on ``stalled`` in a game now."""
        replica = self.table.replica
        if replica is None or not replica.can_abandon(stalled):
            return None
        return stalled, replica.log.head

    def _keep(self, book: dict[tuple[int, bytes], Any]) -> None:
        """Offers and votes only matter at the head the table is stuck at: drop the rest."""
        head = self.table.head()
        for key in [k for k in book if k[1] != head][: max(0, len(book) - 8)]:
            del book[key]

    def read(self, wire: bytes) -> int | None:
        """A vote or an offer from the ``vote`` topic: kept only if it is signed by the
        key it claims (a vote: its voter's seated key) and is for the point the table
        is stuck at; the seat it is about, or None when it is dropped (and counted)."""
        table = self.table
        replica = table.replica
        if replica is None or replica.state is None:
            return None
        try:
            if not isinstance(wire, bytes) or len(wire) > MAX_VOTE_BYTES:
                raise VoteError("not a vote or an offer")
            entry = parse_entry(wire, table.table_id)
            if entry.type == "offer":
                if self.stall_key(entry.seat) != (entry.seat, entry.prev):
                    raise VoteError("an offer for a seat the table is not stuck on here")
                offer = parse_offer(wire, table.table_id)  # the key proof: checked last
                offers = self.offers.setdefault((offer.seat, offer.entry.prev), {})
                if len(offers) < 8 and replica.n > offer.seat:
                    offers[offer.id] = wire
                self._keep(self.offers)
                return offer.seat
            vote = parse_vote(wire, table.table_id, replica.seats)
            self.votes.setdefault((vote.stalled, vote.head), {})[vote.voter] = wire
            self._keep(self.votes)
            return vote.stalled
        except (MessageError, VoteError) as exc:
            table.stats.rejected.append(f"vote topic: {exc}")
        except Exception as exc:  # hostile bytes must never end the pump
            table.stats.rejected.append(f"vote topic: {type(exc).__name__}")
        return None

    def taker(self, key: tuple[int, bytes], voter: int) -> bytes | None:
        """The offer ``voter`` (a local seat) votes for. A partner of the stalled seat
        chooses among the newcomers it accepts (``Options.takers``), the lowest offer id
        first; any other seat follows a partner's choice, and never chooses itself: who
        plays a seat is its team's decision (7.7)."""
        table = self.table
        replica = table.replica
        offers = self.offers.get(key, {})
        if replica is None or replica.state is None or not offers:
            return None
        if not replica.can_void(key[0]):  # the keys round, a joint draw: abandon only
            return None
        accepted = {t.strip().upper() for t in table.options.takers}
        votes = self.votes.get(key, {})
        return taker_for(
            voter,
            key[0],
            replica.team_of,
            offers,
            votes,
            table.table_id,
            replica.seats,
            lambda author: "ANY" in accepted or fingerprint(author) in accepted,
        )

    async def vote(self, stalled: int, abandon: bool) -> None:
        """Each local seat votes on ``stalled``: for the newcomer its team accepts, or
        (``abandon``, or a seat without partners) to abandon the game. A vote is signed
        again only when it changes."""
        table = self.table
        key = self.stall_key(stalled)
        replica = table.replica
        if key is None or replica is None or replica.state is None:
            return
        team_game = bool(partners(stalled, replica.team_of))
        for peer in table.peers:
            if peer.seat == stalled or not peer.seated():
                continue
            taker = self.taker(key, peer.seat) if team_game else None
            if taker is None and team_game and not abandon:
                continue  # a team game waits for a newcomer's offer first
            said = self._voted.get((*key, peer.seat))
            if said is not None and said[0] == taker:  # the same vote: said again every 2 s
                if time.monotonic() - said[1] >= SAY_AGAIN:
                    self._voted[(*key, peer.seat)] = (taker, time.monotonic())
                    wire = self.votes.get(key, {}).get(peer.seat)
                    if wire is not None:
                        await table.link.publish(topics.vote(table.table_id), wire, wait=5)
                continue
            self._voted[(*key, peer.seat)] = (taker, time.monotonic())
            self._vote_times.setdefault(key, time.monotonic())
            wire = peer.vote(stalled, taker)
            self.votes.setdefault(key, {})[peer.seat] = wire
            choice = "abandon" if taker is None else "newcomer"
            table.emit(Vote(stalled, peer.seat, choice))
            await table.link.publish(topics.vote(table.table_id), wire, wait=5)

    async def maybe_replace(self, stalled: int) -> None:
        """As the coordinator: write the ``void`` (or ``abandon``) once a quorum agrees."""
        table = self.table
        key = self.stall_key(stalled)
        replica = table.replica
        if key is None or replica is None or replica.state is None:
            return
        chief_seat = coordinator(stalled, replica.team_of)
        chief = next((p for p in table.peers if p.seat == chief_seat and p.seated()), None)
        if chief is None:
            return
        chosen = pick_quorum(
            self.votes.get(key, {}),
            self.offers.get(key, {}),
            table.table_id,
            replica.seats,
            replica.team_of,
            key[1],
            stalled,
            replica.round_number(),
        )
        if chosen is None:
            return
        offer, votes = chosen
        try:
            wire = chief.replace(stalled, votes, offer) if offer else chief.abandon(stalled, votes)
        except VoteError:
            return
        table.ingest_local(chief, wire)
        change = chief.replica.changes[-1]
        table.emit(SeatChanged(change.kind, stalled, list(change.voters), chief.seat, change.name))
        table.sync.wrote(wire)
        await table.link.publish(topics.log(table.table_id), wire)

    async def offer(self, stalled: int) -> None:
        """As a newcomer (a local peer that holds no seat): offer to take ``stalled``."""
        table = self.table
        key = self.stall_key(stalled)
        replica = table.replica
        if key is None or replica is None or replica.state is None:
            return
        if not partners(stalled, replica.team_of):
            return
        if key in self._offered:  # said again every 2 s: a seat may have been behind
            wire, said = self._offered[key]
            if time.monotonic() - said >= SAY_AGAIN:
                self._offered[key] = (wire, time.monotonic())
                await table.link.publish(topics.vote(table.table_id), wire, wait=5)
            return
        for seat in table.seats:
            peer = seat.peer
            if peer is None or peer.seated() or peer.replaced() or seat.bot is None:
                continue
            try:
                wire = peer.offer(stalled, seat.name)
            except LocalError:
                continue
            self._offered[key] = (wire, time.monotonic())
            self._keep(self._offered)
            self.offers.setdefault(key, {})[parse_entry(wire).id] = wire
            table.emit(Offer(stalled, seat.name))
            await table.link.publish(topics.vote(table.table_id), wire, wait=5)
            return

    def tell_changes(self) -> None:
        """Say once that a local seat was replaced, or that a local newcomer took a seat."""
        table = self.table
        replica = table.replica
        changes = len(replica.changes) if replica is not None else 0
        if changes == self._changes_seen:
            return
        self._changes_seen = changes
        for peer in table.peers:
            if peer.replaced() and peer.seat not in self._told_replaced:
                self._told_replaced.add(peer.seat)
                table.emit(YouWereReplaced(peer.seat))
        for seat in table.seats:  # a newcomer whose offer a void accepted
            peer = seat.peer
            if peer is None or id(peer) in self._told_taken or not peer.seated():
                continue
            if any(c.taker == peer.identity.public for c in peer.replica.changes):
                self._told_taken.add(id(peer))
                table.emit(TookSeat(peer.seat))

    async def waited(self, stalled: int, waited: float) -> None:
        """The table has waited ``waited`` seconds for ``stalled``, a seat not played here:
        offer this process's newcomer, then vote (to abandon at twice the void timeout)."""
        policy = self.table.clock.policy()
        if policy.offer(waited):
            await self.offer(stalled)
        if policy.vote(waited):
            # a seat without partners: abandon at once; with: for a newcomer, then abandon
            await self.vote(stalled, abandon=policy.abandon(waited, team=True))
            await self.maybe_replace(stalled)  # votes may have come before our head did

    def release_holds(self) -> None:
        """A local seat that voted, then saw the stalled seat's late entry, holds (7.8);
        if no void came within twice the void timeout of its vote, it follows that entry."""
        table = self.table
        now = time.monotonic()
        for peer in table.peers:
            for key in peer.holds:  # a hold restored from a crash counts from the resume
                self._vote_times.setdefault(key, now)
            policy = table.clock.policy()
            if peer.holding() and any(
                policy.release(now - self._vote_times[key]) for key in peer.holds
            ):
                peer.release()
                table.emit(VoteReleased(peer.seat))
                table.touch()
