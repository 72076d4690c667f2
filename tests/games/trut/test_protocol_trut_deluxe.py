"""Whole Trut Deluxe games over the table protocol, in memory, with full crypto
[T23-T47]: the preparation's shuffle and private round, `keep` by position, the kept
specials carried into the first deck, every later deck re-shuffled into the talon
(T26, D17), dice as commit-reveals. After every step, no seat's replica knows a card
it was not dealt or shown (its hand, its two specials while it chooses, played
cards)."""

from __future__ import annotations

import random

import pytest

from tests.tables import new_memory_table, play_memory_game
from trutnet.engine.hidden import Pos
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.memory_table import MemoryTable, step
from trutnet.protocol.envelope import parse_entry
from trutnet.protocol.spectator import Spectator

WEASEL_SEED = "weasel-86"  # 3 players, random bots: an exchange and a hand replaced (T37)
LOOKS: list[int] = []
SHOWN: dict[tuple[int, int, str], set[int]] = {}  # (seat, hand, deck) -> positions shown


def _knows_only_what_it_was_shown(table: MemoryTable) -> bool:
    """After every step: each seat's replica knows a card of the hand's deck only if
    the description put it in that seat's sight at some point of the hand (its cards,
    the Falcon's look, the Nutria's offer), or it was shown to everyone (played,
    the Falcon, the Hare's card)."""
    for seat, peer in enumerate(table.peers):
        state = peer.replica.state
        if state is None or state.next_stock == 0:
            continue
        key = (seat, state.hand_number, state.deck_name)
        shown = SHOWN.setdefault(key, set())
        shown |= {p.index for p in state.sight().get(seat, ()) if p.deck == state.deck_name}
        played = {p for cards, _, _ in state.tricks for _, p, _ in cards}
        played |= {p for _, p, _ in state.trick} | set(state.nutria_gone)
        public = played | set(state.hare_drawn) | ({state.falcon_at} - {None})
        assert set(state.known) <= shown | public, (seat, sorted(state.known), sorted(shown))
        if state._falcon_sight(seat):
            LOOKS.append(seat)
        if not state.carried:  # the preparation: its own two specials at most
            assert len(state.pool_known) <= 2
    return False


@pytest.mark.parametrize(
    "players, variant",
    # first to 7 Longs at 4, first to 5 (the shorter game) at the other counts; at 6
    # from 3 Longs each (the last hands: 6 seats' rounds cost the most)
    [(2, "gatinaise"), (3, "gatinaise"), (4, "classic"), (4, "gatinaise"), (6, "gatinaise")],
)
def test_whole_deluxe_games_over_the_table_with_full_crypto(players, variant):
    start = StartPosition((3, 3), (0, 0), 0) if players == 6 else None
    game = TrutGame(TrutConfig(players, variant, deluxe=True, bonus_cards=True, start=start))
    table = play_memory_game(
        game, f"deluxe-{players}-{variant}", ["heuristic"] * players, _knows_only_what_it_was_shown
    )
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    assert len({r.state.state_hash() for r in replicas}) == 1
    state = replicas[0].state
    assert state.is_terminal() and state.hand_number >= 1
    entries = [parse_entry(w) for w in table.log]
    # T25: one `keep` per seat, a position only
    keeps = [e.body["action"] for e in entries if e.type == "act"]
    keeps = [a for a in keeps if a.startswith("keep @") and " " not in a[5:]]
    assert len(keeps) == players
    # Every seat shuffles the pool once, then every deal's deck: the 18 specials,
    # then 32 + n cards each time (the first from french32, the others the talon),
    # one less while the Hedgehog is set aside (T42)
    sizes = [int.from_bytes(e.body["deck"][:2], "big") for e in entries if e.type == "shuffle"]
    assert sizes[:players] == [18] * players
    assert len(sizes) == players * (state.hand_number + 2)
    assert set(sizes[players:]) <= {32 + players, 31 + players}


