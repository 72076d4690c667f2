"""What a person reads from the command line, as a separate process: one line for a
bad argument, ``--version``, game options refused in words, ``verify`` naming the
players, ``tables`` in 80 columns (and ``--watch`` printing only what changed), a
misspelt table name or a table of another game answered with the tables there are,
and the lobbies (tmux, 80x24) saying how friends join, who is seated, and asking a
private table's password again when it is typed wrong. Discovery is real zeroconf,
in two network namespaces so that no other table on this machine is seen.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests import ROOT
from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401
from tests.client.test_client import NO_TMUX
from tests.network_helpers import track
from trutnet import __version__


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
        (["join", "--bogus"], "join", "unrecognized arguments: --bogus ("),  # no guess
        (["join", "--resme"], "join", "unrecognized arguments: --resme; did you mean --resume?"),
        (["host", "--playrs", "3"], "host", "arguments: --playrs 3; did you mean --players?"),
        (["join", "a", "b"], "join", "unrecognized arguments: b"),
        (["selfplay", "--games", "0"], "selfplay", "must be 1..1000000, not 0"),
        (["selfplay", "--save", "/tmp"], "selfplay", "--save needs --transport memory"),
        (["host", "--port", "x"], "host", "not a port number"),
        (["tables", "--timeout", "0"], "tables", "above 0 and finite"),
        (["frob"], "", "invalid choice: 'frob'"),
        (["joni"], "", "(choose from 'selfplay', "),
        (["joni"], "", "'arena'); did you mean join?"),
        (["bench", "netwrok"], "bench", "; did you mean network?"),
        ([], "", "the following arguments are required: COMMAND"),
        (["join", "--broker", "mqtt://127.0.0.1:1"], "join", "--broker and --table go together"),
        (["join", "--resume"], "join", "--resume needs --store DIR"),
        (["host", "--players", "2", "--bots", "2"], "host", "--bots is 0..1"),
        (["selfplay", "--game", "trutt"], "selfplay", "unknown game 'trutt'"),
        (
            ["bench", "engine", "--hop-delay-ms", "5"],
            "bench",
            "--hop-delay-ms and --sealed are for the network",
        ),
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
        ("flor=maybe", "--option flor=maybe: flor is on or off (or true, false) (K16, K17, K31)"),
        ("chicos=9", "--option chicos=9: chicos is 3 or 1 (K30, K31)"),
        (
            "falta_wins_chico=2",
            "--option falta_wins_chico=2: falta_wins_chico is on or off (or true, false) "
            "(KD7, K31)",
        ),
    ],
)
def test_a_game_option_is_refused_in_words(option, says):
    status, out, err = cli("selfplay", "--game", "truco", "--option", option)
    assert status == 2 and not out
    assert err.splitlines() == [
        f"trutnet selfplay: error: {says} (trutnet selfplay --help shows every option)"
    ], err
    assert not re.search(r"\((True|False|\d+), ", err)  # no Python tuple


def test_a_game_option_given_in_words_is_taken():
    status, out, err = cli("selfplay", "--game", "truco", "--option", "flor=off", "--json")
    assert status == 0 and '"flor": false' in out, err


# ------------------------------------------------------------------ verify


def _named_transcript(path: Path, game_name: str, config: dict, names: list[str]) -> None:
    """A whole game played in memory (full crypto) by seats named ``names``."""
    import random

    from tests.tables import make_table
    from trutnet.bots import default_bot, make_bot
    from trutnet.engine import make_game
    from trutnet.memory_table import MemoryTable, step, table_nonce
    from trutnet.plugins import load_plugins
    from trutnet.store import save_transcript

    load_plugins()
    game = make_game(game_name, config)
    seed = f"names/{game_name}"
    _, identities, peers = make_table(len(names), seed)
    table = MemoryTable(peers, identities=identities)
    bot = default_bot(game_name)
    table.bots = [make_bot(game_name, bot, random.Random(s)) for s in range(len(names))]
    keys = [i.public for i in identities]
    table.broadcast(peers[0].open_table(game, keys, nonce=table_nonce(seed), names=names))
    while step(table):
        pass
    replica = table.peers[0].replica
    assert replica.phase == "done"
    save_transcript(path, replica.table_id, [e.wire for e in replica.log.entries])


@pytest.mark.parametrize(
    ("game", "config", "names"),
    [
        # the shorter games (first to 5 Longs, one chico): a whole game to verify
        ("trut", {"players": 2, "variant": "gatinaise"}, ["Ana", "Bob"]),
        (  # Deluxe at 4 from 3 Longs each: its last hands, the costliest game here
            "trut",
            {
                "players": 4,
                "variant": "gatinaise",
                "deluxe": True,
                "start": {"longs": [3, 3], "petits": [0, 0], "dealer": 0},
            },
            ["Ana", "Bob", "Cid", "Dee"],
        ),
        ("truco", {"players": 2, "chicos": 1}, ["Ana", "Bob"]),
        ("lutin", {}, ["Ana", "Bob"]),
    ],
)
def test_verify_names_the_players_and_doubles_no_word(tmp_path, game, config, names):
    path = tmp_path / "game.json"
    _named_transcript(path, game, config, names)
    status, out, err = cli("verify", str(path))
    assert status == 0, err
    lines = out.splitlines()
    for seat, name in enumerate(names):
        assert lines[1 + seat].startswith(f"  seat {seat}: {name} ")
    story = [line for line in lines[1 + len(names) :] if not line.startswith("OK: ")]
    assert all(any(name in line for line in story) for name in names)
    assert not [line for line in story if re.search(r"\bseat \d\b", line)], story
    doubled = [line for line in lines if re.search(r"\b(\w+) \1\b", line)]
    assert not doubled, doubled
    assert lines[-2].startswith("OK: the transcript is valid; ")
    assert re.search(r"; (Ana|Bob)( & (Cid|Dee))? \((seat|team) [0-9+]+\) wins?, ", lines[-2])
    assert "[" not in lines[-2], lines[-2]  # the score by team, "Longs 7-3", not a list


# ------------------------------------------------------------ tables, on the LAN


def _in(ns: str) -> tuple[str, ...]:
    return ("ip", "netns", "exec", ns)


def _host(ns: str, addr: str, name: str, env: dict[str, str], *extra: str) -> subprocess.Popen:
    return track(
        subprocess.Popen(
            [*_in(ns), *TRUTNET, "host", "--players", "4", "--bind", addr, "--table-name", name,
             "--json", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        )
    )  # fmt: skip


def _stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)


def _until(ns: str, env: dict[str, str], args: list[str], done, tries: int = 8):
    """``trutnet ARGS`` in ``ns``, again until ``done(status, out, err)`` (a search of
    the LAN can miss a table that was just announced); the last answer."""
    for _ in range(tries):
        answer = cli(*args, env=env, prefix=_in(ns))
        if done(*answer):
            return answer
    raise AssertionError(f"trutnet {' '.join(args)} never said it: {answer}")


@pytest.mark.timeout(300)
def test_tables_fit_80_columns_and_join_answers_with_the_tables_there_are(tmp_path, two_machines):
    """Machine A hosts two tables, one with a long name (40 characters); machine B's
    ``tables`` fits them in 80 columns (``--json`` keeps every field); ``join`` with a
    misspelt name lists them, the closest first; ``join --game truco`` with only Trut
    tables says which game they play and how to join them."""
    (ns_a, addr_a), (ns_b, _) = two_machines
    env = person_env(tmp_path)
    long_name = "Ana's table by the window, second floor."
    assert len(long_name) == 40
    first = _host(ns_a, addr_a, long_name, env)
    try:
        _, _, err = _until(
            ns_b, env, ["join", "--game", "truco", "--bot", "random"],
            lambda status, out, err: "the only one plays trut" in err,
        )  # fmt: skip
        assert err.splitlines() == [
            "trutnet join: no open truco table on the LAN; the only one plays trut:",
            f'  trutnet join "{long_name}"',  # the whole command, what it is under it
            "    (trut classic, seats 1/4, open)",
        ]
        second = _host(ns_a, addr_a, "Zed", env)
        status, out, err = _until(
            ns_b, env, ["tables"], lambda status, out, err: out.count("  join: ") == 2
        )
        assert status == 0 and not err
        assert all(len(line) <= 80 for line in out.splitlines()), out
        rows = out.splitlines()
        at = rows.index(f"{long_name}   trut classic, seats 1/4, open")
        assert re.fullmatch(rf"  host [A-Z0-9-]{{19}} at mqtt://{addr_a}:\d+", rows[at + 1])
        assert rows[at + 2] == f'  join: trutnet join "{long_name}"'
        status, out, _ = cli("tables", "--json", env=env, prefix=_in(ns_b))
        listed = {t["name"]: t for t in __import__("json").loads(out.splitlines()[-1])}
        assert len(listed[long_name]["table"]) == 32
        assert listed[long_name]["broker"].startswith(f"mqtt://{addr_a}:")
        status, out, err = _until(
            ns_b, env, ["join", "Anas table by the window", "--bot", "random"],
            lambda status, out, err: "those found" in err,
        )  # fmt: skip
        assert status == 1 and not out
        assert err.splitlines() == [
            "trutnet join: no table named 'Anas table by the window' on the LAN; those found:",
            f'  trutnet join "{long_name}"',
            "    (trut classic, seats 1/4, open)",
            "  trutnet join Zed   (trut classic, seats 1/4, open)",
        ]
    finally:
        _stop(*[p for p in (first, locals().get("second")) if p is not None])


@pytest.mark.timeout(300)
def test_tables_watch_says_no_table_once_and_then_only_what_changed(tmp_path, two_machines):
    (ns_a, addr_a), (ns_b, _) = two_machines
    env = person_env(tmp_path)
    watch = track(
        subprocess.Popen(
            [*_in(ns_b), *TRUTNET, "tables", "--watch", "--timeout", "0.3"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        )
    )  # fmt: skip
    host = None
    try:
        assert watch.stdout is not None
        assert watch.stdout.readline() == "no table found on the LAN\n"
        # Two searches of 2 s from another process: the watch searched many times.
        for _ in range(2):
            assert cli("tables", env=env, prefix=_in(ns_b))[1] == "no table found on the LAN\n"
        host = _host(ns_a, addr_a, "Ana", env)
        said = [watch.stdout.readline() for _ in range(2)]
        assert said[0] == "\n", said
        assert re.fullmatch(r"-- \d\d:\d\d:\d\d, the LAN now has:\n", said[1]), said
        table = [watch.stdout.readline() for _ in range(3)]
        assert table[0] == "Ana   trut classic, seats 1/4, open\n", table
        assert table[2] == "  join: trutnet join Ana\n"
        # Other searches found the same: the watch printed nothing more; the host
        # leaves, and the watch says so, once.
        for _ in range(2):
            _until(ns_b, env, ["tables"], lambda status, out, err: out.startswith("Ana   "))
        _stop(host)
        rest = [watch.stdout.readline() for _ in range(3)]
        assert rest[0] == "\n" and rest[1].endswith(", the LAN now has:\n"), rest
        assert rest[2] == "no table found on the LAN\n", rest
    finally:
        _stop(*([host] if host else []))
        watch.kill()
        out, _ = watch.communicate(timeout=30)
    assert "no table found" not in out  # said once while the LAN stayed empty


# ------------------------------------------------------------ the lobbies


def wait_count(term, needle: str, count: int, timeout: float = 30) -> str:
    """The screen once ``needle`` shows ``count`` times on it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = term.text()
        if text.count(needle) >= count:
            return text
        time.sleep(0.1)
    raise AssertionError(f"{needle!r} not {count} times on screen:\n{term.text()}")


