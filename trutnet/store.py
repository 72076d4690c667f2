"""Files of a table (I/O edge): transcripts, and each peer's crash-safe state.

* A **transcript** is JSON: ``{"format": "trutnet-transcript", "version": 1, "table":
  hex, "entries": [base64 entry, ...]}``. It holds signed public entries only, never a
  secret. It is written to a temporary file, fsynced, then renamed into place.
* A **peer store** is a directory: ``log.bin`` (entries appended as ``u32 length ||
  entry``, fsynced after each) and ``secrets.json`` (mode 0600, replaced atomically):
  what the seat needs to resume after a crash.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

FORMAT = "trutnet-transcript"
MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024


class StoreError(Exception):
    """A file that cannot be read or is not what it claims to be."""


def _atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def save_transcript(path: Path, table_id: bytes, wires: Sequence[bytes]) -> None:
    doc = {
        "format": FORMAT,
        "version": 1,
        "table": table_id.hex(),
        "entries": [base64.b64encode(w).decode() for w in wires],
    }
    _atomic_write(Path(path), (json.dumps(doc, indent=0) + "\n").encode())


def load_transcript(path: Path) -> tuple[bytes, list[bytes]]:
    try:
        path = Path(path)
        if path.stat().st_size > MAX_TRANSCRIPT_BYTES:
            raise StoreError(f"{path}: too large for a transcript")
        doc = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read transcript {path}: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != 1:
        raise StoreError(f"{path} is not a trutnet transcript (version 1)")
    try:
        table_id = bytes.fromhex(doc["table"])
        wires = [base64.b64decode(e, validate=True) for e in doc["entries"]]
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise StoreError(f"{path}: malformed transcript ({exc})") from exc
    return table_id, wires


class PeerStore:
    """One seat's files for one table, for resuming after a crash."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.log_path = self.directory / "log.bin"
        self.secrets_path = self.directory / "secrets.json"
        self._count: int | None = None

    def append(self, wire: bytes) -> None:
        fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, len(wire).to_bytes(4, "big") + wire)
            os.fsync(fd)
        finally:
            os.close(fd)
        if self._count is not None:
            self._count += 1

    def count(self) -> int:
        """How many whole entries the log file holds (cached between appends)."""
        if self._count is None:
            self._count = len(self.entries())
        return self._count

    def entries(self) -> list[bytes]:
        """Entries in order; a torn last record (crash mid-write) is dropped."""
        if not self.log_path.exists():
            return []
        data = self.log_path.read_bytes()
        out, pos = [], 0
        while pos + 4 <= len(data):
            size = int.from_bytes(data[pos : pos + 4], "big")
            if pos + 4 + size > len(data):
                break
            out.append(data[pos + 4 : pos + 4 + size])
            pos += 4 + size
        return out

    def save_secrets(self, secrets: dict[str, Any]) -> None:
        _atomic_write(self.secrets_path, json.dumps(secrets).encode(), mode=0o600)

    def load_secrets(self) -> dict[str, Any]:
        try:
            data = json.loads(self.secrets_path.read_text())
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot read {self.secrets_path}: {exc}") from exc
        if not isinstance(data, dict):
            raise StoreError(f"{self.secrets_path} is not a secrets file")
        return data
