"""Lutin & Troll's front-end: what the terminal client shows and takes at its table.

The table area shows both HP bars and VP, the combat on the table (the attack, then
the riposte), the last combat's result, both défausses and what each pioche still
holds (public: L17), and the seat's own hand. Keys: while a hand is chosen (L16),
``2``-``8`` a green card of that value, ``k`` Kobold, ``g`` Gobelin, ``t`` Troll,
``p`` Nymph, ``h`` Harpy, ``m`` Mandragore; while playing, ``1``-``5`` a hand card.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

from trutnet.client.frontend import Cue, Frontend, Press
from trutnet.client.view import Line, TableInfo, seat_name
from trutnet.engine.games.lutin.actions import Dealt, First, PlayLabel, PlayPos, Seal, Show, Take
from trutnet.engine.games.lutin.cards import KINDS, MAX_HP
from trutnet.engine.games.lutin.observation import LutinObservation
from trutnet.engine.games.lutin.state import LutinState

NAMES = {
    "g2": "Lutin 2", "g3": "Farfadet 3", "g4": "Korrigan 4", "g5": "Elfe 5",
    "g6": "Gnome 6", "g7": "Gnome 7", "g8": "Gnome 8", "b4": "Kobold 4",
    "b5": "Gobelin 5", "b6": "Troll 6", "nymph": "Nymph", "harpy": "Harpy",
    "mandragore": "Mandragore",
}  # fmt: skip
CHOOSE_KEYS = {
    **{str(v): f"g{v}" for v in range(2, 9)},
    "k": "b4", "g": "b5", "t": "b6", "p": "nymph", "h": "harpy", "m": "mandragore",
}  # fmt: skip
HAND_KEYS = tuple("12345")

HELP = """Lutin & Troll — two players, a deck of 25 cards each

