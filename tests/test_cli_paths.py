"""What a person reads from the command line, as a separate process: one line for a
bad argument, ``--version``, game options refused in words, ``verify`` naming the
players.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from trutnet import __version__

from .test_person_path import TRUTNET

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()):
    """``trutnet ARGS`` as its own process: (status, stdout, stderr)."""
    out = subprocess.run(
        [*prefix, *TRUTNET, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env or {**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    return out.returncode, out.stdout, out.stderr


# ------------------------------------------------------------------ arguments


@pytest.mark.parametrize(
    ("args", "command", "says"),
    [
        (["join", "--bogus"], "join", "unrecognized arguments: --bogus"),
        (["join", "a", "b"], "join", "unrecognized arguments: b"),
        (["selfplay", "--games", "0"], "selfplay", "must be 1..1000000, not 0"),
        (["selfplay", "--save", "/tmp"], "selfplay", "--save needs --transport memory"),
        (["host", "--port", "x"], "host", "not a port number"),
        (["tables", "--timeout", "0"], "tables", "above 0 and finite"),
        (["frob"], "", "invalid choice: 'frob'"),
        ([], "", "the following arguments are required: COMMAND"),
    ],
)
def test_a_bad_argument_gets_one_line_and_status_2_never_the_usage(args, command, says):
    status, out, err = cli(*args)
    prog = f"trutnet {command}".strip()
    assert status == 2 and not out
    assert err.splitlines() == [f"{prog}: error: {err.split(': error: ', 1)[1].rstrip()}"], err
    assert says in err and f"({prog} --help shows every option)" in err
    assert "usage:" not in err


def test_version():
    status, out, err = cli("--version")
    assert status == 0 and out == f"trutnet {__version__}\n" and not err


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("flor=maybe", "--option flor=maybe: flor is on or off (or true, false)"),
        ("chicos=9", "--option chicos=9: chicos is 3 or 1 (K5, K31)"),
        (
            "falta_wins_chico=2",
            "--option falta_wins_chico=2: falta_wins_chico is on or off (or true, false)",
        ),
    ],
)
def test_a_game_option_is_refused_in_words(option, says):
    status, out, err = cli("selfplay", "--game", "truco", "--option", option)
    assert status == 2 and not out
    assert err.splitlines() == [f"trutnet selfplay: {says}"], err
    assert not re.search(r"\((True|False|\d+), ", err)  # no Python tuple


def test_a_game_option_given_in_words_is_taken():
    status, out, err = cli("selfplay", "--game", "truco", "--option", "flor=off", "--json")
    assert status == 0 and '"flor": false' in out, err


# ------------------------------------------------------------------ verify


def _named_transcript(path: Path, names: list[str]) -> None:
    """A whole Trut game played in memory (full crypto) by seats named ``names``."""
    import random

    from trutnet.bots import make_bot
    from trutnet.engine.games.trut import TrutConfig, TrutGame
    from trutnet.net.memory import MemoryTable, make_table, step, table_nonce
    from trutnet.store import save_transcript

    game = TrutGame(TrutConfig(len(names)))
    seed = f"names/{'/'.join(names)}"
    _, identities, peers = make_table(len(names), seed)
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("trut", "heuristic", random.Random(s)) for s in range(len(names))]
    keys = [i.public for i in identities]
    table.broadcast(peers[0].open_table(game, keys, nonce=table_nonce(seed), names=names))
    while step(table):
        pass
    replica = table.peers[0].replica
    assert replica.phase == "done"
    save_transcript(path, replica.table_id, [e.wire for e in replica.log.entries])


def test_verify_names_the_players_and_doubles_no_word(tmp_path):
    path = tmp_path / "game.json"
    _named_transcript(path, ["Ana", "Bob"])
    status, out, err = cli("verify", str(path))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("  seat 0: Ana ") and lines[2].startswith("  seat 1: Bob ")
    story = [line for line in lines[3:] if not line.startswith("OK: ")]
    assert any("Ana" in line for line in story) and any("Bob" in line for line in story)
    assert not [line for line in story if re.search(r"\bseat [01]\b", line)], story
    doubled = [line for line in lines if re.search(r"\b(\w+) \1\b", line)]
    assert not doubled, doubled
    assert lines[-2].startswith("OK: the transcript is valid; ")
    assert re.search(r"; (Ana|Bob) \(seat [01]\) wins, Longs", lines[-2]), lines[-2]
