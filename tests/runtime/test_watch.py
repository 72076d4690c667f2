"""``trutnet watch``, for real: separate OS processes over the embedded broker, the
screen at 80x24 in tmux, and the paths of a person who got the table id wrong.

A spectator started mid-game reads the table's log from the start, follows the game
live and ends on the players' state hash; the players list it; it never writes an
entry. Every process and tmux server a test starts is gone when it ends.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.test_person_path import TRUTNET, Screen, person_env, run_cli
from tests.network_helpers import spawn, start_table, timer, track, wait_for_event
from trutnet.crypto.identity import fingerprint
from trutnet.keystore import load_identity
from trutnet.net.broker import EmbeddedBroker
from trutnet.protocol.envelope import parse_entry
from trutnet.store import PeerStore

NO_TMUX = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
# Gâtinaise (first to 5 Longs): the shorter game, for the tests that watch one to its end
SHORT = ["--variant", "gatinaise"]


@pytest.fixture
def screens():
    opened: list[Screen] = []

    def make() -> Screen:
        opened.append(Screen())
        return opened[-1]

    yield make
    for s in opened:
        s.close()


def events(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def wait_entries(store: Path, count: int, timeout: float = 120) -> int:
    """Wait until the seat whose files are in ``store`` has ``count`` log entries."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        have = PeerStore(store).count()
        if have >= count:
            return have
        time.sleep(0.05)
    raise AssertionError(f"the table has only {PeerStore(store).count()} entries")


