"""Scenario tests of Trut Deluxe against the rulings T23-T47.

The rules are ``docs/games/trut-deluxe.md``. Each test is named after the ruling it
checks; refusals are checked for the rule id they cite and for leaving the state
untouched.
"""

from __future__ import annotations

import random

import pytest

from tests.engine.hidden_table import GenericTable
from trutnet.engine import load_game
from trutnet.engine.api import CHANCE
from trutnet.engine.errors import ConfigError, IllegalAction
from trutnet.engine.hidden import JointRandom, Locate, Pos, Shuffle
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame, TrutState
from trutnet.games.trut.rules.actions import Prepare, parse_action
from trutnet.games.trut.rules.cards import FULL_DECK, parse_card
from trutnet.games.trut.rules.deluxe.cards import (
    BASIC_LETTERS,
    TABLE,
    Special,
    is_figure,
    is_fox,
    special,
)
from trutnet.games.trut.rules.deluxe.powers import DIE
from trutnet.games.trut.rules.deluxe.rules import effective_values, pool_deck
from trutnet.games.trut.rules.setup import deal_position
from trutnet.games.trut.rules.words import TrutCall

POOL = "A B C D E F G H I J K L M"


def prepared(
    players: int = 2,
    *,
    keep: dict[int, str],
    hands: dict[int, str],
    dealer: int = 0,
    longs: tuple[int, ...] | None = None,
    petits: tuple[int, ...] | None = None,
    pool: str = POOL,
    keep_falcon_step: bool = False,
    variant: str = "classic",
    **options: bool,
) -> TrutState:
    """A Deluxe game whose specials are prepared (each seat keeps the letter given) and
    whose first hand is dealt with the hands given (3 cards, letters allowed)."""
    teams = 2 if players != 3 else 3
    start = StartPosition(longs or (0,) * teams, petits or (0,) * teams, dealer)
    config = TrutConfig(players, variant, deluxe=True, start=start, **options)
    state = TrutGame(config).new_initial_state()
    assert state.phase == "prepare"  # T25: once, before the first deal
    order: list[str | None] = [None] * len(pool.split())
    for seat, letter in keep.items():  # each kept letter at the seat's first pool position
        order[(seat - dealer - 1) % players] = letter
    others = iter(x for x in pool.split() if x not in keep.values())
    order = [x if x is not None else next(others) for x in order]
    state.apply("prepare " + " ".join(order))  # type: ignore[arg-type]
    while state.phase == "choose":
        seat = state.current_seat()
        state.apply(f"keep {keep[seat]}@{order.index(keep[seat])}")
    kept = [keep[s] for s in range(players)]
    deck: list[str | None] = [None] * (32 + len(kept))
    used = []
    for seat, text in hands.items():
        for nth, card in enumerate(text.split()):
            deck[deal_position(players, dealer, seat, nth)] = card
            used.append(card)
    filled = iter(c for c in [*FULL_DECK_TEXT, *kept] if c not in used)
    state.apply("deal " + " ".join(c if c is not None else next(filled) for c in deck))
    while state.phase == "falcon" and not keep_falcon_step:  # T33: the table finds it
        state.apply(state.sample_chance(random.Random(0)))
    return state


FULL_DECK_TEXT = [str(c) for c in FULL_DECK]


def refused(state: TrutState, action: str, rule: str) -> None:
    before = state.state_hash()
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert info.value.rule == rule, info.value
    assert state.state_hash() == before


# ----------------------------------------------------------------------------- T23


def test_T23_options_off_by_default_and_classic_config_unchanged():
    assert TrutConfig().to_dict() == {"players": 4, "variant": "classic", "sum_on_patte": False}
    config = TrutConfig(6, "gatinaise", deluxe=True, bonus_cards=True, michao_hare=True)
    assert TrutConfig.from_dict(config.to_dict()) == config
    decks = ["french32", "specials", "talon", "talon2"]  # T26, T42 (D21)
    assert [d.name for d in TrutGame(config).decks()] == decks
    assert len(TrutGame(TrutConfig()).decks()) == 1
    assert pool_deck(True).cards == tuple("ABCDEFGHIJKLMNOPQR")
    assert pool_deck(False).cards == BASIC_LETTERS


@pytest.mark.parametrize(
    "options",
    [{"bonus_cards": True}, {"michao_hare": True}, {"deluxe": 1}],
)
def test_T23_refuses_bonus_or_hare_without_deluxe_and_non_booleans(options):
    with pytest.raises(ConfigError):
        TrutConfig(**options)


def test_T23_classic_trut_refuses_a_special_card():
    state = TrutGame(TrutConfig(2, start=StartPosition((0, 0), (0, 0), 0))).new_initial_state()
    refused(state, "prepare " + POOL, "T23")
    state.apply("deal " + " ".join(FULL_DECK_TEXT))
    refused(state, "play E@0", "T23")


# ----------------------------------------------------------------------------- T24


def test_T24_figures_are_jqk_and_foxes_are_jacks():
    assert [is_figure(parse_card(c)) for c in ("Jh", "Qs", "Kd", "Ac", "10h")] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert is_fox(parse_card("Jc")) and not is_fox(parse_card("Qc"))
    assert not any(is_figure(special(x)) or is_fox(special(x)) for x in TABLE)


# ----------------------------------------------------------------------------- T25


def test_T25_two_specials_per_seat_in_T4_order_one_kept_by_position():
    state = TrutGame(
        TrutConfig(4, deluxe=True, start=StartPosition((0, 0), (0, 0), 2))
    ).new_initial_state()
    state.apply("prepare " + POOL)
    # T25: pool position k to seat (dealer + 1 + k) % n, two rounds
    assert state.pool_holdings == [[1, 5], [2, 6], [3, 7], [0, 4]]
    assert state.current_seat() == 3  # the Donneur's left chooses first
    refused(state, "keep B@1", "T25")  # not dealt to seat 3
    refused(state, "keep B@0", "T25")  # position 0 holds A
    refused(state, "keep A@0 E@4", "T25")  # one card
    state.apply("keep E@4")
    assert state.history()[-1].public() == parse_action("keep @4")  # a position, never a card
    for action in ("keep B@1", "keep C@2", "keep D@3"):
        state.apply(action)
    assert state.phase == "deal" and state.kept == [4, 1, 2, 3]


def test_T25_the_table_shuffles_the_pool_and_sees_only_its_own_specials():
    game = TrutGame(TrutConfig(2, deluxe=True))
    state = game.new_initial_state()
    rng = random.Random(3)
    while state.phase == "draw":
        state.apply(state.sample_chance(rng))
    step = state.next_step()
    assert isinstance(step, Shuffle) and step.deck == "specials" and step.then == Prepare(None)
    state.apply(state.sample_chance(rng))
    sight = state.sight()
    assert {p.deck for ps in sight.values() for p in ps} == {"specials"}
    assert all(len(ps) == 2 for ps in sight.values())
    assert sight[0].isdisjoint(sight[1])


# ----------------------------------------------------------------------------- T26


