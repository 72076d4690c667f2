"""Scenario tests of the Truco engine against the rulings K1..K31
(``docs/games/truco.md``). Every test is named after the
ruling it checks; refusals are checked for the ruling they cite and for leaving the
state untouched."""

from __future__ import annotations

import pytest

from tests.games.truco.truco_scenarios import card_at, dealt, refused, run, words
from trutnet.engine.api import CHANCE
from trutnet.engine.errors import ConfigError, IllegalAction, NotationError
from trutnet.engine.hidden import JointRandom, Pos, Shuffle
from trutnet.games.truco.rules import Deal, Dealer, Show, TrucoGame, parse_action
from trutnet.games.truco.rules.cards import CARDS, DECK, LEVEL, envido, flor, is_flor
from trutnet.games.truco.rules.setup import deal_positions
from trutnet.games.truco.screen import malas_buenas

# ------------------------------------------------------------------ words and cards


def test_K1_spanish_calls_round_trip_and_french_words_are_refused():
    for text in (
        "quiero",
        "no quiero",
        "real envido",
        "falta envido",
        "vale cuatro",
        "contraflor al resto",
        "con flor me achico",
        "son buenas",
        "mazo",
        "quiero retruco",
        "declare 27",
        "play 7o@12",
        "show @3 @7",
        "discard @9",
    ):
        assert str(parse_action(text)) == text
    for text in ("relance", "ne suit pas", "envido réel", "Quiero", "quiero  retruco"):
        with pytest.raises(NotationError):
            parse_action(text)


def test_K2_forty_cards_and_exact_notation():
    assert len(CARDS) == 40 and len(DECK) == 40
    assert {"1e", "7o", "12c", "10b"} <= set(CARDS)
    for bad in ("8e", "9o", "13c", "1E", "01e", "1 e", "e1"):
        with pytest.raises(NotationError):
            parse_action(f"play {bad}@3")
    for card in CARDS:
        assert str(parse_action(f"play {card}@0")) == f"play {card}@0"


def test_K3_trick_strength_levels():
    order = ["1e", "1b", "7e", "7o", "3c", "2b", "1o", "12e", "11o", "10c", "7c", "6b", "5o", "4e"]
    levels = [LEVEL[c] for c in order]
    assert levels == sorted(levels, reverse=True) and len(set(levels)) == 14
    assert LEVEL["1o"] == LEVEL["1c"] and LEVEL["7c"] == LEVEL["7b"]
    assert LEVEL["3e"] == LEVEL["3o"]


def test_K4_envido_and_flor_values():
    assert envido(["5e", "6e", "7e"]) == 33
    assert envido(["7c", "6c", "5o"]) == 33
    assert envido(["12c", "11c", "3b"]) == 20
    assert envido(["1b", "12b", "5c"]) == 21
    assert envido(["7c", "6o", "5e"]) == 7
    assert envido(["12c", "11o", "10e"]) == 0
    assert is_flor(["5e", "6e", "7e"]) and flor(["5e", "6e", "7e"]) == 38
    assert not is_flor(["5e", "6e", "7o"])


# ------------------------------------------------------------------ seats and the deal


def test_K5_player_counts():
    for n in (2, 3, 4, 6, 8):
        assert TrucoGame(players=n).num_players() == n
    for n in (1, 5, 7, 9):
        with pytest.raises(ConfigError):
            TrucoGame(players=n)


def test_K6_teams_alternate():
    assert TrucoGame(players=4).teams() == ((0, 2), (1, 3))
    assert TrucoGame(players=6).teams() == ((0, 2, 4), (1, 3, 5))
    assert TrucoGame(players=8).teams() == ((0, 2, 4, 6), (1, 3, 5, 7))
    assert TrucoGame(players=3).teams() == ((0,), (1, 2))


def test_K7_first_dealer_drawn_mano_leads_and_the_deal_rotates():
    state = TrucoGame(players=4).new_initial_state()
    step = state.next_step()
    assert isinstance(step, JointRandom) and step.outcomes == tuple(Dealer(s) for s in range(4))
    state.apply(Dealer(2))
    assert state.dealer == 2 and state.mano() == 3
    state = dealt({}, players=4, dealer=2)
    assert state.current_seat() == 3  # the mano leads
    state = run(state, "3: mazo", "0: mazo")  # team 1+3 folded... no: 3 and 1 are a team
    assert state.dealer == 2  # still this hand: seat 1 of team 1 is left
    run(state, "1: mazo")
    assert state.phase == "shuffle" and state.dealer == 3 and state.hand_no == 1


