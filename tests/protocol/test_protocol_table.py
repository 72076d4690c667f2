"""The table protocol: whole games between in-memory peers, and the cheat catalogue."""

from __future__ import annotations

import dataclasses

import pytest

from tests.tables import play_memory_game
from trutnet.crypto import (
    KeyPair,
    SeededRandom,
    encode_shuffle,
    shuffle,
    verify_shuffle,
)
from trutnet.crypto.elgamal import Ciphertext
from trutnet.crypto.group import base_mul
from trutnet.engine.canonical import canonical_bytes
from trutnet.games.trut.rules import Deal, SingCount, StartPosition, TrutConfig, TrutGame
from trutnet.games.trut.rules.hidden import pos
from trutnet.protocol.envelope import (
    GENESIS,
    MAX_ENTRY_BYTES,
    PROTOCOL_VERSION,
    SIGN_DOMAIN,
    parse_entry,
    sign_entry,
)
from trutnet.protocol.table import Rejected

# ---------------------------------------------------------------- whole games


@pytest.mark.parametrize(
    "config",
    [
        TrutConfig(2),
        TrutConfig(3, "gatinaise"),
        TrutConfig(4, start=StartPosition((5, 6), (2, 1), 1)),
        TrutConfig(6, sum_on_patte=True, start=StartPosition((6, 6), (1, 0), 3)),
    ],
    ids=lambda c: f"{c.players}p-{c.variant}",
)
def test_peers_play_whole_games_and_agree(config):
    table = play_memory_game(
        TrutGame(config), f"game-{config.players}", ["heuristic"] * config.players
    )
    replicas = [p.replica for p in table.peers]
    assert not table.rejected
    assert {r.phase for r in replicas} == {"done"}
    assert len({r.state.state_hash() for r in replicas}) == 1
    assert len({r.log.head for r in replicas}) == 1
    entries = [parse_entry(w) for w in table.log]
    hands = replicas[0].state.hand_number + 1
    checkpoints = [e for e in entries if e.type == "checkpoint"]
    assert len(checkpoints) == hands * config.players  # every hand signed by every seat
    assert {e.seat for e in entries if e.type == "result"} == set(range(config.players))
    assert replicas[0].state.winner is not None


def test_no_peer_ever_sees_another_seats_unplayed_card():
    table = play_memory_game(
        TrutGame(TrutConfig(3)),
        "secret",
        ["heuristic"] * 3,
        until=lambda t: t.peers[0].replica.phase == "game",
    )
    for peer in table.peers:
        state = peer.replica.state
        mine = set(state.holdings[peer.seat])
        played = {p for cards, _, _ in state.tricks for _, p, _ in cards}
        played |= {p for _, p, _ in state.trick}
        assert set(state.known) <= mine | played
    # A replica with no seat (a spectator, an audit) knows the played cards alone.
    from trutnet.protocol.table import TableReplica

    spectator = TableReplica(table.peers[0].replica.table_id)
    for wire in table.log:
        spectator.receive(wire)
    state = spectator.state
    played = {p for cards, _, _ in state.tricks for _, p, _ in cards} | {
        p for _, p, _ in state.trick
    }
    assert set(state.known) == played == {p.index for p in spectator.revealed}
    unplayed = [p for s in range(3) for p in state.holdings[s]]
    assert unplayed and not any(spectator.decks.complete(pos(p), 3) for p in unplayed)


# ---------------------------------------------------------------- cheats


def run_until(config, predicate, seed="cheat", together=()):
    bots = ["heuristic"] * config.players
    return play_memory_game(TrutGame(config), seed, bots, until=predicate, together=together)


def expecting(seat, kind):
    def predicate(table):
        expected = table.peers[0].replica.expected()
        return expected is not None and expected[0] == seat and kind in expected[1]

    return predicate


def forge(peer, type, body, **overrides):
    log = peer.replica.log
    fields = dict(
        table=peer.replica.table_id,
        seat=peer.seat,
        seq=log.next_seq(peer.identity.public),
        prev=log.head,
        type=type,
        body=body,
    )
    identity = overrides.pop("identity", peer.identity)
    fields.update(overrides)
    return sign_entry(identity, **fields).wire


def deliver_to_honest(table, cheater, wire):
    """Every honest peer must reject ``wire``; return their exceptions."""
    errors = []
    for peer in table.peers:
        if peer.seat == cheater:
            continue
        with pytest.raises(Rejected) as exc:
            peer.receive(wire)
        errors.append(exc.value)
    return errors


