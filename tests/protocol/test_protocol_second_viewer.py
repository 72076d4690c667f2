"""A position shown to a second seat, and a shuffle that carries positions of another
deck, over the table protocol with full crypto: the test game Tokens with its
``deluxe`` option (tests/games/tokens.py: the exile, the peek, the watch).

The second viewer learns exactly the card (its first viewer's share reaches it sealed,
``docs/protocol.md`` 8.8); a replica with no seat never knows or could read a hidden
card; a bad sealed share is blamed on its author; the carried card moves into the
other deck still encrypted, and is read through its own deck's card table.
"""

from __future__ import annotations

import pytest

from tests.games.tokens import DECKS, TokensGame
from tests.protocol.test_protocol_tokens import _recorded, _refused_by, description_rounds, forge
from tests.tables import new_memory_table, play_memory_game
from trutnet.crypto import (
    CardTable,
    CryptoError,
    KeyPair,
    SealedShares,
    SeededRandom,
    ShareBatch,
    combine,
    decode_shuffle,
    own_share,
    seal_shares,
)
from trutnet.engine import GAMES, register_game
from trutnet.engine.hidden import Pos
from trutnet.memory_table import step
from trutnet.protocol.envelope import parse_entry
from trutnet.protocol.spectator import Spectator
from trutnet.protocol.table import EVERYONE, TYPE_LIMITS, Rejected, TableReplica

SEEDS = [f"deluxe-{k}" for k in range(5)]
TOTAL = 12  # cards of both decks: deck1's carried slot deck1@6 is table position 24


@pytest.fixture(autouse=True)
def _tokens_registered():
    register_game(TokensGame)
    yield
    GAMES.pop("tokens")


def number(pos: Pos) -> int:
    """The table position of ``pos`` (7.4), computed here from the spec's formula."""
    j, own = int(pos.deck[-1]), 6
    return 6 * j + pos.index if pos.index < own else TOTAL * (j + 1) + pos.index - own


def truth(table, pos: Pos) -> str:
    """The card at ``pos``, decrypted with every seat's secret: what no peer can do."""
    replica = table.peers[0].replica
    ciphertext = replica.decks.ciphertext(pos)
    point = combine(ciphertext, [own_share(p.elgamal, ciphertext) for p in table.peers])
    for deck in DECKS:
        try:
            return deck.cards[CardTable(deck.name, 6).index_of(point)]
        except CryptoError:
            continue
    raise AssertionError(f"{pos} holds no card")


def readable(entries) -> set[int]:
    """Table positions whose every seat's share is in the clear in the log: read from
    the entries here, not by the table code (Tokens shuffles each deck once)."""
    shares: dict[int, set[int]] = {}
    for entry in entries:
        if "shares" in entry.body and entry.type in ("shares", "act", "unseal"):
            batch = ShareBatch.from_bytes(entry.body["shares"])
            for pos in batch.positions:
                shares.setdefault(pos, set()).add(batch.seat)
    return {pos for pos, seats in shares.items() if seats == {0, 1}}