def test_the_falcon_is_shown_and_its_holder_alone_sees_the_partners_cards():
    """T33 over the table: the table finds the Falcon (a `Locate`: `blind` and
    `unblind` rounds, 8.12) and every replica applies `falcon E@p`; the partners' cards
    are disclosed to its holder alone (shares sealed to a second viewer, 8.8)."""
    LOOKS.clear()
    game = TrutGame(TrutConfig(4, deluxe=True))

    def until_seen(table: MemoryTable) -> bool:  # checked at every step, up to the look
        _knows_only_what_it_was_shown(table)
        state = table.peers[0].replica.state
        return bool(LOOKS) and any(e["event"] == "falcon" for e in state.events)

    table = play_memory_game(game, "falcon-4", ["heuristic"] * 4, until_seen)
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    shown = [e for e in replicas[0].state.events if e["event"] == "falcon"]
    assert shown and LOOKS  # some holder knew its partner's cards, and no one else did
    acts = [parse_entry(w).body.get("action", "") for w in table.log]
    assert not any(a.startswith("falcon") for a in acts)  # nobody declares it
    history = [str(a) for a in replicas[0].state.history()]
    assert any(a.startswith("falcon E@") for a in history)


@pytest.mark.parametrize("seed", ["powers-22", "powers-7"])
def test_the_nutria_and_the_hare_over_the_table(seed):
    """T34, T35 over the table: the Hare's card and an even Nutria's are public rounds;
    an odd Nutria's two cards are shown to its player alone, who picks one by position
    (revealed); no replica learns the other."""
    game = TrutGame(TrutConfig(4, deluxe=True, bonus_cards=True, michao_hare=True))

    picked = [0, False]  # entries read so far, and whether one was a Nutria's pick

    def seen(table: MemoryTable) -> bool:
        events = [e["event"] for e in table.peers[0].replica.state.events]
        if seed != "powers-22":
            return "hare" in events
        for wire in table.log[picked[0] :]:
            picked[1] = picked[1] or parse_entry(wire).body.get("action", "").startswith("pick @")
        picked[0] = len(table.log)
        return picked[1] and "nutria" in events

    def until_seen(table: MemoryTable) -> bool:  # checked at every step, up to the power
        _knows_only_what_it_was_shown(table)
        state = table.peers[0].replica.state
        if state is None or state.trick:  # to the end of a trick
            return False
        return state.is_terminal() or seen(table)

    table = play_memory_game(game, seed, ["random"] * 4, until_seen)
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    assert len({r.state.state_hash() for r in replicas}) == 1
    assert seen(table)


def _moved_cards(state, since: int) -> list[tuple[int, int, int]]:
    """T37: (receiver, position, previous holder or -1 for the stock) of the cards that
    changed hands by the Weasel (an exchange, or a hand replaced) in ``events[since:]``."""
    moved: list[tuple[int, int, int]] = []
    for event in state.events[since:]:
        if event["event"] == "weasel_swap":
            moved.append((event["seat"], event["taken"], event["target"]))
            moved.append((event["target"], event["given"], event["seat"]))
        elif event["event"] == "weasel_replace":
            moved += [(event["seat"], p, -1) for p in event["positions"]]
    return moved


def test_the_weasels_exchange_and_new_hand_are_seen_by_their_new_owners_alone():
    """T37 over the table with full crypto: after an exchange (outcome 1) each card is
    disclosed to its new owner (its first owner seals its share to it, 8.8); after a
    hand replaced (outcome 3) the new cards to the target alone. No other seat and no
    spectator ever knows them (until they are played)."""
    game = TrutGame(TrutConfig(3, deluxe=True))
    table = new_memory_table(game, WEASEL_SEED, ["random"] * 3)
    spectator = Spectator(table.peers[0].replica.table_id)
    fed, learned = 0, set()
    while True:
        for wire in table.log[fed:]:
            assert spectator.receive(wire) is not None
        fed = len(table.log)
        _knows_only_what_it_was_shown(table)
        state = table.peers[0].replica.state
        if state is not None and state.next_stock and not state.is_terminal():
            played = {p for cards, _, _ in state.tricks for _, p, _ in cards}
            played |= {p for _, p, _ in state.trick}
            since = max(i for i, e in enumerate(state.events) if e["event"] == "deal")
            for receiver, index, before in _moved_cards(state, since):
                pos = Pos(state.deck_name, index)
                if index in played or index not in state.holdings[receiver]:
                    continue
                for peer in table.peers:
                    known = peer.replica.state.identity_of(pos)
                    if peer.seat == receiver and known is not None:
                        learned.add((state.hand_number, index, before >= 0))
                        if before >= 0:  # the first owner decrypted it too: the same card
                            first = table.peers[before].replica.state.identity_of(pos)
                            assert first in (None, known)
                    elif peer.seat not in (receiver, before):
                        assert known is None, (peer.seat, pos)
                assert spectator.replica.state.identity_of(pos) is None
        if not step(table):
            break
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    assert len({r.state.state_hash() for r in replicas}) == 1
    assert spectator.replica.state.state_hash() == replicas[0].state.state_hash()
    assert any(swapped for _, _, swapped in learned)  # an exchanged card reached its owner
    assert any(not swapped for _, _, swapped in learned)  # so did a replaced hand's card


