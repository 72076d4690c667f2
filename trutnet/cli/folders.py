"""The person's own folders and names: their key (``~/.config/trutnet``), the data
folder (transcripts in ``games``, seats' files in ``tables``), the seats left mid-game
and the saved games (``trutnet games``), the name a person gets at a table, and a
``--store`` that cannot hold a seat's files, refused in one line. A table's folder is
removed once its game is saved (:func:`tidy_table_folder`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any

from trutnet.crypto.identity import Identity
from trutnet.i18n import _
from trutnet.keystore import load_or_create_identity
from trutnet.protocol.lobby import MAX_NAME
from trutnet.runtime.seat_process import SeatResult
from trutnet.store import StoreError, private_dir


def person_name() -> str:
    """The name a person gets at a table unless they give one: their login name, else
    this machine's name (each cut to what the lobby accepts); "Player" only when
    neither can be had."""
    import getpass
    import socket

    candidates = []
    with contextlib.suppress(Exception):  # no login name in the environment or passwd
        candidates.append(getpass.getuser())
    with contextlib.suppress(OSError):
        candidates.append(socket.gethostname().split(".")[0])
    for candidate in candidates:
        name = "".join(c for c in candidate if c.isprintable()).strip()[:MAX_NAME]
        if name:
            return name
    return "Player"


def player_identity() -> Identity:
    """The player's own key, the same for every game (``~/.config/trutnet``), so that
    others can recognise its fingerprint. Created with mode 0600, in a 0700 folder."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    folder = private_dir(Path(base) / "trutnet", fix_mode=True)
    return load_or_create_identity(folder / "identity.key")


def data_dir() -> Path:
    """trutnet's own data folder (transcripts in ``games``, seats' files in ``tables``),
    mode 0700 with its subfolders, also when an older version made them 0755."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    root = private_dir(Path(base) / "trutnet", fix_mode=True)
    for sub in ("games", "tables"):
        private_dir(root / sub, fix_mode=True)
    return root


def tidy_table_folder(seat: Path, transcript: Path | None, result: SeatResult) -> Path | None:
    """Remove the folder of a table whose game is over once its transcript is saved and
    holds the game the seat logged: every entry of the table's log, each one in the
    seat's own file (the seat's keys, secrets and log, and its bots':
    megabytes a game, of no use once the game is over); None once removed. The seat's
    view is kept beside the transcript first (:mod:`trutnet.seat_views`: what ``trutnet
    replay`` needs to show the game with this seat's cards). Only a
    folder that trutnet made under its own ``tables`` folder: one given with
    ``--store`` is the person's. A table that stopped without its end (no progress, a
    cheat caught) keeps its folder: the folder to return with, or to look into."""
    from trutnet.seat_views import save_view
    from trutnet.store import PeerStore, load_transcript

    tables = (data_dir() / "tables").resolve()
    seat = seat.resolve()
    if not seat.is_relative_to(tables) or seat == tables:
        return seat
    folder = tables / seat.relative_to(tables).parts[0]
    if transcript is None or result.halted is not None or not (seat / "log.bin").exists():
        return folder
    try:
        _table, wires = load_transcript(transcript)
        logged = PeerStore(seat).entries()
    except (StoreError, OSError):
        return folder
    if len(wires) != result.entries or not set(wires) <= set(logged):
        return folder  # not the whole game this seat logged: keep what it has
    with contextlib.suppress(StoreError, OSError, KeyError, TypeError):
        save_view(transcript, PeerStore(seat).load_secrets())  # what replay shows this seat
    shutil.rmtree(folder, ignore_errors=True)
    return folder if folder.exists() else None


def _about_log(table: str, first: bytes) -> str:
    """A table's game and players, from its ``open`` entry: ``trut: alice, Bot 2``."""
    from trutnet.protocol.envelope import MessageError, parse_entry

    try:
        entry = parse_entry(first, bytes.fromhex(table))
        game, names = entry.body.get("game"), entry.body.get("names")
        if entry.type == "open" and isinstance(game, str) and isinstance(names, list):
            shown = ", ".join(str(n) for n in names)
            return "".join(c if c.isprintable() else "?" for c in f"{game}: {shown}")[:60]
    except (MessageError, ValueError, AttributeError):
        pass
    return _("table {id}").format(id=table[:8])


