"""What a seat's folder keeps beside its log and secrets (docs/protocol.md 9.4), so that
a resumed seat finds its table as it left it: ``table.txt`` (the table's id, the broker
it last used, and whether that broker was this process's own embedded one) and
``clock.txt`` (the table's turn clock as the host announced it, 7.11, and whether the
person let a bot decide when their time runs out) and, for a sealed table (9.9),
``table.key`` (its key: 32 bytes, readable by this user only, as the seat's own keys).

The folder is this machine's, but a file in it may be damaged or edited: every reader
refuses what it cannot read with a :class:`~trutnet.store.StoreError` naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path

from trutnet.i18n import _
from trutnet.protocol.clock import ClockError, ClockRule
from trutnet.store import StoreError

TABLE_FILE = "table.txt"
KEY_FILE = "table.key"
CLOCK_FILE = "clock.txt"
BOT_ON_TIMEOUT = "bot-on-timeout"
MAX_FILE = 4096  # bytes: either file is one short line


def write_table_file(folder: Path, table_id: bytes, url: str, own_broker: bool = False) -> None:
    """Where the seat's table is: its id, and the broker it plays on."""
    marker = " own-broker" if own_broker else ""
    (folder / TABLE_FILE).write_text(f"{table_id.hex()} {url}{marker}\n")


def write_clock_file(folder: Path, rule: ClockRule | None, bot_on_timeout: bool) -> None:
    """The table's clock, kept for a resume; no file when the table has none."""
    if rule is None:
        return
    extra = f" {BOT_ON_TIMEOUT}" if bot_on_timeout else ""
    (folder / CLOCK_FILE).write_text(f"{rule.spec()}{extra}\n")


def read_clock_file(folder: Path) -> tuple[ClockRule | None, bool]:
    """The clock the seat's table has (None: none, or a folder from before clocks were
    kept) and whether its person let a bot decide when their time runs out."""
    path = folder / CLOCK_FILE
    if not path.exists():
        return None, False
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE + 1)
        if len(data) > MAX_FILE:
            raise StoreError(_("{file}: longer than a clock's line").format(file=CLOCK_FILE))
        words = data.decode("ascii").split()
        if not words or words[1:] not in ([], [BOT_ON_TIMEOUT]):
            raise StoreError(_("{file}: not a clock's line").format(file=CLOCK_FILE))
        return ClockRule.parse(words[0]), words[1:] == [BOT_ON_TIMEOUT]
    except (OSError, UnicodeDecodeError, ClockError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise StoreError(f"{CLOCK_FILE}: {why}") from exc


def write_table_key(folder: Path, key: bytes) -> None:
    """A sealed table's key, kept for a resume (mode 0600, in the seat's 0700 folder)."""
    path = folder / KEY_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, key)
    finally:
        os.close(fd)


def read_table_key(folder: Path) -> bytes | None:
    """The sealed table's key the folder kept; None for an open table's folder."""
    path = folder / KEY_FILE
    if not path.exists():
        return None
    with path.open("rb") as file:
        key = file.read(MAX_FILE + 1)
    if len(key) != 32:
        raise StoreError(_("{path}: a table key is 32 bytes").format(path=path))
    return key
