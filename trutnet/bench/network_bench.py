"""``trutnet bench network``: the table protocol over MQTT, playing a game (``--game``;
Trut, 4 players, by default).

1. **A real game**: one bot peer per seat (4 for Trut), each its own OS process, over
   the embedded broker, full crypto, played by the game's best bot. Hand time is
   measured by the host process between the starts of consecutive hands (rounds).
2. **How many tables one embedded broker serves**: four crypto peers per table would
   saturate this 2-core machine long before the broker, so the broker is loaded with
   a replay of a real recorded game instead. Each simulated table has an MQTT client
   per seat (4 for Trut), and each entry is published by its author only once the
   previous entry has reached it, as real peers do. Tables are added until a hand
   takes more than 2 s (95th percentile) or a step fails (a client cannot connect
   within 30 s, or the step overruns 180 s): the last row then says how many clients
   and tables got in, and why it stopped; the benchmark never ends in a traceback.
   Each row has the connect times, messages delivered per second, and the CPU share
   of the broker (with its CPU time per delivered message) and of the load generator.
   Both brokers are measured under the same load when Mosquitto is installed, the one
   in use first. The figure measures the broker and the network stack, not the crypto.

A Lutin & Troll combat's time (``combat_ms``, median and p90) runs from the moment the
attacker's attack (its ``act``) is signed in its process to the moment both peers have
applied the entry that gives the combat's result: the riposte's opening in a base game
(L16; the result comes with it, L7-L13), the window's last entry in an expert one
(L22). Both peer processes run with ``--stamp-entries`` (every entry stamped when
signed and when applied, on the machine's monotonic clock, and the log in the result);
the benchmark replays the host's log with a replica that holds no secret to find each
combat's first and last entries.

A played card's time (``card_ms``) runs from the moment its play (an ``act`` that
reveals a card, carrying its author's share) is appended at the player to the moment
every peer has the revealed card: each process stamps
both on the machine's monotonic clock and the benchmark takes, per play, the last
peer's stamp minus the player's. With ``--hop-delay-ms D`` the game alone is played,
through a proxy that delays every hop between a peer and the broker by ``D`` ms
(:mod:`trutnet.bench.delay_proxy`); the broker-capacity rows measure the broker
itself and are left out.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiomqtt

from trutnet.bench.combats import combat_marks, has_combats, rank
from trutnet.bench.delay_proxy import DelayProxy
from trutnet.engine.api import Game
from trutnet.i18n import _
from trutnet.memory_table import play_memory_game
from trutnet.net.broker import (
    KINDS,
    BrokerError,
    EmbeddedBroker,
    Endpoint,
    embedded_kind,
    mosquitto_binary,
)
from trutnet.protocol.envelope import parse_entry
from trutnet.runtime.events import announced_table

HAND_LIMIT_MS = 2000.0
STEPS = (5, 10, 20, 30, 40, 60, 80, 120, 160)
CONNECT_TIMEOUT_S = 30.0
STEP_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Played:
    """The game the benchmark plays: the game, the command-line options that give it to
    a ``trutnet host`` process (``--game trut --players 4 ...``), the bot kind that
    plays every seat, and whether the table is sealed (``--invite``: every message
    encrypted, the joiners in by the host's code, docs/protocol.md 9.9)."""

    game: Game
    args: list[str]
    bot: str
    sealed: bool = False

    @property
    def players(self) -> int:
        return self.game.num_players()


def real_game(
    endpoint: Endpoint,
    seed: str,
    played: Played,
    inprocess: bool = False,
    hop_delay_ms: float | None = None,
) -> dict[str, Any]:
    """A peer process per seat; with ``inprocess`` the broker runs in the host's event
    loop; with ``hop_delay_ms`` every peer reaches the broker through a
    :class:`DelayProxy`."""
    if hop_delay_ms is not None:
        with DelayProxy(endpoint, hop_delay_ms) as proxy:
            figures = real_game(proxy.endpoint, seed, played)
        return {**figures, "hop_delay_ms": hop_delay_ms, "connections": proxy.connections}
    base = [sys.executable, "-m", "trutnet"]
    if inprocess:
        host_broker = ["--inprocess-broker", "--bind", endpoint.host, "--port", str(endpoint.port)]
    else:
        host_broker = ["--broker", endpoint.url]
    stamps = ["--stamp-entries"] if has_combats(played.game) else []
    start = time.perf_counter()
    host = [
        *base,
        "host",
        *played.args,
        "--bot",
        played.bot,
        "--no-announce",
        "--seed",
        seed,
        "--json",
        *stamps,
        *host_broker,
        *(["--invite"] if played.sealed else []),
    ]
    procs = [subprocess.Popen(host, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)]
    table, early = announced_table(procs[0])
    where = ["--table", table] if not played.sealed else [_invitation(early)]
    for k in range(1, played.players):
        join = [
            *base,
            "join",
            "--game",
            played.game.name,
            "--bot",
            played.bot,
            *where,
            "--name",
            f"p{k}",
            "--seed",
            seed,
            "--json",
            *stamps,
            "--broker",
            endpoint.url,
        ]
        procs.append(
            subprocess.Popen(join, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        )
    outputs = [p.communicate(timeout=900)[0] for p in procs]
    return game_figures(outputs, played.players, time.perf_counter() - start)


def _invitation(lines: list[str]) -> str:
    """The code a ``trutnet host --invite --json`` process printed (before its table)."""
    for line in lines:
        if line.startswith("{") and '"invitation"' in line:
            event = json.loads(line)
            if event.get("event") == "invitation":
                return str(event["code"])
    raise RuntimeError("the host printed no invitation code")


def game_figures(outputs: list[str], players: int, game_s: float) -> dict[str, Any]:
    """The figures of one benchmark game from its peers' JSON lines: a hand's and a
    card's median times, and a combat's where the game has combats."""
    results = [
        json.loads(line)
        for out in outputs
        for line in out.splitlines()
        if '"event": "result"' in line
    ]
    if len(results) != players:
        raise RuntimeError("a peer of the benchmark game failed")
    hand_ms = results[0]["hand_ms"]
    card_ms = card_times(results)
    figures = {
        "hand_ms_median": round(statistics.median(hand_ms), 1) if hand_ms else None,
        "card_ms_median": round(statistics.median(card_ms), 1) if card_ms else None,
        "cards": len(card_ms),
        "game_s": round(game_s, 2),
        "hands": results[0]["hands"],
        "agree": len({r["state_hash"] for r in results}) == 1,
    }
    combat_ms = sorted(combat_times(results))
    if combat_ms:
        hops = hop_times(results)
        figures.update(
            combats=len(combat_ms),
            combat_ms_median=round(statistics.median(combat_ms), 1),
            combat_ms_p90=round(rank(combat_ms, 0.9), 1),
            hop_ms_median=round(statistics.median(hops), 2) if hops else None,
        )
    return figures


def hop_times(results: list[dict[str, Any]]) -> list[float]:
    """Per entry signed in one peer process, ms until each other peer applied it (the
    broker's hop and the receiver's checks): where a combat's time goes."""
    times = []
    for author in results:
        for key, signed in (author.get("entries_signed") or {}).items():
            for other in results:
                applied = (other.get("entries_applied") or {}).get(key)
                if other is not author and applied is not None:
                    times.append((applied - signed) * 1000)
    return times


def combat_times(results: list[dict[str, Any]]) -> list[float]:
    """Per combat, ms from the attack signed to the last peer applying its result (the
    peers' ``entries_signed`` and ``entries_applied``); needs the log of the first."""
    wires = [bytes.fromhex(w) for w in results[0].get("log") or []]
    signed = {k: t for r in results for k, t in (r.get("entries_signed") or {}).items()}
    times = []
    for attack, result in combat_marks(wires):
        applied = [(r.get("entries_applied") or {}).get(result) for r in results]
        if attack in signed and all(t is not None for t in applied):
            times.append((max(applied) - signed[attack]) * 1000)  # type: ignore[type-var]
    return times


def card_times(results: list[dict[str, Any]]) -> list[float]:
    """Per play, ms from its entry at the player to the last peer knowing its card
    (from the peers' ``plays_signed`` and ``cards_known`` stamps); a play that some
    peer never revealed is left out."""
    signed = {k: t for r in results for k, t in (r.get("plays_signed") or {}).items()}
    times = []
    for play, start in signed.items():
        known = [(r.get("cards_known") or {}).get(play) for r in results]
        if all(t is not None for t in known):
            times.append((max(known) - start) * 1000)  # type: ignore[type-var]
    return times


def _recorded_game(played: Played, seed: str) -> tuple[list[tuple[int, bytes]], list[int]]:
    """A whole game's entries (author's seat, wire) and where each hand (round) starts:
    at the first shuffle, then after each round's checkpoints."""
    table = play_memory_game(played.game, seed, [played.bot] * played.players)
    entries = [(parse_entry(w).seat, w) for w in table.log]
    types = [parse_entry(w).type for _, w in entries]
    first = types.index("shuffle") if "shuffle" in types else 0
    starts = [first] + [
        i
        for i in range(first + 1, len(types))
        if types[i - 1] == "checkpoint" and types[i] not in ("checkpoint", "result")
    ]
    return entries, starts


class _Step:
    """What one load step measured (shared by its tables)."""

    def __init__(self) -> None:
        self.connect_ms: list[float] = []
        self.hand_ms: list[float] = []
        self.delivered = 0
        self.playing = 0  # tables whose clients (one per seat) are all connected


async def _client(endpoint: Endpoint, name: str, step: _Step) -> aiomqtt.Client:
    client = aiomqtt.Client(
        endpoint.host, endpoint.port, identifier=name, keepalive=60, timeout=CONNECT_TIMEOUT_S
    )
    began = time.perf_counter()
    await client.__aenter__()
    step.connect_ms.append((time.perf_counter() - began) * 1000)
    sock = client._client.socket()
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return client


async def _table(
    endpoint: Endpoint,
    name: str,
    entries: list[tuple[int, bytes]],
    starts: list[int],
    hands: int,
    step: _Step,
) -> None:
    topic = f"trutnet/v1/bench/{name}"
    clients: list[aiomqtt.Client] = []
    received = [asyncio.Event() for _ in entries]
    listeners: list[asyncio.Task[None]] = []
    try:
        for s in range(1 + max(seat for seat, _ in entries)):
            clients.append(await _client(endpoint, f"bench-{name}-{s}", step))
        for client in clients:
            await client.subscribe(topic, qos=1)
        step.playing += 1

        async def listen(client: aiomqtt.Client, seat: int) -> None:
            count = 0
            async for _message in client.messages:
                if seat == 0 and count < len(received):
                    received[count].set()
                count += 1
                step.delivered += 1

        listeners = [asyncio.create_task(listen(c, s)) for s, c in enumerate(clients)]
        end = starts[hands] if hands < len(starts) else len(entries)
        stamps: dict[int, float] = {}
        for i in range(end):
            if i:
                await received[i - 1].wait()
            if i in starts:
                stamps[i] = time.perf_counter()
            seat, wire = entries[i]
            await clients[seat].publish(topic, wire, qos=1)
        await received[end - 1].wait()
        stamps[end] = time.perf_counter()
        marks = sorted(stamps)
        step.hand_ms.extend((stamps[b] - stamps[a]) * 1000 for a, b in itertools.pairwise(marks))
    finally:
        for task in listeners:
            task.cancel()
        for client in clients:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.__aexit__(None, None, None), 5)


def _cpu_s(pid: int | None) -> float | None:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _why(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    return f"{type(exc).__name__}: {exc}"


async def _load(
    endpoint: Endpoint,
    tables: int,
    entries: list[tuple[int, bytes]],
    starts: list[int],
    hands: int,
    step: _Step,
    label: str,
    step_timeout: float,
) -> str | None:
    """Run ``tables`` replayed tables at once; None, or why the step failed."""
    tasks = [
        asyncio.create_task(_table(endpoint, f"{label}-{i}", entries, starts, hands, step))
        for i in range(tables)
    ]
    failure = None
    try:
        async with asyncio.timeout(step_timeout):
            done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        errors = [t.exception() for t in done if not t.cancelled() and t.exception()]
        if errors:
            failure = _why(errors[0])  # type: ignore[arg-type]
    except TimeoutError:
        failure = f"the step did not finish within {step_timeout:.0f} s"
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return failure


def max_tables(
    endpoint: Endpoint,
    played: Played,
    steps: tuple[int, ...] = STEPS,
    hands: int = 3,
    broker_pid: int | None = None,
    step_timeout: float = STEP_TIMEOUT_S,
) -> tuple[int, list[dict[str, Any]]]:
    """Add replayed tables until a hand's p95 passes 2 s or a step fails (a client
    cannot connect, or the step overruns ``step_timeout``). Never raises for the
    broker's sake: the last row of the curve says why the load stopped. Each row also
    has the connect times, the messages delivered per second and the CPU share (of
    one core) of the broker (``broker_pid``) and of this load generator."""
    entries, starts = _recorded_game(played, "bench-network")
    best, curve = 0, []
    for number, tables in enumerate(steps):
        step = _Step()
        cpu_broker, cpu_self, began = _cpu_s(broker_pid), time.process_time(), time.perf_counter()
        failure = asyncio.run(
            _load(endpoint, tables, entries, starts, hands, step, f"s{number}", step_timeout)
        )
        wall = time.perf_counter() - began
        after = _cpu_s(broker_pid)
        row: dict[str, Any] = {
            "tables": tables,
            "clients": len(step.connect_ms),
            "connect_ms_median": round(statistics.median(step.connect_ms), 1)
            if step.connect_ms
            else None,
            "connect_ms_max": round(max(step.connect_ms), 1) if step.connect_ms else None,
            "messages_per_s": round(step.delivered / wall),
            "broker_cpu": round(100 * (after - cpu_broker) / wall)
            if after is not None and cpu_broker is not None
            else None,
            "bench_cpu": round(100 * (time.process_time() - cpu_self) / wall),
            "broker_us_per_message": round(1e6 * (after - cpu_broker) / step.delivered)
            if after is not None and cpu_broker is not None and step.delivered
            else None,
            "seconds": round(wall, 1),
        }
        if step.hand_ms:
            times = sorted(step.hand_ms)
            row["hand_ms_median"] = round(statistics.median(times), 1)
            row["hand_ms_p95"] = round(times[math.ceil(0.95 * len(times)) - 1], 1)  # nearest rank
        if failure is not None:
            row["failed"] = (
                f"{len(step.connect_ms)} of {played.players * tables} clients connected, "
                f"{step.playing} of {tables} tables playing: {failure}"
            )
        curve.append(row)
        if failure is not None or row.get("hand_ms_p95", 0) > HAND_LIMIT_MS:
            break
        best = tables
        time.sleep(1.0)  # let the broker drop the last step's sessions
    return best, curve


def _game(
    endpoint: Endpoint,
    seed: str,
    played: Played,
    inprocess: bool = False,
    hop_delay_ms: float | None = None,
) -> dict[str, Any]:
    """:func:`real_game`, or what went wrong (a benchmark reports, never a traceback)."""
    try:
        return real_game(endpoint, seed, played, inprocess, hop_delay_ms)
    except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as exc:
        return {"failed": _why(exc)}


def run(
    game: Game,
    game_args: list[str],
    bot: str,
    seed: str = "bench",
    hop_delay_ms: float | None = None,
    sealed: bool = False,
) -> dict[str, Any]:
    """The figures for ``game`` (given to the host process by ``game_args``), every seat
    played by a ``bot``; ``sealed``: on a sealed table (its game alone, as with
    ``hop_delay_ms``: the broker's rows measure the broker)."""
    played = Played(game, game_args, bot, sealed)
    kind = embedded_kind()
    figures: dict[str, Any] = {"broker": kind, "played": game.name, "players": played.players}
    broker = EmbeddedBroker(kind=kind)
    try:
        figures["game"] = _game(broker.start(), seed, played, hop_delay_ms=hop_delay_ms)
    except BrokerError as exc:
        figures["game"] = {"failed": str(exc)}
    finally:
        broker.stop()
    if hop_delay_ms is not None or sealed:  # the game alone: the broker's rows are
        figures["hop_delay_ms"] = hop_delay_ms  # the broker's (a proxy would skew them)
        figures["sealed"] = sealed
        return figures
    # Both brokers under the same load, the one in use first (amqtt is always there).
    figures["load"] = {}
    for name in dict.fromkeys([kind, *(k for k in KINDS if k != kind)]):
        if name == "mosquitto" and mosquitto_binary() is None:
            continue
        broker = EmbeddedBroker(kind=name)
        try:
            best, curve = max_tables(broker.start(), played, broker_pid=broker.pid)
            figures["load"][name] = {"max_tables": best, "curve": curve}
        except BrokerError as exc:
            figures["load"][name] = {"max_tables": 0, "curve": [], "failed": str(exc)}
        finally:
            broker.stop()
    figures["max_tables"] = figures["load"][kind]["max_tables"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    figures["game_broker_in_host_loop"] = _game(
        Endpoint("127.0.0.1", port), seed, played, inprocess=True
    )
    return figures


def _game_line(game: dict[str, Any]) -> str:
    if "failed" in game:
        return _("the game failed: {why}").format(why=game["failed"])
    card = _("median card {ms} ms, ").format(ms=game["card_ms_median"]) if game["cards"] else ""
    line = _(
        "median hand {hand} ms, {card}whole game {seconds} s ({hands} hands, {cards} cards, "
        "peers agree: {agree})"
    ).format(
        hand=game["hand_ms_median"],
        card=card,
        seconds=game["game_s"],
        hands=game["hands"],
        cards=game["cards"],
        agree=game["agree"],
    )
    if "combats" in game:
        line += "\n" + _(
            "    combat (attack to both peers having the result): median {median} ms, p90 "
            "{p90} ms ({combats} combats); an entry from one peer to the other: median {hop} ms"
        ).format(
            median=game["combat_ms_median"],
            p90=game["combat_ms_p90"],
            combats=game["combats"],
            hop=game["hop_ms_median"],
        )
    return line


def _row(row: dict[str, Any]) -> str:
    hands = (
        _("hand median {median:>7.1f} ms p95 {p95:>7.1f} ms").format(
            median=row["hand_ms_median"], p95=row["hand_ms_p95"]
        )
        if "hand_ms_p95" in row
        else _("no complete hand").ljust(37)
    )
    connect = (
        _("connect median {median:>6.1f} ms max {most:>7.1f} ms").format(
            median=row["connect_ms_median"], most=row["connect_ms_max"]
        )
        if row["connect_ms_max"] is not None
        else _("no client connected")
    )
    cpu = f"{row['broker_cpu']:>3}%" if row["broker_cpu"] is not None else "?"
    if row["broker_us_per_message"] is not None:
        cpu += _(" ({us} us/msg)").format(us=row["broker_us_per_message"])
    line = _(
        "    {tables:>3} tables: {hands}, {rate:>5} msg/s\n"
        "          {connect}, CPU broker {cpu}, bench {bench:>3}%"
    ).format(
        tables=row["tables"],
        hands=hands,
        rate=row["messages_per_s"],
        connect=connect,
        cpu=cpu,
        bench=row["bench_cpu"],
    )
    if "failed" in row:
        line += "\n" + _("          STOPPED: {why}").format(why=row["failed"])
    return line


def report(figures: dict[str, Any]) -> str:
    kind, players = figures["broker"], figures["players"]
    game = _("  {players} peer processes ({played}): {game}").format(
        players=players, played=figures["played"], game=_game_line(figures["game"])
    )
    if "hop_delay_ms" in figures:
        said = _(
            "network benchmark: embedded broker {kind} (own process), full crypto, every hop "
            "between a peer and the broker delayed {ms} ms"
        )
        if figures["hop_delay_ms"] is None:
            said = _("network benchmark: embedded broker {kind} (own process), full crypto")
        sealed = _(", on a sealed table") if figures.get("sealed") else ""
        line = said.format(kind=kind, ms=f"{figures['hop_delay_ms'] or 0:g}") + sealed
        return line + "\n" + game
    lines = [
        _("network benchmark: embedded broker {kind} (own process), full crypto").format(kind=kind),
        game,
        _("  same, amqtt inside the host's event loop: {game}").format(
            game=_game_line(figures["game_broker_in_host_loop"])
        ),
        _(
            "  replayed tables on one broker (hand = a recorded {players}-player hand; CPU in "
            "% of one core;\n  the load generator is one Python process, so 'bench' near 100% "
            "means the figure is\n  the generator's limit, not the broker's):"
        ).format(players=players),
    ]
    for name, load in figures["load"].items():
        lines.append(f"  {name}" + (_(" (in use)") if name == kind else "") + ":")
        lines.extend(_row(row) for row in load["curve"])
        if "failed" in load:
            lines.append(_("    could not start: {why}").format(why=load["failed"]))
        lines.append(
            _("    max tables with p95 hand <= 2 s: {tables}").format(tables=load["max_tables"])
        )
    return "\n".join(lines)
