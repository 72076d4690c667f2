"""A person's files at and after a table: transcripts that are never replaced, the
bots a host seated coming back with it, the seats left mid-game and the saved games
listed with their commands, a --store that cannot be used, the table folders removed
once a game is saved; and the names a table gives (personal, told apart, a table name
that needs no quoting)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.cli.test_person_path import mode, person_env, run_cli
from tests.net.test_network_faults import wait_for_entries
from tests.network_helpers import result_of, spawn
from tests.tables import play_memory_game
from trutnet.cli import folders, join_command, main
from trutnet.crypto.identity import Identity
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.net.broker import EmbeddedBroker
from trutnet.protocol.chat import ChatRoom
from trutnet.protocol.clock import ClockRule
from trutnet.protocol.lobby import (
    Lobby,
    LobbyError,
    default_table_name,
    distinct_names,
    join_request,
)
from trutnet.runtime.events import announced_table
from trutnet.runtime.resuming import LoadedSeat, load_seat
from trutnet.runtime.seat_files import write_clock_file
from trutnet.runtime.seat_process import Hooks, SeatResult
from trutnet.seat_views import save_view
from trutnet.store import PeerStore, StoreError, load_transcript, save_transcript


@pytest.fixture(scope="module")
def games():
    """Three whole games (in memory, full crypto; each from 5 Longs apiece, its last
    hands): each peer's log, and its table id."""
    played = []
    near_the_end = TrutConfig(2, start=StartPosition((5, 5), (0, 0), 0))
    for seed in ("files-1", "files-2", "files-3"):
        table = play_memory_game(TrutGame(near_the_end), seed, ["heuristic"] * 2)
        assert table.peers[0].replica.phase == "done"
        played.append(table.peers[0])
    return played


# ---------------------------------------------------------------- transcripts


def test_a_saved_transcript_is_never_replaced(tmp_path, games):
    first, second = games[0].replica, games[1].replica
    path = tmp_path / "games" / "table.json"
    assert save_transcript(path, first.table_id, [e.wire for e in first.log.entries]) == path
    before = path.read_bytes()
    again = save_transcript(path, second.table_id, [e.wire for e in second.log.entries])
    assert again == tmp_path / "games" / "table-2.json"
    assert path.read_bytes() == before  # the first one, untouched
    assert load_transcript(again)[0] == second.table_id
    assert sorted(p.name for p in path.parent.iterdir()) == ["table-2.json", "table.json"]
    assert oct(again.stat().st_mode & 0o777) == oct(0o600)


def test_several_games_resumed_by_the_same_host_keep_every_transcript(tmp_path, games):
    """Each game saves its transcript through the seat's hooks under the name the
    command gives: a resumed host's games no longer share one name (they were all
    ``seat-0-resumed.json``, each over the last), and even under one name none is lost."""
    name = tmp_path / "games" / "seat-0-resumed.json"
    for peer in games:
        hooks = Hooks(transcript=name)
        table_id = peer.replica.table_id
        runtime = SimpleNamespace(
            table_id=table_id,
            chat=SimpleNamespace(room=ChatRoom(table_id)),
            signs=SimpleNamespace(wires=list),  # no sign at this table
        )
        hooks.save(runtime, SimpleNamespace(peer=peer))  # type: ignore[arg-type]
        hooks.save(runtime, SimpleNamespace(peer=peer))  # type: ignore[arg-type]  # once only
        assert hooks.saved is not None and hooks.saved.exists()
    saved = sorted(name.parent.iterdir())
    assert len(saved) == 3
    assert {load_transcript(p)[0] for p in saved} == {p.replica.table_id for p in games}


def test_a_resumed_seats_transcript_is_named_by_its_table(tmp_path, games, monkeypatch):
    """``join --resume`` of two tables' host seats (both folders named ``seat-0``): two
    names, the table ids."""
    import trutnet.client.playing

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    asked = []

    async def screen(start, ui, transcript):
        asked.append(transcript)

    monkeypatch.setattr(trutnet.client.playing, "play_with_ui", screen)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)  # as on a terminal
    for peer in games[:2]:
        args = SimpleNamespace(store=tmp_path / peer.replica.table_id.hex() / "seat-0")
        loaded = LoadedSeat(peer.identity, peer, None, False, None, False)  # type: ignore[arg-type]
        join_command._resume_with_ui(args, None, loaded, "trut")
    assert [p.name for p in asked] == [f"{p.replica.table_id.hex()}.json" for p in games[:2]]