def test_T26_the_kept_specials_are_carried_into_the_first_deck():
    state = TrutGame(
        TrutConfig(2, deluxe=True, start=StartPosition((0, 0), (0, 0), 0))
    ).new_initial_state()
    state.apply("prepare " + POOL)
    refused(state, "keep B@1", "T25")  # seat 1 chooses first (T4 order), among 0 and 2
    state.apply("keep A@0")
    state.apply("keep B@1")
    step = state.next_step()
    carry = (Pos("specials", 0), Pos("specials", 1))  # still encrypted, never decrypted
    assert step == Shuffle("french32", parse_action("deal"), carry)
    refused(state, "deal " + " ".join(FULL_DECK_TEXT), "T26")  # 32 cards: the specials lack
    refused(state, "deal " + " ".join([*FULL_DECK_TEXT, "A", "C"]), "T26")  # not the kept ones
    state.apply("deal " + " ".join([*FULL_DECK_TEXT, "A", "B"]))
    assert state.deck_size == 34 and state.stock_left() == 28


def _random_chooser(seed: int):
    rng = random.Random(seed)
    return lambda seat, replica: rng.choice(replica.legal_actions(seat))


def test_T26_hidden_replicas_agree_over_whole_games_from_the_description():
    """The description alone plays whole Deluxe games: every seat's hidden replica has
    the truth's hash at every step; the kept specials are carried into the first deck,
    every later deck is the previous one's ciphertexts re-shuffled into the talon, and
    a carried position is held and known by no one afterwards (GenericTable checks)."""
    for players in (2, 3, 4, 6):
        for variant in ("classic", "gatinaise"):
            game = TrutGame(TrutConfig(players, variant, deluxe=True, bonus_cards=True))
            table = GenericTable(game, players, _random_chooser(players), random.Random(7))
            table.play()
            shuffles = [s for s in table.steps if isinstance(s, Shuffle)]
            assert shuffles[0].deck == "specials" and not shuffles[0].carry
            assert shuffles[1].deck == "french32"
            assert {p.deck for p in shuffles[1].carry} == {"specials"}
            size = 32 + players  # T42: 1 less while the Hedgehog is set aside
            for later in shuffles[2:]:
                decks = {p.deck for p in later.carry}
                assert later.deck in ("talon", "talon2") and len(later.carry) in (size, size - 1)
                if len(decks) == 2:  # the Hedgehog back from an earlier deck, last
                    assert later.carry[-1].deck != later.carry[0].deck


# ------------------------------------------------------------------------ T27, T28


def test_T27_printed_values_table():
    values = {letter: Special(letter).value for letter in TABLE}
    assert values == dict(
        zip(
            "ABCDEFGHIJKLMNOPQR",
            (4, 9, 5, 2, 6, 1, 2, 3, 8, 4, 3, 2, 3, 3, 5, 4, 2, 3),
            strict=True,
        )
    )
    assert special("B").value > max(c.value for c in FULL_DECK)  # the Wolf alone above


def test_T28_strength_is_value_and_a_special_ties_a_normal_card():
    # Falcon (6) against an Ace (6): a patté (T28's own example)
    state = prepared(2, keep={0: "E", 1: "A"}, hands={0: "E 9c 9d", 1: "Ah 10c 10d"})
    state.apply("play E")
    state.apply("play Ah")
    assert state.results == [None]
    # The Wolf (9) beats a seven (8)
    state = prepared(2, keep={0: "B", 1: "A"}, hands={0: "B 9c 9d", 1: "7h 10c 10d"})
    state.apply("play B")
    state.apply("play 7h")
    assert state.results == [0]


# ----------------------------------------------------------------------------- T29


def test_T29_T32_owl_captured_after_a_patte_pays_its_captor():
    # Owl (4) against a Queen (4): a patté; the Owl stays in the game area
    state = prepared(2, keep={0: "A", 1: "B"}, hands={0: "A 7c 9d", 1: "Qh 8c 10d"})
    state.apply("play A")
    state.apply("play Qh")
    assert state.results == [None] and [str(c) for _, _, c in state.area] == ["A", "Qh"]
    state.apply("play 7c")  # the leader after a patté is the first tied card's player
    state.apply("play 8c")
    assert state.hand_number == 1  # T7: a patté, then a won trick, wins the hand
    assert state.petits[0] == 1 + 1  # the Owl's Petit (T32), then the hand's (T11)


# ----------------------------------------------------------------------------- T31


def test_T31_the_boar_makes_a_patte_and_its_player_leads():
    state = prepared(2, keep={0: "B", 1: "C"}, hands={0: "7h 7c 9d", 1: "C 8c 10d"})
    state.apply("play 7h")
    state.apply("play C")
    assert state.results == [None] and state.current_seat() == 1


# ----------------------------------------------------------------------------- T32


def test_T32_chimera_and_snake_give_longs_that_discard_no_petit():
    state = prepared(
        2,
        keep={0: "Q", 1: "D"},
        hands={0: "7h Q 10d", 1: "D 8c 9c"},
        petits=(1, 2),
        pool=POOL + " N O P Q R",
        bonus_cards=True,
    )
    state.apply("play 7h")
    state.apply("play D")
    assert state.longs == [1, 0] and state.petits == [1, 2]  # T45: no discard
    state.apply("play Q")
    state.apply("play 9c")
    assert state.longs == [2, 0] and state.petits == [2, 2]  # Chimera's Long, hand's Petit
    assert state.hand_number == 1


def test_T32_the_snake_adds_a_petit_when_a_trut_runs():
    state = prepared(2, keep={0: "B", 1: "D"}, hands={0: "7h 7c 9d", 1: "D 8c 10d"})
    state.apply("trut")
    state.apply("accept")
    state.apply("play 7h")
    state.apply("play D")
    assert state.longs[0] == 1 and state.petits[0] == 1


# ----------------------------------------------------------------------------- T40


def test_T40_eagle_zeroes_figures_and_trhulhu_hits_opponents():
    team_of = (0, 1, 0, 1)
    trick = [(0, parse_card("Kh")), (1, special("O")), (2, parse_card("9c")), (3, parse_card("Qd"))]
    assert effective_values(trick, team_of) == [0, 5, 1, 0]
    trick = [(0, special("R")), (1, parse_card("7h")), (2, parse_card("8c")), (3, parse_card("Jd"))]
    assert effective_values(trick, team_of) == [3, 5, 7, 0]  # values may go down to 0 and below


def test_T40_trhulhu_decides_a_trick():
    state = prepared(
        2,
        keep={0: "R", 1: "A"},
        hands={0: "R 9c 9d", 1: "Ah 10c 10d"},
        pool=POOL + " N O P Q R",
        bonus_cards=True,
    )
    state.apply("play R")
    state.apply("play Ah")  # 6 - 3 = 3: Trhulhu (3) ties it
    assert state.results == [None]


# ----------------------------------------------------------------------------- T43


