"""Trut's parts of the table screen as text: pure functions from what one seat may see
(a :class:`~trutnet.games.trut.rules.observation.TrutObservation`) to styled lines.

The frame (:mod:`trutnet.client.view`) places them: the title, the table area (the
teams' Longs and Petits, the hand's state line, its tricks, the seat's hand or a
spectator's count of cards in each hand), the prompt and the keys of a decision, and
the end screen's score and table of hands. The hand that just ended
(:class:`HandSummary`) is given to the frame as a
:class:`~trutnet.client.frontend.RoundOver`, which it shows until a key.
Every line fits in 80 columns once the frame has cut it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from trutnet.client.frontend import RoundOver
from trutnet.client.view import ARROW, WIDTH, Line, TableInfo, fit, plain, seat_name, text_width
from trutnet.games.trut.deluxe import NAMES, help_lines
from trutnet.games.trut.rules.cards import Card
from trutnet.games.trut.rules.deluxe.cards import Special
from trutnet.games.trut.rules.observation import TrutObservation

RED_SUITS = ("h", "d")

HELP = """\
Trut — the words of the game
  Trut!         "I will win this hand": raises the stakes. Once per hand,
                on your turn, before you play.  t
  Joue !        accept a Trut (the hand is played for a Long).            j
  Je me couche  fold: the Truter's team scores a Petit, the hand ends.    c
  Petit / Long  small and big tokens: 3 Petits make a Long; 7 Longs win
                (5 in the Gâtinaise variant).
  Patté         a trick tied between teams on the strongest card.
  Pourrie       a hand of three pattés: void, nobody scores, same dealer.
  Donneur       the dealer, who leads the first trick.
  Fortial       a team at target-1 Longs and 2 Petits: it decides alone
                whether to Trut; the others cannot see their cards meanwhile.
  Trut d'office a forced Trut (Gâtinaise) when one team holds 2 Petits.
  La Chanson    both teams at 2 Petits (Gâtinaise): sing for extra cards.
Strength: 7 > 8 > A > K > Q > J > 10 > 9; suits never matter.
Keys: 1-3 play a card (or ←/→ and Enter), t Trut, j accept/agree,
      c fold/refuse, p pass, s sing, ? this help, q or Ctrl-C quit.
      The key bar lists only the keys that do something now.
Press ? or Esc to go back."""

# A spectator's help: the same words, its own keys.
WATCH_HELP = (
    HELP.split("Keys:")[0]
    + """You are watching: you see what every player sees, no one's hand.
Keys: Enter go on after a hand, ↑/↓ scroll the final score,
      ? this help, q or Ctrl-C stop watching.
Press ? or Esc to go back."""
)

# Trut Deluxe's help page (a table with the deluxe option): the special cards.
DELUXE_HELP = (
    "Trut Deluxe — each seat keeps 1 of 2 special cards [T25]; the kept cards join\n"
    "the deck, shuffled into every hand of the game [T26]\n"
    + "\n".join(help_lines())
    + """
Keys: 1-N keep a card / pick a power's choice, p pass, 1-3 play,
      t Trut, j accept, c fold, q quit. Press ? or Esc to go back."""
)

# What a seat is asked to decide, as the waiting line says it.
DECIDING = {
    "play": "to play",
    "answer": "to answer the Trut",
    "fortial": "to decide au Fortial",
    "sing_ask": "to say whether they sing",
    "sing_agree": "to agree to sing or refuse",
    "sing_count": "to choose how many cards",
    "keep": "to keep 3 cards",
    "choose": "to keep a special card",
    "power": "to use a card's power",
    "michao": "to sing Michao, or pass",
}


@dataclass
class HandSummary:
    """How a finished hand ended, kept on screen until a key after it."""

    number: int  # 0-based hand number
    tricks: list[tuple[list[tuple[int, Card]], str]]  # cards in order, who took it
    result: str  # "Bot 1 & Bot 3 win by fold"
    gain: str  # "+1 Petit", or "" when nobody scored
    scores: tuple[list[int], list[int]]  # each team's Longs and Petits after it


@dataclass
class Choice:
    """What the person is choosing on screen between key presses: the card under the
    arrows, and la Chanson's cards to keep (T19)."""

    selected: int = 0
    keep: set[int] = field(default_factory=set)


def card_text(card: Card | Special) -> tuple[str, str]:
    """A card as shown: ``7♥`` in red; a Deluxe card by its name, as the help names it
    (``Falcon``)."""
    if isinstance(card, Special):
        return "class:black", NAMES[card.letter]
    style = "class:red" if card.suit in RED_SUITS else "class:black"
    return style, card.symbol


