"""Trut Deluxe on the terminal client's screen, read as text [T23, T25, T36-T40]:
special cards by letter and name, the choices of the preparation and of the powers
on number keys (shown only when they do something), and the Deluxe help page."""

from __future__ import annotations

import random

from tests.games.trut.test_rulings_trut_deluxe import prepared
from trutnet.client.frontend import frontend_for
from trutnet.client.view import TableInfo, key_bar, plain, table_lines
from trutnet.games.trut import screen
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame


def _info(seat: int) -> TableInfo:
    return TableInfo(names=["Ann", "Bob"], fingerprints=["A", "B"], me=seat)


def test_choosing_a_special_card_with_the_number_keys():
    state = TrutGame(
        TrutConfig(2, deluxe=True, start=StartPosition((0, 0), (0, 0), 0))
    ).new_initial_state()
    state.apply("prepare A B C D E F G H I J K L M")
    obs = state.observation(1)  # seat 1 (the Donneur's left) chooses first [T25]
    trut = frontend_for("trut")
    text = plain(table_lines(trut, obs, _info(1)))
    # By name and value, as the help lists them, never a deck position; and the kept
    # card's fate, said where it is chosen [T25, T26].
    prompt = trut.prompt(obs, _info(1))
    assert "Keep a special card (it joins the deck): 1 Owl 4  2 Boar 5" in prompt
    assert "A Owl 4: " in trut.help(False) and "the kept cards join" in trut.help(False)
    assert "@" not in text
    assert "1-2 choose" in key_bar(trut, obs, _info(1))
    assert trut.press("2", obs, _info(1)).action == "keep C@2"
    other = state.observation(0)
    assert "choose" not in key_bar(trut, other, _info(0))  # not its turn
    assert trut.press("1", other, _info(0)).action is None
    assert "Ann" in text or "Bob" in text
    assert text.splitlines()[0].startswith(" Trut Deluxe — classic, 2 players, first to 7 Longs")
    classic = TrutGame(TrutConfig(2)).new_initial_state()
    assert screen.title(classic.observation(0)).startswith("Trut — classic, 2 players")


def test_special_cards_show_by_name_and_the_help_lists_them():
    state = TrutGame(TrutConfig(2, deluxe=True)).new_initial_state()
    rng = random.Random(3)
    trut = frontend_for("trut")
    seen = False
    while not state.is_terminal() and not seen:
        legal = None if state.current_seat() == -1 else state.legal_actions()
        state.apply(state.sample_chance(rng) if legal is None else rng.choice(legal))
        for seat in (0, 1):
            obs = state.observation(seat)
            if any(not hasattr(c, "suit") for _, c in obs.hand if c is not None):
                text = plain(table_lines(trut, obs, _info(seat)))
                assert any(
                    f"]{screen.NAMES[c.letter]} " in text
                    for _, c in obs.hand
                    if hasattr(c, "letter")
                )
                assert ":" not in text.split("Your hand:")[1].splitlines()[0]
                seen = True
    assert seen
    assert trut.help(False) == screen.DELUXE_HELP  # the table has the deluxe option
    lines = screen.DELUXE_HELP.splitlines()
    assert len(lines) <= 23 and all(len(line) <= 80 for line in lines)
    for name in ("Owl", "Wolf", "Falcon", "Trhulhu", "[T41]"):
        assert name in screen.DELUXE_HELP
    classic = frontend_for("trut")
    assert classic.help(False) == screen.HELP


def test_the_heuristic_bot_keeps_the_best_special_and_uses_the_powers():
    from trutnet.bots import make_bot

    bot = make_bot("trut", "heuristic", random.Random(1))
    state = TrutGame(
        TrutConfig(4, deluxe=True, start=StartPosition((0, 0), (0, 0), 3))
    ).new_initial_state()
    state.apply("prepare A E C D B F G H I J K L M")  # seat 0 is dealt A@0 and B@4
    assert str(bot.choose(state.observation(0))) == "keep B@4"  # the Wolf over the Owl
    # The Badger's die, two opposing Kings and a partner's Queen: it hits a King
    state = prepared(
        4,
        keep={0: "J", 1: "A", 2: "B", 3: "C"},
        hands={0: "J 9c 9d", 1: "Kh 10c 10d", 2: "Qs 8c 8d", 3: "Kc 7c 7d"},
        dealer=1,
    )
    for action in ("play Kh", "play Qs", "play Kc", "play J", "die 3"):
        state.apply(action)
    assert str(bot.choose(state.observation(0))) in ("hit Kh", "hit Kc")
    # The Magpie steals
    state = prepared(2, keep={0: "G", 1: "A"}, hands={0: "G 7c 9d", 1: "Ah 8c 10d"}, petits=(0, 1))
    state.apply("play G")
    assert str(bot.choose(state.observation(0))) == "steal"