def test_K8_deal_positions_and_a_stock_never_seen():
    state = dealt({0: "1e 2e 3e", 1: "4o 5o 6o"}, players=2, dealer=1)  # mano 0
    assert [p.index for p in state.dealt[0]] == [0, 2, 4]
    assert [p.index for p in state.dealt[1]] == [1, 3, 5]
    assert [state.known[p] for p in state.dealt[0]] == ["1e", "2e", "3e"]
    stock = state.holders()["stock"]
    assert len(stock) == 34 and not any(set(stock) & v for v in state.sight().values())
    fresh = TrucoGame(players=2).new_initial_state()
    fresh.apply(Dealer(0))
    assert fresh.next_step() == Shuffle("spanish40", Deal())


def test_K9_gallo_discards_one_card_never_revealed():
    hands = {0: "1e 2e 3e 4e", 1: "5o 6o 7o", 2: "5c 6c 7c"}
    state = dealt(hands, players=3, dealer=2)  # fixed gallo: seat 0, mano 0
    assert state.phase == "discard" and state.current_seat() == 0
    assert [p.index for p in state.dealt[0]] == deal_positions(3, 2, 0, gallo=0)
    assert len(state.dealt[0]) == 4
    refused(state, "discard @1", "K9")  # not one of the gallo's cards
    discard = parse_action(
        f"discard 4e@{next(p for p in state.dealt[0] if state.known[p] == '4e').index}"
    )
    assert str(state.conceal(0, discard)) == f"discard @{discard.pos.index}"
    assert state.reveals(0, discard) == ()
    state.apply(discard)
    assert str(state.history()[-1].public()) == f"discard @{discard.pos.index}"
    assert state.holders()["discard"] == (discard.pos,) and discard.pos not in state.hands[0]
    assert state.side(0) == 0 and state.side(1) == state.side(2) == 1
    refused(state, f"play 4e@{discard.pos.index}", "K26")


def test_K9_rotating_gallo_is_the_dealer_and_pair_points_go_to_each():
    hands = {1: "1e 2e 3e 4e", 2: "5o 6o 7o", 0: "5c 6c 7c"}
    state = dealt(hands, players=3, dealer=1, gallo="rotating")
    assert state.gallo() == 1 and state.mano() == 2 and len(state.scores) == 3
    run(state, "1: discard " + card_at(state, 1, "4e"))
    run(state, "2: truco", "1: no quiero")  # the pair called, the gallo refused
    assert state.scores == [1, 0, 1]


def test_K10_rotating_gallo_chico_goes_to_the_highest_tie_to_the_mano_side():
    state = dealt({1: "1e 2e 3e 4e"}, players=3, dealer=1, gallo="rotating")
    state.scores = [29, 10, 29]
    run(state, "1: discard " + card_at(state, 1, "4e"), "2: truco", "1: no quiero")
    # seats 0 and 2 both reach 30: the first from the mano (seat 2) wins the chico
    assert state.chicos == [0, 0, 1] and state.scores == [0, 0, 0]


def test_K11_six_players_alternate_redondo_and_pica_pica_until_25():
    state = dealt({}, players=6, dealer=5)
    assert not state.pica and len(state.seg) == 6
    run(state, "0: mazo", "1: mazo", "2: mazo", "3: mazo", "4: mazo")
    state.apply(state.sample_chance(__import__("random").Random(1)))
    assert state.pica and len(state.seg) == 2
    state = dealt({}, players=6, dealer=5)
    state.scores = [25, 0]
    state.chico_hand = 1
    state._start_segments()
    assert not state.pica
    state.scores, state.chico_hand = [15, 15], 1
    state._start_segments()
    assert state.pica
    both = dealt({}, players=6, dealer=5, pica_pica_until="both_buenas")
    both.scores, both.chico_hand = [15, 15], 1
    both._start_segments()
    assert not both.pica