def _when(path: Path) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))


def unfinished_seats() -> list[tuple[Path, str]]:
    """The seats this person left mid-game (newest first), each with a line saying
    when, which game and who: the folders of ``tables`` that still hold a seat's log
    (a table's folder is removed once its game is saved, :func:`tidy_table_folder`)."""
    from trutnet.store import PeerStore

    found = []
    for folder in (data_dir() / "tables").iterdir():
        for seat in (folder / "seat-0", folder):
            if (seat / "log.bin").is_file() and (seat / "table.txt").is_file():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    table = (seat / "table.txt").read_text().split()[0]
                    entries = PeerStore(seat).entries()
                    about = (
                        _about_log(table, entries[0])
                        if entries
                        else _("table {id}").format(id=table[:8])
                    )
                    found.append((seat, f"{_when(seat / 'log.bin')}  {about}"))
                break
    return sorted(found, key=lambda f: f[1], reverse=True)


def resume_alone(store: Path) -> bool:
    """Whether ``trutnet join --resume`` alone (no ``--store``) would find the seat in
    ``store`` once left: no other seat is left mid-game."""
    here = store.resolve()
    return all(seat.resolve() in (here, here / "seat-0") for seat, _about in unfinished_seats())


def saved_games() -> list[tuple[Path, str]]:
    """The transcripts saved in ``games`` (newest first), each with a line saying when,
    which game and who."""
    from trutnet.store import load_transcript

    found = []
    for path in (data_dir() / "games").glob("*.json"):
        try:
            table_id, wires = load_transcript(path)
            about = _about_log(table_id.hex(), wires[0]) if wires else _("empty")
            found.append((path, f"{_when(path)}  {about}"))
        except (StoreError, OSError):
            found.append((path, _("not a transcript")))
    return sorted(found, key=lambda f: f[1], reverse=True)


def print_seats(seats: list[tuple[Path, str]], out: Any = None) -> None:
    for seat, about in seats:
        print(f"  {about}", file=out)
        print(f"    trutnet join --resume --store {shlex.quote(str(seat))}", file=out)


def cmd_games(args: argparse.Namespace) -> int:
    """The seats to come back to and the saved games, with the command for each."""
    seats, games = unfinished_seats(), saved_games()
    if seats:
        print(_("Seats you left mid-game (come back with the command under each):"))
        print_seats(seats)
    if games:
        print(_("Saved games (trutnet replay FILE steps through one; verify FILE checks it):"))
        for path, about in games:
            print(f"  {about}")
            print(f"    {path}")
    if not seats and not games:
        print(_("No seat to come back to and no saved game in {folder}").format(folder=data_dir()))
    return 0


def store_error(command: str, store: Path | None) -> str | None:
    """Why ``--store`` cannot hold a seat's files, in one line; None if it can."""
    if store is None:
        return None
    level = store.absolute()
    while not level.exists() and level != level.parent:
        level = level.parent
    if not level.is_dir():
        said = _("trutnet {command}: cannot use --store {store}: {level} is not a folder")
        return said.format(command=command, store=store, level=level)
    if not os.access(level, os.W_OK | os.X_OK):
        said = _("trutnet {command}: cannot use --store {store}: {level} is not writable")
        return said.format(command=command, store=store, level=level)
    try:  # os.access says yes to root everywhere: make a folder there to know (/proc...)
        os.rmdir(tempfile.mkdtemp(prefix=".trutnet-", dir=level))
    except OSError as exc:
        said = _("trutnet {command}: cannot use --store {store}: {level}: {why}")
        return said.format(command=command, store=store, level=level, why=exc.strerror)
    return None
