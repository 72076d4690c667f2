"""Offline audit of a table transcript: replay every entry through a replica with no
secrets. Signatures, chain, turns, every proof and every engine transition are
checked exactly as a live peer checks them. Pure: entries in, a report out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from trutnet.protocol.blame import Blame
from trutnet.protocol.table import Rejected, TableReplica


@dataclass
class AuditReport:
    replica: TableReplica
    entries: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    failure: str | None = None
    failed_at: int | None = None
    blame: Blame | None = None

    @property
    def complete(self) -> bool:
        return self.replica.phase == "done"

    @property
    def ok(self) -> bool:
        return self.failure is None and self.complete


def audit(table_id: bytes, wires: Sequence[bytes]) -> AuditReport:
    """Replay ``wires`` in order; stop at the first entry that a peer would refuse."""
    report = AuditReport(TableReplica(table_id))
    for index, wire in enumerate(wires):
        try:
            entry = report.replica.receive(wire)
        except Rejected as exc:
            report.failure, report.failed_at, report.blame = str(exc), index, exc.blame
            return report
        if entry is None:
            report.failure, report.failed_at = "[duplicate] an entry appears twice", index
            return report
        report.entries += 1
        report.counts[entry.type] += 1
    if not report.complete:
        report.failure = (
            f"the transcript ends before the game's result (phase {report.replica.phase})"
        )
    return report
