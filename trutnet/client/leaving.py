"""What a person reads when they leave a table mid-game (:func:`left_mid_game`):
where their seat's files are, the command that brings them back, and what becomes of
the bots their program seated.
"""

from __future__ import annotations

import shlex
import textwrap
from pathlib import Path
from typing import Any

from trutnet.i18n import _, ngettext
from trutnet.runtime.local_seat import LocalSeat


def left_mid_game(seat: LocalSeat, runtime: Any, resume_alone: bool) -> str:
    """Where ``seat`` is and how to come back to it; ``resume_alone``: no other seat
    was left mid-game, so ``join --resume`` alone finds this one."""
    store = seat.store  # where this seat's files are, if it has any
    folder = None if store is None else Path(store.directory).resolve()
    peer = seat.peer
    if peer is None or peer.replica.phase == "open" or folder is None:
        return _("You left before the game started.")
    lines = [_("You left the table mid-game. Your seat's files are in:"), f"  {folder}"]
    bots = [s for s in runtime.seats[1:] if s.bot is not None] if runtime else []
    # a command that fits in 80 columns, where the folder's path does not
    where = "" if resume_alone else f" --store {shlex.quote(str(folder))}"
    lines += [
        _("To come back to this game (as long as the others are still playing):"),
        f"  trutnet join --resume{where}",
    ]
    if bots:
        n = len(bots)
        if all(s.store is not None for s in bots):  # their keys are kept: they return
            said = ngettext(
                "The bot seated by this program ({names}) stopped with it and comes back"
                " when you resume.",
                "The {n} bots seated by this program ({names}) stopped with it and come back"
                " when you resume.",
                n,
            )
        else:
            said = ngettext(
                "The bot seated by this program ({names}) stopped with it (a bot's key is"
                " not kept): the others wait for it, then a newcomer they accept takes the"
                " seat or the game is abandoned (docs/protocol.md 7.7).",
                "The {n} bots seated by this program ({names}) stopped with it (a bot's key"
                " is not kept): the others wait for them, then a newcomer they accept takes"
                " the seat or the game is abandoned (docs/protocol.md 7.7).",
                n,
            )
        said = said.format(n=n, names=", ".join(_name_of(s) for s in bots))
        # prose: wrapped at words (the folder and command are not)
        lines.append(textwrap.fill(said, width=79, break_long_words=False))
    return "\n".join(lines)


def _name_of(seat: LocalSeat) -> str:
    """A local seat's name at the table (the log's, once the table is open)."""
    peer = seat.peer
    names = peer.replica.names if peer is not None else []
    return names[peer.seat] if peer is not None and 0 <= peer.seat < len(names) else seat.name
