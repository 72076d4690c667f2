"""Unordered rounds: steps every seat of a set writes at once (7.2; sans-I/O).

In a round that needs no seat order (``keys``, the ``commit`` and ``reveal`` of a
joint draw, a ``shares`` round, the ``blind`` and ``unblind`` of a ``Locate``,
``checkpoint``, ``result``) each seat of the round
writes one entry naming the round's **base** (the head of the log when the round
starts) as its ``prev``. A replica takes them in any order of arrival: each is
checked when it comes (its proof, against what the round asks of its seat) and held
in an :class:`OpenRound`; the entries are **judged** in seat order (a seat's entry
counts once every lower seat's entry of the round has counted), so every replica
stops at the same bad entry with the same blame, whatever came first. When every
seat's entry has counted, the round enters the log whole, in seat order, and the
head becomes the round's digest (:func:`~.log.round_digest`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trutnet.protocol.envelope import Entry
from trutnet.protocol.schema import Rejected

ROUND_TYPES = ("keys", "commit", "reveal", "shares", "blind", "unblind", "checkpoint", "result")


@dataclass
class OpenRound:
    """A round in progress: its type, its seats (in seat order), and what came. Its
    base is the head of the log, which does not move until the round is whole."""

    kind: str
    seats: tuple[int, ...]
    entries: dict[int, Entry] = field(default_factory=dict)  # seat -> its entry
    values: dict[int, Any] = field(default_factory=dict)  # seat -> what its check kept
    faults: dict[int, Rejected] = field(default_factory=dict)  # seat -> why it is refused
    judged: int = 0  # how many of ``seats``, in order, have counted

    def missing(self) -> tuple[int, ...]:
        """The seats whose entry has not come, in seat order."""
        return tuple(s for s in self.seats if s not in self.entries)

    def held(self) -> list[Entry]:
        """The entries that came, in seat order."""
        return [self.entries[s] for s in self.seats if s in self.entries]

    def next_to_judge(self) -> int | None:
        """The seat whose entry counts next, if it has come."""
        if self.judged >= len(self.seats):
            return None
        seat = self.seats[self.judged]
        return seat if seat in self.entries else None

    @property
    def complete(self) -> bool:
        return self.judged == len(self.seats)
