"""Signs on a table's screen (:class:`SignPanel`; ``docs/protocol.md`` 9.8): the
game's sign key (``Frontend.sign_key``, Truco's ``g``) shows its menu of signs in the
log's place, a digit makes one, Esc (or the sign key) goes back to the game. The
news of every sign (who signed, who caught it, and the card when this seat may know
it) goes to the game's log, and to the message row when it is this seat's to know.
What a sign may be, and when, is the game's (``GameState.signs``); who learns it is
the table's (:mod:`trutnet.protocol.signs`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from trutnet.client.view import TableInfo, fit, text_width
from trutnet.engine.hidden import Told
from trutnet.i18n import N_, _
from trutnet.runtime.table_signs import NOT_NOW

if TYPE_CHECKING:
    from trutnet.client.app import TableApp

SIGN_KEYS = tuple("1234567890")
MARK = "✋"
NO_SIGNS = N_("this game has no signs")


class SignPanel:
    """The signs of one screen: the menu shown (in the screen's
    :class:`~trutnet.client.view.TableInfo`) and the news of each sign."""

    def __init__(self, screen: TableApp) -> None:
        self.screen = screen
        self._on_rule: set[tuple[int, int, int]] = set()  # (seat, number, period) told

    @property
    def info(self) -> Any:
        return self.screen.info

    def _signs(self) -> Any:
        return getattr(self.screen.runtime, "signs", None)

    def open(self) -> None:
        """The sign key: the menu, if this seat may sign now; else why not, on the
        message row."""
        signs, frontend = self._signs(), self.screen.frontend
        if self.info.me is None:
            self.screen._say(_("a spectator makes no signs; it sees who signs and who catches"))
            return
        rules = signs.may_sign() if signs is not None else None
        if rules is None or frontend is None:
            state = self.screen._state()
            has_signs = state is not None and any(
                state.signs(seat) is not None for seat in range(state.game.num_players())
            )
            self.screen._say(_(NOT_NOW) if has_signs or signs is None else _(NO_SIGNS))
            return
        self.info.sign_menu = [
            (key, card, frontend.sign_words(card))
            for key, card in zip(SIGN_KEYS, rules.menu.cards, strict=False)
        ]
        self.info.sign_note = ""
        self.screen.chat.close()
        self.screen.help = False

    def close(self) -> None:
        self.info.sign_menu = []

    def make(self, key: str) -> None:
        """A digit while the menu is up: that sign, or why it cannot be made now."""
        signs = self._signs()
        chosen = [card for k, card, _words in self.info.sign_menu if k == key]
        if signs is None or not chosen:
            self.info.sign_note = _("'{key}' is no sign (the signs have their keys)").format(
                key=key
            )
            return
        why = signs.sign(chosen[0])
        if why is not None:
            self.info.sign_note = why
            return
        self.close()

    def heard(self, data: dict[str, Any]) -> None:
        """A ``sign`` event: a line in the game's log, and on the message row when it
        tells this seat something; a sign shown to this seat stays on the rule above
        the log for its round."""
        frontend, info, state = self.screen.frontend, self.info, self.screen._state()
        if state is not None and not info.names:  # a resumed seat, before its first draw
            peer = self.screen.seat.peer
            info.me, info.names = peer.seat, list(peer.replica.names)
            frontend = frontend or self.screen._frontend(state)
        if frontend is None:
            return
        card, seat, what = data.get("card"), data["seat"], data["what"]
        key = (seat, data.get("number", 0), data["period"])
        if (
            card is not None
            and seat != info.me
            and key not in self._on_rule
            and (what == "made" or (what == "shown" and data.get("by") == info.me))
        ):  # a partner's sign, or one this seat caught: once (not at each catcher's show)
            self._on_rule.add(key)
            told = f"{seat_label(info.names, seat)}: {frontend.sign_words(card)}"
            sign = Told(seat, data["period"], card)
            info.signs_told = [*info.signs_told[-5:], (sign, told)]
        said = sign_line(data, info.me, info.names, frontend)
        if said is None:
            return
        line, mine = said
        info.log.append(line)
        if mine:
            self.screen._say(line)

    def keys(self) -> KeyBindings:
        """The keys while the menu is up: a digit signs, Esc or the sign key goes back,
        Ctrl-C goes back and means what it means on the screen; any other key says so."""
        kb = KeyBindings()
        frontend = self.screen.frontend

        @kb.add(Keys.Any)
        def _other(event: KeyPressEvent) -> None:
            if event.data in SIGN_KEYS:
                self.make(event.data)
            else:
                self.info.sign_note = _("a digit makes a sign; Esc goes back to the game")

        @kb.add("escape")
        def _back(event: KeyPressEvent) -> None:
            self.close()

        if frontend is not None and frontend.sign_key:
            kb.add(frontend.sign_key)(_back)

        @kb.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            self.close()
            self.screen.interrupt()

        return kb


def sign_rows(info: TableInfo, width: int, height: int) -> list[str]:
    """The menu of signs in two columns, in the log's place, then what became of the
    last key pressed there."""
    menu = [f" {key} {words}" for key, _card, words in info.sign_menu]
    rows = height - 1
    half = max(1, width // 2)
    cells = ["".join(text for _style, text in fit([("", cell)], half - 1)) for cell in menu]
    lines = []
    for row in range(rows):
        left = cells[row] if row < len(cells) else ""
        right = cells[row + rows] if row + rows < len(cells) else ""
        lines.append(left + " " * max(0, half - text_width(left)) + right)
    said = _(" Your partners see the sign you make; an opponent may catch it.")
    return [*lines, f" ⚠ {info.sign_note}" if info.sign_note else said]


def seat_label(names: list[str], seat: int | None) -> str:
    return names[seat] if seat is not None and 0 <= seat < len(names) else f"seat {seat}"


def sign_line(
    data: dict[str, Any], me: int | None, names: list[str], frontend: Any
) -> tuple[str, bool] | None:
    """A ``sign`` event as the log of seat ``me`` (None: a spectator) says it, and
    whether it tells that seat something (its message row says it too); None: a
    draw that missed, or a card shown to another seat, which the log leaves out."""
    seat, by, card = data["seat"], data.get("by"), data.get("card")
    words = frontend.sign_words(card) if card is not None else ""
    signer, watcher = seat_label(names, seat), seat_label(names, by)
    line, mine = None, False
    if data["what"] == "made":
        if seat == me:  # a replay of a seat's view does not know its own signs' cards
            said = _("You sign: {sign}").format(sign=words) if card else _("You make a sign")
            line, mine = said, True
        elif card is not None:
            line, mine = _("{name} signs to you: {sign}").format(name=signer, sign=words), True
        else:
            line = _("{name} makes a sign").format(name=signer)
    elif data["what"] == "caught":
        if by == me:
            line = _("You caught {name}'s sign").format(name=signer)
        elif seat == me:
            line, mine = _("{watcher} caught your sign").format(watcher=watcher), True
        else:
            line = _("{watcher} caught {name}'s sign").format(watcher=watcher, name=signer)
    elif data["what"] == "shown" and by == me and card is not None:
        line, mine = _("{name}'s sign, caught: {sign}").format(name=signer, sign=words), True
    elif data["what"] == "withheld" and by == me:
        line = _("{name} has not shown you the sign you caught").format(name=signer)
        mine = True
    elif data["what"] == "withheld":
        line = _("{name} has not shown {watcher} the sign caught").format(
            name=signer, watcher=watcher
        )
    return None if line is None else (f"{MARK} {line}", mine)
