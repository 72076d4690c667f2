"""Lutin & Troll's expert mode in the game's state: set-up, token windows, the bonus
and the black swaps (L19-L30; the resolution itself is :mod:`.powers`).

Hidden information (``docs/engine.md``, the Lutin & Troll table): the 9 tokens are
a deck, shuffled jointly (``Shuffle("tokens")``); seat 0 holds positions 0-2, seat 1
positions 3-5, positions 6-8 are set aside and never shown (L21, L33). The set-up
discard and every token window are two sealed choices, the attacker's first, then two
openings in the same order; an opened token's position is revealed to all (L21, L22,
L32). One seat alone holding tokens decides openly (a ``Turn``). The bonus is a sealed
choice among the face-up tokens, opened when it is played (L30); the hand card a
black t21 takes opens its commitment (L25).

:class:`ExpertRules` is mixed into :class:`~.state.LutinState`: it reads and writes
that state's fields.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from trutnet.engine.api import Action
from trutnet.engine.errors import HiddenCard, IllegalAction
from trutnet.engine.hidden import Holder, Open, Pos, SecretChoice, Shuffle, Step, Turn
from trutnet.games.lutin.rules.actions import BonusPick, Dealt, Discard, Seal, Take, TokenPlay
from trutnet.games.lutin.rules.cards import KINDS, SEATS
from trutnet.games.lutin.rules.powers import (
    TOKEN_DECK,
    TOKEN_NAMES,
    Played,
    black,
    cancelled,
    targets,
    white,
)

TOKEN_PHASES = (
    "tdiscard", "tdiscard_open", "bonus", "window", "window_open", "window_turn",
    "bonus_open", "swap_open",
)  # fmt: skip
SEALING = ("tdiscard", "bonus", "window")
DECIDING = ("choose", "attack", "riposte", "tdiscard", "bonus", "window", "window_turn")
BONUS_MANCHE = 6  # L30


class ExpertRules:
    """The expert mode's part of :class:`~.state.LutinState` (see the module)."""

    # the fields of LutinState it uses (declared for type checkers)
    power: str | None
    phase: str
    attacker: int
    manche: int
    vp: list[int]
    hp: list[int]
    slots: list[list[int]]
    pool: list[list[int]]
    defausse: list[list[int]]
    table: list[tuple[int, str]]
    secrets: dict[tuple[int, int], str]
    known: dict[Pos, str]
    last: Any

    def _init_expert(self) -> None:
        self.tok_pos: list[list[Pos]] = [[] for _ in range(SEATS)]
        self.aside: list[Pos] = []
        self.spent: list[Pos] = []  # token positions face up (discarded or played)
        self.faceup: list[str] = []  # the face-up tokens by name, for the bonus (L30)
        self.tq: list[tuple[int, str]] = []  # the sealed choices, or openings, to come
        self.window_seats: list[int] = []
        self.window: dict[int, TokenPlay] = {}  # this window's opened choices
        self.window_shown: list[str] = []  # the last window's, for the screen
        self.bonus_seat: int | None = None
        self.bonus_from: list[str] = []
        self.bonus_used = False
        self.bonus_name: str | None = None
        self.active: Played = {}
        self.taken: dict[int, str] = {}  # black t21: the hand card opened (L25)
        self.open_slots: list[dict[int, str]] = [{} for _ in range(SEATS)]  # L25
        self.tsecrets: dict[tuple[int, str], Action] = {}  # private: sealed choices known

    # ---------------------------------------------------------------- who, what

    def token_count(self, seat: int) -> int:
        bonus = self.bonus_seat == seat and not self.bonus_used
        return len(self.tok_pos[seat]) + bonus

    def tokens_of(self, seat: int) -> tuple[tuple[str, str | None], ...]:
        held = [(str(p), self.known.get(p)) for p in self.tok_pos[seat]]
        if self.bonus_seat == seat and not self.bonus_used:
            secret = self.tsecrets.get((seat, "bonus"))
            held.append(("bonus", secret.name if isinstance(secret, BonusPick) else None))
        return tuple(held)

    def _token_step(self) -> Step:
        if self.phase == "tshuffle":
            return Shuffle(TOKEN_DECK.name, Dealt(TOKEN_DECK.name))  # L21
        seat, label = self.tq[0]
        if self.phase in SEALING:
            return SecretChoice(seat, label, Seal())
        if self.phase == "window_turn":
            return Turn(seat)  # L22: one seat alone holds tokens: it declares openly
        return Open(seat, label)

    def _name(self, seat: int, play: TokenPlay) -> str | None:
        if play.source == "bonus":
            secret = self.tsecrets.get((seat, "bonus"))
            return secret.name if isinstance(secret, BonusPick) else self.bonus_name
        if isinstance(play.source, Pos):
            return play.name or self.known.get(play.source)
        return None

    def _defausse_kinds(self, seat: int) -> list[str]:
        return [k for k, n in zip(KINDS, self.defausse[seat], strict=True) if n]

    def _token_legal(self, seat: int) -> list[Action]:
        phase, label = self.phase, self.tq[0][1]
        secret = self.tsecrets.get((seat, label))
        if phase in ("tdiscard_open", "window_open", "bonus_open") and secret is not None:
            if isinstance(secret, Discard):
                return [Discard(secret.pos, self.known.get(secret.pos))]
            if isinstance(secret, TokenPlay) and isinstance(secret.source, Pos):
                return [replace(secret, name=self.known.get(secret.source))]
            return [secret]
        if phase in ("tdiscard", "tdiscard_open"):
            return [Discard(p, self.known.get(p)) for p in self.tok_pos[seat]]
        if phase in ("bonus", "bonus_open"):
            return [BonusPick(n) for n in dict.fromkeys(self.bonus_from)]
        if phase == "swap_open":
            slot = int(label.split("/")[1])
            card = self.secrets.get((seat, slot))
            if card is not None:
                return [Take(card)]
            return [Take(k) for k, n in zip(KINDS, self.pool[seat], strict=True) if n > 0]
        plays: list[Action] = [TokenPlay(None)]
        sources: list[Pos | str] = [*self.tok_pos[seat]]
        if self.bonus_seat == seat and not self.bonus_used:
            sources.append("bonus")
        # A replica that does not know the token offers any target some token could
        # take (a target the token itself does not take is refused once it is shown,
        # L22, L32); one that knows it offers only its own (``fitting``), so that no
        # action it lists is refused when applied.
        for source in sources:
            name = self._name(seat, TokenPlay(source))
            names = tuple(self.bonus_from) if source == "bonus" else TOKEN_NAMES
            shown = name if isinstance(source, Pos) else None
            possible = dict.fromkeys(
                t
                for n in names
                for t in targets(self.power or "", n, self._defausse_kinds(seat), self.slots[seat])
            )
            plays += [TokenPlay(source, shown, t) for t in possible]
        return self.fitting(seat, plays)

    def fitting(self, seat: int, actions: list[Action]) -> list[Action]:
        """The token choices among ``actions`` that ``seat``'s tokens, as this replica
        knows them, can take (``legal_actions`` lists only those)."""
        if self.phase not in ("window", "window_turn"):
            return actions
        kept = []
        for action in actions:
            if isinstance(action, TokenPlay) and action.source is not None:
                name = self._name(seat, action)
                if name is not None and action.target not in targets(
                    self.power or "", name, self._defausse_kinds(seat), self.slots[seat]
                ):
                    continue
            kept.append(action)
        return kept

    # ---------------------------------------------------------------- the table

    def _token_holders(self) -> dict[Holder, tuple[Pos, ...]]:
        if self.phase in ("coin", "tshuffle"):
            return {}
        return {
            0: tuple(self.tok_pos[0]),
            1: tuple(self.tok_pos[1]),
            "aside": tuple(self.aside),
            "faceup": tuple(self.spent),
        }

    def _held(self, seat: int, pos: Pos) -> None:
        if pos not in self.tok_pos[seat]:
            rule = "L21" if self.phase.startswith("tdiscard") else "L22"
            raise IllegalAction(rule, f"seat {seat} holds no token at {pos}")

    def _token_reveals(self, seat: int, action: Action) -> tuple[Pos, ...]:
        opening = self.phase in ("tdiscard_open", "window_open", "window_turn")
        if isinstance(action, Discard) and opening:
            self._held(seat, action.pos)
            return (action.pos,)
        if isinstance(action, TokenPlay) and isinstance(action.source, Pos) and opening:
            self._held(seat, action.source)
            return (action.source,)
        return ()

    def _token_conceal(self, seat: int, action: Action) -> Action:
        if isinstance(action, Discard):
            self._held(seat, action.pos)
            return Discard(action.pos)
        if isinstance(action, TokenPlay) and isinstance(action.source, Pos):
            self._held(seat, action.source)
            return replace(action, name=None)
        return action

    def _token_identify(self, action: Action, cards: Any) -> Action:
        if isinstance(action, Discard) and action.pos in cards:
            return Discard(action.pos, cards[action.pos])
        source = action.source if isinstance(action, TokenPlay) else None
        if isinstance(source, Pos) and source in cards:
            return replace(action, name=cards[source])  # type: ignore[type-var]
        return action

    def _see_token(self, pos: Pos, card: str) -> None:
        if pos.index >= len(TOKEN_NAMES) or card not in TOKEN_NAMES:
            raise IllegalAction("hidden", f"{pos} cannot hold {card!r}")
        if self.known.get(pos, card) != card:
            raise IllegalAction("hidden", f"{pos} is already known as {self.known[pos]}")
        self.known[pos] = card

    def _token_public(self) -> dict[str, Any]:
        return {
            "tokens": [[str(p) for p in held] for held in self.tok_pos],
            "aside": [str(p) for p in self.aside],
            "spent": [str(p) for p in self.spent],
            "faceup": list(self.faceup),
            "tq": [list(q) for q in self.tq],
            "window": {str(s): str(w) for s, w in sorted(self.window.items())},
            "window_shown": list(self.window_shown),
            "bonus": [self.bonus_seat, list(self.bonus_from), self.bonus_used, self.bonus_name],
            "open_slots": [{str(k): c for k, c in sorted(o.items())} for o in self.open_slots],
        }

    # ---------------------------------------------------------------- applying

    def _token_dispatch(self, action: Action) -> Action:
        phase = self.phase
        if phase == "tshuffle" and isinstance(action, Dealt):
            self._deal_tokens(action)
            return action
        if phase in SEALING and isinstance(action, Seal | Discard | TokenPlay | BonusPick):
            return self._seal(action)
        if phase == "tdiscard_open" and isinstance(action, Discard):
            self._open_discard(action)
            return action
        if phase in ("window_open", "window_turn") and isinstance(action, TokenPlay):
            self._open_token(action)
            return action
        if phase == "bonus_open" and isinstance(action, BonusPick):
            self._open_bonus(action)
            return action
        if phase == "swap_open" and isinstance(action, Take):
            self._open_swap(action)
            return action
        raise IllegalAction("turn", f"{action} is not a move now (phase {phase})")

    def _deal_tokens(self, action: Dealt) -> None:
        if action.deck != TOKEN_DECK.name:
            raise IllegalAction("L21", "the tokens are shuffled now")
        if action.order is not None and sorted(action.order) != sorted(TOKEN_NAMES):
            raise IllegalAction("L21", "a deal of the tokens holds each token once")
        positions = [TOKEN_DECK.position(i) for i in range(len(TOKEN_NAMES))]
        self.tok_pos = [positions[0:3], positions[3:6]]  # L21
        self.aside = positions[6:]  # never revealed (L21, L33)
        if action.order is not None:
            self.known.update(zip(positions, action.order, strict=True))
        self.tq = [(s, "discard") for s in (self.attacker, 1 - self.attacker)]
        self.phase = "tdiscard"

    def _check(self, seat: int, choice: Action, opening: bool) -> None:
        """A sealed or opened choice that could not be legal is refused (L32)."""
        if isinstance(choice, Discard):
            if self.phase not in ("tdiscard", "tdiscard_open"):
                raise IllegalAction("L21", "no token is discarded now")
            self._held(seat, choice.pos)
            name = choice.name
            if name is not None and self.known.get(choice.pos, name) != name:
                raise IllegalAction("L32", f"{choice.pos} holds {self.known[choice.pos]}")
            if opening and name is None:
                raise HiddenCard("an opened discard shows its token")
            return
        if isinstance(choice, BonusPick):
            if choice.name not in self.bonus_from:
                raise IllegalAction("L30", f"{choice.name} is not a face-up token to choose")
            return
        if not isinstance(choice, TokenPlay) or self.phase not in (
            "window", "window_open", "window_turn"
        ):  # fmt: skip
            raise IllegalAction("L22", f"{choice} is not a token window's choice")
        if choice.source is None:
            if choice.target is not None:
                raise IllegalAction("L22", "no token, no target")
            return
        if choice.source == "bonus":
            if self.bonus_seat != seat or self.bonus_used:
                raise IllegalAction("L30", f"seat {seat} holds no bonus token")
        else:
            assert isinstance(choice.source, Pos)
            self._held(seat, choice.source)
            known = self.known.get(choice.source)
            if choice.name is not None and known is not None and known != choice.name:
                raise IllegalAction("L32", f"{choice.source} holds {known}")
            if opening and choice.name is None:
                raise HiddenCard("an opened token shows its name")
        name = self._name(seat, choice)
        if name is not None and choice.target not in targets(
            self.power or "", name, self._defausse_kinds(seat), self.slots[seat]
        ):
            raise IllegalAction("L22", f"{name} cannot take the target {choice.target}")

    def _seal(self, action: Action) -> Seal:
        seat, label = self.tq[0]
        choice = action.choice if isinstance(action, Seal) else action
        if choice is not None:
            self._check(seat, choice, opening=False)
            self.tsecrets[seat, label] = choice
        self.tq.pop(0)
        if not self.tq:
            if self.phase == "tdiscard":  # L21: both committed, then both open
                self.tq = [(s, "discard") for s in (self.attacker, 1 - self.attacker)]
                self.phase = "tdiscard_open"
            elif self.phase == "window":  # L22: the same order
                self.tq = [(s, "token") for s in self.window_seats]
                self.phase = "window_open"
            else:  # the bonus is chosen (L30): the hands now
                self._take_hands()  # type: ignore[attr-defined]
        return Seal(choice)  # type: ignore[arg-type]

    def _against_secret(self, seat: int, label: str, opened: Action) -> None:
        secret = self.tsecrets.pop((seat, label), None)
        if secret is None:
            return
        same = (
            secret.pos == opened.pos
            if isinstance(secret, Discard) and isinstance(opened, Discard)
            else replace(secret, name=None) == replace(opened, name=None)
            if isinstance(secret, TokenPlay) and isinstance(opened, TokenPlay)
            else secret == opened
        )
        if not same:
            raise IllegalAction("L32", f"seat {seat} sealed {secret}, not {opened}")

    def _open_discard(self, action: Discard) -> None:
        seat, label = self.tq[0]
        self._check(seat, action, opening=True)
        self._against_secret(seat, label, action)
        self.tok_pos[seat].remove(action.pos)
        self.spent.append(action.pos)
        self.faceup.append(action.name or "")  # L21: face up
        self.tq.pop(0)
        if not self.tq:
            self._new_manche()  # type: ignore[attr-defined]

    def _bonus_starts(self) -> bool:
        """L30: at the start of the 6th manche, the player with fewer VP takes the
        face-up tokens and chooses one secretly; the others leave the game."""
        if self.manche != BONUS_MANCHE or self.vp[0] == self.vp[1] or not self.faceup:
            return False
        seat = 0 if self.vp[0] < self.vp[1] else 1
        self.bonus_seat, self.bonus_from, self.faceup = seat, list(self.faceup), []
        self.tq = [(seat, "bonus")]
        self.phase = "bonus"
        return True

    def _open_window(self) -> None:
        """L22: after the riposte card, each seat holding a token chooses one or none."""
        order = (self.attacker, 1 - self.attacker)
        self.window, self.window_shown = {}, []
        self.window_seats = [s for s in order if self.token_count(s)]
        self.tq = [(s, "token") for s in self.window_seats]
        if len(self.window_seats) == 2:
            self.phase = "window"
        elif self.window_seats:
            self.phase = "window_turn"
        else:
            self._resolve_tokens()

    def _open_token(self, action: TokenPlay) -> None:
        seat, label = self.tq[0]
        self._check(seat, action, opening=True)
        self._against_secret(seat, label, action)
        self.tq.pop(0)
        self.window[seat] = action
        if isinstance(action.source, Pos):
            self.tok_pos[seat].remove(action.source)
            self.spent.append(action.source)
            self.faceup.append(action.name or "")  # played: face up (L21)
        elif action.source == "bonus":
            self.bonus_used = True
        if not self.tq:
            self._after_window()

    def _after_window(self) -> None:
        bonus = [s for s, w in self.window.items() if w.source == "bonus" and w.name is None]
        if bonus:
            self.tq = [(bonus[0], "bonus")]
            self.phase = "bonus_open"  # L30: playing the bonus opens its commitment
            return
        played: Played = {
            s: (w.name or "", w.target) for s, w in self.window.items() if w.source is not None
        }
        self.window_shown = [f"{s}:{w}" for s, w in sorted(self.window.items())]
        self.active = played
        if self.power == "black":
            gone = cancelled(played)  # L24 (1)
            self.active = {s: v for s, v in played.items() if s not in gone}
            self.taken = {}
            swaps = []
            for s in (self.attacker, 1 - self.attacker):
                name, target = self.active.get(s, ("", None))
                if name == "t21" and target is not None:
                    slot = int(target.split("/")[1])
                    if slot in self.open_slots[s]:
                        self.taken[s] = self.open_slots[s][slot]
                    else:
                        swaps.append((s, target))  # L25: the hand card opens its commitment
            if swaps:
                self.tq, self.phase = swaps, "swap_open"
                return
        self._resolve_tokens()

    def _open_bonus(self, action: BonusPick) -> None:
        seat, label = self.tq[0]
        self._check(seat, action, opening=True)
        self._against_secret(seat, label, action)
        self.tq.pop(0)
        self.bonus_name = action.name
        self.window[seat] = replace(self.window[seat], name=action.name)
        self._check_target(seat, self.window[seat])
        self.faceup.append(action.name)
        self._after_window()

    def _check_target(self, seat: int, play: TokenPlay) -> None:
        if play.target not in targets(
            self.power or "", play.name or "", self._defausse_kinds(seat), self.slots[seat]
        ):
            raise IllegalAction("L22", f"{play.name} cannot take the target {play.target}")

    def _open_swap(self, action: Take) -> None:
        seat, label = self.tq[0]
        slot = int(label.split("/")[1])
        i = KINDS.index(action.card)
        if self.pool[seat][i] <= 0:
            raise IllegalAction("L16", f"seat {seat}'s hand could not hold {action.card}")
        secret = self.secrets.get((seat, slot))
        if secret is not None and secret != action.card:
            raise IllegalAction("L32", f"seat {seat} sealed {secret} under {label}")
        self.secrets.pop((seat, slot), None)
        self.pool[seat][i] -= 1
        self.taken[seat] = action.card
        self.tq.pop(0)
        if not self.tq:
            self._resolve_tokens()

    def _resolve_tokens(self) -> None:
        """L23 (white) or L24 (black), then L13 and what follows."""
        (sa, ca), (sb, cb) = self.table
        cards = {sa: ca, sb: cb}
        played, vp_before = self.active, list(self.vp)
        if self.power == "black":
            for s in (sa, sb):  # (2) L25: the card taken counts in this combat
                name, target = played.get(s, ("", None))
                if name == "t11" and target is not None:
                    j = KINDS.index(target)
                    if self.defausse[s][j] > 0:
                        self.defausse[s][j] -= 1
                        self.defausse[s][KINDS.index(cards[s])] += 1
                        cards[s] = target
                if name == "t21" and s in self.taken:
                    slot = int((target or "hand/0").split("/")[1])
                    self.open_slots[s][slot] = cards[s]  # back in hand, known to both
                    cards[s] = self.taken[s]
            result = black(cards, played, vp_before)
        else:
            result = white(cards, played)
        self.hp = [max(0, min(12, self.hp[s] + result.delta[s])) for s in range(SEATS)]
        self.vp = [self.vp[s] + result.vp[s] for s in range(SEATS)]  # L29
        for s in (sa, sb):
            self.defausse[s][KINDS.index(cards[s])] += 1
        self.last = (sa, cards[sa], cards[sb], result.delta[0], result.delta[1], result.winner)
        self.table, self.active, self.taken, self.window, self.tq = [], {}, {}, {}, []
        self._after_combat(result.winner, result.manche_to)  # type: ignore[attr-defined]