@NO_TMUX
@pytest.mark.timeout(300)
def test_lobbies_say_how_to_join_who_is_seated_and_ask_a_wrong_password_again(
    tmp_path,
    two_machines,
    screen,  # noqa: F811
):
    """Machine A: ``trutnet play --players 4 --private``: the password is typed twice
    (a mismatch is asked again); the lobby says the table is private and the command
    that joins it. Machine B: ``trutnet join NAME``: a wrong password is said and
    asked again; the lobby then lists who is seated, and the bot the host adds,
    marked. The password never shows on either screen."""
    (ns_a, addr_a), (ns_b, _) = two_machines
    secret = "pass-" + hashlib.sha256(str(tmp_path).encode()).hexdigest()[:8]
    host_env = person_env(tmp_path / "ana")
    host_env["USER"] = "ana"
    host = screen(_in(ns_a))
    host.start(
        [*TRUTNET, "play", "--players", "4", "--private", "--bind", addr_a,
         "--table-name", "Ana's table"],
        host_env, tmp_path,
    )  # fmt: skip
    host.wait_for("Table password:", timeout=60)
    host.keys(secret, "Enter")
    host.wait_for("Table password again:", timeout=30)
    host.keys(secret + "x", "Enter")
    host.wait_for("The two passwords differ; type it again.", timeout=30)
    host.keys(secret, "Enter")
    wait_count(host, "Table password again:", 2)
    host.keys(secret, "Enter")
    text = host.wait_for("Seats taken: 1/4", timeout=60)
    assert " Private table: joining needs its password." in text
    assert ' Friends join with: trutnet join "Ana\'s table" --private' in text

    joiner_env = person_env(tmp_path / "bob")
    joiner = screen(_in(ns_b))
    joiner.start([*TRUTNET, "join", "Ana's table", "--name", "Bob"], joiner_env, tmp_path)
    joiner.wait_for("Table password:", timeout=90)
    joiner.keys("wrong-one", "Enter")
    joiner.wait_for("Wrong table password; type it again.", timeout=60)
    joiner.keys(secret, "Enter")
    text = joiner.wait_for("seat 1: Bob", timeout=60)
    assert " Lobby — Ana's table" in text and " Seats taken: 2/4" in text
    assert "  seat 0: ana" in text and " Private table" in text
    assert "seat 1: Bob" in host.wait_for("seat 1: Bob", timeout=30)
    host.keys("b")
    text = joiner.wait_for("seat 2: Bot 1 (bot)", timeout=30)
    assert " Seats taken: 3/4" in text
    for term in (host, joiner):
        shown = term.text()
        assert secret not in shown and "Traceback" not in shown
        assert all(len(line) <= 80 for line in shown.splitlines())


