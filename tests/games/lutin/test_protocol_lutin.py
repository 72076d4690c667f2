"""Lutin & Troll over the table protocol with full crypto, from the engine's
description alone (``docs/engine.md``, the Lutin & Troll table).

Base: each hand card is a sealed choice (L16), opened when played or at the manche's
end (L15); the seat's own replica knows its hand (the table's ``own_sealed``), so its
bot plays by card. Initiation: each deck shuffled jointly by both seats, the top five
shown to their owner alone, a play revealed publicly (L31). A card the pioche could
not have held is blamed on its seat (L16, L32).
"""

from __future__ import annotations

import pytest

from tests.protocol.test_protocol_tokens import forge
from tests.tables import new_memory_table, play_memory_game
from trutnet.engine import register_game
from trutnet.games.lutin.rules import LutinGame
from trutnet.games.lutin.rules.state import VARIANTS
from trutnet.memory_table import step
from trutnet.protocol.commitments import seal_commitment
from trutnet.protocol.envelope import parse_entry
from trutnet.protocol.table import Rejected

register_game(LutinGame)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", ["lutin-1", "lutin-2"])
def test_whole_games_over_the_table_with_full_crypto(variant, seed):
    table = play_memory_game(LutinGame(variant), seed, ["heuristic", "random"])
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and {r.phase for r in replicas} == {"done"}
    assert len({r.state.state_hash() for r in replicas}) == 1
    state = replicas[0].state
    assert state.is_terminal()
    kinds = [parse_entry(w).type for w in table.log]
    if variant == "base":
        assert kinds.count("seal") == kinds.count("unseal") == 10 * (state.round_number() + 1)
        assert kinds.count("shuffle") == 0 and max(state.vp) == 5
    elif variant.startswith("expert"):
        assert kinds.count("shuffle") == 2  # the token pool, by both seats (L21)
        assert kinds.count("seal") >= 2 + 10 * (state.round_number() + 1)
        assert state.aside and all(state.identity_of(p) is None for p in state.aside)
    else:
        assert kinds.count("seal") == 0 and kinds.count("shuffle") == 4  # 2 decks x 2 seats


def test_a_seat_knows_its_own_sealed_hand_and_nothing_of_the_other():
    table = new_memory_table(LutinGame("base"), "own", ["random", "random"])
    while table.peers[0].replica.state is None or table.peers[0].replica.state.phase != "attack":
        assert step(table)
    for peer in table.peers:
        obs = peer.replica.state.observation(peer.seat)
        assert len(obs.hand) == 5 and None not in {c for _, c in obs.hand}
        assert {s for s, _ in peer.replica.state.secrets} == {peer.seat}


def test_a_card_the_pioche_could_not_hold_is_blamed_when_opened():
    """A seat that seals a second Nymph (a commitment shows nothing) is blamed when it
    opens it: its pioche held one (L16, L32)."""
    table = new_memory_table(LutinGame("base"), "cheat", ["random", "random"])
    replica = table.peers[0].replica
    while replica.expected() is None or replica.expected()[1] != ("seal",):
        assert step(table)
    cheater = replica.expected()[0]
    peer = table.peers[cheater]
    salts = {}
    for _ in range(5):  # the cheater's five hand cards, all "take nymph"
        label = peer.replica.step.label
        salt = bytes([len(salts) + 1]) * 32
        commit = seal_commitment(peer.replica.context(f"seal/{label}"), cheater, salt, "take nymph")
        salts[label] = salt
        table.broadcast(forge(peer, "seal", {"commit": commit}))
    opened = 0
    while True:
        expected = replica.expected()
        if expected == (cheater, ("unseal",)):
            label = peer.replica.step.label
            wire = forge(peer, "unseal", {"salt": salts[label], "action": "take nymph"})
            if opened == 1:
                other = table.peers[1 - cheater]
                with pytest.raises(Rejected) as exc:
                    other.receive(wire)
                assert exc.value.halt and exc.value.blame.seat == cheater
                assert exc.value.blame.rule == "L16"
                return
            table.broadcast(wire)
            opened += 1
            continue
        assert step(table)


def test_a_token_opened_with_a_target_it_cannot_take_is_blamed():
    """White t23 takes no target: a seat that seals ``token tokens@P own`` for it (a
    commitment shows nothing) is blamed once the token is shown (L22, L32)."""
    table = new_memory_table(LutinGame("expert-white"), "cheat-token", ["random", "random"])
    replica = table.peers[0].replica

    def due(kind: str, label: str) -> bool:
        expected = replica.expected()
        return expected is not None and expected[1] == (kind,) and replica.step.label == label

    while True:  # a window where the seat to seal holds a token that takes no target
        while not due("seal", "token"):
            assert step(table)
        cheater = replica.expected()[0]
        peer = table.peers[cheater]
        state = peer.replica.state
        plain = [p for p in state.tok_pos[cheater] if state.identity_of(p) not in ("t11", "t12")]
        if plain:
            break
        assert step(table)
    text = f"token {plain[0]} own"
    salt = bytes([7]) * 32
    commit = seal_commitment(peer.replica.context("seal/token"), cheater, salt, text)
    table.broadcast(forge(peer, "seal", {"commit": commit}))
    while not (due("unseal", "token") and replica.expected()[0] == cheater):
        assert step(table)
    body = peer._with_shares({"salt": salt, "action": text}, peer.replica.state.parse_action(text))
    table.broadcast(forge(peer, "unseal", body))
    while not table.rejected and step(table):
        pass
    blames = [exc.blame for _, exc in table.rejected if exc.blame is not None]
    assert blames and (blames[0].seat, blames[0].rule) == (cheater, "L22")