def team_name(obs: TrutObservation, info: TableInfo, team: int) -> str:
    """``You & Bot 2``: the players of a team, by name."""
    return " & ".join(seat_name(info, s) for s in obs.teams[team])


def _wins(obs: TrutObservation, info: TableInfo, team: int) -> str:
    """``Bot 1 wins``, ``Bot 1 & Bot 3 win``, ``You win``."""
    seats = obs.teams[team]
    many = len(seats) > 1 or seats[0] == info.me
    return f"{team_name(obs, info, team)} {'win' if many else 'wins'}"


def title(obs: TrutObservation) -> str:
    variant = "Gâtinaise" if obs.variant == "gatinaise" else "classic"
    name = "Trut Deluxe" if obs.deluxe else "Trut"  # T23
    return f"{name} — {variant}, {obs.players} players, first to {obs.target} Longs"


def tokens(
    obs: TrutObservation,
    info: TableInfo,
    labels: list[str] | None = None,
    width: int = WIDTH,
) -> list[Line]:
    """One row per team: its Longs and Petits (``labels``: "Team 1: " before the
    names); the names take the room the tokens leave, 30 columns at least."""
    names = [team_name(obs, info, team) for team in range(len(obs.teams))]
    if labels is not None:
        names = [f"{label}: {name}" for label, name in zip(labels, names, strict=True)]
    room = max(30, min(max(text_width(n) for n in names), width - 17 - 2 * obs.target))
    lines = []
    for team in range(len(obs.teams)):
        longs = "●" * obs.longs[team] + "○" * (obs.target - obs.longs[team])
        petits = "▲" * obs.petits[team] + "△" * (2 - obs.petits[team])
        mark = "class:me" if obs.team == team else ""
        name = plain([fit([("", names[team])], room)])
        line: Line = [
            (mark, f" {name:<{room}}"),
            ("", f" Longs {longs} {obs.longs[team]}/{obs.target}"),
            ("", f"  Petits {petits} {obs.petits[team]}"),
        ]
        if obs.protected == team:  # T42: beside the tokens it protects
            line.append(("class:warn", "  Hedgehog: safe"))
        lines.append(line)
    return lines


def _state_lines(obs: TrutObservation, info: TableInfo, width: int = WIDTH) -> list[Line]:
    """The hand's state: its number and Donneur, the team au Fortial, the Trut and its
    answer; on two rows when one would be cut at ``width`` (long names, a Fortial)."""
    parts: Line = [
        ("", f" Hand {obs.hand_number + 1}  Donneur: "),
        ("class:bold", seat_name(info, obs.dealer, "you")),
    ]
    if obs.fortial_team is not None:
        parts.append(("class:warn", f"  Fortial: {team_name(obs, info, obs.fortial_team)}"))
    trut = obs.trut
    if trut is not None:
        if trut.kind == "chanson":
            parts.append(("class:warn", "  La Chanson: played as an accepted Trut"))
        else:
            who = seat_name(info, trut.caller, "you") if trut.caller is not None else "?"
            kind = {
                "office": "Trut d'office",
                "fortial": "Trut (Fortial)",
                "weasel": "Weasel's Trut d'Office",
            }.get(trut.kind, "Trut")
            status = {
                "pending": "waiting for the answer",
                "accepted": "accepted (Joue !)",
                "folded": "folded",
            }[trut.status]
            parts.append(("class:warn", f"  {kind} by {who}: {status}"))
    if _width(parts) <= width or len(parts) < 3:
        return [parts]
    head, tail = parts[:2], parts[2:]
    if obs.fortial_team is not None and _width([*head, tail[0]]) <= width:
        head, tail = [*head, tail[0]], tail[1:]
    return [head, *([("class:warn", "  " + text.strip())] for _, text in tail)]


def _width(line: Line) -> int:
    return sum(text_width(text) for _, text in line)


def _trick_line(
    label: str, cards: Any, result: str | None, info: TableInfo, width: int = WIDTH
) -> Line:
    """``Trick 1: Ana 7♥, Bob 8♣  → Ana``, each name as long as the row allows (6
    players' cards and names fit 80 columns, the winner's name whole)."""
    for room in (10, 8, 6, 5, 4, 3):
        line: Line = [("", f" {label}: ")]
        for i, (seat, card) in enumerate(cards):
            if i:
                line.append(("", ", "))
            line.append(("", f"{seat_name(info, seat)[:room]} "))
            line.append(card_text(card))
        if result:
            line.append(("class:bold", f"  {ARROW} {result}"))
        if _width(line) <= width:
            break
    return line