def assert_blamed(errors, seat, rule, halt=True):
    for error in errors:
        assert error.blame is not None, error
        assert (error.blame.seat, error.blame.rule) == (seat, rule), error
        assert error.halt == halt
        assert error.blame.evidence  # the signed offending entry
        parse_entry(error.blame.evidence[-1])


def honest_shuffle(table, seat):
    """The deck ``seat`` must shuffle now, and its context; an honest shuffle of it
    verifies (so each cheat below is refused for its cheat, not for a wrong context)."""
    peer = table.peers[seat]
    replica = peer.replica
    source = replica.deck  # the open deck for seat 0, else the previous seat's output
    ctx = replica.context(f"shuffle/french32/{seat}")
    out, proof = shuffle(source, replica.joint, ctx, replica.elgamal, SeededRandom(2))
    verify_shuffle(source, out, proof, replica.joint, ctx, replica.elgamal)
    return peer, replica, source, ctx


CONFIG = TrutConfig(3)


@pytest.mark.parametrize("how", ["duplicate", "drop", "replace", "bad-proof", "bad-point"])
def test_cheating_shuffle_is_blamed(how):
    table = run_until(CONFIG, expecting(1, "shuffle"))
    peer, replica, source, ctx = honest_shuffle(table, 1)
    out, proof = shuffle(source, replica.joint, ctx, replica.elgamal, SeededRandom(9))
    data = encode_shuffle(out, proof)
    if how == "duplicate":
        data = encode_shuffle((out[0], out[0], *out[2:]), proof)
    elif how == "drop":
        data = data[: 2 + 66] + data[2 + 2 * 66 :]  # one ciphertext fewer
    elif how == "replace":
        cheat = list(source)
        cheat[0] = Ciphertext(base_mul(5) + cheat[0].c1, cheat[1].c2 + replica.joint * 5)
        data = encode_shuffle(
            *shuffle(tuple(cheat), replica.joint, ctx, replica.elgamal, SeededRandom(3))
        )
    elif how == "bad-proof":
        data = data[:-1] + bytes([data[-1] ^ 1])
    elif how == "bad-point":
        data = data[:2] + b"\x04" + data[3:]  # not a compressed point
    errors = deliver_to_honest(table, 1, forge(peer, "shuffle", {"deck": data}))
    assert_blamed(errors, 1, "shuffle-proof")
    assert all(p.replica.halted is not None for p in table.peers if p.seat != 1)


@pytest.mark.parametrize("how", ["bad-proof", "replayed"])
def test_replicas_that_share_their_checks_each_refuse_a_cheating_shuffle(how):
    """Seats 0 and 2 played by one process share the proofs they checked: a proof that
    fails is never taken as checked, and a valid proof of another statement (seat 0's
    shuffle of this deck, signed again by seat 1) is checked against this one."""
    table = run_until(CONFIG, expecting(1, "shuffle"), together=(0, 2))
    peer, replica, source, ctx = honest_shuffle(table, 1)
    if how == "bad-proof":
        data = encode_shuffle(
            *shuffle(source, replica.joint, ctx, replica.elgamal, SeededRandom(9))
        )
        data = data[:-1] + bytes([data[-1] ^ 1])
    else:
        data = next(parse_entry(w) for w in table.log if parse_entry(w).type == "shuffle")
        data = data.body["deck"]  # seat 0's, checked by seat 2's replica a step ago
    errors = deliver_to_honest(table, 1, forge(peer, "shuffle", {"deck": data}))
    assert len(errors) == 2
    assert_blamed(errors, 1, "shuffle-proof")


def test_the_seats_of_one_process_check_each_proof_once(monkeypatch):
    """A host and its bot (seats 0 and 1 of 3) check each shuffle proof once between
    them and never check their own: half of the table's checks, the same log."""
    import trutnet.protocol.replica as replica_module

    real = replica_module.verify_shuffle
    calls: list[int] = []

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(replica_module, "verify_shuffle", counted)
    from trutnet import memory_table  # three processes: nothing shared but (0, 1)

    def second_hand(table):  # two hands' shuffles are enough
        state = table.peers[0].replica.state
        return state is not None and state.round_number() >= 2

    game, bots = TrutGame(TrutConfig(3)), ["heuristic"] * 3
    alone = memory_table.play_memory_game(game, "once", bots, second_hand)
    apart = len(calls)
    calls.clear()
    paired = memory_table.play_memory_game(game, "once", bots, second_hand, together=(0, 1))
    assert paired.log == alone.log
    shuffles = sum(parse_entry(w).type == "shuffle" for w in alone.log)
    # apart: each of 3 replicas checks the 2 others' shuffles; paired: seat 2 checks
    # seats 0's and 1's, and the pair checks seat 2's once
    assert shuffles >= 6 and apart == 2 * shuffles and len(calls) == shuffles
    checked = paired.peers[0].replica.checked
    assert checked is paired.peers[1].replica.checked is not paired.peers[2].replica.checked
    assert checked.skipped > 0


