"""The test game Tokens (tests/games/tokens.py) over the table protocol with full crypto:
the table knows nothing of it but the engine's hidden-information description.

Tokens needs what Trut does not: a deck per seat, each shuffled and dealt to its owner
alone; bets sealed (``seal``) and opened at the end (``unseal``); cards chosen in secret
by both seats and then shown; dice and a coin by joint draws; the cards left in hand
shown at a chance node (a public share round). Whole games are played by in-memory
peers; a replica with no seat follows them and never learns a hidden card; cheats are
blamed; a seat killed after sealing comes back and opens its seal.
"""

from __future__ import annotations

import pytest

from tests.games.tokens import Bet, Pick, TokensGame
from tests.tables import new_memory_table, play_memory_game
from trutnet.crypto import Identity, SeededRandom, ShareBatch
from trutnet.engine import GAMES, register_game
from trutnet.engine.api import Action, GameState
from trutnet.engine.hidden import Disclose, Open, Pos, Reveal, SecretChoice, Shuffle, Turn
from trutnet.memory_table import step
from trutnet.protocol.commitments import seal_commitment
from trutnet.protocol.envelope import parse_entry, sign_entry
from trutnet.protocol.table import EVERYONE, LocalError, Rejected, TablePeer, TableReplica

SEEDS = [f"tokens-{k}" for k in range(6)]


@pytest.fixture(autouse=True)
def _tokens_registered():
    register_game(TokensGame)
    yield
    GAMES.pop("tokens")


def _recorded(table_id: bytes, wires: list[bytes]) -> tuple[TableReplica, list[tuple]]:
    """A replica with no seat that replays the log, and every round it showed."""
    replica = TableReplica(table_id)
    rounds: list[tuple] = []
    replica.on_round = lambda r, owners: rounds.append((len(r.state.history()), dict(owners)))
    for wire in wires:
        assert replica.receive(wire) is not None
    return replica, rounds


def description_rounds(game, actions: list[Action]) -> list[tuple]:
    """The rounds the description asks for, walking the public actions of a game."""
    state: GameState = game.new_initial_state()
    shown: dict[int, set[Pos]] = {0: set(), 1: set()}
    public: set[Pos] = set()
    rounds: list[tuple] = []
    for action in actions:
        step = state.next_step()
        revealed: tuple[Pos, ...] = ()
        if isinstance(step, Turn | Open):
            revealed = state.reveals(step.seat, state.conceal(step.seat, action))
        elif isinstance(step, Reveal):
            revealed = step.positions
        if revealed:
            rounds.append((len(state.history()), {EVERYONE: revealed}))
            public |= set(revealed)
        state.apply(action.public())
        if isinstance(step, Shuffle):  # new positions; the carried ones are gone
            for seen in (*shown.values(), public):
                seen -= {p for p in seen if p.deck == step.deck or p in step.carry}
        view = {s: seen | public for s, seen in shown.items()}
        disclosures = [r for r in state.table_requests(view) if isinstance(r, Disclose)]
        if disclosures:
            rounds.append((len(state.history()), {d.to: d.positions for d in disclosures}))
            for d in disclosures:
                shown[d.to] |= set(d.positions)
    return rounds


