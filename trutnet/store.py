"""Files of a table (I/O edge): transcripts, and each peer's crash-safe state.

* A **transcript** is JSON: ``{"format": "trutnet-transcript", "version": 1, "table":
  hex, "entries": [base64 entry, ...], "chat": [base64 message, ...], "signs": [base64
  message, ...]}`` (``chat`` only when the table said something, 9.6; ``signs`` only
  when a seat signed, 9.8: sealed, as the table saw them). It holds signed public
  messages only, never a secret. It is written to a temporary file, fsynced, then
  linked into place under a name that no file has: a saved transcript is never
  replaced (a name that is taken gets ``-2``, ``-3``... before its suffix).
* A **peer store** is a directory: ``log.bin`` (entries appended as ``u32 length ||
  entry``, fsynced after each) and ``secrets.json`` (mode 0600, replaced atomically):
  what the seat needs to resume after a crash.

Directories are created with mode 0700 (every missing level): which tables a person
played, and with whom, is nobody else's business. A directory that holds a seat's
secrets is set to 0700 even if it already existed.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trutnet.i18n import N_, _, ngettext

FORMAT = "trutnet-transcript"
MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
MAX_EVIDENCE = 2  # a blame rests on one entry, or two for an equivocation (7.5)


class StoreError(Exception):
    """A file that cannot be read or is not what it claims to be."""


def private_dir(path: Path, fix_mode: bool = False) -> Path:
    """Create ``path`` and every missing parent with mode 0700; with ``fix_mode``, also
    set an existing ``path`` to 0700 (a directory of trutnet's own, or of secrets)."""
    path = Path(path)
    missing = []
    for level in (path, *path.parents):
        if level.exists():
            break
        missing.append(level)
    for level in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            level.mkdir(mode=0o700)
        os.chmod(level, 0o700)  # mkdir's mode passes through the umask
    if fix_mode and not missing:
        os.chmod(path, 0o700)
    return path


def _atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    private_dir(path.parent)
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


MAX_NAME_TRIES = 10_000  # names tried before a transcript cannot be saved at all


def _exclusive_write(path: Path, data: bytes, mode: int = 0o600) -> Path:
    """Write ``data`` under ``path``, or the first of ``stem-2.suffix``,
    ``stem-3.suffix``... that no file has, and return the name used. The file appears
    whole or not at all (written aside, fsynced, then hard-linked: a link never
    replaces an existing file, even one another process made meanwhile)."""
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            os.fchmod(fd, mode)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        for number in range(1, MAX_NAME_TRIES + 1):
            name = path if number == 1 else path.with_name(f"{path.stem}-{number}{path.suffix}")
            try:
                os.link(tmp, name)
            except FileExistsError:
                continue
            break
        else:
            raise StoreError(
                ngettext(
                    "cannot save {path}: {count} file of that name exists",
                    "cannot save {path}: {count} files of that name exist",
                    MAX_NAME_TRIES,
                ).format(path=path, count=MAX_NAME_TRIES)
            )
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return name


def save_transcript(
    path: Path,
    table_id: bytes,
    wires: Sequence[bytes],
    chat: Sequence[bytes] = (),
    signs: Sequence[bytes] = (),
    evidence: Sequence[bytes] = (),
) -> Path:
    """Save a transcript at ``path``, or beside it when that name is taken (a saved
    transcript is never replaced); the path it was saved at. ``chat``: the table's
    chat messages this peer read, ``signs`` its sign messages (signed, outside the
    log), ``evidence`` the signed entries the table stopped on (a blame's, 7.5; each
    absent when there are none)."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": 1,
        "table": table_id.hex(),
        "entries": [base64.b64encode(w).decode() for w in wires],
    }
    if chat:
        doc["chat"] = [base64.b64encode(w).decode() for w in chat]
    if signs:
        doc["signs"] = [base64.b64encode(w).decode() for w in signs]
    if evidence:
        doc["evidence"] = [base64.b64encode(w).decode() for w in evidence]
    return _exclusive_write(Path(path), (json.dumps(doc, indent=0) + "\n").encode())


def load_transcript(path: Path) -> tuple[bytes, list[bytes]]:
    """A transcript's table id and entries (:func:`read_transcript`)."""
    transcript = read_transcript(path)
    return transcript.table_id, transcript.entries


@dataclass(frozen=True)
class Transcript:
    """A saved game: its table, its log's entries, and the chat and sign messages kept
    with it."""

    table_id: bytes
    entries: list[bytes]
    chat: list[bytes]
    signs: list[bytes] = field(default_factory=list)
    evidence: list[bytes] = field(default_factory=list)  # the entries a blame is on


# the system's reasons a file cannot be read, as a person is told them (the system's
# own words are English); others keep the system's words
OS_ERRORS = {
    errno.ENOENT: N_("no such file or folder"),
    errno.EISDIR: N_("it is a folder, not a file"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
}


def read_json_file(path: Path, limit: int, wrong: Callable[[str], StoreError]) -> Any:
    """A JSON file of at most ``limit`` bytes, decoded; what is wrong with it said by
    ``wrong(why)`` (the file is hostile input: any bytes give that, never a crash), and
    a file that cannot be read by its error."""
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as exc:
        why = _(OS_ERRORS[exc.errno]) if exc.errno in OS_ERRORS else exc.strerror or exc
        raise StoreError(_("cannot read {path}: {why}").format(path=path, why=why)) from None
    if len(data) > limit:
        raise wrong(_("larger than {size} MiB").format(size=limit // (1024 * 1024)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise wrong(_("binary data, not JSON text")) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        said = _("not JSON (line {line}, column {column})")  # the parser's words are English
        raise wrong(said.format(line=exc.lineno, column=exc.colno)) from None
    except (RecursionError, ValueError):
        raise wrong(_("JSON nested too deeply")) from None


def read_transcript(path: Path) -> Transcript:
    """A transcript file; :class:`StoreError` with one line saying what is wrong (the
    file is hostile input: any bytes give that, never a crash)."""
    path = Path(path)

    def wrong(why: str) -> StoreError:
        return StoreError(_("{path} is not a trutnet transcript: {why}").format(path=path, why=why))

    doc = read_json_file(path, MAX_TRANSCRIPT_BYTES, wrong)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise wrong(
            _('a transcript is a JSON object with "format": "{format}"').format(format=FORMAT)
        )
    if doc.get("version") != 1:
        said = _("version {version}; this trutnet reads version 1")
        raise wrong(said.format(version=str(doc.get("version"))[:20]))
    table = doc.get("table")
    if not isinstance(table, str) or len(table) != 32:
        raise wrong(_('"table" must be the table id, 32 hex digits'))
    try:
        table_id = bytes.fromhex(table)
    except ValueError:
        raise wrong(_('"table" must be the table id, 32 hex digits')) from None
    entries = _base64_list(doc.get("entries"), "entries", N_("entry {number} is not base64"), wrong)
    chat = _base64_list(
        doc.get("chat", []), "chat", N_("chat message {number} is not base64"), wrong
    )
    signs = _base64_list(
        doc.get("signs", []), "signs", N_("sign message {number} is not base64"), wrong
    )
    evidence = _base64_list(
        doc.get("evidence", []), "evidence", N_("evidence {number} is not base64"), wrong
    )
    if len(evidence) > MAX_EVIDENCE:
        raise wrong(_('"evidence" holds at most {n} entries').format(n=MAX_EVIDENCE))
    return Transcript(table_id, entries, chat, signs, evidence)


def _base64_list(
    items: Any, field: str, what: str, wrong: Callable[[str], StoreError]
) -> list[bytes]:
    """``what``: the message for an item that is not base64 (``{number}``, its index),
    marked for translation and translated here."""
    if not isinstance(items, list) or not all(isinstance(e, str) for e in items):
        raise wrong(_('"{field}" must be a list of base64 strings').format(field=field))
    out = []
    for number, item in enumerate(items):
        try:
            out.append(base64.b64decode(item, validate=True))
        except (ValueError, binascii.Error):
            raise wrong(_(what).format(number=number)) from None
    return out


MAX_SIGN_RECORDS = 4096  # sign messages a seat's folder gives back (a game makes far fewer)
SIGNS_FILE_LIMIT = 16 << 20  # bytes of signs.bin read at most (a sign message is <= 8 KiB)


def _read_records(path: Path, limit: int = -1) -> tuple[list[bytes], int, int]:
    """The whole length-prefixed records of ``path`` (of its first ``limit`` bytes),
    where they end, and the size read."""
    if not path.exists():
        return [], 0, 0
    with path.open("rb") as file:
        data = file.read(limit)
    out, pos = [], 0
    while pos + 4 <= len(data):
        size = int.from_bytes(data[pos : pos + 4], "big")
        if pos + 4 + size > len(data):
            break
        out.append(data[pos + 4 : pos + 4 + size])
        pos += 4 + size
    return out, pos, len(data)


class PeerStore:
    """One seat's files for one table, for resuming after a crash."""

    def __init__(self, directory: Path) -> None:
        self.directory = private_dir(Path(directory), fix_mode=True)
        self.log_path = self.directory / "log.bin"
        self.secrets_path = self.directory / "secrets.json"
        self.signs_path = self.directory / "signs.bin"  # the table's signs it read (9.8)
        self._count: int | None = None
        self._healed: set[Path] = set()  # files whose torn last record was cut off

    def append(self, wire: bytes) -> None:
        self._append(self.log_path, wire)
        if self._count is not None:
            self._count += 1

    def count(self) -> int:
        """How many whole entries the log file holds (cached between appends)."""
        if self._count is None:
            self._count = len(self.entries())
        return self._count

    def entries(self) -> list[bytes]:
        """Entries in order; a torn last record (crash mid-write) is dropped."""
        return _read_records(self.log_path)[0]

    def _append(self, path: Path, record: bytes) -> None:
        """One length-prefixed record at the end of ``path``, on disk before this
        returns (the file healed first, :meth:`_heal`)."""
        if path not in self._healed:
            self._heal(path)
            self._healed.add(path)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, len(record).to_bytes(4, "big") + record)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _heal(self, path: Path) -> None:
        """Before this process's first append to ``path``: a record torn by a crash
        mid-write is cut off (it was never acted on: a record is whole on disk before
        anything follows), so that the next one starts where a reader expects one."""
        records, end, size = _read_records(path)
        if end < size:
            with path.open("r+b") as file:
                file.truncate(end)
                os.fsync(file.fileno())
        if path == self.log_path:
            self._count = len(records)

    def append_sign(self, wire: bytes) -> None:
        """A sign message the table accepted (9.8), kept for a resume."""
        self._append(self.signs_path, wire)

    def signs(self) -> list[bytes]:
        """The sign messages kept, in order (at most :data:`MAX_SIGN_RECORDS`)."""
        return _read_records(self.signs_path, SIGNS_FILE_LIMIT)[0][:MAX_SIGN_RECORDS]

    def save_secrets(self, secrets: dict[str, Any]) -> None:
        _atomic_write(self.secrets_path, json.dumps(secrets).encode(), mode=0o600)

    def load_secrets(self) -> dict[str, Any]:
        try:
            data = json.loads(self.secrets_path.read_text())
        except OSError as exc:
            why = (exc.strerror or type(exc).__name__).lower()
            raise StoreError(
                _("cannot read {path}: {why}").format(path=self.secrets_path, why=why)
            ) from exc
        except ValueError as exc:
            raise StoreError(
                _("cannot read {path}: not JSON").format(path=self.secrets_path)
            ) from exc
        if not isinstance(data, dict):
            raise StoreError(_("{path} is not a secrets file").format(path=self.secrets_path))
        return data
