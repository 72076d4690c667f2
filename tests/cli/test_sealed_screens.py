"""A sealed table as two people meet it (docs/protocol.md 9.9), in real terminals
(tmux, 80x24) on two machines of a LAN with no default route: Ana runs ``trutnet play
--invite`` and her lobby shows the code; Bea types ``trutnet join CODE``, nothing
else, and both play on their screens."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import threading

import pytest

from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401  (fixture)

CODE = re.compile(r"trutnet join (\d+-[a-z]+-[a-z]+)")


@pytest.mark.network
@pytest.mark.timeout(240)
def test_a_sealed_table_joined_by_its_code_from_another_machine(
    tmp_path,
    two_machines_no_route,
    screen,  # noqa: F811
):
    (ns_a, _), (ns_b, _) = two_machines_no_route
    ana_home, bea_home = tmp_path / "ana", tmp_path / "bea"
    ana_home.mkdir()
    bea_home.mkdir()
    ana = screen(("ip", "netns", "exec", ns_a))
    ana.start([*TRUTNET, "play", "--players", "2", "--invite"], person_env(ana_home), ana_home)
    lobby = ana.wait_for(lambda text: CODE.search(text) is not None, timeout=60)
    assert "Sealed table" in lobby, lobby
    assert "the broker reads nothing" in " ".join(lobby.split())
    assert all(len(row) <= 80 for row in lobby.splitlines())
    code = CODE.search(lobby).group(1)
    bea = screen(("ip", "netns", "exec", ns_b))
    bea.start([*TRUTNET, "join", code], person_env(bea_home), bea_home)
    for person in (ana, bea):
        text = person.wait_for(lambda text: "Lobby" not in text and "Hand 1" in text, 120)
        assert "Traceback" not in text
    # each seat keeps the table's key for a resume, readable by its person only
    keys = [sorted(home.rglob("table.key")) for home in (ana_home, bea_home)]
    assert all(len(found) == 1 for found in keys), keys
    (ana_key,), (bea_key,) = keys
    assert ana_key.read_bytes() == bea_key.read_bytes() and len(ana_key.read_bytes()) == 32
    assert all((path.stat().st_mode & 0o777) == 0o600 for path in (ana_key, bea_key))


def test_a_sealed_tables_joiner_is_told_its_rematch_needs_the_new_code(capsys):
    """A host that named its next table with no key (a sealed table's next one has a
    key of its own): a joiner of a sealed table does not wait for a lobby it cannot
    read; it says what to do."""
    import argparse
    import os

    from trutnet.cli.join_command import _join_rematch

    args = argparse.Namespace(table_key=os.urandom(32), lobby_timeout=1.0, password=None)
    assert _join_rematch(args, (os.urandom(16), "mqtt://127.0.0.1:1", None), "host") == 1
    assert "has a new code; ask for it" in capsys.readouterr().err


@contextlib.contextmanager
def hosted(setup):
    """A host of a two-seat Trut table, in a thread of its own on a broker of its own,
    waiting for a joiner: its broker's endpoint and its first announcement."""
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.net.broker import EmbeddedBroker
    from trutnet.runtime.seat_process import host

    broker = EmbeddedBroker()
    endpoint = broker.start()
    announced: list[dict] = []
    hosting: dict = {}
    ready = threading.Event()

    def on_announce(message: dict) -> None:
        announced.append(message)
        ready.set()

    def serve() -> None:
        async def run() -> None:
            hosting["loop"], hosting["task"] = asyncio.get_running_loop(), asyncio.current_task()
            await host(TrutGame(TrutConfig(2)), [endpoint], setup, on_announce=on_announce)

        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(run())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        assert ready.wait(60)
        yield endpoint, announced[0]
    finally:
        hosting["loop"].call_soon_threadsafe(hosting["task"].cancel)
        thread.join(30)
        broker.stop()


