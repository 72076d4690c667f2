"""Hosting and joining a table from one process (asyncio, I/O edge).

* :func:`host` seats the host and its bots, announces the table (a retained lobby
  message that the host's last will clears, and zeroconf when asked), seats joiners
  from signed join requests as they come, then opens the table and plays.
* :func:`join` asks for a seat until the ``open`` entry names it, then plays.
* :func:`resume` brings a seat back from its store after a crash; a host's seat
  brings back the bots it seated too (their keys are kept beside its own,
  :func:`host_bots`).

Each of them returns a :class:`SeatResult` once the game is over. A join that
cannot go on (no broker at the address, no host at the table, the table already
full or its host gone before it opened, a table of another game than the one asked
for) raises :class:`JoinError`, whose message is one line for a person.

Bots are made by game and kind (:func:`trutnet.bots.make_bot`): a joiner's bot once
the table's ``open`` entry has said which game it plays (:class:`TableBot`).

Seen from outside, a host process (``trutnet host --json``) names its table in its
first ``table`` line: :func:`announced_table` reads it, for the network bench,
self-play over MQTT and the tests that start seats as processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import socket
import subprocess
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trutnet.bots import BEST, Bot, check_bot, decide, make_bot
from trutnet.crypto import SeededRandom
from trutnet.crypto.identity import Identity
from trutnet.engine.api import Action, Game
from trutnet.keystore import KeyFileError, load_identity, load_or_create_identity, save_identity
from trutnet.net import topics
from trutnet.net.broker import BrokerError, Endpoint, parse_broker_url
from trutnet.net.mqtt_link import MqttLink, PinError, mqtt_client
from trutnet.net.private import credentials
from trutnet.net.tasks import stop_tasks
from trutnet.protocol.lobby import (
    ANNOUNCE_VERSION,
    HINTS,
    MAX_ANNOUNCEMENT,
    SEATED,
    Lobby,
    LobbyError,
    announced_variant,
    check_announcement,
    default_table_name,
    sign_announcement,
)
from trutnet.protocol.table import Rejected, TablePeer
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.options import Options
from trutnet.runtime.table_runtime import TableRuntime
from trutnet.store import PeerStore, StoreError

LOBBY_TIMEOUT = 15.0  # seconds a joiner waits for its table's host to be seen (lobby)
PROBE_TIMEOUT = 5.0  # seconds to reach a broker before saying it cannot be reached


class JoinError(Exception):
    """A join that cannot go on; the message says what and why, in one line."""


class WrongGame(JoinError):
    """The table plays another game than the one this seat asked for."""

    def __init__(self, table_id: bytes, game: str, asked: str, name: str | None = None) -> None:
        label = f"table {name!r}" if name else f"table {table_id.hex()}"  # as the person named it
        super().__init__(f"{label} plays {game}, not {asked}")
        self.game = game
        self.asked = asked


class TableBot:
    """A bot of ``kind`` for the game its seat's table plays, made at the seat's first
    decision: a joiner learns the game from the table's ``open`` entry. ``asked``: the
    game the seat asked for; a table of another game stops the seat
    (:class:`WrongGame`) rather than have a bot of one game read another's observation."""

    def __init__(self, kind: str, rng: random.Random, asked: str | None = None) -> None:
        self.kind = kind
        self.rng = rng
        self.asked = asked
        self.seat: LocalSeat | None = None  # set once the seat exists
        self._bot: Bot | None = None

    def choose(self, observation: Any) -> Action:
        return self._made().choose(observation)

    def choose_in(self, state: Any, seat: int) -> Action:
        """The decision at the seat's replica state (``trutnet.bots.decide``): a bot
        that searches samples it."""
        return decide(self._made(), state, seat)

    def _made(self) -> Bot:
        if self._bot is None:
            assert self.seat is not None and self.seat.peer is not None
            state = self.seat.peer.replica.state
            assert state is not None
            table_id = self.seat.peer.replica.table_id
            if self.asked is not None and state.game.name != self.asked:
                raise WrongGame(table_id, state.game.name, self.asked)
            self._bot = make_bot(state.game.name, self.kind, self.rng)
        return self._bot


