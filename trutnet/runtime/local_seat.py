"""A seat played in this process (:class:`LocalSeat`): its identity, name, files, bot
or person, and, once the table opens, its protocol peer; a person's decision waits in
``pending`` until the runtime signs it (:mod:`trutnet.runtime.decisions`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from trutnet.bots import Bot
from trutnet.crypto.identity import Identity
from trutnet.protocol.table import TablePeer
from trutnet.store import PeerStore


@dataclass
class LocalSeat:
    """A seat played in this process: its identity, store, bot, and (once the table
    opens) its protocol peer."""

    identity: Identity
    name: str
    bot: Bot | None
    store: PeerStore | None = None
    peer: TablePeer | None = None
    rng: Callable[[int], bytes] | None = None
    fallback: str = ""  # where this seat would host the table if the broker is lost
    pending: str | None = None  # a person's decision, queued by the client until signed