def test_K12_pica_pica_duels_pairs_order_and_falta_of_six():
    state = dealt({}, players=6, dealer=5)
    state.chico_hand = 1
    state._start_segments()
    assert [state.seg, *state.segments] == [[0, 3], [1, 4], [2, 5]]  # mano first
    eight = dealt({}, players=8, dealer=0, pica_pica=True)
    eight.chico_hand = 1
    eight._start_segments()
    assert sorted(map(sorted, [eight.seg, *eight.segments])) == [[0, 3], [1, 6], [2, 5], [4, 7]]
    assert eight.seg[0] == 1  # the duel whose mano comes first from mano 1
    assert state.falta() == 6 and state.resto() == 6
    state.scores = [27, 3]
    assert state.falta() == 6 and state.resto() == 3  # at most 6 (K12)
    state.scores = [0, 0]
    run(
        state,
        "0: falta envido",
        "3: quiero",
        "0: declare " + str(envido(state.known[p] for p in state.dealt[0])),
    )
    assert state.envido_points == 6


# ------------------------------------------------------------------ who acts


def test_K13_one_seat_acts_at_a_time():
    state = dealt({}, players=4, dealer=3)
    assert state.current_seat() == 0
    assert all(state.legal_actions(s) == [] for s in (1, 2, 3))
    assert state.legal_actions(0)


def test_K14_answers_from_the_seat_after_the_bettor_pass_and_the_last_cannot_pass():
    state = dealt({}, players=4, dealer=3)
    run(state, "0: truco")
    assert state.asked == [1, 3]
    assert "paso" in words(state)
    run(state, "1: paso")
    assert "paso" not in words(state)
    refused(state, "paso", "K14")
    run(state, "3: quiero")
    assert state.truco_level == 2 and state.current_seat() == 0


def test_K15_a_seat_sees_its_own_cards_only():
    state = dealt({0: "1e 2e 3e", 2: "4o 5o 6o"}, players=4, dealer=3)
    sight = state.sight()
    assert sight[0] == frozenset(state.dealt[0]) and not sight[0] & sight[2]
    obs = state.observation(0)
    assert {c for _, c in obs.hand} == {"1e", "2e", "3e"}


# ------------------------------------------------------------------ flor


def test_K16_flor_round_first_and_only_a_real_flor():
    state = dealt({0: "1e 2e 3e", 1: "4o 5c 6b"}, players=2, dealer=1, flor=True)
    assert state.phase == "flor" and words(state) == {"flor"}
    refused(state, "no flor", "K16")
    run(state, "0: flor")
    assert words(state) == {"no flor"}
    refused(state, "flor", "K16")
    run(state, "1: no flor")
    assert state.flor_pts == [[0, 3]]
    refused(state, "envido", "K19")  # no envido once a flor is announced
    off = dealt({0: "1e 2e 3e"}, players=2, dealer=1)
    assert off.phase == "play" and "envido" in words(off)


def test_K17_flor_bets_table():
    hands = {0: "1e 2e 3e", 1: "4o 5o 6o"}
    state = run(dealt(hands, players=2, dealer=1, flor=True), "0: flor", "1: flor")
    assert state.phase == "florbet" and state.current_seat() == 1
    run(state, "1: con flor me achico")
    assert state.flor_pts == [[0, 3]]
    state = run(
        dealt(hands, players=2, dealer=1, flor=True),
        "0: flor",
        "1: flor",
        "1: contraflor",
        "0: con flor me achico",
    )
    assert state.flor_pts == [[1, 6]]
    state = run(
        dealt(hands, players=2, dealer=1, flor=True),
        "0: flor",
        "1: flor",
        "1: con flor quiero",
        "0: declare 26",
        "1: declare 35",
    )
    assert state.flor_pts == [[1, 6]]
    state = run(
        dealt(hands, players=2, dealer=1, flor=True),
        "0: flor",
        "1: flor",
        "1: contraflor al resto",
        "0: con flor quiero",
        "0: declare 26",
        "1: declare 35",
    )
    assert state.flor_pts == [[1, 30 + 6]]
    refused(dealt(hands, players=2, dealer=1, flor=True), "con flor quiero", "K17")


# ------------------------------------------------------------------ envido


