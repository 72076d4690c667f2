"""The transcripts a simulated run's peers save when their game ends, and the invariant
on them: a saved transcript is never lost or overwritten, and it verifies.

As ``trutnet play`` saves each game in the person's ``games`` folder under the table's
id, every peer of a run saves into one folder under one name, as if all of them played
on one machine: the names collide, and each save must find a name of its own. A peer
back from its files saves again when it sees the end again (another life, another
file). Each file is read back and replayed as ``trutnet verify`` does: no entry may be
refused, and it must end where that peer's log ends (docs/protocol.md 7.6).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from trutnet.protocol.audit import audit
from trutnet.protocol.checked import CheckedProofs
from trutnet.sim.invariants import Violation
from trutnet.store import StoreError, load_transcript, save_transcript


class Transcripts:
    """The transcripts saved in one run's ``games`` folder, each with its digest."""

    def __init__(self, folder: Path, table_id: bytes, checked: CheckedProofs) -> None:
        self.path = folder / f"{table_id.hex()}.json"  # the name every peer asks for
        self.table_id = table_id
        self.checked = checked  # the run's proofs, checked once
        self.digests: dict[Path, bytes] = {}
        self.savers: set[tuple[str, int]] = set()  # (peer, life) that saved
        self.verified: set[bytes] = set()  # the digests of the logs that verified here

    def ended(self, who: str, life: int, wires: Sequence[bytes]) -> Violation | None:
        """``who`` (in its ``life``) saw its game end with the log ``wires``: it saves
        its transcript once; every transcript saved so far must still be whole."""
        if (who, life) in self.savers:
            return None
        self.savers.add((who, life))
        try:
            saved = save_transcript(self.path, self.table_id, wires)
        except StoreError as exc:
            return Violation("transcript", f"{who} could not save its transcript: {exc}")
        if saved in self.digests:
            return Violation("transcript", f"{who} saved over {saved.name}")
        self.digests[saved] = _digest(saved)
        lost = self.check()
        if lost is not None:
            return lost
        try:
            table, read = load_transcript(saved)
        except StoreError as exc:
            return Violation("transcript", f"{saved.name} does not load: {exc}")
        if read != list(wires):
            return Violation("transcript", f"{saved.name} ({who}) is not the log it saved")
        log = hashlib.sha256(b"".join(hashlib.sha256(w).digest() for w in read)).digest()
        if log in self.verified:  # the same log as another peer's: the same verdict
            return None
        report = audit(table, read, self.checked)
        if report.failed_at is not None:
            return Violation(
                "transcript", f"{saved.name} ({who}) does not verify: {report.failure}"
            )
        self.verified.add(log)
        return None

    def check(self) -> Violation | None:
        """Every transcript saved is still there, byte for byte."""
        for path, digest in self.digests.items():
            if not path.exists():
                return Violation("transcript", f"{path.name} was lost")
            if _digest(path) != digest:
                return Violation("transcript", f"{path.name} was overwritten")
        return None


def _digest(path: Path) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()
