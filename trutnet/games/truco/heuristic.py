"""A Truco bot that plays from its own observation, aware of envido and card strength.

* Envido: opens or raises with a strong envido (27 and up), accepts from 25 and up,
  declares whenever it may (a weak number is left as *son buenas*), and bets falta
  envido only with 31 or more.
* Truco: calls or raises when its cards are strong for the tricks still to play
  (strength from K3's levels), accepts when it holds at least one good card or has
  already won a trick, refuses otherwise; never goes to the mazo unless refusing is
  impossible and its hand is hopeless. Given its seat's state (at a table, or in
  self-play), it first plays the hand out on samples of what it cannot see (drawn from
  its own observation: ``determinise``): when no sample wins the hand, the truco is
  clearly lost, and it refuses it, whatever its cards (a partner that does not accept
  a lost truco, issue 21).
* Tricks: wins a trick with its cheapest card that beats the table, lets a partner's
  winning card stand with its lowest, and throws its lowest when it cannot win.
* Signs (K15): once a hand, with its three cards in hand, it signs the card that
  tells the most (``sign_for``: its best brava, a flor, a three, a two, a false ace,
  a big envido, or nothing). It reads the signs it is shown (``heard``): a partner's
  good card still in hand counts as one of its own for a truco, a partner's envido of
  30 or more as its own envido; an opponent's good card caught counts against it, an
  opponent's big envido caught makes it refuse an envido it cannot beat; and the
  samples of a truco to answer agree with every sign it was shown.
"""

from __future__ import annotations

import random
from typing import Any

from trutnet.bots.signs import Heard
from trutnet.engine.api import CHANCE, Action, GameState
from trutnet.engine.hidden import Told
from trutnet.games.truco.rules.actions import Declare, Play, Show, Word
from trutnet.games.truco.rules.cards import LEVEL, envido, rank, sign_for
from trutnet.games.truco.rules.observation import TrucoObservation

STRONG = 9  # a 3 or better (K3)
SAMPLES = 16  # hands played out on samples before it accepts a truco
BIG_ENVIDO = 30  # what the sign "envido" tells (K15)


def _level(card: str | None) -> int:
    return LEVEL.get(card or "", 0)


class HeuristicBot:
    def __init__(self, rng: random.Random, samples: int = SAMPLES) -> None:
        self.rng = rng
        self.samples = samples  # 0: decide from the observation alone
        self._lost = False  # this decision's truco is clearly lost (``choose_in``)
        self.told = Heard()  # the signs its seat was shown (K15)

    def heard(self, told: Told) -> None:
        """A sign its seat was shown: a partner's, or an opponent's it caught."""
        self.told.add(told)

    def choose_in(self, state: GameState, seat: int) -> Action:
        """``seat``'s decision at ``state``; a truco to answer is played out first on
        samples that depend on the seat's observation alone."""
        obs = state.observation(seat)
        answering = obs.truco_call is not None and Word("quiero") in obs.legal
        self._lost = (
            bool(self.samples)
            and answering
            and hand_lost(
                state, seat, random.Random(self.rng.getrandbits(64)), self.samples, self.told.all()
            )
        )
        try:
            return self.choose(obs)
        finally:
            self._lost = False

    def sign(self, obs: TrucoObservation, menu: tuple[str, ...]) -> str | None:
        """K15: the sign that tells the most of a whole hand; none once it played."""
        cards = [card for _pos, card in obs.hand if card is not None]
        if len(cards) != 3:
            return None
        return sign_for(cards, "flor" in menu)

    def choose(self, obs: TrucoObservation) -> Action:
        legal = list(obs.legal)
        words = {str(a) for a in legal if isinstance(a, Word)}
        cards = [c for _, c in obs.kept if c is not None]
        env = envido(cards) if len(cards) == 3 else 0
        in_hand = [c for _, c in obs.hand if c is not None]
        strength = sorted((_level(c) for c in in_hand), reverse=True)
        won = sum(1 for r in obs.results if r == obs.sides[obs.seat])
        ours, theirs = self._signed(obs)
        good = sum(1 for s in strength if s >= STRONG) + won + _strong(ours, obs)
        if _strong(theirs, obs):  # an opponent's good card still to come
            good = max(0, good - 1)
        team_env = max(env, BIG_ENVIDO if any(t.card == "envido" for t in ours) else 0)
        beat = BIG_ENVIDO + 1 if any(t.card == "envido" for t in theirs) else 0  # to beat

        declares = [a for a in legal if isinstance(a, Declare)]
        if declares:
            return declares[0]
        shows = [a for a in legal if isinstance(a, Show)]
        if shows:
            return shows[0]
        if len(legal) == 1:
            return legal[0]
        if "con flor quiero" in words:  # flor bets (K17): contest with a good flor
            good_flor = env >= 30 or self.rng.random() < 0.5
            return Word("con flor quiero" if good_flor else "con flor me achico")
        if obs.envido_waiting:
            if team_env >= 31 and "falta envido" in words:
                return Word("falta envido")
            if team_env >= max(29, beat) and "real envido" in words:
                return Word("real envido")
            return Word("quiero" if team_env >= max(25, beat) else "no quiero")
        if obs.truco_call is not None and "quiero" in words:
            for bet in ("envido", "real envido"):  # el envido está primero (K24)
                if bet in words and team_env >= max(27, beat):
                    return Word(bet)
            if self._lost:
                return Word("no quiero")
            raise_word = next((w for w in words if w.startswith("quiero ")), None)
            if raise_word and good >= 2:
                return Word(raise_word)
            return Word("quiero" if good >= 1 or self.rng.random() < 0.2 else "no quiero")
        plays = [a for a in legal if isinstance(a, Play)]
        if "envido" in words and team_env >= max(27, beat):
            return Word("real envido" if team_env >= 30 and "real envido" in words else "envido")
        for call in ("truco", "retruco", "vale cuatro"):
            if call in words and (good >= 2 or (good >= 1 and self.rng.random() < 0.3)):
                return Word(call)
        if plays:
            return self._play(obs, plays)
        return self.rng.choice(legal)

    def _signed(self, obs: TrucoObservation) -> tuple[list[Told], list[Told]]:
        """The signs of this hand it was shown: its partners', its opponents'."""
        side = obs.sides[obs.seat]
        signs = [t for t in self.told.of(obs.hand_no) if 0 <= t.seat < len(obs.sides)]
        ours = [t for t in signs if obs.sides[t.seat] == side and t.seat != obs.seat]
        return ours, [t for t in signs if obs.sides[t.seat] != side]

    def _play(self, obs: TrucoObservation, plays: list[Action]) -> Action:
        trick = obs.tricks[-1] if obs.tricks else ()
        side = obs.sides[obs.seat]
        by_level = sorted(plays, key=lambda a: _level(a.card if isinstance(a, Play) else None))
        if not trick:
            return by_level[-1] if len(by_level) == 3 else by_level[0]
        top = max(_level(c) for _, c in trick)
        ours = any(obs.sides[s] == side and _level(c) == top for s, c in trick)
        theirs = any(obs.sides[s] != side and _level(c) == top for s, c in trick)
        if ours and not theirs:
            return by_level[0]
        winners = [a for a in by_level if isinstance(a, Play) and _level(a.card) > top]
        return winners[0] if winners else by_level[0]