@pytest.mark.network
def test_a_private_tables_joiner_comes_into_the_rematch_with_the_password_it_holds(
    monkeypatch, capsys
):
    """A private table's host that names its next table with no key (9.10): a joiner
    runs the exchange again at the next table's id with the password it still holds,
    reads the next table's sealed lobby with the key it got, and checks the host is
    this table's; a password the next table does not take is said in one line."""
    from trutnet.cli import join_command
    from trutnet.runtime.seat_process import HostSetup

    secret = "our table's password"
    got = []
    monkeypatch.setattr(
        join_command, "_join_with_ui", lambda args, *rest: got.append((args.table_key, rest)) or 0
    )
    with hosted(HostSetup(name="Ana", password=secret, host_bot=None)) as (endpoint, announced):
        table_id, fp = bytes.fromhex(announced["table"]), announced["host"]
        where = (table_id, endpoint.url, None)
        args = argparse.Namespace(table_key=os.urandom(32), lobby_timeout=30.0, password=secret)
        assert join_command._join_rematch(args, where, fp) == 0
        ((key, (seen_id, _at, _store, lobby)),) = got
        assert seen_id == table_id and lobby["host"] == fp and lobby["private"] is True
        assert len(key) == 32 and args.password == secret
        wrong = argparse.Namespace(table_key=key, lobby_timeout=30.0, password="not it")
        assert join_command._join_rematch(wrong, where, fp) == 1
        assert capsys.readouterr().err.splitlines()[-1] == (
            "trutnet join: no rematch: wrong table password"
        )


@pytest.mark.network
@pytest.mark.parametrize("door", ["invite", "private"])
def test_a_sealed_rematch_is_sealed_with_the_key_its_host_named(monkeypatch, door):
    """The host names its next table with the key it seals it with (in a notice that
    travels sealed, 9.7): the joiner reads the next table's sealed lobby with that key,
    no code or password typed; a key that is not the table's reads no lobby."""
    from trutnet.cli import join_command
    from trutnet.runtime.seat_process import HostSetup

    key = os.urandom(32)
    got = []
    monkeypatch.setattr(
        join_command, "_join_with_ui", lambda args, *rest: got.append((args.table_key, rest)) or 0
    )
    doors = {"invite": {"invite": True}, "private": {"password": "never typed again"}}
    setup = HostSetup(name="Ana", host_bot=None, table_key=key, **doors[door])
    with hosted(setup) as (endpoint, announced):
        table_id, fp = bytes.fromhex(announced["table"]), announced["host"]
        args = argparse.Namespace(table_key=os.urandom(32), lobby_timeout=30.0, password=None)
        assert join_command._join_rematch(args, (table_id, endpoint.url, key), fp) == 0
        ((seen_key, (seen_id, _at, _store, lobby)),) = got
        assert seen_key == key and seen_id == table_id and lobby["host"] == fp
        other = argparse.Namespace(table_key=key, lobby_timeout=2.0, password=None)
        where = (table_id, endpoint.url, os.urandom(32))
        assert join_command._join_rematch(other, where, fp) == 1  # no lobby opens with it


def test_the_host_names_a_sealed_tables_next_key_and_no_event_shows_it():
    """The rematch's host draws its sealed table's next key and names it in the notice
    (an open table's, none); a seat that reads the notice keeps the key to join with,
    and the ``notice`` event it shows (a screen, a --json line) has no key in it."""
    from types import SimpleNamespace

    from trutnet.client.rematch import Rematch
    from trutnet.crypto import Identity
    from trutnet.protocol.envelope import GENESIS, sign_entry
    from trutnet.runtime.notice_board import NoticeBoard

    named = []

    async def announce_rematch(table_id, url, key=None):
        named.append(key)

    for seal in (object(), None):
        notices = SimpleNamespace(announce_rematch=announce_rematch)
        identity = SimpleNamespace(public=bytes(32))
        runtime = SimpleNamespace(
            notices=notices,
            link=SimpleNamespace(seal=seal),
            seats=[SimpleNamespace(identity=identity)],
        )
        end_screen = SimpleNamespace(runtime=runtime, _exit_soon=lambda: None)
        rematch = Rematch(end_screen)
        rematch.host_url = "mqtt://127.0.0.1:1"
        asyncio.run(rematch._open())
        assert isinstance(rematch.to, bytes) and named[-1] == rematch.next_key
    assert len(named[0]) == 32 and named[1] is None

    shown = []
    ana = Identity.generate(os.urandom)
    table = bytes(16)
    replica = SimpleNamespace(seats=[ana.public], phase="done")
    board = NoticeBoard(SimpleNamespace(table_id=table, replica=replica, emit=shown.append))
    board.rematch.add(0)
    body = {"kind": "rematch_table", "seat": 0, "table": bytes(16), "broker": "mqtt://h:1"}
    key = bytes(range(32))
    signed = sign_entry(
        ana, table=table, seat=0, seq=0, prev=GENESIS, type="notice", body={**body, "key": key}
    )
    board.read(signed.wire)
    assert board.rematch_at == (bytes(16), "mqtt://h:1", key)
    assert shown[0].notice == body