def test_wrong_decryption_share_is_blamed():
    table = run_until(CONFIG, expecting(2, "shares"))
    peer = table.peers[2]
    replica = peer.replica
    positions = replica.shares.positions_for(2)
    context = replica.context(replica.shares.step)
    wrong_key = KeyPair.generate(SeededRandom(4))
    batch = replica.decks.make(wrong_key, 2, positions, context, SeededRandom(5))
    errors = deliver_to_honest(table, 2, forge(peer, "shares", {"shares": batch.to_bytes()}))
    assert_blamed(errors, 2, "share-proof")
    # Another seat's valid shares passed off as one's own are refused too.
    table = run_until(CONFIG, expecting(2, "shares"))
    replica = table.peers[2].replica
    positions = replica.shares.positions_for(2)
    good = replica.decks.make(table.peers[2].elgamal, 2, positions, context, SeededRandom(6))
    swapped = dataclasses.replace(good, seat=1)
    errors = deliver_to_honest(
        table, 2, forge(table.peers[2], "shares", {"shares": swapped.to_bytes()})
    )
    assert_blamed(errors, 2, "shares")


def test_playing_a_card_not_dealt_to_you_is_blamed():
    table = run_until(
        CONFIG,
        lambda t: t.peers[0].replica.phase == "game" and t.peers[0].replica.state.phase == "play",
    )
    seat = table.peers[0].replica.state.current_seat()
    peer = table.peers[seat]
    state = peer.replica.state
    other = state.holdings[(seat + 1) % 3][0]
    batch = peer.replica.decks.make(
        peer.elgamal, seat, [pos(other)], peer.replica.context("act"), SeededRandom(1)
    )
    body = {"action": f"play @{other}", "shares": batch.to_bytes()}
    errors = deliver_to_honest(table, seat, forge(peer, "act", body))
    assert_blamed(errors, seat, "T5")
    for peer in table.peers:  # nothing revealed: the table stopped before the card
        assert pos(other) not in peer.replica.revealed


# ------------------------------------------- a play reveals its card (7.4, version 2)


def _to_play(seed, config=None):
    """A table where some seat must play a card; that seat's peer."""
    table = run_until(
        config or TrutConfig(4),
        lambda t: any(p.decide() and p.replica.state.phase == "play" for p in t.peers),
        seed=seed,
    )
    return table, next(p for p in table.peers if p.decide())


def test_a_play_reveals_its_card_from_the_entry_alone():
    """The other seats' shares of the position are in the log from the deal round; the
    ``act`` entry of the play adds the player's own, and every replica turns the card
    over on that entry: no share round follows it, the next entry is the game's."""
    table, player = _to_play("reveal")
    state = player.replica.state
    index = state.holdings[player.seat][0]
    card = state.known[index]  # the player knows its card; nobody else does yet
    assert all(index not in p.replica.state.known for p in table.peers if p is not player)
    wire = player.act(f"play @{index}")
    assert _kind(parse_entry(wire)) == "play"
    for peer in table.peers:
        if peer is not player:
            assert peer.receive(wire) is not None
        replica = peer.replica
        assert replica.revealed[pos(index)] == str(card)
        assert replica.state.trick[-1] == (player.seat, index, card)
        assert replica.phase != "shares" and replica.shares is None
        assert replica.expected()[1] != ("shares",)


def _kind(entry):
    """An entry's type, ``play`` for a decision that reveals a card (it carries shares)."""
    return "play" if entry.type == "act" and "shares" in entry.body else entry.type


def _hands(wires):
    """The log cut into hands: from a hand's first ``shuffle`` to its last entry."""
    hands, current = [], None
    for entry in map(parse_entry, wires):
        if entry.type == "shuffle" and (current is None or current[-1].type != "shuffle"):
            current = []
            hands.append(current)
        if current is not None and entry.type != "result":
            current.append(entry)
    return hands


