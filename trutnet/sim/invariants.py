"""The invariants ``trutnet sim`` checks after every step (issue 26), as pure functions
of the replicas: they know no network, clock or fault.

* **one log** (:func:`check_logs`): every replica's log is a prefix of one log; two
  logs may differ only where one holds a ``void``/``abandon`` that overrides the other's
  entry at the same head (7.8, resolved when the override arrives), or where a seat
  the simulation plays dishonestly showed two peers two entries. A replica that
  stopped (``halted``) must blame a seat the simulation plays dishonestly, and every
  replica that stopped must name the same seat and rule;
* **no card out of sight** (:func:`check_hidden`): a seat's replica knows the card at a
  position only if the table revealed it to everyone, showed it to that seat (the
  replica's ``shown``, which the engine's ``table_requests`` decide from the public
  log), or the game's hidden description (``sight()``) gives it to that seat now; a
  spectator knows only what was revealed to everyone;
* **every table ends** within a bound of simulated time: checked by the simulation
  itself (:class:`~trutnet.sim.network.Sim`), which reports a ``stuck`` violation;
* **what a person reads** agrees with its replica: :mod:`trutnet.sim.screens`
  (``screen``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from trutnet.protocol.log import OVERRIDES
from trutnet.protocol.replica import TableReplica


@dataclass(frozen=True)
class Violation:
    """An invariant that does not hold: its kind (``fork``, ``blame``, ``leak``,
    ``stuck``, ``crash``, ``split``, ``left_behind``, ``screen``) and what was seen."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def check_logs(
    replicas: Sequence[tuple[str, TableReplica]], dishonest: Collection[int] = ()
) -> Violation | None:
    """One log (see the module's docstring), or the first violation found."""
    longest_name, longest = max(replicas, key=lambda r: len(r[1].log))
    ids = [e.id for e in longest.log.entries]
    for name, replica in replicas:
        entries = replica.log.entries
        for index, entry in enumerate(entries):
            if entry.id == ids[index]:
                continue
            other = longest.log.entries[index]
            if entry.type in OVERRIDES or other.type in OVERRIDES:
                break  # 7.8: an override of the entry at this head, on its way
            if entry.seat in dishonest or other.seat in dishonest:
                break  # a seat played dishonestly equivocates: the table must stop
            return Violation(
                "fork",
                f"{name} and {longest_name} differ at entry {index}: "
                f"{entry.type} of seat {entry.seat} / {other.type} of seat {other.seat}",
            )
    halted = [(name, r.halted) for name, r in replicas if r.halted is not None]
    for name, blame in halted:
        if blame.seat not in dishonest:
            return Violation("blame", f"{name} stopped blaming an honest seat: {blame}")
    said = {(b.seat, b.rule) for _, b in halted}
    if len(said) > 1:
        return Violation("blame", f"replicas stopped with different blames: {sorted(said)}")
    return None


def check_hidden(name: str, seat: int | None, replica: TableReplica) -> Violation | None:
    """No card out of sight (see the module's docstring); ``seat`` None: a spectator."""
    state = replica.state
    if state is None:
        return None
    revealed = replica.decks.revealed
    allowed: set = set()
    if seat is not None:
        allowed = set(replica.shown.get(seat, ())) | set(state.sight().get(seat, ()))
    for positions in state.holders().values():
        for pos in positions:
            if pos in revealed or pos in allowed:
                continue
            card = state.identity_of(pos)
            if card is not None:
                who = "a spectator" if seat is None else f"seat {seat}"
                return Violation("leak", f"{name} ({who}) knows {pos} = {card}, not shown to it")
    return None


def check_step(
    name: str,
    seat: int | None,
    replica: TableReplica,
    replicas: Sequence[tuple[str, TableReplica]],
    dishonest: Collection[int],
) -> Violation | None:
    """Every invariant after a step that changed ``name``'s ``replica``: the logs
    (:func:`check_logs`, when two of them part or a replica stopped) and what it knows
    of hidden cards (:func:`check_hidden`)."""
    for _, other in replicas:
        shorter, longer = sorted((replica, other), key=lambda r: len(r.log))
        if len(shorter.log) and longer.log.index_of(shorter.log.head) != len(shorter.log) - 1:
            return check_logs(replicas, dishonest)
    if replica.halted is not None:
        violation = check_logs(replicas, dishonest)
        if violation is not None:
            return violation
    return check_hidden(name, seat, replica)