@pytest.mark.parametrize(
    ("chain", "answer", "points"),
    [
        (["envido"], "quiero", [None, 2]),
        (["envido", "envido"], "quiero", [None, 4]),
        (["envido", "envido", "real envido"], "quiero", [None, 7]),
        (["envido"], "no quiero", [0, 1]),
        (["envido", "envido"], "no quiero", [1, 2]),
        (["envido", "envido", "real envido"], "no quiero", [0, 4]),
        (["real envido", "falta envido"], "no quiero", [1, 3]),
        (["envido", "real envido", "falta envido"], "no quiero", [0, 5]),
    ],
)
def test_K18_envido_chain_points(chain, answer, points):
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)  # 33 against 5
    seat = 0
    for bet in chain:
        run(state, f"{seat}: {bet}")
        seat = 1 - seat
    run(state, f"{seat}: {answer}")
    if answer == "quiero":
        run(state, "0: declare 33", "1: son buenas")
        assert state.envido_pts == [0, points[1]]
    else:
        assert state.envido_pts == points


def test_K18_chain_limits_and_falta_counts_from_the_leader():
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    state.scores = [12, 20]
    run(state, "0: envido", "1: envido")
    refused(state, "envido", "K18")  # at most twice
    run(state, "0: falta envido")
    assert words(state) == {"quiero", "no quiero"}  # falta ends the chain
    run(state, "1: quiero", "0: declare 33", "1: son buenas")
    assert state.envido_pts == [0, 10]
    wins = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1, falta_wins_chico=True)
    run(
        wins,
        "0: falta envido",
        "1: quiero",
        "0: declare 33",
        "1: son buenas",
        "0: show " + card_at(wins, 0, "7e") + " " + card_at(wins, 0, "6e"),
    )
    assert wins.chicos == [1, 0]


def test_K19_envido_window():
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    run(state, "0: " + "play " + card_at(state, 0, "1c"))
    assert "envido" in words(state)  # seat 1 has not played
    run(state, "1: play " + card_at(state, 1, "12b"))
    refused(state, "envido", "K19")  # seat 0 played
    accepted = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    run(accepted, "0: truco", "1: quiero")
    refused(accepted, "envido", "K19")  # after an accepted truco


def test_K20_declarations_strictly_greater_buenas_and_skips():
    state = dealt(
        {0: "7e 1e 12c", 1: "4o 5c 12b", 2: "6o 7o 1b", 3: "6e 3e 5b"}, players=4, dealer=3
    )
    run(state, "0: envido", "1: quiero")
    assert state.phase == "declare" and state.current_seat() == 0
    assert words(state) == {"declare 28"}  # from its own cards, no son buenas first
    run(state, "0: declare 28")
    assert words(state) == {"son buenas"}  # seat 1 has 5: cannot declare it
    refused(state, "declare 5", "K20")
    run(state, "1: son buenas")
    assert state.current_seat() == 3  # seat 2's side holds the best: skipped
    refused(state, "declare 40", "K20")
    assert words(state) == {"declare 29", "son buenas"}
    run(state, "3: declare 29")
    # K20 (amended): seat 2 was passed over while its side held the best; once seat 3
    # beat its side, the turn comes back to it, and its 33 is not lost to a 29.
    assert state.phase == "declare" and state.current_seat() == 2
    assert words(state) == {"declare 33", "son buenas"}
    run(state, "2: declare 33")
    assert state.phase == "play" and state.envido_pts == [0, 2] and state.envido_winner == 2
    assert state.declared == [[0, 28], [1, -1], [3, 29], [2, 33]]
    # K21: at the end only the winning declaration is proved, by its two cards; the
    # beaten 29 and 28 show nothing
    run(state, "0: mazo", "1: mazo", "2: play 1b@10", "3: mazo")
    assert state.phase == "show" and state.provers == [[2, "envido", 33]]
    assert words(state) == {"show 6o@2 7o@6"}
    (show,) = state.legal_actions(2)
    assert {p.index for p in state.reveals(2, state.conceal(2, show))} == {2, 6}
    state.apply(show)
    assert state.scores == [3, 0]  # side 0: the envido's 2 and the hand's 1


