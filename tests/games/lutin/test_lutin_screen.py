"""Lutin & Troll on the terminal client's screen: a whole base game with full crypto
(in memory), seat 0 played by keys, seat 1 by the heuristic bot. The screen fits
80x24, shows both HP bars, VP, the combat, both défausses and what each pioche holds
(L17), the seat's hand; the key bar shows only the keys that do something now. Then:
a token with more targets than keys (two presses), the last combat's line, and the
narration (who played what, and what came of it)."""

from __future__ import annotations

import random
import re
import time
from types import SimpleNamespace

import pytest
from prompt_toolkit.output import DummyOutput

from tests.games.test_game_plugins import rows_of
from trutnet import plugins
from trutnet.bots import make_bot
from trutnet.client.frontend import Press
from trutnet.games.lutin.frontend import CHOOSE_KEYS
from trutnet.games.lutin.narration import card_name
from trutnet.games.lutin.rules import LutinGame


def shown_keys(rows):
    """The keys in [ ] of the choices rows, in order."""
    text = " ".join(r for r in rows if r.startswith((" Choices: ", "   [")) or " takes: [" in r)
    return re.findall(r"\[(.)\]", text)


@pytest.mark.parametrize("variant", ["base", "expert-black"])
def test_a_whole_game_on_the_screen(variant):
    from trutnet.client.app import TableApp
    from trutnet.memory_table import MemoryTable, make_table, step, table_nonce
    from trutnet.protocol.spectator import Watchers

    plugins.load_plugins("")
    table_id, identities, peers = make_table(2, "lutin-screen")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("lutin", "heuristic", random.Random(s)) for s in range(2)]
    runtime = SimpleNamespace(
        watchers=Watchers(table_id), caught_up=True, last_progress=time.monotonic(),
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
        if player.info.paused:  # a manche just ended: its summary, until a key
            summary = next(r for r in rows if r.startswith(" Manche "))
            seen.setdefault("paused", rows)
            assert rows[-1].startswith(" Enter continue")
            going = f"manche {obs.manche}" if obs.to_act is not None else "the final score"
            assert any(r.startswith(" ▶ ") and going in r for r in rows), rows
            assert summary.endswith((" is over", " goes on")), summary
            told = [r for r in rows if r.startswith(" → ")]
            said = r" → ((You win|Bob wins) the manche: \+1 VP \(|equal HP)"
            assert told and re.match(said, told[0]), told
            player._game_key_handler("1")(None)  # the key only dismisses it: no card played
            assert not player.info.paused and player.seat.pending is None
            continue
        if obs.to_act is None:
            break
        assert rows[0].startswith(f" Lutin & Troll — {variant}, ")  # manche N, or set-up
        assert rows[0].endswith("you: Ana")
        if not player.info.step and obs.to_act == 0 and peers[0].decide():
            seen.setdefault(obs.phase, rows)
            if obs.phase == "choose":
                legal = {a.card for a in obs.legal}
                bar = rows[-1].split("  ? help")[0]
                assert len(rows[-1]) <= 80 and ":" not in bar  # never `g:b5` beside `g2`
                letters = re.findall(r"\b([a-z]) ([A-Z]\w+)", bar)
                assert letters == [  # a letter names its card, as the help does
                    (k, card_name(c).split()[0])
                    for k, c in CHOOSE_KEYS.items()
                    if c in legal and k.isalpha()
                ]
                greens = bar.split(f" {letters[0][0]} ")[0] if letters else bar
                values = {
                    int(v)
                    for part in greens.split()
                    for v in (range(int(part[0]), int(part[-1]) + 1) if "-" in part else [part])
                }
                assert values == {
                    int(k) for k, c in CHOOSE_KEYS.items() if c in legal and k.isdigit()
                }
                missing = [k for k, c in CHOOSE_KEYS.items() if c not in legal]
                if missing:
                    player.game_key(missing[0])
                    seen.setdefault("refused", [player.info.message])
                    assert player.seat.pending is None
                player.game_key("1")  # a hand key, not a choosing one
                assert player.info.message == "1 names no card: choose with 2-8 k g t p h m"
                key = rng.choice([k for k, c in CHOOSE_KEYS.items() if c in legal])
            elif obs.phase in ("attack", "riposte"):
                key = str(rng.randrange(len(obs.hand)) + 1)
            else:  # a token choice: its number among the choices shown, then its target
                assert any(r.startswith(" Choices: [1]") for r in rows)
                assert rows[-1].startswith(" 1-") and " token  " in rows[-1]
                keys = shown_keys(rows)
                player.game_key(rng.choice(keys))
                rows = rows_of(player)
                if player.seat.pending is None:  # a token with several targets
                    assert rows[-1].startswith(" [key] card  0 back")
                    seen.setdefault("target", rows)
                    keys = shown_keys(rows)
                    assert keys[-1] == "0"  # back
                    key = rng.choice(keys[:-1])
                else:
                    key = None
            if key is not None:
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
    assert any(r.startswith(" Pioche Bob: ") for r in seen["attack"])
    assert any(r.startswith(" Défausse You: ") for r in seen["attack"])
    assert seen["attack"][-1].startswith(" 1-") and seen["attack"][-1].endswith(
        "play  ? help  q quit"
    )
    assert any(r.startswith(" Combat: Bob: ") for r in seen["riposte"])  # the attack, seen
    assert seen["refused"][0].startswith("your pioche has no ") and "(L16)" in seen["refused"][0]
    if variant.startswith("expert"):
        assert any(r.startswith(" Tokens (black): yours ") for r in seen["attack"])
        assert ("tdiscard" in seen and "window" in seen) or "window_turn" in seen
    assert "paused" in seen  # every manche's end was shown
    end = rows_of(player)
    assert end[0].startswith(" Game over — ") and " Final score:" in end
    player.help = True
    page = rows_of(player)  # at most 24 rows of 80 columns
    assert page[0].startswith("Lutin & Troll — two players")
    assert "Keys: choose 2-8 green, k g t blue 4 5 6, p h m Nymph Harpy Mandragore;" in page
    assert peers[0].replica.state.is_terminal()


def _rich_window():
    """An expert-black game where seat 0 (attacker) holds t11 and t21, with all 13
    kinds on its défausse after three equal hands (L14 continuations), at a window."""
    from tests.games.lutin.lutin_helpers import choose, combat, start_expert, window

    hands = ["g2 g3 g4 g5 g6", "g7 g8 b4 b5 b6", "nymph harpy mandragore g2 g3"]
    state = start_expert("expert-black", hands[0], hands[0])
    for k, hand in enumerate(hands):
        if k:
            choose(state, hand, hand)
        for card in hand.split():
            combat(state, card, card)  # equal: nothing, the attacker stays (L8)
            window(state, {0: "token none", 1: "token none"})
    choose(state, "g4 g4 g5 g5 g2", "g4 g4 g5 g5 g2")
    combat(state, "g4", "g4")
    assert state.phase == "window" and state.current_seat() == 0
    assert len(set(state.observation(0).defausse[0])) == 13
    return state


def test_a_token_with_many_targets_is_chosen_in_two_presses_within_80x24():
    """Black t11 may take any of 13 kinds of the défausse and t21 any hand card: more
    than ten keys. The first press picks the token, the second its card by the key that
    names it elsewhere (2-8 k g t p h m for a kind, 1-5 a hand card); 0 goes back. The
    choices take at most two rows of 80 columns, and the table area at most 11 rows
    (the frame's 13 others make 24)."""
    from trutnet.client.view import TableInfo, plain, table_lines
    from trutnet.games.lutin.frontend import LutinFrontend

    plugins.load_plugins("")
    state = _rich_window()
    front = LutinFrontend()
    info = TableInfo(names=["Charlotte", "Bartholomew"], fingerprints=["", ""], me=0)
    obs = state.observation(0)
    info.log = [f"line {i}" for i in range(10)]
    info.watchers = [("Eve", "ABCD")]

    def screen():
        area = [plain_line(line) for line in front.table_area(obs, info, 80)]
        assert len(area) <= 11 and all(len(r) <= 80 for r in area)  # nothing cut
        rows = plain(table_lines(front, obs, info)).splitlines()
        assert len(rows) <= 24 and all(len(r) <= 80 for r in rows)
        return rows

    rows = screen()
    # One notation: a pile names a card by the key that chooses it, the hand by its name
    assert " Défausse You: 2x2 3x2 4 5 6 7 8 k g t p h m" in rows
    assert " Your hand: [1]Korrigan 4 [2]Elfe 5 [3]Elfe 5 [4]Lutin 2" in rows
    assert " Choices: [1]none  [2]t11 (swap with défausse)…  [3]t21 (swap with hand)…" in rows
    assert rows[-1].startswith(" 1-3 token")
    assert front.press("2", obs, info) == Press()  # t11: its targets now
    rows = screen()
    targets = next(r for r in rows if r.startswith(" t11 takes: [2]Lutin [3]Farfadet "))
    for key, kind in CHOOSE_KEYS.items():
        assert f"[{key}]{card_name(kind).split()[0]}" in " ".join(rows)
    assert rows[-1].startswith(" [key] card  0 back") and "[0]back" in " ".join(rows)
    assert targets
    assert front.press("t", obs, info) == Press("token tokens@0=t11 b6")
    front.press("2", obs, info)
    assert front.press("m", obs, info) == Press("token tokens@0=t11 mandragore")
    front.press("3", obs, info)  # t21: a card of the hand, by its number there
    hand = [where for where, _ in obs.hand]
    assert front.press("2", obs, info) == Press(f"token tokens@1=t21 {hand[1]}")
    front.press("3", obs, info)
    assert front.press("0", obs, info) == Press()  # back to the tokens
    assert front.press("1", obs, info) == Press("token none")
    assert front.press("9", obs, info).say == "no choice 9 now"


def test_the_last_combat_names_each_seat_with_its_card_and_hp():
    """The last combat's line pairs each card and each HP change with its seat, in the
    order they were played (L7-L13): a Harpy riposting to a Troll costs the Troll's
    owner 6."""
    from tests.games.lutin.lutin_helpers import combat, start
    from trutnet.client.view import TableInfo
    from trutnet.games.lutin.frontend import LutinFrontend

    state = start("b6 g2 g2 g2 g2", "harpy g3 g3 g3 g3")
    combat(state, "b6", "harpy")
    info = TableInfo(names=["Ana", "Bob"], fingerprints=["", ""], me=1)
    area = [plain_line(line) for line in LutinFrontend().table_area(state.observation(1), info, 80)]
    assert " Last: Ana Troll 6 -6, You Harpy +0 HP; won by You" in area
    assert any(r.startswith(" Pioche Ana: ") for r in area)


def plain_line(line):
    return "".join(text for _, text in line)


def test_the_narration_names_who_played_what_and_what_came_of_it():
    """The log tells each card with its player, each combat's result, a continuation
    on equal HP (L14), a manche won and the game's end; a replica that saw only the
    public actions (the sealed hands as ``seal``) tells the same."""
    from tests.games.lutin.lutin_helpers import choose, combat, open_all, start
    from trutnet.games.lutin.frontend import LutinFrontend

    same = "g5 g5 g5 g5 g4"
    state = start(same, same)
    for card in same.split():
        combat(state, card, card)  # equal HP at empty hands: the manche goes on (L14)
    choose(state, "b6 g2 g2 g2 g2", "harpy b5 b4 g8 g3")
    combat(state, "b6", "harpy")  # Ana -6, Bob attacks
    combat(state, "b5", "g2")  # Ana -5 more
    combat(state, "b4", "g2")  # Ana at 0: Bob wins the manche (L13)
    open_all(state)
    names = ["Ana", "Bob"]
    front = LutinFrontend()
    lines = [line for e in front.events(state) for line in front.narrate(e, state, names)]
    assert lines[0] == "Ana attacks first (a coin tossed jointly)"
    assert "both hands empty, equal HP: 5 new cards each, same manche" in lines
    assert not any(re.search(r"\bL\d+\b", line) for line in lines)  # no rule ids
    at = lines.index("Ana attacks with Troll 6")
    assert lines[at + 1 : at + 3] == [
        "Bob ripostes with Harpy",
        "Ana's Troll 6 vs Bob's Harpy: Ana -6 HP, Bob +0 HP; Bob wins it",
    ]
    assert "Ana's unplayed card: Lutin 2" in lines
    assert lines[-1] == "Bob wins manche 1: VP 0-1"
    hidden = LutinGame("base").new_initial_state()
    for action in state.history():
        hidden.apply(action.public())
    assert "seal take" not in " ".join(str(a) for a in hidden.history())
    other = LutinFrontend()
    assert [ln for e in other.events(hidden) for ln in other.narrate(e, hidden, names)] == lines


def test_one_card_left_is_one_key():
    """With one card in hand the prompt and the key bar say ``1``, not ``1-1``."""
    from tests.games.lutin.lutin_helpers import combat, start
    from trutnet.client.view import TableInfo
    from trutnet.games.lutin.frontend import LutinFrontend

    state = start("g5 g5 g5 g5 g4", "g5 g5 g5 g5 g3")
    for card in ("g5", "g5", "g5", "g5"):
        combat(state, card, card)
    info = TableInfo(names=["Ana", "Bob"], fingerprints=["", ""], me=0)
    front, obs = LutinFrontend(), state.observation(0)
    assert len(obs.hand) == 1 and obs.phase == "attack"
    assert front.prompt(obs, info) == "Attack: 1" and front.key_hints(obs, info) == ["1 play"]
    assert front.deciding(state.observation(1)) == "to attack"


def test_a_manche_end_and_a_continuation_stay_on_screen_until_a_key():
    """The frame pauses on a continuation (L14) and on a manche won (L13): the table
    shows what ended (final HP, VP), not the next hand's empty table."""
    from tests.games.lutin.lutin_helpers import choose, combat, open_all, start
    from trutnet.client.frontend import Cue
    from trutnet.client.view import TableInfo, round_over_lines
    from trutnet.games.lutin.frontend import LutinFrontend

    same = "g5 g5 g5 g5 g4"
    state = start(same, same)
    front = LutinFrontend()
    info = TableInfo(names=["Ana", "Bob"], fingerprints=["", ""], me=0)

    def cues():
        return [front.follow(e, state, info) for e in front.events(state)[len(seen) :]]

    seen: list = []
    for card in same.split():
        combat(state, card, card)
    seen += cues()
    assert seen.count(Cue.ROUND_ENDS) == 1  # the continuation, not the first manche's start
    info.paused = True

    def summary() -> list[str]:
        return [plain_line(line) for line in round_over_lines(front, state.observation(0), info)]

    area = summary()
    assert " Manche 1 goes on" in area and any("equal HP (12-12)" in r for r in area)
    choose(state, "b6 g2 g2 g2 g2", "harpy b5 b4 g8 g3")
    for attack, riposte in (("b6", "harpy"), ("b5", "g2"), ("b4", "g2")):
        combat(state, attack, riposte)
    open_all(state)
    seen += cues()
    assert seen.count(Cue.ROUND_ENDS) == 2
    area = summary()
    assert " Manche 1 is over" in area
    assert " → Bob wins the manche: +1 VP (You are down to 0 HP)" in area
    assert area[:2] == [
        " You        HP  0 [............]  VP 0",
        " Bob        HP 12 [############]  VP 1",
    ]
    assert state.hp == [12, 12]  # the next manche's, not shown while paused
    info.paused = False
    area = [plain_line(line) for line in front.table_area(state.observation(0), info, 80)]
    assert area[2].startswith(" Last: Bob Kobold 4 ")


def test_the_manche_winner_is_told_when_a_black_token_moves_vp_in_the_same_combat():
    """A manche won while a black t33 took a VP from its winner (L29): the winner is the
    seat that opens the next manche (L8) and got its VP, whatever the sum of VP did; a
    manche that ends with no VP is nobody's (L31)."""
    from trutnet.games.lutin.narration import Moment, Told, narrate
    from trutnet.games.lutin.rules.actions import Take

    def moment(manche, vp, attacker, phase="choose"):
        return Moment(phase, attacker, (), None, vp, (12, 12), manche, manche, None, "black")

    won = Told(1, Take("g2"), moment(3, (3, 2), 1, "end_open"), moment(4, (2, 3), 1))
    assert narrate(won, ["Ana", "Bob"])[1:] == ["Bob wins manche 3: VP 2-3"]
    none = Told(1, Take("g2"), moment(5, (2, 2), 0, "end_open"), moment(5, (2, 2), 0, "over"))
    assert narrate(none, ["Ana", "Bob"])[1] == "manche 5 ends: nobody wins it"


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_the_last_combat_fits_80_columns_with_its_winner(language):
    """The table's line on the last combat keeps its end, who won it, whatever the
    cards and with names as long as the screen lets them be (ten letters)."""
    from trutnet import i18n
    from trutnet.client.view import TableInfo
    from trutnet.games.lutin.frontend import LutinFrontend
    from trutnet.games.lutin.narration import NAMES

    info = TableInfo(names=["Bartholomé", "Maximilien"], fingerprints=["", ""], me=None)
    # (names are cut to 8 letters on that line)
    i18n.use(language)
    try:
        longest = max(NAMES, key=lambda card: len(i18n._(NAMES[card])))
        lines = [
            LutinFrontend()._last((0, longest, longest, -12, -12, win), info) for win in (None, 1)
        ]
    finally:
        i18n.use("en")
    for line in lines:
        assert len(line) <= 80, (len(line), line)
    assert "Maximil" in lines[1][-12:]  # the winner, at the end