@dataclass
class Hooks:
    """How a user interface follows a seat process: the runtime once it exists, the
    lobby roster as it changes, lobby commands (``"bot"``), and where to save the
    transcript at the end (a name that is taken: beside it, never over it)."""

    on_runtime: Callable[[TableRuntime], None] | None = None
    on_lobby: Callable[[list[tuple[int, str, str]]], None] | None = None
    commands: asyncio.Queue[Any] | None = None
    transcript: Path | None = None
    on_saved: Callable[[Path], None] | None = None
    saved: Path | None = None  # where the transcript was saved, once it is

    def attach(self, runtime: TableRuntime, seat: LocalSeat) -> None:
        """Follow ``runtime``; save ``seat``'s transcript as soon as the game is over
        (before the runtime lingers for the others, 9.2)."""
        runtime.on_over = lambda: self.save(runtime, seat)
        if self.on_runtime is not None:
            self.on_runtime(runtime)

    def lobby(self, roster: list[tuple[int, str, str]]) -> None:
        if self.on_lobby is not None:
            self.on_lobby(roster)

    def save(self, runtime: TableRuntime, seat: LocalSeat) -> None:
        """Save the transcript at :attr:`transcript`, or beside it if that name is
        taken (never over another); :attr:`saved` is where it went."""
        if self.transcript is not None and seat.peer is not None and self.saved is None:
            from trutnet.store import save_transcript

            self.saved = save_transcript(
                self.transcript, runtime.table_id, [e.wire for e in seat.peer.replica.log.entries]
            )
            if self.on_saved is not None:
                self.on_saved(self.saved)


@dataclass
class SeatResult:
    seats: list[int]
    state_hash: str
    winner: int | None
    hands: int
    entries: int
    halted: str | None
    stats: dict[str, Any]
    hand_ms: list[float]
    teams: list[list[int]] | None = None  # the seats of each team (winner: an index)
    # by play entry id: when a seat here signed it, and when its card was known here
    plays_signed: dict[str, float] | None = None
    cards_known: dict[str, float] | None = None
    # With ``Options.stamp_entries`` (``trutnet bench network``): every entry's stamps,
    # and the log (hex wires) that says what each entry was
    entries_signed: dict[str, float] | None = None
    entries_applied: dict[str, float] | None = None
    log: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _rng(seed: str | None, label: str) -> Callable[[int], bytes]:
    return SeededRandom(f"{seed}/{label}") if seed is not None else os.urandom


def _bot_random(seed: str | None, label: str) -> random.Random:
    """A bot's own choices: reproducible with ``--seed``, unpredictable without."""
    return random.Random(f"{seed}/{label}") if seed is not None else random.Random()


def _identity(store: Path | None, seed: str | None, label: str) -> Identity:
    if store is not None:
        return load_or_create_identity(store / "identity.key")
    if seed is not None:
        return Identity.from_seed(SeededRandom(f"{seed}/identity/{label}")(32))
    return Identity.generate(os.urandom)


def _result(runtime: TableRuntime) -> SeatResult:
    replica = runtime.replica
    if replica is None or replica.state is None:  # stopped before the table opened
        why = "gave up" if runtime.gave_up else "stopped"
        raise JoinError(f"{why} before the table opened: no host seated this seat")
    return SeatResult(
        seats=[p.seat for p in runtime.peers if p.seated()],
        state_hash=replica.state.state_hash(),
        winner=replica.state.winning_team(),
        hands=replica.state.round_number() + 1,
        entries=len(replica.log),
        halted=str(replica.halted)
        if replica.halted
        else (runtime.gave_up_why or "no progress: gave up" if runtime.gave_up else None),
        stats=dict(runtime.stats.__dict__, rejected=len(runtime.stats.rejected)),
        hand_ms=[
            round((b - a) * 1000, 1)
            for a, b in zip(
                runtime.stamps.hand_started, runtime.stamps.hand_started[1:], strict=False
            )
        ],
        teams=[list(t) for t in replica.state.game.teams()],
        plays_signed=runtime.stamps.plays_signed,
        cards_known=runtime.stamps.cards_known,
        **_stamps(runtime),
    )