def _sizes_line(obs: TrutObservation, info: TableInfo) -> Line:
    """A spectator's line instead of a hand: how many cards each player holds."""
    sizes = ", ".join(
        f"{seat_name(info, seat)[:10]} {size}" for seat, size in enumerate(obs.hand_sizes)
    )
    return [("class:bold", " Cards in hand: "), ("", sizes or "—")]


def _hand_line(obs: TrutObservation, info: TableInfo, choice: Choice) -> Line:
    if info.me is None:
        return _sizes_line(obs, info)
    line: Line = [("class:bold", " Your hand: ")]
    if not obs.hand:
        return [*line, ("", "—")]
    for i, (_, card) in enumerate(obs.hand):
        selected = i == choice.selected
        kept = i in choice.keep
        style = "class:selected" if selected else ""
        line.append((style, f"[{i + 1}]"))
        if card is None:
            line.append(
                (
                    "class:dim",
                    " ?? (hidden until the Fortial decision)" if obs.phase == "fortial" else " ??",
                )
            )
        else:
            line.append(card_text(card))
        line.append(("class:warn" if kept else "", "* " if kept else "  "))
    return line


def round_over(obs: TrutObservation, summary: HandSummary, info: TableInfo) -> RoundOver:
    """The hand that just ended, for the frame: the tokens after it, its tricks, and
    how it ended with what it scored."""
    gain = f": {summary.gain}" if summary.gain else ""
    longs, petits = summary.scores
    after = dataclasses.replace(obs, longs=tuple(longs), petits=tuple(petits))
    tricks = [
        _trick_line(f"Trick {number}", cards, result, info)
        for number, (cards, result) in enumerate(summary.tricks, start=1)
    ]
    return RoundOver(
        f"Hand {summary.number + 1} is over",
        (summary.result + gain,),
        tuple(tokens(after, info)),
        tuple(tricks),
    )


def table_area(obs: TrutObservation, info: TableInfo, choice: Choice) -> list[Line]:
    """The tokens, the hand's state line, its tricks and the seat's hand."""
    lines = tokens(obs, info)
    lines += _state_lines(obs, info)
    for number, trick in enumerate(obs.tricks, start=1):
        result = "patté" if trick.team is None else seat_name(info, trick.winner or 0, "you")
        lines.append(_trick_line(f"Trick {number}", trick.cards, result, info))
    if obs.trick or obs.phase == "play":
        lines.append(_trick_line(f"Trick {len(obs.tricks) + 1}", obs.trick, None, info))
    lines.append(_hand_line(obs, info, choice))
    return lines


def ready(obs: TrutObservation) -> bool:
    """The cards are still being dealt: never "Your turn" over "??"."""
    return not (obs.phase == "play" and any(card is None for _, card in obs.hand))


def choices(obs: TrutObservation) -> list[str]:
    """Deluxe: the decisions a number key picks, in order (not ``pass``: key p)."""
    return [str(a) for a in obs.legal if str(a) != "pass"]


def _choices(obs: TrutObservation) -> str:
    shown = []
    for number, text in enumerate(choices(obs), 1):
        verb, _, rest = text.partition(" ")
        letter = rest.split("@")[0]
        name = f" {NAMES[letter]}" if letter in NAMES else ""
        if verb == "keep" and letter in NAMES:  # T25: by name and value, as the help
            shown.append(f"{number} {NAMES[letter]} {Special(letter).value}")
            continue
        if verb == "target":  # T37: a seat
            rest = f"seat {rest}"
        elif verb == "give":  # T37: one of one's cards, by name
            rest = letter or rest
        elif verb == "force":  # T37: blind, the target's n-th card
            verb, rest, name = "card", str(number), ""
        shown.append(f"{number} {verb} {rest}{name}")
    return "  ".join(shown)


def _forced_key(obs: TrutObservation) -> int:
    """T37 (4): the number key of the card the Weasel forces this seat to play."""
    return next((i + 1 for i, (pos, _) in enumerate(obs.hand) if pos == obs.forced), 1)


def _power_prompt(obs: TrutObservation) -> str:
    """The power waiting for this seat's choice, named by its first choice's verb."""
    verbs = {str(a).split(" ")[0] for a in obs.legal}
    head = "Your card's power"
    if "target" in verbs:
        head = "The Weasel: name an opponent [T37]"
    elif "give" in verbs:
        head = "The Weasel (1): give a card, get one of the target's at random [T37]"
    elif "force" in verbs:
        head = "The Weasel (4): pick blind the target's next card [T37]"
    return f"{head}: " + _choices(obs) + (", p pass" if legal(obs, "pass") else "")


def _range(count: int) -> str:
    return "1" if count <= 1 else f"1-{count}"


