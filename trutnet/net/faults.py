"""A faulty transport wrapper, for fault tests: drops, duplicates and reorders what a
link receives, with a seeded random source. The runtime must still finish every game
on one state hash: nothing it needs may depend on the network being kind.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

from trutnet.net.mqtt_link import MqttLink


@dataclass
class FaultStats:
    delivered: int = 0
    dropped: int = 0
    duplicated: int = 0
    reordered: int = 0


class FaultyInbox:
    """Sits between a link's real inbox and its reader."""

    def __init__(
        self,
        link: MqttLink,
        seed: int,
        drop: float = 0.1,
        duplicate: float = 0.1,
        reorder: float = 0.1,
    ) -> None:
        self.rng = random.Random(seed)
        self.drop, self.duplicate, self.reorder = drop, duplicate, reorder
        self.source = link.sink
        self.out: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        link.inbox = self.out
        self.stats = FaultStats()
        self._held: tuple[str, bytes] | None = None
        self.task = asyncio.get_event_loop().create_task(self._pump())

    async def _pump(self) -> None:
        while True:
            message = await self.source.get()
            roll = self.rng.random()
            if roll < self.drop:
                self.stats.dropped += 1
                continue
            if roll < self.drop + self.reorder and self._held is None:
                self._held = message  # delivered after the next message
                self.stats.reordered += 1
                continue
            await self.out.put(message)
            self.stats.delivered += 1
            if self.rng.random() < self.duplicate:
                await self.out.put(message)
                self.stats.duplicated += 1
            if self._held is not None:
                await self.out.put(self._held)
                self._held = None