def _stamps(runtime: TableRuntime) -> dict[str, Any]:
    if not runtime.options.stamp_entries or runtime.replica is None:
        return {}
    return {
        "entries_signed": runtime.stamps.entries_signed,
        "entries_applied": runtime.stamps.entries_applied,
        "log": [e.wire.hex() for e in runtime.replica.log.entries],
    }


def announcement(
    lobby: Lobby,
    name: str,
    endpoint: Endpoint,
    status: str,
    private: bool = False,
    bots: Collection[int] | None = None,
    hints: bool = True,
) -> dict[str, Any]:
    """The retained lobby message (also the zeroconf TXT content). ``private``: the
    broker wants the table password (never the password itself). ``bots``: the seats
    the host gave its bots; with it, the message says who is seated (``seated``).
    ``hints`` False: the host asks that nobody use hints (``hints: false``)."""
    roster = lobby.roster()
    seated = {} if bots is None else {SEATED: [[n, s in bots] for s, n, _ in roster]}
    return {
        **seated,
        **({} if hints else {HINTS: False}),
        "v": ANNOUNCE_VERSION,
        "nonce": lobby.nonce,
        "game": lobby.game.name,
        "variant": announced_variant(lobby.game),
        "players": lobby.game.num_players(),
        "taken": len(roster),
        "name": name,
        "host": roster[0][2],
        "table": lobby.table_id.hex(),
        "broker": endpoint.address,  # at most 64 characters (9.1): no pin
        "status": status,
        "private": private,
    }