def legal(obs: TrutObservation, word: str) -> bool:
    return any(str(a) == word or str(a).startswith(word + " ") for a in obs.legal)


def prompt(obs: TrutObservation) -> str:
    count = len(obs.hand)
    return {
        "play": (
            f"Your turn: the Weasel forces your card {_forced_key(obs)} [T37]"
            if obs.forced is not None
            else f"Your turn: play a card ({_range(count)} or ←/→ + Enter)"
        )
        + (", or t to Trut" if legal(obs, "trut") else ""),
        "answer": "A Trut! j: Joue ! (accept)   c: Je me couche (fold)",
        "fortial": "Au Fortial: t to Trut, p to pass",
        "sing_ask": "La Chanson: do you sing? s: sing   p: pass",
        "sing_agree": "La Chanson: j: agree to sing   c: refuse",
        "sing_count": "How many cards? 1, 2 or 3",
        "keep": f"Keep 3 cards: toggle with {_range(count)}, Enter to confirm",
        "choose": "Keep a special card (it joins the deck): " + _choices(obs),
        "michao": "Michao! 1: sing it (+1 Long)   p: pass [T44]",
        "power": _power_prompt(obs),
    }.get(obs.phase, f"Your turn ({obs.phase})")


def key_hints(obs: TrutObservation) -> list[str]:
    """The keys of this seat's decision now, and only those."""
    keys: list[str] = []
    count = len(obs.hand)
    if obs.phase == "play" and obs.forced is not None:  # T37 (4): that card only
        keys.append(f"{_forced_key(obs)} play (the Weasel's pick)")
        if legal(obs, "trut"):
            keys.append("t Trut")
    elif obs.phase == "play":
        keys.append(f"{_range(count)}/←→+Enter play")
        if legal(obs, "trut"):
            keys.append("t Trut")
    elif obs.phase == "answer":
        keys.append("j Joue !")
        if legal(obs, "fold"):
            keys.append("c Je me couche")
    elif obs.phase == "fortial":
        keys += ["t Trut", "p pass"]
    elif obs.phase == "sing_ask":
        keys += ["s sing", "p pass"]
    elif obs.phase == "sing_agree":
        keys += ["j agree", "c refuse"]
    elif obs.phase == "sing_count":
        keys.append("1-3 cards")
    elif obs.phase == "keep":
        keys += [f"{_range(count)} keep/unkeep", "Enter confirm"]
    elif obs.phase in ("choose", "power", "michao"):  # Deluxe [T25, T34-T44]
        if choices(obs):
            keys.append(f"{_range(len(choices(obs)))} choose")
        if legal(obs, "pass"):
            keys.append("p pass")
    return keys


def end_title(obs: TrutObservation, info: TableInfo) -> str:
    winner = obs.winner
    return "you win!" if winner == obs.team else _wins(obs, info, winner or 0)


# A finished hand on the end screen: its number, how it ended ("won by", "pourrie:
# nobody scores"), the team it names (None: none), each team's Longs and Petits after it.
HandRow = tuple[int, str, int | None, list[int], list[int]]


def end_table(
    obs: TrutObservation, info: TableInfo, history: list[HandRow], width: int = WIDTH
) -> tuple[list[Line], list[Line]]:
    """The score, then a table of every hand whose columns are the teams: by name when
    the names fit their column, else as Team 1, Team 2... named in the score above
    (6 players' names never cut)."""
    teams = len(obs.teams)
    column = 14 if teams > 2 else 18
    result_width = width - 8 - column * teams
    names = [team_name(obs, info, t) for t in range(teams)]
    labelled = any(text_width(n) > column - 1 for n in names) or any(
        team is not None and text_width(f"{how} {names[team]}") > result_width
        for _, how, team, _, _ in history
    )
    labels = [f"Team {t + 1}" for t in range(teams)] if labelled else names
    top = tokens(obs, info, labels if labelled else None, width)
    header = f" {'Hand':>4}  {'How it ended':<{result_width}}" + "".join(
        f"{plain([fit([('', label)], column - 1)]):>{column}}" for label in labels
    )
    top.append([("class:bold", " Score after each hand (Longs/Petits of each team):")])
    top.append([("class:bold", header)])
    rows: list[Line] = []
    for hand, how, team, longs, petits in history:
        result = how if team is None else f"{how} {labels[team]}"
        cut = plain([fit([("", result)], result_width)])
        row = f" {hand + 1:>4}  {cut:<{result_width}}" + "".join(
            f"{f'{lo}/{pe}':>{column}}" for lo, pe in zip(longs, petits, strict=True)
        )
        rows.append([("", row)])
    return top, rows
