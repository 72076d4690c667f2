"""Truco's signs as a person meets them (K15), in a real terminal at 80x24 in tmux: a
4-player table with three bots; the partner bot's sign is on the person's screen,
``g`` shows the menu in the log's place, a digit makes the sign, the log says so and,
when an opponent's draw catches it, who did; the help names the key; a sign refused
says why; the person leaves with ``q``."""

from __future__ import annotations

import shutil

import pytest

from tests.cli.test_leaving import fits
from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
PLAY = [
    *TRUTNET, "play", "--game", "truco", "--players", "4", "--bots", "3", "--bot", "normal",
    "--bind", "127.0.0.1", "--no-announce", "--name", "Ana",
]  # fmt: skip


@pytest.mark.timeout(240)
def test_a_person_signs_to_a_partner_and_reads_the_partners_sign(tmp_path, screen):  # noqa: F811
    ana = screen()
    ana.start(PLAY, person_env(tmp_path / "ana"), tmp_path)
    until_ana_plays_a_card(ana)
    text = ana.wait_for(partner_signed, timeout=60)  # the partner's sign, on the rule
    assert "Your turn: play a card" in text, text  # still Ana's turn: nothing waits on it
    ana.keys("g")
    text = ana.wait_for(" signs (Esc: back to the game's log) ", timeout=30)
    fits(text)
    assert "1 ancho de espada (raised brows)" in text and "9 nothing (closed eyes)" in text
    assert "1-9 make that sign  Esc back to the game" in text  # nine signs without flor
    ana.keys("x")  # not a sign: said, and the menu stays
    text = ana.wait_for("a digit makes a sign; Esc goes back to the game", timeout=30)
    ana.keys("9")
    text = ana.wait_for("✋ You sign: nothing (closed eyes)", timeout=30)
    fits(text)
    assert " signs (Esc" not in text  # back to the game's log
    assert "Your turn: play a card" in text  # signing is not a turn: still Ana's
    ana.keys("?")
    text = ana.wait_for("g  sign to your partners", timeout=30)
    fits(text)
    ana.keys("Escape")
    ana.keys("q")
    ana.wait_for("Quit the game?", timeout=30)
    ana.keys("y")
    status, text = ana.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text, text


NOT_NOW = "no sign now: you sign while you hold a card and no bet waits for your answer"


def until_ana_plays_a_card(ana) -> str:
    """Ana's screen once she is to play a card (no bet waits on her, she holds cards):
    on the way, a bet waiting for her answer refuses a sign, saying why, and she
    accepts it; an envido to declare, she declares."""
    for _step in range(20):
        text = ana.wait_for(lambda shown: bool(asked(shown)), timeout=120)
        if asked(text) == "play":
            return text
        bar = text.rstrip().splitlines()[-1]
        if asked(text) == "bet":
            ana.keys("g")  # K15: not while the table waits for her own answer
            fits(ana.wait_for(NOT_NOW, timeout=30))
            ana.keys("a")
        elif asked(text) == "summary":
            ana.keys("Enter")
        else:
            ana.keys("d" if "d declare" in bar else "s")
        ana.wait_for_gone(bar, timeout=30)
    raise AssertionError(f"Ana never had a card to play:\n{ana.text()}")


def partner_signed(shown: str) -> bool:
    """The rule above the log names the partner's sign of this hand."""
    return any(
        "✋" in row and "Bot 2: " in row and "Tab: chat" in row for row in shown.splitlines()
    )


def asked(shown: str) -> str:
    """What Ana's screen asks of her: ``play`` a card, answer a ``bet``, ``declare``."""
    bar = shown.rstrip().splitlines()[-1] if shown.strip() else ""
    if "Your turn: play a card" in shown:
        return "play"
    if "a quiero" in bar:
        return "bet"
    if "Enter continue" in bar:  # a hand's summary: Enter, as a person does
        return "summary"
    return "declare" if "d declare" in bar or "s buenas" in bar else ""