@pytest.mark.parametrize("rounds", [1, 2, 3])
@pytest.mark.parametrize("seed", SEEDS)
def test_whole_games_over_the_table_with_full_crypto(seed, rounds):
    table = play_memory_game(TokensGame(rounds), seed, ["random"] * 2)
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    assert {r.phase for r in replicas} == {"done"}
    assert len({r.state.state_hash() for r in replicas}) == 1
    assert len({r.log.head for r in replicas}) == 1
    state = replicas[0].state
    assert state.is_terminal() and state.round == rounds
    assert all(bet is not None for bet in state.bets)  # both bets opened at the end
    entries = [parse_entry(w) for w in table.log]
    kinds = [e.type for e in entries]
    # A coin and one die per round, each a commit-reveal of both seats.
    assert kinds.count("commit") == kinds.count("reveal") == 2 * (1 + rounds)
    assert kinds.count("shuffle") == 2 * 2  # each seat's deck, shuffled by both seats
    # Two bets and two cards per round sealed, and every one opened.
    assert kinds.count("seal") == kinds.count("unseal") == 2 + 2 * rounds
    assert kinds.count("act") == 0  # every decision of Tokens is sealed
    assert kinds.count("checkpoint") == 2 * (rounds + 1)  # each round, and the end
    # Nothing is opened before both seats sealed (L32): seals come in pairs, then opens.
    seals = [k for k in kinds if k in ("seal", "unseal")]
    assert all(seals[i] == seals[i + 1] for i in range(0, len(seals), 2))
    # An opened card carries its owner's share: no share round for it follows (a round
    # that does follow discloses the cards drawn after the round).
    for i, entry in enumerate(entries):
        if entry.type == "unseal" and entry.body["action"].startswith("pick"):
            picked = Pos.parse(entry.body["action"].split()[1])
            number = 6 * int(picked.deck[-1]) + picked.index  # table position (7.4)
            assert ShareBatch.from_bytes(entry.body["shares"]).positions == (number,)
            if kinds[i + 1] == "shares":
                assert number not in ShareBatch.from_bytes(entries[i + 1].body["shares"]).positions
    # The table's rounds are the description's, round for round.
    spectator, shown = _recorded(replicas[0].table_id, table.log)
    assert shown == description_rounds(state.game, state.history())
    assert spectator.state.state_hash() == state.state_hash()


def test_a_replica_with_no_seat_never_learns_a_hidden_card():
    """A spectator (a replica with no key) and a newcomer peer (an identity the ``open``
    did not seat) follow the whole game: after every entry they know exactly the cards
    revealed to everyone; each seat knows its own hand besides, never the other's."""
    table = new_memory_table(TokensGame(3), "spectator", ["random"] * 2)
    table_id = table.peers[0].replica.table_id
    spectator = TableReplica(table_id)
    newcomer = TablePeer(Identity.from_seed(b"n" * 32), 0, table_id, SeededRandom("n"))
    watchers = [spectator, newcomer]
    for wire in table.log:
        spectator.receive(wire)
        newcomer.receive(wire)
    checked = 0
    while step(table):
        wire = table.log[-1]
        spectator.receive(wire)
        newcomer.receive(wire)
        for replica in (spectator, newcomer.replica):
            state = replica.state
            held = [p for ps in state.holders().values() for p in ps]
            known = {p for p in held if state.identity_of(p) is not None}
            assert known <= set(replica.revealed), (wire, known)
            showing = replica.shares.owners.get(EVERYONE, ()) if replica.shares else ()
            for pos in set(held) - set(replica.revealed) - set(showing):  # nor could it
                assert not replica.decks.complete(pos, 2), pos  # read one: no share is missing
        for peer in table.peers:
            state = peer.replica.state
            own = set(state.holders().get(peer.seat, ()))
            other = set(state.holders().get(1 - peer.seat, ()))
            assert all(
                state.identity_of(p) is not None for p in own if peer.replica.phase == "game"
            )
            assert not {p for p in other if state.identity_of(p)} - set(peer.replica.revealed)
        checked += 1
    assert spectator.phase == newcomer.replica.phase == "done" and checked > 40
    assert newcomer.standby() and not newcomer.decide() and newcomer.next_automatic() is None
    assert spectator.state.state_hash() == table.peers[0].replica.state.state_hash()
    assert watchers[0].revealed  # the cards shown at the end, and the picks, are public


def _until(table, kind: str, label: str | None = None) -> int:
    """Play until some seat must write ``kind`` (for the sealed choice ``label``); that seat."""
    while True:
        replica = table.peers[0].replica
        expected = replica.expected()
        if expected[1] == (kind,) and (label is None or replica.step.label == label):
            return expected[0]
        assert step(table)