@pytest.mark.network
@pytest.mark.timeout(240)
def test_play_on_a_broker_beyond_the_lan_with_a_code_that_names_it(tmp_path, screen):  # noqa: F811
    """Friends beyond the LAN: ``trutnet play --invite --broker URL`` hosts a sealed
    table on a broker everyone can reach; the lobby's command names that broker
    beside the code, and a friend who types just that plays."""
    import subprocess

    from tests.network_helpers import track
    from trutnet.net.broker import EmbeddedBroker

    public = EmbeddedBroker("127.0.0.1")
    url = public.start().url
    try:
        home = tmp_path / "ana"
        home.mkdir()
        ana = screen()
        ana.start([*TRUTNET, "play", "--players", "2", "--invite", "--broker", url],
                  person_env(home), home)  # fmt: skip
        said = re.compile(r"trutnet join (\d+-[a-z]+-[a-z]+) --broker (\S+)")
        lobby = ana.wait_for(lambda text: said.search(" ".join(text.split())) is not None, 60)
        code, named = said.search(" ".join(lobby.split())).groups()
        assert named == url and "Not announced" not in lobby
        friend = track(subprocess.Popen(
            [*TRUTNET, "join", code, "--broker", named, "--bot", "random", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=person_env(tmp_path / "bea"), cwd=tmp_path,
        ))  # fmt: skip
        text = ana.wait_for(lambda text: "Lobby" not in text and "Hand 1" in text, 120)
        assert "Traceback" not in text and friend.poll() is None
        friend.kill()
        friend.communicate()
    finally:
        public.stop()


def test_a_mistyped_code_is_one_line_with_the_nearest_word(capsys, monkeypatch):
    """A code's word not in the list: one line naming the nearest word, status 2, before
    anything is searched; in French too."""
    from trutnet.cli import main

    monkeypatch.setenv("HOME", "/nonexistent-home")
    assert main(["join", "7-purple-sausgae"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "trutnet join: 'sausgae' is not a word of invitation codes; did you mean sausage?"
    ]
    assert main(["--lang", "fr", "join", "7 purple sausgae"]) == 2
    assert "vouliez-vous dire sausage" in capsys.readouterr().err


def test_a_bridged_lobby_says_how_to_join_on_the_lan_and_from_elsewhere():
    """``play --invite --bridge URL``: the lobby gives the code alone for friends on the
    LAN, and the code with the rendezvous for friends elsewhere, within 80 columns."""
    from trutnet.client.lobby_view import lobby_lines
    from trutnet.client.view import TableInfo, plain

    info = TableInfo(names=[], fingerprints=[], me=0)
    info.invitation = "7-purple-sausage"
    url = "mqtts://rendezvous.example.org:8883"
    info.invitation_bridge = url
    text = plain(lobby_lines(info, "ana-table", 3, "Trut"))
    joined = " ".join(text.split())
    assert "friends join with: trutnet join 7-purple-sausage" in joined
    assert f"Beyond this LAN: trutnet join 7-purple-sausage --broker {url}" in joined
    assert "Spectators watch with: trutnet watch 7-purple-sausage" in joined
    assert all(len(row) <= 80 for row in text.splitlines())
    info.invitation_bridge = None
    assert "Beyond this LAN" not in plain(lobby_lines(info, "ana-table", 3, "Trut"))


def test_the_table_screen_says_how_to_watch_while_the_code_lets_spectators_in():
    """Once the game starts the lobby is gone: the host's table screen keeps the watch
    command in the spectators' row while nobody watches and the code has not expired,
    within 24 rows of 80 columns; a spectator there takes the row; an expired code is
    not offered."""
    import random

    from trutnet.client.frontend import frontend_for
    from trutnet.client.view import TableInfo, plain, table_lines
    from trutnet.games.trut.rules import TrutConfig, TrutGame

    state = TrutGame(TrutConfig(2)).new_initial_state()
    rng = random.Random(3)
    while state.phase != "play":
        chance = state.current_seat() == -1
        state.apply(state.sample_chance(rng) if chance else rng.choice(state.legal_actions()))
    info = TableInfo(names=["Ana", "Bob"], fingerprints=["A", "B"], me=0)
    info.invitation, info.invitation_live = "7-purple-sausage", True
    trut = frontend_for("trut")
    text = plain(table_lines(trut, state.observation(0), info))
    assert "Spectators watch with: trutnet watch 7-purple-sausage" in text
    assert len(text.splitlines()) <= 24 and all(len(r) <= 80 for r in text.splitlines())
    info.watchers = [("Eve", "6M55-AAAA")]
    text = plain(table_lines(trut, state.observation(0), info))
    assert "Watching: Eve" in text and "trutnet watch" not in text
    info.watchers, info.invitation_live = [], False
    assert "trutnet watch" not in plain(table_lines(trut, state.observation(0), info))
