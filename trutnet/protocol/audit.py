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
from trutnet.protocol.envelope import MessageError, parse_entry
from trutnet.protocol.signs import SignBoard
from trutnet.protocol.table import Rejected, TableReplica
from trutnet.protocol.untrusted import UntrustedInput


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


class _SignFeed:
    """The transcript's sign messages, each read once the replay reaches the head it
    names (a sign's draws and shows name the sign's head)."""

    def __init__(self, report: AuditReport, wires: Sequence[bytes]) -> None:
        self.report = report
        replica = report.replica
        report.signs = SignBoard(replica.table_id, replica.context)
        self.waiting: dict[bytes, list[tuple[int, bytes]]] = {}
        for number, wire in enumerate(wires):
            try:
                prev = parse_entry(wire, replica.table_id).prev
            except MessageError as exc:
                self.fail(number, str(exc))
                continue
            self.waiting.setdefault(prev, []).append((number, wire))

    def fail(self, number: int, why: str) -> None:
        if self.report.sign_failure is None:
            self.report.sign_failure = f"sign message {number}: {why}"

    def step(self) -> None:
        replica, board = self.report.replica, self.report.signs
        assert board is not None
        if replica.state is None:
            return
        head = replica.log.head
        board.note_head(head, replica.n, replica.state.signs)
        keys = (dict(enumerate(replica.elgamal)), list(replica.seats))
        for number, wire in self.waiting.pop(head, []):
            try:
                board.receive(wire, *keys)
            except UntrustedInput as exc:
                self.fail(number, str(exc))

    def end(self) -> None:
        for held in self.waiting.values():
            for number, _wire in held:
                self.fail(number, "it names a head that is not in the log")


def audit(
    table_id: bytes,
    wires: Sequence[bytes],
    checked: CheckedProofs | None = None,
    signs: Sequence[bytes] = (),
) -> AuditReport:
    """Replay ``wires`` in order; stop at the first entry that a peer would refuse
    (``checked``: the proofs this process has checked already, :mod:`.checked`).
    ``signs``: the table's sign messages, checked along (:attr:`AuditReport.signs`)."""
    report = AuditReport(TableReplica(table_id, checked))
    feed = _SignFeed(report, signs) if signs else None
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
            feed.step()
    if feed is not None:
        feed.end()
    if not report.complete:
        report.failure = (
            f"the transcript ends before the game's result (phase {report.replica.phase})"
        )
    return report
