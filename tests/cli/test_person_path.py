"""The paths a person takes: default arguments, bad arguments, bad files, a dead
broker, a table with no host, Ctrl-C, the screen at 80x24 (tmux), and two machines
(two network namespaces) finding each other with no option at all.

Every process a test starts is killed when it ends, pass or fail; every tmux server
and network namespace is removed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import ROOT
from tests.network_helpers import EARLY, result_of, seconds, timer, track, wait_for_event
from tests.tables import play_memory_game
from trutnet.cli import main
from trutnet.cli.folders import person_name
from trutnet.crypto.identity import fingerprint
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.net.broker import EmbeddedBroker, Endpoint
from trutnet.runtime import lobby_watch, seat_process
from trutnet.store import save_transcript

TRUTNET = [sys.executable, "-m", "trutnet"]
WORKTREE = str(ROOT)
DEAD_BROKER = "mqtt://127.0.0.1:1"  # nothing listens on port 1


def person_env(home: Path) -> dict[str, str]:
    """A fresh person: their own home, config and data folders."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": WORKTREE,
        "PYTHONUNBUFFERED": "1",
        "HOME": str(home),
        "USER": "alice",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "LANG": "C.UTF-8",
    }


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Screen:
    """A terminal of 80x24 in its own tmux server; the command's exit status is printed
    as ``[exit N]`` when it ends."""

    def __init__(self, prefix: tuple[str, ...] = ()) -> None:
        self.socket = f"trutnet-test-{uuid.uuid4().hex[:8]}"
        self.prefix = prefix
        self.pid: int | None = None
        self.pid_file: Path | None = None  # where the command says its pid (start)
        self.beside: list[Screen] = []  # the test's other screens, shown when a wait fails

    def _tmux(self, *args: str, prefix: tuple[str, ...] = ()) -> str:
        out = subprocess.run(
            [*prefix, "tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return out.stdout

    def start(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv])
        # the command's process says its pid before it becomes the command (exec keeps it)
        self.pid_file = Path(tempfile.mkdtemp(prefix="trutnet-screen-")) / "pid"
        run = shlex.quote(f"echo $$ > {shlex.quote(str(self.pid_file))}; exec {command}")
        shell = f'cd {shlex.quote(str(cwd))} && sh -c {run}; echo "[exit $?]"; sleep 600'
        self._tmux(
            "new-session", "-d", "-x", "80", "-y", "24", "-s", "t", shell, prefix=self.prefix
        )
        pid = self._tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip()
        assert pid.isdigit(), "tmux did not start"
        self.pid = int(pid)

    def text(self, history: int = 0) -> str:
        """The pane (-J: wrapped lines joined), with ``history`` rows scrolled off."""
        scrolled = ["-S", f"-{history}"] if history else []
        return self._tmux("capture-pane", "-p", "-J", *scrolled, "-t", "t")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "t", *keys)

    def wait_for(
        self, needle: str | Callable[[str], bool], timeout: float, history: int = 0
    ) -> str:
        """The screen once ``needle`` is on it (or, a function, once it holds for it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.text(history)
            if needle(text) if callable(needle) else needle in text:
                return text
            time.sleep(0.2)
        others = "".join(
            f"\n--- another screen of this test:\n{other.text()}"
            for other in self.beside
            if other is not self
        )
        raise AssertionError(f"{needle!r} not on screen after {timeout} s:\n{self.text()}{others}")

    def wait_for_gone(self, needle: str, timeout: float) -> str:
        """The screen once ``needle`` has left it (a prompt answered, a line scrolled)."""
        return self.wait_for(lambda text: needle not in text, timeout)

    def exit_status(self, timeout: float) -> tuple[int, str]:
        try:
            text = self.wait_for("[exit ", timeout)
        except AssertionError:
            raise AssertionError(f"no exit after {timeout} s; {self.stacks()}") from None
        status = text.split("[exit ", 1)[1].split("]", 1)[0]
        return int(status), text

    def trutnet_pid(self) -> int:
        """The trutnet process in this terminal (asked once its screen is up: the
        process wrote its pid before it became trutnet)."""
        assert self.pid_file is not None, "no command started"
        text = self.pid_file.read_text().strip()
        assert text.isdigit(), f"no pid in {self.pid_file}"
        return int(text)

    def stacks(self) -> str:
        """Where a command that does not end is stuck: its stacks, which trutnet
        prints on SIGUSR1, as the pane shows them (for a failure's message)."""
        try:
            os.kill(self.trutnet_pid(), signal.SIGUSR1)
            return "its stacks:\n" + self.wait_for("(end of the stacks)", 10, history=400)
        except (AssertionError, OSError):  # no such process, or no pid yet
            return f"no stacks printed:\n{self.text()}"

    def close(self) -> None:
        if self.pid is not None:  # the pane's process group: trutnet and its broker
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        self._tmux("kill-server")
        if self.pid_file is not None:
            shutil.rmtree(self.pid_file.parent, ignore_errors=True)


@pytest.fixture
def screen():
    opened: list[Screen] = []

    def make(prefix: tuple[str, ...] = ()) -> Screen:
        opened.append(Screen(prefix))
        opened[-1].beside = opened
        return opened[-1]

    yield make
    for s in opened:
        s.close()


@pytest.fixture
def broker():
    """A broker with no table on it."""
    b = EmbeddedBroker("127.0.0.1", 0)
    endpoint = b.start()
    yield endpoint
    b.stop()


def run_cli(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 60):
    proc = track(
        subprocess.Popen(
            [*TRUTNET, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
        )
    )
    started = time.monotonic()
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err, time.monotonic() - started


# ------------------------------------------------------------ item 1: discovery


def test_discovery_runs_with_default_interfaces():
    """No ``--interface``: zeroconf listens on every interface (it used to be handed
    the string "all", which zeroconf 0.140+ refuses with a TypeError)."""
    from trutnet.discovery.announce import TableAnnouncer
    from trutnet.discovery.browse import browse

    assert isinstance(browse(timeout=0.2), list)
    TableAnnouncer("0.0.0.0").close()


def test_announced_text_is_made_safe_to_print():
    from trutnet.discovery.browse import printable

    assert printable("Bob's table\x1b[2J\x07\n", 64) == "Bob's table?[2J??"
    assert printable("x" * 500, 64) == "x" * 64


@pytest.mark.network
def test_tables_with_no_arguments_lists_or_says_none(tmp_path):
    code, out, err, _ = run_cli(["tables"], person_env(tmp_path), tmp_path)
    assert code == 0, err
    assert "Traceback" not in err and out.strip()


@pytest.mark.network
@pytest.mark.parametrize("command", ["tables", "join"])
def test_searching_on_an_address_this_machine_does_not_have(command, tmp_path):
    code, _, err, _ = run_cli(
        [command, "--interface", "10.254.0.77", "--timeout", "0.5"], person_env(tmp_path), tmp_path
    )
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"trutnet {command}: cannot search the LAN: ")
    assert lines[0].endswith("(is 10.254.0.77 an address of this machine?)")


# --------------------------------------------------- item 2: arguments, joining


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["join", "--broker", DEAD_BROKER, "--table", "nope"], "a table id is 32 hex digits"),
        (["join", "--broker", DEAD_BROKER, "--table", "ab" * 15], "a table id is 32 hex digits"),
        (["join", "--broker", "http://x", "--table", "ab" * 16], "mqtt://host:1883"),
        (["join", "--fallback", "x:1"], "fallback broker is mqtt://host:port"),
        (["join", "--name", ""], "a name is 1..32 printable"),
        (["join", "--interface", "eth0"], "an IPv4 address"),
        (["join", "--timeout", "nan"], "above 0 and finite"),
        (["join", "--lobby-timeout", "-1"], "above 0 and finite"),
        (["host", "--port", "70000"], "a port is 0..65535"),
        (["host", "--bind", "localhost:80"], "an IPv4 address"),
        (["host", "--bots", "x"], "not a whole number"),
        (["play", "--table-name", "x" * 41], "a table name is up to 40"),
        (["join", "--store", __file__], "not a folder"),
        (["selfplay", "--transport", "memory", "--save", __file__], "not a folder"),
        (["selfplay", "--transport", "mqtt", "--broker", "tcp://h"], "mqtt://host:1883"),
    ],
)
def test_bad_arguments_get_one_clear_line_and_status_2(args, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert says in err.splitlines()[-1] and "Traceback" not in err


@pytest.mark.parametrize(
    ("command", "defaults"),
    [
        ("host", ["(default: 30.0)", "(default: 900.0)", "this machine's LAN address"]),
        ("join", ["(default: 15.0)", f"(default: {person_name()})", "(default: 2.0)"]),
        ("play", ["(default: 2)", "its own first by default", "(default: 120.0)", "(default: 0)"]),
    ],
)
def test_help_shows_the_defaults(command, defaults, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for default in defaults:
        assert default in out
    assert "(default: None)" not in out and "(default: True)" not in out
    assert "(default: Player)" not in out and "(default: Host)" not in out


@pytest.mark.network
def test_host_and_join_with_a_bot_cannot_reach_a_dead_broker(tmp_path):
    env = person_env(tmp_path)
    table = os.urandom(16).hex()
    for args in (
        ["join", "--broker", DEAD_BROKER, "--table", table, "--bot", "heuristic"],
        ["join", "--broker", DEAD_BROKER, "--table", table, "--bot", "heuristic", "--json"],
        ["host", "--broker", DEAD_BROKER],
    ):
        code, _, err, took = run_cli(args, env, tmp_path)
        assert code != 0 and took < 10, (args, took)
        assert err.strip().splitlines() == [
            f"trutnet {args[0]}: cannot reach the broker at {DEAD_BROKER}: "
            "connection refused (nothing listens on that port)"
        ]


@pytest.mark.network
def test_join_on_screen_with_a_dead_broker_says_so_within_seconds(tmp_path, screen):
    """The README's person: ``trutnet join --broker URL --table ID``, on a terminal."""
    term = screen()
    started = time.monotonic()
    term.start(
        [*TRUTNET, "join", "--broker", DEAD_BROKER, "--table", os.urandom(16).hex()],
        person_env(tmp_path),
        tmp_path,
    )
    status, text = term.exit_status(timeout=15)
    assert time.monotonic() - started < 10
    assert status == 1
    assert f"trutnet join: cannot reach the broker at {DEAD_BROKER}: connection refused" in text
    assert "Traceback" not in text
    tables = tmp_path / ".local" / "share" / "trutnet" / "tables"
    assert not tables.exists() or not list(tables.iterdir())  # no table folder left


@pytest.mark.network
def test_join_with_no_host_at_the_table_gives_up_after_the_lobby_timeout(tmp_path, broker, screen):
    """A live broker, but no host for the table id: a clear line after the lobby timeout
    (15 s by default), not the 900 s no-progress limit; no folder left behind."""
    table = os.urandom(16).hex()
    code, _, err, took = run_cli(
        ["join", "--broker", broker.url, "--table", table, "--bot", "heuristic"],
        person_env(tmp_path),
        tmp_path,
    )
    assert code == 1 and 14 < took < 60, took  # the default 15 s (not 900), and start-up
    assert err.strip().splitlines() == [
        f"trutnet join: no host answers for table {table} at {broker.url} (waited 15 s): "
        "the table id is wrong, or its host has left"
    ]
    term = screen()
    term.start(
        [*TRUTNET, "join", "--broker", broker.url, "--table", table, "--lobby-timeout", "2"],
        person_env(tmp_path),
        tmp_path,
    )
    status, text = term.exit_status(timeout=60)
    assert status == 1 and "no host answers for table" in text and "Traceback" not in text
    tables = tmp_path / ".local" / "share" / "trutnet" / "tables"
    assert not list(tables.iterdir())


@pytest.mark.network
def test_join_that_gives_up_before_the_table_opens_says_so(tmp_path, broker):
    """``--give-up-after`` shorter than the lobby timeout: one line, no traceback (it
    used to end in ``AssertionError: replica is not None``)."""
    code, _, err, took = run_cli(
        [
            "join",
            "--broker",
            broker.url,
            "--table",
            os.urandom(16).hex(),
            "--bot",
            "heuristic",
            "--give-up-after",
            "2",
            "--lobby-timeout",
            "120",
        ],
        person_env(tmp_path),
        tmp_path,
    )
    assert code == 1 and took < 60  # the give-up period ended it, not the lobby timeout
    assert err.strip().splitlines() == [
        "trutnet join: gave up before the table opened: no host seated this seat"
    ]


def _held_table(tmp_path: Path, env: dict[str, str]):
    """A table of two whose game is held: the host's seat is a bot, the other seat a
    bot joiner that is stopped (SIGSTOP) once the host says the table is playing, so
    that the game cannot end until the test lets it (a bots' game of Trut is over in
    about two seconds). Returns the host, the stopped seat and the table's address."""
    host = track(
        subprocess.Popen(
            [*TRUTNET, "host", "--players", "2", "--no-announce", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
    )
    assert host.stdout is not None
    first = json.loads(host.stdout.readline())
    where = ["--broker", first["broker"], "--table", first["table"]]
    seat = track(
        subprocess.Popen(
            [*TRUTNET, "join", *where, "--bot", "heuristic", "--name", "Bea", "--json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=tmp_path,
        )
    )
    wait_for_event(host, lambda e: e.get("event") == "table" and e.get("status") == "playing")
    os.kill(seat.pid, signal.SIGSTOP)
    return host, seat, first, where


def _newcomer(where: list[str], env: dict[str, str], cwd: Path, lobby_timeout: float):
    wait = timer(lobby_timeout)
    return track(
        subprocess.Popen(
            [*TRUTNET, "join", *where, "--bot", "heuristic", "--json", "--lobby-timeout", wait],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
        )
    )


@pytest.mark.network
def test_join_a_table_that_is_already_playing(tmp_path):
    """Every seat taken: a person is told at once and the screen is not even opened.
    A bot joiner (``join --bot``) is a newcomer instead (7.7): it follows the game to
    its end, and the host stays until the newcomer has caught up."""
    env = person_env(tmp_path)
    host, seat, first, where = _held_table(tmp_path, env)
    try:
        code, _, err, took = run_cli(["join", *where, "--lobby-timeout", "120"], env, tmp_path)
        assert code == 1 and took < 60  # at once: not after the lobby timeout
        assert err.strip().splitlines() == [
            f"trutnet join: table {first['table']} is playing: every seat is taken"
        ]
        # a generous lobby timeout: the newcomer must not give up before it has the log
        newcomer = _newcomer(where, env, tmp_path, 60)
        wait_for_event(newcomer, lambda e: e.get("event") == "connected")
    finally:
        os.kill(seat.pid, signal.SIGCONT)  # the game goes on, with the newcomer following
    followed = result_of(newcomer)
    played = result_of(host)
    assert followed["seats"] == []  # it held no seat
    assert followed["winner"] is not None and followed["halted"] is None
    assert followed["state_hash"] == played["state_hash"]  # the whole game, to its result
    assert followed["entries"] == played["entries"]


@pytest.mark.network
def test_a_newcomer_whose_host_is_gone_says_so(tmp_path):
    """A newcomer follows a game whose host is then killed (its broker dies with it):
    it cannot rehost a table it holds no seat at, so after the lobby timeout with no
    broker it stops and says why, instead of waiting for the 900 s give-up period."""
    env = person_env(tmp_path)
    host, seat, _, where = _held_table(tmp_path, env)
    newcomer = _newcomer(where, env, tmp_path, 5)
    assert wait_for_event(newcomer, lambda e: e.get("event") == "following")["players"] == 2
    host.kill()
    lost = wait_for_event(newcomer, lambda e: e.get("event") == "disconnected")
    assert lost["broker"] == where[1] and lost["ever"] is True
    out, err = newcomer.communicate(timeout=seconds(5) + 120)
    lines = [*EARLY.pop(newcomer.pid, []), *out.splitlines()]
    result = json.loads(lines[-1])
    assert newcomer.returncode == 1 and result["event"] == "result", err
    assert result["halted"] == (
        f"lost the broker at {where[1]} (host gone?): the game was not followed to its end"
    )
    os.kill(seat.pid, signal.SIGCONT)


def test_lobby_announcement_reading_is_strict_and_never_raises():
    from msgpack import packb

    from trutnet.crypto.identity import Identity
    from trutnet.protocol.lobby import Lobby, sign_announcement

    host_key, other = Identity.generate(os.urandom), Identity.generate(os.urandom)
    lobby = Lobby(TrutGame(TrutConfig(2)), host_key, "Host", os.urandom(16))
    table = lobby.table_id
    body = seat_process.announcement(lobby, "t", Endpoint("127.0.0.1", 1883), "open")
    good = sign_announcement(host_key, table, body)
    assert lobby_watch._lobby_status(good, table) == "open"
    assert lobby_watch._lobby_status(b"", table) is None  # cleared by the host's will
    forged = sign_announcement(other, table, body)  # not the table's own host (7.10)
    assert lobby_watch._lobby_status(forged, table) is None
    unsigned = packb({"table": table.hex(), "status": "open"})
    for junk in (unsigned, b"\xc1", b"\x91" * 5000, b"\xdd\xff\xff\xff\xff", b"\x00" * 70000):
        assert lobby_watch._lobby_status(junk, table) is None


@pytest.mark.network
def test_a_joiner_whose_host_leaves_in_the_lobby_is_told_so(tmp_path):
    """Three seats, one joiner, then the host is killed: the joiner ends with one line
    within the lobby timeout instead of waiting 900 s."""
    env = person_env(tmp_path)
    host = track(
        subprocess.Popen(
            [*TRUTNET, "host", "--players", "3", "--no-announce", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
    )
    assert host.stdout is not None
    first = json.loads(host.stdout.readline())
    joiner = track(
        subprocess.Popen(
            [
                *TRUTNET,
                "join",
                "--broker",
                first["broker"],
                "--table",
                first["table"],
                "--bot",
                "heuristic",
                "--lobby-timeout",
                "3",
                "--store",
                str(tmp_path / "seat"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
    )
    wait_for_event(host, lambda e: e["event"] == "table" and e.get("taken") == 2)  # seated
    host.kill()
    host.communicate(timeout=30)
    started = time.monotonic()
    _, err = joiner.communicate(timeout=60)
    assert joiner.returncode == 1 and time.monotonic() - started < 30  # 3 s, not 900
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trutnet join: "), err
    assert "host" in lines[0] and "Traceback" not in err
    assert not (tmp_path / "seat").exists()  # a failed join leaves no folder


@pytest.mark.network
@pytest.mark.timeout(200)
def test_a_broker_that_dies_mid_game_ends_both_seats_with_one_line(tmp_path):
    """The broker (external here) dies mid-game and never comes back: each seat stops
    once nothing moves for ``--give-up-after`` seconds, says the table stopped (not
    "game over"), exits 1, and keeps its files for ``join --resume``."""
    from trutnet.store import PeerStore

    b = EmbeddedBroker("127.0.0.1", 0)
    url = b.start().url
    env = person_env(tmp_path)
    common = ["--give-up-after", timer(8), "--stall-timeout", "60"]
    try:
        host = track(
            subprocess.Popen(
                [
                    *TRUTNET,
                    "host",
                    "--players",
                    "2",
                    "--broker",
                    url,
                    "--no-announce",
                    "--json",
                    "--store",
                    str(tmp_path / "host"),
                    *common,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=tmp_path,
            )
        )
        assert host.stdout is not None
        table = json.loads(host.stdout.readline())["table"]
        joiner = track(
            subprocess.Popen(
                [
                    *TRUTNET,
                    "join",
                    "--broker",
                    url,
                    "--table",
                    table,
                    "--bot",
                    "heuristic",
                    "--store",
                    str(tmp_path / "p1"),
                    *common,
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=tmp_path,
            )
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            log = tmp_path / "p1" / "log.bin"
            if log.exists() and PeerStore(tmp_path / "p1").count() >= 30:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the game never started")
    finally:
        b.stop()
    out, err = joiner.communicate(timeout=120)
    assert joiner.returncode == 1 and "Traceback" not in err, err
    last = out.strip().splitlines()[-1]
    assert last.startswith("the table stopped in hand ") and "gave up" in last, out
    assert "game over" not in out
    out, err = host.communicate(timeout=120)
    assert host.returncode == 1 and "Traceback" not in err, err
    assert json.loads(out.strip().splitlines()[-1])["halted"] == "no progress: gave up"
    assert (tmp_path / "p1" / "secrets.json").exists()  # kept for join --resume


def test_a_notice_from_the_network_never_prints_as_a_result(capsys):
    from trutnet.cli.running import printer as _printer

    _printer(True, "p1")("notice", {"event": "result", "who": "host", "state_hash": "00"})
    line = json.loads(capsys.readouterr().out)
    assert line["event"] == "notice" and line["who"] == "p1"


# ------------------------------------------------------------------- Ctrl-C


@pytest.mark.network
def test_ctrl_c_in_host_and_join_ends_with_one_line(tmp_path, screen):
    env = person_env(tmp_path)
    host_term = screen()
    host_term.start([*TRUTNET, "host", "--players", "3", "--no-announce", "--json"], env, tmp_path)
    text = host_term.wait_for('"status": "open"', timeout=30)
    broker_url = text.split('"broker": "', 1)[1].split('"', 1)[0]
    table = text.split('"table": "', 1)[1].split('"', 1)[0]
    join_term = screen()
    join_term.start(
        [*TRUTNET, "join", "--broker", broker_url, "--table", table, "--bot", "heuristic"],
        env,
        tmp_path,
    )
    join_term.wait_for("connected", timeout=30)
    join_term.keys("C-c")
    status, text = join_term.exit_status(timeout=10)
    assert status == 130 and "trutnet join: interrupted" in text and "Traceback" not in text
    stacks = host_term.stacks()  # kill -USR1: where each thread is, and the host goes on
    assert "its stacks:" in stacks and "trutnet/cli/__init__.py" in stacks, stacks
    assert "Stack for <Task" in stacks and "trutnet/net/mqtt_link.py" in stacks, stacks
    host_term.keys("C-c")
    status, text = host_term.exit_status(timeout=15)
    assert status == 130 and "trutnet host: interrupted" in text and "Traceback" not in text


# ----------------------------------------------------------- the screen (play)


@pytest.mark.network
@pytest.mark.timeout(150)
def test_play_with_default_arguments_shows_the_table_at_80x24(tmp_path, screen):
    """``trutnet play --players 2 --bots 1``, the README's first command: the table
    comes up on an 80x24 terminal, the person can leave, and every folder it made
    is private (0700)."""
    term = screen()
    term.start([*TRUTNET, "play", "--players", "2", "--bots", "1"], person_env(tmp_path), tmp_path)
    text = term.wait_for("Hand 1", timeout=60)
    assert "Traceback" not in text
    assert all(len(line) <= 80 for line in text.splitlines())
    term.keys("q")
    term.wait_for("y/n", timeout=10)  # the quit question
    term.keys("y")
    status, text = term.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text
    config = tmp_path / ".config" / "trutnet"
    data = tmp_path / ".local" / "share" / "trutnet"
    assert mode(config / "identity.key") == 0o600
    for folder in (config, data, data / "tables", data / "games"):
        assert mode(folder) == 0o700, folder
    tables = list((data / "tables").iterdir())
    assert tables and all(mode(t) == 0o700 for t in tables)
    assert all(mode(d) == 0o700 for t in tables for d in t.iterdir() if d.is_dir())


@pytest.mark.network
@pytest.mark.timeout(300)
def test_a_whole_game_of_play_ends_with_the_transcript_path_whole_and_no_folder(tmp_path, screen):
    """``trutnet play --players 2 --bots 1`` played to its end at 80x24: the last lines
    say who won and give the transcript's path on a line of its own (whole, however
    long), the transcript verifies, and the table's folder (the seats' keys, secrets and
    logs, hundreds of kB a game) is gone."""
    home = tmp_path / ("a-home-folder-with-a-long-name-" * 2)
    home.mkdir()
    term = screen()
    term.start([*TRUTNET, "play", "--players", "2", "--bots", "1"], person_env(home), tmp_path)
    term.wait_for("Hand 1", timeout=60)
    tables = home / ".local" / "share" / "trutnet" / "tables"
    assert len(list(tables.iterdir())) == 1
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        text = term.text()
        if "Game over" in text or "[exit " in text:
            break
        if "A Trut!" in text:
            term.keys("j")
        elif "t to Trut" in text and "p to pass" in text:  # also "Au Fortial: t to Trut, p to pass"
            term.keys("p")
        elif "Your turn" in text:
            term.keys("1")
        time.sleep(0.3)
    term.wait_for("Game over", timeout=30)
    size = sum(f.stat().st_size for f in tables.rglob("*") if f.is_file())
    assert size > 100_000, size  # the seat's and the bot's logs, secrets and keys
    term.keys("q")
    status, text = term.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text
    lines = text.splitlines()
    said = next(n for n, line in enumerate(lines) if line.startswith("game over: "))
    assert lines[said + 1] == "The transcript (trutnet verify FILE checks it) is saved in:"
    path = Path(lines[said + 2].strip())  # -J: a wrapped line comes back whole
    games = home / ".local" / "share" / "trutnet" / "games"
    assert path.parent == games and path.name.endswith(".json") and len(str(path)) > 80
    assert main(["verify", str(path)]) == 0
    assert not list(tables.iterdir())  # the table's folder is removed once saved


@pytest.mark.network
def test_leaving_the_lobby_of_play_leaves_no_table_folder(tmp_path, screen):
    term = screen()
    term.start([*TRUTNET, "play", "--players", "3"], person_env(tmp_path), tmp_path)
    text = term.wait_for("Seats taken: 1/3", timeout=60)
    assert " Game: Trut (classic), 3 players" in text  # the lobby says which game
    term.keys("q")
    status, text = term.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text
    assert not list((tmp_path / ".local" / "share" / "trutnet" / "tables").iterdir())


# ------------------------------------------- two machines, default arguments


@pytest.mark.network
@pytest.mark.timeout(240)
def test_two_machines_find_and_join_a_table_with_default_arguments(tmp_path, two_machines, screen):
    """Machine A: ``trutnet host --players 3 --bind A``. Machine B: ``trutnet tables``
    lists it, a person runs ``trutnet join`` (no argument) on screen and a bot seat runs
    ``trutnet join NAME --bot heuristic``: the game starts on the person's screen."""
    (ns_a, addr_a), (ns_b, _) = two_machines
    env = person_env(tmp_path)
    host = track(
        subprocess.Popen(
            ["ip", "netns", "exec", ns_a, *TRUTNET, "host", "--players", "3", "--bind", addr_a],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
    )
    try:
        listed = ""
        for _ in range(8):
            code, listed, err, _ = run_cli_in(ns_b, ["tables"], env, tmp_path)
            assert code == 0 and "Traceback" not in err, err
            if "alice-table" in listed:
                break
        assert "alice-table" in listed and f"mqtt://{addr_a}:" in listed, listed
        assert "seats 1/3" in listed and "open" in listed
        in_b = ("ip", "netns", "exec", ns_b)
        term = screen(in_b)
        term.start([*TRUTNET, "join"], env, tmp_path)
        text = term.wait_for("Lobby", timeout=60)
        assert " Game: Trut (classic), 3 players" in text  # as the host announced it
        bot = track(
            subprocess.Popen(
                [*in_b, *TRUTNET, "join", "alice-table", "--bot", "heuristic", "--json"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**env, "XDG_DATA_HOME": str(tmp_path / "bot")},
                cwd=tmp_path,
            )
        )
        text = term.wait_for("Hand 1", timeout=90)
        assert "Traceback" not in text
        assert bot.poll() is None, bot.communicate()
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate(timeout=30)


def first_event(proc: subprocess.Popen, kind: str, timeout: float = 60) -> dict:
    """The first ``--json`` event of ``kind`` that ``proc`` prints."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("{") and json.loads(line).get("event") == kind:
            return json.loads(line)
    raise AssertionError(f"no {kind} event from {proc.args}")


@pytest.mark.timeout(240)
def test_a_lan_with_no_default_route_finds_and_joins_a_table_with_default_arguments(
    tmp_path, two_machines_no_route
):
    """A switch at a LAN party, no router: two people with the same login name. A
    hosts with no --bind and no --broker; its broker is bound to its LAN address (not
    127.0.0.1) and the table is announced; B finds it, joins it by its default name
    typed as is (no shell quoting), and the game is played to its end. The table tells
    the two alices apart."""
    (ns_a, addr_a), (ns_b, _) = two_machines_no_route
    env = person_env(tmp_path)  # USER=alice on both machines
    lo_only = ["host", "--players", "2", "--json", "--bind", "127.0.0.1", "--table-name", "lo"]
    alone = track(  # bound to loopback: announced on loopback only, never to the LAN
        subprocess.Popen(
            ["ip", "netns", "exec", ns_a, *TRUTNET, *lo_only],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
    )
    first_event(alone, "table")
    host = track(
        subprocess.Popen(
            ["ip", "netns", "exec", ns_a, *TRUTNET, "host", "--players", "2", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
    )
    try:
        table = first_event(host, "table")
        assert table["broker"].startswith(f"mqtt://{addr_a}:")
        assert table["name"] == "alice-table"  # typed plainly on the command line
        listed = ""
        for _ in range(8):
            code, listed, err, _ = run_cli_in(ns_b, ["tables"], env, tmp_path)
            assert code == 0 and "Traceback" not in err, err
            if "alice-table" in listed:
                break
        assert "alice-table" in listed and f"mqtt://{addr_a}:" in listed, listed
        assert "lo " not in listed and "127.0.0.1" not in listed  # not on the LAN
        alone.kill()
        plainly = ["join", "alice-table", "--bot", "heuristic", "--json"]
        joiner = track(
            subprocess.Popen(
                ["ip", "netns", "exec", ns_b, *TRUTNET, *plainly],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=tmp_path,
            )
        )
        joined = first_event(host, "joined")
        assert joined["name"] == "alice (2)"  # the second alice, told apart
        out, err = joiner.communicate(timeout=180)
        assert joiner.returncode == 0 and "Traceback" not in err, err
        theirs = json.loads(out.strip().splitlines()[-1])
        out, err = host.communicate(timeout=120)
        assert host.returncode == 0, err
        assert "only this machine" not in err
        ours = json.loads(out.strip().splitlines()[-1])
        assert ours["state_hash"] == theirs["state_hash"] and ours["halted"] is None
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate(timeout=30)


def test_a_machine_with_no_lan_says_friends_cannot_reach_the_table(tmp_path, machine_alone, screen):
    """Only the loopback: ``host`` says in one line that only this machine can reach
    the table (and sees its announcement); ``play`` says so in its lobby. ``--bind
    127.0.0.1`` on a machine with a LAN: the same line, naming the option."""
    env = person_env(tmp_path)
    code, out, err, _ = run_cli_in(
        machine_alone, ["host", "--players", "2", "--bots", "1", "--json"], env, tmp_path
    )
    assert code == 0
    assert err.strip().splitlines() == [
        "trutnet host: only this machine can reach the table (this machine has no LAN "
        "interface up, only 127.0.0.1); it is announced to this machine only"
    ]
    assert first_line_broker(out).startswith("mqtt://127.0.0.1:")
    code, out, err, _ = run_cli(
        ["host", "--players", "2", "--bots", "1", "--bind", "127.0.0.1", "--no-announce"],
        env,
        tmp_path,
    )
    assert code == 0 and err.strip().splitlines() == [
        "trutnet host: only this machine can reach the table (--bind 127.0.0.1)"
    ]
    term = screen(("ip", "netns", "exec", machine_alone))
    term.start([*TRUTNET, "play", "--players", "3"], env, tmp_path)
    text = term.wait_for("Seats taken: 1/3", timeout=60)
    assert " only this machine can reach the table (this machine has no LAN interface" in text
    term.keys("q")
    assert term.exit_status(timeout=60)[0] == 0


def first_line_broker(out: str) -> str:
    events = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    return next(e["broker"] for e in events if e["event"] == "table")


def run_cli_in(ns: str, args: list[str], env: dict[str, str], cwd: Path):
    proc = track(
        subprocess.Popen(
            ["ip", "netns", "exec", ns, *TRUTNET, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
        )
    )
    started = time.monotonic()
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err, time.monotonic() - started


# --------------------------------------------------------- item 3: verify


CONFIG = TrutConfig(2, start=StartPosition((5, 6), (1, 2), 0))


@pytest.fixture(scope="module")
def transcript_game():
    table = play_memory_game(TrutGame(CONFIG), "person-path", ["heuristic"] * 2)
    replica = table.peers[0].replica
    assert replica.phase == "done"
    return replica.table_id, [e.wire for e in replica.log.entries], list(replica.seats)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "not JSON"),
        (b"hello", "not JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "binary data"),
        (b"[" * 100000, "nested too deeply"),
        (b'{"a": ' * 50000, "nested too deeply"),
        (b"[1, 2, 3]", '"format": "trutnet-transcript"'),
        (b'{"format": "trutnet-transcript", "version": 9}', "version 9"),
        (b'{"format": "trutnet-transcript", "version": 1, "table": 7}', "32 hex digits"),
        (
            b'{"format": "trutnet-transcript", "version": 1, "table": "' + b"0" * 32 + b'", '
            b'"entries": [1]}',
            "base64 strings",
        ),
        (
            b'{"format": "trutnet-transcript", "version": 1, "table": "' + b"0" * 32 + b'", '
            b'"entries": ["!!"]}',
            "entry 0 is not base64",
        ),
    ],
)
def test_verify_a_file_that_is_not_a_transcript(tmp_path, capsys, content, why):
    path = tmp_path / "file.json"
    path.write_bytes(content)
    assert main(["verify", str(path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and not captured.out
    assert lines[0].startswith(f"trutnet verify: {path} is not a trutnet transcript: ")
    assert why in lines[0]


def test_verify_a_deeply_nested_entry_is_a_failure_not_a_crash(tmp_path, capsys, transcript_game):
    table_id, wires, _ = transcript_game
    deep = b"\x91" * 1000 + b"\xc0"  # 1000 levels of msgpack nesting
    path = tmp_path / "deep.json"
    save_transcript(path, table_id, [*wires[:3], deep])
    assert main(["verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("FAILED: entry 3: ") and "Traceback" not in err


def test_verify_prints_the_table_id_and_every_seats_fingerprint(tmp_path, capsys, transcript_game):
    table_id, wires, seats = transcript_game
    path = tmp_path / "game.json"
    save_transcript(path, table_id, wires)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"table {table_id.hex()}"
    for seat, key in enumerate(seats):
        line = next(x for x in out.splitlines() if x.startswith(f"  seat {seat}: "))
        assert line.endswith(f"key {fingerprint(key)}")
    assert "OK: the transcript is valid" in out


# -------------------------------------------------------- item 5: selfplay


def test_selfplay_prints_the_seed_a_person_can_run_again(capsys):
    assert main(["selfplay", "--seed", "7", "--games", "2", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "=== Game 1 of --seed 7 ===" in out and "=== Game 2 of --seed 7 ===" in out
    assert "17485029721327973432" not in out  # the derived seed means nothing to a person
    assert main(["selfplay", "--seed", "7", "--games", "1", "--verbose"]) == 0
    again = capsys.readouterr().out
    game_1 = out.split("=== Game 2")[0].split("===", 2)[2]
    assert game_1 in again  # game 1 of --seed 7 is the same game on its own
    assert re.search(r"team \d\+\d: 1 win$", again, re.M)  # one game: "1 win", not "1 wins"


# ---------------------------------------------------- item 6: private files


def test_folders_are_created_private_and_existing_ones_are_fixed(tmp_path, monkeypatch):
    from trutnet.cli.folders import data_dir, player_identity
    from trutnet.keystore import save_identity
    from trutnet.store import PeerStore

    old = tmp_path / "share" / "trutnet" / "tables"
    old.mkdir(parents=True, mode=0o755)
    os.chmod(old.parent, 0o755)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config" / "deep"))
    root = data_dir()
    assert mode(root) == 0o700 and mode(root / "tables") == 0o700
    identity = player_identity()
    for folder in (tmp_path / "config", tmp_path / "config" / "deep"):
        assert mode(folder) == 0o700  # every level it created
    assert mode(tmp_path / "config" / "deep" / "trutnet" / "identity.key") == 0o600
    seat = tmp_path / "seat"
    seat.mkdir(mode=0o755)
    os.chmod(seat, 0o755)
    PeerStore(seat)  # holds a seat's secrets: made private even though it existed
    assert mode(seat) == 0o700
    save_identity(identity, tmp_path / "a" / "b" / "identity.key")
    assert mode(tmp_path / "a") == 0o700 and mode(tmp_path / "a" / "b") == 0o700


# ------------------------------------------------ item 11: bots' identities


async def test_bots_seated_by_the_host_get_full_random_keys(monkeypatch):
    """Without ``--seed``, a host's bot gets a fresh 32-byte random key, not a key
    derived from 64 random bits."""
    asked: list[tuple[str | None, str]] = []
    real = seat_process._identity

    def spy(store, seed, label):
        asked.append((seed, label))
        return real(store, seed, label)

    monkeypatch.setattr(seat_process, "_identity", spy)
    sizes: list[int] = []
    real_urandom = os.urandom

    def urandom(n: int) -> bytes:
        sizes.append(n)
        return real_urandom(n)

    monkeypatch.setattr(seat_process.os, "urandom", urandom)
    task = asyncio.create_task(
        seat_process.host(
            TrutGame(TrutConfig(4)),
            [Endpoint("127.0.0.1", free_port())],
            seat_process.HostSetup(bots=3),
        )
    )
    async with asyncio.timeout(30):  # until the three bots have their keys
        while len([a for a in asked if a[1].startswith("bot")]) < 3:
            await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    bots = [seed for seed, label in asked if label.startswith("bot")]
    assert len(bots) == 3 and bots == [None, None, None]
    assert 8 not in sizes and sizes.count(32) >= 3


def test_a_screen_without_a_terminal_says_so_in_one_line(tmp_path, monkeypatch):
    """Run from a script or a pipe (standard input not a terminal): the screen cannot
    read keys, so the command says what to do instead, status 2, no traceback (it
    used to print "Task exception was never retrieved" and a traceback, status 0).
    ``play`` says it before it opens a table; ``join`` and ``watch`` once the table
    is found, where their screen would start."""
    proc = subprocess.run(
        [*TRUTNET, "play", "--players", "2"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=person_env(tmp_path),
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "needs a terminal, and standard input is not one" in proc.stderr, proc.stderr
    assert "--bot KIND" in proc.stderr and "Traceback" not in proc.stderr + proc.stdout
    assert not (tmp_path / ".local" / "share" / "trutnet" / "tables").exists()  # no table

    from trutnet.cli import watch_command
    from trutnet.cli.games import ChoiceError
    from trutnet.cli.on_screen import seat_screen

    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    with pytest.raises(ChoiceError, match="--bot KIND"):
        seat_screen("trut", "a table", 0)  # join's and a resumed seat's screen
    with pytest.raises(ChoiceError, match="--json"):
        watch_command._watch_with_ui(None, bytes(16), None, None)  # type: ignore[arg-type]
