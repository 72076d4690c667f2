"""Spectators (issue 11, item 5), without a network: a replica with no seat follows
whole games with full crypto and never knows a card the public log does not reveal;
a spectator's signed presence is checked like every input from the network."""

from __future__ import annotations

import pytest

from tests.tables import new_memory_table
from trutnet.crypto import CardTable, Identity, KeyPair, SeededRandom, ShareBatch, combine
from trutnet.crypto.identity import fingerprint
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.games.trut.rules.cards import card_from_index
from trutnet.memory_table import step
from trutnet.protocol.envelope import GENESIS, sign_entry
from trutnet.protocol.spectator import (
    LIVE_HEADS,
    MAX_WATCHER_BYTES,
    MAX_WATCHERS,
    Spectator,
    Watchers,
    check_watcher,
    watcher_message,
)
from trutnet.protocol.untrusted import UntrustedInput


class SingingBot:
    """Sings and agrees whenever it may (la Chanson, T19), truts au Fortial (T15)."""

    def choose(self, obs):
        words = {str(a): a for a in obs.legal}
        for choice in ("sing", "agree", "sing 1", "trut"):
            if choice in words:
                return words[choice]
        return obs.legal[0]


def log_reveals(entries, n, replica):
    """What the public log alone reveals of this hand's deck: every position for which
    the log holds a decryption share from every seat (shares rounds and the plays' own
    shares), decrypted with the public deck; and the positions played this hand.
    Computed here from the entries, not by the table code."""
    shares: dict[int, dict[int, object]] = {}
    played: set[int] = set()
    for entry in entries:
        if entry.type == "shuffle":
            shares, played = {}, set()  # a new hand's deck: the old shares are for others
        elif entry.type == "shares" or (entry.type == "act" and "shares" in entry.body):
            batch = ShareBatch.from_bytes(entry.body["shares"])
            for pos, share in zip(batch.positions, batch.shares, strict=True):
                shares.setdefault(pos, {})[batch.seat] = share
            if entry.type == "act":  # a play: ``play @N``
                played.add(int(entry.body["action"].partition("@")[2]))
    deck = replica.decks.ciphertexts.get("french32", ())
    cards = CardTable("french32", 32)
    reveals = {
        pos: card_from_index(cards.index_of(combine(deck[pos], list(s.values()))))
        for pos, s in shares.items()
        if len(s) == n and deck  # before the first deal there is no deck
    }
    return reveals, played


@pytest.mark.parametrize(
    "config,bot,hands",
    [
        # a whole game (the shorter one, first to 5) from the first-Donneur draw
        (TrutConfig(3, "gatinaise"), "heuristic", 99),
        (TrutConfig(4, start=StartPosition((6, 5), (2, 0), 1)), "singing", 3),  # Fortial
        (TrutConfig(4, "gatinaise", start=StartPosition((1, 2), (2, 2), 1)), "singing", 2),
    ],
    ids=["3p-whole-game", "4p-fortial", "4p-chanson"],
)
def test_a_spectator_knows_only_what_the_public_log_reveals(config, bot, hands):
    """After every entry of the game, the spectator's replica knows only cards whose
    every seat's share is in the log, and those are played cards; whenever a seat is
    to decide, it knows exactly the cards played this hand. Never a card in a hand, a
    Fortial opponent's withheld card, a card drawn for la Chanson or a discard. It
    holds no ElGamal key and is told no private round's result, and it ends on the
    players' state hash."""
    table = new_memory_table(
        TrutGame(config), f"spectator-{config.players}-{bot}", ["heuristic"] * config.players
    )
    if bot == "singing":
        table.bots = [SingingBot() for _ in range(config.players)]
    spectator = Spectator(table.peers[0].replica.table_id)
    n = config.players
    fed = 0
    checked_plays = 0
    hidden_seen = 0  # dealt positions the spectator was checked not to know
    events: set[str] = set()

    def feed() -> None:
        nonlocal fed, checked_plays, hidden_seen
        while fed < len(table.log):
            wire = table.log[fed]
            fed += 1
            assert spectator.receive(wire) is not None
            assert spectator.next_automatic() is None and not spectator.decide()
            replica = spectator.replica
            state = replica.state
            entries = replica.log.entries
            reveals, played = log_reveals(entries, n, replica)
            known = dict(state.known)
            assert set(reveals) <= played  # the log reveals no card that was not played
            assert known.items() <= reveals.items(), (known, reveals)
            if replica.phase == "game":  # between decisions: every played card, no other
                assert set(known) == played
                dealt = {p for h in state.holdings for p in h}
                assert dealt and not dealt & set(known)  # no card in anyone's hand
                hidden_seen += len(dealt)
                players = [p.replica.state for p in table.peers]  # each knows its own too
                assert all(known.items() <= s.known.items() for s in players)
                checked_plays += len(played)
            assert not set(state.discarded) & set(known)
            events.update(e["event"] for e in state.events)

    while step(table):
        feed()
        if table.peers[0].replica.state.hand_number >= hands:
            break
    feed()
    assert not table.rejected
    assert checked_plays > 0 and hidden_seen > 0
    assert spectator.replica.on_private is None
    assert not any(isinstance(v, KeyPair) for v in vars(spectator).values())
    assert spectator.replica.state.state_hash() == table.peers[0].replica.state.state_hash()
    if config.start is not None and config.variant == "gatinaise":
        assert "sing_draw" in events and "keep" in events
    elif config.start is not None:
        assert "fortial" in events
    else:
        assert spectator.replica.phase == "done"


