"""What a seat's folder keeps beside its log and secrets (docs/protocol.md 9.4), so that
a resumed seat finds its table as it left it: ``table.txt`` (the table's id, the broker
it last used, and whether that broker was this process's own embedded one) and
``clock.txt`` (the table's turn clock as the host announced it, 7.11, and whether the
person let a bot decide when their time runs out).

The folder is this machine's, but a file in it may be damaged or edited: every reader
refuses what it cannot read with a :class:`~trutnet.store.StoreError` naming the file.
"""

from __future__ import annotations

from pathlib import Path

from trutnet.i18n import _
from trutnet.protocol.clock import ClockError, ClockRule
from trutnet.store import StoreError

TABLE_FILE = "table.txt"
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