@pytest.mark.network
@pytest.mark.timeout(300)
def test_a_spectator_started_mid_game_catches_up_and_ends_on_the_players_hash(tmp_path):
    """``host`` + bots (4 processes) on the embedded broker; ``trutnet watch --json``
    starts once the host's log holds 80 entries: it fetches the log from the start,
    catches up, follows the game to its end and prints the players' state hash. The
    players list it (a ``watchers`` event naming its key), and it wrote nothing."""
    broker = EmbeddedBroker()
    url = broker.start().url
    try:
        table, procs = start_table(
            url, 4, tmp_path, "watch-e2e", ["--linger", timer(30)], host_extra=SHORT
        )
        started_at = wait_entries(tmp_path / "host" / "seat-0", 80)
        home = tmp_path / "eve"
        env = person_env(home)
        watcher = track(
            subprocess.Popen(
                [*TRUTNET, "watch", "--broker", url, "--table", table, "--name", "Eve", "--json"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=tmp_path,
            )
        )
        out, err = watcher.communicate(timeout=240)
        players = [p.communicate(timeout=120) for p in procs]
    finally:
        broker.stop()
    assert watcher.returncode == 0, err[-2000:]
    assert err.strip() == ""
    seen = events(out)
    result = [e for e in seen if e["event"] == "result"]
    assert len(result) == 1 and result[0]["seats"] == [] and result[0]["halted"] is None
    finals = []
    for proc, (p_out, p_err) in zip(procs, players, strict=True):
        assert proc.returncode == 0, p_err[-2000:]
        finals.append([e for e in events(p_out) if e["event"] == "result"][-1])
    assert {f["state_hash"] for f in finals} == {result[0]["state_hash"]}
    assert {f["entries"] for f in finals} == {result[0]["entries"]}
    # It arrived mid-game and read what it had missed from the table's log.
    assert started_at < result[0]["entries"]
    caught_up = [e for e in seen if e["event"] == "caught_up"]
    assert len(caught_up) == 1 and caught_up[0]["entries"] > started_at
    assert result[0]["stats"]["syncs_answered"] == 0  # a spectator answers no sync
    # The players saw the spectator: its name and its key's fingerprint.
    eve = fingerprint(load_identity(home / ".config" / "trutnet" / "identity.key").public)
    listed = [
        w
        for p_out, _ in players
        for e in events(p_out)
        if e["event"] == "watchers"
        for w in e["watchers"]
    ]
    assert {"fingerprint": eve, "name": "Eve"} in listed
    # It wrote nothing: every entry of the log is a seat's.
    host_log = PeerStore(tmp_path / "host" / "seat-0").entries()
    seats = parse_entry(host_log[0]).body["seats"]
    assert {parse_entry(w).author for w in host_log} <= set(seats)


def table_of_play(home: Path) -> tuple[str, str]:
    """The table id and broker URL of ``trutnet play`` from its seat's files."""
    tables = home / ".local" / "share" / "trutnet" / "tables"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for folder in tables.iterdir() if tables.exists() else []:
            info = folder / "seat-0" / "table.txt"
            if info.exists() and info.read_text().strip():
                table, url = info.read_text().split()[:2]
                return table, url
        time.sleep(0.2)
    raise AssertionError("trutnet play wrote no table.txt")


@pytest.mark.network
@NO_TMUX
@pytest.mark.timeout(200)
def test_watch_on_screen_at_80x24_is_listed_on_the_players_screen(tmp_path, screens):
    """A person plays (``trutnet play``, 80x24); a spectator runs ``trutnet watch`` in
    another terminal of 80x24: it shows the table and the verification line, no hand
    and no action keys; the player's screen lists it by name; ``q`` leaves at once,
    and the player's screen no longer lists it."""
    player = screens()
    player.start(
        [
            *TRUTNET,
            "play",
            "--players",
            "2",
            "--bots",
            "1",
            "--bind",
            "127.0.0.1",
            "--no-announce",
            "--name",
            "Ana",
        ],
        person_env(tmp_path / "ana"),
        tmp_path,
    )
    player.wait_for("Your hand:", timeout=60)
    table, url = table_of_play(tmp_path / "ana")
    spectator = screens()
    spectator.start(
        [*TRUTNET, "watch", "--broker", url, "--table", table, "--name", "Eve"],
        person_env(tmp_path / "eve"),
        tmp_path,
    )
    text = spectator.wait_for("verified:", timeout=60)
    spectator.wait_for("Watching: you", timeout=30)
    text = spectator.wait_for("Cards in hand: Ana", timeout=30)
    rows = text.rstrip("\n").splitlines()
    assert len(rows) <= 24 and all(len(r) <= 80 for r in rows)
    assert rows[0].startswith(" Trut — classic, 2 players") and "watching" in rows[0]
    assert "✓ verified:" in text and "Your hand" not in text and "Traceback" not in text
    assert rows[-1].strip().endswith("? help  q stop watching")  # and no key for an action
    assert not any(k in rows[-1] for k in ("play", "Trut", "Joue", "pass", "sing"))
    shown = player.wait_for("Watching: Eve (", timeout=30)
    fp = fingerprint(load_identity(tmp_path / "eve" / ".config/trutnet/identity.key").public)
    assert f"Watching: Eve ({fp[:4]})" in shown
    spectator.keys("Tab")  # a spectator speaks too, and the table shows who
    spectator.wait_for(" say:", timeout=10)
    spectator.keys("-l", "bien joué Ana")
    spectator.keys("Enter")
    spectator.wait_for("Eve (watching): bien joué Ana", timeout=30)
    player.wait_for("1 new message: Tab shows the chat", timeout=30)
    player.keys("Tab")
    player.wait_for("Eve (watching): bien joué Ana", timeout=10)
    player.keys("Escape")
    spectator.keys("Escape")
    spectator.wait_for("Tab: chat", timeout=10)
    spectator.keys("1", "t")  # no action keys: nothing happens, nothing is said
    spectator.keys("q")  # at once (after the keys before it): no question, nothing to abandon
    status, text = spectator.exit_status(timeout=15)
    assert status == 0 and "You stopped watching" in text and "Traceback" not in text
    deadline = time.monotonic() + 20
    while "Watching: Eve" in player.text() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "Watching: Eve" not in player.text()  # its clean exit cleared its presence
    player.keys("q")
    player.wait_for("y/n", timeout=10)
    player.keys("y")
    status, text = player.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text


@pytest.mark.network
@NO_TMUX
@pytest.mark.timeout(120)
def test_ctrl_c_stops_watching_at_once(tmp_path, screens):
    env = person_env(tmp_path)
    host = spawn(["host", "--players", "3", "--no-announce", "--json"])  # waits for joiners
    assert host.stdout is not None
    first = json.loads(host.stdout.readline())
    term = screens()
    term.start(
        [*TRUTNET, "watch", "--broker", first["broker"], "--table", first["table"]], env, tmp_path
    )
    term.wait_for("Waiting for the table's log", timeout=30)  # the lobby: no game yet
    term.keys("C-c")  # at once, as interrupted (130), with one line
    status, text = term.exit_status(timeout=15)
    assert status == 130 and "trutnet watch: interrupted" in text and "Traceback" not in text


@pytest.mark.network
def test_a_wrong_table_id_gets_one_line_and_a_failure_status(tmp_path):
    """A table id with a typo: not 32 hex digits (status 2, at once), or a well-formed
    id with no host (status 1, after the lobby timeout); a dead broker (at once)."""
    env = person_env(tmp_path)
    broker = EmbeddedBroker()
    url = broker.start().url
    try:
        table = os.urandom(16).hex()
        code, _, err, took = run_cli(
            ["watch", "--broker", url, "--table", table, "--lobby-timeout", "2"], env, tmp_path
        )
        assert code == 1 and took < 20
        assert err.strip().splitlines() == [
            f"trutnet watch: no host answers for table {table} at {url} (waited 2 s): "
            "the table id is wrong, or its host has left"
        ]
        code, _, err, _ = run_cli(["watch", "--broker", url, "--table", table[:-1]], env, tmp_path)
        assert code == 2 and "Traceback" not in err  # argparse: the usage, then one line
        assert "a table id is 32 hex digits" in err.strip().splitlines()[-1]
        code, _, err, _ = run_cli(["watch", "--broker", url], env, tmp_path)
        assert code == 2
        assert err.strip().splitlines() == [
            "trutnet watch: error: --broker and --table go together "
            "(trutnet watch --help shows every option)"
        ]
    finally:
        broker.stop()
    dead = "mqtt://127.0.0.1:1"
    code, _, err, took = run_cli(["watch", "--broker", dead, "--table", table], env, tmp_path)
    assert code == 1 and took < 10
    assert err.strip().splitlines() == [
        f"trutnet watch: cannot reach the broker at {dead}: "
        "connection refused (nothing listens on that port)"
    ]


def test_every_screen_of_a_spectator_is_public_and_fits_80x24():
    """A whole 3-player game with full crypto (in memory), read after every entry by a
    spectator's screen and by a player's, with six spectators of 32-character names
    listed: every screen fits 80x24; the spectator's shows no hand, no card in anyone's
    hand, and no key for an action; the player's lists the spectators, four by name."""
    import random
    from types import SimpleNamespace

    from prompt_toolkit.output import DummyOutput

    from tests.tables import make_table
    from trutnet.bots import make_bot
    from trutnet.client.app import TableApp
    from trutnet.client.watch_app import WatchApp
    from trutnet.crypto import Identity, SeededRandom
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.memory_table import MemoryTable, step, table_nonce
    from trutnet.protocol.spectator import Spectator, Watchers, watcher_message

    names = ["Anne-Marguerite de Montmorency", "Bartholomew Cornelius Whitfield", "Carl"]
    table_id, identities, peers = make_table(3, "watch-screens")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("trut", "heuristic", random.Random(s)) for s in range(3)]
    watchers = Watchers(table_id)
    keys = [Identity.generate(SeededRandom(f"w{k}")) for k in range(6)]
    for k, key in enumerate(keys):
        watchers.receive(fingerprint(key.public), watcher_message(key, table_id, f"{k}" * 32))

    def attach(ui, peer, me):
        ui.seat = SimpleNamespace(peer=peer, identity=me, store=None, pending=None)
        ui.runtime = SimpleNamespace(
            watchers=watchers, caught_up=True, last_progress=time.monotonic()
        )

    spectator = Spectator(table_id)
    watching = WatchApp("memory", output=DummyOutput())
    attach(watching, spectator, keys[0])
    player = TableApp("memory", 3, output=DummyOutput(), game="trut")
    attach(player, peers[0], identities[0])

    send = table.broadcast  # every entry also goes to the spectator, as the broker does

    def broadcast(wire: bytes) -> None:
        send(wire)
        spectator.receive(wire)

    table.broadcast = broadcast  # type: ignore[method-assign]
    table.broadcast(
        peers[0].open_table(
            TrutGame(TrutConfig(3, "gatinaise")),  # the shorter game, la Chanson's screens too
            [i.public for i in identities],
            names,
            nonce=table_nonce("watch-screens"),
        )
    )
    screens = listed = 0
    while step(table):
        for ui in (watching, player):
            text = ui.screen_text()
            rows = text.splitlines()
            assert all(len(r) <= 80 for r in rows) and len(rows) <= 24, text
        obs = watching.observation()
        if obs is None or obs.phase == "over":
            continue
        if watching.info.paused:  # a hand just ended: Enter goes on
            assert watching.screen_text().splitlines()[-1].startswith(" Enter continue")
            assert watching.dismiss()
        text = watching.screen_text()
        rows = text.splitlines()
        screens += 1
        assert "Your hand" not in text and "Your turn" not in text and "You " not in text
        sizes = next(r for r in rows if r.startswith(" Cards in hand: "))
        assert not any(suit in sizes for suit in "♣♦♥♠")
        assert rows[-1] == " ? help  q stop watching"
        assert "✓ verified:" in text and "Watching: you, 111111111111 (" in text
        if player.info.paused:
            player.dismiss()
        mine = player.screen_text()
        if player.observation() is not None and " Your hand:" in mine:
            listed += 1
            row = next(r for r in mine.splitlines() if r.startswith(" Watching: "))
            assert row.startswith(" Watching: 000000000000 (") and " more" in row, row
            assert len(row) <= 80 and "…" not in row
    assert spectator.replica.phase == "done" and screens and listed
    assert spectator.replica.state.state_hash() == peers[0].replica.state.state_hash()
    assert watching.dismiss()  # the last hand first, then the end screen
    end = watching.screen_text()
    assert end.startswith(" Game over — ") and "you win" not in end