def test_a_hand_has_no_share_entry_after_a_play():
    """7.4: a hand is n shuffles, the deal's share round (n entries), the decisions and
    the plays, and n checkpoints: 4 + 4 + 12 + 4 = 24 entries for a 4-player hand
    played out with no word said (version 1 wrote 3 shares after each play: 60)."""
    n = 4
    table = play_memory_game(TrutGame(TrutConfig(n)), "reveal", ["heuristic"] * n)
    assert not table.rejected and table.peers[0].replica.phase == "done"
    hands = _hands(table.log)
    assert len(hands) == table.peers[0].replica.state.hand_number + 1
    for hand in hands:
        types = [_kind(e) for e in hand]
        first_play = types.index("play") if "play" in types else len(types)
        assert "shares" not in types[first_play:], types
        count = {t: types.count(t) for t in set(types)}
        assert count["shuffle"] == count["checkpoint"] == n
        assert count["shares"] == n  # the deal round (no Fortial in this game)
        assert len(types) == 3 * n + count.get("act", 0) + count.get("play", 0)
    full = [[_kind(e) for e in h] for h in hands]
    full = [types for types in full if types.count("play") == 3 * n]
    assert full and all(len(types) == 24 + types.count("act") for types in full)


def _round_kind(state) -> str:
    """Which of Trut's share rounds a private round is, from the action before it."""
    last = state.history()[-1]
    if isinstance(last, Deal):
        return "deal"  # T4
    return "sing" if isinstance(last, SingCount) else "deal-withheld"  # T19, T15


def _steps_of_played_positions(table):
    """For each play of the game, the share round that had shown its position to its
    player (``deal``, ``deal-withheld`` or ``sing``), replayed from the log."""
    from trutnet.protocol.table import TableReplica

    recorder = TableReplica(table.peers[0].replica.table_id)
    shown: dict[tuple[int, int], str] = {}

    def record(replica, round_):
        for positions in round_.owners.values():
            for position in positions:
                key = (replica.state.hand_number, position.index)
                shown[key] = _round_kind(replica.state)

    recorder.on_private = record
    steps = []
    for wire in table.log:
        entry = parse_entry(wire)
        if _kind(entry) == "play":
            index = int(entry.body["action"].partition("@")[2])
            steps.append(shown[(recorder.state.hand_number, index)])
        assert recorder.receive(wire) is not None
    assert recorder.phase == "done"
    return steps


@pytest.mark.parametrize(
    ("config", "seed", "bots", "step"),
    [
        # T15: the Fortial opponents' shares come in their own round, after the decision
        (
            TrutConfig(4, start=StartPosition((6, 3), (2, 0), 1)),
            "hidden-4",
            "random",
            "deal-withheld",
        ),
        # T19: la Chanson's new cards, revealed to their owners by the sing round
        (
            TrutConfig(4, "gatinaise", start=StartPosition((3, 3), (2, 2), 1)),
            "chanson-10",
            "heuristic",
            "sing",
        ),
    ],
    ids=["fortial-T15", "chanson-T19"],
)
@pytest.mark.timeout(600)
def test_cards_shown_after_the_deal_are_revealed_by_their_play_too(config, seed, bots, step):
    """The rounds that show cards after the deal round (the Fortial's withheld cards,
    la Chanson's draws) put every other seat's share in the log too, so their plays
    reveal from the entry alone: the whole game plays, every replica agrees."""
    table = play_memory_game(TrutGame(config), seed, [bots] * config.players)
    assert not table.rejected
    replicas = [p.replica for p in table.peers]
    assert {r.phase for r in replicas} == {"done"}
    assert len({r.state.state_hash() for r in replicas}) == 1
    steps = _steps_of_played_positions(table)
    assert step in steps  # some card shown by that round was played, and revealed
    for hand in _hands(table.log):
        types = [_kind(e) for e in hand]
        if "play" in types:
            assert "shares" not in types[types.index("play") :]


def test_a_forged_share_in_a_play_is_blamed_on_the_player():
    """The player's own share in its play is checked against its key, for that position,
    in the step ``act``: anything else stops the table on a blame."""
    for how in ("wrong key", "other position", "other step"):
        table, player = _to_play("forged-play")
        replica = player.replica
        hand = replica.state.holdings[player.seat]
        index, other = hand[0], hand[1]
        key = KeyPair.generate(SeededRandom(7)) if how == "wrong key" else player.elgamal
        shared = other if how == "other position" else index
        step = "disclose" if how == "other step" else "act"
        batch = replica.decks.make(
            key, player.seat, [pos(shared)], replica.context(step), SeededRandom(8)
        )
        if how == "other position":  # a valid share of another card, passed off as this one's
            batch = dataclasses.replace(batch, positions=(index,))
        wire = forge(player, "act", {"action": f"play @{index}", "shares": batch.to_bytes()})
        errors = deliver_to_honest(table, player.seat, wire)
        assert_blamed(errors, player.seat, "share-proof")
        for peer in table.peers:  # nothing revealed: the table stopped before the card
            assert pos(index) not in peer.replica.revealed or peer is player