# ------------------------------------------------------- a table's folder, after


def _seat_folder(root: Path, peer) -> Path:
    """A seat's folder as a table leaves it: its log, secrets and where it played."""
    seat = root / "seat-0"
    store = PeerStore(seat)
    for entry in peer.replica.log.entries:
        store.append(entry.wire)
    store.save_secrets(peer.secrets())
    (seat / "table.txt").write_text(f"{peer.replica.table_id.hex()} mqtt://127.0.0.1:1\n")
    return seat


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _result(peer, halted: str | None = None) -> SeatResult:
    return SeatResult([0], "", 0, 1, len(peer.replica.log), halted, {}, [])


def test_the_table_folder_is_removed_once_the_game_is_saved(tmp_path, games, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    tables = folders.data_dir() / "tables"
    peer = games[0]
    table = tables / peer.replica.table_id.hex()
    seat = _seat_folder(table, peer)
    entries = [e.wire for e in peer.replica.log.entries]
    transcript = save_transcript(tmp_path / "t.json", peer.replica.table_id, entries)
    size = _size(table)
    assert size > 50_000, size  # a short game's seat: log and secrets
    # a transcript that lacks the game's end: the folder stays
    short = save_transcript(tmp_path / "short.json", peer.replica.table_id, entries[:-1])
    assert folders.tidy_table_folder(seat, short, _result(peer)) == table
    # a table that stopped without its end (gave up): the folder stays, to come back
    halted = _result(peer, "no progress: gave up")
    assert folders.tidy_table_folder(seat, transcript, halted) == table
    # a --store of the person's own, outside trutnet's folder: never removed
    own = _seat_folder(tmp_path / "mine", peer)
    assert folders.tidy_table_folder(own, transcript, _result(peer)) == own.resolve()
    assert own.exists()
    # saved and whole: removed, the transcript kept, and the seat's view beside it
    assert folders.tidy_table_folder(seat, transcript, _result(peer)) is None
    assert not table.exists() and transcript.exists() and tables.exists()
    view = transcript.with_suffix(".view")
    assert mode(view) == 0o600 and view.stat().st_size < 2_000
    print(f"table folder: {size} bytes before, 0 after; the seat's view {view.stat().st_size}")


def test_a_game_played_here_is_replayed_as_its_seat_saw_it(tmp_path, games):
    """The seat's view kept at the end (trutnet/seat_views.py): ``replay`` shows the
    seat's own hand on every frame where it holds cards, and ``--spectator`` does not;
    a damaged view, or one of another table, is refused in one line."""
    peer = games[1]
    entries = [e.wire for e in peer.replica.log.entries]
    transcript = save_transcript(tmp_path / "g.json", peer.replica.table_id, entries)
    save_view(transcript, peer.secrets())
    env = person_env(tmp_path)
    code, out, err, _ = run_cli(["replay", str(transcript), "--print", "--at", "8"], env, tmp_path)
    assert code == 0, err
    assert err.startswith("trutnet replay: as your seat saw it (seat 0, "), err
    assert " Your hand: [1]" in out and "Cards in hand:" not in out, out
    code, out, err, _ = run_cli(
        ["replay", str(transcript), "--print", "--at", "8", "--spectator"], env, tmp_path
    )
    assert code == 0 and "Your hand" not in out and "Cards in hand:" in out, out
    view = transcript.with_suffix(".view")
    for damage, why in (
        (b"{}", "is not a seat's view: a JSON object with"),
        (view.read_bytes().replace(b'"seat": 0', b'"seat": 1'), "does not belong to seat 1"),
    ):
        view.write_bytes(damage)
        code, _, err, _ = run_cli(["replay", str(transcript), "--print"], env, tmp_path)
        assert code in (1, 2) and len(err.strip().splitlines()) == 1 and why in err, err
    save_view(tmp_path / "other.json", games[2].secrets())
    (tmp_path / "other.view").replace(view)
    code, _, err, _ = run_cli(["replay", str(transcript), "--print"], env, tmp_path)
    assert code == 2 and "is the view of another table" in err, err


# ------------------------------------------------ the bots come back with the host


@pytest.mark.timeout(420)
def test_a_host_killed_mid_game_comes_back_with_its_bots(tmp_path):
    """``trutnet host --bots 1 --store DIR`` killed with kill -9 mid-game; ``join
    --resume --store DIR/seat-0`` brings back the host's seat and the bot it seated
    (its key was kept beside the host's): the game ends, with the same state at the
    other player's, instead of the table waiting for the bot until it is abandoned."""
    broker = EmbeddedBroker()
    url = broker.start().url
    common = ["--json", "--void-timeout", "60", "--stall-timeout", "60"]
    try:
        host = spawn(
            ["host", "--players", "3", "--bots", "1", "--broker", url, "--no-announce",
             "--store", str(tmp_path / "host"), *common]
        )  # fmt: skip
        table, _ = announced_table(host)
        other = spawn(
            ["join", "--bot", "heuristic", "--broker", url, "--table", table,
             "--store", str(tmp_path / "p1"), *common]
        )  # fmt: skip
        wait_for_entries(tmp_path / "host" / "seat-0", 60)
        assert (tmp_path / "host" / "bot-0" / "identity.key").exists()
        os.kill(host.pid, signal.SIGKILL)
        host.communicate()
        # the crash came between the host's write and its bot's: the bot's files are
        # behind the host's (what a loaded machine showed), and it must catch up
        bot_files = PeerStore(tmp_path / "host" / "bot-0")
        kept = bot_files.entries()[: max(1, PeerStore(tmp_path / "host" / "seat-0").count() - 4)]
        bot_files.log_path.unlink()
        bot_files = PeerStore(tmp_path / "host" / "bot-0")
        for wire in kept:
            bot_files.append(wire)
        back = spawn(
            ["join", "--resume", "--store", str(tmp_path / "host" / "seat-0"),
             "--bot", "heuristic", *common]
        )  # fmt: skip
        ours, theirs = result_of(back, timeout=200), result_of(other, timeout=60)
    finally:
        broker.stop()
    assert len(ours["seats"]) == 2  # the host's seat and its bot's, in one process
    assert ours["halted"] is None and theirs["halted"] is None
    assert ours["state_hash"] == theirs["state_hash"] and ours["winner"] is not None


# ------------------------------------------- seats to come back to, saved games


def test_games_lists_the_seats_left_and_the_saved_games(tmp_path, games):
    env = person_env(tmp_path)
    data = tmp_path / ".local" / "share" / "trutnet"
    code, out, err, _ = run_cli(["games"], env, tmp_path)
    assert code == 0 and out.startswith("No seat to come back to and no saved game")
    code, _, err, _ = run_cli(["join", "--resume"], env, tmp_path)
    assert code == 2 and err.strip().splitlines() == [
        f"trutnet join: error: --resume needs --store DIR (no seat left mid-game in"
        f" {data / 'tables'}) (trutnet join --help shows every option)"
    ]
    left = _seat_folder(data / "tables" / games[0].replica.table_id.hex(), games[0])
    joined = data / "tables" / f"{games[1].replica.table_id.hex()}-join"
    _seat_folder(joined, games[1]).rename(joined.with_name("x"))  # a joiner's folder: no seat-0
    joined.rmdir()
    joined.with_name("x").rename(joined)
    peer = games[2].replica
    saved = save_transcript(
        data / "games" / "g.json", peer.table_id, [e.wire for e in peer.log.entries]
    )
    code, out, err, _ = run_cli(["games"], env, tmp_path)
    assert code == 0 and "Traceback" not in err, err
    lines = out.splitlines()
    assert lines[0] == "Seats you left mid-game (come back with the command under each):"
    assert f"    trutnet join --resume --store {left}" in lines
    assert f"    trutnet join --resume --store {joined}" in lines
    assert f"    {saved}" in lines  # the path on a line of its own
    assert any(line.startswith("Saved games (trutnet replay FILE steps") for line in lines)
    assert any(line.startswith("  ") and "trut: seat 0, seat 1" in line for line in lines), out
    code, _, err, _ = run_cli(["join", "--resume"], env, tmp_path)
    assert code == 2
    said = err.splitlines()
    assert said[0] == (
        "trutnet join: error: you left several seats mid-game; say which with --store:"
    )
    assert f"    trutnet join --resume --store {left}" in said


def test_a_seat_folder_keeps_the_table_s_clock_for_its_resume(tmp_path, games):
    """7.11: the lobby that announced the clock is gone when a seat comes back, so the
    seat's folder keeps it, and the person's ``--bot-on-timeout`` with it."""
    peer = games[0]
    seat = _seat_folder(tmp_path, peer)
    loaded = load_seat(seat, peer.identity)
    assert (loaded.clock, loaded.bot_on_timeout) == (None, False)  # a table with no clock
    for spec, bot in (("300+5", True), ("30", False)):
        write_clock_file(seat, ClockRule.parse(spec), bot)
        loaded = load_seat(seat, peer.identity)
        assert loaded.clock == ClockRule.parse(spec) and loaded.bot_on_timeout is bot
        assert loaded.peer.replica.log.head == peer.replica.log.head


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "not a clock's line"),
        (b"30 bot-on-timeout twice\n", "not a clock's line"),
        (b"3\n", "a decision's clock is 5..3600 seconds"),
        (b"\xff\xfe\n", "can't decode"),
        (b"9" * 5000, "longer than a clock's line"),
    ],
)
def test_a_damaged_clock_file_is_refused_in_one_line(tmp_path, games, data, why):
    seat = _seat_folder(tmp_path, games[0])
    (seat / "clock.txt").write_bytes(data)
    with pytest.raises(StoreError) as caught:
        load_seat(seat, games[0].identity)
    assert str(caught.value).startswith(f"cannot resume from {seat}: clock.txt: ")
    assert why in str(caught.value)
    code, _, err, _ = run_cli(
        ["join", "--resume", "--store", str(seat)], person_env(tmp_path), tmp_path
    )
    assert code == 2 and err.strip().splitlines() == [f"trutnet join: {caught.value}"], err


