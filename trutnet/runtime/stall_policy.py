"""How long a table bears with a seat it waits for (docs/protocol.md 7.7):
:class:`StallPolicy` says, from the time waited and the table's two timers, when a
process reports the seat, offers its newcomer, votes for the newcomer the stalled
seat's team accepts, votes to abandon, and when a seat that held at its vote (7.8)
gives up holding. It reads no clock: the times are given. The runtime acts on it, the
screen shows when this process will vote from it, and ``trutnet sim`` runs the same
policy on simulated time.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StallPolicy:
    """A table's patience, in seconds waited for the same seat at the same point."""

    stall_timeout: float  # the seat is reported as stalled (a notice, the screens)
    void_timeout: float  # the others vote: for a newcomer (a seat with partners) or abandon

    def report(self, waited: float) -> bool:
        """Say that the table waits for the seat."""
        return waited >= self.stall_timeout

    def offer(self, waited: float) -> bool:
        """A newcomer played here offers to take the seat (if it has partners)."""
        return waited >= min(self.stall_timeout, self.void_timeout)

    def vote(self, waited: float) -> bool:
        """The seats played here vote: for the newcomer the seat's team accepts, if an
        offer came (a seat with partners), else to abandon (a seat without)."""
        return waited >= self.void_timeout

    def abandon_after(self, team: bool) -> float:
        """How long before the seats played here vote to abandon: a seat with partners
        gets a second void timeout, for a newcomer to come and be chosen."""
        return self.void_timeout * (2 if team else 1)

    def abandon(self, waited: float, team: bool) -> bool:
        return waited >= self.abandon_after(team)

    def release(self, held: float) -> bool:
        """A seat that voted, then saw the stalled seat's late entry, holds (7.8); after
        this long with no ``void`` it follows that entry."""
        return held >= 2 * self.void_timeout
