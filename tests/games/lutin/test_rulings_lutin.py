"""Lutin & Troll, ruling by ruling (L1-L33, ``docs/games/lutin.md``).

Each test names the ruling it checks, and what that ruling refuses. The expert
mode (L19-L30) is tested in ``tests/games/lutin/test_rulings_lutin_expert.py``.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.games.lutin.lutin_helpers import choose, open_all, play, random_step, start
from tests.games.lutin.lutin_helpers import combat as fight
from trutnet.engine import ConfigError, IllegalAction, NotationError, load_game, register_game
from trutnet.engine.hidden import JointRandom, Open, Reveal, SecretChoice, Shuffle, Turn
from trutnet.games.lutin.rules import LutinGame
from trutnet.games.lutin.rules.actions import Show, parse_action
from trutnet.games.lutin.rules.cards import DECK_LIST, DECKS, combat, value
from trutnet.games.lutin.rules.state import INDEX

WEAK = "g2 g2 g2 g2 g3"
SAME = "g5 g5 g5 g5 g4"


def refused(state, action, rule):
    before = state.state_hash(), len(state.history())
    with pytest.raises(IllegalAction) as err:
        state.apply(action)
    assert err.value.rule == rule
    assert (state.state_hash(), len(state.history())) == before  # a refusal changes nothing


def test_L1_two_players_only():
    assert LutinGame().num_players() == 2
    with pytest.raises(ConfigError):
        LutinGame.from_config({"variant": "base", "players": 4})


def test_L2_the_deck_and_its_notation():
    counts = Counter(DECK_LIST)
    assert len(DECK_LIST) == 25 and sum(1 for c in DECK_LIST if c[0] == "g") == 19
    assert counts["g2"] == counts["g3"] == counts["g4"] == counts["g5"] == 4
    assert {c for c in DECK_LIST if c[0] == "b"} == {"b4", "b5", "b6"}
    assert len(DECKS[0]) == 25 and DECKS[0].cards == DECKS[1].cards  # identical decks
    for text in (
        "first 1",
        "take g5",
        "take nymph",
        "seal",
        "seal take b6",
        "play hand/4",
        "deal lutin0",
        "play lutin1@24",
        "play lutin0@3=harpy",
        "show lutin0@1=g2 lutin1@7=mandragore",
    ):
        assert str(parse_action(text)) == text
    for bad in ("take g9", "take g5a", "play hand/5", "seal play hand/1", "take  g5", "first 2"):
        with pytest.raises(NotationError):
            parse_action(bad)


def test_L2_an_action_names_a_kind_and_copies_are_interchangeable():
    state = start(SAME, SAME)
    assert state.pool[0][INDEX["g5"]] == 4 and state.secrets[0, 0] == "g5"
    # a fifth g5 is more than the pioche held: refused while choosing (L16)
    other = LutinGame().new_initial_state()
    other.apply("first 0")
    for _ in range(4):
        other.apply("take g5")
    refused(other, "take g5", "L16")


def test_L3_hp_12_each_manche_and_the_5th_vp_ends_the_game():
    state = start(WEAK, "b6 b5 b4 g8 g7")
    assert state.hp == [12, 12] and state.vp == [0, 0]
    fight(state, "g2", "b6")  # blue hits green for 6 (L9)
    assert state.hp == [6, 12]
    fight(state, "b5", "g2")  # seat 1 won and attacks: b5 against g2
    assert state.hp == [1, 12]
    # a whole game: it ends on the 5th VP, at once
    rng = random.Random(3)
    game = LutinGame().new_initial_state()
    while not game.is_terminal():
        random_step(game, rng)
    assert max(game.vp) == 5 and game.winner == game.vp.index(5)


def test_L4_variants_and_what_is_refused():
    assert LutinGame().config_dict() == {"variant": "base"}
    for variant in ("base", "expert-white", "expert-black", "initiation"):
        assert LutinGame.from_config({"variant": variant}).variant == variant
    for bad in ("expert", "initiation-expert", "classic", 3):
        with pytest.raises(ConfigError):
            LutinGame(bad)  # expert and initiation do not combine


def test_L5_a_joint_coin_first_before_any_hand():
    state = LutinGame().new_initial_state()
    step = state.next_step()
    assert isinstance(step, JointRandom) and step.label == "first-attacker"
    assert [str(a) for a in step.outcomes] == ["first 0", "first 1"]
    refused(state, "take g5", "turn")
    state.apply("first 1")
    step = state.next_step()
    assert isinstance(step, SecretChoice) and step.seat == 1  # L16, L32: the attacker first


def test_L6_attack_then_riposte_having_seen_it():
    state = start(WEAK, SAME, first=1)
    assert state.next_step() == Turn(1)
    assert state.legal_actions(0) == []
    refused(state, "take g2", "L6")  # no opening before a play: a play is due
    play(state, "g5")
    assert state.table == [(1, "g5")] and state.next_step() == Turn(0)
    assert state.observation(0).table == ((1, "g5"),)  # seen before the riposte
    play(state, "g3")
    assert state.hp == [10, 12]


@pytest.mark.parametrize(
    ("attack", "riposte", "next_attacker"),
    [
        ("g3", "g5", 1),
        ("g5", "g5", 0),
        ("g8", "b4", 1),
        ("b4", "nymph", 1),
        ("nymph", "harpy", 0),
        ("g2", "mandragore", 1),
    ],
)
def test_L7_L8_the_winner_attacks_next_and_no_winner_keeps_it(attack, riposte, next_attacker):
    state = start(
        f"{attack} g2 g2 g2 g2" if attack != "g2" else "g2 g2 g2 g2 g3",
        f"{riposte} g3 g3 g3 g3" if riposte != "g3" else "g3 g3 g3 g3 g4",
    )
    fight(state, attack, riposte)
    assert state.attacker == next_attacker


def test_L9_every_pairing():
    assert combat("g3", "g5") == (-2, 0, 1)
    assert combat("g5", "g5") == (0, 0, None)
    assert combat("b6", "b4") == (0, -2, 0)
    assert combat("g8", "b4") == (-4, 0, 1)  # blue hits green, even a higher green
    assert combat("nymph", "b6") == (0, 0, 0)
    assert combat("g7", "nymph") == (0, 0, 1)
    for a in ("nymph", "harpy", "mandragore"):
        for b in ("nymph", "harpy", "mandragore"):
            assert combat(a, b) == (0, 0, None)  # red cards cancel each other


def test_L10_the_harpy_sends_the_hit_back_attacking_or_riposting():
    assert combat("harpy", "g7") == (0, -7, 0)
    assert combat("g7", "harpy") == (-7, 0, 1)
    state = start("g7 g2 g2 g2 g2", "harpy g3 g3 g3 g3")
    fight(state, "g7", "harpy")
    assert state.hp == [5, 12] and state.attacker == 1


def test_L11_the_mandragore_heals_never_above_12():
    state = start("b6 g2 g2 g2 g2", "g3 mandragore g3 g3 g3")
    fight(state, "b6", "g3")
    assert state.hp == [12, 6]
    state2 = start("b6 g7 g2 g2 g2", "g3 mandragore g3 g3 g3")
    fight(state2, "b6", "g3")  # seat 1 at 6, seat 0 attacks again
    fight(state2, "g7", "mandragore")
    assert state2.hp == [12, 12] and state2.attacker == 1  # +7 capped at 12
    state3 = start("g7 g2 g2 g2 g2", "mandragore g3 g3 g3 g3")
    fight(state3, "g7", "mandragore")  # at 12: nothing gained, the combat still won
    assert state3.hp == [12, 12] and state3.attacker == 1


def test_L12_a_red_card_has_no_value():
    with pytest.raises(ValueError):
        value("nymph")


def test_L13_hp_0_ends_the_manche_at_once_with_cards_in_hand():
    state = start("g2 g2 g2 g2 g3", "b6 harpy b5 b4 g8")
    fight(state, "g2", "b6")
    fight(state, "b5", "g2")  # seat 1 attacks with b5: 6 + 5 = 11
    assert state.hp == [1, 12]
    fight(state, "b4", "g2")
    assert state.hp[0] == 0 and state.phase == "end_open"  # two cards each unplayed
    open_all(state)
    assert state.vp == [0, 1] and state.manche == 2 and state.attacker == 1


def test_L14_equal_hp_at_empty_hands_continues_the_same_manche():
    state = start(SAME, SAME)
    for card in ("g5", "g5", "g5", "g5", "g4"):
        fight(state, card, card)
    assert state.hp == [12, 12] and state.vp == [0, 0] and state.manche == 1
    assert state.phase == "choose" and state.hands == 2 and state.attacker == 0
    assert sum(state.pool[0]) == 20
    # unequal HP: the one with more wins the manche
    state = start("g5 g5 g5 g5 g3", SAME)
    for a, b in (("g5", "g5"), ("g5", "g5"), ("g5", "g5"), ("g5", "g5"), ("g3", "g4")):
        fight(state, a, b)
    assert state.vp == [0, 1] and state.manche == 2 and state.hp == [12, 12]


def test_L15_unplayed_cards_are_opened_and_lie_face_up():
    state = start("g2 g2 g2 g2 nymph", "b6 b5 b4 harpy g8")
    fight(state, "g2", "b6")
    fight(state, "b5", "g2")
    fight(state, "b4", "g2")  # seat 0 at 0 HP
    assert isinstance(state.next_step(), Open)
    open_all(state)
    assert state.defausse[0][INDEX["nymph"]] == 1 and state.defausse[1][INDEX["harpy"]] == 1
    assert state.defausse[1][INDEX["g8"]] == 1


def test_L16_a_hand_is_checked_card_by_card_and_a_cheat_refused():
    state = LutinGame().new_initial_state()
    state.apply("first 0")
    for _ in range(10):  # replicas that do not know the hands record seal only
        state.apply("seal")
    assert state.phase == "attack"
    state.apply("play hand/0")
    state.apply("take nymph")
    state.apply("play hand/0")
    state.apply("take g2")
    state.apply("play hand/1")
    refused(state, "take nymph", "L16")  # its pioche had one Nymph, already opened
    # a knowing replica refuses an opening that is not the sealed card (L32)
    known = start(WEAK, SAME)
    known.apply("play hand/0")
    refused(known, "take g3", "L32")


def test_L17_the_pioches_are_public_and_the_hands_are_not():
    state = start(WEAK, SAME)
    obs = state.observation(1)
    assert obs.hand == tuple((f"hand/{k}", c) for k, c in enumerate(SAME.split()))
    assert Counter(obs.unseen[0]) == Counter(DECK_LIST)  # before any card is opened
    assert "g2" not in {c for _, c in obs.hand}
    play(state, "g3")
    assert Counter(state.observation(1).unseen[0]) == Counter(DECK_LIST) - Counter(["g3"])


def test_L18_an_empty_pioche_takes_back_the_defausse():
    rng = random.Random(5)
    state = LutinGame().new_initial_state()
    seen = set()
    while not state.is_terminal():
        if state.phase == "choose" and state.queue[0][1] == 0:
            total = [sum(state.pool[s]) + sum(state.defausse[s]) for s in (0, 1)]
            assert total == [25, 25]
            seen.add(sum(state.pool[0]))
        random_step(state, rng)
    assert 25 in seen and seen <= {25, 20, 15, 10, 5}


def test_L31_initiation_joint_shuffles_top_five_no_recycling():
    state = LutinGame("initiation").new_initial_state()
    state.apply("first 0")
    assert state.next_step() == Shuffle("lutin0", parse_action("deal lutin0"))
    rng = random.Random(1)
    state.apply(state.sample_chance(rng))
    state.apply(state.sample_chance(rng))
    assert state.sight()[0] == frozenset(state.hand_pos[0])
    assert [p.index for p in state.hand_pos[1]] == [0, 1, 2, 3, 4]
    assert state.legal_actions(1) == []
    pos = state.hand_pos[0][0]
    assert state.reveals(0, parse_action(f"play {pos}")) == (pos,)
    with pytest.raises(IllegalAction):
        state.reveals(0, parse_action(f"play {state.hand_pos[1][0]}"))  # not its card
    while not state.is_terminal():
        if isinstance(state.next_step(), Reveal):
            assert state.phase == "reveal"
        random_step(state, rng)
    assert state.is_terminal() and state.hands <= 5


def test_L31_a_continuation_on_an_empty_pioche_ends_without_a_winner():
    state = LutinGame("initiation").new_initial_state()
    state.apply("first 0")
    order = " ".join(DECKS[0].cards)
    state.apply(f"deal lutin0 {order}")
    state.apply(f"deal lutin1 {order.replace('lutin0', 'lutin1')}")
    # identical decks in identical order: every combat is equal, every manche continues
    while not state.is_terminal():
        seat = state.current_seat()
        pos = state.hand_pos[seat][0]
        state.apply(f"play {pos}={state.observation(seat).hand[0][1]}")
    assert state.vp == [0, 0] and state.winner is None and state.hands == 5


def test_L31_the_game_ends_on_the_5th_and_last_manche_with_its_final_hp():
    """« La partie s'arrête à la 5ème et dernière manche, quand la pioche est vide »:
    the final state is that manche's, with its HP; no 6th manche is begun (HP 12-12)
    before the empty pioche is noticed. The screen's title reads it too."""
    from trutnet.games.lutin.frontend import LutinFrontend

    fifth = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = LutinGame("initiation").new_initial_state()
        while True:
            before = state.clone()
            random_step(state, rng)
            if state.is_terminal():
                break
        last = state.history()[-1]
        hp = list(before.hp)
        if not isinstance(last, Show):  # the deciding combat, played to the last card
            assert state.last is not None and state.last != before.last
            hp = [max(0, min(12, hp[s] + state.last[3 + s])) for s in range(2)]
        assert state.manche == before.manche <= 5 and state.hands == 5
        assert state.hp == hp, seed
        if state.manche == 5:
            fifth += 1
            assert sum(state.vp) >= 4 and (state.hp[0] != state.hp[1] or sum(state.vp) == 4)
        title = LutinFrontend().title(state.observation(0))
        assert title == f"Lutin & Troll — initiation, manche {before.manche}"
    assert fifth >= 20  # most games run the five manches with no continuation


def test_L32_nothing_is_opened_before_both_hands_are_committed():
    state = LutinGame().new_initial_state()
    state.apply("first 1")
    steps = []
    while state.phase == "choose":
        steps.append(state.next_step())
        state.apply("seal")
    assert [(s.seat, s.label) for s in steps] == [(1, f"hand/{k}") for k in range(5)] + [
        (0, f"hand/{k}") for k in range(5)
    ]
    assert state.next_step() == Turn(1)


def test_L33_every_hand_card_is_public_by_the_end_of_its_manche():
    state = start("g2 g2 g2 g2 nymph", "b6 b5 b4 harpy g8")
    fight(state, "g2", "b6")
    fight(state, "b5", "g2")
    fight(state, "b4", "g2")
    open_all(state)
    record = state.serialise()
    public = LutinGame().replay(["seal" if a.startswith("seal") else a for a in record["actions"]])
    assert public.state_hash() == state.state_hash()  # the log alone shows every card
    register_game(LutinGame)
    assert load_game(record).state_hash() == state.state_hash()
    choose(state, "g3 g3 g3 g4 g4", WEAK)  # the next manche, from what each pioche holds
    assert state.phase == "attack" and state.attacker == 1
