"""The turn clock of one process's table runtime (``docs/protocol.md`` 7.11): the host's
rule read on this process's clock (:class:`~trutnet.protocol.clock.TurnClock`),
advanced as the log moves, and what this process does when a seat's time runs out:
its own seat's bot decides once, if the person allowed it (``--bot-on-timeout``),
and a ``clock`` event says whose time ran out (once per decision).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trutnet.protocol.clock import ClockRule, TurnClock
from trutnet.protocol.entry_types import DECISIONS
from trutnet.runtime.events import ClockRanOut
from trutnet.runtime.stall_policy import StallPolicy

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime


class TableClock:
    """The table's clock as this process reads it, or nothing when the table has none."""

    def __init__(self, table: TableRuntime) -> None:
        self.table = table
        self.clock: TurnClock | None = None
        self._said: tuple[int, float] | None = None  # the turn whose end was told

    def follow(self, rule: ClockRule) -> None:
        """The host announces the table's clock: this process reads it from now on."""
        self.table.options.clock = rule

    def deciding(self) -> int | None:
        """The seat whose decision the table waits for now, or None."""
        replica = self.table.replica
        expected = replica.expected() if replica is not None else None
        if expected is None or replica is None or replica.state is None:
            return None
        seat, kinds = expected
        return seat if any(kind in DECISIONS for kind in kinds) else None

    def moved(self, now: float) -> None:
        """The log moved: charge the seat that decided, start the next one's turn."""
        rule = self.table.options.clock
        replica = self.table.replica
        if rule is None or replica is None or replica.state is None:
            return
        if self.clock is None:
            self.clock = TurnClock(rule, replica.n)
        self.clock.waiting(self.deciding(), now)

    def policy(self) -> StallPolicy:
        """How long the table bears with the seat it waits for (7.7): with a clock, a
        seat deciding is reported when its time runs out, not before, and voted on the
        void timeout after that."""
        table = self.table
        policy = table.options.policy
        seat = self.deciding()
        if self.clock is None or seat is None:
            return policy
        # counted, like the table's wait, from the log's last move
        left = max(0.0, self.clock.left(seat, table.last_progress))
        return StallPolicy(left, left + policy.void_timeout)

    def left(self, seat: int, now: float) -> float | None:
        """The time ``seat`` has left (None: no clock)."""
        return None if self.clock is None else self.clock.left(seat, now)

    def ran_out(self, now: float) -> int | None:
        """The seat whose time has run out now (told once per turn with a ``clock``
        event); its own local seat lets its bot decide if the person allowed it."""
        clock = self.clock
        seat = clock.ran_out(now) if clock is not None else None
        if seat is None or clock is None or clock.turn is None:
            return None
        if self._said != clock.turn:
            self._said = clock.turn
            late_bot = self.table.options.bot_on_timeout and self._local_person(seat)
            self.table.emit(ClockRanOut(seat, late_bot))
            if late_bot:
                self.table.wake()
        return seat

    def bot_decides(self, seat: int, now: float) -> bool:
        """This process's ``seat`` (a person's) is late and its bot may decide."""
        return (
            self.table.options.bot_on_timeout
            and self.clock is not None
            and self.clock.ran_out(now) == seat
        )

    def _local_person(self, seat: int) -> bool:
        return any(
            s.peer is not None and s.peer.seat == seat and s.bot is None for s in self.table.seats
        )
