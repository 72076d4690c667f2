"""Truco's bots: the heuristic bot plays only legal actions from its observation, and
beats the random bot (it reads its envido and its cards' strength, K3, K4)."""

from __future__ import annotations

import random

import trutnet.games.truco  # noqa: F401  (registers the game)
from tests.games.truco.truco_scenarios import card_at, dealt, run
from trutnet.games.truco.heuristic import HeuristicBot
from trutnet.games.truco.rules import Declare, TrucoGame, Word
from trutnet.games.truco.rules.cards import envido
from trutnet.selfplay import game_seeds, play_game


def test_the_heuristic_bot_beats_the_random_bot():
    game = TrucoGame(players=2, chicos=1)
    wins = 0
    for k, seed in enumerate(game_seeds(5, 30)):
        bots = ["heuristic", "random"] if k % 2 == 0 else ["random", "heuristic"]
        result = play_game(game, seed, bots)
        wins += result.winner_team == k % 2
    assert wins >= 24, wins


def test_it_bets_and_declares_its_envido():
    import random

    bot = HeuristicBot(random.Random(1))
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    assert bot.choose(state.observation(0)) in (Word("envido"), Word("real envido"))
    run(state, "0: real envido", "1: quiero")
    assert bot.choose(state.observation(0)) == Declare(envido(["7e", "6e", "1c"]))
    weak = dealt({0: "4o 5c 12b", 1: "7e 6e 1c"}, players=2, dealer=1)
    run(weak, "0: play " + next(f"{weak.known[p]}@{p.index}" for p in weak.hands[0]), "1: envido")
    assert bot.choose(weak.observation(0)) == Word("no quiero")


def test_a_truco_its_samples_say_is_clearly_lost_is_refused():
    """Issue 21, item 5 (miniTruco's complaint): trick 1 to the caller, trick 2 to the
    bot, and the bot's last card, a 4 (the lowest), is on the table when the truco
    comes: every card the caller may hold wins or ties trick 3, and a tie gives the
    hand to trick 1's winner (K27). The bot used to accept it every time (a trick won
    counted as a good card); its samples now say the hand is lost, and it refuses.
    With the ancho de basto on the table instead, the hand is won, and it accepts."""
    from tests.games.truco.truco_scenarios import card_at, dealt
    from trutnet.games.truco.heuristic import HeuristicBot

    for last, answer in (("4c", "no quiero"), ("1b", "quiero")):
        state = dealt({0: f"6b 3o {last}", 1: "1e 4e 5c"}, players=2, dealer=0)
        for seat, card in ((1, "1e"), (0, "6b"), (1, "4e"), (0, "3o"), (0, last)):
            state.apply("play " + card_at(state, seat, card))
        state.apply("truco")
        said = {str(HeuristicBot(random.Random(seed)).choose_in(state, 0)) for seed in range(20)}
        assert said == {answer}, (last, said)
        # from its observation alone it cannot sample: the old rule of thumb
        assert str(HeuristicBot(random.Random(1)).choose(state.observation(0))) == "quiero"


class Never(random.Random):
    """Random numbers that never take a chance (a bluff, a doubtful accept)."""

    def random(self) -> float:
        return 0.99


def test_it_reads_the_signs_it_is_shown():
    """K15 read by the heuristic bot (seat 1, partner 3, opponents 0 and 2): a partner's
    envido of 30 or more is its side's, so it takes on an envido its own 5 would refuse;
    an opponent's big envido caught makes it refuse what its 28 would accept; a
    partner's ancho still in hand counts as a good card, so it accepts a truco its own
    cards would refuse; a sign of another hand, or its partner's brava already played,
    changes nothing."""
    from trutnet.engine.hidden import Told

    def answer(hand: str, *signs: Told, call: str = "envido") -> str:
        state = dealt({1: hand}, players=4, dealer=3)
        run(state, f"0: {call}")
        bot = HeuristicBot(Never(1), samples=0)
        for told in signs:
            bot.heard(told)
        return str(bot.choose(state.observation(1)))

    hand_no = dealt({}, players=4, dealer=3).hand_no
    weak, good = "4o 5c 12b", "7c 1c 4e"  # envido 5, and 28 (7 + 1 + 20)
    assert answer(weak) == "no quiero"
    assert answer(weak, Told(3, hand_no, "envido")) == "real envido"  # 30: it raises
    assert answer(weak, Told(3, hand_no + 1, "envido")) == "no quiero"
    assert answer(good) == "quiero"
    assert answer(good, Told(0, hand_no, "envido")) == "no quiero"
    assert answer(weak, call="truco") == "no quiero"
    assert answer(weak, Told(3, hand_no, "1e"), call="truco") == "quiero"
    assert answer(weak, Told(0, hand_no, "envido"), call="truco") == "no quiero"


def test_a_partners_brava_played_is_no_longer_counted():
    from trutnet.engine.hidden import Told
    from trutnet.games.truco.heuristic import _strong

    state = dealt({0: "4o 5c 12b", 1: "4c 5b 12o", 2: "1e 6o 6c"}, players=4, dealer=3)
    told = [Told(2, state.hand_no, "1e")]
    assert _strong(told, state.observation(0)) == 1
    run(state, f"0: play {card_at(state, 0, '4o')}", f"1: play {card_at(state, 1, '4c')}")
    run(state, f"2: play {card_at(state, 2, '1e')}")
    assert _strong(told, state.observation(0)) == 0