def test_K20_a_seat_is_skipped_only_if_its_side_holds_the_best_at_its_turn():
    state = dealt(
        {0: "7e 1e 12c", 1: "4o 6o 12b", 2: "6c 7c 1b", 3: "3e 4e 5b"}, players=4, dealer=3
    )
    run(state, "0: envido", "1: quiero", "0: declare 28", "1: declare 30")
    assert state.current_seat() == 2  # side 0 no longer holds the best: seat 2 declares
    assert words(state) == {"declare 33", "son buenas"}
    run(state, "2: declare 33")
    assert state.current_seat() == 3 and words(state) == {"son buenas"}
    run(state, "3: son buenas")
    assert state.envido_pts == [0, 2] and state.envido_winner == 2


# ------------------------------------------------------------------ showing


def hidden_replica(state, seat):
    """A replica of ``state``'s game that knows only ``seat``'s cards."""
    replica = state.game.new_initial_state()
    for action in state.history():
        replica.apply(action.public())
    for pos in state.dealt[seat]:
        replica.see(pos, state.known[pos])
    return replica


def test_K21_the_winner_shows_only_the_cards_that_prove_it():
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    run(state, "0: envido", "1: quiero", "0: declare 33", "1: son buenas", "0: mazo")
    assert state.phase == "show" and state.current_seat() == 0
    shows = state.legal_actions(0)
    assert [str(state.conceal(0, a)) for a in shows] == [
        "show "
        + " ".join(
            f"@{p.index}"
            for p in sorted(p for p in state.dealt[0] if state.known[p] in ("7e", "6e"))
        )
    ]
    action = shows[0]
    assert set(state.reveals(0, state.conceal(0, action))) == set(action.positions)
    state.apply(action)
    assert state.phase == "shuffle" and state.scores == [2, 1]
    assert not any(p in state.face_up for p in state.dealt[1])  # the loser's stay hidden


def test_K21_a_false_number_is_refused_at_the_show():
    full = dealt({0: "7e 5o 1c", 1: "4o 5c 12b"}, players=2, dealer=1)  # seat 0 has 7
    replica = hidden_replica(full, 1)  # knows seat 1's cards only
    for action in ("envido", "quiero", "declare 33", "son buenas", "mazo"):
        replica.apply(action)
    pair = sorted(full.dealt[0])[:2]
    written = Show(tuple((p, None) for p in pair))
    assert replica.reveals(0, written) == tuple(pair)  # could prove 33, whatever they are
    cards = {p: full.known[p] for p in pair}
    with pytest.raises(IllegalAction) as caught:
        replica.apply(replica.identify(written, cards))
    assert caught.value.rule == "K21"
    refused(replica, str(replica.identify(written, cards)), "K21")


def test_K21_a_hidden_flor_is_caught_when_its_cards_are_face_up():
    full = dealt({0: "4e 5e 1e", 1: "1b 4o 3o"}, players=2, dealer=1, flor=True)
    replica = hidden_replica(full, 1)  # seat 0 says no flor: this replica cannot tell
    run(replica, "0: no flor", "1: no flor")

    def play(seat, card):
        pos = next(p for p in full.dealt[seat] if full.known[p] == card)
        return f"{seat}: play {card}@{pos.index}"

    run(replica, play(0, "4e"), play(1, "1b"), play(1, "4o"), play(0, "5e"))
    assert replica.current_seat() == 0 and replica.results == [1, 0]
    last = next(p for p in full.dealt[0] if full.known[p] == "1e")
    refused(replica, f"play 1e@{last.index}", "K21")


# ------------------------------------------------------------------ truco


def test_K22_truco_steps_raises_by_the_accepting_side_and_refusals():
    state = dealt({}, players=2, dealer=1)
    run(state, "0: truco")
    assert words(state) == {
        "quiero",
        "no quiero",
        "quiero retruco",
        "envido",
        "real envido",
        "falta envido",
    }
    run(state, "1: quiero")
    assert "retruco" not in words(state) and "truco" not in words(state)  # seat 0 called
    run(state, "0: play " + card_at(state, 0, state.known[state.hands[0][0]]))
    assert "retruco" in words(state)  # seat 1's side accepted
    run(state, "1: retruco", "0: no quiero")
    assert state.scores == [0, 2]