async def host(
    game: Game,
    endpoints: list[Endpoint],
    name: str = "Host",
    table_name: str = "",
    bots: int = 0,
    bot_kind: str = BEST,
    host_bot: str | None = BEST,
    store: Path | None = None,
    seed: str | None = None,
    options: Options | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
    on_announce: Callable[[dict[str, Any]], None] | None = None,
    nonce: bytes | None = None,
    inprocess_broker: bool = False,
    hooks: Hooks | None = None,
    identity: Identity | None = None,
    own_broker: bool = False,
    password: str | None = None,
    hints: bool = True,
) -> SeatResult:
    """Host a table at ``endpoints[0]``; ``own_broker``: that broker is this process's
    embedded one, so a resumed host starts it again if it is gone (9.3). The table id
    is bound to the host's key by ``nonce`` (7.10; random unless given or seeded);
    ``password``: a private table's password (for the broker, never announced).
    ``bot_kind``: the bots seated in empty seats; ``host_bot``: the host seat's bot
    (None: a person plays it); :data:`~trutnet.bots.BEST` is the game's best."""
    hooks = hooks or Hooks()
    in_loop = None
    if inprocess_broker:  # measurement only: the broker shares this peer's event loop
        from amqtt.broker import Broker

        from trutnet.net.broker_main import broker_config

        in_loop = Broker(broker_config(endpoints[0].host, endpoints[0].port))
        await in_loop.start()
    nonce = nonce or (SeededRandom(f"{seed}/table")(16) if seed else os.urandom(16))
    table_name = table_name or default_table_name(name)
    host_seat = LocalSeat(
        identity or _identity(store / "seat-0" if store else None, seed, "host"),
        name,
        make_bot(game.name, host_bot, _bot_random(seed, "bot0")) if host_bot else None,
        PeerStore(store / "seat-0") if store else None,
        rng=_rng(seed, "seat0"),
    )
    lobby = Lobby(game, host_seat.identity, name, nonce)
    table_id = lobby.table_id
    if store is not None:
        marker = " own-broker" if own_broker else ""
        (store / "seat-0" / "table.txt").write_text(
            f"{table_id.hex()} {endpoints[0].url}{marker}\n"
        )
    local = [host_seat]

    def seat_bot() -> None:
        k = len(local) - 1
        folder = store / f"bot-{k}" if store else None
        bot = LocalSeat(
            _identity(None, seed, f"bot{k}"),  # without a seed: a fresh 32-byte random key
            f"Bot {k + 1}",
            make_bot(game.name, bot_kind, _bot_random(seed, f"bot{k + 1}")),
            PeerStore(folder) if folder else None,
            rng=_rng(seed, f"bot{k}"),
        )
        if folder is not None:  # kept, so that the host's resume brings its bots back too
            save_identity(bot.identity, folder / "identity.key")
            (folder / "bot.txt").write_text(f"{bot_kind}\n")
        lobby.seat(bot.identity.public, bot.name)
        local.append(bot)

    for _ in range(min(bots, game.num_players() - 1)):
        seat_bot()
    link = MqttLink(
        endpoints,
        [topics.join(table_id), topics.lobby(table_id)],
        f"host-{table_id.hex()[:8]}",
        will=(topics.lobby(table_id), b""),
        password=password,
    )
    runtime = TableRuntime(table_id, link, local, options, on_event)
    hooks.attach(runtime, host_seat)
    await link.start()
    endpoint = endpoints[0]

    announced: list[bytes] = []

    async def announce(status: str) -> None:
        bots = {lobby.keys.index(s.identity.public) for s in local if s.bot is not None}
        message = announcement(
            lobby, table_name, endpoint, status, password is not None, bots, hints
        )
        if on_announce is not None:
            on_announce({k: v for k, v in message.items() if k not in ("nonce", SEATED)})
        signed = sign_announcement(host_seat.identity, table_id, message)
        if len(signed) > MAX_ANNOUNCEMENT:  # long names: the roster is left out
            del message[SEATED]
            signed = sign_announcement(host_seat.identity, table_id, message)
        announced[:] = [signed]
        await link.publish(topics.lobby(table_id), signed, retain=True)

    await announce("open" if not lobby.full else "playing")  # full at once: bots only
    hooks.lobby(lobby.roster())
    while not lobby.full:
        seated = len(lobby.keys)
        getters = [asyncio.create_task(link.inbox.get())]
        if hooks.commands is not None:
            getters.append(asyncio.create_task(hooks.commands.get()))
        done, pending = await asyncio.wait(getters, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in done:
            item = task.result()
            if item == "bot":  # the host seats a bot in the next empty seat
                if not lobby.full:
                    seat_bot()
                    (on_event or (lambda *_: None))(
                        "joined", {"seat": len(local) - 1, "name": local[-1].name}
                    )
                continue
            topic, payload = item
            if topic == topics.lobby(table_id) and announced and payload != announced[0]:
                # someone cleared or overwrote our retained announcement: say it again
                await link.publish(topics.lobby(table_id), announced[0], retain=True)
                continue
            if topic != topics.join(table_id) or lobby.full:
                continue
            try:
                seat = lobby.receive(payload)
            except LobbyError as exc:
                (on_event or (lambda *_: None))("join_refused", {"error": str(exc)})
                continue
            (on_event or (lambda *_: None))("joined", {"seat": seat, "name": lobby.names[seat]})
        if len(lobby.keys) != seated:  # only a new seat changes what is announced
            hooks.lobby(lobby.roster())
            await announce("open" if not lobby.full else "playing")
    body = lobby.open_body()
    for seat_index, key in enumerate(body["seats"]):
        for seat in local:
            if seat.identity.public == key:
                seat.peer = TablePeer(seat.identity, seat_index, table_id, seat.rng or os.urandom)
                if seat.store is not None:
                    seat.peer.on_secrets = seat.store.save_secrets
                    seat.store.save_secrets(seat.peer.secrets())
    host_peer = host_seat.peer
    assert host_peer is not None
    open_wire = host_peer.open_table(
        game, body["seats"], body["names"], body["fallbacks"], nonce=lobby.nonce
    )
    runtime.open_wire = open_wire
    runtime.ingest(open_wire)
    for seat in local:
        runtime._persist(seat)
    await link.publish(topics.log(table_id), open_wire)
    try:
        await runtime.run()
    finally:
        with contextlib.suppress(Exception):
            await link.publish(topics.lobby(table_id), b"", retain=True, wait=2)
        await link.close()
        if in_loop is not None:
            await in_loop.shutdown()
    return _result(runtime)


async def join(
    table_id: bytes,
    endpoints: list[Endpoint],
    name: str = "Player",
    bot_kind: str | None = BEST,
    store: Path | None = None,
    seed: str | None = None,
    options: Options | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
    fallback: str = "",
    hooks: Hooks | None = None,
    identity: Identity | None = None,
    password: str | None = None,
    lobby_timeout: float = LOBBY_TIMEOUT,
    game: str | None = None,
) -> SeatResult:
    """Ask for a seat at ``table_id`` and play it; :class:`JoinError` when the table
    cannot be joined (see :func:`watch_lobby`). ``game``: the game the seat asks for
    (a table of another is refused); None: whatever the table plays."""
    hooks = hooks or Hooks()
    label = f"join-{name}"
    bot = None
    if bot_kind:
        if game is not None:
            check_bot(game, bot_kind)  # BotError now, not at the first decision
        bot = TableBot(bot_kind, _bot_random(seed, label), game)
    seat = LocalSeat(
        identity or _identity(store, seed, label),
        name,
        bot,
        PeerStore(store) if store else None,
        rng=_rng(seed, label),
        fallback=fallback,
    )
    if bot is not None:
        bot.seat = seat
    if store is not None:
        (store / "table.txt").write_text(f"{table_id.hex()} {endpoints[0].url}\n")
    link = MqttLink(endpoints, [], f"join-{table_id.hex()[:8]}", password=password)
    runtime = TableRuntime(table_id, link, [seat], options, on_event)
    hooks.attach(runtime, seat)
    playing = asyncio.create_task(runtime.run(join_names=True))
    watcher = asyncio.create_task(
        watch_lobby(
            table_id, endpoints[0], seat, lobby_timeout, password, game=game, on_roster=hooks.lobby
        )
    )
    try:
        done, _ = await asyncio.wait([playing, watcher], return_when=asyncio.FIRST_COMPLETED)
        if watcher in done and watcher.exception() is not None:
            raise watcher.exception()  # type: ignore[misc]
        await playing
    finally:
        await stop_tasks(watcher, playing)
        await link.close()
    return _result(runtime)


def _reason(exc: BaseException, timeout: float) -> str:
    """Why a connection failed, in a person's words."""
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (nothing listens on that port)"
    if isinstance(exc, socket.gaierror):
        return "unknown host name"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    text = re.sub(r"^\[Errno \d+\] ", "", str(exc)) or type(exc).__name__
    return text[0].lower() + text[1:]


async def probe_broker(
    endpoint: Endpoint,
    timeout: float = PROBE_TIMEOUT,
    password: str | None = None,
    command: str = "join",
) -> None:
    """Connect to the MQTT broker at ``endpoint`` (with a private table's ``password``)
    and leave; :class:`JoinError` saying why when that does not work within
    ``timeout`` seconds, or when the broker refuses our password (or our lack of one:
    the message says what to give ``command``)."""
    import aiomqtt

    from trutnet.net.private import refusal, refused_message

    where = f"cannot reach the broker at {endpoint.url}"
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(endpoint.host, endpoint.port), timeout
        )
    except (OSError, TimeoutError) as exc:
        raise JoinError(f"{where}: {_reason(exc, timeout)}") from None
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    try:
        async with (
            asyncio.timeout(timeout),
            mqtt_client(
                endpoint,
                timeout=timeout,
                **credentials(password),
            ),
        ):
            pass
    except (aiomqtt.MqttError, OSError, TimeoutError) as exc:
        if refusal(exc):
            raise JoinError(refused_message(endpoint, password, command)) from None
        if isinstance(exc, PinError):  # not the pinned certificate: nothing was sent
            raise JoinError(f"{where}: {exc}") from None
        if endpoint.tls and "CERTIFICATE_VERIFY_FAILED" in str(exc):
            raise JoinError(
                f"{where}: its TLS certificate is not one this machine trusts"
                f" ({_reason(exc, timeout)}); trust its authority"
                " (SSL_CERT_FILE=its-ca.pem) or ask for the broker's right address"
            ) from None
        if endpoint.tls and "SSL" in str(exc).upper():
            raise JoinError(f"{where}: no TLS with it ({_reason(exc, timeout)})") from None
        raise JoinError(
            f"{where}: it does not answer as an MQTT broker ({_reason(exc, timeout)})"
        ) from None


