"""Lutin & Troll's rules: the state of a game and how each action changes it.

Rulings L1-L33 (``docs/games/lutin.md``) are cited where they apply. Variants ``base``
and ``initiation`` (L4, L31).

Hidden information (``docs/engine.md``, the Lutin & Troll table):

* base: a hand is five sealed choices ``hand/0`` .. ``hand/4`` (``take g5``), the
  attacker's first (L16, L32); ``play hand/2`` is then opened by its ``take``, which
  every replica checks against the pioche as it was when the hand was chosen, less
  the cards already opened from that hand (L16); the unplayed ones are opened when the
  manche ends (L15). The pioches and défausses are public multisets (L17, L18).
* initiation: each deck is shuffled jointly (L31); a hand is the next five positions
  of its owner's pioche, shown to it alone (``sight``); a play reveals its position;
  the unplayed cards are revealed by a ``show`` at the manche's end (L15).

Private knowledge (never in the hash): ``secrets``, this replica's sealed hand cards
(its own seat's, or every seat's for a full-knowledge state), and ``known``, the deck
positions it was shown.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from trutnet.engine.api import CHANCE, Action, Game, GameState, copy_fields
from trutnet.engine.errors import ConfigError, HiddenCard, IllegalAction
from trutnet.engine.hidden import (
    Deck,
    Pos,
    Reveal,
)
from trutnet.games.lutin.rules.actions import (
    LABELS,
    Dealt,
    First,
    PlayLabel,
    PlayPos,
    Seal,
    Show,
    Take,
    parse_action,
)
from trutnet.games.lutin.rules.cards import (
    COPY_NAMES,
    DECKS,
    FULL_DECK,
    HAND,
    KINDS,
    MAX_HP,
    SEATS,
    WIN_VP,
    Counts,
    combat,
    kind,
    kinds_listed,
)
from trutnet.games.lutin.rules.expert import DECIDING, TOKEN_PHASES, ExpertRules
from trutnet.games.lutin.rules.hidden import LutinHidden
from trutnet.games.lutin.rules.observation import LutinObservation
from trutnet.games.lutin.rules.powers import POWERS, TOKEN_DECK, TOKEN_NAMES

VARIANTS = ("base", "expert-white", "expert-black", "initiation")  # L4
CHANCE_PHASES = ("coin", "shuffle", "reveal", "tshuffle")
SEALED_PHASES = ("choose", "open", "end_open")


INDEX = {k: i for i, k in enumerate(KINDS)}
FULL = [FULL_DECK[k] for k in KINDS]
TAKES = tuple(Take(k) for k in KINDS)
PLAYS = tuple(PlayLabel(k) for k in range(HAND))


class LutinState(ExpertRules, LutinHidden, GameState):
    def __init__(self, game: LutinGame) -> None:
        self._game = game
        self.initiation = game.variant == "initiation"
        self.power = POWERS.get(game.variant)  # L19: "white", "black" or None
        self.phase = "coin"
        self.first = 0
        self.attacker = 0
        self.hp = [MAX_HP] * SEATS  # L3
        self.vp = [0] * SEATS  # L3
        self.manche = 0
        self.hands = 0  # hands taken: manches and continuations (the round number)
        # base: what each pioche held when the hand was chosen (the hand included, L17)
        # less the cards opened from that hand since (L16); the slots not yet played
        self.pool: list[Counts] = [list(FULL) for _ in range(SEATS)]
        self.slots: list[list[int]] = [[] for _ in range(SEATS)]
        self.defausse: list[Counts] = [[0] * len(KINDS) for _ in range(SEATS)]  # L18
        self.chosen: list[Counts] = [[0] * len(KINDS) for _ in range(SEATS)]  # private
        # initiation: positions (L31)
        self.to_shuffle = [d.name for d in DECKS] if self.initiation else []
        self.deck_pos: list[list[Pos]] = [[] for _ in range(SEATS)]
        self.hand_pos: list[list[Pos]] = [[] for _ in range(SEATS)]
        self.gone_pos: list[Pos] = []  # played or shown: on a défausse
        self.queue: list[tuple[int, int]] = []  # (seat, slot) to choose or to open
        self.table: list[tuple[int, str]] = []  # the combat in progress: attack, riposte
        self.last: tuple[int, str, str, int, int, int | None] | None = None
        self.manche_winner: int | None = None
        self.winner: int | None = None
        self.secrets: dict[tuple[int, int], str] = {}  # private: sealed cards known here
        self.known: dict[Pos, str] = {}  # private: deck positions shown to this replica
        self._history: list[Action] = []
        self._init_expert()

    # ---------------------------------------------------------------- interface

    @property
    def game(self) -> LutinGame:
        return self._game

    def current_seat(self) -> int | None:
        phase = self.phase
        if phase == "over":
            return None
        if phase in CHANCE_PHASES:
            return CHANCE
        if phase == "attack":
            return self.attacker
        if phase == "riposte":
            return 1 - self.attacker
        if phase in TOKEN_PHASES:
            return self.tq[0][0]
        return self.queue[0][0]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def history(self) -> list[Action]:
        return list(self._history)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def returns(self) -> list[float]:
        return [1.0 if self.winner == s else 0.0 for s in range(SEATS)]

    def round_number(self) -> int:
        """The hand in progress (a manche's, or a continuation's, L14), from 0."""
        return max(0, self.hands - 1)

    def clone(self) -> LutinState:
        """Field by field (``copy_fields``: lists, lists of lists, dicts); the one field
        that nests deeper, the expert mode's ``open_slots`` (a dict per seat), copied
        to its dicts. Every other value held is immutable."""
        other = copy_fields(self)
        other.open_slots = [dict(d) for d in self.open_slots]
        return other

    # ---------------------------------------------------------------- legal actions

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if seat is None:
            seat = self.current_seat()
        if seat is None or seat == CHANCE or seat != self.current_seat():
            return []
        phase = self.phase
        if phase == "choose":
            pool, chosen = self.pool[seat], self.chosen[seat]
            return [TAKES[i] for i in range(len(KINDS)) if pool[i] > chosen[i]]
        if phase in TOKEN_PHASES:
            return self._token_legal(seat)
        if phase in ("open", "end_open"):
            secret = self.secrets.get(self.queue[0])
            if secret is not None:
                return [Take(secret)]
            return [TAKES[i] for i, n in enumerate(self.pool[seat]) if n > 0]
        if self.initiation:
            return [
                PlayPos(p, kind(self.known[p]) if p in self.known else None)
                for p in self.hand_pos[seat]
            ]
        return [PLAYS[s] for s in self.slots[seat]]

    def sample_chance(self, rng: random.Random) -> Action:
        if self.phase == "coin":
            return First(rng.randrange(SEATS))
        if self.phase == "tshuffle":
            tokens = list(TOKEN_NAMES)
            rng.shuffle(tokens)
            return Dealt("tokens", tuple(tokens))
        if self.phase == "shuffle":
            order = list(COPY_NAMES)
            rng.shuffle(order)
            return Dealt(self.to_shuffle[0], tuple(order))
        if self.phase == "reveal":
            step = self.next_step()
            assert isinstance(step, Reveal)
            cards = {p: self.known.get(p) for p in step.positions}
            if None in cards.values():
                raise HiddenCard("the unplayed cards are not all known here")
            return self.identify(step.then, cards)  # type: ignore[arg-type]
        raise IllegalAction("chance", f"no chance event in phase {self.phase}")

    # ---------------------------------------------------------------- apply

    def apply(self, action: Action | str) -> list[Any]:
        if isinstance(action, str):
            action = parse_action(action)
        if self.phase == "over":
            raise IllegalAction("over", "the game is over")
        recorded = self._dispatch(action)  # every refusal comes before any change
        self._history.append(recorded)
        return [recorded.public()]

    def _dispatch(self, action: Action) -> Action:
        phase = self.phase
        if phase == "coin" and isinstance(action, First):
            self.first = self.attacker = action.seat  # L5
            if self.initiation:
                self.phase = "shuffle"
            elif self.power:
                self.phase = "tshuffle"  # L21: after L5, before the first hands
            else:
                self._new_manche()
            return action
        if phase in TOKEN_PHASES or phase == "tshuffle":
            return self._token_dispatch(action)
        if phase == "shuffle" and isinstance(action, Dealt):
            self._deal(action)
            return action
        if phase == "choose" and isinstance(action, Seal | Take):
            return self._choose(action)
        if phase in ("open", "end_open") and isinstance(action, Take):
            self._open(action)
            return action
        if phase in ("attack", "riposte"):
            self._play(action)
            return action
        if phase == "reveal" and isinstance(action, Show):
            self._show(action)
            return action
        raise IllegalAction("turn", f"{action} is not a move now (phase {phase})")

    def _deal(self, action: Dealt) -> None:
        name = self.to_shuffle[0]
        if action.deck != name:
            raise IllegalAction("L31", f"the deck to shuffle now is {name}")
        if action.order is not None and sorted(action.order) != sorted(COPY_NAMES):
            raise IllegalAction("L31", "a deal holds each card of the deck once")
        seat = [d.name for d in DECKS].index(name)
        self.deck_pos[seat] = [Pos(name, i) for i in range(len(COPY_NAMES))]
        if action.order is not None:
            self.known.update(zip(self.deck_pos[seat], action.order, strict=True))
        self.to_shuffle.pop(0)
        if not self.to_shuffle:
            self._new_manche()

    def _new_manche(self) -> None:
        """L3, L8: every HP back, the manche winner (or the first attacker) attacks."""
        self.manche += 1
        self.hp = [MAX_HP] * SEATS
        if self.power and self._bonus_starts():  # L30: before the hands are chosen
            return
        self._take_hands()

    def _take_hands(self) -> None:
        """A manche start or a continuation (L14): five new cards each (L16, L31)."""
        self.table = []
        if self.initiation:
            # L31: an empty pioche ends the game before a new manche (_finish_manche)
            # or its continuation (_after_combat) gets here
            assert self.deck_pos[0], "no hand is taken from an empty pioche"
            self.hands += 1
            for s in range(SEATS):
                self.hand_pos[s], self.deck_pos[s] = (
                    self.deck_pos[s][:HAND],
                    self.deck_pos[s][HAND:],
                )
            self.phase = "attack"
            return
        self.hands += 1
        for s in range(SEATS):
            # the hand before is all opened (L15): the pool is the pioche
            if not any(self.pool[s]):  # L18: the whole défausse becomes the pioche
                self.pool[s], self.defausse[s] = self.defausse[s], [0] * len(KINDS)
            self.chosen[s] = [0] * len(KINDS)
            self.slots[s] = list(range(HAND))
        self.queue = [(s, k) for s in (self.attacker, 1 - self.attacker) for k in range(HAND)]
        self.phase = "choose"  # L16, L32: the attacker commits first

    def _choose(self, action: Seal | Take) -> Seal:
        seat, slot = self.queue[0]
        choice = action.choice if isinstance(action, Seal) else action
        if choice is not None:
            i = INDEX[choice.card]
            if self.pool[seat][i] <= self.chosen[seat][i]:
                raise IllegalAction(
                    "L16", f"seat {seat}'s pioche has no {choice.card} left to choose"
                )
            self.secrets[seat, slot] = choice.card
            self.chosen[seat][i] += 1
        self.queue.pop(0)
        if not self.queue:
            self.phase = "attack"  # L16: no card is played before both hands are committed
        return Seal(choice)

    def _play(self, action: Action) -> None:
        seat = self.current_seat()
        assert seat is not None and seat >= 0
        if self.initiation:
            if not isinstance(action, PlayPos) or action.pos not in self.hand_pos[seat]:
                raise IllegalAction("L6", f"seat {seat} plays a card of its own hand")
            if action.card is None:
                raise HiddenCard("a played card shows its kind: play lutin0@7=g5")
            known = self.known.get(action.pos)
            if known is not None and kind(known) != action.card:
                raise IllegalAction("L32", f"{action.pos} holds {kind(known)}, not {action.card}")
            self.hand_pos[seat].remove(action.pos)
            self.gone_pos.append(action.pos)
            self._card_shown(seat, action.card)
            return
        if not isinstance(action, PlayLabel) or action.slot not in self.slots[seat]:
            raise IllegalAction("L6", f"seat {seat} plays a card of its hand not yet played")
        self.slots[seat].remove(action.slot)
        if action.slot in self.open_slots[seat]:  # L25: known to both, no commitment
            self._card_shown(seat, self.open_slots[seat].pop(action.slot))
            return
        self.queue = [(seat, action.slot)]
        self.phase = "open"  # L16: playing a card opens its commitment

    def _open(self, action: Take) -> None:
        seat, slot = self.queue[0]
        i = INDEX[action.card]
        if self.pool[seat][i] <= 0:  # L16, L32: a cheat, blamed on the seat
            raise IllegalAction(
                "L16", f"seat {seat}'s hand could not hold {action.card}: its pioche had no more"
            )
        secret = self.secrets.get((seat, slot))
        if secret is not None and secret != action.card:
            raise IllegalAction("L32", f"seat {seat} sealed {secret} under hand/{slot}")
        self.secrets.pop((seat, slot), None)
        self.pool[seat][i] -= 1
        self.queue.pop(0)
        if self.phase == "open":
            self._card_shown(seat, action.card)
            return
        self.defausse[seat][i] += 1  # L15: face up on the défausse
        if not self.queue:
            self._finish_manche()

    def _card_shown(self, seat: int, card: str) -> None:
        self.table.append((seat, card))
        if len(self.table) == 1:
            self.phase = "riposte"  # L6: the other player answers, having seen it
        elif self.power:
            self._open_window()  # L22: the token window, once both cards are shown
        else:
            self._resolve()

    def _resolve(self) -> None:
        """L7-L13: the card result, HP at once within 0..12, who attacks next."""
        (sa, ca), (sb, cb) = self.table
        da, db, win = combat(ca, cb)
        delta = [0, 0]
        delta[sa], delta[sb] = da, db
        self.hp = [max(0, min(MAX_HP, self.hp[s] + delta[s])) for s in range(SEATS)]  # L11, L13
        for s, c in self.table:
            self.defausse[s][INDEX[c]] += 1  # L18
        winner = None if win is None else (sa, sb)[win]
        self.last = (sa, ca, cb, delta[0], delta[1], winner)
        self.table = []
        self._after_combat(winner)

    def _after_combat(self, winner: int | None, manche_to: int | None = None) -> None:
        """L8, L13, L14 (and L28's manche won by the loser) once HP are applied."""
        if winner is not None:
            self.attacker = winner  # L8
        if manche_to is not None:  # L28: whatever the HP
            self._end_manche(manche_to)
            return
        if 0 in self.hp:  # L13
            both = self.hp[0] == self.hp[1] == 0
            self._end_manche(self.attacker if both else self.hp.index(max(self.hp)))
            return
        if self._hand_size(0) == 0:  # L14: both hands run out together
            if self.hp[0] != self.hp[1]:
                self._end_manche(self.hp.index(max(self.hp)))
            elif self.initiation and not self.deck_pos[0]:
                self._end_manche(None)  # L31: a continuation finds the pioche empty
            else:
                self._take_hands()  # L14: the same manche goes on
            return
        self.phase = "attack"

    def _hand_size(self, seat: int) -> int:
        return len(self.hand_pos[seat]) if self.initiation else len(self.slots[seat])

    def _end_manche(self, winner: int | None) -> None:
        """L13-L15: the unplayed cards are shown, then the VP is given."""
        self.manche_winner = winner
        if winner is not None:
            self.attacker = winner  # L8: the manche winner opens the next
        if self.initiation:
            if any(self.hand_pos):
                self.phase = "reveal"
                return
        elif any(self.slots):
            for s in range(SEATS):  # L25: cards back in hand are known: no opening
                for k, card in self.open_slots[s].items():
                    self.defausse[s][INDEX[card]] += 1
                    self.slots[s].remove(k)
                self.open_slots[s] = {}
            self.queue = [(s, k) for s in range(SEATS) for k in self.slots[s]]
            self.slots = [[] for _ in range(SEATS)]
            if not self.queue:
                self._finish_manche()
                return
            self.phase = "end_open"
            return
        self._finish_manche()

    def _show(self, action: Show) -> None:
        expected = [p for hand in self.hand_pos for p in hand]
        if [p for p, _ in action.cards] != expected:
            raise IllegalAction("L15", "the show names every unplayed card, in seat order")
        for p, card in action.cards:
            if card is None:
                raise HiddenCard(f"{p} is shown with its card")
            known = self.known.get(p)
            if known is not None and kind(known) != card:
                raise IllegalAction("L15", f"{p} holds {kind(known)}, not {card}")
        for s in range(SEATS):
            for p in self.hand_pos[s]:
                self.defausse[s][INDEX[dict(action.cards)[p]]] += 1  # type: ignore[index]
            self.gone_pos += self.hand_pos[s]
            self.hand_pos[s] = []
        self._finish_manche()

    def _finish_manche(self) -> None:
        winner = self.manche_winner
        self.manche_winner = None
        if winner is not None:
            self.vp[winner] += 1  # one VP per manche
            if self.vp[winner] >= WIN_VP:  # L3: the 5th VP ends the game at once
                self._end_game()
                return
        elif self.initiation:  # L31: only a continuation with an empty pioche gets here
            self._end_game()
            return
        if self.initiation and not self.deck_pos[0]:
            # L31: the 5th manche was the last ("quand la pioche est vide"): the game
            # ends on it, its HP as they are, before any new manche is counted
            self._end_game()
            return
        self._new_manche()

    def _end_game(self) -> None:
        self.phase, self.queue, self.table = "over", [], []
        top = max(self.vp)
        best = [s for s in range(SEATS) if self.vp[s] == top]
        self.winner = best[0] if len(best) == 1 else None  # L31: equal VP, no winner

    # ---------------------------------------------------- hidden information

    # ---------------------------------------------------------------- views

    def public_state(self) -> dict[str, Any]:
        state = self._public()
        if self.power:  # only then: a base game hashes as before
            state.update(self._token_public())
        return state

    def _public(self) -> dict[str, Any]:
        return {
            "game": "lutin",
            "config": self._game.config_dict(),
            "phase": self.phase,
            "to_act": self.current_seat(),
            "first": self.first,
            "attacker": self.attacker,
            "hp": list(self.hp),
            "vp": list(self.vp),
            "manche": self.manche,
            "hands": self.hands,
            "pool": [kinds_listed(c) for c in self.pool],
            "slots": [list(s) for s in self.slots],
            "defausse": [kinds_listed(c) for c in self.defausse],
            "to_shuffle": list(self.to_shuffle),
            "deck_pos": [[str(p) for p in d] for d in self.deck_pos],
            "hand_pos": [[str(p) for p in h] for h in self.hand_pos],
            "queue": [list(q) for q in self.queue],
            "table": [list(t) for t in self.table],
            "last": None if self.last is None else list(self.last),
            "manche_winner": self.manche_winner,
            "winner": self.winner,
        }

    def hand_of(self, seat: int) -> tuple[tuple[str, str | None], ...]:
        """``seat``'s unplayed cards as this replica knows them: (label or position, kind)."""
        if self.initiation:
            return tuple(
                (str(p), kind(self.known[p]) if p in self.known else None)
                for p in self.hand_pos[seat]
            )
        if self.phase == "choose":
            slots = sorted(k for (s, k) in self.secrets if s == seat)
        else:
            slots = self.slots[seat] + [
                k for (s, k) in self.queue if s == seat and self.phase == "end_open"
            ]
        known = {**self.secrets_of(seat), **self.open_slots[seat]}
        return tuple((LABELS[k], known.get(k)) for k in sorted(slots))

    def secrets_of(self, seat: int) -> dict[int, str]:
        return {k: c for (s, k), c in self.secrets.items() if s == seat}

    def observation(self, seat: int) -> LutinObservation:
        if seat not in range(SEATS):
            raise IllegalAction("seat", f"no seat {seat}")
        deciding = self.phase in DECIDING
        in_pioche = (
            [len(d) for d in self.deck_pos]
            if self.initiation
            else [
                sum(self.pool[s]) - self._hand_size(s) + len(self.open_slots[s])
                for s in range(SEATS)
            ]
        )
        return LutinObservation(
            seat=seat,
            variant=self._game.variant,
            phase=self.phase,
            to_act=self.current_seat(),
            attacker=self.attacker,
            hp=tuple(self.hp),
            vp=tuple(self.vp),
            manche=self.manche,
            hand=self.hand_of(seat),
            hand_sizes=tuple(self._hand_size(s) for s in range(SEATS)),
            pioche_sizes=tuple(in_pioche),
            unseen=tuple(
                tuple(kinds_listed(self.pool[s])) if not self.initiation else ()
                for s in range(SEATS)
            ),
            defausse=tuple(tuple(kinds_listed(c)) for c in self.defausse),
            table=tuple(self.table),
            last=self.last,
            winner=self.winner,
            legal=tuple(self.legal_actions(seat)) if deciding else (),  # fitted (L22)
            power=self.power,
            tokens=self.tokens_of(seat),
            token_counts=tuple(self.token_count(s) for s in range(SEATS)),
            faceup=tuple(self.faceup),
            window=tuple(self.window_shown),
        )


class LutinGame(Game):
    """Lutin & Troll for two players (L1); ``variant`` (L4)."""

    name = "lutin"

    def __init__(self, variant: str = "base") -> None:
        if variant not in VARIANTS:
            raise ConfigError(f"variant is one of {', '.join(VARIANTS)} (L4), not {variant!r}")
        self.variant = variant

    def config_dict(self) -> dict[str, Any]:
        return {"variant": self.variant}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LutinGame:
        if not isinstance(config, Mapping) or not set(config) <= {"variant"}:
            raise ConfigError("lutin takes one option: variant")
        return cls(**config)

    def num_players(self) -> int:
        return SEATS

    def new_initial_state(self) -> LutinState:
        return LutinState(self)

    def decks(self) -> tuple[Deck, ...]:
        if self.variant == "initiation":
            return DECKS
        return (TOKEN_DECK,) if self.variant in POWERS else ()