def test_a_play_with_a_share_missing_asks_that_share_alone_in_a_public_round():
    """7.4: a decision reveals its positions from the shares already in the log; a share
    that is not (never, for a Trut play: a seat plays only cards a share round showed
    it; but a game may reveal a card nobody was shown, the Hare's stock card, T34) is
    asked in a public round of exactly the seats that lack one, then the card shows."""
    table, player = _to_play("unshown")
    index = player.replica.state.holdings[player.seat][0]
    card = player.replica.state.known[index]
    witness = (player.seat + 1) % 4
    for peer in table.peers:  # as if the deal round had not asked the witness for it
        del peer.replica.decks.shares[pos(index)][witness]
    wire = player.act(f"play @{index}")
    for peer in table.peers:
        if peer is not player:
            assert peer.receive(wire) is not None
        assert peer.replica.expected() == (witness, ("shares",))
        assert peer.replica.shares.positions_for(witness) == [pos(index)]
        assert pos(index) not in peer.replica.revealed
    shares = table.peers[witness].next_automatic()
    for peer in table.peers:
        if peer.seat != witness:
            assert peer.receive(shares) is not None
        assert peer.replica.revealed[pos(index)] == str(card)
        assert peer.replica.state.trick[-1] == (player.seat, index, card)


def test_acting_out_of_turn_is_blamed_and_dropped():
    table = run_until(CONFIG, lambda t: t.peers[0].replica.phase == "game")
    seat = table.peers[0].replica.expected()[0]
    intruder = (seat + 1) % 3
    errors = deliver_to_honest(
        table, intruder, forge(table.peers[intruder], "act", {"action": "trut"})
    )
    assert_blamed(errors, intruder, "turn", halt=False)
    assert all(p.replica.halted is None for p in table.peers)
    table = play_memory_game(TrutGame(CONFIG), "cheat", ["heuristic"] * 3)  # the game goes on
    assert table.peers[0].replica.phase == "done"


def test_an_action_only_the_table_applies_is_blamed_as_no_decision():
    """A seat cannot write the engine's ``void`` (D16; only the table voids a hand, on a
    quorum's ``void`` entry, 7.7) or a deal, though the engine would apply the void."""
    table = run_until(CONFIG, lambda t: t.peers[0].replica.phase == "game")
    seat = table.peers[0].replica.expected()[0]
    state = table.peers[0].replica.state
    assert state.void_round() is not None  # the engine would void this hand
    errors = deliver_to_honest(table, seat, forge(table.peers[seat], "act", {"action": "void"}))
    assert_blamed(errors, seat, "decision")
    table = run_until(CONFIG, lambda t: t.peers[0].replica.phase == "game")
    errors = deliver_to_honest(table, seat, forge(table.peers[seat], "act", {"action": "deal"}))
    assert_blamed(errors, seat, "T4")


def test_second_trut_in_a_hand_is_blamed():
    def predicate(t):
        state = t.peers[0].replica.state
        return (
            t.peers[0].replica.phase == "game" and state.phase == "play" and state.trut is not None
        )

    table = play_memory_game(TrutGame(TrutConfig(2)), "truts", ["heuristic"] * 2, until=predicate)
    seat = table.peers[0].replica.state.current_seat()
    errors = deliver_to_honest(table, seat, forge(table.peers[seat], "act", {"action": "trut"}))
    assert_blamed(errors, seat, "T9")


def test_replay_from_another_table_or_hand_is_refused():
    # Play on to the next hand's shuffle by seat 0 and replay the first hand's.
    table = play_memory_game(
        TrutGame(CONFIG),
        "cheat",
        ["heuristic"] * 3,
        until=lambda t: t.peers[0].replica.state.hand_number == 1 and expecting(0, "shuffle")(t),
    )
    first_shuffle = next(parse_entry(w) for w in table.log if parse_entry(w).type == "shuffle")
    # The very same bytes again (a network replay of an old entry): never applied twice.
    for peer in table.peers[1:]:
        head, length = peer.replica.log.head, len(peer.replica.log)
        try:
            assert peer.receive(first_shuffle.wire) is None
        except Rejected as exc:
            assert exc.rule == "duplicate" and exc.blame is None
        assert (peer.replica.log.head, len(peer.replica.log)) == (head, length)
    other_table = forge(table.peers[0], "act", {"action": "trut"}, table=bytes(16))
    for error in deliver_to_honest(table, 0, other_table):
        assert error.rule == "table"
    replay = forge(table.peers[0], "shuffle", first_shuffle.body)
    assert_blamed(deliver_to_honest(table, 0, replay), 0, "shuffle-proof")


