"""Truco's table screen, read as text: a whole match with full crypto (in memory),
seat 0 played by keys on the client's screen, seat 1 by the heuristic bot, a
spectator watching. Every screen fits 80x24, the key bar shows only keys that do
something now (each one a legal action), the score reads in malas and buenas, cards
carry their Spanish suit, the help page is Truco's, and the spectator never sees a
hand."""

from __future__ import annotations

import random
import re
import time
from types import SimpleNamespace

from prompt_toolkit.output import DummyOutput

import trutnet.games.truco  # noqa: F401  (registers the game)
from trutnet.bots import make_bot
from trutnet.games.truco import screen
from trutnet.games.truco.rules import TrucoGame


def rows_of(ui) -> list[str]:
    text = ui.screen_text()
    rows = text.splitlines()
    assert len(rows) <= 24 and all(len(r) <= 80 for r in rows), text
    assert not [r for r in rows[:-4] if r.endswith("…")], text  # nothing cut at 80
    return rows


def test_a_whole_match_played_by_keys():
    from tests.tables import make_table
    from trutnet.client.app import TableApp
    from trutnet.client.watch_app import WatchApp
    from trutnet.crypto import Identity, SeededRandom
    from trutnet.memory_table import MemoryTable, step, table_nonce
    from trutnet.protocol.spectator import Spectator, Watchers

    table_id, identities, peers = make_table(2, "truco-screen")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("truco", "heuristic", random.Random(s)) for s in range(2)]
    runtime = SimpleNamespace(
        watchers=Watchers(table_id), caught_up=True, last_progress=time.monotonic(),
        wake=lambda: None,
    )  # fmt: skip
    player = TableApp("memory", 2, output=DummyOutput(), game="truco", about="Truco, 2 players")
    player.seat = SimpleNamespace(peer=peers[0], identity=identities[0], store=None, pending=None)
    player.runtime = runtime  # type: ignore[assignment]
    spectator = Spectator(table_id)
    watching = WatchApp("memory", output=DummyOutput())
    eve = Identity.generate(SeededRandom("eve"))
    watching.seat = SimpleNamespace(peer=spectator, identity=eve, store=None, pending=None)
    watching.runtime = runtime  # type: ignore[assignment]
    send = table.broadcast

    def broadcast(wire: bytes) -> None:
        send(wire)
        spectator.receive(wire)

    table.broadcast = broadcast  # type: ignore[method-assign]
    game = TrucoGame(players=2, chicos=1)
    table.broadcast(
        peers[0].open_table(
            game, [i.public for i in identities], ["Ana", "Bob"], nonce=table_nonce("truco-screen")
        )
    )
    rng = random.Random(3)
    seen: dict[str, list[str]] = {}
    keys_used: set[str] = set()
    tricks: list[str] = []
    summaries: list[list[str]] = []
    while True:
        rows = rows_of(player)
        watched = "\n".join(rows_of(watching))
        assert "Your cards" not in watched and "(envido " not in watched
        obs = player.observation()
        if player.info.paused:  # a hand just ended: who scored what and why, until a key
            summaries.append(rows)
            assert rows[-1] == " Enter continue  ? help  q quit", rows
            player._game_key_handler("1")(None)  # the key only dismisses it: no card
            assert not player.info.paused and player.seat.pending is None
            continue
        if obs is None or obs.to_act is None:
            if obs is not None:
                break
            assert step(table)
            continue
        if obs.to_act == 0 and peers[0].decide() and obs.legal:
            assert rows[0].startswith(" Truco — 2 players, hand ") and rows[0].endswith("you: Ana")
            bar = [h.strip() for h in rows[-1].split("  ") if h.strip()]
            hinted = [h.split(" ")[0] for h in bar if h not in ("? help", "q quit")]
            assert hinted, rows
            for hint in bar:  # every key shown does something legal now
                key = hint.strip().split(" ")[0]
                if key in ("?", "q") or not key:
                    continue
                if "-" in key:
                    key = key[0]
                action = screen.legal_for_key(key, obs)
                assert action is not None and action in obs.legal, (hint, obs.legal)
            for row in rows:  # a key the prompt names in brackets does something now
                if row.startswith(" ▶ "):
                    for key in re.findall(r"\(([a-z])\)", row):
                        assert screen.legal_for_key(key, obs) is not None, (row, obs.legal)
            seen.setdefault(obs.phase, rows)
            tricks += [r for r in rows if r.startswith(" Trick ") and "→" in r]
            for row in rows:  # the prompt counts the cards in hand
                if row.startswith(" ▶ Your turn: play a card ("):
                    cards_said = row.split("(", 1)[1].split(")", 1)[0]
                    assert cards_said == ("1" if len(obs.hand) == 1 else f"1-{len(obs.hand)}")
            if obs.hand and obs.phase == "play" and not obs.truco_call and not obs.envido_waiting:
                seen.setdefault("cards", rows)
            calm = [k for k in hinted if k not in ("f", "m", "x", "z")] or hinted
            key = rng.choice([k if "-" not in k else str(rng.randint(1, len(obs.hand)))
                              for k in calm])  # fmt: skip
            keys_used.add(key)
            player.game_key(key)
            assert player.seat.pending is not None, player.info.message
            action, player.seat.pending = player.seat.pending, None
            table.broadcast(peers[0].act(action))
            continue
        if not step(table):
            break
    # Every hand's end said who scored what and why, with the score after it (9).
    hands = max(int(r.split()[1]) for rows in summaries for r in rows if r.startswith(" Hand "))
    assert len(summaries) == hands, (len(summaries), hands)
    for rows in summaries:
        heading = next(i for i, r in enumerate(rows) if r.startswith(" Hand "))
        assert rows[heading].endswith(" is over")
        scored = [r for r in rows[heading + 1 :] if r.startswith(" → ")]
        said = r" → ((You|Bob): \+\d+ points? \(.+\)|You win a chico|Bob wins a chico)$"
        assert scored and all(re.match(said, r) for r in scored), scored
        assert all(re.search(r": \d+ (mala|buena)s?, \d chicos?$", r) for r in rows[1:heading])
    cards = "\n".join(seen["cards"])
    assert " Your cards: [1]" in cards and "(envido " in cards
    assert any(s in cards for s in ("esp", "bas", "oro", "cop"))
    assert " Score: you: " in cards and "malas" in cards
    assert re.search(r" Hand worth (1 point|[234] points)", cards) and " Truco: " not in cards
    assert re.search(r" Score: you: \d+ (mala|buena)s?, \d+ chicos?   Bob: ", cards)
    assert len(keys_used) >= 3
    assert tricks and all(r.endswith(("→ you", "→ Bob", "→ parda")) for r in tricks), tricks
    end = rows_of(player)
    assert end[0].startswith(" Game over — ") and " Final score:" in end
    assert "\n".join(rows_of(watching)).count(" is over\n") == 1  # the last hand, until Enter
    assert watching.dismiss()
    assert rows_of(watching)[0].startswith(" Game over — ")
    watching.help = True
    assert rows_of(watching)[0].startswith("Truco — you are watching")
    player.help = True
    assert rows_of(player)[0].startswith("Truco — the bluffing trick-taking game")
    assert "7esp = 7 of espadas" in "\n".join(rows_of(player))  # the cards' notation
    player.help = False
    assert player.frontend is not None
    assert player.frontend.press("t", player.observation(), player.info).say  # nothing now


def test_malas_buenas_and_spanish_suits():
    assert screen.malas_buenas(0) == "0 malas" and screen.malas_buenas(30) == "15 buenas"
    assert screen.malas_buenas(1) == "1 mala" and screen.malas_buenas(16) == "1 buena"
    assert screen.card_text("12c") == "12cop" and screen.card_part("7o") == ("class:warn", "7oro")