Each manche starts with 12 HP each. Both choose 5 cards of their own pioche,
in secret (each card is sealed, and checked when it is played). The attacker
shows a card, the other answers with one. Green against green, blue against
blue: the lower card loses the difference. Blue always hits green, for its
value. Red wins against green and blue: the Nymph cancels the hit, the Harpy
sends it back (the other loses its card's value), the Mandragore heals you by
the other's value. Two reds cancel. The winner of a combat attacks next. A
manche ends at 0 HP, or when both hands are empty: more HP wins a victory
point (equal: 5 new cards and the manche goes on). Five victory points win.
Unplayed cards are shown at the end of a manche; an empty pioche takes back
the whole défausse.
Initiation: hands are the top 5 of a jointly shuffled deck; 5 manches at most.
"""


def card_name(card: str | None) -> str:
    return "??" if card is None else NAMES.get(card, card)


def counts(cards: Sequence[str]) -> str:
    c = Counter(cards)
    return " ".join(f"{k}x{c[k]}" if c[k] > 1 else k for k in KINDS if c[k]) or "—"


class LutinFrontend(Frontend):
    game = "lutin"
    long_name = "Lutin & Troll"
    keys = (*HAND_KEYS, *(k for k in CHOOSE_KEYS if k not in HAND_KEYS))
    round_word = "manche"
    chance_step = "Drawing"

    def spectator_observation(self, state: LutinState) -> LutinObservation:
        return dataclasses.replace(state.observation(0), seat=-1, hand=(), legal=())

    def title(self, obs: LutinObservation) -> str:
        return f"Lutin & Troll — {obs.variant}, manche {obs.manche}"

    def table_area(self, obs: LutinObservation, info: TableInfo, width: int) -> list[Line]:
        lines: list[Line] = []
        for s in range(2):
            bar = "#" * obs.hp[s] + "." * (MAX_HP - obs.hp[s])
            att = "  attacks" if s == obs.attacker else ""
            lines.append(
                [
                    ("class:bold", f" {seat_name(info, s):<10}"),
                    ("", f" HP {obs.hp[s]:>2} [{bar}]  VP {obs.vp[s]}{att}"),
                ]
            )
        on_table = "  then  ".join(f"{seat_name(info, s)}: {card_name(c)}" for s, c in obs.table)
        lines.append([("", f" Combat: {on_table or '—'}")])
        if obs.last is not None:
            _, ca, cb, d0, d1, win = obs.last
            who = "nobody" if win is None else seat_name(info, win)
            lines.append(
                [
                    (
                        "",
                        f" Last: {card_name(ca)} vs {card_name(cb)}: HP {d0:+d}/{d1:+d}, "
                        f"won by {who}",
                    )
                ]
            )
        for s in range(2):
            lines.append([("", f" Défausse {seat_name(info, s)}: {counts(obs.defausse[s])}")])
        for s in range(2):
            left = counts(obs.unseen[s]) if obs.unseen[s] else f"{obs.pioche_sizes[s]} cards"
            lines.append([("", f" Pioche+hand {seat_name(info, s)}: {left}")])
        if info.me is None:
            sizes = ", ".join(f"{seat_name(info, s)} {n}" for s, n in enumerate(obs.hand_sizes))
            lines.append([("class:bold", " Cards in hand: "), ("", sizes)])
        else:
            cards = " ".join(f"[{i + 1}]{c or '??'}" for i, (_, c) in enumerate(obs.hand))
            lines.append([("class:bold", " Your hand: "), ("", cards or "—")])
        return lines

    def prompt(self, obs: LutinObservation, info: TableInfo) -> str:
        if obs.phase == "choose":
            return f"Choose card {len(obs.hand) + 1} of 5 for your hand, in secret"
        if obs.phase == "riposte":
            return f"Riposte: 1-{len(obs.hand)}"
        return f"Attack: 1-{len(obs.hand)}"

    def deciding(self, obs: LutinObservation) -> str:
        return {"choose": "to choose a hand", "riposte": "to riposte"}.get(obs.phase, "to attack")

    def key_hints(self, obs: LutinObservation, info: TableInfo) -> list[str]:
        if not obs.legal:
            return []
        if obs.phase == "choose":
            have = {a.card for a in obs.legal if isinstance(a, Take)}
            return [" ".join(k for k, c in CHOOSE_KEYS.items() if c in have) + " choose"]
        return [f"1-{len(obs.hand)} play"]

    def press(self, key: str, obs: LutinObservation, info: TableInfo) -> Press:
        if obs.phase == "choose" and key in CHOOSE_KEYS:
            take = Take(CHOOSE_KEYS[key])
            if take in obs.legal:
                return Press(str(take))
            return Press(say=f"your pioche has no {card_name(take.card)} left (L16)")
        index = HAND_KEYS.index(key) if key in HAND_KEYS else -1
        if obs.phase in ("attack", "riposte") and 0 <= index < len(obs.hand):
            where, card = obs.hand[index]
            if where.startswith("hand/"):
                return Press(f"play {where}")
            return Press(f"play {where}" + (f"={card}" if card else ""))
        return Press(say=f"no card {key} to play now")

    def help(self, spectator: bool) -> str:
        keys = (
            "q stop watching"
            if spectator
            else ("choose: 2-8 green, k g t blue, p h m red; play: 1-5; q quit")
        )
        return f"{HELP}\nKeys: {keys}, ? this help\nPress ? or Esc to go back."

    def narrate(
        self,
        event: Any,
        state: LutinState,
        names: Sequence[str] | None = None,
        show_hands: bool = False,
    ) -> list[str]:
        def who(seat: int) -> str:
            return names[seat] if names else f"seat {seat}"

        if isinstance(event, First):
            return [f"{who(event.seat)} attacks first (joint coin, L5)"]
        if isinstance(event, Dealt):
            return [f"{event.deck} is shuffled jointly"]
        if isinstance(event, Seal):
            return []
        if isinstance(event, Take | PlayPos | PlayLabel | Show):
            return [f"{event}"]
        return [f"{event}"]

    def follow(self, event: Any, state: LutinState, info: TableInfo) -> Cue | None:
        return None

    def end_title(self, obs: LutinObservation, info: TableInfo) -> str:
        if obs.winner is None:
            return "nobody wins"
        return "you win!" if obs.winner == info.me else f"{seat_name(info, obs.winner)} wins"

    def end_table(
        self, obs: LutinObservation, info: TableInfo, width: int
    ) -> tuple[list[Line], list[Line]]:
        rows: list[Line] = [
            [("", f" {seat_name(info, s)}: {v} victory points")] for s, v in enumerate(obs.vp)
        ]
        return [[("class:bold", " Final score:")]], rows

    def score(self, state: LutinState) -> str:
        return f"VP {state.vp[0]}-{state.vp[1]}"
