"""Lutin & Troll's expert mode, ruling by ruling (L19-L30): set-up, token windows,
white and black resolution, the bonus; each test names its ruling and what it
refuses. Then tokens within whole games: scripted ones played to their end, and games
over hidden replicas (each seat knowing only its own tokens) where black t13, t12 and
t31 are played and their outcome is compared with the same combat without tokens."""

from __future__ import annotations

import random

import pytest

from tests.engine.hidden_table import GenericTable
from tests.games.lutin.lutin_helpers import choose, play, random_step, start_expert, window
from tests.games.lutin.lutin_helpers import combat as fight
from trutnet.engine import IllegalAction
from trutnet.engine.hidden import Open, Pos, SecretChoice, Shuffle, Turn
from trutnet.games.lutin.rules import LutinGame
from trutnet.games.lutin.rules.cards import combat
from trutnet.games.lutin.rules.powers import TOKEN_DECK, black, cancelled, white
from trutnet.games.lutin.rules.state import INDEX

NONE = "token none"


def refused(state, action, rule):
    before = state.public_state(), len(state.history())
    with pytest.raises(IllegalAction) as err:
        state.apply(action)
    assert err.value.rule == rule
    assert (state.public_state(), len(state.history())) == before


def test_L19_L20_one_power_set_nine_tokens_named_by_cell():
    assert TOKEN_DECK.cards == ("t11", "t12", "t13", "t21", "t22", "t23", "t31", "t32", "t33")
    assert LutinGame("expert-white").decks() == (TOKEN_DECK,)
    assert LutinGame("expert-white").new_initial_state().power == "white"
    assert LutinGame("expert-black").new_initial_state().power == "black"
    assert LutinGame("base").decks() == ()


def test_L21_set_up_shuffle_private_deal_discards_and_three_never_seen():
    state = LutinGame("expert-white").new_initial_state()
    state.apply("first 1")
    assert state.next_step() == Shuffle("tokens", state.parse_action("deal tokens"))
    state.apply("deal tokens t11 t21 t33 t12 t22 t31 t13 t23 t32")
    sight = state.sight()
    assert sight[0] == {Pos("tokens", i) for i in range(3)}
    assert sight[1] == {Pos("tokens", i) for i in range(3, 6)}
    assert state.holders()["aside"] == tuple(Pos("tokens", i) for i in range(6, 9))
    assert state.next_step() == SecretChoice(1, "discard", state.parse_action("seal"))
    refused(state, "discard tokens@0", "L21")  # seat 1 does not hold tokens@0
    state.apply("discard tokens@4")
    state.apply("discard tokens@1")
    assert state.next_step() == Open(1, "discard")  # both committed, then both open
    assert state.reveals(1, state.parse_action("discard tokens@4")) == (Pos("tokens", 4),)
    refused(state, "discard tokens@5=t31", "L32")  # not the sealed one
    state.apply("discard tokens@4=t22")
    state.apply("discard tokens@1=t21")
    assert state.faceup == ["t22", "t21"] and state.phase == "choose"
    assert state.token_count(0) == state.token_count(1) == 2
    assert all(Pos("tokens", i) not in s for s in state.sight().values() for i in range(6, 9))


def test_L22_a_window_both_commit_then_both_open_the_attacker_first():
    state = start_expert("expert-white", "g5 g2 g2 g2 g2", "g7 g3 g3 g3 g3")
    play(state, "g5")
    play(state, "g7")
    assert state.next_step() == SecretChoice(0, "token", state.parse_action("seal"))
    refused(state, "token tokens@0=t11", "L22")  # white t11 needs a card: own or opp
    refused(state, "token tokens@3=t12 own", "L22")  # not its token
    state.apply("token tokens@0=t11 own")
    assert state.next_step() == SecretChoice(1, "token", state.parse_action("seal"))
    state.apply(NONE)
    assert state.next_step() == Open(0, "token")
    refused(state, "token tokens@1=t21", "L32")  # not the sealed choice
    state.apply("token tokens@0=t11 own")
    state.apply(NONE)
    assert state.faceup[-1] == "t11" and state.token_count(0) == 1
    # L23 (2): g5 turned blue hits the g7 for 5
    assert state.hp == [12, 7] and state.attacker == 0


