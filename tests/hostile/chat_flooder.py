"""A hostile client that floods a table's chat, as a process of its own (for the tests
that watch a person's screen under the flood):

    python3 -m tests.hostile.chat_flooder BROKER_URL TABLE_ID KEYS MESSAGES

It asks the table for its log (a sync request, as any peer may) and reads the first
entries it sends, posts a live signed presence for
each of ``KEYS`` made-up spectators, floods ``MESSAGES`` chat messages from each, as
fast as the broker takes them, twice over (the second time: replays), adds forged
messages (a seat's, a terminal escape), and prints ``flooded N`` (the messages sent).
"""

from __future__ import annotations

import asyncio
import os
import sys

import aiomqtt
import msgpack

from trutnet.crypto.identity import Identity, fingerprint
from trutnet.net import topics
from trutnet.net.broker import parse_broker_url
from trutnet.protocol.chat import chat_message
from trutnet.protocol.envelope import GENESIS, parse_entry, sign_entry
from trutnet.protocol.spectator import watcher_message


async def flood(url: str, table_id: bytes, keys: int, messages: int) -> int:
    endpoint = parse_broker_url(url)
    async with aiomqtt.Client(endpoint.host, endpoint.port) as client:
        await client.subscribe(topics.log(table_id), qos=1)
        # anyone may ask the table for its log (9.2): the answer names recent heads
        await client.publish(topics.sync(table_id), msgpack.packb({"head": GENESIS}), qos=1)
        head = GENESIS
        incoming = client.messages.__aiter__()
        while True:  # the log as the table sends it again, until it stops coming
            try:
                message = await asyncio.wait_for(incoming.__anext__(), 2.0)
            except TimeoutError:
                break
            head = parse_entry(bytes(message.payload), table_id).prev  # type: ignore[arg-type]
        assert head != GENESIS, "the table sent no log"
        crowd = [Identity.from_seed(os.urandom(32)) for _ in range(keys)]
        for n, key in enumerate(crowd):
            presence = watcher_message(key, table_id, f"Flood {n}", head)
            topic = topics.watcher(table_id, fingerprint(key.public))
            await client.publish(topic, presence, qos=1, retain=True)
        wires = [
            chat_message(key, table_id, 0, count, head, f"flood {n}/{count}")
            for n, key in enumerate(crowd)
            for count in range(messages)
        ]
        forged = [
            sign_entry(
                crowd[0], table=table_id, seat=1, seq=0, prev=head, type="chat", body={"text": t}
            ).wire
            for t in ("I am the host", "red \x1b[31m alert")
        ]
        sent = 0
        for wire in [*wires, *wires, *forged]:
            await client.publish(topics.chat(table_id), wire, qos=0)
            sent += 1
    return sent


if __name__ == "__main__":
    url, table, keys, messages = sys.argv[1:5]
    count = asyncio.run(flood(url, bytes.fromhex(table), int(keys), int(messages)))
    print(f"flooded {count}", flush=True)
