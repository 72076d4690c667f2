"""The votes and offers of a simulated table (docs/protocol.md 7.7), as the runtime casts
them, on the runtime's own :class:`~trutnet.runtime.stall_policy.StallPolicy`: a
newcomer (``Faults.newcomers``: a process that follows the table with no seat) offers
to take a seat the table waits for, if that seat has partners; after the void timeout
the stalled seat's partners vote for the first newcomer's offer (they accept any, as
with ``--accept-taker any``) and the other seats follow a partner's choice; with no
offer, every other seat votes to abandon, at once for a seat without partners, after
twice the void timeout for one with partners. Votes and offers are said again every
``VOTE_AGAIN`` seconds, and the coordinator writes the ``void`` (the newcomer plays
the seat from the next hand) or the ``abandon`` once a quorum agrees.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trutnet.bots import make_bot
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
from trutnet.protocol.schema import LocalError
from trutnet.runtime.stall_policy import StallPolicy
from trutnet.sim.invariants import Violation
from trutnet.sim.records import Node, SimFailure
from trutnet.store import PeerStore

if TYPE_CHECKING:
    from trutnet.sim.network import Sim

VOTE_AGAIN = 2.0  # a vote or an offer is said again this often (the runtime's)


class Ballots:
    """Every simulated process's votes and offers."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        timeout = sim.faults.void_timeout
        self.policy = StallPolicy(timeout, timeout)  # the runtime's

    def newcomers(self, directory: Path, rates: list[float]) -> list[Node]:
        """The newcomers' processes: each follows the table with no seat, its files kept
        (its offer's key among its secrets), a bot to play a seat it takes."""
        sim, nodes = self.sim, []
        for k, rate in enumerate(rates):
            identity = sim._identity(f"newcomer/{k}")
            peer = sim._make_peer(identity, -1, f"newcomer {k}")
            store = PeerStore(directory / f"newcomer-{k}")
            bot = make_bot(sim.game.name, sim.kinds[0], random.Random(f"sim/{sim.seed}/new/{k}"))
            node = Node(f"newcomer {k}", None, identity, peer, store, bot, rate=rate, newcomer=True)
            peer.on_secrets = store.save_secrets
            store.save_secrets(peer.secrets())
            nodes.append(node)
        return nodes

    def on_stall(self, node: Node, stalled: int, waited: float) -> bool:
        """``node`` has waited ``waited`` seconds (its own clock) for ``stalled``: a
        newcomer offers, a seat votes, a seat that holds at its vote gives up holding
        (7.8); True if that changed ``node``'s replica."""
        replica, peer, policy = node.replica, node.peer, self.policy
        assert peer is not None
        team = bool(partners(stalled, replica.team_of)) if replica.state is not None else False
        if node.seat is None:  # the spectator, or a newcomer
            if node.newcomer and team and peer.standby() and policy.offer(waited):
                self.offer(node, stalled)
            return False
        if stalled == node.seat or not peer.seated():
            return False
        changed = False
        key = (stalled, replica.log.head)
        if team and policy.vote(waited) and self.taker(node, key) is not None:
            changed = self.sim._vote(node, stalled, self.taker(node, key))
        elif policy.abandon(waited, team):
            changed = self.sim._vote(node, stalled, None)
        if peer.holding() and policy.release(waited):
            peer.release()  # no void came: follow the stalled seat's entry (7.8)
            self.sim.counts["released"] += 1
            self.sim.at(0, "wake", self.sim.nodes.index(node))
        return changed

    def taker(self, node: Node, key: tuple[int, bytes]) -> bytes | None:
        """The offer ``node``'s seat votes for, as the runtime chooses it
        (:func:`~trutnet.protocol.replace.taker_for`), accepting any newcomer."""
        offers, replica = node.offers.get(key, {}), node.replica
        if not offers or node.seat is None or not replica.can_void(key[0]):
            return None
        votes = node.votes.get(key, {})
        return taker_for(
            node.seat,
            key[0],
            replica.team_of,
            offers,
            votes,
            self.sim.table_id,
            replica.seats,
            lambda author: True,
        )

    def vote(self, node: Node, stalled: int, taker: bytes | None) -> bool:
        """``node``'s seat votes on ``stalled``: for ``taker``'s offer, or to abandon
        (signed again when its choice changes, said again every ``VOTE_AGAIN``
        seconds); True if that made the void or the abandon."""
        replica, peer = node.replica, node.peer
        assert peer is not None and node.seat is not None
        if not replica.can_abandon(stalled):
            return False
        key = (stalled, replica.log.head)
        said = node.voted.get(key)
        same = said is not None and node.voted_for.get(key) == taker
        if same and self.sim.elapsed(node, said) < VOTE_AGAIN:
            return False
        if not same:
            try:
                wire = peer.vote(stalled, taker)
            except LocalError:
                return False
            node.votes.setdefault(key, {})[node.seat] = wire
            node.voted_for[key] = taker
            self.sim.counts["votes"] += 1
        else:
            wire = node.votes[key][node.seat]
        node.voted[key] = self.sim.now
        self.sim.publish(node, "vote", wire)
        return self.maybe_decide(node, stalled)

    def offer(self, node: Node, stalled: int) -> None:
        """As a newcomer: offer to take ``stalled`` (said again every ``VOTE_AGAIN``)."""
        replica, peer = node.replica, node.peer
        assert peer is not None
        key = (stalled, replica.log.head)
        said = node.offered.get(key)
        if said is not None and self.sim.elapsed(node, said) < VOTE_AGAIN:
            return
        mine = [w for w in node.offers.get(key, {}).values() if _author(w) == peer.identity.public]
        if mine:
            wire = mine[0]
        else:
            try:
                wire = peer.offer(stalled, node.name)
            except LocalError:
                return
            node.offers.setdefault(key, {})[parse_entry(wire).id] = wire
            self.sim.counts["offers"] += 1
        node.offered[key] = self.sim.now
        self.sim.publish(node, "vote", wire)

    def maybe_decide(self, node: Node, stalled: int) -> bool:
        """As the coordinator: write the ``void`` or the ``abandon`` a quorum agrees on."""
        replica, peer = node.replica, node.peer
        assert peer is not None
        if replica.state is None or not replica.can_abandon(stalled):
            return False
        if coordinator(stalled, replica.team_of) != node.seat or not peer.seated():
            return False
        key = (stalled, replica.log.head)
        chosen = pick_quorum(
            node.votes.get(key, {}),
            node.offers.get(key, {}),
            self.sim.table_id,
            replica.seats,
            replica.team_of,
            key[1],
            stalled,
            replica.round_number(),
        )
        if chosen is None:
            return False
        offer, votes = chosen
        try:
            wire = peer.replace(stalled, votes, offer) if offer else peer.abandon(stalled, votes)
        except VoteError:
            return False
        self.sim.counts["void_written" if offer else "abandon_written"] += 1
        self.sim.wrote(node, wire)
        return True

    def read(self, node: Node, wire: Any) -> bool:
        """A vote or an offer from the ``vote`` topic: a vote kept if its voter's seat
        signed it, an offer if it is for the point the table is stuck at here."""
        replica = node.replica
        if replica.state is None:
            return False
        try:
            if isinstance(wire, bytes) and parse_entry(wire).type == "offer":
                offer = parse_offer(wire, self.sim.table_id)
                if not replica.can_void(offer.seat) or offer.entry.prev != replica.log.head:
                    return False  # not stuck there (yet): said again every 2 s
                node.offers.setdefault((offer.seat, offer.entry.prev), {})[offer.id] = wire
                return self.maybe_decide(node, offer.seat)
            vote = parse_vote(wire, self.sim.table_id, replica.seats)
        except (VoteError, MessageError):
            self.sim.counts["refused"] += 1
            return False
        except Exception as exc:  # the runtime survives it; it is still a finding
            what = type(exc).__name__
            raise SimFailure(Violation("crash", f"{node.name}: a vote broke: {what}")) from exc
        node.votes.setdefault((vote.stalled, vote.head), {})[vote.voter] = wire
        return self.maybe_decide(node, vote.stalled)

    def took_seat(self, node: Node) -> None:
        """A newcomer that a ``void`` seated plays the seat from now on."""
        if node.seat is None and node.peer is not None and node.peer.seated():
            node.seat = node.peer.seat
            self.sim.counts["took_seat"] += 1


def _author(wire: bytes) -> bytes | None:
    try:
        return parse_entry(wire).author
    except MessageError:
        return None