def test_T43_robin_captor_doubles_its_won_hand():
    state = prepared(
        2,
        keep={0: "N", 1: "A"},
        hands={0: "7h 7c N", 1: "8h 8c 10d"},
        pool=POOL + " N O P Q R",
        bonus_cards=True,
    )
    state.apply("play 7h")
    state.apply("play 8h")
    state.apply("play N")
    state.apply("play 10d")  # N (3) beats 10 (2): team 0 captures the Robin
    assert state.petits[0] == 2 and state.hand_number == 1  # 1 Petit, doubled


@pytest.mark.parametrize("captor", [0, 1])
def test_T43_T37_5_the_robin_counts_the_weasels_fold_as_a_fold(captor):
    """T43 (amended), T37 outcome 5: the Weasel's target folds its own side's Trut;
    that fold is a hand's result like any other. If the Weasel's side holds the
    captured Robin, its 1 Petit is doubled; if the folding side holds it, that side
    also loses its unprotected Petits and 1 Long. No prize, no other token."""
    state = prepared(
        2,
        keep={0: "H", 1: "N"},
        hands={0: "H Ah 9d", 1: "N 10c 10d"},
        dealer=1,
        longs=(0, 1),
        petits=(0, 2),
        pool=POOL + " N O P Q R",
        bonus_cards=True,
    )
    state.apply("trut")  # seat 1, the target to be, calls this hand's Trut
    state.apply("accept")
    state.apply("play N")
    state.apply("play Ah" if captor == 0 else "play 9d")  # t1: who captures the Robin
    assert state.robin_team == captor
    if captor == 1:
        state.apply("play 10c")  # seat 1 won t1 and leads t2
    for action in ("play H", "target 1", "die 5"):
        state.apply(action)
    assert state.hand_number == 1  # the hand ended at once, by the fold
    ends = [e for e in state.events if e["event"] == "hand_end"]
    assert [(e["result"], e["team"]) for e in ends] == [("fold", 0)]
    robin = [e for e in state.events if e["event"] == "robin"]
    assert robin == [{"event": "robin", "team": captor, "doubled": captor == 0}]
    if captor == 0:
        assert state.petits == [2, 2] and state.longs == [0, 1]  # 1 Petit, doubled
    else:
        assert state.petits == [1, 0] and state.longs == [0, 0]  # 1 Petit; the Robin's loss
    assert not any(e["event"] == "prizes" for e in state.events)


def test_T43_robin_captor_that_loses_loses_its_petits_and_a_long():
    state = prepared(
        2,
        keep={0: "A", 1: "N"},
        hands={0: "7h 7c 9c", 1: "N 8c 10d"},
        longs=(0, 1),
        petits=(0, 2),
        pool=POOL + " N O P Q R",
        bonus_cards=True,
    )
    state.apply("play 9c")
    state.apply("play N")  # team 1 captures the Robin in t1
    state.apply("play 8c")
    state.apply("play 7h")  # t2 to team 0
    state.apply("play 7c")
    state.apply("play 10d")  # t3 to team 0: team 0 wins the hand (T7)
    assert state.hand_number == 1
    assert state.longs == [0, 0] and state.petits == [1, 0]  # 1 Petit; the Robin's losses


# ----------------------------------------------------------------------------- records


def test_deluxe_record_replays_and_notation_round_trips():
    game = TrutGame(TrutConfig(4, "gatinaise", deluxe=True, bonus_cards=True))
    state = game.new_initial_state()
    rng = random.Random(11)
    while not state.is_terminal():
        action = (
            state.sample_chance(rng)
            if state.current_seat() == -1
            else rng.choice(state.legal_actions())
        )
        assert parse_action(str(action)) == action
        state.apply(action)
    again = load_game(state.serialise())
    assert again.state_hash() == state.state_hash()


# ------------------------------------------------------------------- T30, T38-T41, T36


def test_T38_raven_meeting_a_fox_loses_a_die_once():
    state = prepared(2, keep={0: "I", 1: "A"}, hands={0: "I 9c 9d", 1: "Jh 10c 10d"})
    state.apply("play I")
    assert state.phase == "play"  # no Fox yet: no die
    state.apply("play Jh")
    assert state.phase == "die" and state.current_seat() == -1
    refused(state, "play 9c", "chance")  # the die comes first (T30)
    assert state.next_step().label == "die"  # a joint draw (T22)
    state.apply("die 5")  # Raven 8 - 5 = 3 = Jack 3: a patté
    assert state.results == [None]


def test_T39_badger_hits_the_chosen_figure_or_waits_for_one():
    state = prepared(
        4,
        keep={0: "J", 1: "A", 2: "B", 3: "C"},
        hands={0: "J 9c 9d", 1: "Kh 10c 10d", 2: "Qs 8c 8d", 3: "Ac 7c 7d"},
        dealer=3,
    )
    state.apply("play Ac")  # seat 3 leads? the dealer leads (T5)
    state.apply("play J")
    state.apply("die 2")  # no Figure yet: the die waits
    assert state.badger_wait == 2
    state.apply("play Kh")  # the first Figure takes it: 5 - 2 = 3
    assert state.mods == [0, 0, -2] and state.badger_wait is None
    state.apply("play Qs")
    assert state.results == [1]  # the Ace (6) wins for seat 3's team


def test_T39_badger_player_chooses_among_figures_and_refuses_a_non_figure():
    state = prepared(
        4,
        keep={0: "J", 1: "A", 2: "B", 3: "C"},
        hands={0: "J 9c 9d", 1: "Kh 10c 10d", 2: "Qs 8c 8d", 3: "Kc 7c 7d"},
        dealer=1,
    )
    state.apply("play Kh")
    state.apply("play Qs")
    state.apply("play Kc")
    state.apply("play J")
    state.apply("die 3")
    assert state.phase == "power" and state.current_seat() == 0
    refused(state, "hit J", "T39")
    state.apply("hit Kh")  # 5 - 3: the partner's King (seat 3) now wins alone
    assert state.tricks[-1][2] == 3


def test_T40_bat_gives_one_or_passes_and_refuses_itself():
    state = prepared(
        2,
        keep={0: "A", 1: "P"},
        hands={0: "Ah 9c 9d", 1: "P 10c 10d"},
        pool=POOL + " N O P Q R",
        bonus_cards=True,
    )
    state.apply("play Ah")
    state.apply("play P")
    refused(state, "bat P +1", "T40")
    state.apply("bat Ah -1")  # 6 - 1 = 5 > Bat 4... still wins for seat 0
    assert state.results == [0]


def test_T41_jay_fills_an_empty_pot_with_a_die():
    state = prepared(2, keep={0: "K", 1: "A"}, hands={0: "K 7c 9d", 1: "Ah 8c 10d"})
    state.apply("play K")
    state.apply("die 4")
    assert state.jay_pot == 4 and not state.jay_claim


def test_T41_a_jay_on_a_full_pot_gives_it_to_its_captor_without_a_die():
    state = prepared(2, keep={0: "K", 1: "A"}, hands={0: "K 7c 9d", 1: "Ah 8c 10d"})
    state.jay_pot = 2  # as left by an earlier hand's Jay
    state.apply("play K")
    assert state.phase == "play" and state.jay_claim
    state.apply("play 10d")  # Jay 3 > 10 (2): team 0 captures the Jay and the pot
    assert state.petits == [2, 0] and state.jay_pot == 0


