"""The terminal client for a seat (:func:`seat_screen`) and what a person reads once
the game is over and the screen is gone (:func:`game_over`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from trutnet.cli.arguments import Refused
from trutnet.cli.folders import tidy_table_folder
from trutnet.cli.games import ChoiceError
from trutnet.cli.running import stopped_said
from trutnet.i18n import N_, _
from trutnet.runtime.seat_process import SeatResult
from trutnet.selfplay import who_won

PLAY_ELSE = N_("run it in a terminal, or let a bot play the seat with --bot KIND")


def need_terminal(what: str = PLAY_ELSE) -> None:
    """:class:`ChoiceError` (status 2) when standard input is not a terminal: a screen
    reads its keys there (``what``: what else the command can do instead), said before
    the command reaches a broker or opens a table."""
    if not sys.stdin.isatty():
        said = _("the table's screen needs a terminal, and standard input is not one: {what}")
        raise ChoiceError(said.format(what=_(what)))


def seat_screen(game: str, table_name: str, players: int, about: str = "") -> Any:
    """The terminal client for a seat at a table of ``game``: :class:`ChoiceError` when
    no plugin gives that game a screen."""
    from trutnet.client.app import TableApp
    from trutnet.client.frontend import NoFrontend

    need_terminal()  # (play says so before it opens a table)
    try:
        return TableApp(table_name, players, game=game, about=about)
    except NoFrontend as exc:
        raise ChoiceError(_("{problem}: play it with --bot KIND").format(problem=exc)) from None


def game_over(result: SeatResult, ui: Any, seat: Path | None = None) -> None:
    """What a person reads once the game is over and the screen is gone: who won (or
    who the table stopped on: then :class:`Refused`, status 1, after the rest), then
    where the transcript is, the path on a line of its own (a terminal cuts no path).
    ``seat``: the seat's folder, removed with its table's folder once the transcript
    holds the game (:func:`tidy_table_folder`); a folder that stays is printed too."""
    if result.halted is not None:  # a cheat caught (7.5): who, and what they did
        print(stopped_said(result))
    else:
        won = who_won(result.teams, result.winner, ui.info.names)
        print(_("game over: {result}").format(result=won))
    transcript = Path(ui.info.transcript) if ui.info.transcript else None
    if transcript is not None:
        print(_("The transcript (trutnet verify FILE checks it) is saved in:"))
        print(f"  {transcript}")
    if seat is not None and seat.exists():
        kept = tidy_table_folder(seat, transcript, result)
        if kept is not None:
            print(_("This seat's files are kept in:"))
            print(f"  {kept}")
    if result.halted is not None:
        raise Refused("", 1)  # the command failed: the game did not end