@pytest.mark.parametrize("rounds", [1, 3])
@pytest.mark.parametrize("seed", SEEDS)
def test_deluxe_games_over_the_table_with_full_crypto(seed, rounds):
    table = play_memory_game(TokensGame(rounds, deluxe=True), seed, ["random"] * 2)
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and {r.phase for r in replicas} == {"done"}
    assert len({r.state.state_hash() for r in replicas}) == 1
    state = replicas[0].state
    entries = [parse_entry(w) for w in table.log]
    # deck0's shuffles hold its six cards; deck1's the six and the carried one.
    shuffles = [e.body["deck"] for e in entries if e.type == "shuffle"]
    sizes = (6, 6, 7, 7)
    assert [len(decode_shuffle(d, n)[0]) for d, n in zip(shuffles, sizes, strict=True)] == [*sizes]
    # The peek: the seat shown the card first seals its share to the first seat, alone.
    first = state.history()[0].seat  # the coin's seat peeks, before any watch
    peeked = state.watched[first][0]
    sealed = [e for e in entries if e.type == "shares" and "sealed" in e.body]
    peek = SealedShares.from_bytes(sealed[0].body["sealed"][0])
    assert (sealed[0].seat, peek.seat, peek.to) == (1 - first, 1 - first, first)
    assert peek.positions == (number(peeked),)
    assert set(sealed[0].body) == {"sealed"}  # its other share is in the clear already
    # Seat 1's hand is deck1@4..6: the carried slot's shares are numbered 24.
    numbers = {p for e in entries if e.type == "shares" and "shares" in e.body
               for p in ShareBatch.from_bytes(e.body["shares"]).positions}  # fmt: skip
    assert number(Pos("deck1", 6)) == 24 and 24 in numbers
    # The table's rounds are the description's, round for round; a replica with no seat
    # replays the log to the same state.
    spectator, shown = _recorded(replicas[0].table_id, table.log)
    assert shown == description_rounds(state.game, state.history())
    assert spectator.state.state_hash() == state.state_hash()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_second_viewer_learns_exactly_the_card_and_no_one_else_reads_it(seed):
    """After every entry: each seat knows of the other's positions only those it was
    shown (the peek, the watch) or that are public, and knows them right; seat 0 loses
    track of its exiled card; a spectator knows only public cards, and the log's clear
    shares let no one read any other: the sealed shares count for no one but their
    recipient."""
    table = new_memory_table(TokensGame(3, deluxe=True), seed, ["random"] * 2)
    spectator = Spectator(table.peers[0].replica.table_id)
    fed, checked_watched, exiled = 0, 0, None
    while True:
        for wire in table.log[fed:]:
            assert spectator.receive(wire) is not None
        fed = len(table.log)
        replica = spectator.replica
        state = replica.state
        if state.to_shuffle == ["deck1"]:
            exiled = truth(table, Pos("deck0", 0))  # the card about to be carried
        held = {p for ps in state.holders().values() for p in ps}
        public = set(replica.revealed)
        showing = set(replica.shares.owners.get(EVERYONE, ())) if replica.shares else set()
        assert {p for p in held if state.identity_of(p)} <= public
        log_read = readable(replica.log.entries)
        assert {number(p) for p in public} <= log_read
        assert log_read <= {number(p) for p in public | showing | {Pos("deck0", 0)}}
        assert number(Pos("deck0", 0)) not in log_read  # the exiled card: never readable
        for peer in table.peers:
            mine, theirs = peer.replica.state, 1 - peer.seat
            seen = set(mine.watched[peer.seat]) | public
            other = {p for p in held if p in state.hands[theirs] or p in state.stocks[theirs]}
            known = {p for p in other if mine.identity_of(p) is not None}
            assert known <= seen, (peer.seat, known - seen)
            for pos in known:
                assert mine.identity_of(pos) == truth(table, pos)
                checked_watched += pos in mine.watched[peer.seat]
            if exiled is not None and not state.to_shuffle:  # after the exile
                where = [p for p in held if p.deck == "deck1" and truth(table, p) == exiled]
                assert len(where) == 1  # the red card is in deck1, and only seat 1 may
                assert peer.seat == 1 or where[0] in seen or not mine.identity_of(where[0])
        if not step(table):
            break
    assert not table.rejected and spectator.replica.phase == "done"
    assert checked_watched > 0 and exiled is not None


def _until_sealing(table, after: int = 0) -> tuple[int, dict]:
    """Play until a seat must write a ``shares`` entry that seals shares (the ``after``-th
    such entry); that seat and its plan."""
    seen = 0
    while True:
        replica = table.peers[0].replica
        expected = replica.expected()
        if expected[1] == ("shares",) and replica.shares.sealed_for(expected[0]):
            if seen == after:
                return expected[0], replica.shares.sealed_for(expected[0])
            seen += 1
        assert step(table)


def _sealed(peer, to: int, positions, key=None, round_=None, recipient=None) -> bytes:
    replica = peer.replica
    context = replica.context("disclose", round_)
    return seal_shares(
        key or peer.elgamal,
        peer.seat,
        recipient or replica.elgamal[to],
        to,
        [replica.decks.number(p) for p in positions],
        [replica.decks.ciphertext(p) for p in positions],
        context,
        SeededRandom("cheat"),
    ).to_bytes()


