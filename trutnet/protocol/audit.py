"""Offline audit of a table transcript: replay every entry through a replica with no
secrets. Signatures, chain, turns, every proof and every engine transition are
checked exactly as a live peer checks them. Pure: entries in, a report out.

The table's signs (9.8), kept beside the log, are checked along the replay: each is
read at the head it names, as a live peer reads it, without learning any sign.

The report also keeps who sat where: each seat's name and identity key as the
``open`` entry gave them, and as they are at the end (a replaced seat, 7.7), so that
``trutnet verify`` can print the fingerprints for people to compare out of band.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from trutnet.protocol.blame import Blame
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.signs import SignBoard, SignFeed
from trutnet.protocol.table import Rejected, TableReplica


@dataclass
class AuditReport:
    replica: TableReplica
    entries: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    failure: str | None = None
    failed_at: int | None = None
    blame: Blame | None = None
    opened: list[tuple[str, bytes]] = field(default_factory=list)  # (name, key) at open
    signs: SignBoard | None = None  # the signs read along the replay (given any)
    sign_failure: str | None = None  # what is wrong with the first sign message refused
    # the blame the transcript's evidence proves at the log's end (7.5), and else why
    # that evidence proves none
    proven: Blame | None = None
    unproven: str | None = None

    @property
    def seated(self) -> list[tuple[str, bytes]]:
        """Each seat's (name, key) at the end of the transcript."""
        return list(zip(self.replica.names, self.replica.seats, strict=False))

    @property
    def complete(self) -> bool:
        return self.replica.phase == "done"

    @property
    def ok(self) -> bool:
        return self.failure is None and self.complete


def audit(
    table_id: bytes,
    wires: Sequence[bytes],
    checked: CheckedProofs | None = None,
    signs: Sequence[bytes] = (),
    evidence: Sequence[bytes] = (),
) -> AuditReport:
    """Replay ``wires`` in order; stop at the first entry that a peer would refuse
    (``checked``: the proofs this process has checked already, :mod:`.checked`).
    ``signs``: the table's sign messages, checked along (:attr:`AuditReport.signs`).
    ``evidence``: the signed entries a table stopped on, offered at the log's end, as
    they came to the peer that stopped (:func:`prove`)."""
    report = AuditReport(TableReplica(table_id, checked))
    feed = SignFeed(table_id, signs) if signs else None
    for index, wire in enumerate(wires):
        try:
            entry = report.replica.receive(wire)
        except Rejected as exc:
            report.failure, report.failed_at, report.blame = str(exc), index, exc.blame
            return report
        except Exception as exc:  # a file is hostile input: a report, never a crash
            report.failure = f"[unreadable] {type(exc).__name__}: {exc}"[:300]
            report.failed_at = index
            return report
        if entry is None:
            report.failure, report.failed_at = "[duplicate] an entry appears twice", index
            return report
        report.entries += 1
        report.counts[entry.type] += 1
        if entry.type == "open":
            report.opened = report.seated
        if feed is not None:
            feed.step(report.replica)
    if feed is not None:
        feed.end()
        report.signs, report.sign_failure = feed.board, feed.failure
    if not report.complete:
        report.failure = (
            f"the transcript ends before the game's result (phase {report.replica.phase})"
        )
        if evidence:
            prove(report, evidence)
    return report


def prove(report: AuditReport, evidence: Sequence[bytes]) -> None:
    """Offer ``evidence`` to the replica at the end of the replayed log: a blame the
    table stopped on must come again, on the seat whose signature the entry bears, from
    anyone's replica (:attr:`AuditReport.proven`); entries that any replica takes, or
    refuses with no one to blame, prove nothing (:attr:`AuditReport.unproven`)."""
    for wire in evidence:
        try:
            report.replica.receive(wire)
        except Rejected as exc:
            if exc.blame is not None and exc.halt:
                report.proven = exc.blame
                return
            report.unproven = f"[{exc.rule}] {exc.message}"[:300]
        except Exception as exc:  # a file is hostile input: a report, never a crash
            report.unproven = f"[unreadable] {type(exc).__name__}: {exc}"[:300]
            return
    if report.unproven is None:
        report.unproven = "the log takes the evidence: it shows no fault"
