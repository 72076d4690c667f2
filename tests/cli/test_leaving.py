"""When a peer leaves, the screens say so: separate OS processes over a real broker on
loopback, every screen read at 80x24 in tmux, the other side killed (``kill -9``) or
quitting, then coming back with ``join --resume``.

* a seat killed mid-game: the others (a player and a spectator) see who stalled, for
  how long (a spectator who came while the table waited: since it came) and when the
  game is abandoned; then the abandoned game's end at once (no winner, why, the
  transcript, q leaves); the killed seat, resumed, reads that the
  game ended while it was away (``docs/protocol.md`` 7.7);
* a lost host: the joiner and the spectator see the lost broker in one line, no
  prompt, and a key typed meanwhile is refused in one line; the line goes when the
  broker is back;
* Ctrl-C in the lobby, mid-game (after y) and in ``watch`` ends with status 130.

Protocol timers are scaled down (``--stall-timeout``, ``--void-timeout``); every wait
is on what a screen shows, never a sleep.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time

import pytest

from tests.cli.test_person_path import TRUTNET, Screen, person_env
from tests.runtime.test_watch import table_of_play

PLAY = [*TRUTNET, "play", "--bind", "127.0.0.1", "--no-announce"]  # on loopback, unannounced
NO_TMUX = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture
def screens():
    opened: list[Screen] = []

    def make() -> Screen:
        opened.append(Screen())
        return opened[-1]

    yield make
    for s in opened:
        s.close()


def trutnet_pid(term: Screen) -> int:
    """The trutnet process in a terminal (the pane's shell runs it as its child)."""
    return term.trutnet_pid()


def fits(text: str) -> list[str]:
    rows = [r.rstrip() for r in text.rstrip().splitlines()]
    assert len(rows) <= 24 and all(len(r) <= 80 for r in rows), text
    assert "Traceback" not in text, text
    return rows


def play_until(term: Screen, needle: str, timeout: float) -> str:
    """Play this person's turns (a card, Joue ! to a Trut, a pass where Trut or pass is
    asked, Enter after a hand) until ``needle`` is on their screen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = term.text()
        if needle in text:
            return text
        if "▶ Enter" in text or "press Enter" in text:
            term.keys("Enter")
        elif "▶ A Trut!" in text:
            term.keys("j")
        elif "t to Trut" in text and "p to pass" in text:  # a choice (Au Fortial...): pass
            term.keys("p")
        elif "▶" in text:
            term.keys("1")
        time.sleep(0.2)  # the screen's pace: read it again (a poll, not a synchronisation)
    raise AssertionError(f"{needle!r} never came:\n{term.text()}")


@NO_TMUX
@pytest.mark.timeout(300)
def test_a_seat_killed_mid_game_stalls_then_the_game_is_abandoned_on_every_screen(
    tmp_path, screens
):
    ana, bob, eve = (tmp_path / n for n in ("ana", "bob", "eve"))
    timers = ["--stall-timeout", "1", "--void-timeout", "12"]
    host = screens()
    host.start(
        [*PLAY, "--players", "2", "--name", "Ana", *timers],
        person_env(ana),
        tmp_path,
    )
    host.wait_for("Lobby", timeout=60)
    table, url = table_of_play(ana)
    joiner = screens()
    joiner.start(
        [*TRUTNET, "join", "--broker", url, "--table", table, "--name", "Bob", *timers],
        person_env(bob),
        tmp_path,
    )
    joiner.wait_for("Your hand:", timeout=90)
    play_until(host, "Waiting for Bob", timeout=60)  # Ana plays if she leads: now Bob
    watcher = screens()
    watcher.start(
        [*TRUTNET, "watch", "--broker", url, "--table", table, "--name", "Eve", *timers[:2]],
        person_env(eve),
        tmp_path,
    )
    watcher.wait_for("verified:", timeout=60)
    host.wait_for("Watching: Eve", timeout=30)

    os.kill(trutnet_pid(joiner), signal.SIGKILL)  # Bob's machine dies mid-game
    joiner.exit_status(timeout=30)
    text = play_until(host, "No move from Bob for", timeout=90)
    rows = fits(text)
    assert "Waiting for Bob" not in text
    stalled = next(r for r in rows if "No move from Bob for" in r)
    assert "(left, or lost?)" in stalled
    assert re.search(
        r"Abandoned \(no winner\) at \d\d:\d\d:\d\d \(in \d+s\) unless Bob is back", text
    ), text
    # Eve came while the table waited for Bob's first card: she cannot know how long it
    # waited before, and says "since you came". (Her catch-up is judged over by a quiet
    # moment: on a loaded machine the last entries may come after it, and she then
    # counts from them, "for Ns", as before.)
    text = watcher.wait_for("No move from Bob ", timeout=30)
    fits(text)
    assert re.search(r"No move from Bob (since you came, \d+s ago|for \d+s)", text), text
    assert "The players wait for Bob, or vote to abandon the game" in text, text

    for term, who in ((host, "Ana"), (watcher, "Eve")):
        text = term.wait_for("Game over — abandoned, no winner", timeout=60)
        text = term.wait_for("Transcript saved", timeout=30)
        rows = fits(text)
        voters = "you" if who == "Ana" else "Ana"
        flat = " ".join(r.strip() for r in rows)
        assert f"The table waited for Bob (stalled) and {voters} voted to abandon" in flat
        assert rows[0].strip() == "Game over — abandoned, no winner"
        # a player may ask to play again (9.7); a spectator only leaves
        assert rows[-1].strip() == ("r rematch  q quit" if who == "Ana" else "q quit"), text
        assert "Waiting for" not in text and "No move from" not in text
        assert "▶" not in text

    # Bob comes back: his seat reads the log it missed and says how the game ended.
    store = bob / ".local" / "share" / "trutnet" / "tables" / f"{table}-join"
    back = screens()
    back.start([*TRUTNET, "join", "--resume", "--store", str(store)], person_env(bob), tmp_path)
    text = back.wait_for("It ended while you were away", timeout=90)
    rows = fits(text)
    flat = " ".join(r.strip() for r in rows)
    assert "Game over — abandoned, no winner" in text and "▶" not in text
    assert "The table waited for you (stalled) and Ana voted to abandon" in flat
    back.keys("q")
    status, text = back.exit_status(timeout=30)
    assert status == 0 and "Traceback" not in text
    for term, voters in ((host, "you"), (watcher, "Ana")):
        term.keys("q")
        status, text = term.exit_status(timeout=30)
        assert status == 0 and "Traceback" not in text
        said = f"game abandoned: the table waited for Bob (stalled) and {voters} voted"
        assert said in text.replace("\n", " "), text


@NO_TMUX
@pytest.mark.timeout(300)
def test_a_lost_host_is_shown_and_no_move_is_sent_until_it_is_back(tmp_path, screens):
    """The host (its broker in its process) is killed: Bob and the spectator see one
    line naming the lost broker, retrying, and what to do; Bob's turn prompt is gone
    and a card typed meanwhile is refused in one line. The host resumes (its broker
    with it): the line goes away and Bob plays on."""
    ana, bob, eve = (tmp_path / n for n in ("ana", "bob", "eve"))
    host = screens()
    host.start(
        [*PLAY, "--players", "2", "--name", "Ana"],
        person_env(ana),
        tmp_path,
    )
    host.wait_for("Lobby", timeout=60)
    table, url = table_of_play(ana)
    joiner = screens()
    joiner.start(
        [*TRUTNET, "join", "--broker", url, "--table", table, "--name", "Bob"],
        person_env(bob),
        tmp_path,
    )
    watcher = screens()
    watcher.start(
        [*TRUTNET, "watch", "--broker", url, "--table", table, "--name", "Eve"],
        person_env(eve),
        tmp_path,
    )
    host.wait_for("Your hand:", timeout=90)
    watcher.wait_for("verified:", timeout=60)
    text = play_until(host, "Waiting for Bob", timeout=90)  # Bob's turn, then:
    os.kill(trutnet_pid(host), signal.SIGKILL)  # Ana's machine dies, and the broker
    for term in (joiner, watcher):
        term.wait_for("Lost the broker at " + url, timeout=60)
        text = term.wait_for("Wait for the host to come back; gives up at", timeout=10)
        fits(text)
        assert "(host gone?): retrying…" in text, text
        assert "▶" not in text and "Waiting for" not in text
    assert "; nothing you play is sent" in joiner.text()
    assert "nothing you play" not in watcher.text() and "q stop watching" in watcher.text()
    bar = joiner.text().rstrip().splitlines()[-1]
    assert "play" not in bar and bar.strip().endswith("? help  q quit"), bar
    joiner.keys("1")
    text = joiner.wait_for("not sent: no connection to the table", timeout=10)
    fits(text)
    # Bob's machine dies too, and he resumes while no broker answers: no prompt, no move
    os.kill(trutnet_pid(joiner), signal.SIGKILL)
    joiner.exit_status(timeout=30)
    store = bob / ".local" / "share" / "trutnet" / "tables" / f"{table}-join"
    joiner = screens()
    joiner.start([*TRUTNET, "join", "--resume", "--store", str(store)], person_env(bob), tmp_path)
    text = joiner.wait_for("Cannot reach the broker at " + url, timeout=60)
    fits(text)
    assert "Your hand:" in text and "▶" not in text, text
    joiner.keys("1")
    joiner.wait_for("not sent: no connection to the table", timeout=10)

    # Ana comes back: her seat's files, her broker on the same port
    seat = next((ana / ".local" / "share" / "trutnet" / "tables").iterdir()) / "seat-0"
    back = screens()
    back.start([*TRUTNET, "join", "--resume", "--store", str(seat)], person_env(ana), tmp_path)
    back.wait_for("Your hand:", timeout=90)
    for term in (joiner, watcher):
        deadline = time.monotonic() + 60
        while "Lost the broker" in term.text() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "Lost the broker" not in term.text(), term.text()
    play_until(joiner, "▶", timeout=60)  # Bob's prompt is back
    for term in (joiner, watcher, back):
        term.keys("C-c")
    for term in (joiner, back):
        term.wait_for("Quit the game? y/n", timeout=10)
        term.keys("y")
    for term in (joiner, watcher, back):
        status, text = term.exit_status(timeout=30)
        assert status == 130 and "interrupted" in text and "Traceback" not in text, text


@NO_TMUX
@pytest.mark.timeout(120)
def test_ctrl_c_in_the_lobby_ends_with_130_and_q_quits_with_0(tmp_path, screens):
    """Ctrl-C in the lobby of ``play`` leaves at once with one line and status 130;
    ``q`` and ``y`` mid-game leave with status 0; one quit question at a time."""
    lobby = screens()
    lobby.start(
        [*PLAY, "--players", "3"],
        person_env(tmp_path / "a"),
        tmp_path,
    )
    lobby.wait_for("Lobby", timeout=60)
    lobby.keys("C-c")
    status, text = lobby.exit_status(timeout=30)
    assert status == 130 and "trutnet play: interrupted" in text and "Traceback" not in text
    game = screens()
    game.start(
        [*PLAY, "--players", "2", "--bots", "1"],
        person_env(tmp_path / "b"),
        tmp_path,
    )
    game.wait_for("Your hand:", timeout=60)
    game.keys("q")
    game.wait_for("Quit the game? y/n", timeout=10)
    game.keys("q")  # q on the question: still the one question
    text = game.wait_for("Quit the game? y/n", timeout=10)
    assert text.count("Quit the game") == 1 and "quit?" not in text, text
    game.keys("n")
    game.keys("q")
    text = game.wait_for("Quit the game? y/n", timeout=10)
    assert text.count("Quit the game") == 1, text
    game.keys("y")
    status, text = game.exit_status(timeout=30)
    assert status == 0 and "You left the table mid-game" in text and "interrupted" not in text


@NO_TMUX
@pytest.mark.timeout(300)
def test_the_vote_to_abandon_is_shown_to_players_and_spectators(tmp_path, screens):
    """Three players: Bob quits mid-game (q, y); Ana (void timeout 3 s) votes to abandon first, and
    her screen and the spectator's show her vote and the votes needed; Cid (a bot
    process, void timeout 12 s) votes next, and the game is abandoned."""
    ana, bob, eve = (tmp_path / n for n in ("ana", "bob", "eve"))
    host = screens()
    host.start(
        [*PLAY, "--players", "3", "--name", "Ana", "--stall-timeout", "1", "--void-timeout", "3"],
        person_env(ana),
        tmp_path,
    )
    host.wait_for("Lobby", timeout=60)
    table, url = table_of_play(ana)
    where = ["--broker", url, "--table", table]
    joiner = screens()
    joiner.start([*TRUTNET, "join", *where, "--name", "Bob"], person_env(bob), tmp_path)
    host.wait_for("seat 1: Bob", timeout=60)
    cid = screens()
    slow = ["--stall-timeout", "1", "--void-timeout", "12"]  # Cid votes well after Ana
    cid.start(
        [*TRUTNET, "join", *where, "--name", "Cid", "--bot", "random", *slow],
        person_env(tmp_path / "cid"),
        tmp_path,
    )
    joiner.wait_for("Your hand:", timeout=90)
    watcher = screens()
    watcher.start(
        [*TRUTNET, "watch", *where, "--name", "Eve", "--stall-timeout", "1"],
        person_env(eve),
        tmp_path,
    )
    watcher.wait_for("verified:", timeout=60)
    joiner.keys("q")  # Bob leaves the table
    joiner.wait_for("Quit the game? y/n", timeout=10)
    joiner.keys("y")
    status, text = joiner.exit_status(timeout=30)
    assert status == 0 and "You left the table mid-game" in text
    text = play_until(host, "Votes to abandon the game: you (1 of 2 needed)", timeout=120)
    rows = fits(text)
    assert any(re.search(r"⚠ Bob left the table \d+s ago", r) for r in rows), text  # his word
    text = watcher.wait_for("Votes to abandon the game: Ana (1 of 2 needed)", timeout=30)
    fits(text)
    for term, voters in ((host, "you and Cid"), (watcher, "Ana and Cid")):
        text = term.wait_for("Game over — abandoned, no winner", timeout=60)
        flat = " ".join(r.strip() for r in fits(text))
        assert f"The table waited for Bob (stalled) and {voters} voted to abandon" in flat


@NO_TMUX
@pytest.mark.timeout(300)
def test_a_seat_resumed_after_everyone_left_an_abandoned_game_says_it_ended(tmp_path, screens):
    """On an external broker: Bob is killed, the host (a bot, headless) abandons the
    game and leaves. Bob resumes with nobody left to send him the end: the retained
    ``done`` of the host (9.2) names an entry his log lacks, so his screen says the
    game ended without him, shows no prompt, refuses a card, and his seat writes
    nothing and votes on nobody."""
    from tests.network_helpers import spawn
    from trutnet.net.broker import EmbeddedBroker
    from trutnet.store import PeerStore

    broker = EmbeddedBroker("127.0.0.1", 0)
    url = broker.start().url
    try:
        bob = tmp_path / "bob"
        timers = ["--stall-timeout", "1", "--void-timeout", "3", "--linger", "1"]
        ana = ["--name", "Ana", "--store", str(tmp_path / "ana"), *timers]
        host = spawn(["host", "--players", "2", "--broker", url, "--no-announce", "--json", *ana])
        assert host.stdout is not None
        table = next(line for line in host.stdout if '"table"' in line).split('"table": "')[1][:32]
        joiner = screens()
        where = ["--broker", url, "--table", table]
        joiner.start([*TRUTNET, "join", *where, "--name", "Bob"], person_env(bob), tmp_path)
        joiner.wait_for("Your hand:", timeout=90)
        os.kill(trutnet_pid(joiner), signal.SIGKILL)
        out, _ = host.communicate(timeout=120)  # it abandons the game, then leaves
        assert '"abandoned"' in out, out
        store = bob / ".local" / "share" / "trutnet" / "tables" / f"{table}-join"
        entries = PeerStore(store).count()
        back = screens()
        back.start([*TRUTNET, "join", "--resume", "--store", str(store)], person_env(bob), tmp_path)
        text = back.wait_for("Ana ended this game without you", timeout=60)
        fits(text)
        assert "▶" not in text and "Reading how it ended; if nobody sends it, q leaves" in text
        back.keys("1")
        back.wait_for("not sent: the others ended this game", timeout=10)
        assert "No move from" not in back.text()  # no stall on Ana, no vote
        assert PeerStore(store).count() <= entries + 1  # at most what it owed when it came
        back.keys("q")
        back.wait_for("Quit the game? y/n", timeout=10)
        back.keys("y")
        status, text = back.exit_status(timeout=30)
        assert status == 0 and "Traceback" not in text
    finally:
        broker.stop()


def test_what_a_stall_line_says_at_each_step_fits_80_columns():
    """Each step of a stalled seat (7.7), as :func:`stall_text` words it: before the
    vote (when, or that a newcomer may take a partner's seat), an offer, the votes for
    a newcomer or to abandon; the seat's own screen keeps its prompt; 32-character
    names are cut to 80 columns, never wrapped off the screen."""
    from trutnet.client.table_lines import stall_text
    from trutnet.client.view import fit, plain
    from trutnet.runtime.table_health import Stall

    now = time.monotonic()
    names = ["Ana", "Bob", "Cid", "Dan"]

    def said(**changes) -> tuple[str, str]:
        fields = dict(seat=1, since=now - 40, vote_at=None, replaceable=False)
        fields.update(offers=[], votes={}, needed=2)
        fields.update(changes)
        return stall_text(Stall(**fields), names, 0)

    line, then = said(vote_at=now + 80)
    assert line == "⚠ No move from Bob for 40s (left, or lost?)"
    assert said(left=True)[0] == "⚠ Bob left the table 40s ago"  # his seat signed it
    # a spectator that came while the table already waited knows only its own wait
    assert said(since_arrival=True)[0] == "⚠ No move from Bob since you came, 40s ago"
    assert re.fullmatch(
        r"Abandoned \(no winner\) at \d\d:\d\d:\d\d \(in 80s\) unless Bob is back", then
    )
    _, then = said(vote_at=now + 80, replaceable=True)
    assert then.startswith("Abandoned at ") and then.endswith(
        "Bob is back or a newcomer takes the seat"
    )
    assert said(offers=["Eve"])[1] == "Eve offers to take Bob's seat"
    _, then = said(votes={0: "newcomer", 3: "newcomer"}, offers=["Eve"])
    assert then == "Votes for a newcomer to take the seat: you and Dan (2 of 2 needed)"
    _, then = said(votes={2: "abandon"}, vote_at=now - 1)
    assert then == "Votes to abandon the game: Cid (1 of 2 needed)"
    assert said(replaceable=True)[1].startswith("A newcomer may take the seat, or the players")
    assert said()[1] == "The players wait for Bob, or vote to abandon the game"
    # the game is over and Bob has not signed it: closed without him, the result stands
    line, then = said(closing=True, vote_at=now + 80)
    assert line == "⚠ Bob has not signed the result for 40s (left, or lost?)"
    assert re.fullmatch(
        r"Closed without Bob at \d\d:\d\d:\d\d \(in 80s\) unless Bob signs; the result stands",
        then,
    )
    assert said(closing=True, left=True)[0] == "⚠ Bob left before signing the result, 40s ago"
    _, then = said(closing=True, votes={2: "abandon"}, vote_at=now - 1)
    assert then == "Votes to close the game without Bob: Cid (1 of 2 needed)"
    assert said(closing=True)[1] == "The players wait for Bob, or close the game without them"
    line, then = stall_text(Stall(0, now - 9, None, False, [], {}, 1), names, 0)
    assert line == "" and then.startswith("The table has waited 9s for you: play")
    names[:] = ["A" * 32, "B" * 32, "C" * 32, "D" * 32]
    for text in [*said(votes={0: "abandon", 2: "abandon", 3: "abandon"}), *said(offers=["E" * 20])]:
        assert len(plain([fit([("", " " + text)])])) <= 80


def test_a_host_back_from_its_files_reads_that_its_own_broker_starts_again():
    """A resumed host whose table ran on its own embedded broker starts that broker
    again (9.3): while it is not up, the screen says so, not "wait for the host" (the
    person is the host); another's broker is still the host's."""
    import asyncio
    from types import SimpleNamespace

    from trutnet.client.table_lines import lost_text
    from trutnet.net.broker import parse_broker_url
    from trutnet.runtime.table_health import connection_of

    url = "mqtt://127.0.0.1:18830"
    endpoint = parse_broker_url(url)

    def table(own: object) -> SimpleNamespace:
        link = SimpleNamespace(
            connected=asyncio.Event(), endpoint=endpoint, disconnected_since=None
        )
        return SimpleNamespace(
            link=link,
            running=True,
            done=lambda: False,
            succession=SimpleNamespace(base_endpoints=[endpoint], own_broker=own),
            started=time.monotonic(),
            connected_once=False,
            last_progress=time.monotonic(),
            options=SimpleNamespace(give_up_after=60.0, follow_timeout=30.0),
            local_seats=lambda: {0},
        )

    mine = connection_of(table(parse_broker_url(url)))
    assert mine is not None and mine.own
    line, then = lost_text(mine, spectator=False)
    assert line.startswith(f"✗ Starting this table's broker again at {url}"), line
    assert "host" not in then and "nothing you play is sent" in then, then
    theirs = connection_of(table(None))
    assert theirs is not None and not theirs.own
    assert "Wait for the host" in lost_text(theirs, spectator=False)[1]