NOT_A_FOLDER = "cannot use --store {tmp}/file/x: {tmp}/file is not a folder"
NO_BROKER = ["--broker", "mqtt://127.0.0.1:1", "--table", "ab" * 16]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["join", "--resume", "--store", "{tmp}/nowhere"], "{R} {tmp}/nowhere: no such folder"),
        (["join", "--resume", "--store", "{tmp}"], "{R} {tmp}: no seat's files there"),
        (["host", "--store", "{tmp}/file/x"], NOT_A_FOLDER),
        (["play", "--store", "{tmp}/file/x"], NOT_A_FOLDER),
        (["join", "--store", "{tmp}/file/x", *NO_BROKER], NOT_A_FOLDER),
        # a folder where nothing can be made, even by root (for whom os.access says yes)
        (["play", "--store", "/proc/nowhere"], "cannot use --store /proc/nowhere: /proc: "),
    ],
)  # fmt: skip
def test_a_wrong_store_gets_one_clear_line_and_status_2(tmp_path, args, says):
    (tmp_path / "file").write_text("not a folder")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, _, err, _ = run_cli(args, person_env(tmp_path), tmp_path)
    assert code == 2
    said = says.replace("{tmp}", str(tmp_path)).replace("{R}", "cannot resume from")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"trutnet {args[0]}: {said}"), err
    assert said.endswith(": ") or lines[0] == f"trutnet {args[0]}: {said}"
    assert "Errno" not in err and not (tmp_path / "nowhere").exists()