def test_K23_quiero_and_raise_in_one_action():
    state = dealt({}, players=2, dealer=1)
    run(state, "0: truco", "1: quiero retruco")
    assert state.truco_level == 2 and state.truco_call == [3, 1] and state.current_seat() == 0
    assert "quiero vale cuatro" in words(state)
    run(state, "0: quiero vale cuatro")
    assert words(state) == {"quiero", "no quiero"}
    run(state, "1: no quiero")
    assert state.scores == [3, 0]


def test_K24_el_envido_esta_primero():
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    run(state, "0: truco", "1: envido")
    assert state.truco_call == [2, 0] and state.current_seat() == 0
    run(state, "0: quiero", "0: declare 33", "1: son buenas")
    assert state.current_seat() == 1 and words(state) >= {"quiero", "no quiero"}
    assert "envido" not in words(state)
    run(state, "1: no quiero")
    assert state.truco_pts == [0, 1]
    caller = dealt({}, players=4, dealer=3)
    run(caller, "0: truco")
    assert caller.current_seat() == 1 and "envido" in words(caller)


# ------------------------------------------------------------------ mazo and tricks


def test_K25_mazo_partners_play_on_and_the_last_fold_ends_the_hand():
    state = dealt({}, players=4, dealer=3)
    run(state, "0: mazo")
    assert state.current_seat() == 1 and 0 in state.folded
    run(state, "1: play " + state.known[state.hands[1][0]] + f"@{state.hands[1][0].index}")
    assert state.current_seat() == 2
    run(state, "2: mazo")
    assert state.phase == "shuffle" and state.scores == [0, 1]
    assert not any(p in state.face_up for p in state.dealt[0])  # never revealed
    accepted = dealt({}, players=2, dealer=1)
    run(accepted, "0: truco", "1: quiero", "0: mazo")
    assert accepted.scores == [0, 2]


def test_K26_pardas_partners_and_who_leads():
    state = dealt(
        {0: "3e 4e 5e", 1: "3o 4o 5o", 2: "1e 6c 7c", 3: "2o 6o 10o"}, players=4, dealer=3
    )
    run(
        state,
        *(
            f"{s}: play {card_at(state, s, c)}"
            for s, c in ((0, "3e"), (1, "3o"), (2, "6c"), (3, "6o"))
        ),
    )
    assert state.results == [-1] and state.turn == 0  # a parda: the leader leads again
    run(
        state,
        *(
            f"{s}: play {card_at(state, s, c)}"
            for s, c in ((0, "4e"), (1, "4o"), (2, "1e"), (3, "2o"))
        ),
    )
    assert state.phase == "shuffle" and state.scores == [1, 0]  # parda then a win (K27)


@pytest.mark.parametrize(
    ("results", "winner"),
    [
        ([0, 0], 0),
        ([0, -1], 0),
        ([-1, 1], 1),
        ([0, 1], None),
        ([-1, -1], None),
        ([0, 1, 1], 1),
        ([1, 0, -1], 1),
        ([-1, -1, 1], 1),
        ([-1, -1, -1], 0),
    ],
)
def test_K27_hand_winner_table(results, winner):
    state = dealt({}, players=2, dealer=1)  # mano 0: side 0
    state.results = results
    assert state._hand_winner() == winner


# ------------------------------------------------------------------ scoring


def test_K28_the_hand_ends_once_envido_reaches_30():
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    state.scores = [28, 3]
    run(state, "0: truco", "1: envido", "0: quiero", "0: declare 33", "1: son buenas")
    assert state.phase == "show"  # the truco call lapses with the hand (K24)
    state.apply(state.legal_actions(0)[0])
    assert state.chicos == [1, 0] and state.scores == [0, 0]


def test_K29_malas_and_buenas():
    assert malas_buenas(23) == "8 buenas"
    assert malas_buenas(15) == "15 malas" and malas_buenas(16) == "1 buena"


def test_K30_chicos_and_the_match():
    state = dealt({}, players=2, dealer=1, chicos=1)
    state.scores = [29, 0]
    run(state, "0: truco", "1: no quiero")
    assert state.is_terminal() and state.winner == 0 and state.returns() == [1.0, 0.0]
    three = dealt({}, players=2, dealer=1)
    three.scores, three.chicos = [29, 0], [0, 0]
    run(three, "0: truco", "1: no quiero")
    assert three.chicos == [1, 0] and not three.is_terminal() and three.current_seat() == CHANCE


