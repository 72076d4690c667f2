"""The terminal client for a seat (:func:`seat_screen`) and what a person reads once
the game is over and the screen is gone (:func:`game_over`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trutnet.cli.folders import tidy_table_folder
from trutnet.cli.games import ChoiceError
from trutnet.i18n import _
from trutnet.runtime.seat_process import SeatResult
from trutnet.selfplay import who_won


def seat_screen(game: str, table_name: str, players: int, about: str = "") -> Any:
    """The terminal client for a seat at a table of ``game``: :class:`ChoiceError` when
    no plugin gives that game a screen."""
    from trutnet.client.app import TableApp
    from trutnet.client.frontend import NoFrontend

    try:
        return TableApp(table_name, players, game=game, about=about)
    except NoFrontend as exc:
        raise ChoiceError(_("{problem}: play it with --bot KIND").format(problem=exc)) from None


def game_over(result: SeatResult, ui: Any, seat: Path | None = None) -> None:
    """What a person reads once the game is over and the screen is gone: who won, then
    where the transcript is, the path on a line of its own (a terminal cuts no path).
    ``seat``: the seat's folder, removed with its table's folder once the transcript
    holds the game (:func:`tidy_table_folder`); a folder that stays is printed too."""
    print(
        _("game over: {result}").format(result=who_won(result.teams, result.winner, ui.info.names))
    )
    transcript = Path(ui.info.transcript) if ui.info.transcript else None
    if transcript is not None:
        print(_("The transcript (trutnet verify FILE checks it) is saved in:"))
        print(f"  {transcript}")
    if seat is not None and seat.exists():
        kept = tidy_table_folder(seat, transcript, result)
        if kept is not None:
            print(_("This seat's files are kept in:"))
            print(f"  {kept}")
