"""What one table runtime counts (:class:`RuntimeStats`: messages received, dropped,
resent), and when things happened at its table, for ``trutnet bench network``
(docs/benchmarks): when each hand began; by play entry id (16 hex digits), when a local
seat signed a play (a decision that reveals cards) and when its cards became known
here; with ``Options.stamp_entries``, when every entry was signed and applied.
``time.monotonic()`` is one clock for every process of a machine (CLOCK_MONOTONIC on
Linux), so the stamps of processes on one machine compare.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

from trutnet.protocol.envelope import Entry, MessageError, parse_entry


@dataclass
class RuntimeStats:
    """What a table runtime counts of the messages it handled."""

    received: int = 0
    duplicates: int = 0
    buffered: int = 0
    syncs_sent: int = 0
    syncs_answered: int = 0
    resent: int = 0  # log entries sent again, answering sync requests
    dropped: int = 0  # messages that were malformed, unsigned or forged: counted, ignored
    rejected: list[str] = field(default_factory=list)


class Stamps:
    """The bench's stamps of one table runtime."""

    def __init__(self, every_entry: bool) -> None:
        self.every_entry = every_entry  # stamp every entry, not only the plays
        self.hand_started: list[float] = []  # when each hand began, seen from here
        self.plays_signed: dict[str, float] = {}
        self.cards_known: dict[str, float] = {}
        self.entries_signed: dict[str, float] = {}
        self.entries_applied: dict[str, float] = {}
        self._hand = -1
        self._plays_waiting: list[Entry] = []
        self._plays_scanned = 0

    def applied(self, entry: Entry) -> None:
        """``entry`` came from the network and was applied here."""
        if self.every_entry:
            self.entries_applied.setdefault(entry.id.hex()[:16], time.monotonic())

    def moved(self, replica: Any) -> None:
        """The log moved: note the plays whose cards are now known, and a new hand."""
        self.note_cards(replica)
        if replica is not None and replica.state is not None:
            hand = replica.round_number()
            if hand != self._hand:
                self._hand = hand
                self.hand_started.append(time.monotonic())

    def signed(self, wire: bytes, replica: Any) -> None:
        """A local seat signed (and applied to ``replica``) ``wire`` now."""
        signed = replica.log.entries[-1]
        if signed.wire == wire and is_play(signed):
            self.plays_signed[signed.id.hex()[:16]] = time.monotonic()
        if self.every_entry:
            with contextlib.suppress(MessageError):
                key, now = parse_entry(wire).id.hex()[:16], time.monotonic()
                self.entries_signed.setdefault(key, now)
                self.entries_applied.setdefault(key, now)

    def note_cards(self, replica: Any) -> None:
        """Stamp each play (an ``act`` or ``unseal`` that carries its author's shares,
        7.4) whose cards this process now knows: once it is in the log and the replica
        no longer waits for a public round to reveal them (one decision at a time waits)."""
        if replica is None:
            return
        entries = replica.log.entries
        start = min(self._plays_scanned, len(entries))  # a void may have cut the log (7.8)
        self._plays_waiting += [e for e in entries[start:] if is_play(e)]
        self._plays_scanned = len(entries)
        if not self._plays_waiting:
            return
        now, last = time.monotonic(), self._plays_waiting[-1]
        pending = replica.pending  # a decision's public round: the last play waits for it
        waiting = [last] if pending is not None and pending[0] >= 0 else []
        for entry in self._plays_waiting:
            if entry not in waiting:
                self.cards_known.setdefault(entry.id.hex()[:16], now)
        self._plays_waiting = waiting


def is_play(entry: Entry) -> bool:
    """A decision that reveals cards: it carries its author's own shares of them."""
    return entry.type in ("act", "unseal") and "shares" in entry.body
