"""Trut Deluxe's powers that act when a card lands in a trick [T30, T36, T38-T41].

A mixin of :class:`~trutnet.games.trut.rules.state.TrutState`, called by the play of
a card when the ``deluxe`` option is on. When a card lands (T30): its own effect first
(the Badger's die, the Jay's die, the Magpie's and the Bat's choices), then the effects
of earlier cards that it triggers (a waiting Badger hits the first Figure; a Raven
meeting a Fox rolls). Effects wait in ``pending``, one at a time: a die is a joint
draw (``die k``, a chance node), a choice is a decision of the card's player
(``hit``, ``steal``, ``bat``, ``pass``). When none is left, the trick goes on.

* T38 Raven: with a Fox (a Jack, T24) in its trick, whichever came first, one die is
  subtracted from the Raven, once.
* T39 Badger: a die at once, subtracted from one Figure of the trick chosen by the
  player (``hit Kh``), or from the first Figure played later in the trick.
* T36 Magpie: ``steal`` (with 3 players ``steal <seat>``) an opponent's unprotected
  Petit, else a Long, or ``pass``.
* T40 Bat: ``bat <card> +1|-1`` on another card of the trick, or ``pass``.
* T41 Jay: with an empty pot, a die of Petits goes into the pot; otherwise the team
  that captures that Jay takes the pot (:mod:`.rules`, the capture).
* T37 Weasel: ``target <seat>``, a die, then its outcome (:mod:`.weasel`).
* T42 Hedgehog: its team's Petits protected from the moment it lands (:mod:`.hedgehog`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.api import Action
from trutnet.engine.errors import HiddenCard, IllegalAction
from trutnet.games.trut.rules.actions import (
    PASS,
    CardRef,
    Die,
    HareDraw,
    NutriaDraw,
    Power,
    Word,
)
from trutnet.games.trut.rules.deluxe.cards import AnyCard, Special, is_figure, is_fox
from trutnet.games.trut.rules.deluxe.hedgehog import HEDGEHOG
from trutnet.games.trut.rules.deluxe.weasel import TARGET

RAVEN, BADGER, JAY, MAGPIE, BAT, HARE, NUTRIA = "I", "J", "K", "G", "P", "F", "L"
WOLF, WEASEL = "B", "H"
DIE = tuple(Die(k) for k in range(1, 7))


def _letter(card: AnyCard) -> str | None:
    return card.letter if isinstance(card, Special) else None


class DeluxePowers:
    """The powers of the cards in a trick (mixed into ``TrutState``)."""

    n: int
    phase: str
    to_act: int | None
    marker: int
    team_of: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...]
    longs: list[int]
    petits: list[int]
    events: list[dict[str, Any]]
    trick: list[tuple[int, int, AnyCard]]
    pending: list[tuple[str, str, int]]
    mods: list[int]
    raven_done: bool
    badger_wait: int | None
    jay_pot: int
    jay_claim: bool
    power_seat: int | None
    next_stock: int
    deck_size: int
    known: dict[int, AnyCard]
    hare_drawn: list[int]
    area: list[tuple[int, int, AnyCard]]
    michao_hare: bool
    michao_sung: bool
    michao_queue: list[int]
    nutria_offer: list[int]
    nutria_gone: list[int]
    discarded: list[int]
    weasel_minus: list[int]

    def _powers_init(self) -> None:
        self.pending = []  # effects still to resolve: (kind, card, value)
        self.mods = []  # T28: each trick card's modifier, for this trick only
        self.raven_done = False
        self.badger_wait = None
        self.jay_pot = 0  # T41: the Jay pot, for the whole game
        self.jay_claim = False  # T41: a Jay played on a non-empty pot lies in the area
        self.power_seat = None
        self.hare_drawn = []  # T34: this hand's cards drawn by the Hare
        self.michao_sung = False  # T44: at most one Michao per hand
        self.michao_queue = []
        self.nutria_offer = []  # T35: the two stock cards shown to the Nutria's player
        self.nutria_gone = []  # T35: Nutrias replaced, out of the trick

    def _powers_reset_trick(self) -> None:
        self.mods = []
        self.raven_done = False
        self.badger_wait = None
        self.weasel_minus = []  # T37 (2): for this trick
        self._weasel_end()

    def _powers_public(self) -> dict[str, Any]:
        return {
            "pending": [list(p) for p in self.pending],
            "mods": list(self.mods),
            "raven_done": self.raven_done,
            "badger_wait": self.badger_wait,
            "jay_pot": self.jay_pot,
            "jay_claim": self.jay_claim,
            "power_seat": self.power_seat,
            "hare_drawn": list(self.hare_drawn),
            "michao_sung": self.michao_sung,
            "michao_queue": list(self.michao_queue),
            "nutria_offer": list(self.nutria_offer),
            "nutria_gone": list(self.nutria_gone),
        }

    # ---- a card lands [T30]

    def _deluxe_landed(self, seat: int, card: AnyCard) -> bool:
        """Queue the effects of ``card`` landing; True if the game waits for one."""
        self.mods.append(0)
        self.pending = self._landing_effects(seat, card, len(self.trick) - 1)
        self.power_seat = seat
        return self._powers_run()

    def _landing_effects(self, seat: int, card: AnyCard, idx: int) -> list[tuple[str, str, int]]:
        """T30: the effects of ``card`` landing at ``idx`` of the trick (played, or
        replacing the Nutria), in order: Michao, its own, then those it triggers."""
        letter = _letter(card)
        effects: list[tuple[str, str, int]] = []
        if not self.michao_sung and self._completes_trio(idx):  # T44: before its own
            effects.append(("michao", "michao", 0))
            self.michao_queue = [(seat + i) % self.n for i in range(self.n)]
        if letter == HARE and self.next_stock < self.deck_size:  # T34 (empty stock: 1)
            effects.append(("reveal", HARE, 0))
        if letter == BADGER:  # T39: the die at once
            effects.append(("die", BADGER, 0))
        elif letter == JAY:  # T41
            if self.jay_pot == 0:
                effects.append(("die", JAY, 0))
            else:
                self.jay_claim = True
        elif letter == MAGPIE:  # T36
            effects.append(("turn", MAGPIE, 0))
        elif letter == BAT and len(self.trick) > 1:  # T40: a Bat played first has no target
            effects.append(("turn", BAT, 0))
        elif letter == NUTRIA and self.next_stock < self.deck_size:  # T35 (no stock: stays)
            effects.append(("die", NUTRIA, 0))
        elif letter == WEASEL and self._weasel_targets(seat):  # T37: target, die, outcome
            effects.append(("turn", WEASEL, TARGET))
        elif letter == HEDGEHOG:  # T42: protection from the moment it is played
            self._hedgehog_landed(seat, self.trick[idx][1])
        if is_figure(card) and self.badger_wait is not None:  # T39: the waiting Badger
            self.mods[idx] -= self.badger_wait
            self.events.append({"event": "badger", "card": str(card), "value": self.badger_wait})
            self.badger_wait = None
        if not self.raven_done and (letter == RAVEN or is_fox(card)):  # T38
            cards = [c for _, _, c in self.trick]
            if any(_letter(c) == RAVEN for c in cards) and any(is_fox(c) for c in cards):
                self.raven_done = True
                effects.append(("die", RAVEN, 0))
        return effects

    def _powers_run(self) -> bool:
        if self.pending:
            kind = self.pending[0][0]
            if kind == "die":
                self.phase, self.to_act = "die", -1
            elif kind == "reveal":
                self.phase = "hare" if self.pending[0][1] == HARE else "nutria"
                self.to_act = -1
            elif kind == "michao":
                self.phase, self.to_act = "michao", self.michao_queue[0]
            elif kind == "swap":  # T37 (1): the joint pick of the target's card
                self.phase, self.to_act = "swap", -1
            else:
                self.phase, self.to_act = "power", self.power_seat
            return True
        self.phase = "play"
        return False

    def _powers_resume(self) -> None:
        if self.phase == "over":  # T45: a gain reached the target, the game ends at once
            self._close_hand("target", None, self.marker)
            return
        if self._powers_run():
            return
        seat = self.power_seat
        assert seat is not None
        self.power_seat = None
        self._after_play(seat)

    def _index_of(self, letter: str) -> int:
        return next(i for i, (_, _, c) in enumerate(self.trick) if _letter(c) == letter)

    # ---- the die [T22]

    def _apply_die(self, action: Die) -> Die:
        self._require(self.phase == "die", "T30", "no die is waited for now")
        _, letter, _ = self.pending.pop(0)
        k = action.value
        self.events.append({"event": "die", "for": letter, "value": k})
        if letter == RAVEN:  # T38
            self.mods[self._index_of(RAVEN)] -= k
        elif letter == JAY:  # T41
            self.jay_pot += k
        elif letter == NUTRIA:  # T35: even, the next stock card; odd, a pick of two
            if k % 2 == 0 or self.deck_size - self.next_stock == 1:
                self.pending.insert(0, ("reveal", NUTRIA, 0))
            else:
                self.nutria_offer = [self.next_stock, self.next_stock + 1]
                self.next_stock += 2
                self.pending.insert(0, ("turn", NUTRIA, 0))
        elif letter == WEASEL and self._weasel_die(k):  # T37
            return action  # a Trut d'Office waits for its answers, or the hand ended
        elif letter == BADGER:  # T39
            figures = [i for i, (_, _, c) in enumerate(self.trick) if is_figure(c)]
            if not figures:
                self.badger_wait = k
            elif len(figures) == 1:
                self.mods[figures[0]] -= k
            else:
                self.pending.insert(0, ("turn", BADGER, k))
        self._powers_resume()
        return action

    # ---- Michao [T44]

    def _trio(self, cards: list[AnyCard]) -> bool:
        letters = {_letter(c) for c in cards}
        fox = any(is_fox(c) for c in cards)
        third = WEASEL in letters or (self.michao_hare and HARE in letters)
        return WOLF in letters and fox and third

    def _completes_trio(self, idx: int) -> bool:
        """T44: the card at ``idx`` of the trick makes a trio of the Wolf, a Fox and the
        Weasel (or the Hare, option) with the cards in the game area (earlier pattés
        included)."""
        area = [c for _, _, c in self.area]
        trick = [c for _, _, c in self.trick]
        return self._trio(area + trick) and not self._trio(area + trick[:idx] + trick[idx + 1 :])

    def _michao_legal(self, seat: int) -> list[Action]:
        if self.phase != "michao" or seat != self.to_act:
            return []
        return [Power("michao"), PASS]

    def _apply_michao(self, seat: int, action: Power | Word) -> Action:
        self._require(action in self._michao_legal(seat), "T44", "michao or pass")
        if isinstance(action, Power):  # the first to sing: 1 Long, the window closes
            self.michao_sung = True
            self.michao_queue = []
            self.events.append({"event": "michao", "seat": seat})
            self._gain(self.team_of[seat], 0, 1)
        else:
            self.michao_queue.pop(0)
        if self.michao_queue:
            self.to_act = self.michao_queue[0]
            return action
        self.pending.pop(0)
        self._powers_resume()
        return action

    # ---- the Nutria [T35]

    def _apply_nutria_draw(self, action: NutriaDraw) -> NutriaDraw:
        self._require(self.phase == "nutria", "T35", "no Nutria waits for a card now")
        pos, card = action.ref.pos, action.ref.card
        self._require(pos == self.next_stock, "T35", "the next stock card replaces the Nutria")
        if card is None:
            raise HiddenCard("the Nutria's card is revealed: give its identity (nutria 7h@12)")
        assert pos is not None
        self._require(self.known.get(pos, card) == card, "T35", f"{pos} does not hold {card}")
        self.pending.pop(0)
        self.next_stock += 1
        self._nutria_replace(pos, card)
        return NutriaDraw(CardRef(card, pos))

    def _apply_pick(self, seat: int, action: Power) -> Power:
        ref = CardRef.parse(action.args[0])
        waiting = self.phase == "power" and self.pending and self.pending[0][1] == NUTRIA
        self._require(bool(waiting) and seat == self.to_act, "T35", "no Nutria pick now")
        self._require(ref.pos in self.nutria_offer, "T35", f"{ref} was not offered")
        assert ref.pos is not None
        card = ref.card if ref.card is not None else self.known.get(ref.pos)
        if card is None:
            raise HiddenCard("the picked card is revealed: give its identity (pick 7h@12)")
        self._require(self.known.get(ref.pos, card) == card, "T35", f"{ref} is not {card}")
        self.pending.pop(0)
        self.discarded.extend(p for p in self.nutria_offer if p != ref.pos)  # never revealed
        self.nutria_offer = []
        self._nutria_replace(ref.pos, card)
        return Power("pick", (f"{card}@{ref.pos}",))

    def _nutria_replace(self, pos: int, card: AnyCard) -> None:
        """T35: the card replaces the Nutria in the trick as its seat's card, and lands
        (its own effect runs); the Nutria leaves the trick, never captured."""
        idx = self._index_of(NUTRIA)
        seat, old, _ = self.trick[idx]
        self.nutria_gone.append(old)
        self.known[pos] = card
        self.trick[idx] = (seat, pos, card)
        self.mods[idx] = 0
        self.events.append({"event": "nutria", "seat": seat, "card": str(card)})
        self.pending[0:0] = self._landing_effects(seat, card, idx)
        self._powers_resume()

    # ---- the Hare [T34]

    def _apply_hare(self, action: HareDraw) -> HareDraw:
        self._require(self.phase == "hare", "T34", "no Hare waits for a card now")
        pos, card = action.ref.pos, action.ref.card
        self._require(pos == self.next_stock, "T34", "the Hare draws the next stock card")
        if card is None:
            raise HiddenCard("the Hare's card is revealed: give its identity (hare 7h@12)")
        assert pos is not None
        known = self.known.get(pos)
        if known is not None and known != card:
            raise IllegalAction("T34", f"position {pos} does not hold {card}")
        self.pending.pop(0)
        self.known[pos] = card
        self.next_stock += 1
        self.hare_drawn.append(pos)  # T34: lends its value, never played nor captured
        self.mods[self._index_of(HARE)] += card.value
        self.events.append({"event": "hare", "card": str(card), "value": card.value})
        self._powers_resume()
        return HareDraw(CardRef(card, pos))

    # ---- choices [T36, T39, T40]

    def _power_legal(self, seat: int) -> list[Action]:
        if self.phase != "power" or seat != self.to_act or not self.pending:
            return []
        _, letter, _ = self.pending[0]
        cards = [c for _, _, c in self.trick]
        if letter == BADGER:
            return [Power("hit", (str(c),)) for c in cards if is_figure(c)]
        if letter == NUTRIA:  # T35: one of the two cards it was shown (by position)
            return [Power("pick", (f"{self.known.get(p, '')}@{p}",)) for p in self.nutria_offer]
        if letter == WEASEL:  # T37
            return self._weasel_legal(seat, self.pending[0][2])
        if letter == BAT:
            own = self.trick[-1][2] if self.trick else None
            return [PASS] + [
                Power("bat", (str(c), sign)) for c in cards if c != own for sign in ("+1", "-1")
            ]
        if self.n == 3:  # T36, T47: any opponent, even one who folded
            return [PASS] + [Power("steal", (str(s),)) for s in range(3) if s != seat]
        return [PASS, Power("steal")]

    def _apply_power(self, seat: int, action: Power | Word) -> Action:
        if isinstance(action, Power) and action.verb == "pick":
            return self._apply_pick(seat, action)
        _, letter, value = self.pending[0] if self.pending else ("", "", 0)
        if letter == WEASEL and self.phase == "power" and seat == self.to_act:  # T37
            if not isinstance(action, Power):
                raise IllegalAction("T37", f"the Weasel waits for a choice, not {action}")
            self._check_weasel(seat, action, value)
            self.pending.pop(0)
            done = self._apply_weasel(seat, action, value)
            self.events.append({"event": "power", "seat": seat, "action": str(done)})
            self._powers_resume()
            return done
        legal = self._power_legal(seat)
        rule = {BADGER: "T39", BAT: "T40", MAGPIE: "T36"}.get(letter, "T30")
        self._require(action in legal, rule, f"{action} is not a choice now: {legal}")
        self.pending.pop(0)
        cards = [str(c) for _, _, c in self.trick]
        if isinstance(action, Power) and action.verb == "hit":
            self.mods[cards.index(action.args[0])] -= value
        elif isinstance(action, Power) and action.verb == "bat":
            self.mods[cards.index(action.args[0])] += 1 if action.args[1] == "+1" else -1
        elif isinstance(action, Power) and action.verb == "steal":
            victim = self.team_of[int(action.args[0])] if action.args else None
            self._steal(self.team_of[seat], victim)
        self.events.append({"event": "power", "seat": seat, "action": str(action)})
        self._powers_resume()
        return action

    def _steal(self, team: int, victim: int | None) -> None:
        """T36: an unprotected Petit of the opposing team, else a Long, else nothing."""
        if victim is None:
            victim = next(t for t in range(len(self.teams)) if t != team)
        if self.petits[victim] > 0 and not self._protected(victim):  # T42: none to take
            self.petits[victim] -= 1
            self._gain(team, 1, 0)
        elif self.longs[victim] > 0:
            self.longs[victim] -= 1
            self._gain(team, 0, 1)

    if TYPE_CHECKING:  # TrutState's and DeluxeRules' own

        @staticmethod
        def _require(condition: bool, rule: str, message: str) -> None: ...

        def _after_play(self, seat: int) -> None: ...

        def _close_hand(self, result: str, team: int | None, next_dealer: int) -> None: ...

        def _gain(self, team: int, petits: int, longs: int) -> None: ...

        def _weasel_end(self) -> None: ...

        def _weasel_die(self, k: int) -> bool: ...

        def _weasel_targets(self, seat: int) -> list[int]: ...

        def _weasel_legal(self, seat: int, step: int) -> list[Action]: ...

        def _check_weasel(self, seat: int, action: Power, step: int) -> None: ...

        def _apply_weasel(self, seat: int, action: Power, step: int) -> Action: ...

        def _hedgehog_landed(self, seat: int, pos: int) -> None: ...

        def _protected(self, team: int) -> bool: ...
