"""Every game's narration tells each event as the table was when it happened, whenever
it is read: live, event by event (a seat's log), or all at once from the final state (a
spectator catching up, a resumed seat, ``trutnet verify``). Read over the golden games
of every game, and Truco's seats and hands checked against a replay."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from tests.games.trut.golden_games import GOLDEN_DIR
from trutnet.client.frontend import frontend_for
from trutnet.engine import load_game
from trutnet.engine.registry import make_game
from trutnet.games.truco.narration import card_text
from trutnet.plugins import load_plugins

GOLDEN_FILES = sorted(p.name for p in GOLDEN_DIR.glob("*.json"))
NAMES = ["Ana", "Bob", "Cid", "Dee", "Eve", "Fox", "Gus", "Hal"]


def _narrations(record: dict) -> tuple[list[str], list[str]]:
    """The narration read live (after each action) and all at once at the end."""
    load_plugins()  # every game of this tree, with its screen
    game = make_game(record["game"], record["config"])
    state = game.new_initial_state()
    names = NAMES[: game.num_players()]
    live_frontend = frontend_for(game.name)
    live: list[str] = []
    seen = 0
    for action in record["actions"]:
        state.apply(action)
        events = live_frontend.events(state)
        for event in events[seen:]:
            live += live_frontend.narrate(event, state, names=names)
        seen = len(events)
    final = load_game(record)
    later_frontend = frontend_for(game.name)  # a new screen, or `trutnet verify`
    later = [
        line
        for event in later_frontend.events(final)
        for line in later_frontend.narrate(event, final, names=names)
    ]
    return live, later


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_a_game_read_at_the_end_tells_what_it_told_live(name):
    record = json.loads((GOLDEN_DIR / name).read_text())["game"]
    live, later = _narrations(record)
    assert len(live) > 20
    assert later == live


@pytest.mark.parametrize("name", [n for n in GOLDEN_FILES if n.startswith("truco")])
def test_truco_names_the_seat_that_played_and_the_hand_it_was_in(name):
    """`Bot 3 plays 2esp` was once said of Bot 2's card, and every hand was the last
    one (`hand 61: seat 1 deals`): the narration read the state after the game."""
    record = json.loads((GOLDEN_DIR / name).read_text())["game"]
    load_plugins()
    game = make_game(record["game"], record["config"])
    state = game.new_initial_state()
    plays: list[str] = []
    dealers: list[int] = []
    for text in record["actions"]:
        seat = state.current_seat()
        action = state.parse_action(text)
        if text.startswith("play "):
            plays.append(f"{NAMES[seat]} plays {card_text(action.card)}")
        state.apply(action)
        if text.split()[0] == "deal":
            dealers.append(state.dealer)
    _, later = _narrations(record)
    assert [line for line in later if " plays " in line] == plays
    hands = [line for line in later if re.match(r"hand \d+: ", line)]
    assert hands == [f"hand {i + 1}: {NAMES[d]} deals" for i, d in enumerate(dealers)]
    assert len(hands) > 3


RULE_ID = re.compile(r"[\[(][TDKL]\d+|\b[TDKL]\d+[\])]")
RAW = re.compile(r": (steal|hit|bat|target|give|force|pick)\b|\b[A-R]:[A-Z][a-z]|\(s\)")


@pytest.mark.parametrize("name", GOLDEN_FILES)
def test_the_log_speaks_in_peoples_words(name):
    """No rule id (`[T11]`, `(L14)`) and no raw notation (`Bot 1: steal`, `E:Falcon`,
    `card(s)`) in what a player's log shows, and no event told twice (the Weasel's
    target was once told by the power and again by the Weasel)."""
    record = json.loads((GOLDEN_DIR / name).read_text())["game"]
    live, _ = _narrations(record)
    assert not [line for line in live if RULE_ID.search(line)]
    assert not [line for line in live if RAW.search(line)]
    assert not [a for a, b in itertools.pairwise(live) if a == b]
