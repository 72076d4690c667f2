"""Lutin & Troll's front-end: what the terminal client shows and takes at its table.

The table area shows both HP bars and VP, the combat on the table (the attack, then
the riposte) or else the last combat's result, both défausses and what each pioche
still holds with the unplayed hand (public: L17), the tokens (expert) and the seat's
own hand, in at most 11 rows at 80 columns (the frame's log and bars take the rest of
24). Keys: while a hand is chosen (L16), ``2``-``8`` a green card of that value,
``k`` Kobold (b4), ``g`` Gobelin (b5), ``t`` Troll (b6), ``p`` Nymph, ``h`` Harpy,
``m`` Mandragore; while playing, ``1``-``5`` a hand card; a token choice as
:mod:`.choices` says. The narration is :mod:`.narration`'s.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

from trutnet.client.frontend import Cue, Frontend, Press, RoundOver
from trutnet.client.view import Line, TableInfo, seat_name, text_width
from trutnet.engine.errors import EngineError
from trutnet.games.lutin import choices
from trutnet.games.lutin.choices import CHOOSE_KEYS, KIND_KEYS, OPTION_KEYS
from trutnet.games.lutin.narration import (
    Narrator,
    Told,
    card_name,
    manche_ended,
    manche_winner,
    narrate,
)
from trutnet.games.lutin.rules.actions import Take, TokenPlay, parse_action
from trutnet.games.lutin.rules.cards import KINDS, MAX_HP
from trutnet.games.lutin.rules.declaration import LUTIN
from trutnet.games.lutin.rules.observation import LutinObservation
from trutnet.games.lutin.rules.state import LutinState
from trutnet.i18n import N_, _, ngettext

HAND_KEYS = tuple("12345")
TOKEN_PHASES = ("tdiscard", "bonus", "window", "window_turn")
# the variants as a person reads them (the command line's names stay as they are)
VARIANT_WORDS = {
    "base": N_("base"),
    "expert-white": N_("expert-white"),
    "expert-black": N_("expert-black"),
    "initiation": N_("initiation"),
}
NAME_COLUMNS = 6  # a seat's name in the défausse and pioche rows (the counts take 62)


HELP = N_("""Lutin & Troll — two players, a deck of 25 cards each
Each manche: 12 HP each; both choose 5 cards of their own pioche, in secret.
The attacker shows a card, the other answers. Green v green, blue v blue: the
lower loses the difference. Blue always hits green, for its value. Red beats
green and blue: Nymph cancels the hit, Harpy sends it back (the other loses its
card's value), Mandragore heals you by the other's value. Two reds: nothing.
The combat's winner attacks next. 0 HP, or more HP when both hands are empty,
wins the manche and a victory point (equal HP: 5 new cards, same manche).
Five VP win. Pioche: the pioche with the hand not yet shown. A manche's unplayed
cards are shown; an empty pioche takes back the défausse. Initiation: no choice.
Défausse and pioche rows name a card by the key that chooses it (2x4: four 2s).
Expert: 3 tokens each, keep 2 in secret; after each riposte both may play one
(sealed, then shown together). Tokens by cell (row, column):
 White  t11 green->blue   t12 blue->green   t13 both cards cancelled
        t21 +4 own green  t22 own blue x2   t23 +4 HP to you
        t31 -5 their green t32 -4 their blue t33 -5 HP to them
 Black  t11 swap with défausse  t12 their card = 0  t13 cancel their token
        t21 swap with hand      t22 result doubled  t23 +1 VP (if < 4)
        t31 winner loses        t32 loser wins manche  t33 -1 VP them (if > 2)
Manche 6: the one behind takes a face-up token as a secret bonus.""")


def counts(cards: Sequence[str]) -> str:
    """A pile by the keys that choose its cards, with how many of each:
    ``2x4 3 6 k t p`` (four Lutins 2, a Farfadet 3, a Gnome 6, Kobold, Troll, Nymph)."""
    c = Counter(cards)
    return (
        " ".join(f"{KIND_KEYS[k]}x{c[k]}" if c[k] > 1 else KIND_KEYS[k] for k in KINDS if c[k])
        or "—"
    )


def short(name: str, columns: int = NAME_COLUMNS) -> str:
    return name if len(name) <= columns else name[: columns - 1] + "…"


def _numbers(count: int) -> str:
    """The keys of ``count`` hand cards: ``1-4``, or ``1``."""
    return "1" if count == 1 else f"1-{count}"


def _ranges(values: list[int]) -> str:
    """``2-5 7``: numbers in order, runs of three or more as a range."""
    out: list[str] = []
    run: list[int] = []
    for v in [*values, -1]:
        if run and v == run[-1] + 1:
            run.append(v)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 2 else " ".join(map(str, run)))
        run = [v]
    return " ".join(out)


def option_label(action: Any) -> str:
    """A token choice in a few characters: ``none``, ``t11 own``, ``bonus hand/2``."""
    return choices._name(None, action, effects=False)


class LutinFrontend(Frontend):
    game = "lutin"
    long_name = LUTIN.title
    keys = (*HAND_KEYS, *(k for k in CHOOSE_KEYS if k not in HAND_KEYS), *OPTION_KEYS[-2:])
    round_word = N_("manche")
    rounds_word = N_("manches")
    chance_step = N_("Drawing")

    def __init__(self) -> None:
        self._narrator = Narrator()
        self._picked: Any = None  # the token whose target is being chosen (choices)
        self._picked_for: tuple[Any, ...] = ()  # the choices it was picked among
        # the hand that just ended (manche, continued, its winner, final HP, VP), shown
        # while the frame pauses on it
        self._ended: tuple[int, bool, int | None, list[int], tuple[int, ...]] | None = None
        self._last_combat: str | None = None  # that hand's deciding combat

    def spectator_observation(self, state: LutinState) -> LutinObservation:
        return dataclasses.replace(state.observation(0), seat=-1, hand=(), legal=())

    def round_label(self, obs: LutinObservation) -> str:
        return _("manche {manche}").format(manche=obs.manche)

    def title(self, obs: LutinObservation) -> str:
        when = self.round_label(obs) if obs.manche else _("set-up")
        return _("Lutin & Troll — {variant}, {when}").format(
            variant=_(VARIANT_WORDS.get(obs.variant, obs.variant)), when=when
        )

    # ---------------------------------------------------------------- the table

    def _bars(
        self, info: TableInfo, hp: Sequence[int], vp: Sequence[int], attacker: int | None
    ) -> list[Line]:
        lines: list[Line] = []
        for s in range(2):
            bar = "#" * hp[s] + "." * (MAX_HP - hp[s])
            att = "  " + _("attacks") if s == attacker else ""
            state = _("HP {hp:>2} [{bar}]  VP {vp}").format(hp=hp[s], bar=bar, vp=vp[s])
            lines.append(
                [
                    ("class:bold", f" {short(seat_name(info, s), 10):<10}"),
                    ("", f" {state}{att}"),
                ]
            )
        return lines

    def table_area(self, obs: LutinObservation, info: TableInfo, width: int) -> list[Line]:
        lines = self._bars(info, obs.hp, obs.vp, obs.attacker)
        lines.append([("", self._combat(obs, info))])
        rows = ((_("Défausse {who}: {cards}"), obs.defausse),
                (_("Pioche {who}: {cards}"), self._pioches(obs)))  # fmt: skip
        for label, piles in rows:
            for s in range(2):
                text = piles[s] if isinstance(piles[s], str) else counts(piles[s])
                row = label.format(who=short(seat_name(info, s)), cards=text)
                lines.append([("", f" {row}")])
        deciding = obs.phase in TOKEN_PHASES and bool(obs.legal)
        if obs.power:
            lines += self._tokens(obs, info, width, deciding)
        if info.me is None:
            sizes = ", ".join(f"{seat_name(info, s)} {n}" for s, n in enumerate(obs.hand_sizes))
            lines.append([("class:bold", " " + _("Cards in hand:") + " "), ("", sizes)])
        else:
            cards = " ".join(f"[{i + 1}]{card_name(c)}" for i, (_at, c) in enumerate(obs.hand))
            lines.append([("class:bold", " " + _("Your hand:") + " "), ("", cards or "—")])
        return lines

    def _combat(self, obs: LutinObservation, info: TableInfo) -> str:
        """The combat on the table, else the last one's result (L7-L13)."""
        if obs.table:
            said = ""
            for s, c in obs.table:
                play = _("{who}: {what}").format(
                    who=short(seat_name(info, s), 10), what=card_name(c)
                )
                said = _("{first}  then  {then}").format(first=said, then=play) if said else play
            return " " + _("Combat: {cards}").format(cards=said)
        if obs.last is None:
            return " " + _("Combat: {cards}").format(cards="—")
        return self._last(obs.last, info)

    def _last(self, last: Any, info: TableInfo) -> str:
        """A combat's result: ``Last: Ana Troll 6 +0, Bob Lutin 2 -4 HP; won by Ana``
        (names cut to 8 letters: the line fits 80 columns with its winner)."""
        sa, ca, cb, d0, d1, win = last
        sb, delta = 1 - sa, (d0, d1)
        a, b = short(seat_name(info, sa), 8), short(seat_name(info, sb), 8)
        said = dict(a=a, card_a=card_name(ca), b=b, card_b=card_name(cb),
                    delta_a=delta[sa], delta_b=delta[sb])  # fmt: skip
        if win is None:
            return " " + _(
                "Last: {a} {card_a} {delta_a:+d}, {b} {card_b} {delta_b:+d} HP; won by nobody"
            ).format(**said)
        return " " + _(
            "Last: {a} {card_a} {delta_a:+d}, {b} {card_b} {delta_b:+d} HP; won by {winner}"
        ).format(winner=short(seat_name(info, win), 8), **said)

    def round_over(self, obs: LutinObservation, info: TableInfo) -> RoundOver | None:
        """The hand that just ended: the manche's winner and its victory point, or a
        continuation with equal HP (L13, L14); the last combat, as it ended."""
        if self._ended is None:
            return None
        manche, continued, won, hp, vp = self._ended
        bars = tuple(self._bars(info, hp, vp, None))
        combat: tuple[Line, ...] = ()
        if self._last_combat is not None:
            combat = ([("", self._last_combat)],)
        if continued:
            return RoundOver(
                _("Manche {manche} goes on").format(manche=manche),
                (_("equal HP ({hp0}-{hp1}), both hands empty: nobody scores;"
                   " 5 new cards each").format(hp0=hp[0], hp1=hp[1]),),
                bars, combat,
            )  # fmt: skip
        if won is None:
            scored = _("nobody wins the manche: nobody scores")
        else:
            other = 1 - won
            if hp[other] != 0:
                why = _("more HP with both hands empty ({won}-{lost})").format(
                    won=hp[won], lost=hp[other]
                )
            elif other == info.me:
                why = _("You are down to 0 HP")
            else:
                why = _("{who} is down to 0 HP").format(who=seat_name(info, other))
            if won == info.me:
                scored = _("You win the manche: +1 VP ({why})").format(why=why)
            else:
                scored = _("{who} wins the manche: +1 VP ({why})").format(
                    who=seat_name(info, won), why=why
                )
        heading = _("Manche {manche} is over").format(manche=manche)
        return RoundOver(heading, (scored,), bars, combat)

    def _pioches(self, obs: LutinObservation) -> list[Any]:
        sizes = obs.pioche_sizes
        return [
            obs.unseen[s]
            if obs.unseen[s]
            else ngettext("{n} card", "{n} cards", sizes[s]).format(n=sizes[s])
            for s in range(2)
        ]

    def _tokens(
        self, obs: LutinObservation, info: TableInfo, width: int, deciding: bool
    ) -> list[Line]:
        """Expert: the tokens held, then the face-up ones and the last window, or, when
        this seat chooses a token, its choices (L21, L22, L30)."""
        other = 1 - info.me if info.me is not None else 1
        if info.me is not None:
            mine = " ".join(n or "?" for _at, n in obs.tokens) or _("none")
            held = _("yours {tokens}").format(tokens=mine)
        else:
            held = _("{who} holds {n}").format(who=seat_name(info, 0), n=obs.token_counts[0])
        power = {"white": _("white"), "black": _("black")}.get(obs.power or "", obs.power)
        tokens = _("Tokens ({power}): {held}; {who} holds {n}").format(
            power=power, held=held, who=seat_name(info, other), n=obs.token_counts[other]
        )
        lines: list[Line] = [[("", f" {tokens}")]]
        if deciding:
            picked = self._current_pick(obs)
            shown = choices.options(obs, picked)
            rows = choices.rows(choices.heading(obs, picked), shown, width)
            return lines + [[("class:bold", r)] for r in rows[:2]]
        window = "  ".join(self._window(obs, info))
        face = " " + _("Face up: {tokens}").format(tokens=" ".join(obs.faceup) or "—")
        full = face + "   " + _("last window: {window}").format(window=window)
        if window and text_width(full) <= width:
            face = full
        elif window:
            face += "   " + _("last: {window}").format(window=window)
        return [*lines, [("", face)]]

    def _window(self, obs: LutinObservation, info: TableInfo) -> list[str]:
        told = []
        for item in obs.window:  # "seat:action"
            seat, _colon, text = item.partition(":")
            try:
                action = parse_action(text)
            except EngineError:
                continue
            if isinstance(action, TokenPlay):
                label = _("none") if action.source is None else option_label(action)
                told.append(f"{short(seat_name(info, int(seat)))} {label}")
        return told

    # ---------------------------------------------------------------- deciding

    def _current_pick(self, obs: LutinObservation) -> Any:
        """The token picked for a target, while the same choices are on offer."""
        if self._picked is not None and self._picked_for != tuple(obs.legal):
            self._picked = None
        return self._picked

    def prompt(self, obs: LutinObservation, info: TableInfo) -> str:
        if obs.phase == "tdiscard":
            return _("Discard one of your 3 tokens (secret until both chose, then face up)")
        if obs.phase == "bonus":
            return _("Your bonus: one of the face-up tokens, in secret")
        if obs.phase in ("window", "window_turn"):
            if self._current_pick(obs) is not None:
                return _("Which card? Its key in [ ]; 0 back")
            return _("A token for this combat, or none: its number")
        if obs.phase == "choose":
            return _("Choose card {n} of 5 for your hand, in secret").format(n=len(obs.hand) + 1)
        keys = _numbers(len(obs.hand))
        if obs.phase == "riposte":
            return _("Riposte: {keys}").format(keys=keys)
        return _("Attack: {keys}").format(keys=keys)

    def deciding(self, obs: LutinObservation) -> str:
        words = {
            "choose": _("to choose a hand"), "riposte": _("to riposte"),
            "attack": _("to attack"), "tdiscard": _("to discard a token"),
            "bonus": _("to take a bonus token"),
        }  # fmt: skip
        return words.get(obs.phase, _("to choose a token"))

    def key_hints(self, obs: LutinObservation, info: TableInfo) -> list[str]:
        if not obs.legal:
            return []
        if obs.phase in TOKEN_PHASES:
            if self._current_pick(obs) is not None:
                return [_("[key] card  0 back")]
            shown = choices.options(obs)
            keys = _numbers(len(shown)) if len(shown) < 10 else "1-0"
            return [_("{keys} token").format(keys=keys)]
        if obs.phase == "choose":  # a green card by its value, the others by a letter
            have = {a.card for a in obs.legal if isinstance(a, Take)}
            greens = [int(k) for k, c in CHOOSE_KEYS.items() if k.isdigit() and c in have]
            named = [f"{k} {card_name(c).split()[0]}" for k, c in CHOOSE_KEYS.items()
                     if not k.isdigit() and c in have]  # fmt: skip
            return [" ".join(filter(None, [_ranges(greens), *named]))]
        return [_("{keys} play").format(keys=_numbers(len(obs.hand)))]

    def press(self, key: str, obs: LutinObservation, info: TableInfo) -> Press:
        if obs.phase in TOKEN_PHASES:
            return self._press_choice(key, obs)
        if obs.phase == "choose":
            if key not in CHOOSE_KEYS:
                return Press(
                    say=_("{key} names no card: choose with 2-8 k g t p h m").format(key=key)
                )
            take = Take(CHOOSE_KEYS[key])
            if take in obs.legal:
                return Press(str(take))
            return Press(
                say=_("your pioche has no {card} left (L16)").format(card=card_name(take.card))
            )
        index = HAND_KEYS.index(key) if key in HAND_KEYS else -1
        if obs.phase in ("attack", "riposte") and 0 <= index < len(obs.hand):
            where, card = obs.hand[index]
            if where.startswith("hand/"):
                return Press(f"play {where}")
            return Press(f"play {where}" + (f"={card}" if card else ""))
        return Press(say=_("no card {key} to play now").format(key=key))

    def action_words(self, action: str, obs: LutinObservation) -> str:
        """``take Troll (key t)``, ``play Goblin (key 2)``: a card chosen or played as
        the screen shows it, with its key; a token in the notation's words."""
        if obs.phase == "choose":
            for key, card in CHOOSE_KEYS.items():
                if str(Take(card)) == action:
                    return _("take {card} (key {key})").format(card=card_name(card), key=key)
        word, _space, where = action.partition(" ")
        if word == "play":
            spot = where.split("=")[0]
            for index, (at, card) in enumerate(obs.hand):
                if at == spot and card and index < len(HAND_KEYS):
                    return _("play {card} (key {key})").format(
                        card=card_name(card), key=HAND_KEYS[index]
                    )
        return action

    def _press_choice(self, key: str, obs: LutinObservation) -> Press:
        picked = self._current_pick(obs)
        for option in choices.options(obs, picked):
            if option.key != key:
                continue
            if option.action is not None:
                self._picked = None
                return Press(str(option.action))
            self._picked = option.source if option.opens else None
            self._picked_for = tuple(obs.legal)
            return Press()  # the targets, or back to the tokens: drawn again
        return Press(say=_("no choice {key} now").format(key=key))

    def sent(self, action: str) -> None:
        self._picked = None

    def help(self, spectator: bool) -> str:
        keys = (
            _("q stop watching, ? help")
            if spectator
            else _(
                "choose 2-8 green, k g t blue 4 5 6, p h m Nymph Harpy Mandragore;\n"
                "play 1-5; a token 1-0, then its card's key (0 back); q quit, ? help"
            )
        )
        return "\n".join(
            [_(HELP), _("Keys: {keys}").format(keys=keys), _("Press ? or Esc to go back.")]
        )

    # ---------------------------------------------------------------- events

    def events(self, state: LutinState) -> Sequence[Told]:
        return self._narrator.events(state)

    def narrate(
        self,
        event: Any,
        state: LutinState,
        names: Sequence[str] | None = None,
        show_hands: bool = False,
    ) -> list[str]:
        if not isinstance(event, Told):  # an action given alone
            event = Told(None, event)
        return narrate(event, names)

    def follow(self, event: Any, state: LutinState, info: TableInfo) -> Cue | None:
        """A manche won, or a continuation (L14): its summary stays on screen (the frame
        pauses until Enter, or a moment), not the next hand's empty table."""
        before, after = getattr(event, "before", None), getattr(event, "after", None)
        if before is None or after is None or not before.manche:
            return None
        ended = manche_ended(before, after)
        if not ended and after.hands == before.hands:
            return None
        hp = list(before.hp)
        if after.last is not None and after.last is not before.last:  # the deciding combat
            hp = [max(0, min(MAX_HP, hp[s] + after.last[3 + s])) for s in range(2)]
        won = manche_winner(before, after) if ended else None
        self._ended = (before.manche, not ended, won, hp, after.vp)
        last = after.last if after.last is not None and after.last is not before.last else None
        self._last_combat = None if last is None else self._last(last, info)
        return Cue.ROUND_ENDS

    def end_title(self, obs: LutinObservation, info: TableInfo) -> str:
        if obs.winner is None:
            return _("nobody wins")
        if obs.winner == info.me:
            return _("you win!")
        return _("{who} wins").format(who=seat_name(info, obs.winner))

    def end_table(
        self, obs: LutinObservation, info: TableInfo, width: int
    ) -> tuple[list[Line], list[Line]]:
        rows: list[Line] = []
        for s, v in enumerate(obs.vp):
            # the English says "points" for 1 too; a translation may say "1 point"
            said = ngettext("{who}: {n} victory points", "{who}: {n} victory points", v)
            rows.append([("", " " + said.format(who=seat_name(info, s), n=v))])
        return [[("class:bold", " " + _("Final score:"))]], rows

    def score(self, state: LutinState) -> str:
        return _("VP {vp0}-{vp1}").format(vp0=state.vp[0], vp1=state.vp[1])


__all__ = ["CHOOSE_KEYS", "LutinFrontend"]