def test_T36_magpie_steals_a_petit_else_a_long():
    state = prepared(
        2, keep={0: "G", 1: "A"}, hands={0: "G 7c 9d", 1: "Ah 8c 10d"}, longs=(0, 2), petits=(0, 0)
    )
    state.apply("play G")
    assert state.phase == "power" and state.legal_actions() == [
        parse_action("pass"),
        parse_action("steal"),
    ]
    state.apply("steal")  # no Petit: a Long
    assert state.longs == [1, 1]


# ----------------------------------------------------------------------------- T33


def test_T33_the_falcon_is_shown_first_and_its_holder_sees_his_partner():
    state = prepared(
        4,
        keep={0: "E", 1: "A", 2: "B", 3: "C"},
        hands={0: "E 9c 9d", 1: "Kh 10c 10d", 2: "Qs 8c 8d", 3: "Kc 7c 7d"},
        dealer=3,
        keep_falcon_step=True,
    )
    # Before any card, the table looks for it among every dealt hand position: no
    # seat decides anything, the holder included (T33: not on its honesty).
    assert state.phase == "falcon" and state.current_seat() == CHANCE
    assert state.legal_actions(0) == []
    refused(state, "play E", "chance")
    step = state.next_step()
    hands = sorted(p for h in state.holdings for p in h)
    assert isinstance(step, Locate) and step.card == "E"
    assert step.positions == tuple(Pos("french32", p) for p in hands) and len(hands) == 12
    found = state.identify(step.then, {Pos("french32", 0): "E"})
    assert found == state.sample_chance(random.Random(1)) and str(found) == "falcon E@0"
    assert str(state.identify(step.then, {})) == "falcon none"
    refused(state, "falcon none", "T33")  # a replica that knows it is there
    refused(state, f"falcon E@{state.holdings[2][0]}", "T33")  # not where it is not
    refused(state, "falcon E@31", "T33")  # in no hand
    state.apply("falcon E@0")
    assert state.phase == "play" and state.current_seat() == 3
    partner = {Pos("french32", p) for p in state.holdings[2]}
    assert partner <= state.sight()[0] and not partner & state.sight()[1]
    assert [str(c) for _, c in state.observation(0).falcon_seen] == ["Qs", "8c", "8d"]
    assert state.observation(1).falcon_seen == ()


def test_T33_a_replica_that_knows_no_card_learns_where_the_falcon_is():
    """The table's outcome is the only word on it: a replica that knows none of the
    cards applies it, and then knows the Falcon (public) and nothing else. With 2
    players nobody looks."""
    state = prepared(
        2,
        keep={0: "E", 1: "A"},
        hands={0: "E 9c 9d", 1: "Ah 10c 10d"},
        keep_falcon_step=True,
    )
    blind = TrutGame(state.game.config).new_initial_state()
    for action in state.history():
        blind.apply(action.public())
    assert blind.phase == "falcon" and blind.next_step() == state.next_step()
    outcome = state.sample_chance(random.Random(0))
    at = state.holdings[0][0]
    assert str(outcome) == f"falcon E@{at}"
    for replica in (state, blind):
        replica.apply(outcome)
    assert blind.state_hash() == state.state_hash()
    assert blind.identity_of(Pos("french32", at)) == "E" and len(blind.known) == 1
    assert blind.falcon_holder == 0 and blind.falcon_look == [] and blind.phase == "play"
    assert not blind.sight()[0] - {Pos("french32", p) for p in blind.holdings[0]}


def test_T33_the_falcon_in_no_hand_is_said_so():
    state = prepared(
        4,
        keep={0: "A", 1: "B", 2: "C", 3: "E"},
        hands={0: "9c 9d 9h", 1: "Kh 10c 10d", 2: "Qs 8c 8d", 3: "Kc 7c 7d"},
        keep_falcon_step=True,
    )
    assert str(state.sample_chance(random.Random(0))) == "falcon none"  # in the stock
    refused(state, f"falcon E@{state.holdings[3][0]}", "T33")
    state.apply("falcon none")
    assert state.falcon_holder is None and state.phase == "play" and not state.falcon_look


def test_T33_comes_before_the_answer_to_a_trut_d_office():
    state = prepared(
        4,
        keep={0: "A", 1: "B", 2: "C", 3: "D"},
        hands={0: "9c 9d 9h", 1: "Kh 10c 10d", 2: "Qs 8c 8d", 3: "Kc 7c 7d"},
        petits=(2, 0),
        variant="gatinaise",
        keep_falcon_step=True,
    )
    assert state.trut is not None and state.trut.kind == "office"  # T18
    assert state.phase == "falcon"
    state.apply("falcon none")
    assert state.phase == "answer"


# ----------------------------------------------------------------------------- T34


def test_T34_the_hare_adds_the_next_stock_card_revealed_to_all():
    state = prepared(2, keep={0: "F", 1: "A"}, hands={0: "F 9c 9d", 1: "Ah 10c 10d"})
    state.apply("play F")
    at = state.next_stock
    assert state.phase == "hare" and state.next_step().positions == (Pos("french32", at),)
    card = str(state.known[at])
    refused(state, f"hare {card}@{at + 1}", "T34")  # the next card, no other
    state.apply(f"hare {card}@{at}")
    assert state.next_stock == at + 1 and state.hare_drawn == [at]
    assert state.mods == [state.known[at].value]  # T28: a modifier of the Hare as a whole
    state.apply("play Ah")  # Hare 1 + drawn value against the Ace's 6
    assert at not in state.holdings[0] + state.holdings[1]


# ----------------------------------------------------------------------------- T44


def test_T44_michao_is_a_window_from_the_completing_player_clockwise():
    state = prepared(
        4,
        keep={0: "B", 1: "A", 2: "H", 3: "C"},
        hands={0: "B 9c 9d", 1: "Jh 10c 10d", 2: "H 8c 8d", 3: "Kc 7c 7d"},
        dealer=3,
    )
    state.apply("play Kc")  # the Donneur (seat 3) leads
    state.apply("play B")
    state.apply("play Jh")
    assert state.phase == "play"  # Wolf and Fox: no trio yet
    state.apply("play H")  # the Weasel completes it: seat 2 first, then 3, 0, 1
    assert state.phase == "michao" and state.current_seat() == 2
    refused(state, "steal", "T44")
    state.apply("pass")
    assert state.current_seat() == 3
    state.apply("michao")
    assert state.longs == [0, 1] and state.michao_sung  # 1 Long to seat 3's team
    assert state.phase != "michao"