@pytest.mark.parametrize(
    "how,rule",
    [
        ("no sealed field", "schema"),
        ("shares in the clear besides", "schema"),
        ("not a list", "schema"),
        ("two batches", "schema"),
        ("a string", "schema"),
        ("too long a batch", "schema"),
        ("truncated", "share-proof"),
        ("another position", "shares"),
        ("another share", "share-proof"),
        ("encrypted to another key", "share-proof"),
        ("another round", "share-proof"),
        ("tampered", "share-proof"),
        ("replayed", "shares"),
    ],
)
def test_a_bad_sealed_share_stops_the_table_with_a_blame_on_its_author(how, rule):
    table = new_memory_table(TokensGame(3, deluxe=True), "sealed-blame-1", ["random"] * 2)
    earlier = None
    if how == "replayed":  # the first sealed batch, offered again in a later round
        seat, plan = _until_sealing(table)
        earlier = table.peers[seat]._shares()["sealed"]
        assert step(table)
        seat, plan = _until_sealing(table)
    else:
        seat, plan = _until_sealing(table)
    peer = table.peers[seat]
    ((to, positions),) = plan.items()
    honest = peer._shares()
    good = honest["sealed"][0]
    other = next(p for p in peer.replica.state.hands[seat] if p not in positions)
    stranger = KeyPair.generate(SeededRandom("stranger"))
    bodies = {
        "no sealed field": {k: v for k, v in honest.items() if k != "sealed"},
        "shares in the clear besides": {
            **honest,
            "shares": peer.replica.decks.make(
                peer.elgamal, seat, positions, peer.replica.context("disclose"), peer.rng
            ).to_bytes(),
        },
        "not a list": {**honest, "sealed": good},
        "two batches": {**honest, "sealed": [good, good]},
        "a string": {**honest, "sealed": ["x"]},
        "too long a batch": {**honest, "sealed": [good + bytes(68)]},
        "truncated": {**honest, "sealed": [good[:-1]]},
        "another position": {**honest, "sealed": [_sealed(peer, to, [other])]},
        "another share": {**honest, "sealed": [_sealed(peer, to, positions, key=stranger)]},
        "encrypted to another key": {
            **honest,
            "sealed": [_sealed(peer, to, positions, recipient=stranger.public)],
        },
        "another round": {
            **honest,
            "sealed": [_sealed(peer, to, positions, round_=peer.replica.round_number() + 1)],
        },
        "tampered": {**honest, "sealed": [good[:-33] + bytes([1]) + good[-32:]]},
        "replayed": {**honest, "sealed": earlier},
    }
    _refused_by(table, seat, forge(peer, "shares", bodies[how]), rule)


def test_an_oversized_sealed_entry_is_dropped_unread_and_blames_no_one():
    table = new_memory_table(TokensGame(1, deluxe=True), "sealed-size", ["random"] * 2)
    seat, _ = _until_sealing(table)
    peer = table.peers[seat]
    wire = forge(peer, "shares", {"sealed": [bytes(TYPE_LIMITS["shares"])]})
    judge = table.peers[1 - seat]
    with pytest.raises(Rejected) as exc:
        judge.receive(wire)
    assert exc.value.rule == "size" and exc.value.blame is None
    assert judge.replica.halted is None
    table.broadcast(peer.next_automatic())  # the honest entry still goes through
    assert not table.rejected


@pytest.mark.parametrize("value", [None, -1, 2**40, "x", b"\x00" * 33, [1], {"a": 1}, [b""]])
def test_any_sealed_field_is_refused_cleanly(value):
    """7.5: whatever ``sealed`` holds, a replica refuses it with ``Rejected`` and a blame
    on the author, never another exception."""
    table = new_memory_table(TokensGame(1, deluxe=True), "sealed-odd", ["random"] * 2)
    seat, _ = _until_sealing(table)
    peer = table.peers[seat]
    honest = peer._shares()
    for body in ({**honest, "sealed": value}, {"sealed": value, "shares": value}):
        judge = TableReplica(peer.replica.table_id)
        for wire in table.log:
            judge.receive(wire)
        with pytest.raises(Rejected) as exc:
            judge.receive(forge(peer, "shares", body))
        assert exc.value.halt and exc.value.blame.seat == seat


@pytest.mark.parametrize("deluxe", [False, True])
def test_no_seat_is_replaced_before_a_shuffle_that_carries_old_ciphertexts(deluxe):
    """7.7: a ``void`` re-keys the table, so the next step must shuffle every deck from
    its open deck: a shuffle that carries ciphertexts (under the old joint key) rules
    the replacement out. Here the holders are hidden from the check, so that only the
    carry decides."""
    table = new_memory_table(TokensGame(1, deluxe=deluxe), "void-carry", ["random"] * 2)
    replica = table.peers[1].replica
    while not (replica.phase == "shuffle" and replica.step.deck == "deck1"):
        assert step(table)
    seat = replica.expected()[0]
    replica.state.holders = dict  # as if nothing were held
    assert bool(replica.step.carry) == deluxe
    assert replica.can_void(seat) is not deluxe