def _announcement(payload: bytes, table_id: bytes) -> dict[str, Any] | None:
    """The host's retained lobby announcement (its status, "open" or "playing", its
    game...), or None when there is none (cleared by the host's last will) or it is
    not one the table's own host signed (7.10). Only used to tell a person why a join
    cannot go on, and which game the table plays."""
    if not payload:
        return None
    try:
        return check_announcement(payload, table_id)
    except LobbyError:  # forged, of another table, malformed: as good as none
        return None


def _lobby_status(payload: bytes, table_id: bytes) -> str | None:
    """The status of the host's lobby announcement in ``payload`` (see
    :func:`_announcement`)."""
    announced = _announcement(payload, table_id)
    return None if announced is None else str(announced["status"])


async def lobby_status(
    table_id: bytes, endpoint: Endpoint, timeout: float, password: str | None = None
) -> str:
    """Wait up to ``timeout`` s for the host's lobby announcement of ``table_id`` at
    ``endpoint``; its status, or :class:`JoinError` when no host is there."""
    announced = await lobby_announcement(table_id, endpoint, timeout, password)
    return str(announced["status"])


async def lobby_announcement(
    table_id: bytes, endpoint: Endpoint, timeout: float, password: str | None = None
) -> dict[str, Any]:
    """Wait up to ``timeout`` s for the host's lobby announcement of ``table_id`` at
    ``endpoint`` (its status, game, variant, seats...); :class:`JoinError` when no host
    is there."""
    import aiomqtt

    try:
        async with (
            asyncio.timeout(timeout),
            mqtt_client(
                endpoint,
                timeout=min(timeout, 5),
                **credentials(password),
            ) as client,
        ):
            await client.subscribe(topics.lobby(table_id), qos=1)
            async for message in client.messages:
                payload = message.payload
                announced = _announcement(payload if isinstance(payload, bytes) else b"", table_id)
                if announced is not None:
                    return announced
    except TimeoutError:
        pass
    except aiomqtt.MqttError as exc:
        raise JoinError(f"lost the broker at {endpoint.url}: {_reason(exc, timeout)}") from None
    raise JoinError(
        f"no host answers for table {table_id.hex()} at {endpoint.url} "
        f"(waited {timeout:g} s): the table id is wrong, or its host has left"
    )