def test_T44_the_hare_counts_only_with_the_option():
    plain = prepared(2, keep={0: "B", 1: "F"}, hands={0: "B 9c 9d", 1: "F 10c 10d"})
    hare = prepared(
        2, keep={0: "B", 1: "F"}, hands={0: "B 9c 9d", 1: "F 10c 10d"}, michao_hare=True
    )
    for state in (plain, hare):
        state.area = [(0, 40, parse_card("Jc"))]  # a Fox of an earlier patté trick
        state.trick = [(0, 0, special("B")), (1, 1, special("F"))]
    assert not plain._completes_trio(1) and hare._completes_trio(1)


# ----------------------------------------------------------------------------- T35


def test_T35_nutria_even_the_next_stock_card_replaces_it():
    state = prepared(2, keep={0: "L", 1: "A"}, hands={0: "L 9c 9d", 1: "Ah 10c 10d"})
    state.apply("play L")
    state.apply("die 4")
    at = state.next_stock
    assert state.phase == "nutria" and state.next_step().positions == (Pos("french32", at),)
    card = state.known[at]
    state.apply(f"nutria {card}@{at}")
    assert [c for _, _, c in state.trick] == [card]  # the Nutria left the trick
    assert state.nutria_gone == [1] and state.next_stock == at + 1  # seat 0's first card


def test_T35_nutria_odd_two_cards_to_its_player_who_picks_one():
    state = prepared(2, keep={0: "L", 1: "A"}, hands={0: "L 9c 9d", 1: "Ah 10c 10d"})
    state.apply("play L")
    state.apply("die 3")
    a, b = state.nutria_offer
    assert state.phase == "power" and state.current_seat() == 0
    offered = {Pos("french32", a), Pos("french32", b)}
    assert offered <= state.sight()[0] and not offered & state.sight()[1]  # privately
    refused(state, f"pick {state.known[2]}@2", "T35")  # not offered
    state.apply(f"pick {state.known[b]}@{b}")
    assert state.trick[0][1] == b and state.discarded == [a]  # the other, unrevealed


def test_T35_the_replacing_card_lands_with_its_own_effect():
    state = prepared(2, keep={0: "L", 1: "C"}, hands={0: "L 9c 9d", 1: "7h 10c 10d"})
    state.apply("play L")
    state.apply("die 2")
    at = state.next_stock
    state.known[at] = special("C")  # as if the Boar lay there
    state.apply(f"nutria C@{at}")
    state.apply("play 7h")
    assert state.results == [None]  # the Boar's patté (T31), though 7 > Boar's 5


# ----------------------------------------------------------------------------- T37


def weasel(outcome: int | None, players: int = 2, target: int = 1, **kw) -> TrutState:
    """Seat 0 plays the Weasel (dealer 0 leads), names ``target``, and the die shows
    ``outcome`` (None: stop before the die)."""
    state = prepared(players, **kw)
    state.apply("play H")
    assert state.phase == "power" and state.current_seat() == 0  # T30: the target first
    state.apply(f"target {target}")
    assert state.phase == "die" and state.next_step() == JointRandom("die", DIE)
    if outcome is not None:
        state.apply(f"die {outcome}")
    return state


def test_T37_the_target_is_an_opponent_still_in_the_hand():
    state = prepared(
        4,
        keep={0: "H", 1: "A", 2: "B", 3: "C"},
        hands={0: "H 9c 9d", 1: "Kh 10c 10d", 2: "Qs 8c 8d", 3: "Kc 7c 7d"},
        dealer=3,
    )
    state.apply("play Kc")
    state.apply("play H")
    assert [str(a) for a in state.legal_actions()] == ["target 1", "target 3"]
    refused(state, "target 2", "T37")  # a partner
    refused(state, "target 0", "T37")  # himself
    refused(state, "steal", "T37")  # another card's choice
    # 3 players: a seat that folded under T20 is out of the hand
    three = prepared(3, keep={0: "H", 1: "A", 2: "B"}, hands={0: "H 9c 9d", 1: "Kh 10c 10d"})
    three.apply("trut")  # seat 0 calls; seat 1 folds, seat 2 accepts: seat 1 is out
    three.apply("fold")
    three.apply("accept")
    assert three.folded == {1}
    three.apply("play H")
    assert [str(a) for a in three.legal_actions()] == ["target 2"]
    refused(three, "target 1", "T37")