def test_who_is_seated_is_announced_and_checked_like_the_rest():
    """The host's announcement says who is seated (``seated``, for a joiner's lobby);
    one whose list does not match its seats, or names no valid name, is refused as
    malformed: a joiner's screen never shows it."""
    from trutnet.crypto.identity import Identity
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.net.broker import Endpoint
    from trutnet.protocol.lobby import Lobby, LobbyError, check_announcement, sign_announcement
    from trutnet.runtime.seat_process import announcement

    host = Identity.generate(os.urandom)
    lobby = Lobby(TrutGame(TrutConfig(4)), host, "Ana", os.urandom(16))
    lobby.seat(Identity.generate(os.urandom).public, "Bot 1")
    body = announcement(lobby, "Ana's table", Endpoint("127.0.0.1", 1883), "open", False, {1})
    signed = sign_announcement(host, lobby.table_id, body)
    assert check_announcement(signed, lobby.table_id)["seated"] == [["Ana", False], ["Bot 1", True]]
    for bad in (
        [["Ana", False]],  # one seat short
        [["Ana", False], ["Bot 1", "yes"]],
        [["Ana", False], ["\x1b[2J", True]],  # a terminal escape for a name
        [["Ana", False], ["x" * 33, True]],
        "Ana, Bot 1",
    ):
        forged = sign_announcement(host, lobby.table_id, {**body, "seated": bad})
        with pytest.raises(LobbyError):
            check_announcement(forged, lobby.table_id)
    plain = {k: v for k, v in body.items() if k != "seated"}  # an older host's: still read
    assert "seated" not in check_announcement(
        sign_announcement(host, lobby.table_id, plain), lobby.table_id
    )