def test_the_set_aside_hedgehog_stays_out_of_the_deck_and_comes_back_over_the_table():
    """T42, D21 over the table: while the set-aside Hedgehog protects, each deal's
    shuffle leaves its ciphertext where it lies (32 + n - 1 cards, into `talon2` when it
    lies in `talon`); once the protection ends, the next shuffle carries it back."""
    decks: list[str] = []

    def watch(table: MemoryTable) -> bool:
        state = table.peers[0].replica.state
        if state is not None and (not decks or decks[-1] != state.deck_name):
            decks.append(state.deck_name)
        return _knows_only_what_it_was_shown(table)

    game = TrutGame(TrutConfig(2, deluxe=True))
    table = play_memory_game(game, "hedgehog-42", ["heuristic"] * 2, watch)
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    assert len({r.state.state_hash() for r in replicas}) == 1
    events = [e["event"] for e in replicas[0].state.events]
    assert "hedgehog_aside" in events and "hedgehog_ends" in events
    entries = [parse_entry(w) for w in table.log]
    sizes = [int.from_bytes(e.body["deck"][:2], "big") for e in entries if e.type == "shuffle"]
    deals = sizes[2::2]  # the pool's shuffles first, then two per deal
    assert 33 in deals and deals[-1] == 34  # out of the deck, then back
    assert "talon2" in decks


def _replace_seat_1(table: MemoryTable, ready) -> None:
    """Run ``table`` until ``ready`` and seat 1 is due to write, kill seat 1 and seat
    a newcomer in its place (7.7): the void that follows re-keys the table (D22)."""
    from tests.protocol.test_protocol_replace import newcomer, run_to, waits_for
    from trutnet.bots import make_bot
    from trutnet.protocol.replace import pick_quorum

    waiting = waits_for(1, "game")
    run_to(table, lambda t: ready(t) and waiting(t))
    table.kill(1)
    replica = table.peers[0].replica
    head, hand = replica.log.head, replica.state.hand_number
    taker = newcomer(table)
    offer = taker.offer(1, "Nia")
    offer_id = parse_entry(offer).id
    votes = {0: table.peers[0].vote(1, offer_id), 3: table.peers[3].vote(1, offer_id)}
    chosen = pick_quorum(
        votes,
        {offer_id: offer},
        taker.replica.table_id,
        taker.replica.seats,
        taker.replica.state.team_of,
        head,
        1,
        hand,
    )
    assert chosen is not None
    wire = table.peers[3].replace(1, chosen[1], offer)
    taker.receive(wire)
    table.broadcast(wire)
    assert taker.seated() and taker.seat == 1
    table.peers[1] = taker
    table.down.discard(1)
    table.bots[1] = make_bot("trut", "heuristic", random.Random(1))


def test_after_a_void_the_protecting_hedgehog_stays_aside_over_the_table():
    """T42 (amended), D22, 7.7 over the table: a seat is replaced while the set-aside
    Hedgehog protects its team. The void re-keys the table and prepares a new pool of
    13; the table finds the Hedgehog in it by plaintext-equality tests, keeps that
    position aside, deals the specials from the others, and no deck holds it until
    the protection ends."""

    def protecting(t: MemoryTable) -> bool:
        state = t.peers[0].replica.state
        return (
            state is not None
            and state.hedgehog_aside is not None
            and (state.hedgehog_team is not None)
        )

    game = TrutGame(TrutConfig(4, deluxe=True))
    table = new_memory_table(game, "hedgehog-5", ["heuristic"] * 4)  # aside in hand 2
    _replace_seat_1(table, protecting)
    state = table.peers[0].replica.state
    team = state.hedgehog_team
    assert state.phase == "prepare" and state.hedgehog_fresh  # D22: the specials again
    found: list[Pos] = []

    def watch(t: MemoryTable) -> bool:
        state = t.peers[0].replica.state
        if state.phase == "choose" and not found:
            found.append(state.hedgehog_aside)
            dealt = {p for h in state.pool_holdings for p in h}
            assert state.hedgehog_aside.index not in dealt  # not among the specials
        if state.hedgehog_team is not None and state.next_stock:
            known = {str(c) for r in t.peers for c in r.replica.state.known.values()}
            assert "M" not in known  # in no deck while it protects
        return _knows_only_what_it_was_shown(t)

    stays = {"event": "hedgehog_stays", "team": team}
    while step(table):
        watch(table)
        state = table.peers[0].replica.state
        if stays in state.events and state.hedgehog_team is None:
            break  # the protection is over: what follows is an ordinary game
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and stays in replicas[0].state.events
    assert len({r.state.state_hash() for r in replicas}) == 1
    assert found and found[0].deck == "specials"
    entries = [parse_entry(w) for w in table.log]
    assert any(e.type == "blind" for e in entries)  # the table looked for it


