"""Hosting and joining a table from one process (asyncio, I/O edge).

* :func:`host` seats the host and its bots, announces the table (a retained lobby
  message that the host's last will clears, and zeroconf when asked), seats joiners
  from signed join requests as they come, then opens the table and plays.
* :func:`join` asks for a seat until the ``open`` entry names it, then plays, while
  :func:`~trutnet.runtime.lobby_watch.watch_lobby` follows the host's announcement.
* A seat back from its files: :mod:`trutnet.runtime.resuming`.

Each of them returns a :class:`SeatResult` once the game is over. A join that
cannot go on (no broker at the address, no host at the table, the table already
full or its host gone before it opened, a table of another game than the one asked
for) raises :class:`~trutnet.runtime.lobby_watch.JoinError`, whose message is one
line for a person.

Bots are made by game and kind (:func:`trutnet.bots.make_bot`): a joiner's bot once
the table's ``open`` entry has said which game it plays
(:class:`~trutnet.runtime.table_bot.TableBot`).

A host with ``invite`` seals its table (every message, with a key of its own) and
serves an invitation code (docs/protocol.md 9.9: to seats until the table is full,
to spectators until the game ends or the code expires;
:mod:`~trutnet.runtime.invitations`); a host with a ``password`` seals it too, and
serves the password instead (9.10); a joiner given the table's key seals its link
and reads the lobby with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trutnet.bots import BEST, check_bot, make_bot
from trutnet.crypto import SeededRandom
from trutnet.crypto.identity import Identity
from trutnet.engine.api import Game
from trutnet.i18n import _
from trutnet.keystore import load_or_create_identity, save_identity
from trutnet.net import topics
from trutnet.net.broker import Endpoint
from trutnet.net.mqtt_link import MqttLink
from trutnet.net.tasks import stop_tasks
from trutnet.protocol.clock import ClockRule
from trutnet.protocol.invitation import Code
from trutnet.protocol.lobby import (
    ANNOUNCE_VERSION,
    CLOCK,
    HINTS,
    MAX_ANNOUNCEMENT,
    SEATED,
    Lobby,
    LobbyError,
    announced_variant,
    default_table_name,
    sign_announcement,
)
from trutnet.protocol.sealed_table import TableSeal
from trutnet.protocol.table import TablePeer
from trutnet.runtime.events import Invited, Joined, JoinRefused
from trutnet.runtime.invitations import TableInvitation
from trutnet.runtime.lobby_watch import LOBBY_TIMEOUT, Follow, JoinError, watch_lobby
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.options import Options
from trutnet.runtime.seat_files import write_clock_file, write_table_file, write_table_key
from trutnet.runtime.table_bot import TableBot
from trutnet.runtime.table_runtime import TableRuntime
from trutnet.store import PeerStore


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

            entries = [e.wire for e in seat.peer.replica.log.entries]
            chat = runtime.chat.room.wires()  # what the table said, as this peer read it
            signs = runtime.signs.wires()
            halted = seat.peer.replica.halted  # the entries a blame rests on, to check
            evidence = halted.evidence if halted is not None else ()
            self.saved = save_transcript(
                self.transcript, runtime.table_id, entries, chat, signs, evidence
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
    # the seat the table stopped on and the rule it broke (``halted`` says it in English)
    blame: dict[str, Any] | None = None
    names: list[str] | None = None  # the players' names, by seat

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
        raise JoinError(
            _("gave up before the table opened: no host seated this seat")
            if runtime.gave_up
            else _("stopped before the table opened: no host seated this seat")
        )
    return SeatResult(
        seats=[p.seat for p in runtime.peers if p.seated()],
        state_hash=replica.state.state_hash(),
        winner=replica.state.winning_team(),
        hands=replica.state.round_number() + 1,
        entries=len(replica.log),
        halted=str(replica.halted)
        if replica.halted
        else (runtime.gave_up_why or _("no progress: gave up") if runtime.gave_up else None),
        blame=replica.halted.summary() if replica.halted else None,
        names=list(replica.names),
        stats=dict(
            runtime.stats.__dict__,
            rejected=len(runtime.stats.rejected),
            proofs_checked=runtime.checked.checks,  # by this process's replicas, each once
            proofs_skipped=runtime.checked.skipped,  # found checked by a sibling replica
            signatures_checked=runtime.checked.signatures,  # each entry's, once
            signatures_skipped=runtime.checked.signatures_skipped,
        ),
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
    clock: ClockRule | None = None,
) -> dict[str, Any]:
    """The retained lobby message (also the zeroconf TXT content). ``private``: the
    table's key goes to those who prove its password (never the password itself).
    ``bots``: the seats the host gave its bots; with it, the message says who is seated
    (``seated``).
    ``hints`` False: the host asks that nobody use hints (``hints: false``); ``clock``:
    the table's turn clock (7.11)."""
    roster = lobby.roster()
    seated = {} if bots is None else {SEATED: [[n, s in bots] for s, n, _ in roster]}
    return {
        **seated,
        **({} if hints else {HINTS: False}),
        **({} if clock is None else {CLOCK: clock.spec()}),
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


@dataclass(frozen=True)
class HostSetup:
    """How a host sits at the table it opens. ``own_broker``: the table's broker is
    this process's embedded one, so a resumed host starts it again if it is gone (9.3).
    The table id is bound to the host's key by ``nonce`` (7.10; random unless given or
    seeded). ``password``: a private table's password (its key goes to those who
    prove it, 9.10; never announced). ``bot_kind``: the bots seated in empty seats;
    ``host_bot``: the host seat's bot (None: a person plays it);
    :data:`~trutnet.bots.BEST` is the game's best. ``hints`` False: the host asks that
    nobody use hints."""

    name: str = "Host"
    table_name: str = ""  # empty: NAME-table
    bots: int = 0  # bots seated at once
    bot_kind: str = BEST
    host_bot: str | None = BEST
    store: Path | None = None
    seed: str | None = None  # deterministic keys and randomness (tests only)
    options: Options | None = None
    nonce: bytes | None = None
    identity: Identity | None = None
    own_broker: bool = False
    password: str | None = None
    hints: bool = True
    inprocess_broker: bool = False  # measurement only: the broker in this event loop
    invite: bool = False  # a sealed table, joined by invitation code (9.9)
    table_key: bytes | None = None  # a sealed rematch's key, named in its notice (9.7)


class _HostedTable:
    """A table this process hosts, from its lobby to its ``open`` entry."""

    def __init__(
        self,
        game: Game,
        endpoints: list[Endpoint],
        setup: HostSetup,
        on_event: Callable[[str, dict[str, Any]], None] | None,
        on_announce: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        seed, store = setup.seed, setup.store
        self.game, self.setup, self.endpoint = game, setup, endpoints[0]
        self.on_announce = on_announce
        nonce = setup.nonce or (SeededRandom(f"{seed}/table")(16) if seed else os.urandom(16))
        self.table_name = setup.table_name or default_table_name(setup.name)
        host_bot = setup.host_bot
        self.host_seat = LocalSeat(
            setup.identity or _identity(store / "seat-0" if store else None, seed, "host"),
            setup.name,
            make_bot(game.name, host_bot, _bot_random(seed, "bot0")) if host_bot else None,
            PeerStore(store / "seat-0") if store else None,
            rng=_rng(seed, "seat0"),
        )
        self.lobby = Lobby(game, self.host_seat.identity, setup.name, nonce)
        table_id = self.table_id = self.lobby.table_id
        if store is not None:
            folder, options = store / "seat-0", setup.options
            write_table_file(folder, table_id, self.endpoint.url, setup.own_broker)
            if options is not None:
                write_clock_file(folder, options.clock, options.bot_on_timeout)
        self.local = [self.host_seat]
        for _bot in range(min(setup.bots, game.num_players() - 1)):
            self.seat_bot()
        self.link = MqttLink(
            endpoints,
            [topics.join(table_id), topics.lobby(table_id)],
            f"host-{table_id.hex()[:8]}",
            will=(topics.lobby(table_id), b""),
        )
        self.runtime = TableRuntime(table_id, self.link, self.local, setup.options, on_event)
        self.announced: bytes | None = None  # the retained announcement, as signed
        self.invitation: TableInvitation | None = None
        if setup.invite or setup.password is not None:  # sealed (9.9) or private (9.10)
            rng = _rng(seed, "invite")
            self.invitation = TableInvitation(
                self.endpoint, table_id, rng, password=setup.password, key=setup.table_key
            )
            self.link.seal = self.invitation.seal
            if store is not None:
                write_table_key(store / "seat-0", self.invitation.key)

    def seat_bot(self) -> None:
        """Seat a bot of the setup's kind in the next empty seat."""
        setup, k = self.setup, len(self.local) - 1
        folder = setup.store / f"bot-{k}" if setup.store else None
        bot = LocalSeat(
            _identity(None, setup.seed, f"bot{k}"),  # no seed: a fresh 32-byte random key
            f"Bot {k + 1}",
            make_bot(self.game.name, setup.bot_kind, _bot_random(setup.seed, f"bot{k + 1}")),
            PeerStore(folder) if folder else None,
            rng=_rng(setup.seed, f"bot{k}"),
        )
        if folder is not None:  # kept, so that the host's resume brings its bots back too
            save_identity(bot.identity, folder / "identity.key")
            (folder / "bot.txt").write_text(f"{setup.bot_kind}\n")
        self.lobby.seat(bot.identity.public, bot.name)
        self.local.append(bot)

    async def announce(self) -> None:
        """Publish the table's signed announcement (retained), as the lobby is now."""
        lobby, setup = self.lobby, self.setup
        status = "open" if not lobby.full else "playing"
        bots = {lobby.keys.index(s.identity.public) for s in self.local if s.bot is not None}
        private = setup.password is not None
        clock = setup.options.clock if setup.options is not None else None
        message = announcement(
            lobby, self.table_name, self.endpoint, status, private, bots, setup.hints, clock
        )
        if self.on_announce is not None:
            self.on_announce({k: v for k, v in message.items() if k not in ("nonce", SEATED)})
        signed = sign_announcement(self.host_seat.identity, self.table_id, message)
        if len(signed) > MAX_ANNOUNCEMENT:  # long names: the roster is left out
            del message[SEATED]
            signed = sign_announcement(self.host_seat.identity, self.table_id, message)
        self.announced = signed
        await self.link.publish(topics.lobby(self.table_id), signed, retain=True)

    async def fill(self, hooks: Hooks) -> None:
        """Seat joiners (and the bots the person asks for) until every seat is taken."""
        lobby, link = self.lobby, self.link
        await self.announce()  # full at once: bots only
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
                await self._take(task.result())
            if len(lobby.keys) != seated:  # only a new seat changes what is announced
                hooks.lobby(lobby.roster())
                await self.announce()
        if self.invitation is not None:
            self.invitation.full()

    async def _take(self, item: Any) -> None:
        """One lobby message, or the person's command ``"bot"``."""
        lobby, table_id = self.lobby, self.table_id
        if item == "bot":  # the host seats a bot in the next empty seat
            if not lobby.full:
                self.seat_bot()
                self.runtime.emit(Joined(len(self.local) - 1, self.local[-1].name))
            return
        topic, payload = item
        if topic == topics.lobby(table_id) and self.announced and payload != self.announced:
            # someone cleared or overwrote our retained announcement: say it again
            await self.link.publish(topics.lobby(table_id), self.announced, retain=True)
            return
        if topic != topics.join(table_id) or lobby.full:
            return
        try:
            seat = lobby.receive(payload)
        except LobbyError as exc:
            self.runtime.emit(JoinRefused(str(exc)))
            return
        self.runtime.emit(Joined(seat, lobby.names[seat]))

    async def open(self) -> None:
        """Every seat taken: each local seat's peer, then the signed ``open`` entry."""
        body = self.lobby.open_body()
        for seat_index, key in enumerate(body["seats"]):
            for seat in self.local:
                if seat.identity.public == key:
                    rng = seat.rng or os.urandom
                    checked = self.runtime.checked  # each proof checked once in this process
                    seat.peer = TablePeer(seat.identity, seat_index, self.table_id, rng, checked)
                    if seat.store is not None:
                        seat.peer.on_secrets = seat.store.save_secrets
                        seat.store.save_secrets(seat.peer.secrets())
        host_peer = self.host_seat.peer
        assert host_peer is not None
        open_wire = host_peer.open_table(
            self.game, body["seats"], body["names"], body["fallbacks"], nonce=self.lobby.nonce
        )
        runtime = self.runtime
        runtime.open_wire = open_wire
        runtime.ingest(open_wire)
        for seat in self.local:
            runtime.persist(seat)
        await self.link.publish(topics.log(self.table_id), open_wire)


async def host(
    game: Game,
    endpoints: list[Endpoint],
    setup: HostSetup | None = None,
    *,
    hooks: Hooks | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
    on_announce: Callable[[dict[str, Any]], None] | None = None,
) -> SeatResult:
    """Host a table of ``game`` at ``endpoints[0]`` as ``setup`` says, and play it;
    ``on_announce``: each announcement, as it is published."""
    setup = setup or HostSetup()
    hooks = hooks or Hooks()
    in_loop = None
    if setup.inprocess_broker:  # measurement only: the broker shares this peer's loop
        from amqtt.broker import Broker

        from trutnet.net.broker_main import broker_config

        in_loop = Broker(broker_config(endpoints[0].host, endpoints[0].port))
        await in_loop.start()
    table = _HostedTable(game, endpoints, setup, on_event, on_announce)
    hooks.attach(table.runtime, table.host_seat)
    await table.link.start()
    invitation = table.invitation
    try:
        if invitation is not None:
            code = await invitation.start()
            if isinstance(code, Code):  # a private table's password is said by nobody
                table.runtime.emit(Invited(str(code), round(invitation.lifetime)))
        await table.fill(hooks)
        await table.open()
        await table.runtime.run()  # the code still lets spectators in (9.9)
    finally:
        if invitation is not None:
            await invitation.stop()
        with contextlib.suppress(Exception):
            await table.link.publish(topics.lobby(table.table_id), b"", retain=True, wait=2)
        await table.link.close()
        if in_loop is not None:
            await in_loop.shutdown()
    return _result(table.runtime)


@dataclass(frozen=True)
class JoinSetup:
    """How a joiner sits at a table (a seat resumed, and a spectator, read what they
    need of it too). ``bot_kind``: the bot that plays the seat (None: a person,
    through the hooks); ``game``: the game the seat asks for (a table of
    another is refused; None: whatever the table plays); ``fallback``: where this seat
    hosts the table if its broker is lost (9.3); ``lobby_timeout``: see
    :func:`~trutnet.runtime.lobby_watch.watch_lobby`."""

    name: str = "Player"
    bot_kind: str | None = BEST
    store: Path | None = None
    seed: str | None = None  # deterministic keys and randomness (tests only)
    options: Options | None = None
    fallback: str = ""
    identity: Identity | None = None
    lobby_timeout: float = LOBBY_TIMEOUT
    game: str | None = None
    table_key: bytes | None = None  # a sealed or private table's key (9.9, 9.10)


async def join(
    table_id: bytes,
    endpoints: list[Endpoint],
    setup: JoinSetup | None = None,
    *,
    hooks: Hooks | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
) -> SeatResult:
    """Ask for a seat at ``table_id`` as ``setup`` says, and play it;
    :class:`JoinError` when the table cannot be joined (see :func:`watch_lobby`)."""
    setup = setup or JoinSetup()
    hooks = hooks or Hooks()
    label, seed, store, game = f"join-{setup.name}", setup.seed, setup.store, setup.game
    bot = None
    if setup.bot_kind:
        if game is not None:
            check_bot(game, setup.bot_kind)  # BotError now, not at the first decision
        bot = TableBot(setup.bot_kind, _bot_random(seed, label), game)
    seat = LocalSeat(
        setup.identity or _identity(store, seed, label),
        setup.name,
        bot,
        PeerStore(store) if store else None,
        rng=_rng(seed, label),
        fallback=setup.fallback,
    )
    if bot is not None:
        bot.seat = seat
    if store is not None:
        write_table_file(store, table_id, endpoints[0].url)
        if setup.table_key is not None:
            write_table_key(store, setup.table_key)
        if setup.options is not None:
            write_clock_file(store, setup.options.clock, setup.options.bot_on_timeout)
    link = MqttLink(endpoints, [], f"join-{table_id.hex()[:8]}")
    if setup.table_key is not None:
        link.seal = TableSeal(setup.table_key, os.urandom)
    runtime = TableRuntime(table_id, link, [seat], setup.options, on_event)
    hooks.attach(runtime, seat)
    playing = asyncio.create_task(runtime.run(join_names=True))
    watcher = asyncio.create_task(
        watch_lobby(
            table_id,
            endpoints[0],
            seat,
            setup.lobby_timeout,
            Follow(game=game, on_roster=hooks.lobby, on_clock=runtime.clock.follow),
            link.seal,
        )
    )
    try:
        done, _pending = await asyncio.wait([playing, watcher], return_when=asyncio.FIRST_COMPLETED)
        if watcher in done and watcher.exception() is not None:
            raise watcher.exception()  # type: ignore[misc]
        await playing
    finally:
        await stop_tasks(watcher, playing)
        await link.close()
    return _result(runtime)