def test_T37_1_exchange_a_chosen_card_for_a_drawn_one_each_seen_by_its_new_owner():
    state = weasel(1, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    mine, theirs = list(state.holdings[0]), list(state.holdings[1])
    assert state.phase == "power" and state.current_seat() == 0
    assert {str(a) for a in state.legal_actions()} == {f"give {state.known[p]}@{p}" for p in mine}
    refused(state, f"give 10c@{theirs[1]}", "T37")  # not in his hand
    refused(state, f"give 9d@{mine[0]}", "T37")  # that position holds 9c
    state.apply(f"give 9c@{mine[0]}")
    assert str(state.history()[-1]) == f"give @{mine[0]}"  # the card is never named
    step = state.next_step()  # T37: a joint draw of one of the target's positions
    assert isinstance(step, JointRandom) and [str(a) for a in step.outcomes] == [
        f"swap @{p}" for p in theirs
    ]
    refused(state, f"swap @{mine[1]}", "T37")
    state.apply(f"swap @{theirs[0]}")
    assert sorted(state.holdings[0]) == sorted([mine[1], theirs[0]])
    assert sorted(state.holdings[1]) == sorted([theirs[1], theirs[2], mine[0]])
    # each card enters its new owner's sight, and nobody else's
    sight = state.sight()
    assert Pos("french32", theirs[0]) in sight[0] and Pos("french32", theirs[0]) not in sight[1]
    assert Pos("french32", mine[0]) in sight[1] and Pos("french32", mine[0]) not in sight[0]
    assert state.phase == "play" and state.current_seat() == 1


def test_T37_1_an_empty_hand_on_either_side_exchanges_nothing():
    # two pattés, then the Weasel is seat 0's last card: nothing to give
    state = prepared(2, keep={0: "H", 1: "A"}, hands={0: "9c 10c H", 1: "9d 10d Ah"})
    for action in ("play 9c", "play 9d", "play 10c", "play 10d", "play H", "target 1"):
        state.apply(action)
    state.apply("die 1")
    assert state.phase == "play" and state.current_seat() == 1 and state.weasel_given is None


def test_T37_2_minus_two_on_the_targets_card_played_before_or_after():
    after = weasel(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Qh 10c 10d"})
    after.apply("play Qh")  # a Queen (4) less 2 loses to the Weasel (3)
    assert after.results == [0]
    before = prepared(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Qh 10c 10d"}, dealer=1)
    before.apply("play Qh")  # the Donneur (seat 1) leads
    before.apply("play H")
    before.apply("target 1")
    before.apply("die 2")
    assert before.results == [0]


def test_T37_3_the_targets_hand_is_replaced_from_the_stock_privately():
    state = weasel(3, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    old = [0, 2, 4]  # seat 1's positions (dealer 0)
    assert state.discarded == old and state.holdings[1] == [6, 7, 8]
    assert state.next_stock == 9
    sight = state.sight()
    assert {Pos("french32", p) for p in (6, 7, 8)} <= sight[1]
    assert not {Pos("french32", p) for p in (6, 7, 8)} & sight[0]
    assert state.holders()["discard"] == tuple(Pos("french32", p) for p in old)  # unrevealed
    # a short stock gives fewer cards
    short = prepared(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    short.next_stock = short.deck_size - 1
    short.apply("play H")
    short.apply("target 1")
    short.apply("die 3")
    assert short.holdings[1] == [short.deck_size - 1] and short.next_stock == short.deck_size


def test_T37_4_a_blind_pick_forces_the_targets_next_card():
    state = weasel(4, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    assert [str(a) for a in state.legal_actions()] == ["force @0", "force @2", "force @4"]
    refused(state, "force @1", "T37")  # seat 0's own card
    state.apply("force @2")
    assert state.forced == {1: 2}
    assert [str(a) for a in state.legal_actions()] == ["play 10c", "trut"]  # T9: Trut first
    refused(state, "play Ah", "T37")
    state.apply("trut")  # he may still call Trut before playing it
    state.apply("accept")
    state.apply("play 10c")
    assert state.forced == {} and state.results == [0]
    # an empty hand: nothing to pick
    empty = prepared(2, keep={0: "H", 1: "A"}, hands={0: "9c 10c H", 1: "9d 10d Ah"})
    for action in ("play 9c", "play 9d", "play 10c", "play 10d"):
        empty.apply(action)
    empty.holdings[1] = []  # as if seat 1 had no card left
    for action in ("play H", "target 1", "die 4"):
        empty.apply(action)
    assert empty.forced == {} and empty.phase != "power"


def test_T37_5_trut_d_office_the_target_calls_and_the_weasels_side_answers():
    state = weasel(5, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    assert state.trut is not None and state.trut.caller == 1 and state.trut.kind == "weasel"
    assert state.phase == "answer" and state.current_seat() == 0  # T10: the Weasel's side
    state.apply("accept")
    assert state.phase == "play" and state.current_seat() == 1  # the trick goes on
    folded = weasel(5, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    folded.apply("fold")  # T11: the caller's side, the target's, scores 1 Petit
    assert folded.petits == [0, 1] and folded.hand_number == 1


def test_T37_T46_5_the_targets_own_trut_folds_the_hand_at_once():
    state = prepared(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "A 10c 10d"}, dealer=1)
    state.apply("trut")  # the target (seat 1) calls this hand's Trut
    state.apply("accept")
    state.apply("play A")  # the Owl lies on the table
    for action in ("play H", "target 1", "die 5"):
        state.apply(action)
    assert state.hand_number == 1 and state.phase == "deal"  # the hand ends at once
    assert state.petits == [1, 0] and state.longs == [0, 0]  # 1 Petit, nothing else
    ends = [e for e in state.events if e["event"] == "hand_end"]
    assert [(e["result"], e["team"]) for e in ends] == [("fold", 0)]
    # T46: the Owl on the table went to nobody (its Petit would be seat 1's)
    assert not any(e["event"] == "prizes" for e in state.events)


def test_T37_5_another_sides_trut_or_la_chanson_nothing_happens():
    state = prepared(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    state.apply("trut")  # seat 0's own side called it
    state.apply("accept")
    for action in ("play H", "target 1", "die 5"):
        state.apply(action)
    assert state.trut.caller == 0 and state.trut.status == "accepted"
    assert state.phase == "play" and state.current_seat() == 1 and state.hand_number == 0
    chanson = prepared(2, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"})
    chanson.trut = TrutCall(None, "chanson", "accepted")  # as after la Chanson (T19)
    for action in ("play H", "target 1", "die 5"):
        chanson.apply(action)
    assert chanson.trut.kind == "chanson" and chanson.phase == "play"


def test_T37_6_the_targets_unprotected_petits_go_to_the_weasels_side():
    state = weasel(6, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"}, petits=(0, 2))
    assert state.petits == [2, 0]
    # T45: one gain, so 1 + 2 Petits convert into a Long and discard every Petit
    conv = weasel(6, keep={0: "H", 1: "A"}, hands={0: "H 9c 9d", 1: "Ah 10c 10d"}, petits=(1, 2))
    assert conv.longs == [1, 0] and conv.petits == [0, 0]


def test_T37_T44_the_weasel_completing_michao_sings_before_its_own_effect():
    state = prepared(
        4,
        keep={0: "B", 1: "A", 2: "H", 3: "C"},
        hands={0: "B 9c 9d", 1: "Jh 10c 10d", 2: "H 8c 8d", 3: "Kc 7c 7d"},
        dealer=3,
    )
    for action in ("play Kc", "play B", "play Jh", "play H"):
        state.apply(action)
    assert state.phase == "michao" and state.current_seat() == 2  # T30: Michao first
    state.apply("michao")
    assert state.phase == "power" and [str(a) for a in state.legal_actions()] == [
        "target 1",
        "target 3",
    ]


# ----------------------------------------------------------------------------- T42


def test_T42_protected_petits_survive_a_truts_long_and_the_hand_sets_it_aside():
    state = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M 9c 9d", 1: "7h 7d 8h"}, petits=(2, 1))
    state.apply("play M")
    assert state.hedgehog_team == 0 and state.observation(1).protected == 0
    state.apply("trut")
    state.apply("accept")
    state.apply("play 7h")  # seat 1 wins trick 1: the Hedgehog is set aside, not captured
    assert state.hedgehog_aside == Pos("french32", 1)
    held = state.holders()
    assert held["hedgehog"] == (Pos("french32", 1),)
    assert Pos("french32", 1) not in held["table"]
    state.apply("play 7d")
    state.apply("play 9c")
    assert state.longs == [0, 1] and state.petits == [2, 0]  # T13: but the protected ones


def test_T42_protection_against_the_magpie_the_weasel_and_the_robin():
    magpie = prepared(2, keep={0: "M", 1: "G"}, hands={0: "M 9c 9d", 1: "G 10c 10d"}, petits=(2, 0))
    magpie.longs = [1, 0]
    magpie.apply("play M")
    magpie.apply("play G")
    magpie.apply("steal")  # protected Petits count as none: the Long goes (T36)
    assert magpie.petits == [2, 0] and magpie.longs == [0, 1]
    weasel_ = prepared(
        2, keep={0: "M", 1: "H"}, hands={0: "M 9c 9d", 1: "H 10c 10d"}, petits=(2, 0)
    )
    for action in ("play M", "play H", "target 0", "die 6"):
        weasel_.apply(action)
    assert weasel_.petits == [2, 0]
    robin = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M 9c 9d", 1: "Ah 10c 10d"}, petits=(2, 0))
    robin.apply("play M")
    robin.robin_team, robin.longs = 0, [1, 0]  # as if team 0 had captured the Robin
    robin._robin_after_hand(1, 1, 0)  # T43: team 0 lost the hand
    assert robin.petits == [2, 0] and robin.longs == [0, 0]


def test_T42_a_conversion_ends_the_protection_first_then_discards():
    state = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M A 9d", 1: "7h 9c 10d"}, petits=(2, 2))
    state.apply("play M")
    state.apply("play 7h")  # seat 1 wins trick 1 and leads
    state.apply("play 9c")
    state.apply("play A")  # the Owl is captured by team 0: 3 Petits make a Long
    assert state.hedgehog_team is None and state.longs == [1, 0]
    assert state.petits == [0, 0]  # both teams' Petits discarded (T45), protection over
    assert [e["event"] for e in state.events if e["event"].startswith("hedgehog")][:3] == [
        "hedgehog",
        "hedgehog_aside",
        "hedgehog_ends",
    ]


def test_T42_set_aside_out_of_the_next_deck_and_back_once_the_protection_ends():
    state = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M 9c 9d", 1: "7h 7d 8h"})
    for action in ("play M", "play 7h", "play 7d", "play 9c"):
        state.apply(action)
    assert state.hand_number == 1 and state.hedgehog_team == 0
    assert state.hedgehog_aside == Pos("french32", 1)
    held = state.holders()  # T42: set aside beside its team's tokens, kept encrypted
    assert held["hedgehog"] == (Pos("french32", 1),)
    assert Pos("french32", 1) not in held["returned"]
    step = state.next_step()  # the next deck does not carry it (D21)
    assert step.deck == "talon" and len(step.carry) == 33  # 32 + 2 kept - the Hedgehog
    assert Pos("french32", 1) not in step.carry
    # hand 2: 33 cards; the Owl captured by team 0 with 2 Petits ends the protection
    state.petits = [2, 0]
    assert state.dealer == 1  # T8: seat 1 won the last trick, it deals and leads
    hands = {1: ["9s", "10s", "Js"], 0: ["A", "Kh", "Qh"]}
    order: list[str | None] = [None] * 33
    for seat, cards in hands.items():
        for nth, card in enumerate(cards):
            order[deal_position(2, 1, seat, nth)] = card
    used = hands[0] + hands[1]
    rest = iter(c for c in [*FULL_DECK_TEXT, "A"] if c not in used)
    state.apply("deal " + " ".join(c if c is not None else next(rest) for c in order))
    assert state.deck_size == 33 and state.hedgehog_aside == Pos("french32", 1)
    while state.phase == "falcon":  # T33: the table finds it (no Falcon here)
        state.apply(state.sample_chance(random.Random(0)))
    state.apply("play 9s")
    state.apply("play A")  # team 0 captures the Owl: 2 + 1 Petits make a Long
    assert state.longs == [1, 0] and state.petits == [0, 0]
    assert state.hedgehog_team is None  # the conversion ended the protection
    rng = random.Random(1)
    while state.phase != "deal":
        chance = state.current_seat() == -1
        state.apply(state.sample_chance(rng) if chance else state.legal_actions()[0])
    step = state.next_step()
    assert step.deck == "talon" and step.carry[-1] == Pos("french32", 1)  # back in
    assert len(step.carry) == 34


def test_T42_D21_a_hedgehog_lying_in_the_talon_sends_the_next_deal_to_talon2():
    state = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M 9c 9d", 1: "7h 7d 8h"})
    state.deck_name = "talon"  # as in a hand after the first
    for action in ("play M", "play 7h", "play 7d", "play 9c"):
        state.apply(action)
    assert state.hedgehog_aside == Pos("talon", 1)
    step = state.next_step()
    assert step.deck == "talon2" and Pos("talon", 1) not in step.carry  # left untouched
    assert state.holders()["hedgehog"] == (Pos("talon", 1),)


# ----------------------------------------------------------------------------- T46


def test_T46_a_fortial_is_judged_at_the_deal_and_a_hand_without_play_acts_no_special():
    # Team 0 reaches 6 Longs and 2 Petits during the hand (the Owl): no Fortial now
    state = prepared(
        2, keep={0: "A", 1: "B"}, hands={0: "A 9c 9d", 1: "9h 10c 10d"}, longs=(6, 0), petits=(1, 0)
    )
    state.apply("play A")
    state.apply("play 9h")
    assert state.longs == [6, 0] and state.petits == [2, 0]
    assert state.phase == "play" and state.fortial_team is None
    # Au Fortial from the deal: everyone passes, the hand ends with no card played
    fortial = prepared(
        2, keep={0: "H", 1: "E"}, hands={0: "H 9c 9d", 1: "E 10c 10d"}, longs=(6, 0), petits=(2, 0)
    )
    assert fortial.phase == "fortial" and fortial.falcon_step != "done"  # T33 waits
    fortial.apply("pass")
    assert fortial.hand_number == 1 and fortial.petits == [2, 1]  # D4: 1 Petit each opponent
    assert not any(e["event"] in ("falcon", "weasel", "die") for e in fortial.events)


# ----------------------------------------------------------------------------- D22


@pytest.mark.parametrize("when", ["first hand", "between hands", "later hand"])
def test_D22_a_void_prepares_the_specials_again_so_nothing_is_carried(when):
    """D16, D22: a replaced seat's key takes every ciphertext with it, so the void leaves
    nothing held and the next step is the pool's shuffle, carrying nothing."""
    state = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M 9c 9d", 1: "7h 7d 8h"})
    state.jay_pot = 3
    state.apply("play M")  # the Hedgehog protects team 0
    if when != "first hand":
        for action in ("play 7h", "play 7d", "play 9c"):
            state.apply(action)
        assert state.phase == "deal" and state.holders()  # the talon to come
    if when == "later hand":
        state.apply(state.sample_chance(random.Random(1)))  # hand 2, from the talon
        assert state.deck_name == "talon"
    tokens = (list(state.longs), list(state.petits))
    dealer = state.dealer
    state.apply(state.void_round())
    assert state.phase == "prepare" and not state.holders()
    assert state.next_step() == Shuffle("specials", Prepare(None))  # nothing carried
    assert (state.longs, state.petits, state.dealer) == (*tokens, dealer)
    assert state.jay_pot == 3 and state.hedgehog_team == 0  # tokens and protection stand
    state.apply("prepare A B C D E F G H I J K L M")
    state.apply("hedgehog M@12")  # T42: the Hedgehog stays aside (its own test below)
    while state.phase == "choose":
        state.apply(state.legal_actions()[0])
    step = state.next_step()  # the first deck again: french32 with the new kept ones
    assert step.deck == "french32" and {p.deck for p in step.carry} == {"specials"}
    assert state.void_round() is not None  # kept specials are encrypted: a void again


@pytest.mark.parametrize("where", ["set aside", "on the table"])
def test_T42_D22_after_a_void_the_hedgehog_stays_aside_while_its_protection_stands(where):
    """T42 (amended): the void prepares the specials again (D22), but a Hedgehog whose
    team is still protected is not among them: the table finds it in the new pool by
    itself (plaintext-equality tests, as the Falcon), keeps it aside, deals the
    specials from the other positions, leaves it out of every deck while the
    protection stands, and carries it back in at the first deal after it ends."""
    state = prepared(2, keep={0: "M", 1: "A"}, hands={0: "M 9c 9d", 1: "7h 7d 8h"})
    state.apply("play M")  # the Hedgehog protects team 0
    if where == "set aside":
        for action in ("play 7h", "play 7d", "play 9c"):
            state.apply(action)
        assert state.hedgehog_aside == Pos("french32", 1)
    state.apply(state.void_round())
    assert state.hedgehog_team == 0 and state.hedgehog_aside is None
    assert state.next_step() == Shuffle("specials", Prepare(None))  # a fresh pool of 13
    refused(state, "prepare A B C D E F G H I J K L", "T23")  # the pool holds it
    state.apply("prepare M A B C D E F G H I J K L")
    assert state.phase == "hedgehog" and state.current_seat() == CHANCE
    step = state.next_step()
    assert step == Locate(
        tuple(Pos("specials", p) for p in range(13)), "M", parse_action("hedgehog none")
    )
    assert state.void_round() is not None  # the pool is encrypted: a void again
    assert state.identify(step.then, {Pos("specials", 0): "M"}) == parse_action("hedgehog M@0")
    refused(state, "hedgehog none", "T42")  # it is in the pool: the table finds it
    refused(state, "hedgehog M@3", "T42")  # a replica that knows the pool
    refused(state, "keep @1", "chance")  # nothing is dealt before it is found
    assert state.sample_chance(random.Random(0)) == parse_action("hedgehog M@0")
    state.apply("hedgehog M@0")
    assert state.hedgehog_aside == Pos("specials", 0) and state.hedgehog_team == 0
    first = (state.dealer + 1) % 2  # T25: from the Donneur's left, two rounds
    assert state.pool_holdings[first] == [1, 3] and state.pool_holdings[1 - first] == [2, 4]
    held = state.holders()
    assert held["hedgehog"] == (Pos("specials", 0),)
    assert Pos("specials", 0) not in held["aside"] + held[0] + held[1]
    assert any(e["event"] == "hedgehog_stays" for e in state.events)
    state.apply("keep A@1" if first == state.current_seat() else "keep B@2")
    state.apply("keep A@1" if first == state.current_seat() else "keep B@2")
    assert sorted(str(c) for c in state._kept_specials()) == ["A", "B"]  # no Hedgehog
    step = state.next_step()
    assert step.deck == "french32" and set(step.carry) == {Pos("specials", 1), Pos("specials", 2)}
    rng = random.Random(3)
    state.apply(state.sample_chance(rng))
    assert state.deck_size == 34 and "M" not in map(str, state.known.values())
    # its team converts 3 Petits: the protection ends; the next deal carries it back in
    state._gain(0, 3, 0)
    assert state.hedgehog_team is None and state.longs == [1, 0]
    while state.phase != "deal":
        chance = state.current_seat() == CHANCE
        state.apply(state.sample_chance(rng) if chance else state.legal_actions()[0])
    step = state.next_step()
    assert step.deck == "talon" and step.carry[-1] == Pos("specials", 0)  # back, last
    assert len(step.carry) == 35
    state.apply(state.sample_chance(rng))
    assert state.deck_size == 35 and "M" in map(str, state.known.values())
    # a card of the deck like the others now: a later void puts it back in the pool
    state.apply(state.void_round())
    state.apply("prepare M A B C D E F G H I J K L")
    assert state.phase == "choose" and sorted(p for h in state.pool_holdings for p in h) == [
        0,
        1,
        2,
        3,
    ]


def test_D22_classic_trut_voids_as_before():
    state = TrutGame(TrutConfig(2, start=StartPosition((0, 0), (0, 0), 0))).new_initial_state()
    assert state.phase == "deal" and state.void_round() is None


# ----------------------------------------------------------------------------- D23


def test_D23_a_start_position_holds_the_hedgehogs_protection_and_sets_it_aside():
    start = StartPosition((0, 0), (2, 0), 0, hedgehog=0)
    config = TrutConfig(2, deluxe=True, start=start)
    assert TrutConfig.from_dict(config.to_dict()) == config  # the format holds it
    assert config.to_dict()["start"]["hedgehog"] == 0
    with pytest.raises(ConfigError):
        TrutConfig(2, start=start)  # classic Trut has no Hedgehog
    with pytest.raises(ConfigError):
        TrutConfig(2, deluxe=True, start=StartPosition((0, 0), (0, 0), 0, hedgehog=2))
    game = TrutGame(config)
    pool = next(d for d in game.decks() if d.name == "specials")
    assert "M" not in pool.cards and len(pool.cards) == 12  # set aside, out of the pool
    assert [d.name for d in game.decks()][-1] == "hedgehog"
    state = game.new_initial_state()
    public = state.public_state()["deluxe"]
    assert public["hedgehog_team"] == 0 and public["hedgehog_fresh"]
    refused(state, "prepare A B C D E F G H I J K L M", "T23")  # no Hedgehog in the pool
    state.apply("prepare A B C D E F G H I J K L")
    state.apply("keep @0")
    state.apply("keep @1")
    rng = random.Random(2)
    state.apply(state.sample_chance(rng))
    assert state.deck_size == 34 and "M" not in map(str, state.known.values())
    # its team converts: the protection ends, and the next talon deal brings it back
    state._gain(0, 1, 0)
    assert state.hedgehog_team is None and state.longs == [1, 0]
    while state.phase != "deal":
        chance = state.current_seat() == -1
        state.apply(state.sample_chance(rng) if chance else state.legal_actions()[0])
    step = state.next_step()
    assert step == Shuffle("hedgehog", parse_action("deal"), step.carry)
    assert len(step.carry) == 34  # the previous deck, and the Hedgehog's own card
    state.apply(state.sample_chance(rng))
    assert state.deck_size == 35 and "M" in map(str, state.known.values())
    assert state.deck_name == "hedgehog" and state.hedgehog_back
    while state.phase != "deal" and not state.is_terminal():
        chance = state.current_seat() == -1
        state.apply(state.sample_chance(rng) if chance else state.legal_actions()[0])
    assert not state.is_terminal()  # a plain card of the deck from now on
    assert state.next_step().deck == "talon" and len(state.next_step().carry) == 35


def test_T33_T37_a_falcon_got_from_the_weasel_is_a_plain_card():
    """The Falcon is found once, at the step (T33); one that changes hands later (a
    Weasel's exchange) is a plain card: no second look, its new holder plays it."""
    state = prepared(2, keep={0: "H", 1: "E"}, hands={0: "H E 9d", 1: "Ah 10c 10d"})
    falcon = next(p for p in state.holdings[0] if str(state.known[p]) == "E")
    assert state.falcon_holder == 0 and state.falcon_at == falcon
    for action in ("play H", "target 1", "die 1", f"give E@{falcon}", "swap @0"):
        state.apply(action)
    assert falcon in state.holdings[1] and state.falcon_holder == 0 and state.falcon_look == []
    assert "play E" in [str(a) for a in state.legal_actions()]
    state.apply(f"play E@{falcon}")
    assert state.results == [1]  # the Falcon (6) beats the Weasel (3)
