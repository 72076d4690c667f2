"""Lutin & Troll's narration: the public actions told as a person reads them.

The engine's history holds actions without their author (``play hand/3``, ``take
b6``). :class:`Narrator` replays it in a state of its own, one action at a time, and
keeps for each what it changed (:class:`Told`): who acted, the card shown, the combat
result, the manche won, a continuation (L14), the game's end. Replaying a history is
what every replica does (a sealed choice is replayed sealed), so a seat, a spectator
and ``trutnet verify`` tell the same story.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trutnet.engine.api import Action
from trutnet.engine.errors import EngineError
from trutnet.games.lutin.rules.actions import (
    BonusPick,
    Dealt,
    Discard,
    First,
    Seal,
    Show,
    Take,
    TokenPlay,
)
from trutnet.games.lutin.rules.cards import kind

NAMES = {
    "g2": "Lutin 2", "g3": "Farfadet 3", "g4": "Korrigan 4", "g5": "Elfe 5",
    "g6": "Gnome 6", "g7": "Gnome 7", "g8": "Gnome 8", "b4": "Kobold 4",
    "b5": "Gobelin 5", "b6": "Troll 6", "nymph": "Nymph", "harpy": "Harpy",
    "mandragore": "Mandragore",
}  # fmt: skip
EFFECTS = {  # L20, in a few words
    "white": {
        "t11": "green->blue", "t12": "blue->green", "t13": "both cards void",
        "t21": "+4 own green", "t22": "own blue x2", "t23": "+4 HP",
        "t31": "-5 their green", "t32": "-4 their blue", "t33": "-5 HP to them",
    },
    "black": {
        "t11": "swap with défausse", "t12": "their card = 0", "t13": "cancel their token",
        "t21": "swap with hand", "t22": "result x2", "t23": "+1 VP if < 4",
        "t31": "winner loses", "t32": "loser wins manche", "t33": "-1 VP them if > 2",
    },
}  # fmt: skip


def card_name(card: str | None) -> str:
    """``Troll 6`` for ``b6`` (and for a lettered copy of the initiation decks, L31)."""
    return "??" if card is None else NAMES.get(kind(card) or card, card)


def shown(card: str) -> str:
    """A card as the log names it: ``Troll 6``, ``Harpy`` (the screen's name too)."""
    return card_name(card)


@dataclass(frozen=True)
class Moment:
    """What the narration reads of a state."""

    phase: str
    attacker: int
    table: tuple[tuple[int, str], ...]
    last: Any
    vp: tuple[int, ...]
    hp: tuple[int, ...]
    manche: int
    hands: int
    winner: int | None
    power: str | None
    to_show: tuple[int, ...] = (0, 0)  # each seat's unplayed cards still to open (L15)

    @classmethod
    def of(cls, state: Any) -> Moment:
        queue = getattr(state, "queue", ())
        to_show = tuple(sum(1 for s, _ in queue if s == seat) for seat in range(2))
        return cls(
            state.phase, state.attacker, tuple(state.table), state.last, tuple(state.vp),
            tuple(state.hp), state.manche, state.hands, state.winner, state.power, to_show,
        )  # fmt: skip


@dataclass(frozen=True)
class Told:
    """One action of the history, its author (None: chance or unknown) and the state
    just before and after it (None when the history could not be replayed)."""

    seat: int | None
    action: Action
    before: Moment | None = None
    after: Moment | None = None


class Narrator:
    """The history as :class:`Told` events, replayed incrementally for a state that
    grows (a replica's), from the start for any other."""

    def __init__(self) -> None:
        self._state: Any = None
        self._shadow: Any = None
        self._events: list[Told] = []

    def events(self, state: Any) -> list[Told]:
        history = state.history()
        if state is not self._state or len(history) < len(self._events):
            self._state, self._events = state, []
            self._shadow = state.game.new_initial_state()
        for action in history[len(self._events) :]:
            self._events.append(self._replay(action))
        return list(self._events)

    def _replay(self, action: Action) -> Told:
        shadow = self._shadow
        if shadow is None:
            return Told(None, action)
        seat = shadow.current_seat()
        before = Moment.of(shadow)
        try:
            shadow.apply(action)
        except EngineError:  # told plainly from here on
            self._shadow = None
            return Told(None, action)
        return Told(seat if seat is not None and seat >= 0 else None, action, before,
                    Moment.of(shadow))  # fmt: skip


def token_label(power: str | None, action: TokenPlay | BonusPick | Discard) -> str:
    """``t13 (cancel their token)``, ``t11 b6 (swap with défausse)``, ``no token``."""
    if isinstance(action, TokenPlay) and action.source is None:
        return "no token"
    name = action.name
    if name is None:
        return "the bonus" if isinstance(action, TokenPlay) and action.source == "bonus" else "?"
    target = action.target if isinstance(action, TokenPlay) else None
    effect = EFFECTS.get(power or "", {}).get(name)
    text = name + (f" {target}" if target else "")
    return f"{text} ({effect})" if effect else text


def narrate(event: Told, names: Sequence[str] | None = None) -> list[str]:
    """Lines for one event, by the players' names (``seat 0`` without them)."""

    def who(seat: int | None) -> str:
        if seat is None:
            return "someone"
        return names[seat] if names and seat < len(names) else f"seat {seat}"

    action, before, after, seat = event.action, event.before, event.after, event.seat
    if isinstance(action, First):
        return [f"{who(action.seat)} attacks first (a coin tossed jointly)"]
    if isinstance(action, Dealt):
        if action.deck == "tokens":
            return ["the 9 tokens are shuffled jointly: 3 each, 3 set aside unseen"]
        return [f"deck {action.deck} is shuffled jointly"]
    if before is None or after is None:  # the history could not be replayed
        return [] if str(action) == "seal" else [str(action)]
    lines = _action_lines(event, who)
    lines += _card_lines(before, after, seat, who)
    lines += _outcome_lines(before, after, who)
    return lines


def _action_lines(event: Told, who: Any) -> list[str]:
    action, before, seat = event.action, event.before, event.seat
    assert before is not None
    phase = before.phase
    if isinstance(action, Discard) and phase == "tdiscard_open":
        return [f"{who(seat)} discarded {action.name}: chosen in secret, now face up"]
    if isinstance(action, TokenPlay) and phase in ("window_open", "window_turn"):
        return [f"{who(seat)}: {token_label(before.power, action)}"]
    if isinstance(action, Seal) and phase == "bonus":
        return [f"{who(seat)} takes a face-up token as a secret bonus"]
    if isinstance(action, BonusPick):
        return [f"{who(seat)}'s bonus is {token_label(before.power, action)}"]
    if isinstance(action, Take) and phase == "end_open":
        after = event.after
        more = after.to_show[seat] if after is not None and seat in (0, 1) else 0
        still = f" ({more} more to show)" if more else ""  # two alike are two lines
        return [f"{who(seat)}'s unplayed card: {shown(action.card)}{still}"]
    if isinstance(action, Take) and phase == "swap_open":
        return [f"{who(seat)} takes {shown(action.card)} from its hand (t21)"]
    if isinstance(action, Show):
        cards = "  ".join(f"{who(int(p.deck[-1]))} {c}" for p, c in action.cards)
        return [f"unplayed cards: {cards}"]
    return []


def _card_lines(before: Moment, after: Moment, seat: int | None, who: Any) -> list[str]:
    """The card a play put on the table (its opening, in a base game)."""
    if before.phase not in ("attack", "riposte", "open"):
        return []
    if len(after.table) > len(before.table):
        s, card = after.table[len(before.table)]
    elif len(before.table) == 1 and after.last is not before.last and after.last is not None:
        s, card = 1 - after.last[0], after.last[2]  # the riposte, resolved at once
    else:
        return []
    verb = "attacks with" if not before.table else "ripostes with"
    return [f"{who(s)} {verb} {shown(card)}"]


def manche_ended(before: Moment, after: Moment) -> bool:
    """Whether the action ended a manche (a new one began, or the game ended)."""
    over = after.phase == "over" and before.phase != "over"
    return bool(before.manche) and (after.manche != before.manche or over)


def manche_winner(before: Moment, after: Moment) -> int | None:
    """The seat that won the manche the action ended: it opens the next (L8) and got
    its VP (a black t23 or t33 in the same combat may move VP too, L29)."""
    seat = after.attacker
    return seat if after.vp[seat] > before.vp[seat] else None


def _outcome_lines(before: Moment, after: Moment, who: Any) -> list[str]:
    lines = []
    if after.last is not None and after.last is not before.last:
        sa, ca, cb, d0, d1, win = after.last
        delta = (d0, d1)
        sb = 1 - sa
        won = "nobody wins it" if win is None else f"{who(win)} wins it"
        lines.append(
            f"{who(sa)}'s {card_name(ca)} vs {who(sb)}'s {card_name(cb)}: "
            f"{who(sa)} {delta[sa]:+d} HP, {who(sb)} {delta[sb]:+d} HP; {won}"
        )
    if manche_ended(before, after):
        won = manche_winner(before, after)
        if won is not None:
            lines.append(f"{who(won)} wins manche {before.manche}: VP {after.vp[0]}-{after.vp[1]}")
        else:
            lines.append(f"manche {before.manche} ends: nobody wins it")
    elif after.vp != before.vp:
        lines.append(f"VP now {after.vp[0]}-{after.vp[1]}")
    if after.hands > before.hands and after.manche == before.manche and before.hands:
        lines.append("both hands empty, equal HP: 5 new cards each, same manche")
    if after.phase == "over" and before.phase != "over":
        if after.winner is None:
            lines.append(f"game over: nobody wins, VP {after.vp[0]}-{after.vp[1]}")
        else:
            lines.append(f"game over: {who(after.winner)} wins, VP {after.vp[0]}-{after.vp[1]}")
    return lines
