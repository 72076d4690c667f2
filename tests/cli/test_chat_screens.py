"""The table's chat as people meet it (docs/protocol.md 9.6): two people on two
machines (network namespaces with no default route, default arguments: Ana runs
``trutnet play``, Bob ``trutnet join``), each on a real terminal at 80x24 in tmux.
They talk, one mutes the other and hears them again, and a hostile client on the LAN
floods the chat with made-up spectators: the screens stay readable and responsive,
show at most the spectators' shared rate, never a forged line, and the two people
still talk. Every wait is on what a screen shows.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time

import pytest

from tests import ROOT
from tests.cli.test_leaving import fits
from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401
from tests.runtime.test_watch import table_of_play
from trutnet.protocol.chat import CROWD_BURST, CROWD_REFILL_SECONDS

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def say(term, text: str) -> None:
    """Type ``text`` on the open chat line, then Enter."""
    term.keys("-l", text)
    term.keys("Enter")


def in_the_game(text: str) -> bool:
    """The game's screen is back: its rule offers the chat, read or with news.

    A flood's last messages can still reach a peer after it left the chat, so its
    rule may count them ("1 new message: Tab shows the chat") instead of "Tab: chat".
    """
    return " say:" not in text and ("Tab: chat" in text or "Tab shows the chat" in text)


@pytest.mark.timeout(300)
def test_two_people_chat_across_two_machines_and_a_flood_changes_nothing(
    tmp_path,
    two_machines_no_route,
    screen,  # noqa: F811
):
    (ns_a, _), (ns_b, _) = two_machines_no_route
    ana_home, bob_home = tmp_path / "ana", tmp_path / "bob"
    ana = screen(("ip", "netns", "exec", ns_a))
    ana.start([*TRUTNET, "play", "--players", "2", "--name", "Ana"], person_env(ana_home), tmp_path)
    ana.wait_for("Lobby", timeout=60)
    table, url = table_of_play(ana_home)
    bob = screen(("ip", "netns", "exec", ns_b))
    bob.start([*TRUTNET, "join", "--name", "Bob"], person_env(bob_home), tmp_path)
    for term in (ana, bob):
        fits(term.wait_for("Your hand:", timeout=120))
        assert "Tab: chat" in term.text()  # the chat's key, on the rule above the log

    # Ana opens the chat and speaks; Bob's rule counts it; he opens it and answers
    ana.keys("Tab")
    text = ana.wait_for(" say:", timeout=10)
    assert "Nothing said yet" in text and "Enter send  Esc back to the game" in text
    say(ana, "bonjour Bob, ça va ?")
    fits(ana.wait_for("Ana: bonjour Bob, ça va ?", timeout=10))
    fits(bob.wait_for("1 new message: Tab shows the chat", timeout=30))
    bob.keys("Tab")
    fits(bob.wait_for("Ana: bonjour Bob, ça va ?", timeout=10))
    say(bob, "oui, et toi ?")
    fits(ana.wait_for("Bob: oui, et toi ?", timeout=30))

    # Ana mutes Bob: what he says is kept, not shown; she hears him again, and it shows
    say(ana, "/mute Bob")
    ana.wait_for("Bob muted: their messages are hidden", timeout=10)
    assert "Bob: oui, et toi ?" not in ana.text()
    say(bob, "tu m'entends ?")
    bob.wait_for("Bob: tu m'entends ?", timeout=30)  # sent: the broker took it
    assert "tu m'entends" not in ana.text()
    say(ana, "/unmute Bob")
    ana.wait_for("Bob is heard again", timeout=10)
    fits(ana.wait_for("Bob: tu m'entends ?", timeout=30))

    # A typo'd command and an over-long line say why, and nothing is sent
    say(bob, "/mute")
    bob.wait_for("/mute NAME: whose messages (/mute Bob)", timeout=10)
    say(bob, "/mute Zoé")
    bob.wait_for("nobody called 'Zoé' at this table", timeout=10)

    # A hostile client on Bob's LAN floods the chat with 8 made-up spectators
    bob.keys("Escape")
    bob.wait_for(in_the_game, timeout=10)
    started = time.monotonic()
    flood = ("-m", "tests.hostile.chat_flooder", url, table, "8", "100")  # 8 keys x 100
    flooder = subprocess.run(
        ["ip", "netns", "exec", ns_b, sys.executable, *flood],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert flooder.returncode == 0 and "flooded 1602" in flooder.stdout, flooder.stderr
    text = bob.wait_for("new message", timeout=30)
    fits(text)
    unread = int(re.search(r"(\d+) new messages?: Tab shows the chat", text).group(1))
    assert 1 <= unread <= CROWD_BURST + (time.monotonic() - started) / CROWD_REFILL_SECONDS + 1
    ana.keys("Escape")
    ana.wait_for(in_the_game, timeout=10)
    ana.keys("Tab")
    text = fits(ana.wait_for("(watching): flood ", timeout=30))
    assert not any("I am the host" in row or "alert" in row for row in text), text
    # the seats still talk, and the screen still takes keys at once
    say(ana, "encore là ?")
    bob.keys("Tab")
    fits(bob.wait_for("Ana: encore là ?", timeout=30))
    say(bob, "oui")
    fits(ana.wait_for("Bob: oui", timeout=30))
    for term in (ana, bob):
        term.keys("Escape")
        term.wait_for(in_the_game, timeout=10)
        term.keys("q")
        term.wait_for("Quit the game? y/n", timeout=10)
        term.keys("y")
        status, text = term.exit_status(timeout=60)
        assert status == 0 and "Traceback" not in text, text