async def watch_lobby(
    table_id: bytes,
    endpoint: Endpoint,
    seat: LocalSeat,
    timeout: float = LOBBY_TIMEOUT,
    password: str | None = None,
    spectator: bool = False,
    game: str | None = None,
    on_roster: Callable[[list[tuple[int, str, str]]], None] | None = None,
    on_status: Callable[[str], None] | None = None,
) -> None:
    """Until ``seat`` is seated (the host's ``open`` names it; a ``spectator``'s: until
    it has the ``open``), watch the table's lobby announcement: :class:`JoinError` when
    no host has been there for ``timeout`` s (never came, or left: its last will clears
    the announcement), when the table has been playing without this seat for
    ``timeout`` s (every seat taken; not for a spectator), or when the broker cannot be
    reached again for ``timeout`` s; :class:`WrongGame` at once when the host announces
    another game than ``game``. ``on_roster``: who the host says is seated, as it
    changes: (seat, name, ``"bot"`` for a bot the host seated, else ``""``);
    ``on_status``: the table's status (``open``, ``playing``...) as it changes."""
    import aiomqtt

    loop = asyncio.get_running_loop()
    status: str | None = None
    seen: str | None = None
    since = loop.time()
    lost: float | None = None  # since when the broker cannot be reached

    def opened() -> bool:
        return seat.peer is not None and seat.peer.replica.state is not None

    def check() -> None:
        if opened() or loop.time() - since < timeout:
            return
        if status is None:
            if seen is None:
                raise JoinError(
                    f"no host answers for table {table_id.hex()} at {endpoint.url} "
                    f"(waited {timeout:g} s): the table id is wrong, or its host has left"
                )
            raise JoinError(f"the host of table {table_id.hex()} left before the game started")
        if status != "open" and not spectator:
            raise JoinError(
                f"table {table_id.hex()} is {status} without this seat: every seat is taken"
            )

    while not opened():
        try:
            async with mqtt_client(
                endpoint,
                timeout=5,
                **credentials(password),
            ) as client:
                await client.subscribe(topics.lobby(table_id), qos=1)
                lost = None
                messages = aiter(client.messages)
                while not opened():
                    try:
                        message = await asyncio.wait_for(anext(messages), 0.5)
                    except TimeoutError:
                        check()
                        continue
                    payload = message.payload
                    announced = _announcement(
                        payload if isinstance(payload, bytes) else b"", table_id
                    )
                    if game is not None and announced is not None and announced["game"] != game:
                        raise WrongGame(table_id, announced["game"], game)
                    if on_roster is not None and announced is not None and SEATED in announced:
                        on_roster(
                            [
                                (s, n, "bot" if bot else "")
                                for s, (n, bot) in enumerate(announced[SEATED])
                            ]
                        )
                    now = None if announced is None else str(announced["status"])
                    if now != status:
                        status, since = now, loop.time()
                        seen = seen or now
                        if now is not None and on_status is not None:
                            on_status(now)
                    check()
        except aiomqtt.MqttError as exc:
            lost = lost if lost is not None else loop.time()
            if loop.time() - lost >= timeout:
                why = _reason(exc, timeout)
                raise JoinError(f"lost the broker at {endpoint.url} (host gone?): {why}") from None
            await asyncio.sleep(1)