def test_forging_another_seats_entry_is_blamed_on_the_forger():
    table = run_until(CONFIG, lambda t: t.peers[0].replica.phase == "game")
    victim = table.peers[0].replica.expected()[0]
    forger = (victim + 1) % 3
    wire = forge(table.peers[forger], "act", {"action": "fold"}, seat=victim)
    errors = deliver_to_honest(table, forger, wire)
    for error in errors:
        assert (error.blame.seat, error.blame.rule) == (forger, "identity")


def test_equivocation_is_proven_and_stops_the_table():
    table = run_until(CONFIG, expecting(1, "checkpoint"))
    peer = table.peers[1]
    honest = peer.outbox()[0]
    for other in table.peers:
        if other.seat != 1:
            other.receive(honest)
    entry = parse_entry(honest)
    twin = forge(
        peer,
        "checkpoint",
        {"hand": entry.body["hand"], "state": bytes(32)},
        seq=entry.seq,
        prev=entry.prev,
    )
    errors = deliver_to_honest(table, 1, twin)
    assert_blamed(errors, 1, "equivocation")
    pair = tuple(sorted((honest, twin), key=lambda w: parse_entry(w).id))  # by id (7.2)
    assert {e.blame.evidence for e in errors} == {pair}


def test_wrong_version_oversized_and_malformed_entries_are_refused():
    table = run_until(CONFIG, lambda t: t.peers[0].replica.phase == "game")
    peer = table.peers[0]
    log = peer.replica.log
    wrong_versions = []
    for version in (PROTOCOL_VERSION - 1, PROTOCOL_VERSION + 1):
        envelope = [
            version,
            peer.replica.table_id,
            0,
            peer.identity.public,
            log.next_seq(peer.identity.public),
            log.head,
            "act",
            {"action": "trut"},
        ]
        signature = peer.identity.sign(SIGN_DOMAIN + canonical_bytes(envelope))
        wrong_versions.append((canonical_bytes([envelope, signature]), "version"))
    for wire, rule in [
        *wrong_versions,
        (b"\x92" + b"\x00" * (MAX_ENTRY_BYTES + 1), "size"),
        (b"\x93\x01\x02", "encoding"),
        (b"\xc1", "encoding"),
    ]:
        for error in deliver_to_honest(table, 0, wire):
            assert error.rule == rule
    assert all(p.replica.halted is None for p in table.peers)


class SingingBot:
    """Always sings and agrees (1 card at a time), keeps its first three cards."""

    def choose(self, obs):
        words = {str(a): a for a in obs.legal}
        for choice in ("sing", "agree", "sing 1"):
            if choice in words:
                return words[choice]
        return obs.legal[0]


def test_la_chanson_over_the_protocol_deals_stock_cards_and_discards_unseen():
    from tests.tables import new_memory_table
    from trutnet.memory_table import step

    config = TrutConfig(4, "gatinaise", start=StartPosition((1, 2), (2, 2), 1))
    table = new_memory_table(TrutGame(config), "chanson", ["random"] * 4)
    table.bots = [SingingBot() for _ in range(4)]
    state = table.peers[0].replica.state
    while not (state.phase == "play" and state.discarded) and step(table):
        pass
    discarded = set(state.discarded)
    assert len(discarded) >= 4  # every seat drew at least one card and dropped it
    while table.peers[0].replica.state.hand_number == 0 and step(table):
        pass
    assert not table.rejected
    replicas = [p.replica for p in table.peers]
    events = [e["event"] for e in replicas[0].state.events]
    assert events.count("sing_draw") >= 1 and events.count("keep") == 4
    assert len({r.state.state_hash() for r in replicas}) == 1
    # The discards were never revealed; keeps name positions only.
    for replica in replicas:
        assert not discarded & {p.index for p in replica.revealed}
    entries = [parse_entry(w) for w in table.log]
    keeps = [
        e.body["action"] for e in entries if e.type == "act" and e.body["action"].startswith("keep")
    ]
    assert len(keeps) == 4 and all(k.count("@") == 3 for k in keeps)
    assert all(not any(c.isalpha() for c in k[5:].replace("@", "")) for k in keeps)


