"""Unordered rounds (docs/protocol.md 7.2), the part of
:class:`~.replica.TableReplica` that runs them. The steps that need no seat order
(``keys``, ``commit``, ``reveal``, ``shares``, ``blind``, ``unblind``, ``checkpoint``,
``result``) let every seat write at once, naming the same head: each entry is checked
as it comes (``_on_<type>``), then counted in seat order (``_keep_<type>``); the round
enters the log whole, in seat order, and ``_after_<type>`` goes on. A bad entry, or a
second entry of one seat (an equivocation), stops the table when its turn to count
comes, so that every replica stops at the same one whatever came first.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from trutnet.protocol.blame import Blame
from trutnet.protocol.envelope import Entry, MessageError, parse_entry
from trutnet.protocol.log import equivocation_blame
from trutnet.protocol.rounds import OpenRound
from trutnet.protocol.schema import (
    Rejected,
)


class UnorderedRounds:
    """Mixed into :class:`~.replica.TableReplica`: see the module."""

    def _start_round(self, kind: str, seats: Any) -> None:
        """Every seat of ``seats`` writes ``kind`` now, naming the log's head."""
        self.round, self.phase = OpenRound(kind, tuple(seats)), kind

    def _pool(self, round_: OpenRound, entry: Entry) -> Entry:
        """Hold an entry of the round in progress, checked now; it counts in seat order.
        A bad entry is refused now, and stops the table when its turn to count comes
        (so every replica stops at the same one, whatever came first)."""
        seat = entry.seat
        try:
            round_.values[seat] = self._checked(
                entry, lambda: getattr(self, f"_on_{entry.type}")(entry, entry.body)
            )
        except Rejected as exc:
            round_.faults[seat] = self._blamed(entry, exc)
        round_.entries[seat] = entry
        self._judge(round_)
        fault = round_.faults.get(seat)
        if fault is not None:  # it counts once every lower seat's entry has
            raise fault
        return entry

    def _equivocates(self, round_: OpenRound, entry: Entry, blame: Blame) -> None:
        """A second entry of a seat in the round in progress (7.2): an equivocation, that
        seat's fault in the round whatever either entry holds (it wins over the failed
        checks of either), counted in seat order like a bad entry: the table stops now
        if the seat has counted or is next, else when it comes up. Always raises."""
        fault = Rejected("equivocation", blame.detail, blame)
        round_.faults[entry.seat] = fault
        if round_.seats.index(entry.seat) < round_.judged:  # every lower seat counted
            raise self._stop(round_.entries[entry.seat], fault)
        self._judge(round_)
        raise fault

    def _equivocation_after_stop(self, wire: bytes) -> None:
        """The table stopped on an entry of seat S; ``wire`` is another entry of S with
        the same sequence number and head: the blame becomes S's equivocation, with
        both entries (7.2). A replica that got the other entry first has recorded
        that very blame, so every replica that has both records the same one, whatever
        the order they came in. Raises that refusal; returns for anything else."""
        halted = self.halted
        if halted is None or halted.rule == "equivocation" or len(halted.evidence) != 1:
            return
        try:
            entry = parse_entry(wire, self.table_id)
            known = parse_entry(halted.evidence[0], self.table_id)
        except MessageError:
            return
        blame = equivocation_blame(known, entry)
        if blame is None or entry.seat != halted.seat or known.seat != halted.seat:
            return
        self.blames = [blame if b is halted else b for b in self.blames]
        self.halted = blame
        raise Rejected("equivocation", blame.detail, blame, True)

    def _judge(self, round_: OpenRound) -> None:
        """Count the held entries in seat order as far as they go; once all count, the
        round enters the log (in seat order) and the table goes on."""
        while (seat := round_.next_to_judge()) is not None:
            entry = round_.entries[seat]
            fault = round_.faults.get(seat)
            keep = getattr(self, f"_keep_{round_.kind}", None)
            if fault is None and keep is not None:
                try:
                    self._checked(entry, partial(keep, seat, round_.values[seat]))
                except Rejected as exc:
                    fault = exc
            if fault is not None:
                raise self._stop(entry, fault)
            round_.judged += 1
        if not round_.complete:
            return
        entries = [round_.entries[s] for s in round_.seats]
        self.log.append_round(entries)
        self.journal.extend(e.wire for e in entries)
        self.round = None
        try:
            self._checked(entries[-1], getattr(self, f"_after_{round_.kind}"))
        except Rejected as exc:  # the table cannot go on: as the round's last entry
            raise self._stop(entries[-1], exc) from exc