def forge(peer: TablePeer, kind: str, body: dict) -> bytes:
    log = peer.replica.log
    return sign_entry(
        peer.identity,
        table=peer.replica.table_id,
        seat=peer.seat,
        seq=log.next_seq(peer.identity.public),
        prev=log.head,
        type=kind,
        body=body,
    ).wire


def _refused_by(table, cheater: int, wire: bytes, rule: str) -> None:
    other = table.peers[1 - cheater]
    with pytest.raises(Rejected) as exc:
        other.receive(wire)
    assert exc.value.halt and (exc.value.blame.seat, exc.value.blame.rule) == (cheater, rule)
    assert other.replica.halted is not None


@pytest.mark.parametrize("how", ["another choice", "another salt"])
def test_an_opening_that_is_not_the_sealed_choice_is_blamed(how):
    """The commitment binds the seat to its choice: opening another bet, or the same with
    another salt, stops the table with a blame on that seat (rule ``commitment``)."""
    table = new_memory_table(TokensGame(1), "unseal", ["random"] * 2)
    seat = _until(table, "unseal", "bet")
    peer = table.peers[seat]
    salt, text = peer._sealed[peer.replica.sealed[(seat, "bet")].commit]
    if how == "another choice":
        text = str(Bet(1 - int(text.split()[1])))
    else:
        salt = bytes(32)
    wire = forge(peer, "unseal", {"salt": salt, "action": text})
    _refused_by(table, seat, wire, "commitment")


def test_a_joint_draw_value_that_does_not_open_its_commitment_is_blamed():
    table = new_memory_table(TokensGame(1), "draw", ["random"] * 2)
    while table.peers[0].replica.expected() != (1, ("reveal",)):
        assert step(table)
    wire = forge(table.peers[1], "reveal", {"value": bytes(32)})
    _refused_by(table, 1, wire, "commitment")


def test_a_sealed_choice_outlives_a_crash(tmp_path):
    """A seat killed after its ``seal`` comes back from its files (its secrets hold the
    salt and the choice, saved before the seal left) and opens it: the game ends."""
    table = new_memory_table(TokensGame(2), "crash", ["random"] * 2)
    table.attach_stores(tmp_path)
    while (1, "bet") not in table.peers[1].replica.sealed:
        assert step(table)
    sealed = dict(table.peers[1].replica.sealed)
    table.kill(1)
    table.restart(1, "crash/again")
    assert table.peers[1].replica.sealed == sealed
    while step(table):
        pass
    assert not table.rejected
    assert {p.replica.phase for p in table.peers} == {"done"}
    assert table.peers[0].replica.state.bets[1] is not None


def test_a_pick_of_a_card_not_in_hand_is_refused_locally_and_blamed_once_opened():
    """A seat cannot seal a pick of the other seat's card (refused before anything is
    signed); a seat that seals one anyway (a commitment shows nothing) is blamed when it
    opens it, before any card is revealed."""
    table = new_memory_table(TokensGame(1), "pick", ["random"] * 2)
    seat = _until(table, "seal", "card")
    peer = table.peers[seat]
    theirs = peer.replica.state.hands[1 - seat][0]
    with pytest.raises(LocalError) as exc:
        peer.act(str(Pick(theirs)))
    assert exc.value.rule == "pick" and isinstance(peer.replica.step, SecretChoice)
    salt, text = bytes(range(32)), str(Pick(theirs))
    context = peer.replica.context("seal/card")
    table.broadcast(forge(peer, "seal", {"commit": seal_commitment(context, seat, salt, text)}))
    while table.peers[0].replica.expected() != (seat, ("unseal",)):
        assert step(table)
    wire = forge(peer, "unseal", {"salt": salt, "action": text})
    _refused_by(table, seat, wire, "open")
    assert theirs not in table.peers[1 - seat].replica.revealed
