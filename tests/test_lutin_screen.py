"""Lutin & Troll on the terminal client's screen: a whole base game with full crypto
(in memory), seat 0 played by keys, seat 1 by the heuristic bot. The screen fits
80x24, shows both HP bars, VP, the combat, both défausses and what each pioche holds
(L17), the seat's hand; the key bar shows only the keys that do something now."""

from __future__ import annotations

import random
import time
from types import SimpleNamespace

import pytest
from prompt_toolkit.output import DummyOutput

from trutnet import plugins
from trutnet.bots import make_bot
from trutnet.engine.games.lutin import LutinGame
from trutnet.games.lutin.frontend import CHOOSE_KEYS

from .test_game_plugins import rows_of


@pytest.mark.parametrize("variant", ["base", "expert-black"])
def test_a_whole_game_on_the_screen(variant):
    from trutnet.client.app import TableApp
    from trutnet.net.memory import MemoryTable, make_table, step, table_nonce
    from trutnet.protocol.spectator import Watchers

    plugins.load_plugins("")
    table_id, identities, peers = make_table(2, "lutin-screen")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("lutin", "heuristic", random.Random(s)) for s in range(2)]
    runtime = SimpleNamespace(
        watchers=Watchers(table_id), caught_up=True, _last_progress=time.monotonic(),
        wake=lambda: None,
    )  # fmt: skip
    player = TableApp("memory", 2, output=DummyOutput(), game="lutin", about="Lutin & Troll")
    player.seat = SimpleNamespace(peer=peers[0], identity=identities[0], store=None, pending=None)
    player.runtime = runtime  # type: ignore[assignment]
    table.broadcast(
        peers[0].open_table(
            LutinGame(variant), [i.public for i in identities], ["Ana", "Bob"],
            nonce=table_nonce("lutin-screen"),
        )
    )  # fmt: skip
    seen: dict[str, list[str]] = {}
    rng = random.Random(1)
    while True:
        rows = rows_of(player)
        obs = player.observation()
        if obs.to_act is None:
            break
        assert rows[0].startswith(f" Lutin & Troll — {variant}, manche ")
        assert rows[0].endswith("you: Ana")
        if not player.info.step and obs.to_act == 0 and peers[0].decide():
            seen.setdefault(obs.phase, rows)
            if obs.phase == "choose":
                legal = {a.card for a in obs.legal}
                shown = rows[-1].split(" choose")[0].split()
                assert shown == [k for k, c in CHOOSE_KEYS.items() if c in legal]  # only those
                missing = [k for k, c in CHOOSE_KEYS.items() if c not in legal]
                if missing:
                    player.game_key(missing[0])
                    seen.setdefault("refused", [player.info.message])
                    assert player.seat.pending is None
                key = rng.choice([k for k, c in CHOOSE_KEYS.items() if c in legal])
            elif obs.phase in ("attack", "riposte"):
                key = str(rng.randrange(len(obs.hand)) + 1)
            else:  # a token choice: its number among the choices shown
                assert any(r.startswith(" Choices: [1]") for r in rows)
                assert rows[-1].startswith(f" 1-{min(len(obs.legal), 10) % 10} token")
                key = "1234567890"[rng.randrange(min(len(obs.legal), 10))]
            player.game_key(key)
            assert player.seat.pending is not None, player.info.message
            action, player.seat.pending = player.seat.pending, None
            table.broadcast(peers[0].act(action))
            continue
        if not step(table):
            break
    assert any(r.startswith(" You        HP ") for r in seen["attack"])
    assert any(r.startswith(" Bob        HP ") for r in seen["attack"])
    assert any(r.startswith(" Your hand: [1]") for r in seen["attack"])
    assert any(r.startswith(" Pioche+hand Bob: ") for r in seen["attack"])
    assert any(r.startswith(" Défausse You: ") for r in seen["attack"])
    assert seen["attack"][-1].startswith(" 1-") and seen["attack"][-1].endswith(
        "play  ? help  q quit"
    )
    assert any(r.startswith(" Combat: Bob: ") for r in seen["riposte"])  # the attack, seen
    assert seen["refused"][0].startswith("your pioche has no ") and "(L16)" in seen["refused"][0]
    if variant.startswith("expert"):
        assert any(r.startswith(" Tokens (black): yours ") for r in seen["attack"])
        assert ("tdiscard" in seen and "window" in seen) or "window_turn" in seen
    end = rows_of(player)
    assert end[0].startswith(" Game over — ") and " Final score:" in end
    player.help = True
    assert rows_of(player)[0].startswith("Lutin & Troll — two players")
    assert peers[0].replica.state.is_terminal()
