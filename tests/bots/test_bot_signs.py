"""Bots and signs (``trutnet/bots/signs.py``): what a bot remembers of the signs it was
shown, the table's part when the engine alone plays (self-play), and a search bot
whose samples heed what it was told."""

from __future__ import annotations

import random

import trutnet.games.truco  # noqa: F401  (registers the game)
from tests.games.truco.truco_scenarios import dealt
from trutnet.bots import make_bot, seat_action
from trutnet.bots.signs import KEEP, Heard, sign_round
from trutnet.engine.hidden import Told
from trutnet.games.truco.rules.cards import sign_for, sign_tells


class Listener:
    """A bot that signs what it is given and keeps what it is shown."""

    def __init__(self, card: str | None = "3") -> None:
        self.card = card
        self.shown: list[Told] = []

    def sign(self, observation, menu):
        return self.card

    def heard(self, told: Told) -> None:
        self.shown.append(told)


def test_a_bot_keeps_each_sign_once_and_the_newest_only():
    heard = Heard()
    heard.add(Told(1, 0, "3"))
    heard.add(Told(1, 0, "3"))
    heard.add(Told(2, 1, "1e"))
    assert heard.of(0) == (Told(1, 0, "3"),) and heard.of(1) == (Told(2, 1, "1e"),)
    for n in range(KEEP):
        heard.add(Told(3, 5, str(n)))
    assert len(heard.all()) == KEEP and heard.of(0) == () and heard.of(5)[-1].card == str(KEEP - 1)


def test_self_play_shows_a_sign_to_the_partners_and_to_the_watchers_the_draw_picks():
    """K15 at self-play: each bot signs once a hand; its partner is always shown it;
    each opponent at the chance: never at 0/4, always at 4/4, about a quarter at 1/4."""
    for catch, low, high in ((0, 0, 0), (4, 1, 1), (1, 0.1, 0.4)):
        caught = heard = 0
        for seed in range(40):
            state = dealt({}, players=4, dealer=3, senas_catch=catch)
            bots = [Listener() for _ in range(4)]
            signed: set[tuple[int, int]] = set()
            sign_round(state, bots, signed, random.Random(seed))
            sign_round(state, bots, signed, random.Random(seed))  # once a hand
            assert signed == {(s, state.hand_no) for s in range(4)}
            for seat, bot in enumerate(bots):
                partner = (seat + 2) % 4
                assert Told(partner, state.hand_no, "3") in bot.shown
                caught += len(bot.shown) - 1
                heard += 2  # two opponents' signs it may catch
        assert low <= caught / heard <= high, (catch, caught, heard)
    silent = [Listener(None) for _ in range(4)]  # nothing to tell yet: no sign
    none: set[tuple[int, int]] = set()
    sign_round(dealt({}, players=4, dealer=3), silent, none, random.Random(1))
    assert none == set() and all(not b.shown for b in silent)


def test_a_search_bots_samples_agree_with_its_partners_sign():
    """The search bot gives every sign it was shown to ``determinise``: each of its
    samples has the partner holding the brava it signed; a bot told nothing has the
    brava elsewhere in some samples."""
    state = dealt({0: "4o 5c 12b"}, players=4, dealer=3)
    told = Told(2, state.hand_no, "1e")
    held = {}
    for tell in (True, False):
        samples = []
        real = state.determinise

        def recording(seat, rng, heard=(), real=real, samples=samples):
            sample = real(seat, rng, heard)
            samples.append([sample.known[p] for p in sample.dealt[2]])
            return sample

        state.determinise = recording
        bot = make_bot("truco", "search:samples=12", random.Random(3))
        if tell:
            bot.heard(told)
        seat_action(bot, state, 0)
        del state.determinise
        held[tell] = [sign_tells(cards, "1e", False) for cards in samples]
        assert len(samples) >= 12
    assert all(held[True]) and not all(held[False])


def test_the_truco_bots_sign_what_their_hand_tells():
    state = dealt({0: "1b 3o 4c"}, players=4, dealer=3)
    bot = make_bot("truco", "heuristic", random.Random(1))
    rules = state.signs(0)
    assert bot.sign(state.observation(0), rules.menu.cards) == sign_for(["1b", "3o", "4c"], False)
    search = make_bot("truco", "search", random.Random(1))
    assert search.sign(state.observation(0), rules.menu.cards) == "1b"
