"""Blame records: who broke which rule, with the signed evidence.

Evidence is the exact wire bytes of the offending entry (or both entries, for
equivocation), so anyone can check the blame offline: the author's signature is on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Blame:
    seat: int
    rule: str
    detail: str
    evidence: tuple[bytes, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "rule": self.rule,
            "detail": self.detail,
            "evidence": [e.hex() for e in self.evidence],
        }

    def summary(self) -> dict[str, Any]:
        """Who, which rule, and the detail, without the evidence's bytes."""
        return {"seat": self.seat, "rule": self.rule, "detail": self.detail}

    def __str__(self) -> str:
        return f"seat {self.seat} broke [{self.rule}]: {self.detail}"
