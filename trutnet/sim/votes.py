"""The votes of a simulated table (docs/protocol.md 7.7), as the runtime casts them: a
seat the table waits for ``Faults.void_timeout`` seconds (twice that in a team game)
gets every other seat's vote to abandon, said again every ``VOTE_AGAIN`` seconds, and
the coordinator writes the ``abandon`` once a quorum agrees. (Newcomers and ``void``
are not modelled.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.protocol.envelope import MessageError
from trutnet.protocol.replace import VoteError, coordinator, parse_vote, pick_quorum
from trutnet.protocol.schema import LocalError
from trutnet.sim.invariants import Violation
from trutnet.sim.records import Node, SimFailure

if TYPE_CHECKING:
    from trutnet.sim.network import Sim

VOTE_AGAIN = 2.0  # a vote is said again this often (the runtime's)


class Ballots:
    """Every simulated process's votes."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim

    def vote(self, node: Node, stalled: int) -> bool:
        """``node``'s seat votes to abandon ``stalled`` (said again every ``VOTE_AGAIN``
        seconds); True if that made the abandon."""
        replica, peer = node.replica, node.peer
        assert peer is not None
        if not replica.can_abandon(stalled):
            return False
        key = (stalled, replica.log.head)
        said = node.voted.get(key)
        if said is not None and self.sim.elapsed(node, said) < VOTE_AGAIN:
            return False
        if said is None:
            try:
                wire = peer.vote(stalled, None)
            except LocalError:
                return False
            node.votes.setdefault(key, {})[node.seat or 0] = wire
            self.sim.counts["votes"] += 1
        else:
            wire = node.votes[key][node.seat or 0]
        node.voted[key] = self.sim.now
        self.sim.publish(node, "vote", wire)
        return self.maybe_abandon(node, stalled)

    def maybe_abandon(self, node: Node, stalled: int) -> bool:
        """As the coordinator: write the ``abandon`` once a quorum agrees."""
        replica, peer = node.replica, node.peer
        assert peer is not None
        if replica.state is None or not replica.can_abandon(stalled):
            return False
        if coordinator(stalled, replica.team_of) != node.seat or not peer.seated():
            return False
        key = (stalled, replica.log.head)
        chosen = pick_quorum(
            node.votes.get(key, {}),
            {},
            self.sim.table_id,
            replica.seats,
            replica.team_of,
            key[1],
            stalled,
            replica.round_number(),
        )
        if chosen is None:
            return False
        try:
            wire = peer.abandon(stalled, chosen[1])
        except VoteError:
            return False
        self.sim.counts["abandon_written"] += 1
        self.sim.wrote(node, wire)
        return True

    def read(self, node: Node, wire: Any) -> bool:
        """A vote from the ``vote`` topic, kept if it is signed by its voter's seat."""
        replica = node.replica
        if replica.state is None:
            return False
        try:
            vote = parse_vote(wire, self.sim.table_id, replica.seats)
        except (VoteError, MessageError):
            self.sim.counts["refused"] += 1
            return False
        except Exception as exc:  # the runtime survives it; it is still a finding
            raise SimFailure(
                Violation("crash", f"{node.name}: a vote broke parse_vote: {type(exc).__name__}")
            ) from exc
        node.votes.setdefault((vote.stalled, vote.head), {})[vote.voter] = wire
        return self.maybe_abandon(node, vote.stalled)
