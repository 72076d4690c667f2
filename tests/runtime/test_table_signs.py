"""One process's signs (``trutnet/runtime/table_signs.py``) over a 4-player Truco table
played in memory: the process's bots sign once a hand, draw on the others' signs and
read those they are shown, each piece of news is a ``sign`` event saying the card only
to a seat that may know it,
and a bot or a game whose signs break is logged while the table goes on."""

from __future__ import annotations

import asyncio
import random
from types import SimpleNamespace

import pytest

from tests.tables import play_memory_game
from trutnet.bots import make_bot
from trutnet.engine.hidden import Told
from trutnet.engine.registry import make_game
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.table_signs import TableSigns


class Link:
    """What the runtime's link is to the signs: a place to publish."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def publish(self, topic: str, payload: bytes, wait: float = 30) -> bool:
        self.sent.append(payload)
        return True


def process(table, seats, bots, **signs):
    """A process that plays ``seats`` of the memory ``table`` with ``bots``."""
    local = [
        LocalSeat(table.peers[s].identity, f"seat {s}", bot, peer=table.peers[s])
        for s, bot in zip(seats, bots, strict=True)
    ]
    events: list[tuple[str, dict]] = []
    runtime = SimpleNamespace(
        table_id=table.peers[0].replica.table_id,
        seats=local,
        replica=local[0].peer.replica,
        head=lambda: local[0].peer.replica.log.head,
        emit=lambda event: events.append((event.label(), event.data())),
        link=Link(),
        connection=lambda: None,  # connected
    )
    return TableSigns(runtime, **signs), runtime, events


def dealt_table(**options):
    game = make_game("truco", {"players": 4, **options})

    def dealt(t) -> bool:
        state = t.peers[0].replica.state
        return (
            state is not None
            and state.phase == "play"
            and not t.peers[0].replica.round
            and all(len(p.replica.state.hands[s]) == 3 for s, p in enumerate(t.peers))
        )

    return play_memory_game(game, 3, ["random"] * 4, until=dealt)


def test_a_process_bots_sign_once_a_hand_and_its_person_learns_only_the_partners():
    table = dealt_table()
    heuristic = [make_bot("truco", "heuristic", random.Random(s)) for s in (1, 2, 3)]
    signs, runtime, events = process(table, [0, 1, 2, 3], [None, *heuristic])

    async def run() -> None:
        signs.moved()
        signs.moved()  # the same head again: no second sign
        await asyncio.gather(*signs._tasks)  # what went out was published

    asyncio.run(run())
    made = [data for kind, data in events if kind == "sign" and data["what"] == "made"]
    assert sorted(d["seat"] for d in made) == [1, 2, 3]  # the person (seat 0) did not
    for data in made:
        assert (data["card"] is not None) == (data["seat"] == 2), data  # the partner only
    drawn = [d for kind, d in events if kind == "sign" and d["what"] in ("caught", "missed")]
    assert {(d["seat"], d["by"]) for d in drawn} == {(1, 0), (1, 2), (2, 1), (2, 3), (3, 0),
                                                     (3, 2)}  # fmt: skip
    shown = [d for kind, d in events if kind == "sign" and d["what"] == "shown"]
    caught = {(d["seat"], d["by"]) for d in drawn if d["what"] == "caught"}
    assert {(d["seat"], d["by"]) for d in shown} == caught
    for data in shown:  # the person knows its partner's sign and the ones it caught
        knows = data["seat"] == 2 or (data["seat"], 0) in caught
        assert (data["card"] is not None) == knows, data
    assert len(runtime.link.sent) == 3 + 6 + len(caught)
    assert signs.wires() == signs.board.wires() and len(signs.wires()) == len(runtime.link.sent)
    # each bot is shown (``heard``) its partner's sign and those it caught, nothing else
    period = table.peers[0].replica.state.hand_no
    menu = table.peers[1].replica.state.signs(1).menu.cards
    made_card = {
        s: heuristic[s - 1].sign(table.peers[s].replica.state.observation(s), menu)
        for s in (1, 2, 3)
    }
    for seat, bot in zip((1, 2, 3), heuristic, strict=True):
        may = {(seat + 2) % 4} | {signer for signer, by in caught if by == seat}
        expected = {Told(s, period, made_card[s]) for s in may if s in made_card}
        assert set(bot.told.all()) == expected, (seat, bot.told.all())
    assert Told(3, period, made_card[3]) in heuristic[0].told.all()  # seat 1, partner 3


def test_a_bot_whose_sign_breaks_is_logged_and_the_table_goes_on(caplog):
    class Broken:
        def choose(self, observation):  # never asked here
            raise AssertionError

        def sign(self, observation, menu):
            raise RuntimeError("a bug in a bot")

    table = dealt_table()
    signs, _runtime, events = process(table, [1], [Broken()])
    signs.moved()  # no exception reaches the log's intake
    assert "signs: could not follow the head" in caplog.text and "a bug in a bot" in caplog.text
    assert events == []


def test_a_person_offline_is_told_the_sign_would_reach_nobody():
    table = dealt_table()
    signs, runtime, events = process(table, [0], [None])
    signs.moved()
    runtime.connection = lambda: "the broker at 127.0.0.1:1883"  # lost
    assert signs.sign("nada") == (
        "no sign now: no connection to the table; sign again once the broker is back"
    )
    runtime.connection = lambda: None  # back

    async def sign() -> str | None:
        said = signs.sign("nada")
        await asyncio.gather(*signs._tasks)
        return said

    assert asyncio.run(sign()) is None and len(runtime.link.sent) == 1
    assert [(d["seat"], d["what"], d["card"]) for _kind, d in events] == [(0, "made", "nada")]


async def _published(signs, runtime, start: int = 0) -> list[bytes]:
    """What a process published from ``start`` on, once its publishing is done."""
    await asyncio.gather(*signs._tasks)
    return runtime.link.sent[start:]


@pytest.mark.parametrize("withhold", [True, False])
def test_a_caught_sign_never_shown_is_said_once_its_wait_is_over(withhold):
    """9.8: a signer owes each catcher its card at once; one still unshown ``show_wait``
    seconds after the catch (a program that withholds it, or is offline) makes a
    ``withheld`` sign event, once, in the catcher's process; shown in time, nothing."""
    table = dealt_table(senas_catch=4)  # every draw catches
    now = [0.0]
    bots = [make_bot("truco", "heuristic", random.Random(s)) for s in (1, 2, 3)]
    others, other_runtime, _ = process(table, [1, 2, 3], bots)
    ana, ana_runtime, events = process(table, [0], [None], clock=lambda: now[0])

    async def run() -> None:
        others.moved()  # the bots sign (and catch each other's)
        ana.moved()
        if withhold:
            others._mine.clear()  # its program keeps the cards to itself
        first = await _published(others, other_runtime)
        for wire in first:
            ana.read(wire)  # three signs: Ana catches seats 1's and 3's
        for wire in await _published(ana, ana_runtime):
            others.read(wire)  # her draws reach the signers, who show (or not)
        for wire in await _published(others, other_runtime, len(first)):
            ana.read(wire)

    asyncio.run(run())
    caught = {d["seat"] for _k, d in events if d["what"] == "caught" and d["by"] == 0}
    assert caught == {1, 3}
    ana.moved()
    assert not [d for _k, d in events if d["what"] == "withheld"]  # not yet
    now[0] = 10.0
    ana.moved()
    ana.moved()  # once
    withheld = [(d["seat"], d["by"]) for _k, d in events if d["what"] == "withheld"]
    assert withheld == ([(1, 0), (3, 0)] if withhold else []), withheld


