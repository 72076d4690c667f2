"""``trutnet bench network``: the table protocol over MQTT.

1. **A real game**: 4 bot peers in 4 OS processes over the embedded broker, full
   crypto. Hand time is measured by the host process between the starts of
   consecutive hands (shuffles, deal, play, checkpoints).
2. **How many tables one embedded broker serves**: four crypto peers per table would
   saturate this 2-core machine long before the broker, so the broker is loaded with
   a replay of a real recorded game instead. Each simulated table has 4 MQTT clients,
   and each entry is published by its author only once the previous entry has reached
   it, as real peers do. Tables are added until a hand takes more than 2 s (95th
   percentile). The figure measures the broker and the network stack, not the crypto.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

import aiomqtt

from trutnet.engine.games.trut import TrutConfig
from trutnet.net.broker import EmbeddedBroker, Endpoint
from trutnet.net.memory import play_memory_game
from trutnet.protocol.envelope import parse_entry
from trutnet.runtime.commands import announced_table

HAND_LIMIT_MS = 2000.0


def real_game(endpoint: Endpoint, seed: str, inprocess: bool = False) -> dict[str, Any]:
    """4 peer processes; with ``inprocess`` the broker runs in the host's event loop."""
    base = [sys.executable, "-m", "trutnet"]
    if inprocess:
        host_broker = ["--inprocess-broker", "--bind", endpoint.host, "--port", str(endpoint.port)]
    else:
        host_broker = ["--broker", endpoint.url]
    start = time.perf_counter()
    host = [
        *base,
        "host",
        "--players",
        "4",
        "--no-announce",
        "--seed",
        seed,
        "--json",
        *host_broker,
    ]
    procs = [subprocess.Popen(host, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)]
    table, _ = announced_table(procs[0])
    for k in range(1, 4):
        join = [
            *base,
            "join",
            "--bot",
            "heuristic",
            "--table",
            table,
            "--name",
            f"p{k}",
            "--seed",
            seed,
            "--json",
            "--broker",
            endpoint.url,
        ]
        procs.append(
            subprocess.Popen(join, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        )
    outputs = [p.communicate(timeout=900)[0] for p in procs]
    game_s = time.perf_counter() - start
    results = [
        json.loads(line)
        for out in outputs
        for line in out.splitlines()
        if '"event": "result"' in line
    ]
    if len(results) != 4:
        raise RuntimeError("a peer of the benchmark game failed")
    hand_ms = results[0]["hand_ms"]
    return {
        "hand_ms_median": round(statistics.median(hand_ms), 1) if hand_ms else None,
        "game_s": round(game_s, 2),
        "hands": results[0]["hands"],
        "agree": len({r["state_hash"] for r in results}) == 1,
    }


def _recorded_game(seed: str) -> tuple[list[tuple[int, bytes]], list[int]]:
    table = play_memory_game(TrutConfig(4), seed, ["heuristic"] * 4)
    entries = [(parse_entry(w).seat, w) for w in table.log]
    starts = [i for i, (_, w) in enumerate(entries) if parse_entry(w).type == "shuffle"][::4]
    return entries, starts


async def _client(endpoint: Endpoint, name: str) -> aiomqtt.Client:
    client = aiomqtt.Client(endpoint.host, endpoint.port, identifier=name, keepalive=60, timeout=30)
    await client.__aenter__()
    sock = client._client.socket()
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return client


async def _table(
    endpoint: Endpoint,
    index: int,
    entries: list[tuple[int, bytes]],
    starts: list[int],
    hands: int,
    hand_times: list[float],
) -> None:
    topic = f"trutnet/v1/bench/{index}"
    clients = [await _client(endpoint, f"bench-{index}-{s}") for s in range(4)]
    received = [asyncio.Event() for _ in entries]
    try:
        for client in clients:
            await client.subscribe(topic, qos=1)

        async def listen(client: aiomqtt.Client, seat: int) -> None:
            count = 0
            async for _ in client.messages:
                if seat == 0:
                    received[count].set()
                count += 1

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
        hand_times.extend((stamps[b] - stamps[a]) * 1000 for a, b in itertools.pairwise(marks))
        for task in listeners:
            task.cancel()
    finally:
        for client in clients:
            with contextlib.suppress(Exception):
                await client.__aexit__(None, None, None)


async def _load(
    endpoint: Endpoint, tables: int, entries: list[tuple[int, bytes]], starts: list[int], hands: int
) -> list[float]:
    times: list[float] = []
    await asyncio.gather(
        *(_table(endpoint, i, entries, starts, hands, times) for i in range(tables))
    )
    return times


def max_tables(
    endpoint: Endpoint,
    steps: tuple[int, ...] = (5, 10, 20, 30, 40, 60, 80, 120),
    hands: int = 3,
) -> tuple[int, list[dict[str, Any]]]:
    entries, starts = _recorded_game("bench-network")
    best, curve = 0, []
    for tables in steps:
        times = asyncio.run(_load(endpoint, tables, entries, starts, hands))
        p95 = sorted(times)[math.ceil(0.95 * len(times)) - 1]  # nearest rank
        curve.append(
            {
                "tables": tables,
                "hand_ms_median": round(statistics.median(times), 1),
                "hand_ms_p95": round(p95, 1),
            }
        )
        if p95 > HAND_LIMIT_MS:
            break
        best = tables
    return best, curve


def run(seed: str = "bench") -> dict[str, Any]:
    broker = EmbeddedBroker()
    endpoint = broker.start()
    try:
        figures = real_game(endpoint, seed)
        figures["max_tables"], figures["load_curve"] = max_tables(endpoint)
    finally:
        broker.stop()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    shared = real_game(Endpoint("127.0.0.1", port), seed, inprocess=True)
    figures["hand_ms_median_broker_in_host_loop"] = shared["hand_ms_median"]
    figures["game_s_broker_in_host_loop"] = shared["game_s"]
    return figures


def report(figures: dict[str, Any]) -> str:
    lines = [
        "network benchmark: embedded broker (amqtt, own process), full crypto",
        f"  4 peer processes: median hand {figures['hand_ms_median']} ms, whole game "
        f"{figures['game_s']} s ({figures['hands']} hands, peers agree: {figures['agree']})",
        f"  same, broker inside the host's event loop: median hand "
        f"{figures['hand_ms_median_broker_in_host_loop']} ms, whole game "
        f"{figures['game_s_broker_in_host_loop']} s",
        "  replayed tables on one broker (hand = a recorded 4-player hand):",
    ]
    for row in figures["load_curve"]:
        lines.append(
            f"    {row['tables']:>3} tables: median hand {row['hand_ms_median']:>7.1f} ms,"
            f" p95 {row['hand_ms_p95']:>7.1f} ms"
        )
    lines.append(f"  max tables with p95 hand <= 2 s: {figures['max_tables']}")
    return "\n".join(lines)
