"""The contract every registered game keeps (issue 20, item 6), one suite over the
built-in plugins, so a game is tested the day it registers: seeded games apply every
legal action and end, the notation round-trips and a record replays; its declaration
builds it; a table of protocol peers with full crypto plays its first round with every
replica on one hash and no seat, nor a spectator, knowing a card it was not shown, and
the transcript so far verifies and replays; its screen, for a seat and for a spectator,
fits 80x24.
Each game's own suites test its rules; this one tests that it is a game of the table.
"""

from __future__ import annotations

import random

import pytest

from trutnet.bots import default_bot, make_bot
from trutnet.engine import game_type, make_game
from trutnet.engine.api import CHANCE
from trutnet.plugins import BUILT_IN, load_plugins

load_plugins()
GAMES = sorted(BUILT_IN)  # the same list in every test process


def _random_game(name: str, seed: int):
    state = make_game(name).new_initial_state()
    rng = random.Random(seed)
    for _ in range(20_000):
        if state.is_terminal():
            return state
        if state.current_seat() == CHANCE:
            state.apply(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        assert legal, "a seat to act has something to do"
        state.apply(rng.choice(legal))
    raise AssertionError(f"{name}: no end after 20,000 actions")


@pytest.mark.parametrize("name", GAMES)
def test_seeded_games_end_and_their_notation_and_record_replay(name):
    for seed in range(2):
        state = _random_game(name, seed)
        assert state.is_terminal() and len(state.returns()) == state.game.num_players()
        texts = [str(a) for a in state.history()]
        assert [str(state.parse_action(t)) for t in texts] == texts  # round-trips
        again = type(state.game).from_config(state.game.config_dict()).replay(texts)
        assert again.state_hash() == state.state_hash()


@pytest.mark.parametrize("name", GAMES)
def test_its_declaration_builds_it_and_its_bots_play_from_observations(name):
    declared = game_type(name)
    assert declared is not None and declared.title
    game = make_game(name, declared.defaults())
    assert game.num_players() in declared.players
    state = game.new_initial_state()
    rng = random.Random(7)
    bot = make_bot(name, default_bot(name), rng)
    for _ in range(300):  # the game's best bot, from a seat's observation alone
        if state.is_terminal():
            break
        if state.current_seat() == CHANCE:
            state.apply(state.sample_chance(rng))
            continue
        seat = state.current_seat()
        obs = state.observation(seat)
        action = bot.choose(obs) if obs.legal else state.legal_actions(seat)[0]
        assert str(action) in {str(a) for a in state.legal_actions(seat)}
        state.apply(action)


@pytest.mark.parametrize("name", GAMES)
def test_a_table_of_peers_plays_its_first_round_and_the_transcript_verifies(name):
    from tests.tables import new_memory_table
    from trutnet.memory_table import step
    from trutnet.protocol.audit import audit
    from trutnet.sim.invariants import check_hidden

    game = make_game(name)
    table = new_memory_table(game, f"contract/{name}", ["random"] * game.num_players())
    replica = table.peers[0].replica
    first = game.new_initial_state().round_number()
    for _ in range(50_000):  # to the end of the first round (or of the game)
        if replica.state is not None and (
            replica.state.round_number() > first or replica.phase == "done"
        ):
            break
        assert step(table), f"{name}: the table went idle in its first round"
        for peer in table.peers:  # no seat ever knows a card it was not shown
            assert check_hidden(name, peer.seat, peer.replica) is None
    else:
        raise AssertionError(f"{name}: no round ended")
    assert not table.rejected, table.rejected
    assert replica.state is not None and replica.state.round_number() > first
    assert len(replica.log.entries) > 2 * game.num_players()  # keys, a deal, moves
    level = [p.replica for p in table.peers if p.replica.log.head == replica.log.head]
    assert len({r.state.state_hash() for r in level}) == 1
    report = audit(replica.table_id, [e.wire for e in replica.log.entries])
    # every entry so far verifies; the game is not over, and the audit says so
    assert report.entries == len(replica.log.entries), report.failure
    assert report.failure is None or report.failure.startswith("the transcript ends before")
    assert check_hidden(name, None, report.replica) is None  # what a spectator learns
    # and `trutnet replay` steps through it, every step on the spectator's 80x24 screen
    from trutnet.client.replay import frame_text, load_replay

    replay = load_replay(replica.table_id, [e.wire for e in replica.log.entries])
    assert replay.failure is None and replay.frames
    for index in range(len(replay.frames)):
        rows = frame_text(replay, index).splitlines()
        assert len(rows) <= 24 and all(len(r) <= 80 for r in rows), (name, index, rows)
    # and as each seat saw it, from the view its secrets give (trutnet/seat_views.py):
    # what the seat knew then, its cards included, and never a card it was not shown
    _replayed_from_each_seat(name, table, replica)


def _replayed_from_each_seat(name: str, table, replica) -> None:
    from trutnet.client.replay import SeatReader, frame_text, load_replay
    from trutnet.seat_views import SeatView
    from trutnet.sim.invariants import check_hidden

    wires = [e.wire for e in replica.log.entries]
    for peer in table.peers:
        view = SeatView(replica.table_id, peer.seat, peer.secrets())
        reader = SeatReader(replica.table_id, view)
        for wire in wires:
            reader.receive(wire)
            assert check_hidden(name, peer.seat, reader.replica) is None
        mine = peer.replica.state.observation(peer.seat)
        assert reader.replica.state.observation(peer.seat) == mine, (name, peer.seat)
        replay = load_replay(replica.table_id, wires, view)
        assert replay.seat == peer.seat and replay.failure is None
        rows = frame_text(replay, len(replay.frames) - 1).splitlines()
        assert len(rows) <= 24 and all(len(r) <= 80 for r in rows), (name, peer.seat, rows)


@pytest.mark.parametrize("name", GAMES)
def test_its_screen_fits_80x24_for_a_seat_and_a_spectator(name):
    from tests.games.seen_screens import seen_screens
    from trutnet.client.view import TableInfo, plain, table_lines

    players = make_game(name).num_players()
    names = [f"Player {'X' * 20}{k}" for k in range(players)]  # long names: cut, never wrapped
    for front, obs, me in seen_screens(name, seed=3, every=25, moves=400):
        info = TableInfo(names=names, fingerprints=[""] * players, me=me)
        info.log = [f"line {i}" for i in range(12)]
        rows = plain(table_lines(front, obs, info)).splitlines()
        assert len(rows) <= 24 and all(len(r) <= 80 for r in rows), (name, me, rows)
