"""Scenario tests of the Trut engine against the rulings T1..T21.

The rules are ``docs/games/trut.md`` (T1..T21, D1..D14 and the action notation). Every
test is named after the ruling it checks; refusals are checked for the rule id they
cite and for leaving the state untouched.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable

import pytest

from trutnet.engine.api import CHANCE
from trutnet.engine.errors import ConfigError, IllegalAction
from trutnet.games.trut.rules import (
    StartPosition,
    TrutConfig,
    TrutGame,
    TrutState,
    deck_for_hands,
    teams_for,
)
from trutnet.games.trut.rules.cards import FULL_DECK, RANKS, SUITS, Card, parse_card

# ----------------------------------------------------------------------------- helpers

Step = tuple[int, str]


def new_state(
    hands: dict[int, str],
    *,
    players: int = 2,
    dealer: int = 0,
    longs: Iterable[int] | None = None,
    petits: Iterable[int] | None = None,
    variant: str = "classic",
    sum_on_patte: bool = False,
    stock: str = "",
) -> TrutState:
    """A game started from a given position with the first hand dealt from a known deck."""
    n_teams = len(teams_for(players))
    deck = deck_for_hands(players, dealer, hands, stock)
    start = StartPosition(
        longs=tuple(longs) if longs is not None else (0,) * n_teams,
        petits=tuple(petits) if petits is not None else (0,) * n_teams,
        dealer=dealer,
        deck=deck,
    )
    config = TrutConfig(players=players, variant=variant, sum_on_patte=sum_on_patte, start=start)
    return TrutGame(config).new_initial_state()


def run(state: TrutState, *steps: Step) -> list[dict]:
    """Apply ``(seat, action)`` steps, checking that ``seat`` is the one to act."""
    events: list[dict] = []
    for seat, action in steps:
        assert state.current_seat() == seat, f"{action!r}: {seat} expected, {state.current_seat()}"
        events.extend(state.apply(action))
    return events


def deal_next(state: TrutState, hands: dict[int, str], stock: str = "") -> list[dict]:
    """Deal the next hand (a chance node) with the current dealer and chosen hands."""
    assert state.phase == "deal"
    assert state.current_seat() == CHANCE
    deck = deck_for_hands(state.n, state.dealer, hands, stock)
    return state.apply("deal " + " ".join(str(c) for c in deck))


def refuse(state: TrutState, action: str, rule: str | None) -> IllegalAction:
    """``action`` is refused citing ``rule`` (None: any rule) and changes nothing."""
    before_hash = state.state_hash()
    before_history = len(state.history())
    before_events = len(state.events)
    before_seat = state.current_seat()
    before_tokens = (list(state.longs), list(state.petits))
    with pytest.raises(IllegalAction) as exc:
        state.apply(action)
    if rule is not None:
        assert exc.value.rule == rule, f"{action!r} refused with {exc.value.rule}, not {rule}"
    assert state.state_hash() == before_hash
    assert len(state.history()) == before_history
    assert len(state.events) == before_events
    assert state.current_seat() == before_seat
    assert (state.longs, state.petits) == before_tokens
    return exc.value


def legal(state: TrutState, seat: int | None = None) -> list[str]:
    return [str(a) for a in state.legal_actions(seat)]


def of_kind(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["event"] == kind]


def only(events: list[dict], kind: str) -> dict:
    found = of_kind(events, kind)
    assert len(found) == 1, f"{kind}: {found}"
    return found[0]


def trick(
    number: int, cards: list[list], team: int | None, winner: int | None, by_sum: bool = False
) -> dict:
    return {
        "event": "trick",
        "number": number,
        "cards": cards,
        "team": team,
        "winner": winner,
        "patte": team is None,
        "by_sum": by_sum,
    }


def hand_end(hand: int, result: str, team: int | None, longs: list[int], petits: list[int]) -> dict:
    return {
        "event": "hand_end",
        "hand": hand,
        "result": result,
        "team": team,
        "longs": longs,
        "petits": petits,
    }


def cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def assert_next_hand(state: TrutState, dealer: int, hand_number: int = 1) -> None:
    assert state.phase == "deal"
    assert state.current_seat() == CHANCE
    assert state.dealer == dealer
    assert state.marker == dealer
    assert state.hand_number == hand_number
    assert state.trut is None
    assert state.results == []


# ------------------------------------------------------------------------ T1 cards


STRENGTH_ORDER = ["7", "8", "A", "K", "Q", "J", "10", "9"]  # high to low
PRINTED = {"9": 1, "10": 2, "J": 3, "Q": 4, "K": 5, "A": 6, "8": 7, "7": 8}


def test_T1_deck_strength_order_and_printed_values():
    assert len(FULL_DECK) == 32
    assert len(set(FULL_DECK)) == 32
    assert {c.rank for c in FULL_DECK} == set(RANKS) == set(STRENGTH_ORDER)
    assert {c.suit for c in FULL_DECK} == set(SUITS) == {"c", "d", "h", "s"}
    for suit in SUITS:
        ranked = sorted((c for c in FULL_DECK if c.suit == suit), key=lambda c: -c.strength)
        assert [c.rank for c in ranked] == STRENGTH_ORDER
        strengths = [Card(r, suit).strength for r in STRENGTH_ORDER]
        assert strengths == sorted(set(strengths), reverse=True)  # strictly decreasing
    for rank in RANKS:
        assert len({Card(rank, s).strength for s in SUITS}) == 1  # suits never matter
        assert {Card(rank, s).value for s in SUITS} == {PRINTED[rank]}
    assert parse_card("7h").value == 8
    assert parse_card("9c").value == 1
    assert parse_card("As").value == 6


@pytest.mark.parametrize(
    ("strong", "weak"),
    [*itertools.pairwise(STRENGTH_ORDER), ("7", "9"), ("8", "9"), ("A", "10")],
)
def test_T1_stronger_rank_wins_the_trick_whatever_the_suits(strong, weak):
    # The dealer leads the weaker card; the stronger card of another suit takes the trick.
    state = new_state({0: f"{weak}h 9d 10d", 1: f"{strong}c 9s 10s"})
    events = run(state, (0, f"play {weak}h"), (1, f"play {strong}c"))
    assert only(events, "trick") == trick(1, [[0, f"{weak}h"], [1, f"{strong}c"]], 1, 1)
    assert state.results == [1]
    assert state.current_seat() == 1
    # And the other way round: the stronger card led keeps the trick.
    state = new_state({0: f"{strong}c 9s 10s", 1: f"{weak}h 9d 10d"})
    events = run(state, (0, f"play {strong}c"), (1, f"play {weak}h"))
    assert only(events, "trick") == trick(1, [[0, f"{strong}c"], [1, f"{weak}h"]], 0, 0)


@pytest.mark.parametrize("rank", STRENGTH_ORDER)
def test_T1_same_rank_in_different_suits_ties_into_a_patte(rank):
    fill0, fill1 = ("Jd Qd", "Js Qs") if rank not in ("J", "Q") else ("9d 10d", "9s 10s")
    state = new_state({0: f"{rank}h {fill0}", 1: f"{rank}c {fill1}"})
    events = run(state, (0, f"play {rank}h"), (1, f"play {rank}c"))
    assert only(events, "trick") == trick(1, [[0, f"{rank}h"], [1, f"{rank}c"]], None, None)
    assert state.results == [None]
    assert state.current_seat() == 0  # the first to play a tied strongest card leads


# ------------------------------------------------------------------------ T2 teams


def test_T2_teams_for_2_3_4_6_players():
    assert TrutConfig(players=2).teams == ((0,), (1,))
    assert TrutConfig(players=3).teams == ((0,), (1,), (2,))
    assert TrutConfig(players=4).teams == ((0, 2), (1, 3))
    assert TrutConfig(players=6).teams == ((0, 2, 4), (1, 3, 5))
    for players in (2, 3, 4, 6):
        assert teams_for(players) == TrutConfig(players=players).teams
    with pytest.raises(ConfigError):
        TrutConfig(players=5)
    # Tokens belong to teams: a start position gives one count per team.
    with pytest.raises(ConfigError):
        TrutConfig(
            players=4, start=StartPosition(longs=(0, 0, 0, 0), petits=(0, 0, 0, 0), dealer=0)
        )
    state = new_state({}, players=4)
    assert state.team_of == (0, 1, 0, 1)
    assert state.observation(2).team == 0
    assert state.observation(3).teams == ((0, 2), (1, 3))


def test_T2_left_is_the_next_seat_clockwise():
    # Play goes to the left, i.e. seat + 1: with dealer 3 in 4 players, 3 -> 0 -> 1 -> 2.
    state = new_state(
        {3: "9c 9d 9h", 0: "10c 10d 10h", 1: "Jc Jd Jh", 2: "Qc Qd Qh"}, players=4, dealer=3
    )
    run(state, (3, "play 9c"), (0, "play 10c"), (1, "play Jc"), (2, "play Qc"))
    assert state.results == [0]
    assert state.current_seat() == 2


# ------------------------------------------------------------- T3 first Donneur


def test_T3_first_dealer_is_the_strongest_draw():
    state = TrutGame(TrutConfig(players=2)).new_initial_state()
    assert state.phase == "draw"
    assert state.current_seat() == CHANCE
    events = state.apply("draw 8h")
    assert events == [{"event": "draw", "seat": 0, "card": "8h"}]
    refuse(state, "draw 8h", "T3")  # a card already drawn
    refuse(state, "play 8h", "chance")
    refuse(state, "deal", "T4")
    events = state.apply("draw 7c")
    assert events == [
        {"event": "draw", "seat": 1, "card": "7c"},
        {"event": "first_dealer", "seat": 1},
    ]
    assert (state.phase, state.dealer, state.marker) == ("deal", 1, 1)
    refuse(state, "draw 9c", "T3")  # the draw is over
    deal_next(state, {1: "9c 9d 9h", 0: "10c 10d 10h"})
    assert state.current_seat() == 1  # the first Donneur leads


def test_T3_ties_are_redrawn_among_the_tied_seats_only():
    state = TrutGame(TrutConfig(players=3)).new_initial_state()
    events = []
    for card in ("Ah", "9c", "Ac"):
        events += state.apply(f"draw {card}")
    assert [e["seat"] for e in of_kind(events, "draw")] == [0, 1, 2]
    assert only(events, "draw_tie") == {"event": "draw_tie", "seats": [0, 2]}
    assert state.phase == "draw"
    assert state.draw_contenders == [0, 2]
    refuse(state, "draw Ah", "T3")
    refuse(state, "draw 9c", "T3")
    first = state.apply("draw Kd")
    assert first == [{"event": "draw", "seat": 0, "card": "Kd"}]  # seat 1 is not in it
    second = state.apply("draw 8s")
    assert second == [
        {"event": "draw", "seat": 2, "card": "8s"},
        {"event": "first_dealer", "seat": 2},
    ]
    assert (state.phase, state.dealer, state.marker) == ("deal", 2, 2)


def test_T3_D14_exhausted_draw_restarts_from_a_full_deck_for_the_tied_seats():
    state = TrutGame(TrutConfig(players=2)).new_initial_state()
    events = []
    for rank in RANKS:  # 16 tied rounds use the whole deck
        for suit in SUITS:
            events += state.apply(f"draw {rank}{suit}")
    assert len(of_kind(events, "draw_tie")) == 16
    assert len(of_kind(events, "draw_restart")) == 1
    assert events[-2:] == [{"event": "draw_restart"}, {"event": "draw_tie", "seats": [0, 1]}]
    assert state.phase == "draw"
    state.apply("draw 9h")  # drawn before the restart, back in the full deck
    events = state.apply("draw 10h")
    assert events[-1] == {"event": "first_dealer", "seat": 1}


# -------------------------------------------------------------------------- T4 deal


def test_T4_deal_order_starts_left_of_dealer_one_card_at_a_time():
    hands = {3: "7c 8c 9c", 0: "10c Jc Qc", 1: "Kc Ac 7d", 2: "8d 9d 10d"}
    state = new_state(hands, players=4, dealer=2)
    deck = deck_for_hands(4, 2, hands)
    for k in range(12):
        assert k in state.holdings[(2 + 1 + k) % 4]
    assert state.holdings == [[1, 5, 9], [2, 6, 10], [3, 7, 11], [0, 4, 8]]
    for seat in range(4):
        obs = state.observation(seat)
        assert obs.hand == tuple((p, deck[p]) for p in state.holdings[seat])
        assert obs.my_cards == cards(hands[seat])
        assert obs.stock == 32 - 12
    assert state.next_stock == 12
    refuse(state, "deal", "T4")  # no deal in the middle of a hand


def test_T4_deal_action_and_unknown_deal():
    start = StartPosition(longs=(0, 0), petits=(0, 0), dealer=1)
    state = TrutGame(TrutConfig(players=2, start=start)).new_initial_state()
    assert state.phase == "deal"
    refuse(state, "play 7h", "chance")
    refuse(state, "deal 7c 8c", "T1")  # not a whole deck
    events = deal_next(state, {0: "7c 8c 9c", 1: "10c Jc Qc"})
    assert events[0] == {"event": "deal", "hand": 0, "dealer": 1}
    assert state.holdings == [[0, 2, 4], [1, 3, 5]]
    assert state.hand_of(0) == cards("7c 8c 9c")
    # A networked deal: positions only, no identities known.
    blind = TrutGame(TrutConfig(players=2, start=start)).new_initial_state()
    blind.apply("deal")
    assert blind.holdings == [[0, 2, 4], [1, 3, 5]]
    assert blind.observation(0).hand == ((0, None), (2, None), (4, None))
    assert blind.state_hash() == state.state_hash()


# --------------------------------------------------------------------- T5 leading


def test_T5_dealer_leads_and_any_card_may_be_played():
    hands = {0: "7s 8s 9s", 1: "Ah Kh Qh", 2: "10s Js Qs", 3: "9h 10h Jh"}
    state = new_state(hands, players=4, dealer=2)
    assert state.phase == "play"
    assert state.current_seat() == 2
    assert legal(state) == ["play 10s", "play Js", "play Qs", "trut"]
    assert legal(state, 3) == []
    refuse(state, "play 7s", "T5")  # seat 0's card
    refuse(state, "play 7d", "T5")  # in nobody's hand
    run(state, (2, "play Qs"))
    assert state.current_seat() == 3
    refuse(state, "play Qs", "T5")  # already played
    # No obligation to follow or to overtake: seat 3 plays its weakest card.
    run(state, (3, "play 9h"), (0, "play 8s"), (1, "play Kh"))
    assert state.results == [0]
    assert state.current_seat() == 0


# ----------------------------------------------------------------------- T6 tricks


def test_T6_highest_strength_wins_and_winner_leads():
    hands = {0: "Kh 9d 9s", 1: "Ac 10c Qc", 2: "Jh 10d 10s", 3: "Qh Jd Js"}
    state = new_state(hands, players=4, dealer=0)
    events = run(state, (0, "play Kh"), (1, "play Ac"), (2, "play Jh"), (3, "play Qh"))
    assert only(events, "trick") == trick(1, [[0, "Kh"], [1, "Ac"], [2, "Jh"], [3, "Qh"]], 1, 1)
    assert state.current_seat() == 1
    assert state.leader == 1


def test_T6_partners_tied_win_the_trick():
    hands = {0: "9h 9d 9s", 1: "Ac 10c Qc", 2: "10h 10d 10s", 3: "Ad Jd Js"}
    state = new_state(hands, players=4, dealer=0)
    events = run(state, (0, "play 9h"), (1, "play Ac"), (2, "play 10h"), (3, "play Ad"))
    assert only(events, "trick") == trick(
        1, [[0, "9h"], [1, "Ac"], [2, "10h"], [3, "Ad"]], 1, 1
    )  # first of them wins
    assert state.results == [1]
    assert state.current_seat() == 1


def test_T6_strongest_tied_between_teams_is_patte_and_first_tied_seat_leads():
    hands = {0: "9h 9d 9s", 1: "Ac 10c Qc", 2: "Ah 10d 10s", 3: "10h Jd Js"}
    state = new_state(hands, players=4, dealer=0)
    events = run(state, (0, "play 9h"), (1, "play Ac"), (2, "play Ah"), (3, "play 10h"))
    assert only(events, "trick") == trick(
        1, [[0, "9h"], [1, "Ac"], [2, "Ah"], [3, "10h"]], None, None
    )
    assert state.results == [None]
    assert state.current_seat() == 1  # seat 1 played the first tied Ace
    assert state.marker == 1


def test_T6_partners_and_opponent_all_tied_is_patte():
    hands = {0: "Kh 9d 9s", 1: "Kc 10c Qc", 2: "Ks 10d 10s", 3: "10h Jd Js"}
    state = new_state(hands, players=4, dealer=0)
    events = run(state, (0, "play Kh"), (1, "play Kc"), (2, "play Ks"), (3, "play 10h"))
    assert only(events, "trick")["patte"] is True
    assert state.current_seat() == 0


# -------------------------------------------------------------------- T7 the hand


def test_T7_same_team_t1_and_t2_wins_at_once():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, petits=(1, 0))
    events = run(state, (0, "play 7h"), (1, "play 9h"), (0, "play 7d"), (1, "play 9d"))
    assert len(of_kind(events, "trick")) == 2  # no third trick
    assert only(events, "hand_end") == hand_end(0, "won", 0, [0, 0], [2, 0])
    assert_next_hand(state, dealer=0)
    refuse(state, "play 9c", "chance")


def test_T7_partners_t1_and_t2_win_at_once_4_players():
    hands = {0: "7h Jh Qh", 1: "9c 10c Jc", 2: "10h 8h Kh", 3: "9d 10d Jd"}
    state = new_state(hands, players=4, dealer=0)
    events = run(
        state,
        (0, "play 7h"),
        (1, "play 9c"),
        (2, "play 10h"),
        (3, "play 9d"),
        (0, "play Jh"),
        (1, "play 10c"),
        (2, "play 8h"),
        (3, "play 10d"),
    )
    assert [e["winner"] for e in of_kind(events, "trick")] == [0, 2]
    assert only(events, "hand_end") == hand_end(0, "won", 0, [0, 0], [1, 0])
    assert_next_hand(state, dealer=2)


def test_T7_patte_t2_after_won_t1_ends_the_hand_at_once():
    state = new_state({0: "7h Kh 9c", 1: "9h Ks 10c"})
    events = run(state, (0, "play 7h"), (1, "play 9h"), (0, "play Kh"), (1, "play Ks"))
    assert state.phase == "deal"
    assert of_kind(events, "trick")[-1]["patte"] is True
    assert only(events, "hand_end") == hand_end(0, "won", 0, [0, 0], [1, 0])
    assert_next_hand(state, dealer=0)


def test_T7_patte_t1_then_t2_winner_wins_at_once():
    state = new_state({0: "Kh 9c 10h", 1: "Ks 7c 9d"})
    events = run(state, (0, "play Kh"), (1, "play Ks"))
    assert state.current_seat() == 0
    events += run(state, (0, "play 9c"), (1, "play 7c"))
    assert [e["team"] for e in of_kind(events, "trick")] == [None, 1]
    assert only(events, "hand_end") == hand_end(0, "won", 1, [0, 0], [0, 1])
    assert_next_hand(state, dealer=1)


def test_T7_t1_winner_loses_only_if_other_team_takes_t2_and_t3():
    state = new_state({0: "7h 9c 10c", 1: "9h 7c 8c"})
    events = run(state, (0, "play 7h"), (1, "play 9h"), (0, "play 9c"), (1, "play 7c"))
    assert state.phase == "play"  # t1 A, t2 B: t3 decides
    events += run(state, (1, "play 8c"), (0, "play 10c"))
    assert [e["team"] for e in of_kind(events, "trick")] == [0, 1, 1]
    assert only(events, "hand_end") == hand_end(0, "won", 1, [0, 0], [0, 1])
    assert_next_hand(state, dealer=1)


def test_T7_t1_winner_wins_when_t3_goes_back_to_it():
    state = new_state({0: "7h 9c 8h", 1: "9h 7c 10c"})
    events = run(
        state,
        (0, "play 7h"),
        (1, "play 9h"),
        (0, "play 9c"),
        (1, "play 7c"),
        (1, "play 10c"),
        (0, "play 8h"),
    )
    assert [e["team"] for e in of_kind(events, "trick")] == [0, 1, 0]
    assert only(events, "hand_end") == hand_end(0, "won", 0, [0, 0], [1, 0])
    assert_next_hand(state, dealer=0)


def test_T7_t1_winner_wins_when_t3_is_patte():
    state = new_state({0: "7h 9c Kh", 1: "9h 7c Ks"})
    events = run(
        state,
        (0, "play 7h"),
        (1, "play 9h"),
        (0, "play 9c"),
        (1, "play 7c"),
        (1, "play Ks"),
        (0, "play Kh"),
    )
    assert [e["team"] for e in of_kind(events, "trick")] == [0, 1, None]
    assert only(events, "hand_end") == hand_end(0, "won", 0, [0, 0], [1, 0])
    # D11: the marker went to seat 1, the first to play a tied strongest card in t3.
    assert_next_hand(state, dealer=1)


def test_T7_two_pattes_then_t3_winner_wins():
    state = new_state({0: "Kh Qh 7h", 1: "Ks Qs 9s"})
    events = run(state, (0, "play Kh"), (1, "play Ks"), (0, "play Qh"), (1, "play Qs"))
    assert state.phase == "play"
    events += run(state, (0, "play 7h"), (1, "play 9s"))
    assert [e["team"] for e in of_kind(events, "trick")] == [None, None, 0]
    assert only(events, "hand_end") == hand_end(0, "won", 0, [0, 0], [1, 0])


def test_T7_three_pattes_is_pourrie_same_dealer_deals_again():
    hands = {0: "9c 10d Js", 1: "Kh 9d 10h", 2: "Ks Qh 9h", 3: "10c Qs Jh"}
    state = new_state(hands, players=4, dealer=0, longs=(2, 3), petits=(1, 1))
    events = run(state, (0, "play 9c"), (1, "play Kh"), (2, "play Ks"), (3, "play 10c"))
    assert (state.current_seat(), state.marker) == (1, 1)
    events += run(state, (1, "play 9d"), (2, "play Qh"), (3, "play Qs"), (0, "play 10d"))
    assert (state.current_seat(), state.marker) == (2, 2)
    events += run(state, (2, "play 9h"), (3, "play Jh"), (0, "play Js"), (1, "play 10h"))
    assert [e["patte"] for e in of_kind(events, "trick")] == [True, True, True]
    assert only(events, "hand_end") == hand_end(0, "pourrie", None, [2, 3], [1, 1])
    assert (state.longs, state.petits) == ([2, 3], [1, 1])
    assert_next_hand(state, dealer=0)
    deal_next(state, {0: "7c 8c 9c", 1: "10c Jc Qc", 2: "Kc Ac 7d", 3: "8d 9d 10d"})
    assert state.current_seat() == 0
    assert state.hand_number == 1


def test_T7_pourrie_scores_nothing_even_with_an_accepted_trut():
    state = new_state({0: "Kh Qh Jh", 1: "Ks Qs Js"}, longs=(1, 1), petits=(1, 2))
    events = run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play Kh"),
        (1, "play Ks"),
        (0, "play Qh"),
        (1, "play Qs"),
        (0, "play Jh"),
        (1, "play Js"),
    )
    assert only(events, "hand_end") == hand_end(0, "pourrie", None, [1, 1], [1, 2])
    assert_next_hand(state, dealer=0)


# ------------------------------------------------------------------ T8 the marker


def test_T8_marker_follows_the_lead_and_its_holder_deals_next():
    state = new_state({0: "9h 9d 10c", 1: "7h 7d 8c"})
    assert (state.dealer, state.marker) == (0, 0)
    run(state, (0, "play 9h"), (1, "play 7h"))
    assert (state.dealer, state.marker) == (0, 1)
    run(state, (1, "play 7d"), (0, "play 9d"))
    assert_next_hand(state, dealer=1)
    deal_next(state, {0: "7c 8c 9c", 1: "10c Jc Qc"})
    assert state.holdings == [[0, 2, 4], [1, 3, 5]]  # seat 0 is now left of the dealer
    assert state.current_seat() == 1  # and the new dealer leads
    assert legal(state) == ["play 10c", "play Jc", "play Qc", "trut"]


def test_T8_marker_stays_after_a_fold():
    # The marker moved to seat 1 (t1 winner); seat 0 truts, seat 1 folds: seat 1 deals.
    state = new_state({0: "9h 9d 10c", 1: "7h 8d 8c"})
    run(state, (0, "play 9h"), (1, "play 7h"), (1, "play 8d"), (0, "trut"), (1, "fold"))
    assert (state.longs, state.petits) == ([0, 0], [1, 0])
    assert_next_hand(state, dealer=1)
    # A fold before any trick is over: the marker stays with the dealer, not the caller.
    state = new_state({0: "9h 9d 10c", 1: "7h 8d 8c"})
    run(state, (0, "play 9h"), (1, "trut"), (0, "fold"))
    assert (state.longs, state.petits) == ([0, 0], [0, 1])
    assert_next_hand(state, dealer=0)


# --------------------------------------------------------------------- T9 calling


def test_T9_trut_on_own_turn_before_playing_at_most_once_per_hand():
    state = new_state({0: "7h 8h 9h", 1: "Ac Kc Qc"})
    assert "trut" in legal(state)
    events = run(state, (0, "trut"))
    assert events == [{"event": "trut", "seat": 0, "kind": "call"}]
    assert (state.phase, state.current_seat()) == ("answer", 1)
    refuse(state, "trut", "T9")  # a second Trut while the first is being answered
    events = run(state, (1, "accept"))
    assert events == [
        {"event": "answer", "seat": 1, "word": "accept"},
        {"event": "trut_accepted", "kind": "call"},
    ]
    assert (state.phase, state.current_seat()) == ("play", 0)  # the caller still plays
    assert legal(state) == ["play 7h", "play 8h", "play 9h"]
    refuse(state, "trut", "T9")
    run(state, (0, "play 7h"))
    assert legal(state, 0) == []  # the seat that played cannot act any more
    assert state.observation(0).legal == ()
    assert "trut" not in legal(state)
    refuse(state, "trut", "T9")  # the other team cannot Trut either


def test_T9_partner_cannot_trut_again_4_players():
    hands = {0: "7h 8h 9h", 1: "Ac Kc Qc", 2: "10h Jh Qh", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4)
    run(state, (0, "play 9h"), (1, "trut"), (2, "accept"), (1, "play Qc"))
    assert state.current_seat() == 2
    refuse(state, "trut", "T9")
    run(state, (2, "play 10h"))
    refuse(state, "trut", "T9")  # nor the caller's partner


def test_T9_trut_allowed_until_the_last_card():
    state = new_state({0: "7h 9c 10h", 1: "9h 7c 8c"}, petits=(0, 2))
    run(state, (0, "play 7h"), (1, "play 9h"), (0, "play 9c"), (1, "play 7c"), (1, "play 8c"))
    assert state.current_seat() == 0  # the last card of the hand is still to be played
    assert legal(state) == ["play 10h", "trut"]
    run(state, (0, "trut"), (1, "accept"))
    events = run(state, (0, "play 10h"))
    assert only(events, "hand_end") == hand_end(0, "won", 1, [0, 1], [0, 0])
    assert state.phase == "deal"
    refuse(state, "trut", "chance")  # after the last card nobody can Trut


def test_T9_no_trut_when_not_playing():
    state = new_state({0: "7h 8h 9h", 1: "Ac Kc Qc"}, longs=(6, 0), petits=(2, 0))
    assert state.phase == "fortial"
    run(state, (0, "trut"))
    refuse(state, "trut", "T9")  # the Fortial Trut is the hand's Trut
    run(state, (1, "accept"))
    assert state.phase == "play"
    refuse(state, "trut", "T9")


# -------------------------------------------------------------------- T10 answers


def test_T10_4_players_first_accept_accepts_for_the_team():
    hands = {0: "7h 8h 9h", 1: "Ac Kc Qc", 2: "10h Jh Qh", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4)
    run(state, (0, "trut"))
    assert state.queue == [1, 3]
    refuse(state, "play Ac", "T10")  # no card while an answer is pending
    refuse(state, "pass", "T10")
    events = run(state, (1, "accept"))
    assert of_kind(events, "answer") == [{"event": "answer", "seat": 1, "word": "accept"}]
    assert state.trut.status == "accepted"
    assert state.trut.accepted_by == [1]
    assert state.trut.folded_by == []
    assert (state.phase, state.current_seat()) == ("play", 0)  # seat 3 is not asked


def test_T10_4_players_team_folds_only_if_both_fold():
    hands = {0: "7h 8h 9h", 1: "Ac Kc Qc", 2: "10h Jh Qh", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4)
    run(state, (0, "trut"), (1, "fold"))
    assert (state.phase, state.current_seat()) == ("answer", 3)
    assert state.trut.status == "pending"
    run(state, (3, "accept"))
    assert state.trut.status == "accepted"
    assert (state.trut.accepted_by, state.trut.folded_by) == ([3], [1])
    # The seat that said "Je me couche" still plays: its team accepted.
    run(state, (0, "play 7h"))
    assert state.current_seat() == 1
    run(state, (1, "play Ac"), (2, "play 10h"), (3, "play Ad"))
    assert state.results == [0]

    state = new_state(hands, players=4)
    events = run(state, (0, "trut"), (1, "fold"), (3, "fold"))
    assert only(events, "hand_end") == hand_end(0, "fold", 0, [0, 0], [1, 0])
    assert_next_hand(state, dealer=0)


def test_T10_answers_go_clockwise_from_the_caller():
    hands = {0: "7h 8h 9h", 1: "Ac Kc Qc", 2: "10h Jh Qh", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4)
    run(state, (0, "play 9h"), (1, "play Qc"), (2, "play Qh"), (3, "trut"))
    assert state.queue == [0, 2]
    assert state.current_seat() == 0
    run(state, (0, "fold"))
    assert state.current_seat() == 2
    events = run(state, (2, "fold"))
    assert only(events, "hand_end") == hand_end(0, "fold", 1, [0, 0], [0, 1])


def test_T10_6_players_every_seat_of_the_team_must_fold():
    hands = {
        0: "7h 8h 9h",
        1: "Ac Kc Qc",
        2: "10h Jh Qh",
        3: "Ad Kd Qd",
        4: "7s 8s 9s",
        5: "As Ks Qs",
    }
    state = new_state(hands, players=6)
    run(state, (0, "play 9h"), (1, "trut"))
    assert state.queue == [2, 4, 0]
    run(state, (2, "fold"), (4, "fold"))
    assert state.phase == "answer"
    events = run(state, (0, "fold"))
    assert only(events, "hand_end") == hand_end(0, "fold", 1, [0, 0], [0, 1])


def test_T10_3_players_each_opponent_answers_for_himself():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c", 2: "10h 10d Jc"}, players=3)
    run(state, (0, "trut"))
    assert state.queue == [1, 2]
    run(state, (1, "accept"))
    assert (state.phase, state.current_seat()) == ("answer", 2)  # still asked
    run(state, (2, "accept"))
    assert (state.phase, state.current_seat()) == ("play", 0)
    assert state.trut.accepted_by == [1, 2]

    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c", 2: "10h 10d Jc"}, players=3)
    events = run(state, (0, "trut"), (1, "fold"), (2, "fold"))
    # Seed, 3 players: both fold, the caller scores 2 Petits.
    assert only(events, "hand_end") == hand_end(0, "fold", 0, [0, 0, 0], [2, 0, 0])
    assert_next_hand(state, dealer=0)


# ----------------------------------------------------------------------- T11 fold


def test_T11_fold_scores_a_petit_and_reveals_no_unplayed_card():
    hands = {0: "7h 8d As", 1: "9h Jc Qc"}
    unplayed = ["8d", "As", "Jc", "Qc"]
    start = StartPosition(longs=(0, 0), petits=(0, 1), dealer=0)
    full = TrutGame(TrutConfig(players=2, start=start)).new_initial_state()
    deal_next(full, hands)
    # A replica that knows no card at all (networked play) follows the same actions.
    blind = TrutGame(TrutConfig(players=2, start=start)).new_initial_state()
    blind.apply("deal")
    assert full.state_hash() == blind.state_hash()
    for full_action, blind_action in [
        ("play 7h", "play 7h@1"),
        ("play 9h", "play 9h@0"),
        ("trut", "trut"),
    ]:
        full.apply(full_action)
        blind.apply(blind_action)
        assert full.state_hash() == blind.state_hash()
    public = json.dumps(full.public_state())
    assert [t["cards"] for t in full.public_state()["tricks"]] == [[[0, 1, "7h"], [1, 0, "9h"]]]
    for card in unplayed:
        assert f'"{card}"' not in public
    events = full.apply("fold")
    blind.apply("fold")
    assert full.state_hash() == blind.state_hash()
    assert events == [
        {"event": "answer", "seat": 1, "word": "fold"},
        hand_end(0, "fold", 0, [0, 0], [1, 1]),
    ]
    assert full.trut is None
    public = json.dumps(full.public_state())
    for card in unplayed:
        assert f'"{card}"' not in public
    every_event = json.dumps(full.events)
    for card in unplayed:
        assert f'"{card}"' not in every_event
    assert all(full.observation(s).hand == () for s in (0, 1))
    assert_next_hand(full, dealer=0)


def test_T11_fold_third_petit_becomes_a_long():
    state = new_state({0: "7h 8d As", 1: "9h Jc Qc"}, longs=(2, 1), petits=(2, 1))
    events = run(state, (0, "trut"), (1, "fold"))
    assert only(events, "hand_end") == hand_end(0, "fold", 0, [3, 1], [0, 0])


# --------------------------------------------------------------- T12 accepted Trut


def test_T12_accepted_trut_winner_scores_a_long_losers_lose_petits():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, longs=(1, 2), petits=(1, 2))
    events = run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play 7h"),
        (1, "play 9h"),
        (0, "play 7d"),
        (1, "play 9d"),
    )
    assert only(events, "hand_end") == hand_end(0, "won", 0, [2, 2], [0, 0])
    assert_next_hand(state, dealer=0)


def test_T12_caller_who_loses_gives_the_long_to_the_other_team():
    state = new_state({0: "9h 9d 10c", 1: "7h 7d 9c"}, longs=(0, 0), petits=(2, 1))
    events = run(
        state,
        (0, "play 9h"),
        (1, "play 7h"),
        (1, "play 7d"),
        (0, "trut"),
        (1, "accept"),
        (0, "play 9d"),
    )
    assert only(events, "hand_end") == hand_end(0, "won", 1, [0, 1], [0, 0])
    assert_next_hand(state, dealer=1)


def test_T12_3_players_both_accepted_winner_scores_two_longs():
    state = new_state(
        {0: "9h 9d 10c", 1: "7h 7d 9c", 2: "10h 10d Jc"},
        players=3,
        longs=(1, 2, 0),
        petits=(1, 2, 1),
    )
    events = run(
        state,
        (0, "trut"),
        (1, "accept"),
        (2, "accept"),
        (0, "play 9h"),
        (1, "play 7h"),
        (2, "play 10h"),
        (1, "play 7d"),
        (2, "play 10d"),
        (0, "play 9d"),
    )
    assert only(events, "hand_end") == hand_end(0, "won", 1, [1, 4, 0], [0, 0, 0])
    assert_next_hand(state, dealer=1)


def test_T12_D6_3_players_double_long_stops_at_the_target():
    state = new_state(
        {0: "7h 7d 9c", 1: "9h 9d 10c", 2: "10h 10d Jc"},
        players=3,
        longs=(6, 0, 0),
        petits=(0, 1, 0),
    )
    events = run(
        state,
        (0, "trut"),
        (1, "accept"),
        (2, "accept"),
        (0, "play 7h"),
        (1, "play 9h"),
        (2, "play 10h"),
        (0, "play 7d"),
        (1, "play 9d"),
        (2, "play 10d"),
    )
    assert state.longs == [7, 0, 0]
    assert state.phase == "over"
    assert events[-1] == {"event": "game_end", "winner": 0}


# --------------------------------------------------------------------- T13 tokens


def test_T13_third_petit_becomes_a_long_and_discards_every_petit():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, longs=(0, 0), petits=(2, 1))
    events = run(state, (0, "play 7h"), (1, "play 9h"), (0, "play 7d"), (1, "play 9d"))
    assert only(events, "hand_end") == hand_end(0, "won", 0, [1, 0], [0, 0])
    assert (state.longs, state.petits) == ([1, 0], [0, 0])


def test_T13_long_by_trut_discards_the_winners_petits_too():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, longs=(0, 0), petits=(2, 2))
    events = run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play 7h"),
        (1, "play 9h"),
        (0, "play 7d"),
        (1, "play 9d"),
    )
    assert only(events, "hand_end") == hand_end(0, "won", 0, [1, 0], [0, 0])


def test_T13_4_players_petit_to_long_clears_the_other_team():
    hands = {0: "9c 9d 9h", 1: "7c 7d 10h", 2: "10c 10d Jh", 3: "Jc Jd Qh"}
    state = new_state(hands, players=4, longs=(3, 1), petits=(1, 2))
    events = run(
        state,
        (0, "play 9c"),
        (1, "play 7c"),
        (2, "play 10c"),
        (3, "play Jc"),
        (1, "play 7d"),
        (2, "play 10d"),
        (3, "play Jd"),
        (0, "play 9d"),
    )
    assert only(events, "hand_end") == hand_end(0, "won", 1, [3, 2], [0, 0])


# ------------------------------------------------------------------ T14 game end


def test_T14_game_ends_at_seven_longs():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, longs=(6, 5), petits=(0, 2))
    events = run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play 7h"),
        (1, "play 9h"),
        (0, "play 7d"),
        (1, "play 9d"),
    )
    assert events[-2:] == [
        hand_end(0, "won", 0, [7, 5], [0, 0]),
        {"event": "game_end", "winner": 0},
    ]
    assert state.phase == "over"
    assert state.is_terminal()
    assert state.winner == 0
    assert state.returns() == [1.0, 0.0]
    assert state.current_seat() is None
    assert state.legal_actions() == []
    for action in ("play 9c", "trut", "deal", "accept", "draw 7c"):
        refuse(state, action, "T14")
    deck = deck_for_hands(2, 0, {})
    refuse(state, "deal " + " ".join(str(c) for c in deck), "T14")


def test_T14_returns_for_a_team_of_four():
    hands = {0: "9h 9d 10h", 1: "7h 7d Jc", 2: "10d Jh Jd", 3: "8h 8d Qc"}
    state = new_state(hands, players=4, longs=(0, 6), petits=(1, 0))
    run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play 9h"),
        (1, "play 7h"),
        (2, "play 10d"),
        (3, "play 8h"),
        (1, "play 7d"),
        (2, "play Jh"),
        (3, "play 8d"),
        (0, "play 9d"),
    )
    assert (state.phase, state.winner, state.longs) == ("over", 1, [0, 7])
    assert state.returns() == [0.0, 1.0, 0.0, 1.0]


def test_T14_no_game_end_before_the_target():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, longs=(5, 0))
    run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play 7h"),
        (1, "play 9h"),
        (0, "play 7d"),
        (1, "play 9d"),
    )
    assert (state.phase, state.winner, state.longs) == ("deal", None, [6, 0])
    assert state.returns() == [0.0, 0.0]


# -------------------------------------------------------------------- T15 Fortial


def test_T15_fortial_all_pass_gives_the_opponents_a_petit_without_play():
    state = new_state({0: "7h 8h 9h", 1: "Ac Kc Qc"}, longs=(6, 0), petits=(2, 0))
    assert {"event": "fortial", "team": 0} in state.events
    assert (state.phase, state.current_seat(), state.fortial_team) == ("fortial", 0, 0)
    assert state.observation(0).hand == (
        (1, parse_card("7h")),
        (3, parse_card("8h")),
        (5, parse_card("9h")),
    )
    blind = state.observation(1)
    assert [card for _, card in blind.hand] == [None, None, None]
    assert [pos for pos, _ in blind.hand] == [0, 2, 4]
    assert blind.my_cards == []
    assert all(c is None for _, c in blind.to_dict()["hand"])
    assert legal(state) == ["trut", "pass"]
    refuse(state, "play 7h", "T15")
    refuse(state, "accept", "T15")
    refuse(state, "sing", "T15")
    events = run(state, (0, "pass"))
    assert of_kind(events, "play") == []
    assert events == [
        {"event": "fortial_decision", "seat": 0, "word": "pass"},
        hand_end(0, "fortial_pass", None, [6, 0], [2, 1]),
    ]
    assert_next_hand(state, dealer=0)


def test_T15_fortial_4_players_decide_in_order_from_the_leader():
    hands = {0: "7h 8h 9h", 1: "Ac Kc Qc", 2: "10h Jh Qh", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4, dealer=1, longs=(6, 2), petits=(2, 0))
    assert state.phase == "fortial"
    assert state.current_seat() == 2  # Fortial seats from the leader (seat 1): 2, then 0
    for seat in (1, 3):
        assert all(card is None for _, card in state.observation(seat).hand)
    for seat in (0, 2):
        assert state.observation(seat).my_cards == cards(hands[seat])
    run(state, (2, "pass"))
    assert (state.phase, state.current_seat()) == ("fortial", 0)
    for seat in (1, 3):
        assert all(card is None for _, card in state.observation(seat).hand)
    events = run(state, (0, "pass"))
    assert only(events, "hand_end") == hand_end(0, "fortial_pass", None, [6, 2], [2, 1])
    assert_next_hand(state, dealer=1)


def test_T15_fortial_pass_third_petit_of_the_opponents_makes_a_long():
    state = new_state({0: "7h 8h 9h", 1: "Ac Kc Qc"}, longs=(6, 0), petits=(2, 2))
    events = run(state, (0, "pass"))
    assert only(events, "hand_end") == hand_end(0, "fortial_pass", None, [6, 1], [0, 0])


def test_T15_D4_3_players_fortial_pass_each_opponent_scores():
    state = new_state(
        {0: "7h 8h 9h", 1: "Ac Kc Qc", 2: "Ad Kd Qd"}, players=3, longs=(6, 0, 1), petits=(2, 1, 0)
    )
    assert all(card is None for _, card in state.observation(1).hand)
    assert all(card is None for _, card in state.observation(2).hand)
    events = run(state, (0, "pass"))
    assert only(events, "hand_end") == hand_end(0, "fortial_pass", None, [6, 0, 1], [2, 2, 1])


def test_T15_fortial_trut_opponents_answer_then_play_accepted():
    hands = {0: "9h 9d 9s", 1: "7c 7d Qc", 2: "10h 10d 10s", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4, dealer=1, longs=(6, 2), petits=(2, 1))
    run(state, (2, "pass"))
    events = run(state, (0, "trut"))
    assert events == [
        {"event": "fortial_decision", "seat": 0, "word": "trut"},
        {"event": "trut", "seat": 0, "kind": "fortial"},
    ]
    assert state.trut.kind == "fortial"
    assert (state.phase, state.queue) == ("answer", [1, 3])
    for seat in (1, 3):  # the decision is over: the opponents see their cards
        assert state.observation(seat).my_cards == cards(hands[seat])
    refuse(state, "play 7c", "T10")
    run(state, (1, "accept"))
    assert (state.phase, state.current_seat()) == ("play", 1)  # the dealer leads
    refuse(state, "trut", "T9")
    events = run(
        state,
        (1, "play 7c"),
        (2, "play 10h"),
        (3, "play Ad"),
        (0, "play 9h"),
        (1, "play 7d"),
        (2, "play 10d"),
        (3, "play Kd"),
        (0, "play 9d"),
    )
    # The Fortial team lost an accepted Trut: 1 Long to the opponents, Petits gone.
    assert only(events, "hand_end") == hand_end(0, "won", 1, [6, 3], [0, 0])
    assert_next_hand(state, dealer=1)


def test_T15_fortial_trut_fold_ends_the_game():
    state = new_state({0: "9h 9d 9s", 1: "7c 7d 7s"}, longs=(6, 3), petits=(2, 1))
    events = run(state, (0, "trut"), (1, "fold"))
    assert events[-2:] == [
        hand_end(0, "fold", 0, [7, 3], [0, 0]),
        {"event": "game_end", "winner": 0},
    ]
    assert (state.phase, state.winner) == ("over", 0)
    assert state.returns() == [1.0, 0.0]
    refuse(state, "play 7c", "T14")


def test_T15_fortial_trut_won_wins_the_game():
    state = new_state({0: "7h 7d 9s", 1: "9c 9d 10s"}, longs=(6, 3), petits=(2, 1))
    run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play 7h"),
        (1, "play 9c"),
        (0, "play 7d"),
        (1, "play 9d"),
    )
    assert (state.phase, state.winner, state.longs) == ("over", 0, [7, 3])


# ------------------------------------------------------------- T16 both au Fortial


def test_T16_both_teams_au_fortial_play_normally():
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, longs=(6, 6), petits=(2, 2))
    assert (state.phase, state.current_seat()) == ("play", 0)
    assert state.fortial_team is None
    assert not of_kind(state.events, "fortial")
    assert state.observation(1).my_cards == cards("9h 9d 10c")
    assert legal(state) == ["play 7h", "play 7d", "play 9c", "trut"]
    events = run(state, (0, "play 7h"), (1, "play 9h"), (0, "play 7d"), (1, "play 9d"))
    # A single Petit is the winner's third: a Long, and the game.
    assert events[-2:] == [
        hand_end(0, "won", 0, [7, 6], [0, 0]),
        {"event": "game_end", "winner": 0},
    ]
    assert (state.phase, state.winner) == ("over", 0)


def test_T16_both_au_fortial_trut_works_as_usual():
    hands = {0: "9h 9d 9s", 1: "7c 7d 7s", 2: "10h 10d 10s", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4, longs=(6, 6), petits=(2, 2))
    assert state.phase == "play"
    run(state, (0, "play 9h"), (1, "trut"), (2, "fold"))
    assert state.current_seat() == 0
    events = run(state, (0, "fold"))
    assert events[-1] == {"event": "game_end", "winner": 1}
    assert state.longs == [6, 7]


def test_T16_both_au_fortial_gatinaise_is_no_chanson():
    state = new_state(
        {0: "7h 7d 9c", 1: "9h 9d 10c"}, variant="gatinaise", longs=(4, 4), petits=(2, 2)
    )
    assert (state.phase, state.current_seat()) == ("play", 0)
    assert state.singer is None
    assert state.trut is None


# ------------------------------------------------------------------ T17 Gâtinaise


def test_T17_gatinaise_target_is_five_longs():
    assert TrutConfig(variant="gatinaise").target == 5
    assert TrutConfig(variant="classic").target == 7
    with pytest.raises(ConfigError):
        TrutConfig(
            players=2,
            variant="gatinaise",
            start=StartPosition(longs=(5, 0), petits=(0, 0), dealer=0),
        )
    state = new_state({0: "7h 7d 9c", 1: "9h 9d 10c"}, variant="gatinaise", longs=(4, 3))
    assert state.observation(0).target == 5
    events = run(
        state,
        (0, "trut"),
        (1, "accept"),
        (0, "play 7h"),
        (1, "play 9h"),
        (0, "play 7d"),
        (1, "play 9d"),
    )
    assert events[-1] == {"event": "game_end", "winner": 0}
    assert (state.phase, state.winner, state.longs) == ("over", 0, [5, 3])


def test_T17_gatinaise_fortial_at_four_longs_and_two_petits():
    state = new_state(
        {0: "7h 8h 9h", 1: "Ac Kc Qc"}, variant="gatinaise", longs=(0, 4), petits=(0, 2)
    )
    assert (state.phase, state.fortial_team, state.current_seat()) == ("fortial", 1, 1)
    state = new_state(
        {0: "7h 8h 9h", 1: "Ac Kc Qc"}, variant="classic", longs=(0, 4), petits=(0, 2)
    )
    assert state.phase == "play"


# ------------------------------------------------------------- T18 Trut d'office


def test_T18_trut_d_office_called_by_the_other_team():
    state = new_state({0: "9h 9d 10c", 1: "7h 7d 9c"}, variant="gatinaise", petits=(0, 2))
    assert {"event": "trut", "seat": 0, "kind": "office"} in state.events
    assert state.trut.kind == "office"
    assert state.trut.caller == 0
    assert (state.phase, state.current_seat()) == ("answer", 1)
    assert legal(state) == ["accept", "fold"]
    refuse(state, "trut", "T9")
    refuse(state, "play 7h", "T10")
    events = run(state, (1, "accept"))
    assert events[-1] == {"event": "trut_accepted", "kind": "office"}
    assert (state.phase, state.current_seat()) == ("play", 0)  # the dealer leads
    assert "trut" not in legal(state)
    refuse(state, "trut", "T9")
    events = run(state, (0, "play 9h"), (1, "play 7h"), (1, "play 7d"), (0, "play 9d"))
    assert only(events, "hand_end") == hand_end(0, "won", 1, [0, 1], [0, 0])


def test_T18_trut_d_office_fold_gives_the_caller_a_petit():
    state = new_state({0: "9h 9d 10c", 1: "7h 7d 9c"}, variant="gatinaise", petits=(2, 1))
    assert (state.trut.kind, state.trut.caller, state.current_seat()) == ("office", 1, 0)
    events = run(state, (0, "fold"))
    assert only(events, "hand_end") == hand_end(0, "fold", 1, [0, 0], [2, 2])
    assert_next_hand(state, dealer=0)
    # Next hand: both at 2 Petits, la Chanson.
    deal_next(state, {0: "9h 9d 10c", 1: "7h 7d 9c"})
    assert (state.phase, state.singer) == ("sing_ask", 1)


def test_T18_4_players_first_seat_in_play_order_calls_and_the_team_answers():
    hands = {0: "9h 9d 9s", 1: "7c 7d Qc", 2: "10h 10d 10s", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4, dealer=1, variant="gatinaise", petits=(2, 0))
    assert (state.trut.kind, state.trut.caller) == ("office", 1)
    assert state.queue == [2, 0]
    run(state, (2, "fold"))
    assert state.current_seat() == 0
    run(state, (0, "accept"))
    assert (state.phase, state.current_seat()) == ("play", 1)

    state = new_state(hands, players=4, dealer=0, variant="gatinaise", petits=(0, 2))
    assert (state.trut.kind, state.trut.caller, state.queue) == ("office", 0, [1, 3])
    events = run(state, (1, "fold"), (3, "fold"))
    assert only(events, "hand_end") == hand_end(0, "fold", 0, [0, 0], [1, 2])


def test_T18_D4_3_players_first_seat_without_two_petits_calls_both_others_answer():
    hands = {0: "9h 9d 10c", 1: "7h 7d 9c", 2: "10h 10d Jc"}
    state = new_state(hands, players=3, variant="gatinaise", dealer=1, petits=(0, 2, 1))
    assert (state.trut.kind, state.trut.caller, state.queue) == ("office", 2, [0, 1])
    run(state, (0, "accept"))
    assert (state.phase, state.current_seat()) == ("answer", 1)
    run(state, (1, "accept"))
    assert (state.phase, state.current_seat()) == ("play", 1)


def test_T18_fortial_takes_precedence_over_trut_d_office():
    state = new_state(
        {0: "9h 9d 10c", 1: "7h 7d 9c"}, variant="gatinaise", longs=(4, 1), petits=(2, 0)
    )
    assert (state.phase, state.fortial_team, state.trut) == ("fortial", 0, None)
    assert not of_kind(state.events, "trut")


def test_T18_no_trut_d_office_in_the_classic_game():
    state = new_state({0: "9h 9d 10c", 1: "7h 7d 9c"}, variant="classic", petits=(0, 2))
    assert (state.phase, state.trut) == ("play", None)


# ---------------------------------------------------------------- T19 la Chanson


def test_T19_la_chanson_sing_deal_keep_and_play_as_accepted_trut():
    hands = {0: "9h 9d 10h", 1: "9c 9s 10c"}
    state = new_state(hands, variant="gatinaise", petits=(2, 2), stock="7h 7c 8h 8c")
    assert {"event": "chanson", "singer": 1} in state.events
    assert (state.phase, state.current_seat(), state.singer) == ("sing_ask", 1, 1)
    assert legal(state) == ["sing", "pass"]
    for action in ("agree", "sing 1", "play 9c", "keep 9c 9s 10c", "accept"):
        refuse(state, action, "T19")
    refuse(state, "trut", "T9")  # Trut only on a turn to play
    events = run(state, (1, "sing"))
    assert events == [{"event": "sing_ask", "seat": 1, "word": "sing"}]
    assert (state.phase, state.current_seat()) == ("sing_agree", 0)
    assert legal(state) == ["agree", "refuse"]
    refuse(state, "sing", "T19")
    refuse(state, "sing 2", "T19")
    run(state, (0, "agree"))
    assert (state.phase, state.current_seat()) == ("sing_count", 1)
    assert legal(state) == ["sing 1", "sing 2", "sing 3"]
    refuse(state, "pass", "T19")
    events = run(state, (1, "sing 2"))
    assert events == [{"event": "sing_draw", "seat": 1, "count": 2}]
    # Stock positions 6.. dealt one at a time from the singer: 6->1, 7->0, 8->1, 9->0.
    assert state.holdings == [[1, 3, 5, 7, 9], [0, 2, 4, 6, 8]]
    assert state.observation(1).my_cards == cards("9c 9s 10c 7h 8h")
    assert state.observation(0).my_cards == cards("9h 9d 10h 7c 8c")
    assert state.observation(0).stock == 32 - 10
    # Asked again; this time the singer stops.
    assert (state.phase, state.current_seat()) == ("sing_ask", 1)
    run(state, (1, "pass"))
    assert (state.phase, state.current_seat()) == ("keep", 1)
    assert len(legal(state)) == 10  # 3 among 5
    refuse(state, "keep 7h 8h", "T19")
    refuse(state, "keep 7h 8h 9c 9s", "T19")
    refuse(state, "keep 7h 8h 7c", "T19")  # 7c is seat 0's
    refuse(state, "keep 7h 7h 8h", "T19")
    refuse(state, "keep 7h 8h @1", "T19")
    refuse(state, "play 7h", "T19")
    events = run(state, (1, "keep 7h 8h 9c"))
    assert events == [{"event": "keep", "seat": 1, "discarded": 2}]
    assert state.discarded == [2, 4]
    assert state.holdings[1] == [0, 6, 8]
    assert (state.phase, state.current_seat()) == ("keep", 0)
    events = run(state, (0, "keep 7c 8c 10h"))
    assert str(state.history()[-1].public()) == "keep @7 @9 @5"  # discards stay unseen
    assert events == [
        {"event": "keep", "seat": 0, "discarded": 2},
        {"event": "trut", "seat": None, "kind": "chanson"},
    ]
    assert state.discarded == [2, 4, 1, 3]
    assert (state.trut.kind, state.trut.status) == ("chanson", "accepted")
    assert (state.phase, state.current_seat()) == ("play", 0)  # the dealer leads
    assert legal(state) == ["play 10h", "play 7c", "play 8c"]  # no Trut
    refuse(state, "trut", "T9")
    refuse(state, "fold", None)
    refuse(state, "accept", None)
    events = run(state, (0, "play 7c"), (1, "play 7h"))
    assert "fold" not in legal(state) and "trut" not in legal(state)
    refuse(state, "trut", "T9")
    events += run(state, (0, "play 8c"), (1, "play 8h"), (0, "play 10h"), (1, "play 9c"))
    # Played as an accepted Trut: 1 Long, every Petit discarded.
    assert only(events, "hand_end") == hand_end(0, "won", 0, [1, 0], [0, 0])
    assert_next_hand(state, dealer=0)


def test_T19_singer_passes_hand_is_still_an_accepted_trut():
    state = new_state(
        {0: "7h 7d 9c", 1: "9h 9d 10c"}, variant="gatinaise", petits=(2, 2), longs=(1, 1)
    )
    events = run(state, (1, "pass"))
    assert events == [
        {"event": "sing_ask", "seat": 1, "word": "pass"},
        {"event": "trut", "seat": None, "kind": "chanson"},
    ]
    assert (state.phase, state.current_seat()) == ("play", 0)
    assert state.discarded == []
    refuse(state, "trut", "T9")
    events = run(state, (0, "play 7h"), (1, "play 9h"), (0, "play 7d"), (1, "play 9d"))
    assert only(events, "hand_end") == hand_end(0, "won", 0, [2, 1], [0, 0])


def test_T19_a_refusal_ends_the_singing():
    hands = {0: "9h 9d 9s", 1: "7c 7d Qc", 2: "10h 10d 10s", 3: "Ad Kd Qd"}
    state = new_state(hands, players=4, dealer=3, variant="gatinaise", petits=(2, 2))
    assert state.singer == 0
    run(state, (0, "sing"), (1, "agree"))
    assert (state.phase, state.current_seat()) == ("sing_agree", 2)
    events = run(state, (2, "refuse"))
    assert events == [
        {"event": "sing_agree", "seat": 2, "word": "refuse"},
        {"event": "trut", "seat": None, "kind": "chanson"},
    ]
    assert (state.phase, state.current_seat()) == ("play", 3)
    assert [len(h) for h in state.holdings] == [3, 3, 3, 3]


def test_T19_sing_count_limited_by_the_stock():
    state = new_state({}, players=4, dealer=0, variant="gatinaise", petits=(2, 2))
    assert state.singer == 1
    run(state, (1, "sing"), (2, "agree"), (3, "agree"), (0, "agree"))
    assert legal(state) == ["sing 1", "sing 2", "sing 3"]
    run(state, (1, "sing 3"))
    assert state.holdings == [
        [3, 7, 11, 15, 19, 23],
        [0, 4, 8, 12, 16, 20],
        [1, 5, 9, 13, 17, 21],
        [2, 6, 10, 14, 18, 22],
    ]
    assert (state.phase, state.current_seat()) == ("sing_ask", 1)
    run(state, (1, "sing"), (2, "agree"), (3, "agree"), (0, "agree"))
    assert state.observation(1).stock == 8
    assert legal(state) == ["sing 1", "sing 2"]
    refuse(state, "sing 3", "T19")  # 12 cards wanted, 8 left
    run(state, (1, "sing 2"))
    assert state.holdings[1] == [0, 4, 8, 12, 16, 20, 24, 28]
    assert state.holdings[0] == [3, 7, 11, 15, 19, 23, 27, 31]
    # The stock is empty: no more singing, every seat keeps 3 in turn from the singer.
    assert (state.phase, state.current_seat()) == ("keep", 1)
    order = []
    while state.phase == "keep":
        seat = state.current_seat()
        order.append(seat)
        state.apply(state.legal_actions()[0])
    assert order == [1, 2, 3, 0]
    assert sorted(state.discarded) == sorted(
        p for p in range(32) if all(p not in h for h in state.holdings)
    )
    assert len(state.discarded) == 20
    assert [len(h) for h in state.holdings] == [3, 3, 3, 3]
    assert (state.phase, state.current_seat()) == ("play", 0)


# ------------------------------------------------------------------- T20 3 players


def test_T20_three_tricks_to_three_players_t1_winner_wins():
    state = new_state({0: "7h 9c 9d", 1: "9h 7c 9s", 2: "10h 10c 7s"}, players=3)
    events = run(
        state,
        (0, "play 7h"),
        (1, "play 9h"),
        (2, "play 10h"),
        (0, "play 9c"),
        (1, "play 7c"),
        (2, "play 10c"),
        (1, "play 9s"),
        (2, "play 7s"),
        (0, "play 9d"),
    )
    assert [e["winner"] for e in of_kind(events, "trick")] == [0, 1, 2]
    assert only(events, "hand_end") == hand_end(0, "won", 0, [0, 0, 0], [1, 0, 0])
    assert_next_hand(state, dealer=2)


def test_T20_other_player_taking_t2_and_t3_wins():
    state = new_state({0: "7h 9c 9d", 1: "9h 7c 8s", 2: "10h 10c 10s"}, players=3)
    events = run(
        state,
        (0, "play 7h"),
        (1, "play 9h"),
        (2, "play 10h"),
        (0, "play 9c"),
        (1, "play 7c"),
        (2, "play 10c"),
        (1, "play 8s"),
        (2, "play 10s"),
        (0, "play 9d"),
    )
    assert only(events, "hand_end") == hand_end(0, "won", 1, [0, 0, 0], [0, 1, 0])


def test_T20_one_opponent_folds_hand_goes_on_between_two():
    state = new_state({0: "9c 10h Kh", 1: "7c 8c 9s", 2: "10c 9h Ah"}, players=3)
    run(state, (0, "play 9c"), (1, "play 7c"), (2, "play 10c"))
    assert state.results == [1]
    run(state, (1, "play 8c"), (2, "trut"))
    assert state.queue == [0, 1]
    run(state, (0, "accept"))
    assert (state.phase, state.current_seat()) == ("answer", 1)
    events = run(state, (1, "fold"))
    assert events == [
        {"event": "answer", "seat": 1, "word": "fold"},
        {"event": "folded_out", "seat": 1},
        {"event": "trut_accepted", "kind": "call"},
    ]
    # The caller scores its Petit at once; seat 1's t1 now counts as patté.
    assert (state.longs, state.petits) == ([0, 0, 0], [0, 0, 1])
    assert state.folded == {1}
    assert state.results == [None]
    assert (state.phase, state.current_seat()) == ("play", 2)
    run(state, (2, "play 9h"))
    assert state.current_seat() == 0
    events = run(state, (0, "play 10h"))
    # Seat 1's 8c was the strongest card: the trick is patté; seat 2 (next after 1) leads.
    assert only(events, "trick") == trick(2, [[1, "8c"], [2, "9h"], [0, "10h"]], None, None)
    assert state.results == [None, None]
    assert (state.current_seat(), state.marker) == (2, 2)
    assert legal(state, 1) == []
    run(state, (2, "play Ah"))
    assert state.current_seat() == 0  # seat 1 is skipped
    events = run(state, (0, "play Kh"))
    assert only(events, "trick") == trick(3, [[2, "Ah"], [0, "Kh"]], 2, 2)
    assert only(events, "hand_end") == hand_end(0, "won", 2, [0, 0, 1], [0, 0, 0])
    assert_next_hand(state, dealer=2)


def test_T20_fold_third_petit_converts_at_once():
    state = new_state(
        {0: "9c 10h Kh", 1: "7c 8c 9s", 2: "10c 9h Ah"},
        players=3,
        longs=(2, 1, 0),
        petits=(2, 1, 1),
    )
    run(state, (0, "trut"), (1, "fold"), (2, "accept"))
    assert (state.longs, state.petits) == ([3, 1, 0], [0, 0, 0])
    assert state.folded == {1}
    assert (state.phase, state.current_seat()) == ("play", 0)
    run(state, (0, "play 9c"))
    assert state.current_seat() == 2
    events = run(state, (2, "play 10c"))
    assert only(events, "trick") == trick(1, [[0, "9c"], [2, "10c"]], 2, 2)


def test_T20_folded_seats_won_trick_turns_patte_and_can_decide_the_hand():
    # t1 to seat 1, t2 to seat 0; seat 0 truts in t3, seat 1 folds: t1 is patté, so
    # seat 0 (patté, then t2) wins at once.
    state = new_state({0: "9c 7h Kh", 1: "7c 9h 9s", 2: "10c 10h Ah"}, players=3)
    run(
        state,
        (0, "play 9c"),
        (1, "play 7c"),
        (2, "play 10c"),
        (1, "play 9h"),
        (2, "play 10h"),
        (0, "play 7h"),
    )
    assert state.results == [1, 0]
    assert state.current_seat() == 0
    events = run(state, (0, "trut"), (1, "fold"), (2, "accept"))
    assert of_kind(events, "trick") == []
    assert only(events, "hand_end") == hand_end(0, "won", 0, [1, 0, 0], [0, 0, 0])


def test_T20_D13_caller_keeps_the_fold_petit_when_the_hand_is_pourrie():
    state = new_state({0: "Kh Qh Jh", 1: "7c 7d 7s", 2: "Ks Qs Js"}, players=3)
    run(state, (0, "trut"), (1, "fold"), (2, "accept"))
    assert state.petits == [1, 0, 0]
    events = run(
        state,
        (0, "play Kh"),
        (2, "play Ks"),
        (0, "play Qh"),
        (2, "play Qs"),
        (0, "play Jh"),
        (2, "play Js"),
    )
    assert only(events, "hand_end") == hand_end(0, "pourrie", None, [0, 0, 0], [1, 0, 0])
    assert_next_hand(state, dealer=0)


def test_T20_D9_D15_3_players_fortial_trut_one_fold_wins_the_game_at_once():
    hands = {0: "9h 9d 10c", 1: "7h 7d 9c", 2: "10h 10d Jc"}
    state = new_state(hands, players=3, longs=(6, 2, 3), petits=(2, 1, 0))
    assert (state.phase, state.current_seat()) == ("fortial", 0)
    assert all(card is None for _, card in state.observation(1).hand)
    run(state, (0, "trut"), (1, "fold"))  # D15: the fold scores at once, T14 ends the game
    assert (state.phase, state.winner, state.longs) == ("over", 0, [7, 2, 3])
    refuse(state, "accept", "T14")  # the second opponent is not asked any more
    assert state.returns() == [1.0, 0.0, 0.0]


# ---------------------------------------------------------------- T21 6 players


SIX_FILL = {0: "8d 8s", 1: "Qd Qs", 2: "Jd Js", 3: "10d 10s", 4: "9d 9s", 5: "Kd Ks"}


def six(first: dict[int, str], sum_on_patte: bool) -> TrutState:
    hands = {seat: f"{first[seat]} {SIX_FILL[seat]}" for seat in range(6)}
    return new_state(hands, players=6, sum_on_patte=sum_on_patte)


def play_first_trick(state: TrutState, first: dict[int, str]) -> list[dict]:
    return run(state, *((seat, f"play {first[seat]}") for seat in range(6)))


def test_T21_sum_on_patte_larger_sum_wins():
    first = {0: "7h", 1: "7c", 2: "Ah", 3: "9c", 4: "Kh", 5: "10c"}  # 19 against 11
    state = six(first, sum_on_patte=True)
    events = play_first_trick(state, first)
    assert only(events, "trick") == trick(1, [[s, first[s]] for s in range(6)], 0, 0, by_sum=True)
    assert state.results == [0]
    assert state.current_seat() == 0


def test_T21_sum_on_patte_second_tied_team_wins_and_leads():
    first = {0: "7h", 1: "7c", 2: "9h", 3: "Ac", 4: "10h", 5: "Kc"}  # 11 against 19
    state = six(first, sum_on_patte=True)
    events = play_first_trick(state, first)
    assert only(events, "trick") == trick(1, [[s, first[s]] for s in range(6)], 1, 1, by_sum=True)
    assert (state.current_seat(), state.marker) == (1, 1)


def test_T21_sum_on_patte_equal_sums_stay_patte():
    first = {0: "7h", 1: "7c", 2: "Ah", 3: "Ac", 4: "9h", 5: "9c"}  # 15 against 15
    state = six(first, sum_on_patte=True)
    events = play_first_trick(state, first)
    assert only(events, "trick") == trick(1, [[s, first[s]] for s in range(6)], None, None)
    assert state.current_seat() == 0


def test_T21_without_the_option_a_patte_stays_patte():
    first = {0: "7h", 1: "7c", 2: "9h", 3: "Ac", 4: "10h", 5: "Kc"}
    state = six(first, sum_on_patte=False)
    events = play_first_trick(state, first)
    assert only(events, "trick") == trick(1, [[s, first[s]] for s in range(6)], None, None)
    assert state.current_seat() == 0
    assert TrutConfig(players=6).sum_on_patte is False
    for players in (2, 3, 4):
        with pytest.raises(ConfigError):
            TrutConfig(players=players, sum_on_patte=True)


def test_T21_sum_only_settles_pattes():
    # A clear winner is not overturned by a larger sum of the other team.
    first = {0: "7h", 1: "8c", 2: "9h", 3: "Ac", 4: "10h", 5: "Kc"}
    state = six(first, sum_on_patte=True)
    events = play_first_trick(state, first)
    assert only(events, "trick") == trick(1, [[s, first[s]] for s in range(6)], 0, 0)


def test_D15_3_players_two_folds_score_one_petit_after_the_other():
    # Caller at 2 Petits: the first fold makes 3 -> a Long, clearing every Petit (T13);
    # the second fold then scores 1 Petit.
    hands = {0: "7h 7d 8h", 1: "9c 10c Jc", 2: "9d 10d Jd"}
    state = new_state(hands, players=3, longs=(1, 0, 0), petits=(2, 1, 1))
    run(state, (0, "trut"), (1, "fold"))
    assert (state.longs, state.petits) == ([2, 0, 0], [0, 0, 0])
    run(state, (2, "fold"))
    assert (state.longs, state.petits) == ([2, 0, 0], [1, 0, 0])
    assert state.phase == "deal"
