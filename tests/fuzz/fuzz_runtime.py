"""Fuzz the runtime's receive loop: any payload on any table topic, through
``TableRuntime._pump`` (log -> ``ingest``, sync -> ``_answer_sync``, vote ->
``_on_vote``, done -> ``_on_done``, notice -> the event printer, watchers ->
``_on_watcher``), driven in-process
with a fake link. Events go to the CLI's own ``--json`` printer.

Input: byte 0 picks the topic, byte 1 the runtime's state (in the lobby, or a seat's
peer at some point of a real game), the rest is the payload.
Property: the pump task survives every message (a handler that raises kills the
task that reads the table: the whole peer stops).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import io
import sys
from pathlib import Path

import atheris
import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet.cli.running import printer as _printer
    from trutnet.crypto import SeededRandom
    from trutnet.crypto.identity import Identity, fingerprint
    from trutnet.net import topics
    from trutnet.net.broker import Endpoint
    from trutnet.protocol.envelope import parse_entry, sign_entry
    from trutnet.protocol.replace import make_vote
    from trutnet.protocol.spectator import watcher_message
    from trutnet.protocol.table import TablePeer
    from trutnet.runtime.local_seat import LocalSeat
    from trutnet.runtime.options import Options
    from trutnet.runtime.table_runtime import TableRuntime

from tests.fuzz import common

NAME = "runtime"
ALLOWED = ()
POINTS = (None, 0, 1, 5, 9, 30, 60, 120, -2)  # None: in the lobby, before ``open``


class FakeLink:
    """What TableRuntime needs of an MqttLink; publishes are counted, not sent."""

    def __init__(self) -> None:
        self.on_connect = None
        self.will = None
        self.subscriptions: list[str] = []
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.disconnected_since = None
        self.endpoint = Endpoint("127.0.0.1", 1)
        self._endpoints = [self.endpoint]
        self.published = 0

    def endpoints(self) -> list[Endpoint]:
        return list(self._endpoints) if not callable(self._endpoints) else self._endpoints()

    def use_endpoints(self, endpoints: object) -> None:
        self._endpoints = endpoints

    async def publish(
        self, topic: str, payload: bytes, retain: bool = False, wait: float = 30
    ) -> bool:
        self.published += 1
        return True

    def send(self, topic: str, payload: bytes, wait: float = 30) -> None:
        self.published += 1

    async def resubscribe(self, topic: str) -> None:
        return None


def build() -> list[TablePeer | None]:
    common.make_immutable_atomic()
    table_id, wires = common.game()
    ids = common.identities()
    peer = TablePeer(ids[1], 1, table_id, SeededRandom(f"peer/{common.GAME_SEED}/1"))
    snaps: dict[int, TablePeer] = {}
    wanted = {p if p is None or p >= 0 else len(wires) + p for p in POINTS}
    for index, wire in enumerate(wires):
        if index in wanted:
            snaps[index] = copy.deepcopy(peer)
        peer.receive(wire)
    return [None if p is None else snaps[p if p >= 0 else len(wires) + p] for p in POINTS]


def topic_of(selector: int) -> str:
    choices = [
        topics.log(TABLE_ID),
        topics.sync(TABLE_ID),
        topics.vote(TABLE_ID),
        topics.done(TABLE_ID, "AAAA-BBBB-CCCC-DDDD"),
        topics.notice(TABLE_ID),
        topics.watcher(TABLE_ID, fingerprint(WATCHER.public)),
    ]
    return choices[selector % len(choices)]


async def deliver(runtime: TableRuntime, topic: str, payload: bytes) -> None:
    pump = asyncio.create_task(runtime._pump())
    await runtime.link.inbox.put((topic, payload))
    for _ in range(50):
        await asyncio.sleep(0)
        if runtime.link.inbox.empty() and not pump.done():
            await asyncio.sleep(0)
            break
    if pump.done():
        exc = pump.exception()
        if exc is not None:
            raise exc  # what killed the receive loop, with its own traceback
        raise AssertionError("the receive loop returned")
    pump.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await pump


def check(data: bytes) -> None:
    if len(data) < 2:
        return
    snapshot = SNAPS[data[1] % len(SNAPS)]
    peer = copy.deepcopy(snapshot) if snapshot is not None else None
    seat = LocalSeat(IDS[1], "fuzz", None, None, peer, rng=SeededRandom("fuzz/rng"))
    runtime = TableRuntime(TABLE_ID, FakeLink(), [seat], Options(), PRINTER)  # type: ignore[arg-type]
    if snapshot is None and data[0] & 0x80:
        runtime.open_wire = WIRES[0]
    with contextlib.redirect_stdout(io.StringIO()):
        LOOP.run_until_complete(deliver(runtime, topic_of(data[0]), data[2:]))


def seeds() -> list[bytes]:
    out = []
    heads = [parse_entry(w).id for w in WIRES[:3]] + [b"\x00" * 32]
    for state in range(len(POINTS)):
        s = bytes([state])
        out += [b"\x00" + s + WIRES[min(w, len(WIRES) - 1)] for w in (0, 1, 6, 31, 121)]
        for depth in (100, 400, 600):  # 600: the known reproducer of issue 10 item 7
            out.append(b"\x00" + s + common.nested_body_entry(WIRES[1], depth))
            out.append(b"\x02" + s + common.nested_body_entry(WIRES[1], depth, True))
        out += [b"\x01" + s + msgpack.packb({"head": h}) for h in heads]
        peer = SNAPS[state]
        if peer is not None and peer.replica.state is not None:
            head, hand = peer.replica.log.head, peer.replica.state.hand_number
            out.append(b"\x02" + s + make_vote(IDS[1], TABLE_ID, 1, head, 0, hand, None))
            done_entry = sign_entry(IDS[0], table=TABLE_ID, seat=0, seq=0, prev=head,
                                    type="done", body={})  # fmt: skip
            out.append(b"\x03" + s + msgpack.packb([done_entry.wire]))
        key = IDS[0].public
        done = {"name": "x", "key": key, "seats": [0], "status": "online"}
        out.append(b"\x03" + s + msgpack.packb(done))
        stall = {"kind": "stall", "seat": 0, "waiting_for": ["act"], "since_entry": 3, "seconds": 1}
        out.append(b"\x04" + s + msgpack.packb(stall))
        out.append(b"\x05" + s + watcher_message(WATCHER, TABLE_ID, "Eve"))
        out.append(b"\x05" + s + watcher_message(IDS[1], TABLE_ID, "Eve"))  # another key
    return out


TABLE_ID, WIRES = common.game()
IDS = common.identities()
WATCHER = Identity.generate(SeededRandom("fuzz/watcher"))  # a spectator's key
SNAPS = build()
LOOP = asyncio.new_event_loop()
PRINTER = _printer(True, "fuzz")
test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    common.main(NAME, test_one_input, seeds())