# ---------------------------------------------------------------------- names


def test_equal_names_are_told_apart_in_the_lobby_and_by_every_replica():
    game = TrutGame(TrutConfig(4))
    host = Identity.generate(os.urandom)
    lobby = Lobby(game, host, "Alex", os.urandom(16))
    for _ in range(2):
        guest = Identity.generate(os.urandom)
        lobby.receive(join_request(guest, lobby.table_id, "Alex"))
    lobby.seat(Identity.generate(os.urandom).public, "Alex (2)")  # a name taken by the table
    assert lobby.names == ["Alex", "Alex (2)", "Alex (3)", "Alex (2) (2)"]
    assert [name for _, name, _ in lobby.roster()] == lobby.names
    assert distinct_names(["x" * 32, "x" * 32]) == ["x" * 32, "x" * 28 + " (2)"]
    with pytest.raises(LobbyError):
        lobby.seat(os.urandom(32), "")


def test_a_replica_tells_apart_the_names_an_open_entry_repeats():
    """A host (of an older version, or hostile) that opens with two equal names: every
    replica, its own included, shows them told apart the same way, from the log alone."""
    from tests.tables import make_table
    from trutnet.memory_table import table_nonce

    _, identities, peers = make_table(3, "names")
    wire = peers[0].open_table(
        TrutGame(TrutConfig(3)),
        [i.public for i in identities],
        ["Alex", "Alex", "Alex (2)"],
        nonce=table_nonce("names"),
    )
    for peer in peers[1:]:
        peer.receive(wire)
    assert [p.replica.names for p in peers] == [["Alex", "Alex (2)", "Alex (2) (2)"]] * 3