def test_L22_one_seat_holding_tokens_decides_openly_none_no_window():
    state = start_expert("expert-white", "g5 g5 g5 g5 g2", "g5 g5 g5 g5 g2")
    for token in ("tokens@3=t12 own", "tokens@4=t22"):  # seat 1 spends both its tokens
        fight(state, "g5", "g5")
        window(state, {0: NONE, 1: f"token {token}"})
    play(state, "g5")
    play(state, "g5")
    assert state.next_step() == Turn(0)  # only seat 0 holds tokens
    state.apply(NONE)
    assert state.phase == "attack"  # the combat resolved: an equal one, seat 0 attacks
    fight(state, "g5", "g5")
    state.apply("token tokens@0=t11 own")  # openly: seat 0's g5 turns blue (L23)
    fight(state, "g2", "g2")
    state.apply("token tokens@1=t21")  # +4 on its green
    assert state.last == (0, "g2", "g2", 0, -4, 0)  # 6 against 2
    assert state.vp == [1, 0] and state.manche == 2 and state.phase == "choose"  # 12 vs 3
    choose(state, "g3 g3 g3 g3 g4", "g2 g2 g3 g3 g3")
    play(state, "g3")
    play(state, "g2")
    assert state.phase == "attack" and state.hp == [12, 11]  # no token held: no window


def test_L23_white_values_colours_void_and_hp():
    assert white({0: "g5", 1: "g7"}, {0: ("t21", None)}).delta == [0, -2]  # 9 against 7
    assert white({0: "b4", 1: "b5"}, {0: ("t22", None)}).delta == [0, -3]  # 8 against 5
    assert white({0: "g5", 1: "g3"}, {1: ("t31", None)}).delta == [-3, 0]  # 0 against 3
    assert white({0: "b5", 1: "b6"}, {0: ("t32", None)}).delta == [0, -3]  # 5 against 2
    void = white({0: "b6", 1: "g2"}, {1: ("t13", None), 0: ("t23", None)})
    assert void.delta == [4, 0] and void.winner is None  # (1) then (5)
    assert white({0: "g3", 1: "b4"}, {0: ("t12", "opp")}).delta == [-1, 0]  # b4 green now
    assert white({0: "nymph", 1: "g2"}, {1: ("t11", "opp")}).winner == 0  # red unchanged
    assert white({0: "g2", 1: "g2"}, {0: ("t33", None)}).delta == [0, -5]


def test_L24_L26_L27_L29_black_in_its_order():
    assert cancelled({0: ("t13", None), 1: ("t22", None)}) == {1}
    assert cancelled({0: ("t13", None), 1: ("t13", None)}) == set()
    assert black({0: "harpy", 1: "g5"}, {1: ("t12", None)}, [0, 0]).winner == 1  # L26
    assert black({0: "g7", 1: "g5"}, {1: ("t31", None)}, [0, 0]).delta == [-2, 0]  # L27
    assert black({0: "mandragore", 1: "b6"}, {1: ("t31", None)}, [0, 0]).delta == [0, 6]
    both = black({0: "g7", 1: "g5"}, {0: ("t31", None), 1: ("t31", None)}, [0, 0])
    assert both.delta == [0, -2] and both.winner == 0  # two t31 undo each other
    assert black({0: "g7", 1: "g5"}, {0: ("t22", None), 1: ("t22", None)}, [0, 0]).delta == [0, -8]
    vp = black({0: "g2", 1: "g2"}, {0: ("t23", None), 1: ("t33", None)}, [3, 3])
    assert vp.vp == [0, 0]  # +1 then -1 on seat 0, both judged before
    assert black({0: "g2", 1: "g2"}, {0: ("t23", None)}, [4, 0]).vp == [0, 0]  # L29: not at 4
    assert black({0: "g2", 1: "g2"}, {0: ("t33", None)}, [0, 2]).vp == [0, 0]  # nor at 2


