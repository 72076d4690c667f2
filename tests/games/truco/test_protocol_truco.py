"""Truco over the table protocol with full crypto (in-memory peers): whole matches for
2, 3, 4 and 6 players, a replica with no seat that never learns a card nobody showed,
and K21's showing done by the crypto: the winner of the envido reveals only the cards
that prove its number, and a seat that declared a number its cards do not make is
blamed when it shows them."""

from __future__ import annotations

import pytest

import trutnet.games.truco  # noqa: F401  (registers the game)
from tests.tables import new_memory_table, play_memory_game
from trutnet.games.truco.rules import Show, TrucoGame
from trutnet.memory_table import step
from trutnet.protocol.envelope import sign_entry
from trutnet.protocol.table import Rejected, TableReplica


@pytest.mark.parametrize(
    ("config", "seed"),
    [
        ({"players": 2, "chicos": 1}, "truco-2"),
        ({"players": 3, "chicos": 1}, "truco-3"),
        ({"players": 4, "chicos": 1, "flor": True}, "truco-4"),
        ({"players": 6, "chicos": 1}, "truco-6"),
    ],
)
def test_whole_matches_with_full_crypto(config, seed):
    game = TrucoGame(**config)
    table = play_memory_game(game, seed, ["heuristic"] * game.players)
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    states = [r.state for r in replicas]
    assert all(s is not None and s.is_terminal() for s in states)
    assert len({s.state_hash() for s in states}) == 1  # type: ignore[union-attr]
    # the seats' replicas checked every proof and signature once between them: the
    # spectator shares what they found checked (tests/tables.py), as it knows no card
    spectator = TableReplica(replicas[0].table_id, replicas[0].checked)
    for wire in table.log:
        spectator.receive(wire)
    state = spectator.state
    assert state is not None and state.state_hash() == states[0].state_hash()  # type: ignore[union-attr]
    # Nobody but a seat's owner learnt an unplayed card it was not shown (K21, K25):
    # the spectator knows exactly the cards face up at the end.
    dealt = [p for seat in range(game.players) for p in state.dealt[seat]]
    assert dealt and all(state.identity_of(p) is None or p in state.face_up for p in dealt)


def _until_show(table):
    """Play until a seat must show (K21); that seat."""
    while True:
        state = table.peers[0].replica.state
        if state is not None and state.phase == "show":
            return state.current_seat()
        assert step(table)


def test_showing_reveals_only_the_proof_and_a_false_number_is_blamed():
    game = TrucoGame(players=2, chicos=1)
    table = new_memory_table(game, "truco-show", ["random", "random"])
    seat = _until_show(table)
    state = table.peers[0].replica.state
    other = table.peers[1 - seat]
    _, kind, declared = state.provers[0]
    assert kind == "envido"
    cheat_pair = sorted(state.dealt[seat])
    peer = table.peers[seat]
    options = {a.positions for a in peer.replica.state.legal_actions(seat) if isinstance(a, Show)}
    size = 2 if declared >= 20 else 1
    assert options and all(len(ps) == size for ps in options)
    wrong = next(
        (ps for ps in (tuple(cheat_pair[:size]), tuple(cheat_pair[-size:])) if ps not in options),
        None,
    )
    if wrong is None:  # every pair proves it: nothing false to show from this hand
        pytest.skip("no false show in this hand")
    # A cheating program signs a show that its cards do not make, with its shares of
    # them: the table reveals the cards, the engine refuses them, the seat is blamed.
    written = Show(tuple((p, None) for p in wrong))
    mine = peer.replica.state
    for pos in [p for p in mine.known if p not in mine.face_up]:
        del mine.known[pos]  # its program no longer checks its own show
    body = peer._with_shares({"action": str(written)}, written)
    log = peer.replica.log
    wire = sign_entry(
        peer.identity,
        table=peer.replica.table_id,
        seat=peer.seat,
        seq=log.next_seq(peer.identity.public),
        prev=log.head,
        type="act",
        body=body,
    ).wire
    with pytest.raises(Rejected) as caught:
        other.receive(wire)
    assert caught.value.halt and caught.value.blame.seat == seat
    assert caught.value.blame.rule == "K21"