def test_K31_options():
    assert TrucoGame(players=6).config_dict() == {
        "players": 6,
        "flor": False,
        "falta_wins_chico": False,
        "pica_pica": True,
        "pica_pica_until": 25,
        "senas": True,
        "senas_catch": 1,
        "chicos": 3,
    }
    for bad in (
        {"players": 2, "senas": False},  # K15: no partner to sign to
        {"players": 4, "senas_catch": 5},
        {"players": 4, "colour": 1},
        {"players": 4, "flor": 1},
        {"players": 4, "chicos": 2},
        {"players": 4, "gallo": "rotating"},
        {"players": 6, "pica_pica_until": 20},
    ):
        with pytest.raises(ConfigError):
            TrucoGame.from_config(bad)
    with pytest.raises(ConfigError, match=r"senas applies to other player counts \(K15\)"):
        TrucoGame(players=2, senas=False)
    assert Pos("spanish40", 3) == parse_action("play @3").pos


def test_KD9_a_void_abandons_the_hand_and_the_same_dealer_deals_again():
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    run(state, "0: envido", "1: quiero", "0: declare 33", "1: son buenas", "0: truco")
    void = state.void_round()
    assert str(void) == "void"
    state.apply(void)
    assert state.phase == "shuffle" and state.dealer == 1 and state.hand_no == 1
    assert state.scores == [0, 0] and not state.holders()
    assert state.next_step() == Shuffle("spanish40", Deal())
    assert state.void_round() is None
    refused(state, "void", "KD9")
    state.apply(Deal(tuple(CARDS)))
    assert state.mano() == 0 and state.current_seat() == 0


def test_K21_a_false_flor_is_refused_at_the_show():
    full = dealt({0: "1e 2e 3o", 1: "4o 5c 12b"}, players=2, dealer=1, flor=True)
    replica = hidden_replica(full, 1)  # cannot tell that seat 0 has no flor
    run(replica, "0: flor", "1: no flor")
    assert replica.flor_pts == [[0, 3]]
    run(replica, "0: mazo")
    assert replica.phase == "show" and replica.provers == [[0, "flor", -1]]
    written = Show(tuple((p, None) for p in sorted(full.dealt[0])))
    assert replica.reveals(0, written) == tuple(sorted(full.dealt[0]))
    shown = replica.identify(written, {p: full.known[p] for p in full.dealt[0]})
    refused(replica, str(shown), "K21")


def test_K15_who_may_sign_to_whom_and_what_a_sign_tells():
    """K15 (amended): with 4 or 6 players a seat signs to the partners of its segment
    while it holds a card, at most three times a hand, not while a bet waits for its
    own answer; each opponent catches it with the chance ``senas_catch`` quarters; the
    menu has flor only with the option flor. Nothing with 2 players, or ``senas`` off."""
    from trutnet.games.truco.rules.cards import sign_for

    state = dealt({}, players=4, dealer=3)
    signs = state.signs(0)
    assert signs is not None and signs.partners == (2,) and set(signs.watchers) == {1, 3}
    assert signs.catch == (1, 4) and signs.limit == 3 and signs.period == state.hand_no
    assert "flor" not in signs.menu.cards and "nada" in signs.menu.cards
    assert all(state.signs(s) is not None for s in range(4))
    run(state, "0: truco")  # the other side answers: it may not sign meanwhile
    assert state.signs(1) is None and state.signs(0) is not None
    flor = dealt({}, players=4, dealer=3, flor=True, senas_catch=3)
    assert "flor" in flor.signs(1).menu.cards and flor.signs(1).catch == (3, 4)
    assert dealt({}, players=4, dealer=3, senas=False).signs(0) is None
    assert dealt({}, players=2).signs(0) is None  # no partner
    six = dealt({}, players=6, dealer=5)
    assert six.signs(0).partners == (2, 4) and six.signs(0).watchers == (1, 3, 5)
    assert sign_for(["1e", "3o", "4c"], False) == "1e"
    assert sign_for(["6c", "5c", "4c"], True) == "flor"  # a flor, no brava
    assert sign_for(["3o", "2c", "4b"], False) == "3"
    assert sign_for(["1o", "4c", "5b"], False) == "1f"
    assert sign_for(["7c", "6c", "4b"], False) == "envido"  # 33
    assert sign_for(["4o", "5c", "6b"], False) == "nada"


