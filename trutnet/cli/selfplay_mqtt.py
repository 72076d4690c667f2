"""``trutnet selfplay --transport mqtt``: bot peers as separate OS processes over
the embedded broker or ``--broker``; every game's peers must agree on its final state.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from trutnet.cli.games import config_arguments, describe
from trutnet.engine.api import Game
from trutnet.i18n import _
from trutnet.net.broker import EmbeddedBroker, Endpoint, ExternalBroker
from trutnet.runtime.events import announced_table


class _PeerFailed(Exception):
    """A game whose peers did not all end with the same result: one line saying why."""


def cmd_selfplay_mqtt(args: argparse.Namespace, game: Game, bots: list[str]) -> int:
    """Bot peers as separate OS processes over the embedded broker or ``--broker``;
    ``bots[seat]``: each seat's bot."""
    broker = ExternalBroker(args.broker) if args.broker else EmbeddedBroker()
    endpoint: Endpoint = broker.start()
    workdir = Path(tempfile.mkdtemp(prefix="trutnet-selfplay-"))
    results = []
    try:
        for number in range(1, args.games + 1):
            final = _one_game(game, bots, endpoint, workdir, f"{args.seed}/{number}", number)
            results.append(final)
            if args.verbose and not args.json:
                print(
                    _(
                        "game {number}: {processes} processes agree on {state}, {hands} hands"
                    ).format(
                        number=number,
                        processes=game.num_players(),
                        state=final["state_hash"][:16],
                        hands=final["hands"],
                    )
                )
    except _PeerFailed as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        broker.stop()
    _summary(args, game, results, endpoint)
    return 0


def _peer(seed: str, *command: str) -> subprocess.Popen[str]:
    """A peer process: ``trutnet COMMAND ...``, its events one JSON line each."""
    common = ["--seed", seed, "--json", "--stall-timeout", "60"]
    return subprocess.Popen(
        [sys.executable, "-m", "trutnet", *command, *common],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _one_game(
    game: Game, bots: list[str], endpoint: Endpoint, workdir: Path, seed: str, number: int
) -> dict[str, Any]:
    """One game, a host and a joiner per other seat: the result they agree on."""
    store = workdir / f"g{number}"
    procs = [
        _peer(
            seed,
            *("host", *config_arguments(game), "--bot", bots[0], "--broker", endpoint.url),
            *("--no-announce", "--name", "seat0", "--store", f"{store}-host"),
        )
    ]
    try:
        table, early = announced_table(procs[0])
    except RuntimeError as exc:
        raise _PeerFailed(
            _("game {number}: {problem}").format(number=number, problem=exc)
        ) from None
    for k in range(1, game.num_players()):
        procs.append(
            _peer(
                seed,
                *("join", "--game", game.name, "--bot", bots[k], "--broker", endpoint.url),
                *("--table", table, "--name", f"seat{k}", "--store", f"{store}-p{k}"),
            )
        )
    finals = []
    for index, proc in enumerate(procs):
        out, err = proc.communicate(timeout=600)
        out = "".join(early) + out if index == 0 else out
        lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
        final = [x for x in lines if x.get("event") == "result" and "who" not in x]
        if proc.returncode != 0 or not final:
            raise _PeerFailed(
                _("a peer failed (exit {status}): {errors}").format(
                    status=proc.returncode, errors=err[-2000:]
                )
            )
        finals.append(final[0])
    hashes = {f["state_hash"] for f in finals}
    if len(hashes) != 1:
        raise _PeerFailed(
            _("game {number}: peers disagree: {states}").format(number=number, states=hashes)
        )
    return finals[0]


def _summary(
    args: argparse.Namespace, game: Game, results: list[dict[str, Any]], endpoint: Endpoint
) -> None:
    wins = [0] * len(game.teams())
    for r in results:
        if r["winner"] is not None:
            wins[r["winner"]] += 1
    hands = sum(r["hands"] for r in results)
    players = game.num_players()
    summary = {
        "transport": "mqtt",
        "broker": endpoint.url if args.broker else "embedded",
        "game": game.name,
        **game.config_dict(),
        "players": players,
        "games": len(results),
        "hands": hands,
        "wins": wins,
        "seed": args.seed,
        "mean_hands_per_game": round(hands / len(results), 3),
    }
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(
            _(
                "{name} over MQTT ({broker}), {players} peer processes: "
                "games {games}, hands {hands}, wins {wins}"
            ).format(
                name=describe(game)[0],
                broker=summary["broker"],
                players=players,
                games=summary["games"],
                hands=hands,
                wins=wins,
            )
        )
