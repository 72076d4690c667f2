"""What the log and the message row say of each ``sign`` event (9.8), from the seat
that made the sign, a partner, the catcher, another seat and a spectator."""

from __future__ import annotations

import trutnet.games.truco  # noqa: F401  (registers the game)
from trutnet.client.frontend import frontend_for
from trutnet.client.sign_panel import sign_line

NAMES = ["Ana", "Bob", "Cid", "Dan"]


def said(what: str, me: int | None, card: str | None = None, by: int | None = None):
    data = {"seat": 1, "number": 0, "period": 0, "what": what, "by": by, "card": card}
    return sign_line(data, me, NAMES, frontend_for("truco"))


def test_each_sign_event_is_said_to_whom_it_concerns():
    line, mine = said("made", 1, "3")  # the signer
    assert mine and "You sign: " in line
    line, mine = said("made", 3, "3")  # its partner
    assert mine and "Bob signs to you: " in line
    line, mine = said("made", 0)  # an opponent: that a sign was made, not which
    assert not mine and line.endswith("Bob makes a sign")
    assert said("missed", 0, by=0) is None  # a draw that missed: not in the log
    assert "You caught Bob's sign" in said("caught", 0, by=0)[0]
    line, mine = said("shown", 0, "2", by=0)
    assert mine and "Bob's sign, caught: " in line
    assert said("shown", 2, "2", by=0) is None  # a card shown to another seat
    # a caught sign not shown in time (its signer withholds it, or is offline)
    line, mine = said("withheld", 0, by=0)
    assert mine and line.endswith("Bob has not shown you the sign you caught")
    line, mine = said("withheld", 2, by=0)
    assert not mine and line.endswith("Bob has not shown Ana the sign caught")
    line, mine = said("withheld", None, by=0)  # a spectator's log says it too
    assert not mine and "Bob has not shown Ana" in line


def test_a_partners_sign_stays_once_on_the_rule_when_an_opponent_is_shown_it():
    """The partner's sign is on the rule above the log once: the card shown to an
    opponent that caught it (an event this seat can read, being the partner) does not
    add it again; a sign this seat caught is added when it is shown to this seat."""
    from types import SimpleNamespace

    from trutnet.client.sign_panel import SignPanel
    from trutnet.client.view import TableInfo, told_this_round

    info = TableInfo(NAMES, [""] * 4, me=0)
    info.round_now = 0
    screen = SimpleNamespace(
        info=info, frontend=frontend_for("truco"), _say=lambda line: None, _state=lambda: None
    )
    panel = SignPanel(screen)
    sign = {"seat": 2, "number": 0, "period": 0, "card": "1b"}
    panel.heard({**sign, "what": "made", "by": None})  # the partner's: Ana is shown it
    panel.heard({**sign, "what": "caught", "by": 1})
    panel.heard({**sign, "what": "shown", "by": 1})  # to Bob, who caught it
    assert len(info.signs_told) == 1 and told_this_round(info).count("Cid") == 1
    caught = {"seat": 3, "number": 0, "period": 0, "card": "3"}
    panel.heard({**caught, "what": "made", "by": None, "card": None})
    panel.heard({**caught, "what": "shown", "by": 0})  # Ana caught Dan's sign
    assert [told.seat for told, _words in info.signs_told] == [2, 3]
    # a resumed seat is told a sign it caught as made (its card known) and as shown
    again = {"seat": 1, "number": 0, "period": 0, "card": "2"}
    panel.heard({**again, "what": "made", "by": None})
    panel.heard({**again, "what": "shown", "by": 0})
    assert [told.seat for told, _words in info.signs_told] == [2, 3, 1]


def test_the_key_bar_of_the_sign_menu_names_its_keys():
    from trutnet.client.view import TableInfo, key_bar

    info = TableInfo(NAMES, [""] * 4, me=0)
    for count, keys in ((9, "1-9"), (10, "1-0")):  # with flor, the tenth sign is on 0
        info.sign_menu = [(str((k + 1) % 10), f"s{k}", "words") for k in range(count)]
        assert key_bar(frontend_for("truco"), None, info).startswith(f" {keys} make that sign")