@NO_TMUX
def test_a_table_not_announced_says_how_to_join_by_broker_and_id(tmp_path, screen):  # noqa: F811
    term = screen()
    term.start(
        [*TRUTNET, "play", "--players", "3", "--game", "truco", "--no-announce", "--bind",
         "127.0.0.1"],
        person_env(tmp_path), tmp_path,
    )  # fmt: skip
    text = term.wait_for("Seats taken: 1/3", timeout=60)
    assert " Open table: no password needed to join." in text
    joined = " ".join(text.split())  # the command wraps at 80 columns
    assert re.search(
        r"Not announced on the LAN; friends join with: trutnet join --game truco "
        r"--broker mqtt://127\.0\.0\.1:\d+ --table [0-9a-f]{32} Seats taken",
        joined,
    ), text
    assert all(len(line) <= 80 for line in text.splitlines())
    term.keys("q")
    status, _ = term.exit_status(timeout=60)
    assert status == 0


def test_no_help_shows_a_doubled_percent_sign(capsys):
    """argparse %-formats a help string but not a description: a description that
    doubles its % shows "95%%" (the arena's did)."""
    from trutnet.cli import _parser, main

    commands = next(a for a in _parser()._actions if a.dest == "command").choices
    for name in commands:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        out = capsys.readouterr().out
        assert "%%" not in out and "%(" not in out, (name, out)