def test_L25_black_t21_swaps_with_the_hand_and_opens_that_commitment():
    order = "t21 t11 t33 t12 t22 t31 t13 t23 t32"  # seat 0 keeps t21 t11
    state = start_expert("expert-black", "g2 b6 g3 g3 g3", "g7 g4 g4 g4 g4", order)
    play(state, "g2")
    play(state, "g7")
    slot = next(k for k in state.slots[0] if state.secrets[0, k] == "b6")
    window(state, {0: f"token tokens@0=t21 hand/{slot}", 1: NONE})
    assert state.next_step() == Open(0, f"hand/{slot}")  # L25: its commitment opens
    refused(state, "take g3", "L32")
    state.apply("take b6")
    assert state.hp == [12, 6] and state.attacker == 0  # the b6 taken counts (L9)
    assert state.open_slots[0] == {slot: "g2"}  # the played card back in hand, known
    assert dict(state.observation(0).hand)[f"hand/{slot}"] == "g2"
    # later played without a commitment
    state.apply(f"play hand/{slot}")
    assert state.table == [(0, "g2")] and state.phase == "riposte"


def test_L25_black_t11_swaps_with_the_defausse():
    order = "t11 t21 t33 t12 t22 t31 t13 t23 t32"
    state = start_expert("expert-black", "b6 g2 g3 g3 g3", "g3 g4 g4 g4 g4", order)
    fight(state, "b6", "g3")  # b6 now on seat 0's défausse
    window(state, {0: NONE, 1: NONE})
    play(state, "g2")
    play(state, "g4")
    window(state, {0: "token tokens@0=t11 b6", 1: NONE})
    assert state.last[1] == "b6" and state.hp[1] == 12 - 6 - 6  # the b6 counted again
    assert state.defausse[0][INDEX["g2"]] == 1 and state.defausse[0][INDEX["b6"]] == 1


def test_L28_black_t32_the_loser_wins_the_manche():
    order = "t32 t21 t33 t12 t22 t31 t13 t23 t11"
    state = start_expert("expert-black", "g2 g2 g2 g2 g3", "g7 g4 g4 g4 g4", order)
    fight(state, "g2", "g7")
    window(state, {0: "token tokens@0=t32", 1: NONE})
    assert state.phase == "end_open"  # the manche ends at once, HP notwithstanding
    while state.phase == "end_open":
        seat, slot = state.queue[0]
        state.apply(f"take {state.secrets[seat, slot]}")
    assert state.vp == [1, 0] and state.attacker == 0


def test_L30_the_bonus_at_the_6th_manche():
    found = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = LutinGame("expert-white").new_initial_state()
        while not state.is_terminal() and state.phase != "bonus":
            random_step(state, rng)
        if state.phase != "bonus":
            continue
        found += 1
        seat = state.current_seat()
        assert state.manche == 6 and state.vp[seat] < state.vp[1 - seat]
        assert state.faceup == [] and len(state.bonus_from) >= 2  # the others leave
        absent = next(t for t in TOKEN_DECK.cards if t not in state.bonus_from)
        refused(state, f"bonus {absent}", "L30")  # only a face-up token
        state.apply(f"bonus {state.bonus_from[0]}")
        assert state.token_count(seat) >= 1
        while not state.is_terminal() and state.bonus_name is None:
            random_step(state, rng)
        if state.bonus_name is not None:
            assert state.bonus_name == state.bonus_from[0]
    assert found


# ---------------------------------------------------------------- within whole games


def finish(state, seed):
    """The rest of the game by random legal play: it ends (L3), and a token played
    never comes back to a hand (L21) though the bonus may pick it again (L30)."""
    rng = random.Random(seed)
    played = set(state.spent)
    for _ in range(20_000):
        if state.is_terminal():
            break
        random_step(state, rng)
        assert not played & {p for held in state.tok_pos for p in held}
    assert state.is_terminal() and max(state.vp) == 5


def test_L13_both_at_0_the_next_attacker_wins_no_continuation():
    """White t33 (-5 HP to the opponent) and the card result bring both seats to 0 in
    the same combat, the last of both hands: L13 applies every HP change at once and
    gives the manche to the seat that attacks next (L8: the combat's winner); it is not
    a continuation on equal HP (L14), though both hands are empty and 0 equals 0."""
    state = start_expert("expert-white", "b6 g3 g2 g2 g2", "g2 g2 g5 b5 b4", keep=(0, 5))
    assert [n for _, n in state.tokens_of(0)] == ["t21", "t33"]
    for attack, riposte, hp in (
        ("b6", "g2", [12, 6]),  # blue beats green (L9)
        ("g3", "g2", [12, 5]),
        ("g2", "g5", [9, 5]),  # seat 1 wins and attacks (L8)
        ("b5", "g2", [4, 5]),
    ):
        fight(state, attack, riposte)
        window(state, {0: NONE, 1: NONE})
        assert state.hp == hp
    assert state.attacker == 1
    fight(state, "b4", "g2")  # 4 to seat 0, at 4
    window(state, {1: NONE, 0: "token tokens@2=t33"})  # the attacker commits first (L22)
    assert state.last == (1, "b4", "g2", -4, -5, 1)  # both deltas at once, both to 0
    assert state.manche_winner is None and state.vp == [0, 1]  # L13: to the next attacker
    assert state.manche == 2 and state.hands == 2 and state.attacker == 1  # a new manche
    assert state.hp == [12, 12] and state.phase == "choose"  # L3: HP restored
    finish(state, "L13")


