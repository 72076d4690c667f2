"""Lutin & Troll's token choices on the screen (L21, L22, L30): a key for each.

A set-up discard, a bonus pick and a window's "none" or single-target token are one
press of their number (``1``-``9``, ``0``). A token whose effect needs a target among
several (black t11: a kind of one's défausse, up to 13; black t21: a card of one's
hand; white t11/t12: one's own card or the other's) is two: its number, then the
target by the key that names that card elsewhere on the screen (a kind: the
hand-choosing keys ``2``-``8`` ``k`` ``g`` ``t`` ``p`` ``h`` ``m``; a hand card: its
``1``-``5``; ``1`` one's own card, ``2`` the other's); ``0`` goes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trutnet.engine.api import Action
from trutnet.games.lutin.narration import card_name, effect
from trutnet.games.lutin.rules.actions import BonusPick, Discard, TokenPlay
from trutnet.i18n import N_, _

CHOOSE_KEYS = {
    **{str(v): f"g{v}" for v in range(2, 9)},
    "k": "b4", "g": "b5", "t": "b6", "p": "nymph", "h": "harpy", "m": "mandragore",
}  # fmt: skip
KIND_KEYS = {kind: key for key, kind in CHOOSE_KEYS.items()}
OPTION_KEYS = tuple("1234567890")
SIDE_KEYS = {"own": "1", "opp": "2"}
SIDE_NAMES = {"own": N_("your card"), "opp": N_("their card")}  # shown translated
BACK = "0"
EFFECT_OPTIONS = 4  # with more options than this, their effects are left to the help


@dataclass(frozen=True)
class Option:
    """A key shown among the choices: it sends ``action``, or opens the targets of the
    token ``source`` (``opens``), or goes back (neither)."""

    key: str
    label: str
    action: Action | None = None
    opens: bool = False
    source: Any = None


def _name(power: str | None, action: Action, effects: bool) -> str:
    if isinstance(action, TokenPlay):
        if action.source is None:
            return _("none")
        name = action.name or (_("bonus") if action.source == "bonus" else "?")
    elif isinstance(action, Discard):
        name = action.name or str(action.pos)
    elif isinstance(action, BonusPick):
        name = action.name
    else:
        return str(action)
    does = effect(power, name)
    label = _("discard {token}").format(token=name) if isinstance(action, Discard) else name
    return f"{label} ({does})" if effects and does else label


def options(obs: Any, picked: Any = None) -> list[Option]:
    """The choices shown now: the first press's, or the targets of ``picked``'s token."""
    legal = list(obs.legal)
    groups: dict[Any, list[Action]] = {}
    for action in legal:
        key = ("token", action.source) if isinstance(action, TokenPlay) else ("one", action)
        groups.setdefault(key, []).append(action)
    if picked is not None and ("token", picked) in groups:
        return _targets(obs, groups[("token", picked)])
    effects = len(groups) <= EFFECT_OPTIONS
    shown = []
    for key, (kind, group) in zip(OPTION_KEYS, groups.items(), strict=False):
        label = _name(obs.power, group[0], effects)
        if len(group) == 1:
            shown.append(Option(key, label, group[0]))
        else:
            shown.append(Option(key, f"{label}…", opens=True, source=kind[1]))
    return shown


def _targets(obs: Any, group: list[Action]) -> list[Option]:
    hand = {where: (i, card) for i, (where, card) in enumerate(obs.hand)}
    shown: list[Option] = []
    spare = iter(k for k in OPTION_KEYS[:-1] if k not in CHOOSE_KEYS)  # a fallback key
    for action in group:
        assert isinstance(action, TokenPlay)
        target = action.target or ""
        if target in KIND_KEYS:
            key, label = KIND_KEYS[target], card_name(target).split()[0]  # the key tells the value
        elif target in hand:
            i, card = hand[target]
            key, label = str(i + 1), _("hand {card}").format(card=card_name(card))
        elif target in SIDE_KEYS:
            key, label = SIDE_KEYS[target], _(SIDE_NAMES[target])
        else:
            key, label = next(spare, "?"), target or _("no target")
        shown.append(Option(key, label, action))
    return [*shown, Option(BACK, _("back"))]


def heading(obs: Any, picked: Any) -> str:
    """What the choices line calls itself: ``Choices``, or ``t11 takes`` (its targets)."""
    if picked is None:
        return _("Choices")
    for action in obs.legal:
        if isinstance(action, TokenPlay) and action.source == picked:
            return _("{token} takes").format(token=action.name or _("bonus"))
    return _("Choices")


def rows(title: str, shown: list[Option], width: int) -> list[str]:
    """The choices packed into as few rows of ``width`` columns as they take: two
    spaces apart, or one when that saves a row (the screen has two for them)."""
    wide, narrow = _pack(title, shown, width, "  "), _pack(title, shown, width, " ")
    return narrow if len(narrow) < len(wide) else wide


def _pack(title: str, shown: list[Option], width: int, gap: str) -> list[str]:
    out: list[str] = []
    row = " " + _("{title}:").format(title=title) + " "
    for option in shown:
        item = f"[{option.key}]{option.label}"
        if len(row) + len(item) > width and row.strip():
            out.append(row.rstrip())
            row = "   "
        row += item + gap
    out.append(row.rstrip())
    return out
