"""A finished seat's view of its game, kept beside the game's transcript so that
``trutnet replay`` can show the game as that seat saw it, its own cards included.

The view holds the seat's own secrets that show its cards and only them (docs/protocol.md
9.4): its ElGamal secret, which with the shares in the log decrypts the positions dealt
to it, its commitment values, and its sealed choices with their salts. Nothing in it is
new to whoever held the seat, and nothing in it shows another seat's hidden card: that
needs that seat's secret too. It is private all the same (mode 0600, a 0700 folder,
never overwritten), as the hands it shows are the player's.

The file is untrusted input when read back: bounded, then checked field by field
(:class:`~trutnet.store.StoreError` in one line); a view of another seat or game is
caught by the replay itself (its ElGamal key is not the one the log gives the seat).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trutnet.i18n import _
from trutnet.store import StoreError, _exclusive_write, read_json_file

FORMAT = "trutnet-seat-view"
SUFFIX = ".view"  # beside the transcript: ``<table>.json`` and ``<table>.view``
MAX_VIEW_BYTES = 1024 * 1024
MAX_ITEMS = 10_000  # commitment values, sealed choices


@dataclass(frozen=True)
class SeatView:
    """What a seat needs to see its own cards again (see the module)."""

    table_id: bytes
    seat: int
    secrets: dict[str, Any]  # as :meth:`TablePeer.secrets` has them: elgamal, values, sealed


def view_path(transcript: Path) -> Path:
    """Where the view of a transcript's seat is kept."""
    return transcript.with_suffix(SUFFIX)


def save_view(transcript: Path, secrets: dict[str, Any]) -> Path:
    """Keep the view of the seat whose ``secrets`` (a seat's ``secrets.json``) played
    the game of ``transcript``; beside it, never replacing a file."""
    doc = {
        "format": FORMAT,
        "version": 1,
        "table": secrets["table"],
        "seat": secrets["seat"],
        "elgamal": secrets["elgamal"],
        "values": secrets.get("values", {}),
        "sealed": secrets.get("sealed", []),
    }
    return _exclusive_write(view_path(transcript), (json.dumps(doc) + "\n").encode())


def read_view(path: Path) -> SeatView:
    """A seat's view file, checked; :class:`StoreError` saying what is wrong."""

    def wrong(why: str) -> StoreError:
        return StoreError(_("{path} is not a seat's view: {why}").format(path=path, why=why))

    doc = read_json_file(path, MAX_VIEW_BYTES, wrong)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != 1:
        raise wrong(_('a JSON object with "format": "{format}", version 1').format(format=FORMAT))
    table, seat, elgamal = doc.get("table"), doc.get("seat"), doc.get("elgamal")
    values, sealed = doc.get("values"), doc.get("sealed")
    try:
        table_id = bytes.fromhex(table) if isinstance(table, str) else b""
        if len(table_id) != 16:
            raise ValueError
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 64:
            raise ValueError
        if not isinstance(elgamal, str) or not 0 < int(elgamal, 16) < 2**256:
            raise ValueError
        if not isinstance(values, dict) or not isinstance(sealed, list):
            raise ValueError
        if len(values) > MAX_ITEMS or len(sealed) > MAX_ITEMS:
            raise ValueError
        for key, value in values.items():
            int(key), bytes.fromhex(value)
        for commit, salt, action in sealed:
            bytes.fromhex(commit), bytes.fromhex(salt)
            if not isinstance(action, str):
                raise ValueError
    except (ValueError, TypeError, AttributeError):
        raise wrong(_("a field is missing or not of its kind")) from None
    secrets = {"elgamal": elgamal, "values": values, "sealed": sealed}
    return SeatView(table_id, seat, secrets)
