"""What a Truco seat may do now (:meth:`TrucoLegal.legal_actions`): the flor's answers
and declarations and the proofs they need (K16, K20, K21), the envido bets (K18, K19,
K24), the truco calls and answers (K23), and the cards it may play (K4, K14). A mixin
of :class:`~trutnet.games.truco.rules.state.TrucoState`: what a seat's words and cards
may be; :mod:`.bets` says what they do."""

from __future__ import annotations

from itertools import combinations

from trutnet.engine.api import CHANCE, Action
from trutnet.games.truco.rules.actions import (
    Declare,
    Discard,
    Play,
    Show,
    Word,
)
from trutnet.games.truco.rules.cards import (
    ENVIDO_VALUES,
    FLOR_VALUES,
    envido,
    flor,
    is_flor,
    suit,
    value,
)

RAISES = {"truco": "quiero retruco", "retruco": "quiero vale cuatro"}  # the answer that raises


class TrucoLegal:
    """Mixed into :class:`TrucoState`: see the module."""

    def _kept_known(self, seat: int) -> list[str] | None:
        cards = [self.known.get(p) for p in self.dealt[seat]]
        if len(cards) != 3 or None in cards:
            return None
        return cards  # type: ignore[return-value]

    def _can_open_envido(self, seat: int) -> bool:
        """K19 (and K16: no envido once a flor is announced)."""
        return (
            not any(self.flor_said.values())
            and not self.envido_chain
            and self.truco_level == 1
            and seat not in self.played
            and seat not in self.folded
        )

    def _envido_bets(self) -> list[Action]:
        """K18: envido at most twice, then real envido once, then falta envido."""
        chain = self.envido_chain
        bets = []
        if "falta envido" not in chain:
            if "real envido" not in chain:
                if chain.count("envido") < 2:
                    bets.append(Word("envido"))
                bets.append(Word("real envido"))
            bets.append(Word("falta envido"))
        return bets

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        actor = self.current_seat()
        if seat is None:
            seat = actor
        if seat is None or seat == CHANCE or seat != actor:
            return []
        phase = self.phase
        if phase == "discard":
            return [Discard(p, self.known.get(p)) for p in self.dealt[seat]]
        if phase == "flor":
            cards = self._kept_known(seat)
            if cards is None:
                return [Word("flor"), Word("no flor")]
            return [Word("flor" if is_flor(cards) else "no flor")]  # K16
        if phase == "florbet":
            return self._flor_answers()
        if phase == "declare":
            return self._declarations(seat)
        if phase == "show":
            return self._shows(seat)
        return self._play_options(seat)

    def _pass(self) -> list[Action]:
        return [Word("paso")] if len(self.asked) > 1 else []  # K14

    def _flor_answers(self) -> list[Action]:
        words = {
            "B": ("con flor quiero", "con flor me achico", "contraflor", "contraflor al resto"),
            "contra": ("con flor quiero", "con flor me achico", "contraflor al resto"),
            "resto": ("con flor quiero", "con flor me achico"),
        }[self.flor_stage]
        return [Word(w) for w in words] + self._pass()

    def _declarations(self, seat: int) -> list[Action]:
        """K20: the number comes from the seat's own cards; a replica that does not
        know them accepts any valid number above the best."""
        best = -1 if self.best is None else self.best[0]
        first = self.best is None
        cards = self._kept_known(seat)
        if cards is not None:
            mine = flor(cards) if self.decl_kind == "flor" else envido(cards)
            values = [mine] if mine > best else []
        else:
            values = [
                v for v in (FLOR_VALUES if self.decl_kind == "flor" else ENVIDO_VALUES) if v > best
            ]
        options: list[Action] = [Declare(v) for v in values]
        if not first:
            options.append(Word("son buenas"))
        return options

    def _shows(self, seat: int) -> list[Action]:
        """K21: the cards that prove a flor (all three) or the winning envido (the
        two of one suit for 20-33, the one card for 0-7)."""
        _, kind, declared = self.provers[0]
        kept = sorted(self.dealt[seat])
        if kind == "flor":
            sets = [tuple(kept)]
        else:
            size = 2 if declared >= 20 else 1
            sets = list(combinations(kept, size))
            cards = self._kept_known(seat)
            if cards is not None:
                sets = [
                    ps for ps in sets if self._proves([self.known[p] for p in ps], kind, declared)
                ]
        return [Show(tuple((p, self.known.get(p)) for p in ps)) for ps in sets]

    def _proves(self, cards: list[str], kind: str, declared: int) -> bool:
        if kind == "flor":
            return is_flor(cards) and (declared < 0 or flor(cards) == declared)
        if declared >= 20:
            return (
                len(cards) == 2
                and suit(cards[0]) == suit(cards[1])
                and (20 + value(cards[0]) + value(cards[1]) == declared)
            )
        return len(cards) == 1 and value(cards[0]) == declared

    def _play_options(self, seat: int) -> list[Action]:
        options: list[Action] = []
        if self.envido_bettor is not None:  # an envido bet awaits (K18)
            return [Word("quiero"), Word("no quiero"), *self._envido_bets(), *self._pass()]
        if self.truco_call is not None:  # a truco step awaits (K23, K24)
            options = [Word("quiero"), Word("no quiero")]
            raise_word = RAISES.get({2: "truco", 3: "retruco"}.get(self.truco_call[0], ""))
            if raise_word:
                options.append(Word(raise_word))
            if self._can_open_envido(seat):
                options += self._envido_bets()
            return options + self._pass()
        options = [Play(p, self.known.get(p)) for p in self.hands[seat]]
        if self._can_open_envido(seat):
            options += self._envido_bets()
        if not self.truco_called:
            options.append(Word("truco"))
        elif self.truco_owner == self.side(seat) and self.truco_level < 4:
            options.append(Word({2: "retruco", 3: "vale cuatro"}[self.truco_level]))
        options.append(Word("mazo"))
        return options