def test_a_whole_deluxe_game_on_the_screen_of_each_seat():
    """Whole Deluxe games with the bonus cards, full crypto in memory, each seat's
    screen read after every entry [T23, T28]: a trick holding a special card goes into
    the hand's summary by letter and name (it once stopped the screen, the summary
    reading cards as the 32 classic ones), and every screen fits 80x24."""
    from prompt_toolkit.output import DummyOutput

    from tests.client.test_client import screen_rows
    from tests.tables import make_table
    from trutnet.bots import make_bot
    from trutnet.client.app import TableApp
    from trutnet.memory_table import MemoryTable, step, table_nonce

    players = 4
    _, identities, peers = make_table(players, "deluxe-screens")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("trut", "heuristic", random.Random(s)) for s in range(players)]
    start = StartPosition((5, 5), (0, 0), 0)  # two Longs from the end: a few hands
    config = TrutConfig(players, deluxe=True, bonus_cards=True, start=start)
    table.broadcast(
        peers[0].open_table(
            TrutGame(config),
            [i.public for i in identities],
            ["Ann", "Bob", "Cid", "Dee"],
            nonce=table_nonce("deluxe-screens"),
        )
    )
    uis = [TableApp("memory", players, output=DummyOutput(), game="trut") for _ in peers]
    for ui, peer in zip(uis, peers, strict=True):
        ui.seat.peer = peer
    specials_in_summaries = 0
    titles = set()
    while step(table):
        for ui in uis:
            rows = screen_rows(ui)
            titles.add(rows[0].split(",")[0])
            if ui.info.paused:
                tricks = ui.frontend.last_hand.tricks
                specials_in_summaries += sum(
                    hasattr(card, "letter") for cards, _ in tricks for _, card in cards
                )
                assert any(r.startswith(" Hand ") and "is over" in r for r in rows)
                ui.dismiss()
    assert peers[0].replica.state.is_terminal()
    assert specials_in_summaries > 0  # the summaries did hold special cards
    assert " Trut Deluxe — classic" in titles and " Trut — classic" not in titles
    assert all(screen_rows(ui)[0].startswith(" Game over — ") for ui in uis)


def test_the_weasels_choices_show_only_when_legal_and_its_die_is_narrated():
    trut = frontend_for("trut")
    state = prepared(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    events = state.apply("play H")
    obs = state.observation(0)
    assert "The Weasel: name an opponent [T37]: 1 target seat 1" in trut.prompt(obs, _info(0))
    assert "1 choose" in key_bar(trut, obs, _info(0)) and "p pass" not in key_bar(
        trut, obs, _info(0)
    )
    assert "choose" not in key_bar(trut, state.observation(1), _info(1))  # not its turn
    assert trut.press("1", obs, _info(0)).action == "target 1"
    events = state.apply("target 1") + state.apply("die 1")
    lines = [line for e in events for line in trut.narrate(e, state, ["Ann", "Bob"])]
    assert any("targets Bob" in line for line in lines)
    assert any("die for the Weasel: 1" in line for line in lines)
    assert any("the Weasel (1): swaps a card with Bob" in line for line in lines)
    assert sum("target" in line for line in lines) == 1  # told once, in words
    assert not any("[T" in line for line in lines)
    obs = state.observation(0)
    prompt = trut.prompt(obs, _info(0))
    assert "The Weasel (1): give a card" in prompt and "give 9c" in prompt
    assert trut.press("1", obs, _info(0)).action.startswith("give 9c@")
    # outcome 4: the blind pick, then the forced card's prompt
    state = prepared(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    for action in ("play H", "target 1", "die 4"):
        state.apply(action)
    obs = state.observation(0)
    assert "pick blind the target's next card [T37]: 1 card 1  2 card 2  3 card 3" in (
        trut.prompt(obs, _info(0))
    )
    state.apply("force @2")  # seat 1's second card, 10c
    forced = state.observation(1)
    assert "the Weasel forces your card 2 [T37]" in trut.prompt(forced, _info(1))
    assert "2 play (the Weasel's pick)" in key_bar(trut, forced, _info(1))


def test_the_hedgehogs_protection_shows_beside_the_tokens_and_the_help_says_h_and_m():
    trut = frontend_for("trut")
    state = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M 9c 9d", 1: "Ah 10c 10d"})
    before = plain(table_lines(trut, state.observation(1), _info(1)))
    assert "Hedgehog: safe" not in before
    state.apply("play M")
    text = plain(table_lines(trut, state.observation(1), _info(1)))
    row = next(line for line in text.splitlines() if "Hedgehog: safe" in line)
    assert "Ann" in row and "Longs" in row  # beside team 0's tokens
    help_text = screen.DELUXE_HELP
    assert "H Weasel 3: target, die: 1 swap 2 -2 3 new hand 4 pick 5 Trut 6 Petits" in help_text
    assert "M Hedgehog 3: its team's Petits safe until they make a Long" in help_text
    assert "not played yet" not in help_text


def test_the_heuristic_bot_aims_the_weasel_at_the_petits_and_gives_its_weakest_card():
    from trutnet.bots import make_bot

    bot = make_bot("trut", "heuristic", random.Random(1))
    state = prepared(
        3,
        keep={0: "H", 1: "A", 2: "B"},
        hands={0: "H 7c 9d", 1: "Kh 10c 10d", 2: "Qs 8c 8d"},
        petits=(0, 0, 2),
    )
    state.apply("play H")
    assert str(bot.choose(state.observation(0))) == "target 2"  # outcome 6's sake
    state.apply("target 2")
    state.apply("die 1")
    assert str(bot.choose(state.observation(0))).startswith("give 9d@")  # the weakest
