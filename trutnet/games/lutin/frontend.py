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
from trutnet.engine.games.lutin.actions import (
    BonusPick,
    Dealt,
    Discard,
    First,
    PlayLabel,
    PlayPos,
    Seal,
    Show,
    Take,
    TokenPlay,
)
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
OPTION_KEYS = tuple("1234567890")  # a token choice (L21, L22, L30): its number
TOKEN_PHASES = ("tdiscard", "bonus", "window", "window_turn")


def option_label(action: Any) -> str:
    """A token choice in a few characters: ``none``, ``t11 own``, ``bonus hand/2``."""
    if isinstance(action, TokenPlay):
        if action.source is None:
            return "none"
        name = action.name or ("bonus" if action.source == "bonus" else str(action.source))
        return name + ("" if action.target is None else f" {action.target}")
    if isinstance(action, Discard):
        return f"discard {action.name or action.pos}"
    if isinstance(action, BonusPick):
        return action.name
    return str(action)


HELP = """Lutin & Troll — two players, a deck of 25 cards each
Each manche: 12 HP each; both choose 5 cards of their own pioche, in secret.
The attacker shows a card, the other answers. Green v green, blue v blue: the
lower loses the difference. Blue always hits green, for its value. Red beats
green and blue: Nymph cancels the hit, Harpy sends it back (the other loses its
card's value), Mandragore heals you by the other's value. Two reds: nothing.
The combat's winner attacks next. 0 HP, or more HP when both hands are empty,
wins the manche and a victory point (equal HP: 5 new cards, same manche).
Five victory points win. Unplayed cards are shown at a manche's end; an empty
pioche takes back the whole défausse. Initiation: the top 5 of a deck shuffled
jointly, no choice; the game ends when the pioche is empty.
Expert: 3 tokens each, keep 2 in secret; after each riposte both may play one
(sealed, then shown together). Tokens by cell (row, column):
 White  t11 green->blue   t12 blue->green   t13 both cards cancelled
        t21 +4 own green  t22 own blue x2   t23 +4 HP to you
        t31 -5 their green t32 -4 their blue t33 -5 HP to them
 Black  t11 swap with défausse  t12 their card = 0  t13 cancel their token
        t21 swap with hand      t22 result doubled  t23 +1 VP (if < 4)
        t31 winner loses        t32 loser wins manche  t33 -1 VP them (if > 2)
Manche 6: the one behind takes a face-up token as a secret bonus."""


def card_name(card: str | None) -> str:
    return "??" if card is None else NAMES.get(card, card)


def counts(cards: Sequence[str]) -> str:
    c = Counter(cards)
    return " ".join(f"{k}x{c[k]}" if c[k] > 1 else k for k in KINDS if c[k]) or "—"


class LutinFrontend(Frontend):
    game = "lutin"
    long_name = "Lutin & Troll"
    keys = (*HAND_KEYS, *(k for k in CHOOSE_KEYS if k not in HAND_KEYS), *OPTION_KEYS[-2:])
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
        if obs.power:
            mine = " ".join(n or "?" for _, n in obs.tokens) or "—"
            other = 1 - info.me if info.me is not None else 1
            held = (
                f"yours {mine}"
                if info.me is not None
                else f"{seat_name(info, 0)} {obs.token_counts[0]}"
            )
            lines.append(
                [
                    (
                        "",
                        f" Tokens ({obs.power}): {held}, {seat_name(info, other)} "
                        f"{obs.token_counts[other]}; face up {' '.join(obs.faceup) or '—'}",
                    )
                ]
            )
            if obs.window:
                lines.append([("", f" Last window: {'  '.join(obs.window)}")])
            if obs.phase in TOKEN_PHASES and obs.legal:
                options = "  ".join(
                    f"[{OPTION_KEYS[i]}]{option_label(a)}" for i, a in enumerate(obs.legal[:10])
                )
                lines.append([("class:bold", " Choices: "), ("", options)])
        if info.me is None:
            sizes = ", ".join(f"{seat_name(info, s)} {n}" for s, n in enumerate(obs.hand_sizes))
            lines.append([("class:bold", " Cards in hand: "), ("", sizes)])
        else:
            cards = " ".join(f"[{i + 1}]{c or '??'}" for i, (_, c) in enumerate(obs.hand))
            lines.append([("class:bold", " Your hand: "), ("", cards or "—")])
        return lines

    def prompt(self, obs: LutinObservation, info: TableInfo) -> str:
        if obs.phase == "tdiscard":
            return "Discard one of your three tokens (in secret): its number"
        if obs.phase == "bonus":
            return "Your bonus: one of the face-up tokens, in secret"
        if obs.phase in ("window", "window_turn"):
            return "A token for this combat, or none: its number"
        if obs.phase == "choose":
            return f"Choose card {len(obs.hand) + 1} of 5 for your hand, in secret"
        if obs.phase == "riposte":
            return f"Riposte: 1-{len(obs.hand)}"
        return f"Attack: 1-{len(obs.hand)}"

    def deciding(self, obs: LutinObservation) -> str:
        words = {"choose": "to choose a hand", "riposte": "to riposte", "attack": "to attack"}
        return words.get(obs.phase, "to choose a token")

    def key_hints(self, obs: LutinObservation, info: TableInfo) -> list[str]:
        if not obs.legal:
            return []
        if obs.phase in TOKEN_PHASES:
            return [f"1-{OPTION_KEYS[min(len(obs.legal), 10) - 1]} token"]
        if obs.phase == "choose":
            have = {a.card for a in obs.legal if isinstance(a, Take)}
            return [" ".join(k for k, c in CHOOSE_KEYS.items() if c in have) + " choose"]
        return [f"1-{len(obs.hand)} play"]

    def press(self, key: str, obs: LutinObservation, info: TableInfo) -> Press:
        if obs.phase in TOKEN_PHASES:
            index = OPTION_KEYS.index(key) if key in OPTION_KEYS else -1
            if 0 <= index < len(obs.legal):
                return Press(str(obs.legal[index]))
            return Press(say=f"no choice {key} now")
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
            else "choose 2-8 k g t p h m, play 1-5, token 1-0, q quit"
        )
        return f"{HELP}\nKeys: {keys}, ? help\nPress ? or Esc to go back."

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