def test_default_names_are_personal_and_need_no_quoting(monkeypatch):
    monkeypatch.setenv("USER", "alex")
    monkeypatch.setenv("LOGNAME", "alex")
    assert folders.person_name() == "alex"
    assert default_table_name("alex") == "alex-table"
    assert default_table_name("Anne Marie O'Neil") == "Anne-Marie-O-Neil-table"
    assert default_table_name("José") == "José-table"
    assert default_table_name("$(rm -rf ~)") == "rm-rf-table"
    assert default_table_name("'") == "trutnet-table"
    assert len(default_table_name("a" * 32)) <= 40


def test_a_lan_with_no_default_route_binds_the_interface_that_carries_multicast(monkeypatch):
    from trutnet.discovery import interfaces

    monkeypatch.setattr(interfaces, "_routed_address", lambda: None)
    monkeypatch.setattr(interfaces, "multicast_addresses", lambda: ["192.168.50.2"])
    assert interfaces.lan_address() == "192.168.50.2"
    monkeypatch.setattr(interfaces, "multicast_addresses", lambda: [])
    assert interfaces.lan_address() == "127.0.0.1" and not interfaces.reachable("127.0.0.1")
    monkeypatch.setattr(interfaces, "_routed_address", lambda: "10.0.0.5")
    assert interfaces.lan_address() == "10.0.0.5"
    found = interfaces.multicast_addresses()  # this machine's, as they are
    assert all(not a.startswith("127.") for a in found)


def test_trutnet_games_is_a_command(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["games"]) == 0
    assert "No seat to come back to" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("killed", "door"), [("guest", "invite"), ("host", "invite"), ("guest", "private")]
)
def test_a_seat_of_a_sealed_table_killed_mid_game_comes_back_with_its_key(
    tmp_path, monkeypatch, killed, door
):
    """A sealed table (``host --invite``, 9.9): the guest that came in by its code, or
    the host, is killed mid-game; its folder kept the table's key (0600), so ``join
    --resume`` reads the sealed table again, and the game ends on one state at both
    seats. The same for a private table's guest (9.10), which resumes with no password
    given: its folder kept the key, never the password."""
    from tests.network_helpers import wait_for_event
    from trutnet.net.private import PASSWORD_ENV

    secret = "resume without me"
    broker = EmbeddedBroker()
    url = broker.start().url
    common = ["--json", "--void-timeout", "60", "--stall-timeout", "60"]
    try:
        if door == "private":
            monkeypatch.setenv(PASSWORD_ENV, secret)  # as the host and the guest give it
        host = spawn(
            ["host", "--players", "2", f"--{door}", "--broker", url, "--no-announce",
             "--store", str(tmp_path / "host"), *common]
        )  # fmt: skip
        if door == "invite":
            table = [wait_for_event(host, lambda e: e.get("event") == "invitation")["code"]]
        else:
            table = ["--table", wait_for_event(host, lambda e: e.get("event") == "table")["table"]]
            table.append("--private")
        guest = spawn(
            ["join", *table, "--bot", "heuristic", "--broker", url,
             "--store", str(tmp_path / "p1"), *common]
        )  # fmt: skip
        wait_for_entries(tmp_path / "p1", 40)
        monkeypatch.delenv(PASSWORD_ENV, raising=False)  # the seat comes back without it
        key = tmp_path / "p1" / "table.key"
        assert key.read_bytes() == (tmp_path / "host" / "seat-0" / "table.key").read_bytes()
        assert (key.stat().st_mode & 0o777) == 0o600
        assert all(
            secret.encode() not in f.read_bytes() for f in tmp_path.rglob("*") if f.is_file()
        )
        victim, other = (guest, host) if killed == "guest" else (host, guest)
        store = tmp_path / ("p1" if killed == "guest" else "host/seat-0")
        os.kill(victim.pid, signal.SIGKILL)
        victim.communicate()
        back = spawn(["join", "--resume", "--store", str(store), "--bot", "heuristic", *common])
        ours, theirs = result_of(back, timeout=200), result_of(other, timeout=200)
    finally:
        broker.stop()
    assert ours["halted"] is None and theirs["halted"] is None
    assert ours["state_hash"] == theirs["state_hash"] and ours["winner"] is not None
