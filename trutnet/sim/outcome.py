"""How a simulated run ended (:func:`run_result`): its status, hands and entries, the
counts of what happened, and the digest of every peer's log (the same seed, the same
digest); and where each process stood when a table did not end in time
(:func:`waiting_text`).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from trutnet.sim.invariants import Violation
from trutnet.sim.records import RunResult

if TYPE_CHECKING:
    from trutnet.sim.network import Sim


def waiting_text(sim: Sim) -> str:
    """Where each process is, when the table did not end within the bound."""
    parts = []
    for node in sim.nodes:
        if node.gone or node.gave_up:
            parts.append(f"{node.name}: {'gone' if node.gone else 'gave up'}")
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
            if len(states) > 1 or any(len(r.log) != len(longest.log) for r in live):
                status = "failed"
                sim.violation = Violation("split", "the table ended with different logs")
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
