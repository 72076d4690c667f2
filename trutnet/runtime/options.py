"""The timers and policies of a table's runtime (:class:`Options`): when a seat the
table waits for is reported, voted on and replaced (docs/protocol.md 7.7), how long a
finished peer lingers (9.2), when a successor hosts the table (9.3), when a process
gives up. Tests scale them down; the command line sets them (``--stall-timeout``...).
"""

from __future__ import annotations

from dataclasses import dataclass

from trutnet.protocol.clock import ClockRule
from trutnet.runtime.stall_policy import StallPolicy


@dataclass
class Options:
    """A table runtime's timers (seconds) and policies."""

    stall_timeout: float = 30.0
    gap_timeout: float = 0.5
    linger: float = 30.0  # at most this long after the end, helping others finish
    rehost_after: float = 3.0  # seconds without any broker before a successor re-hosts
    void_timeout: float = 120.0  # seconds waiting for a seat before voting to replace it
    # 7.7: newcomers (key fingerprints, or "any") this process's seats accept in place of
    # a stalled partner; none by default, and then a stalled game is abandoned
    takers: tuple[str, ...] = ()
    give_up_after: float = 900.0  # seconds without any progress before this peer stops
    # A process that holds no seat (a newcomer following the table, 7.7) stops after this
    # long without progress when nothing can bring any: no broker (it cannot rehost), or
    # every seat said it finished at a point this log lacks (counted from that word)
    follow_timeout: float = 60.0
    # ``trutnet bench network``: stamp every entry, when a local seat signed it and when
    # it was applied here (``TableRuntime.entries_signed``, ``entries_applied``)
    stamp_entries: bool = False
    # 7.11: the table's turn clock (the host's rule, from its lobby), and whether this
    # process's person lets a bot decide for them when their time runs out
    clock: ClockRule | None = None
    bot_on_timeout: bool = False

    @property
    def policy(self) -> StallPolicy:
        """When a seat the table waits for is reported, voted on and given up (7.7)."""
        return StallPolicy(self.stall_timeout, self.void_timeout)