@pytest.mark.network
@pytest.mark.timeout(120)
def test_a_private_table_is_watched_with_its_password_only(tmp_path):
    """``watch`` on a private table: refused in one line without the password or with a
    wrong one; with ``--private`` and the password it gets in."""
    from trutnet.net.private import PASSWORD_ENV

    secret = "correct horse battery"
    env = {**person_env(tmp_path), PASSWORD_ENV: secret}
    host = track(
        subprocess.Popen(
            [*TRUTNET, "host", "--players", "3", "--private", "--no-announce", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
    )
    first = wait_for_event(host, lambda e: e.get("event") == "table")  # its password served
    url, table = first["broker"], first["table"]
    where = ["watch", "--broker", url, "--table", table, "--json"]
    stranger = {k: v for k, v in env.items() if k != PASSWORD_ENV}
    code, out, err, _ = run_cli(where, stranger, tmp_path)
    assert code == 1 and out == ""
    assert err.strip() == (
        f"trutnet watch: the table at {url} is private: it needs the table password "
        f"(watch --private, or set {PASSWORD_ENV})"
    )
    code, out, err, _ = run_cli([*where, "--private"], {**env, PASSWORD_ENV: "guess"}, tmp_path)
    assert code == 1 and err.strip() == "trutnet watch: wrong table password"
    friend = track(
        subprocess.Popen(
            [*TRUTNET, *where, "--private"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
    )
    assert friend.stdout is not None
    assert json.loads(friend.stdout.readline())["event"] == "connected"
    listed = json.loads(friend.stdout.readline())  # it sees itself among the spectators
    assert listed["event"] == "watchers" and listed["watchers"][0]["name"] == "alice"
    friend.kill()
    friend.communicate(timeout=30)
    assert secret not in err + out


@pytest.mark.network
def test_a_spectators_saved_transcript_verifies(tmp_path, capsys):
    """What a spectator saves at the end is the table's whole public log, which
    ``trutnet verify`` checks like a player's; its result names no seat."""
    import asyncio

    from trutnet.cli import main
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.runtime.options import Options
    from trutnet.runtime.seat_process import Hooks, HostSetup, JoinSetup, host
    from trutnet.runtime.watch import watch

    broker = EmbeddedBroker()
    endpoint = broker.start()
    saved = tmp_path / "watched.json"
    tables: list[str] = []

    async def scenario():
        game = asyncio.create_task(
            host(
                TrutGame(TrutConfig(2, "gatinaise")),  # the shorter game
                [endpoint],
                HostSetup(bots=1, seed="watch-transcript", options=Options(linger=5)),
                on_announce=lambda m: tables.append(m["table"]),
            )
        )
        while not tables:
            await asyncio.sleep(0.01)
        spectator = await watch(
            bytes.fromhex(tables[0]),
            [endpoint],
            JoinSetup(name="Eve"),
            hooks=Hooks(transcript=saved),
        )
        return await game, spectator

    try:
        played, watched = asyncio.run(scenario())
    finally:
        broker.stop()
    assert watched.seats == [] and watched.state_hash == played.state_hash
    # the host's seat and its bot, one process: each proof checked once between them
    assert played.stats["proofs_skipped"] >= played.stats["proofs_checked"] > 0
    # and each entry's signature: the bot's replica finds the host's verified, and back
    assert played.stats["signatures_skipped"] >= played.entries > 0
    assert main(["verify", str(saved)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"table {tables[0]}") and "OK: the transcript is valid;" in out


@pytest.mark.network
@pytest.mark.timeout(240)
def test_watch_finds_a_table_on_the_lan_like_join(tmp_path, two_machines):
    """Machine A hosts (zeroconf) and waits in its lobby; on machine B, ``trutnet watch
    --json`` with no argument finds the table and waits for its game; two bots join
    from B, the game starts, the host lists the spectator (who came in the lobby) and
    the spectator ends on the players' state hash. A table name with a typo, or an
    address this machine does not have, gets one line and status 1."""
    from tests.cli.test_person_path import run_cli_in

    (ns_a, addr_a), (ns_b, _) = two_machines
    env = person_env(tmp_path)
    in_a, in_b = ["ip", "netns", "exec", ns_a], ["ip", "netns", "exec", ns_b]

    def start(argv: list[str], home: str) -> subprocess.Popen[str]:
        return track(
            subprocess.Popen(
                [*argv],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**env, "XDG_CONFIG_HOME": str(tmp_path / home)},
                cwd=tmp_path,
            )
        )

    hosting = ["host", "--players", "3", *SHORT, "--bind", addr_a, "--json"]
    host = start([*in_a, *TRUTNET, *hosting], "a")
    assert host.stdout is not None
    first = json.loads(host.stdout.readline())
    watcher = start([*in_b, *TRUTNET, "watch", "--json", "--name", "Eve"], "eve")
    assert watcher.stdout is not None
    connected = json.loads(watcher.stdout.readline())
    assert connected["event"] == "connected" and connected["broker"] == first["broker"]
    assert json.loads(watcher.stdout.readline())["event"] == "watchers"  # itself, listed
    bots = [
        start([*in_b, *TRUTNET, "join", "alice-table", "--bot", "heuristic", "--json"], f"b{k}")
        for k in range(2)
    ]
    host_out, host_err = host.communicate(timeout=180)
    out, err = watcher.communicate(timeout=60)
    for bot in bots:
        bot.communicate(timeout=60)
    assert host.returncode == 0 and watcher.returncode == 0, (host_err, err)
    host_events, seen = events(host_out), events(out)
    listed = [w for e in host_events if e["event"] == "watchers" for w in e["watchers"]]
    assert listed and listed[0]["name"] == "Eve"
    played = [e for e in host_events if e["event"] == "result"][-1]
    watched = [e for e in seen if e["event"] == "result"][-1]
    assert watched["state_hash"] == played["state_hash"] and watched["seats"] == []
    code, _, err, _ = run_cli_in(ns_b, ["watch", "Hosts table"], env, tmp_path)
    assert code == 1
    assert err.strip().splitlines() == ["trutnet watch: no table found on the LAN"]
    code, _, err, _ = run_cli_in(ns_b, ["watch", "--interface", "10.9.9.9"], env, tmp_path)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith("trutnet watch: cannot search the LAN: ")


def test_watch_help_shows_the_defaults(capsys):
    from trutnet.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["watch", "--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for default in ("(default: 15.0)", "(default: 30.0)", "(default: 900.0)", "(default: 2.0)"):
        assert default in out
    assert "--private" in out and "--json" in out and "(default: None)" not in out


def test_a_spectator_there_before_the_game_is_never_catching_up():
    """A spectator that came while seats were still free reads every entry as it is
    written: caught up from the ``open`` on (its screen never says "Catching up" for
    a game it saw from the start). One that came while the table played is caught up
    only once what came live has been read."""
    from tests.net.test_runtime_link import RecordingLink, play_memory_game_entries
    from trutnet.crypto.identity import Identity
    from trutnet.protocol.spectator import Spectator
    from trutnet.runtime.local_seat import LocalSeat
    from trutnet.runtime.watch import WatchRuntime

    log = play_memory_game_entries(20)

    def spectator(status: str) -> tuple[WatchRuntime, list]:
        events: list = []
        seat = LocalSeat(Identity.from_seed(b"\x03" * 32), "Eve", None)
        table_id = parse_entry(log[0]).table
        seat.peer = Spectator(table_id)
        runtime = WatchRuntime(
            table_id, RecordingLink(), seat, None, lambda k, d: events.append((k, d))
        )
        runtime.lobby_status(status)
        return runtime, events

    early, said = spectator("open")
    for wire in log[:3]:
        early.ingest(wire)
    assert early.caught_up and said == [("caught_up", {"entries": 1, "hand": 1})]
    late, said = spectator("playing")
    for wire in log[:10]:
        late.ingest(wire)  # what sync sends, from the start: not yet where the table is
    assert not late.caught_up and not said


def test_a_spectator_every_seat_left_behind_says_so_instead_of_waiting():
    """A spectator reads the seats' ``done`` (never says one, never answers a sync): when
    a seat finished at a head its log lacks and left, it gives up with that reason
    rather than wait for entries nobody will send (9.2). One seat's word is enough: a
    seat gone for good, that the others abandoned, never says one."""
    import msgpack

    from tests.net.test_runtime_link import RecordingLink, _done_wire
    from trutnet.crypto.identity import Identity
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.memory_table import play_memory_game
    from trutnet.net import topics
    from trutnet.protocol.spectator import Spectator
    from trutnet.runtime.local_seat import LocalSeat
    from trutnet.runtime.table_health import stranded_why
    from trutnet.runtime.watch import WatchRuntime

    table = play_memory_game(TrutGame(TrutConfig(2)), "runtime-unit", ["random", "random"])
    table_id = parse_entry(table.log[0]).table
    seat = LocalSeat(Identity.from_seed(b"\x03" * 32), "Eve", None)
    seat.peer = Spectator(table_id)
    runtime = WatchRuntime(table_id, RecordingLink(), seat)
    assert topics.done(table_id, "+") in runtime.link.subscriptions
    assert topics.sync(table_id) not in runtime.link.subscriptions
    for wire in table.log[:30]:
        runtime.ingest(wire)  # what it read before it lost the table
    assert stranded_why(runtime) is None
    end = table.peers[0].replica.log.head  # where the seats finished
    said = time.monotonic() - 5  # a while ago: past the grace of a second
    done = msgpack.packb([_done_wire(table.identities[1], table_id, 1, end).wire])
    runtime.end.board.read(done, runtime.replica, time.monotonic())
    assert stranded_why(runtime) is None  # just said: within the grace of a second
    runtime.end.board = type(runtime.end.board)(table_id)  # the same, read long ago
    runtime.end.board.read(done, runtime.replica, said)
    assert stranded_why(runtime) == (
        "the seats finished the game and left before this log caught up"
    )


async def test_a_spectator_of_a_long_stall_follows_the_seats_done_before_giving_up():
    """Found by ``trutnet sim`` (Truco, 4 players, seed 663): a table stalled for
    minutes on a seat gone for good, then was abandoned, and the spectator lost the
    abandon. The seats' ``done`` came long after its last progress; it gave up a second
    later, while a seat still lingered to answer its sync. It now follows for its
    follow timeout from the ``done``, not from its last progress (9.2)."""
    import dataclasses

    import msgpack

    from tests.net.test_runtime_link import RecordingLink, _done_wire
    from trutnet.crypto.identity import Identity
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.memory_table import play_memory_game
    from trutnet.protocol.done import DoneBoard
    from trutnet.protocol.spectator import Spectator
    from trutnet.runtime.local_seat import LocalSeat
    from trutnet.runtime.watch import WatchRuntime

    table = play_memory_game(TrutGame(TrutConfig(2)), "runtime-unit", ["random", "random"])
    table_id = parse_entry(table.log[0]).table
    seat = LocalSeat(Identity.from_seed(b"\x03" * 32), "Eve", None)
    seat.peer = Spectator(table_id)
    runtime = WatchRuntime(table_id, RecordingLink(), seat)
    runtime.options = dataclasses.replace(runtime.options, follow_timeout=30.0)
    for wire in table.log[:30]:
        runtime.ingest(wire)
    end = table.peers[0].replica.log.head
    done = msgpack.packb([_done_wire(table.identities[1], table_id, 1, end).wire])
    now = time.monotonic()
    runtime.last_progress = now - 600  # the table stalled for ten minutes
    runtime.end.board.read(done, runtime.replica, now - 5)  # then the seats said done
    assert runtime.end.stranded_since() == pytest.approx(now - 4, abs=1)
    assert await runtime._idle_or_give_up() is False  # it follows on: a seat may answer
    assert not runtime.gave_up
    runtime.end.board = DoneBoard(table_id)
    runtime.end.board.read(done, runtime.replica, now - 40)  # said 40 s ago: nobody came
    assert await runtime._idle_or_give_up() is True
    assert runtime.gave_up_why == "the seats finished the game and left before this log caught up"