def load_seat(
    store: Path, person: Identity | None = None
) -> tuple[Identity, TablePeer, Endpoint, bool]:
    """A crashed seat's identity, its peer restored from its secrets and log, the
    broker it last used and whether that broker was its own embedded one;
    :class:`StoreError` naming what is missing or wrong. A person's seat keeps no key
    in its folder (its key is the player's own): ``person`` is that key."""
    if not store.is_dir():
        raise StoreError(f"cannot resume from {store}: no such folder")
    if not (store / "secrets.json").exists() and not (store / "log.bin").exists():
        raise StoreError(f"cannot resume from {store}: no seat's files there")
    try:
        key_file = store / "identity.key"
        identity = person if person is not None and not key_file.exists() else None
        identity = identity or load_identity(key_file)
        files = PeerStore(store)
        peer = TablePeer.restore(identity, files.load_secrets(), files.entries(), os.urandom)
        fields = (store / "table.txt").read_text().split()
        endpoint, own_broker = parse_broker_url(fields[1]), fields[2:] == ["own-broker"]
    except (KeyFileError, StoreError) as exc:
        raise StoreError(f"cannot resume from {store}: {exc}") from exc
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise StoreError(f"cannot resume from {store}: {why.lower()}") from exc
    except (IndexError, KeyError, ValueError, TypeError, BrokerError, Rejected) as exc:
        raise StoreError(f"cannot resume from {store}: not a seat's files ({exc})") from exc
    return identity, peer, endpoint, own_broker


async def resume(
    store: Path,
    endpoints: list[Endpoint] | None = None,
    bot_kind: str | None = BEST,
    options: Options | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
    hooks: Hooks | None = None,
    name: str = "resumed",
    loaded: tuple[Identity, TablePeer, Endpoint, bool] | None = None,
    password: str | None = None,
) -> SeatResult:
    """A seat back from a crash: identity, secrets and log from ``store`` (or
    ``loaded``, what :func:`load_seat` read); played by a bot, or (``bot_kind`` None)
    by a person through ``hooks``."""
    hooks = hooks or Hooks()
    peer_store = PeerStore(store)
    identity, peer, stored_endpoint, own_broker = loaded or load_seat(store)
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
    link = MqttLink(endpoints, [], f"resume-{table_id.hex()[:8]}", password=password)
    runtime = TableRuntime(table_id, link, [seat, *host_bots(store, table_id)], options, on_event)
    if own_broker and endpoints[0] == stored_endpoint:  # restarted if no broker answers
        runtime.succession.own_broker = stored_endpoint
    hooks.attach(runtime, seat)
    try:
        await runtime.run()
    finally:
        await link.close()
    return _result(runtime)


def host_bots(store: Path, table_id: bytes) -> list[LocalSeat]:
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
            peer = TablePeer.restore(identity, files.load_secrets(), files.entries(), os.urandom)
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


def announced_table(proc: subprocess.Popen[str], timeout: float = 60.0) -> tuple[str, list[str]]:
    """The table id that a ``trutnet host --json`` process announces (its first
    ``table`` event; the id is bound to the host's key, 7.10, so only the host knows it
    in advance), and the lines it printed until then."""
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if event.get("event") == "table" and isinstance(event.get("table"), str):
                    return event["table"], lines
    raise RuntimeError("the host did not announce its table")
