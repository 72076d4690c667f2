"""A seat back from its files after a crash or a quit (docs/protocol.md 9.4):
:func:`load_seat` reads and checks them (a :class:`~trutnet.store.StoreError` naming
what is missing or wrong), :func:`resume` plays on; a host's seat brings back the
bots it seated too (their keys are kept beside its own, :func:`host_bots`).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from trutnet.bots import BEST, Bot, make_bot
from trutnet.crypto.identity import Identity
from trutnet.i18n import _
from trutnet.keystore import KeyFileError, load_identity
from trutnet.net.broker import BrokerError, Endpoint, parse_broker_url
from trutnet.net.mqtt_link import MqttLink
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.clock import ClockRule
from trutnet.protocol.sealed_table import TableSeal
from trutnet.protocol.signs import SignFeed
from trutnet.protocol.table import Rejected, TablePeer
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.options import Options
from trutnet.runtime.seat_files import TABLE_FILE, read_clock_file, read_table_key, write_clock_file
from trutnet.runtime.seat_process import Hooks, JoinSetup, SeatResult, _result
from trutnet.runtime.table_bot import TableBot
from trutnet.runtime.table_runtime import TableRuntime
from trutnet.store import PeerStore, StoreError


class LoadedSeat(NamedTuple):
    """A seat's files, read and checked (:func:`load_seat`)."""

    identity: Identity
    peer: TablePeer  # restored from its secrets and log
    endpoint: Endpoint  # the broker it last used
    own_broker: bool  # whether that broker was its own embedded one
    clock: ClockRule | None  # the table's turn clock (7.11)
    bot_on_timeout: bool  # whether its person let a bot decide when their time runs out
    signs: SignFeed | None = None  # the signs it had read, read again along its log (9.8)


def load_seat(store: Path, person: Identity | None = None) -> LoadedSeat:
    """A crashed seat back from its folder, or :class:`StoreError` naming what is
    missing or wrong. A person's seat keeps no key in its folder (its key is the
    player's own): ``person`` is that key."""
    if not store.is_dir():
        raise StoreError(_("cannot resume from {folder}: no such folder").format(folder=store))
    if not (store / "secrets.json").exists() and not (store / "log.bin").exists():
        raise StoreError(
            _("cannot resume from {folder}: no seat's files there").format(folder=store)
        )
    try:
        key_file = store / "identity.key"
        identity = person if person is not None and not key_file.exists() else None
        identity = identity or load_identity(key_file)
        files = PeerStore(store)
        secrets = files.load_secrets()
        signs = SignFeed(bytes.fromhex(secrets["table"]), files.signs())
        peer = TablePeer.restore(identity, secrets, files.entries(), os.urandom, on_head=signs.step)
        fields = (store / TABLE_FILE).read_text().split()
        endpoint, own_broker = parse_broker_url(fields[1]), fields[2:] == ["own-broker"]
        clock, bot_on_timeout = read_clock_file(store)
    except (KeyFileError, StoreError) as exc:
        raise StoreError(
            _("cannot resume from {folder}: {why}").format(folder=store, why=exc)
        ) from exc
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise StoreError(
            _("cannot resume from {folder}: {why}").format(folder=store, why=why.lower())
        ) from exc
    except (IndexError, KeyError, ValueError, TypeError, BrokerError, Rejected) as exc:
        raise StoreError(
            _("cannot resume from {folder}: not a seat's files ({why})").format(
                folder=store, why=exc
            )
        ) from exc
    return LoadedSeat(identity, peer, endpoint, own_broker, clock, bot_on_timeout, signs)


async def resume(
    store: Path,
    endpoints: list[Endpoint] | None = None,
    setup: JoinSetup | None = None,
    *,
    loaded: LoadedSeat | None = None,
    hooks: Hooks | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
) -> SeatResult:
    """A seat back from a crash: identity, secrets and log from ``store`` (or
    ``loaded``, what :func:`load_seat` read), at ``endpoints`` (default: the broker it
    last used); of ``setup`` it takes the name, the bot (None: a person, through
    ``hooks``) and the options; a sealed or private table's key is the one its folder
    kept. The table's clock is the one its folder kept, unless ``setup`` gives one."""
    setup = setup or JoinSetup(name="resumed")
    bot_kind, name = setup.bot_kind, setup.name
    hooks = hooks or Hooks()
    peer_store = PeerStore(store)
    loaded = loaded or load_seat(store)
    identity, peer, stored_endpoint, own_broker = loaded[:4]
    options = setup.options or Options()
    if options.clock is None:  # the clock its folder kept (the lobby is long gone)
        options.clock = loaded.clock
    options.bot_on_timeout = options.bot_on_timeout or loaded.bot_on_timeout
    write_clock_file(store, options.clock, options.bot_on_timeout)
    table_id = peer.replica.table_id
    endpoints = endpoints or [stored_endpoint]
    state = peer.replica.state
    bot: Bot | None = None
    if bot_kind and state is not None:
        bot = make_bot(state.game.name, bot_kind, random.Random())
    elif bot_kind:  # it crashed before the table opened: the game is the table's
        bot = TableBot(bot_kind, random.Random())
    seat = LocalSeat(identity, name, bot, peer_store, peer)
    if isinstance(bot, TableBot):
        bot.seat = seat
    peer.on_secrets = peer_store.save_secrets
    link = MqttLink(endpoints, [], f"resume-{table_id.hex()[:8]}")
    if (key := read_table_key(store)) is not None:  # a sealed or private table (9.9, 9.10)
        link.seal = TableSeal(key, os.urandom)
    bots = host_bots(store, table_id, peer.replica.checked)  # each proof checked once
    runtime = TableRuntime(table_id, link, [seat, *bots], options, on_event)
    if loaded.signs is not None:
        runtime.signs.adopt(loaded.signs)  # the signs it had read, known again
    if own_broker and endpoints[0] == stored_endpoint:  # restarted if no broker answers
        runtime.succession.own_broker = stored_endpoint
    hooks.attach(runtime, seat)
    runtime.signs.retell()  # to the screen that follows it now
    try:
        await runtime.run()
    finally:
        await link.close()
    return _result(runtime)


def host_bots(store: Path, table_id: bytes, checked: CheckedProofs) -> list[LocalSeat]:
    """The bots that a host seated, back from their folders beside the host's own
    (``seat-0``: ``bot-1``, ``bot-2``...), each played by the kind it was seated as;
    none for another seat's folder. A bot folder that cannot be read is skipped: the
    table then waits for that seat as for any other (7.7)."""
    if store.name != "seat-0":
        return []
    bots = []
    for folder in sorted(store.parent.glob("bot-*")):
        if not (folder / "identity.key").exists() or not (folder / "secrets.json").exists():
            continue
        try:
            identity = load_identity(folder / "identity.key")
            files = PeerStore(folder)
            secrets, entries = files.load_secrets(), files.entries()
            peer = TablePeer.restore(identity, secrets, entries, os.urandom, checked)
            state = peer.replica.state
            kind_file = folder / "bot.txt"
            kind = kind_file.read_text().strip() if kind_file.exists() else BEST
            if peer.replica.table_id != table_id or state is None:
                continue
            bot = make_bot(state.game.name, kind or BEST, random.Random())
        except (KeyFileError, StoreError, OSError, ValueError, KeyError, TypeError, Rejected):
            continue  # ValueError: a bot kind that this version lacks too (BotError)
        peer.on_secrets = files.save_secrets
        bots.append(LocalSeat(identity, folder.name, bot, files, peer))
    return bots