def test_a_spectator_that_arrives_mid_game_reads_the_log_from_the_start():
    """Catch-up: a spectator handed the whole log so far (in order, as a sync from the
    genesis head answers) is at the players' head and state."""
    table = new_memory_table(TrutGame(TrutConfig(2)), "late", ["heuristic"] * 2)
    players = table.peers[0].replica
    while not (players.state.hand_number >= 2 and players.phase == "game") and step(table):
        pass
    spectator = Spectator(table.peers[0].replica.table_id)
    for wire in table.log:
        spectator.receive(wire)
    assert spectator.replica.log.head == players.log.head
    assert spectator.replica.state.state_hash() == players.state.state_hash()
    assert set(spectator.replica.state.known) < set(players.state.known)


# ------------------------------------------------------------------ presence

TABLE = bytes(range(16))


def identity(seed: int) -> Identity:
    return Identity.generate(SeededRandom(f"watcher/{seed}"))


def test_a_signed_presence_is_listed_and_an_empty_one_removes_it():
    eve = identity(1)
    fp = fingerprint(eve.public)
    wire = watcher_message(eve, TABLE, "Eve")
    assert len(wire) < MAX_WATCHER_BYTES
    book = Watchers(TABLE)
    assert book.receive(fp, wire) is True
    assert book.receive(fp, wire) is False  # retained again: nothing changed
    assert [(w.fingerprint, w.name) for w in book.listed()] == [(fp, "Eve")]
    assert book.receive(fp, b"") is True and book.listed() == []
    assert book.receive(fp, b"") is False


def hostile_presences():
    """(name, topic fingerprint, payload) that must never be listed."""
    eve, mallory = identity(1), identity(2)
    fp = fingerprint(eve.public)

    def entry(who=eve, table=TABLE, seat=0, seq=0, prev=GENESIS, type="watch", body=None):
        body = {"name": "Eve"} if body is None else body
        return sign_entry(
            who, table=table, seat=seat, seq=seq, prev=prev, type=type, body=body
        ).wire

    good = watcher_message(eve, TABLE, "Eve")
    return [
        ("unsigned", fp, good[:-64] + bytes(64)),
        ("bit flipped", fp, good[:-1] + bytes([good[-1] ^ 1])),
        ("oversized", fp, entry(body={"name": "Eve", "pad": "x" * MAX_WATCHER_BYTES})),
        ("long name", fp, entry(body={"name": "E" * 33})),
        ("control characters", fp, entry(body={"name": "Eve\x1b[2J"})),
        ("wrong key", fp, watcher_message(mallory, TABLE, "Eve")),
        ("other table", fp, watcher_message(eve, bytes(16), "Eve")),
        ("other type", fp, entry(type="done", body={})),
        ("extra field", fp, entry(body={"name": "Eve", "seat": 0})),
        ("not seq 0", fp, entry(seq=5)),
        ("plain msgpack", fp, b"\x81\xa4name\xa3Eve"),
        ("huge header", fp, b"\xdd\xff\xff\xff\xff"),
        ("reserved byte", fp, b"\xc1"),
        ("4 KiB of zeros", fp, bytes(4096)),
    ]


@pytest.mark.parametrize("case", hostile_presences(), ids=lambda c: c[0])
def test_a_hostile_presence_is_dropped_and_changes_nothing(case):
    _, fp, payload = case
    with pytest.raises(UntrustedInput):
        check_watcher(payload, TABLE, fp)
    book = Watchers(TABLE)
    eve = identity(1)
    book.receive(fingerprint(eve.public), watcher_message(eve, TABLE, "Eve (real)"))
    before = book.listed()
    with pytest.raises(UntrustedInput):
        book.receive(fp, payload)
    assert book.listed() == before