def test_L24_black_t13_cancels_the_opponent_token_in_a_game():
    """Black t13 cancels the other seat's token whatever it is (here t22, which would
    double the result); both tokens are spent, face up (L24 (1), L21)."""
    order = "t13 t11 t23 t22 t12 t31 t21 t32 t33"  # seat 0 keeps t13 t11, seat 1 t22 t12
    alone = start_expert("expert-black", "g7 g3 g3 g3 g3", "g5 g4 g4 g4 g4", order)
    fight(alone, "g7", "g5")
    window(alone, {0: NONE, 1: "token tokens@3=t22"})
    assert alone.hp == [12, 8]  # t22 alone: the 2 doubled
    state = start_expert("expert-black", "g7 g3 g3 g3 g3", "g5 g4 g4 g4 g4", order)
    fight(state, "g7", "g5")
    window(state, {0: "token tokens@0=t13", 1: "token tokens@3=t22"})
    assert state.window_shown == ["0:token tokens@0=t13", "1:token tokens@3=t22"]
    assert state.hp == [12, 10]  # 2, not doubled: the t22 is cancelled
    assert state.last == (0, "g7", "g5", 0, -2, 0) and state.attacker == 0
    assert state.faceup[-2:] == ["t13", "t22"]
    assert state.token_count(0) == state.token_count(1) == 1
    finish(state, "t13")


def test_L26_black_t12_turns_the_opponent_card_into_a_green_0_in_a_game():
    """Black t12 on a Harpy: the Harpy becomes a green 0, loses its power (L12, L26),
    and the g5 it faced wins: the Harpy's owner loses 5 and the g5's attacks next."""
    order = "t11 t21 t33 t12 t22 t31 t13 t23 t32"  # seat 1 keeps t12 t22
    alone = start_expert("expert-black", "harpy g3 g3 g3 g3", "g5 g4 g4 g4 g4", order)
    fight(alone, "harpy", "g5")
    window(alone, {0: NONE, 1: NONE})
    assert alone.hp == [12, 7] and alone.attacker == 0  # the Harpy sends the hit back (L10)
    state = start_expert("expert-black", "harpy g3 g3 g3 g3", "g5 g4 g4 g4 g4", order)
    fight(state, "harpy", "g5")
    window(state, {0: NONE, 1: "token tokens@3=t12"})
    assert state.hp == [7, 12] and state.attacker == 1
    assert state.last == (0, "harpy", "g5", -5, 0, 1)
    assert state.defausse[0][INDEX["harpy"]] == 1  # the card itself goes to the défausse
    finish(state, "t12")


def test_L27_black_t31_the_winner_loses_in_a_game():
    """Black t31: g7 against g5, the g7's owner loses 2 instead, and the g5's owner,
    now the winner, attacks next (L27, L8)."""
    order = "t11 t21 t33 t31 t22 t12 t13 t23 t32"  # seat 1 keeps t31 t22
    state = start_expert("expert-black", "g7 g3 g3 g3 g3", "g5 g4 g4 g4 g4", order)
    fight(state, "g7", "g5")
    window(state, {0: NONE, 1: "token tokens@3=t31"})
    assert state.last == (0, "g7", "g5", -2, 0, 1)
    assert state.hp == [10, 12] and state.attacker == 1
    assert state.faceup[-1] == "t31" and state.token_count(1) == 1
    finish(state, "t31")


WINDOWS = ("window", "window_open", "window_turn")