def test_a_resumed_seat_has_the_signs_it_had_read(tmp_path):
    """9.8: the person's folder keeps every sign message its process accepted; a seat
    restored from its folder reads them again along its log (``TablePeer.restore``'s
    ``on_head`` and a ``SignFeed``), so its transcript keeps them all, its screen shows
    its partner's sign of the hand in play again, and its bots know what they knew."""
    import os

    from trutnet.protocol.signs import SignFeed
    from trutnet.protocol.table import TablePeer
    from trutnet.store import PeerStore

    table = dealt_table(senas_catch=4)
    bots = [make_bot("truco", "heuristic", random.Random(s)) for s in (1, 2, 3)]
    before, runtime, _events = process(table, [0, 1, 2, 3], [None, *bots])
    store = PeerStore(tmp_path / "seat-0")
    runtime.seats[0].store = store

    async def run() -> None:
        before.moved()
        await asyncio.gather(*before._tasks)

    asyncio.run(run())
    assert sorted(store.signs()) == sorted(before.wires()) and len(store.signs()) > 3
    assert oct((tmp_path / "seat-0" / "signs.bin").stat().st_mode & 0o777) == "0o600"

    ana = table.peers[0]
    feed = SignFeed(ana.replica.table_id, store.signs())
    wires = [entry.wire for entry in ana.replica.log.entries]
    back = TablePeer.restore(ana.identity, ana.secrets(), wires, os.urandom, on_head=feed.step)
    again = [make_bot("truco", "heuristic", random.Random(s)) for s in (1, 2, 3)]
    peers = SimpleNamespace(peers=[back, *table.peers[1:]])
    after, _runtime, events = process(peers, [0, 1, 2, 3], [None, *again])
    after.adopt(feed)
    assert sorted(after.wires()) == sorted(before.wires())
    assert events == []  # the screen is told once the table moves (it follows by then)

    async def follow() -> None:
        after.moved()  # a bot that signed this hand before does not sign it again
        await asyncio.gather(*after._tasks)

    asyncio.run(follow())
    partner = [d for _k, d in events if d["what"] == "made" and d["seat"] == 2]
    assert len(partner) == 1 and partner[0]["card"] is not None  # on Ana's rule again
    assert {t.seat for t in again[0].told.all()} >= {3}  # Bob's partner's sign, again
    assert sorted(after.wires()) == sorted(before.wires())  # no bot signed this hand again


def test_a_torn_sign_record_is_cut_off_before_the_next_one(tmp_path):
    """A crash while a sign message is written leaves a torn last record: reading
    stops before it, and the next message starts where a reader expects one."""
    from trutnet.store import PeerStore

    store = PeerStore(tmp_path)
    store.append_sign(b"first")
    with store.signs_path.open("ab") as file:
        file.write((100).to_bytes(4, "big") + b"torn")
    assert store.signs() == [b"first"]
    back = PeerStore(tmp_path)  # the process that comes back after the crash
    back.append_sign(b"second")
    assert back.signs() == [b"first", b"second"]