def test_lobby_seats_signed_join_requests_and_opens_the_table():
    from trutnet.crypto import Identity
    from trutnet.protocol.lobby import Lobby, LobbyError, join_request
    from trutnet.protocol.table import TablePeer

    config = TrutConfig(3)
    host, ana, bot = (Identity.generate(SeededRandom(s)) for s in (1, 2, 3))
    lobby = Lobby(TrutGame(config), host, "Host", bytes(range(16)))
    table_id = lobby.table_id
    assert lobby.receive(join_request(ana, table_id, "Ana")) == 1
    assert lobby.receive(join_request(ana, table_id, "Ana")) == 1  # idempotent
    for bad in (join_request(ana, bytes(16), "Ana"), b"junk"):
        with pytest.raises(LobbyError):
            lobby.receive(bad)
    with pytest.raises(LobbyError):
        join_request(ana, table_id, "")
    with pytest.raises(LobbyError):
        lobby.open_body()  # a seat is still free
    assert lobby.seat(bot.public, "Bot 2") == 2
    with pytest.raises(LobbyError, match="full"):
        lobby.receive(join_request(Identity.generate(SeededRandom(4)), table_id, "Late"))
    assert [name for _, name, _ in lobby.roster()] == ["Host", "Ana", "Bot 2"]
    body = lobby.open_body()
    host_peer = TablePeer(host, 0, table_id, SeededRandom(5))
    wire = host_peer.open_table(TrutGame(config), body["seats"], body["names"], nonce=body["nonce"])
    guest = TablePeer(ana, 1, table_id, SeededRandom(6))
    guest.receive(wire)
    assert guest.replica.names == ["Host", "Ana", "Bot 2"]
    assert guest.replica.expected() == (0, ("keys",))


def test_only_the_tables_own_host_can_open_it():
    """7.10: a table id is bound to its host's key. Anyone may sign an ``open`` naming a
    joiner's key (the joiner's key is public in its join request); the joiner refuses
    it and still takes the real host's ``open`` afterwards."""
    from trutnet.crypto import Identity
    from trutnet.protocol.lobby import Lobby, table_id_for
    from trutnet.protocol.table import Rejected, TablePeer

    config = TrutConfig(2)
    host, ana, mallory = (Identity.generate(SeededRandom(s)) for s in (1, 2, 3))
    lobby = Lobby(TrutGame(config), host, "Host", b"\x05" * 16)
    assert lobby.table_id == table_id_for(host.public, b"\x05" * 16)
    lobby.seat(ana.public, "Ana")
    body = lobby.open_body()
    seats = [mallory.public, ana.public]
    forger = TablePeer(mallory, 0, lobby.table_id, SeededRandom(7))
    with pytest.raises(ValueError):  # the honest code refuses to sign it
        forger.open_table(TrutGame(config), seats, nonce=body["nonce"])
    for nonce in (body["nonce"], b"\x06" * 16):  # so build it by hand
        forged = sign_entry(mallory, table=lobby.table_id, seat=0, seq=0, prev=GENESIS,
                            type="open", body={**body, "seats": seats, "nonce": nonce})  # fmt: skip
        guest = TablePeer(ana, 1, lobby.table_id, SeededRandom(6))
        with pytest.raises(Rejected, match="bound"):
            guest.receive(forged.wire)
        assert guest.replica.phase == "open" and not guest.replica.log.entries
    real = TablePeer(host, 0, lobby.table_id, SeededRandom(5)).open_table(
        TrutGame(config), body["seats"], body["names"], nonce=body["nonce"]
    )
    guest.receive(real)
    assert guest.replica.seats == [host.public, ana.public]


def _signed_by_turn(peer, body, kind):
    replica = peer.replica
    return sign_entry(
        peer.identity,
        table=replica.table_id,
        seat=peer.seat,
        seq=replica.log.next_seq(peer.identity.public),
        prev=replica.log.head,
        type=kind,
        body=body,
    ).wire