def test_a_stalled_seat_is_replaced_after_the_first_deluxe_hand():
    """7.7, D16, D22: after the first Deluxe hand the next deck would carry the
    previous one's ciphertexts, which die with the replaced seat's key; the void
    prepares the specials again, so the table can re-key and the game goes on."""
    from tests.protocol.test_protocol_replace import newcomer, run_to, waits_for
    from trutnet.bots import make_bot
    from trutnet.protocol.replace import pick_quorum

    table = new_memory_table(TrutGame(TrutConfig(4, deluxe=True)), "take-2", ["heuristic"] * 4)
    waiting = waits_for(1, "game")

    def later_hand(t: MemoryTable) -> bool:
        state = t.peers[0].replica.state
        return state is not None and state.hand_number >= 1 and waiting(t)

    run_to(table, later_hand)
    table.kill(1)
    replica = table.peers[0].replica
    assert replica.state.carried and replica.can_void(1)  # the carried deck is no obstacle
    head, hand = replica.log.head, replica.state.hand_number
    taker = newcomer(table)
    offer = taker.offer(1, "Nia")
    offer_id = parse_entry(offer).id
    votes = {0: table.peers[0].vote(1, offer_id), 3: table.peers[3].vote(1, offer_id)}
    chosen = pick_quorum(
        votes,
        {offer_id: offer},
        taker.replica.table_id,
        taker.replica.seats,
        taker.replica.state.team_of,
        head,
        1,
        hand,
    )
    assert chosen is not None
    wire = table.peers[3].replace(1, chosen[1], offer)
    taker.receive(wire)
    table.broadcast(wire)
    assert taker.seated() and taker.seat == 1
    table.peers[1] = taker
    table.down.discard(1)
    table.bots[1] = make_bot("trut", "heuristic", random.Random(1))
    state = table.peers[0].replica.state
    assert state.phase == "prepare" and not state.carried  # D22: the specials again
    # the game goes on: two more hands (their decks carried again), the newcomer in
    while step(table) and table.peers[0].replica.state.hand_number < hand + 2:
        pass
    replicas = [p.replica for p in table.peers]
    assert replicas[0].state.hand_number == hand + 2 and not table.rejected
    assert len({r.state.state_hash() for r in replicas}) == 1
    assert any(e.seat == 1 and e.author == taker.identity.public for e in replicas[0].log.entries)
    events = [e["event"] for e in replicas[0].state.events]
    assert "prepare_again" in events and events.count("prepare") == 2


def test_a_start_positions_set_aside_hedgehog_comes_back_through_its_own_deck():
    """D23 over the table: a game started with the Hedgehog set aside prepares a pool
    without it; once the protection ends, a talon deal shuffles the `hedgehog` deck
    (its one card) carrying the previous deck, with full crypto."""
    decks: list[str] = []

    def watch(table: MemoryTable) -> bool:
        state = table.peers[0].replica.state
        if state is not None and (not decks or decks[-1] != state.deck_name):
            decks.append(state.deck_name)
        return _knows_only_what_it_was_shown(table)

    start = StartPosition((0, 0), (2, 0), 0, hedgehog=0)
    game = TrutGame(TrutConfig(2, deluxe=True, start=start))
    table = play_memory_game(game, "fresh-0", ["heuristic"] * 2, watch)
    replicas = [p.replica for p in table.peers]
    assert not table.rejected and all(r.halted is None for r in replicas)
    assert len({r.state.state_hash() for r in replicas}) == 1
    entries = [parse_entry(w) for w in table.log]
    sizes = [int.from_bytes(e.body["deck"][:2], "big") for e in entries if e.type == "shuffle"]
    assert sizes[:2] == [12, 12]  # the pool without the Hedgehog
    assert "hedgehog" in decks and 35 in sizes  # it came back: 32 + 2 kept + itself