def test_the_list_of_watchers_is_capped_and_the_others_counted():
    book = Watchers(TABLE, limit=4)
    keys = [identity(k) for k in range(6)]
    for key in keys[:5]:
        assert book.receive(fingerprint(key.public), watcher_message(key, TABLE, "w"))
    assert len(book.listed()) == 4 and book.more() == 1  # a fifth: counted
    assert book.receive(fingerprint(keys[0].public), b"")
    assert [w.fingerprint for w in book.listed()][-1] == fingerprint(keys[4].public)
    assert book.more() == 0


def follow(book: Watchers, heads: list[bytes], renew: list[Identity]) -> None:
    """The log moves through ``heads``; each of ``renew`` says again it is there."""
    for head in heads:
        book.note_head(head)
        for key in renew:
            book.receive(fingerprint(key.public), watcher_message(key, TABLE, "Real", head))


HEADS = [bytes([k]) * 32 for k in range(1, 200)]


def test_a_live_spectator_keeps_its_place_whatever_comes_after_it():
    """Issue 19, 14: the real spectator is listed; then 40 made-up ones named "Host",
    renewed as the log moves like a real one: the real one stays first, they are
    listed after it up to the cap, and the rest are counted."""
    book = Watchers(TABLE)
    real = identity(0)
    follow(book, HEADS[:3], [real])
    flood = [identity(100 + k) for k in range(40)]
    for head in HEADS[3:40]:
        book.note_head(head)
        book.receive(fingerprint(real.public), watcher_message(real, TABLE, "Real", head))
        for key in flood:
            book.receive(fingerprint(key.public), watcher_message(key, TABLE, "Host", head))
        listed, more = book.view()
        assert listed[0].fingerprint == fingerprint(real.public)
        assert len(listed) == MAX_WATCHERS and more == 41 - MAX_WATCHERS


def test_presences_that_are_not_renewed_go_stale_and_free_the_list():
    """Forged presences posted once (or replayed) before the real spectator came: it is
    counted, then listed once the log has moved past theirs; memory stays bounded."""
    book = Watchers(TABLE)
    book.note_head(HEADS[0])
    for k in range(40):
        key = identity(100 + k)
        book.receive(fingerprint(key.public), watcher_message(key, TABLE, "Host", HEADS[0]))
    real = identity(0)
    follow(book, HEADS[1:2], [real])
    listed, more = book.view()
    assert fingerprint(real.public) not in [w.fingerprint for w in listed] and more == 9
    follow(book, HEADS[2 : 2 + LIVE_HEADS], [real])
    assert [w.fingerprint for w in book.listed()] == [fingerprint(real.public)]
    # A replay of an old presence of the real one names an old head: not live.
    old = watcher_message(real, TABLE, "Real", HEADS[1])
    book.receive(fingerprint(real.public), old)
    assert book.listed() == [] and book.more() == 0


def test_at_most_so_many_presences_are_kept():
    book = Watchers(TABLE, kept=8)
    keys = [identity(200 + k) for k in range(12)]
    for key in keys[:8]:
        book.receive(fingerprint(key.public), watcher_message(key, TABLE, "x"))
    with pytest.raises(UntrustedInput):  # all live: the ninth is not kept
        book.receive(fingerprint(keys[8].public), watcher_message(keys[8], TABLE, "x"))
    for head in HEADS[:LIVE_HEADS]:  # they go stale: newcomers take their room
        book.note_head(head)
    for key in keys[8:]:
        book.receive(
            fingerprint(key.public), watcher_message(key, TABLE, "y", HEADS[LIVE_HEADS - 1])
        )
    assert len(book) == 8 and len(book.listed()) == 4


def test_the_table_screen_counts_the_spectators_it_does_not_name():
    """The players' line names a few live spectators and counts all the others, the
    ones beyond the 32 listed included: a crowd never hides that there are more."""
    from trutnet.client.view import TableInfo, _watchers_line

    info = TableInfo(names=["A", "B"], fingerprints=["F0", "F1"], me=0)
    info.watchers = [("Real", "ABCD-EFGH")] + [("Host", f"H{k:03d}") for k in range(31)]
    info.watchers_more = 9
    text = "".join(part for _, part in _watchers_line(info))
    assert text.startswith(" Watching: Real (ABCD), Host (H000)") and text.endswith(" more")
    assert text.endswith(f"and {41 - text.count('(')} more") and len(text) <= 80
