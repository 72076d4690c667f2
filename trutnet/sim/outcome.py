"""How a simulated run ended (:func:`run_result`): its status, hands and entries, the
counts of what happened, and the digest of every peer's log (the same seed, the same
digest); and where each process stood when a table did not end in time
(:func:`waiting_text`).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from trutnet.protocol.log import OVERRIDES
from trutnet.sim.invariants import Violation
from trutnet.sim.records import RunResult
from trutnet.sim.screens import check_end_screens

if TYPE_CHECKING:
    from trutnet.protocol.replica import TableReplica
    from trutnet.sim.network import Sim


def waiting_text(sim: Sim) -> str:
    """Where each process is, when the table did not end within the bound."""
    parts = []
    for node in sim.nodes:
        if node.gone or node.gave_up or node.left:
            parts.append(f"{node.name}: {'gone' if node.gone else node.left or 'gave up'}")
        elif not node.up:
            parts.append(f"{node.name}: down")
        else:
            replica = node.replica
            parts.append(f"{node.name}: {len(replica.log)} entries, waits {replica.expected()}")
    return f"no end after {sim.faults.bound:g} simulated s ({'; '.join(parts)})"


def run_result(sim: Sim, wall: float) -> RunResult:
    """How ``sim``'s run ended: its status (a table that ended with different logs
    fails as a split), what it did, and the digest of every peer's log."""
    digest = hashlib.sha256()
    for node in sim.nodes:
        digest.update(node.name.encode())
        if node.store is not None:
            for wire in node.store.entries():
                digest.update(hashlib.sha256(wire).digest())
        elif node.peer is not None:
            for entry in node.replica.log.entries:
                digest.update(entry.id)
    live = [r for _, r in sim.replicas()]
    longest = max(live, key=lambda r: len(r.log)) if live else None
    hands = 0
    if longest is not None and longest.state is not None:
        state = longest.state
        hands = state.round_number() + (1 if state.is_terminal() else 0)  # those over
    status = sim.status
    if not status and any(n.gave_up for n in sim.nodes):
        status = "gave_up"
    elif not status and longest is not None:
        if sim.violation is None and any(r.halted is not None for r in live):
            status = "stopped"
        elif longest.abandoned is not None:
            status = "abandoned"
        else:
            status = "finished"
        if status in ("finished", "abandoned"):
            states = {r.state.state_hash() for r in live if r.state is not None}
            # a process that ended away (9.2) may lack the end, and hold an entry the
            # table overrode (7.8) that it never heard of; never differ otherwise
            away = [n.replica for n in sim.nodes if n.left == "away" and n.peer is not None]
            parted = any(not _behind(r, longest) for r in away)
            if len(states) > 1 or parted or any(len(r.log) != len(longest.log) for r in live):
                status = "failed"
                sim.violation = Violation("split", "the table ended with different logs")
            elif behind := _left_behind(sim):
                status = "failed"
                sim.violation = Violation("left_behind", behind)
        if status != "failed" and (screen := check_end_screens(sim)) is not None:
            status, sim.violation = "failed", screen  # a person left waiting on nothing
    return RunResult(
        seed=sim.seed,
        status=status,
        hands=hands,
        entries=len(longest.log) if longest is not None else 0,
        steps=len({e.prev for e in longest.log.entries}) if longest is not None else 0,
        sim_seconds=round(sim.now, 6),
        counts=dict(sorted(sim.counts.items())),
        violation=None if sim.violation is None else str(sim.violation),
        digest=digest.hexdigest(),
        note=sim.note,
        injected=tuple(sim.injected),
        wall_seconds=wall,
    )


def _behind(replica: TableReplica, longest: TableReplica) -> bool:
    """``replica``'s log is the start of ``longest``'s, or parts from it only where
    ``longest`` holds an override (a ``void`` or ``abandon``, 7.8) of its entry."""
    theirs = longest.log.entries
    for index, entry in enumerate(replica.log.entries):
        if index >= len(theirs):
            return False
        if entry.id != theirs[index].id:
            return theirs[index].type in OVERRIDES
    return True


def _left_behind(sim: Sim) -> str:
    """Why a process that ended away (9.2) should not have: it never went down and no
    partition or broker restart cut it off (the others left too early), or a process
    that had the end was still there (the table could have told it). Empty if none."""
    if sim.end.unserved:
        return f"{sim.end.unserved[0]} ended away: the table could have told it the end"
    if sim.counts.get("partitioned") or sim.counts.get("broker_restarted"):
        return ""
    name = next((n.name for n in sim.nodes if n.left == "away" and n.life == 0), "")
    if not name:
        return ""
    return (
        f"{name} was up all along and never cut off, and the others left before it had"
        " the end (9.2: a finished process lingers for it)"
    )