class Planned:
    """A whole expert-black game over hidden replicas (``GenericTable``: each seat's
    replica knows its own tokens only, every replica checked against the truth after
    every step) in which the seat dealt ``token`` keeps it and plays it once, at the
    first window where its effect shows; every other choice is ``token none`` or a
    random card. At that window the outcome is also computed without any token (a
    clone of the truth before the first commitment): ``seen`` holds both."""

    def __init__(self, token: str, seed: int) -> None:
        self.token, self.rng = token, random.Random(seed)
        self.plan: dict[int, str] | None = None
        self.done = False
        self.seen: list[tuple[object, object]] = []  # (without tokens, with them)
        self.table = GenericTable(LutinGame("expert-black"), 2, self.choose, self.rng)

    def choose(self, seat, state):
        legal = [str(a) for a in (state.observation(seat).legal or state.legal_actions(seat))]
        if state.phase == "tdiscard":  # L21: never discard the planned token
            return next(a for a in legal if not a.endswith(f"={self.token}"))
        if state.phase in ("window", "window_turn"):
            full = self.table.full
            if not full.window and len(full.tq) == len(full.window_seats):  # a fresh window
                self.plan = self._plan(full)
                if self.plan:
                    self.before = full.clone()
            mine = (self.plan or {}).get(seat)
            return next(a for a in legal if mine and a.startswith(mine)) if mine else NONE
        return self.rng.choice(legal)

    def _plan(self, full) -> dict[int, str] | None:
        if self.done:
            return None
        holder = next((s for s in range(2) if self.token in dict(full.tokens_of(s)).values()), None)
        if holder is None:
            return None
        pos = next(p for p, n in full.tokens_of(holder) if n == self.token)
        (_, ca), (_, cb) = full.table
        cards = dict(full.table)
        other = [p for p, n in full.tokens_of(1 - holder) if n not in ("t21", None)]
        if self.token == "t12" and combat(cards[holder], "g0") == combat(
            cards[holder], cards[1 - holder]
        ):
            return None  # L26 would change nothing here
        if self.token == "t31" and combat(ca, cb)[2] is None:
            return None  # L27 acts on a winner
        if self.token == "t13" and not other:
            return None  # L24 (1) acts on the other's token
        plan = {holder: f"token {pos}={self.token}"}
        if self.token == "t13":
            plan[1 - holder] = f"token {other[0]}="
        self.holder = holder
        return plan

    def play(self) -> None:
        while self.table.step():
            full = self.table.full
            if self.plan and not self.done and full.phase not in WINDOWS:
                self.done = True
                plain = self.before
                while plain.phase in WINDOWS:
                    plain.apply(NONE)
                self.seen.append((plain, full.clone()))
        assert self.table.full.is_terminal() and max(self.table.full.vp) == 5


def planned(token):
    for seed in range(40):
        game = Planned(token, seed)
        game.play()
        if game.seen:
            return game
    raise AssertionError(f"no game played {token}")


def test_L24_black_t13_over_hidden_replicas_cancels_the_other_token():
    game = planned("t13")
    plain, played = game.seen[0]
    assert len(played.window_shown) == 2 and "t13" in " ".join(played.window_shown)
    # the other's token is spent and does nothing: the combat as if neither played
    assert (played.hp, played.vp, played.last) == (plain.hp, plain.vp, plain.last)
    assert played.token_count(1 - game.holder) == plain.token_count(1 - game.holder) - 1


def test_L26_black_t12_over_hidden_replicas_makes_the_other_card_a_green_0():
    game = planned("t12")
    plain, played = game.seen[0]
    holder = game.holder
    attacker, a, b = played.last[:3]
    assert (a, b) == plain.last[1:3]  # the cards as played (L26 changes them in combat)
    mine = a if attacker == holder else b
    d_mine, d_other, win = combat(mine, "g0")  # the other's card is a green 0 (L26)
    delta = [0, 0]
    delta[holder], delta[1 - holder] = d_mine, d_other
    assert list(played.last[3:5]) == delta and played.last[3:5] != plain.last[3:5]
    assert played.last[5] == (None if win is None else (holder, 1 - holder)[win])


def test_L27_black_t31_over_hidden_replicas_gives_the_combat_to_the_loser():
    game = planned("t31")
    plain, played = game.seen[0]
    assert plain.last[5] is not None
    assert played.last[5] == 1 - plain.last[5]  # the loser wins (and attacks next, L8)
    assert played.last[3:5] == (plain.last[4], plain.last[3])  # the HP changes exchanged
    assert played.attacker == played.last[5] or played.manche != plain.manche
