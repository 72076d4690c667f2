"""Hints (issue 21, item 4): the ``i`` key asks the search bot what it would play for
the person's seat, from the seat's own replica, and says why in one line; a table
whose host asks for no hints says so in the lobby, and the key then asks nothing."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

import pytest
from prompt_toolkit.output import DummyOutput

from tests.tables import new_memory_table
from trutnet.bots import make_bot
from trutnet.bots.base import decide
from trutnet.client.app import TableApp
from trutnet.client.frontend import frontend_for
from trutnet.client.hint import Hint, hint_for
from trutnet.client.lobby_view import lobby_lines
from trutnet.client.view import TableInfo, plain
from trutnet.engine import make_game
from trutnet.games.trut.rules import TrutConfig, TrutGame
from trutnet.memory_table import step


def at_a_choice(seat: int = 0):
    """A 2-player table whose ``seat`` has a card to play among several."""
    table = new_memory_table(TrutGame(TrutConfig(2)), "hint", ["heuristic"] * 2)
    while True:
        replica = table.peers[seat].replica
        state = replica.state
        if (
            state is not None
            and replica.phase == "game"
            and state.current_seat() == seat
            and len(state.observation(seat).legal) > 1
        ):
            return table
        assert step(table)


def test_a_hint_is_the_search_bots_choice_at_the_seats_replica_and_says_why():
    table = at_a_choice()
    peer = table.peers[0]
    state = peer.replica.state
    hint = hint_for("trut", state, 0, seed=5, kind="search:samples=8")
    expected = decide(make_bot("trut", "search:samples=8", random.Random(5)), state, 0)
    assert hint.action == str(expected) and hint.samples == 8
    assert hint.outlook is not None and 0 <= hint.outlook <= 1
    assert hint.next_action is not None and hint.next_action != hint.action
    line = hint.line()
    assert line.startswith(f"Hint: {hint.action} — ") and "% over 8 deals" in line
    assert f" (next best: {hint.next_action}, " in line and line.endswith("%)")
    # the same seat, state and seed: the same hint (nothing but the seat's view in it)
    assert hint_for("trut", state, 0, seed=5, kind="search:samples=8") == hint
    assert (
        Hint("play 7h", 0).line() == "Hint: play 7h (the only move, or the game's own bot's choice)"
    )


def test_a_hint_fits_the_message_row_dropping_the_least_needed_words_first():
    """A hint is one line of the 80-column screen: with long move names (Lutin & Troll's
    cards, say) the next best move goes first, then the number of deals; the move and
    its chance always stay."""
    long = {"a": "take Mandragore (key m)", "b": "take Korrigan 4 (key 4)"}
    hint = Hint("a", 64, 0.48, "b", 0.45)
    full = hint.line(long.get, width=200)
    assert full == (
        "Hint: take Mandragore (key m) — 48% over 64 deals "
        "(next best: take Korrigan 4 (key 4), 45%)"
    )
    assert (
        len(full) > 79
        and hint.line(long.get) == "Hint: take Mandragore (key m) — 48% over 64 deals"
    )
    assert hint.line(long.get, width=40) == "Hint: take Mandragore (key m) — 48%"
    short = Hint("play 7h", 64, 0.5, "play 8h", 0.4).line()
    assert short == "Hint: play 7h — 50% over 64 deals (next best: play 8h, 40%)"


def test_the_key_asks_only_on_the_persons_turn_and_not_where_the_table_says_no():
    table = at_a_choice()
    ui = TableApp("Test table", 2, output=DummyOutput(), game="trut")
    ui.seat = SimpleNamespace(store=None, peer=table.peers[0], pending=None)
    ui.info.me = 0
    ui.hint()
    # a card as the hand shows it, with its key (or one of the game's words)
    said = r"Hint: (play \S+[♠♥♦♣] \(key \d\)|Trut \(key t\)|pass \(key p\)) — \d+% over \d+ deals"
    assert re.match(said, ui.info.message), ui.info.message
    assert len(ui.info.message) < 80  # the message row, whole
    ui.info.hints = False
    ui.hint()
    assert ui.info.message == "hints are off at this table (the host's choice, said in the lobby)"
    other = TableApp("Test table", 2, output=DummyOutput(), game="trut")
    other.seat = SimpleNamespace(store=None, peer=table.peers[1], pending=None)
    other.info.me = 1
    other.hint()
    assert other.info.message == "a hint is for your turn"
    lobby = TableApp("Test table", 2, output=DummyOutput(), game="trut")
    lobby.seat = SimpleNamespace(store=None, peer=None, pending=None)
    lobby.hint()
    assert lobby.info.message == "the game has not started yet"


def test_the_lobby_says_whether_hints_are_on():
    info = TableInfo([], [], 0, private=False)
    shown = plain(lobby_lines(info, "t", 2, "Trut"))
    assert " Hints: on (i on your turn asks the search bot)." in shown
    info.hints = False
    shown = plain(lobby_lines(info, "t", 0, "Trut"))
    assert " Hints: off at this table." in shown


WORDED = [("trut", {"players": 2}), ("truco", {"players": 2}), ("lutin", {})]


@pytest.mark.parametrize(("name", "config"), WORDED, ids=[g for g, _ in WORDED])
def test_a_hint_names_each_move_by_the_key_that_sends_it(name, config):
    """A hint says a move as the screen shows it (``play 7esp (key 2)``, ``take Troll 6
    (key t)``), in every game: each card a seat may play or take is named with a key,
    and pressing that key at that moment sends that very move (the person can follow
    the hint without reading notation)."""
    game = make_game(name, config)
    table = new_memory_table(game, "words", ["random"] * game.num_players())
    frontend = frontend_for(name)
    info = TableInfo(names=["A", "B"], fingerprints=["a", "b"], me=0)
    worded, keyed = 0, 0
    while step(table) and worded < 60:
        replica = table.peers[0].replica
        state = replica.state
        if state is None or replica.phase != "game" or state.current_seat() != 0:
            continue
        obs = state.observation(0)
        for action in map(str, obs.legal):
            words = frontend.action_words(action, obs)
            worded += 1
            key = re.search(r"\(key (\S+)\)$", words)
            if action.startswith(("play ", "take ")) and frontend.ready(obs, info):
                assert key is not None, (action, words)
            if name == "trut" and not action.startswith("keep "):  # every move has a key
                assert key is not None, (action, words)
            if key is not None:
                keyed += 1
                sent = frontend.press(key.group(1), obs, info).action
                assert sent is not None and sent.split("=")[0] == action.split("=")[0]
    assert worded >= 60 and keyed >= 20


def test_a_hint_knows_the_signs_its_person_was_shown():
    """Truco with partners (K15): the hint key gives the search bot the signs on the
    person's rule (``TableInfo.signs_told``), so every deal it samples has the partner
    holding the card it signed; a person told nothing gets samples without it."""
    from tests.games.truco.truco_scenarios import dealt
    from trutnet.client.hint import hint_said
    from trutnet.engine.hidden import Told
    from trutnet.games.truco.rules.cards import sign_tells

    state = dealt({0: "4o 5c 12b"}, players=4, dealer=3)
    real = state.determinise
    seen: list[list[str]] = []

    def recording(seat, rng, told=()):
        sample = real(seat, rng, told)
        seen.append([sample.known[p] for p in sample.dealt[2]])
        return sample

    state.determinise = recording
    frontend = frontend_for("truco")
    info = TableInfo(["Ana", "Bot 1", "Bot 2", "Bot 3"], [""] * 4, me=0, hints=True)
    peer = SimpleNamespace(replica=SimpleNamespace(state=state, log=[1, 2, 3]), seat=0)
    for told in ([], [(Told(2, state.hand_no, "1e"), "Bot 2: ancho de espada")]):
        seen.clear()
        info.signs_told = told
        said = hint_said(info, frontend, state.observation(0), peer)
        assert said.startswith("Hint: "), said
        held = [sign_tells(cards, "1e", False) for cards in seen]
        assert held and all(held) == bool(told), (told, held)


def test_the_help_page_names_the_hint_key_where_the_table_allows_hints():
    from trutnet.client.frontend import frontend_for
    from trutnet.client.view import HINT_KEY, help_lines, plain

    frontend = frontend_for("trut")
    allowed = plain(help_lines(frontend, spectator=False, hints=True))
    assert f" {HINT_KEY}  on your turn: what the search bot would play, and why" in allowed
    for shown in (
        help_lines(frontend, spectator=False, hints=False),  # the host asked for none
        help_lines(frontend, spectator=True, hints=True),  # a spectator asks nothing
    ):
        assert "search bot" not in plain(shown)