@pytest.mark.parametrize("stop_at", [1, 4, 9, 14, 20])
def test_any_body_from_the_seat_to_write_is_refused_cleanly(stop_at):
    """7.5: whatever the seat whose turn it is signs, a replica refuses it with
    ``Rejected`` (and stops on a blame), never with another exception."""
    from tests.protocol.test_protocol_rounds import followers

    table = play_memory_game(
        TrutGame(TrutConfig(3)), "bodies", ["random"] * 3, lambda t: len(t.log) >= stop_at
    )
    seat, kinds = table.peers[0].replica.expected()
    writer = table.peers[seat]
    odd_values = [None, -1, 2**40, "x", b"\x00" * 33, [1], {"a": 1}]
    honest = {
        "keys": {"key", "proof"},
        "commit": {"commit"},
        "reveal": {"value"},
        "shuffle": {"deck"},
        "shares": {"shares"},
        "act": {"action", "shares"},
        "seal": {"commit"},
        "unseal": {"salt", "action", "shares"},
        "void": {"seat", "votes", "identity", "elgamal", "proof", "name"},
    }
    tried = 0
    judges = followers(table, table.log)  # the log's proofs checked once for all judges
    for kind in (*kinds, "void"):
        fields = honest.get(kind, set())
        bodies = [{}, {"junk": 1}, *({f: v for f in fields} for v in odd_values)]
        for name in fields:
            bodies += [{**{f: b"" for f in fields}, name: v} for v in odd_values]
        for body in bodies:
            judge = judges()
            with pytest.raises(Rejected):
                judge.receive(_signed_by_turn(writer, body, kind))
            tried += 1
    assert tried > 20


def test_a_handler_broken_by_a_body_refuses_the_entry_like_any_other(monkeypatch):
    """Defence in depth: should a body slip past a schema check and break a handler,
    the entry is refused as a schema error with a blame (every replica alike), and
    no other exception escapes to the runtime."""
    from trutnet.protocol.table import TableReplica

    table = play_memory_game(
        TrutGame(TrutConfig(2)), "broken", ["random"] * 2, lambda t: len(t.log) >= 3
    )
    seat, kinds = table.peers[0].replica.expected()
    writer = table.peers[seat]
    judge = TableReplica(writer.replica.table_id)
    for wire in table.log:
        judge.receive(wire)

    wire = writer.next_automatic()

    def broken(self, entry, body):
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(TableReplica, f"_on_{kinds[0]}", broken)
    with pytest.raises(Rejected, match="schema") as caught:
        judge.receive(wire)
    assert caught.value.blame is not None and caught.value.blame.seat == seat
    assert judge.halted is not None


def test_a_lobby_announcement_counts_only_signed_by_the_tables_host():
    """9.1, 7.10: a retained lobby message forged by anyone else, or for another table,
    is refused, so no one can hide a table or point `tables` at another broker."""
    import msgpack

    from trutnet.crypto import Identity
    from trutnet.net.broker import Endpoint
    from trutnet.protocol.lobby import (
        Lobby,
        LobbyError,
        check_announcement,
        sign_announcement,
    )
    from trutnet.runtime.seat_process import announcement

    host, mallory = (Identity.generate(SeededRandom(s)) for s in (1, 2))
    lobby = Lobby(TrutGame(TrutConfig(2)), host, "Host", b"\x01" * 16)
    message = announcement(lobby, "Host's table", Endpoint("10.0.0.1", 1883), "open")
    wire = sign_announcement(host, lobby.table_id, message)
    live = check_announcement(wire, lobby.table_id)
    assert live["broker"] == "mqtt://10.0.0.1:1883" and "nonce" not in live
    elsewhere = {**message, "broker": "mqtt://10.6.6.6:1883"}
    for bad in (
        b"",
        msgpack.packb(message | {"nonce": None}),  # the old unsigned form
        sign_announcement(mallory, lobby.table_id, elsewhere),  # forged
        sign_announcement(mallory, lobby.table_id, {**elsewhere, "host": "x"}),
        sign_announcement(host, lobby.table_id, {**message, "status": "free"}),
        sign_announcement(host, lobby.table_id, {**message, "taken": "2"}),
        sign_announcement(host, lobby.table_id, {**message, "hints": True}),  # only false
        sign_announcement(host, lobby.table_id, {**message, "hints": "no"}),
        b"\x91" * 5000,
    ):
        with pytest.raises(LobbyError):
            check_announcement(bad, lobby.table_id)
    with pytest.raises(LobbyError):
        check_announcement(wire, b"\x02" * 16)  # another table
    assert "hints" not in live  # said only when the host asks for none
    quiet = announcement(lobby, "t", Endpoint("10.0.0.1", 1883), "open", hints=False)
    assert (
        check_announcement(sign_announcement(host, lobby.table_id, quiet), lobby.table_id)["hints"]
        is False
    )