def _strong(signs: list[Told], obs: TrucoObservation) -> int:
    """1 when one of ``signs`` tells a good card (a three or better, K3) that its
    signer has not played in this hand's tricks yet, else 0."""
    for told in signs:
        played = [card for trick in obs.tricks for seat, card in trick if seat == told.seat]
        if told.card in ("1e", "1b", "7e", "7o") and told.card not in played:
            return 1
        if told.card == "3" and not any(rank(card) == 3 for card in played):
            return 1
    return 0


def hand_lost(
    state: GameState, seat: int, rng: random.Random, samples: int, told: tuple[Told, ...] = ()
) -> bool:
    """True when, on samples of what ``seat`` cannot see (agreeing with the signs it
    was shown, ``told``), its side never wins the hand's truco once it accepts: every
    seat plays the rest of the hand as this bot does from its own cards (with no
    samples of its own). Envido and flor points of the hand are not counted (they are
    decided apart, K28); a sample cut short (a chico over, a word the sample cannot
    prove) says nothing."""
    seed = rng.getrandbits(64)
    side = state.observation(seat).sides[seat]
    ended = 0  # samples played out to the hand's end
    for index in range(samples):
        sample: Any = state.determinise(seat, random.Random(f"{seed}/{index}"), told)
        sample.apply(Word("quiero"))
        winner = _truco_winner(sample, seed, index)
        if winner is None:
            continue
        if winner == side:
            return False
        ended += 1
    return ended > 0


def _truco_winner(sample: Any, seed: int, index: int) -> int | None:
    """Play ``sample``'s hand out; the side that scores its truco (K28: the last item
    the hand scores, after flor and envido), or None when the sample cannot say."""
    bots: dict[int, HeuristicBot] = {}
    chance = random.Random(f"{seed}/{index}/chance")
    hand = sample.round_number()
    items = 0  # the hand's flor and envido items, scored before its truco
    while not sample.is_terminal() and sample.round_number() == hand:
        items = len(sample.flor_pts) + (sample.envido_pts is not None)
        actor = sample.current_seat()
        if actor == CHANCE:
            sample.apply(sample.sample_chance(chance))
            continue
        obs = sample.observation(actor)
        if not obs.legal:
            automatic = sample.legal_actions(actor)
            if not automatic:
                return None  # a word the sample cannot prove
            sample.apply(automatic[0])
            continue
        bot = bots.setdefault(actor, HeuristicBot(random.Random(f"{seed}/{actor}"), 0))
        sample.apply(bot.choose(obs))
    scored = sample.last_scored
    if sample.round_number() == hand or len(scored) != items + 1:
        return None  # the chico ended first, and the rest was dropped
    return int(scored[-1][0])