def test_K15_what_a_sign_tells_its_reader():
    """K15: a sign tells that its signer holds the brava it names, a card of the rank
    it names, a false ace, a flor, an envido of 30 or more; *nada*, none of those. A
    seat's samples (``determinise``) draw a signer's hidden cards to agree with the
    signs of this hand the seat was shown; a sign of another hand says nothing, and a
    sign that lies (the card is in the reader's own hand) leaves the draw free."""
    import random

    from trutnet.engine.hidden import Told
    from trutnet.games.truco.rules.cards import sign_for, sign_tells

    assert sign_tells(["1e", "4c", "5c"], "1e", False)
    assert not sign_tells(["1b", "4c", "5c"], "1e", False)
    assert sign_tells(["3o", "4c", "5c"], "3", False) and not sign_tells(["2o"], "3", False)
    assert sign_tells(["1c", "4c", "5b"], "1f", False) and not sign_tells(["1e"], "1f", False)
    assert sign_tells(["6c", "5c", "4c"], "flor", True) and not sign_tells(["6c"], "flor", True)
    assert sign_tells(["7c", "6c", "4b"], "envido", False)  # 33
    assert not sign_tells(["7c", "5b", "4o"], "envido", False)  # 7
    assert sign_tells(["4o", "5c", "6b"], "nada", False)
    assert not sign_tells(["3o", "5c", "6b"], "nada", False)  # a three is worth telling

    state = dealt({0: "4o 5c 12b"}, players=4, dealer=3)
    period = state.hand_no

    def partners_cards(told, seed):
        sample = state.determinise(0, random.Random(seed), told)
        return [sample.known[p] for p in sample.dealt[2]]

    for card in ("1e", "3", "envido", "nada"):
        told = [Told(2, period, card)]
        assert all(sign_tells(partners_cards(told, s), card, False) for s in range(30)), card
        assert not all(sign_tells(partners_cards([], s), card, False) for s in range(30)), card
    untold = [partners_cards([], s) for s in range(10)]
    assert [partners_cards([Told(2, period + 1, "1e")], s) for s in range(10)] == untold
    assert sign_for(["4o", "5c", "12b"], False) == "nada"
    lie = dealt({0: "1e 5c 12b"}, players=4, dealer=3)  # the reader holds the 1e
    sample = lie.determinise(0, random.Random(1), [Told(2, period, "1e")])
    assert len(set(sample.known.values())) == 40 and len(sample.dealt[2]) == 3


def test_K15_K20_samples_agree_with_signs_and_declarations_uniformly():
    """A seat's samples of a signer's hand are drawn uniformly among the hands that
    agree with what it was told: a partner that signed "a three" holds two threes as
    often as such hands are among all hands with a three (drawing a three first, then
    the rest, would favour two threes twice over). A declared envido (K20) is drawn
    from the hands worth it (``hands_declaring``), every one of them."""
    import random
    from itertools import combinations
    from math import comb

    from trutnet.engine.hidden import Told
    from trutnet.games.truco.rules.cards import hands_declaring, rank

    state = dealt({0: "4o 5c 12b"}, players=4, dealer=3)
    told = [Told(2, state.hand_no, "3")]
    samples = 1500
    two = 0
    for seed in range(samples):
        sample = state.determinise(0, random.Random(seed), told)
        threes = sum(rank(sample.known[p]) == 3 for p in sample.dealt[2])
        assert threes >= 1
        two += threes >= 2
    # 37 unseen cards, 4 threes: hands with a three, and those with two or more
    with_one = comb(37, 3) - comb(33, 3)
    with_two = comb(4, 2) * 33 + comb(4, 3)
    expected = with_two / with_one  # about 0.14
    assert abs(two / samples - expected) < 0.03, (two / samples, expected)
    every = list(combinations(CARDS, 3))
    for points in (0, 7, 20, 27, 33):
        table = hands_declaring("envido", points)
        assert set(table) == {h for h in every if envido(h) == points}
    assert sum(len(hands_declaring("envido", v)) for v in range(0, 34)) == len(every)
    assert all(is_flor(h) and flor(h) == 38 for h in hands_declaring("flor", 38))
