"""The table screen as text: pure functions from what one seat may see to styled lines.

The terminal application (:mod:`trutnet.client.app`) shows these lines; tests read
the same lines as plain text. Everything fits in 80 columns and 24 rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trutnet.engine.cards import Card
from trutnet.engine.games.trut.observation import TrutObservation

Line = list[tuple[str, str]]  # (style, text) fragments, as prompt-toolkit takes them

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
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
      c fold/refuse, p pass, s sing, ? this help, q quit.
Press ? or Esc to go back."""


@dataclass
class TableInfo:
    """What the screen needs besides the observation."""

    names: list[str]
    fingerprints: list[str]
    me: int
    log: list[str] = field(default_factory=list)
    shuffles_verified: int = 0
    reveals_verified: int = 0
    blame: str | None = None
    message: str = ""
    selected: int = 0
    keep: set[int] = field(default_factory=set)
    waiting_seconds: float = 0.0
    history: list[tuple[int, str, list[int], list[int]]] = field(default_factory=list)
    transcript: str | None = None
    status: str = "playing"  # lobby, playing, over, stopped
    lobby: list[tuple[int, str, str]] = field(default_factory=list)
    lobby_total: int = 0
    confirm_quit: bool = False


def card_text(card: Card) -> tuple[str, str]:
    style = "class:red" if card.suit in RED_SUITS else "class:black"
    return style, card.symbol


def _team_name(obs: TrutObservation, info: TableInfo, team: int) -> str:
    seats = obs.teams[team]
    names = ", ".join("You" if s == info.me else info.names[s] for s in seats)
    return names


def _tokens(obs: TrutObservation, info: TableInfo) -> list[Line]:
    lines = []
    for team in range(len(obs.teams)):
        longs = "●" * obs.longs[team] + "○" * (obs.target - obs.longs[team])
        petits = "▲" * obs.petits[team] + "△" * (2 - obs.petits[team])
        mark = "class:me" if obs.team == team else ""
        lines.append(
            [
                (mark, f" {_team_name(obs, info, team)[:30]:<30}"),
                ("", f" Longs {longs} {obs.longs[team]}/{obs.target}"),
                ("", f"  Petits {petits} {obs.petits[team]}"),
            ]
        )
    return lines


def _state_line(obs: TrutObservation, info: TableInfo) -> Line:
    parts: Line = [
        ("", f" Hand {obs.hand_number + 1}  Donneur: "),
        ("class:bold", _who(info, obs.dealer)),
    ]
    if obs.fortial_team is not None:
        parts.append(("class:warn", f"  Fortial: {_team_name(obs, info, obs.fortial_team)}"))
    trut = obs.trut
    if trut is not None:
        if trut.kind == "chanson":
            parts.append(("class:warn", "  La Chanson: played as an accepted Trut"))
        else:
            who = _who(info, trut.caller) if trut.caller is not None else "?"
            kind = {"office": "Trut d'office", "fortial": "Trut (Fortial)"}.get(trut.kind, "Trut")
            status = {
                "pending": "waiting for the answer",
                "accepted": "accepted (Joue !)",
                "folded": "folded",
            }[trut.status]
            parts.append(("class:warn", f"  {kind} by {who}: {status}"))
    return parts


def _who(info: TableInfo, seat: int) -> str:
    return "you" if seat == info.me else f"{info.names[seat]} (seat {seat})"


def _trick_line(label: str, cards: Any, result: str | None, info: TableInfo) -> Line:
    line: Line = [("", f" {label}: ")]
    for i, (seat, card) in enumerate(cards):
        if i:
            line.append(("", ", "))
        line.append(("", f"{'You' if seat == info.me else info.names[seat][:10]} "))
        line.append(card_text(card))
    if result:
        line.append(("class:bold", f"  → {result}"))
    return line


def _hand_line(obs: TrutObservation, info: TableInfo) -> Line:
    line: Line = [("class:bold", " Your hand: ")]
    if not obs.hand:
        return [*line, ("", "—")]
    for i, (_, card) in enumerate(obs.hand):
        selected = i == info.selected
        kept = i in info.keep
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


def _turn_line(obs: TrutObservation, info: TableInfo) -> Line:
    if obs.phase == "over" or obs.to_act is None:
        return [("", "")]
    if obs.to_act == info.me:
        prompt = {
            "play": "Your turn: play a card (1-3 or ←/→ + Enter)"
            + (", or t to Trut" if any(str(a) == "trut" for a in obs.legal) else ""),
            "answer": "A Trut! j: Joue ! (accept)   c: Je me couche (fold)",
            "fortial": "Au Fortial: t to Trut, p to pass",
            "sing_ask": "La Chanson: do you sing? s: sing   p: pass",
            "sing_agree": "La Chanson: j: agree to sing   c: refuse",
            "sing_count": "How many cards? 1, 2 or 3",
            "keep": "Keep 3 cards: toggle with 1-9, Enter to confirm",
        }.get(obs.phase, f"Your turn ({obs.phase})")
        return [("class:turn", f" ▶ {prompt}")]
    spin = SPINNER[int(info.waiting_seconds * 8) % len(SPINNER)]
    return [
        (
            "class:dim",
            f" {spin} Waiting for {_who(info, obs.to_act)}"
            f" ({obs.phase}, {info.waiting_seconds:.0f}s)",
        )
    ]


def table_lines(obs: TrutObservation, info: TableInfo, width: int = 80) -> list[Line]:
    variant = "Gâtinaise" if obs.variant == "gatinaise" else "classic"
    lines: list[Line] = [
        [
            (
                "class:title",
                f" Trut — {variant}, {obs.players} players, first to {obs.target} Longs",
            ),
            ("class:dim", f"   you are seat {info.me}: {info.names[info.me]}"),
        ]
    ]
    lines += _tokens(obs, info)
    lines.append(_state_line(obs, info))
    for number, trick in enumerate(obs.tricks, start=1):
        result = (
            "patté"
            if trick.team is None
            else ("you" if trick.winner == info.me else info.names[trick.winner or 0])
        )
        lines.append(_trick_line(f"Trick {number}", trick.cards, result, info))
    if obs.trick or obs.phase == "play":
        lines.append(_trick_line(f"Trick {len(obs.tricks) + 1}", obs.trick, None, info))
    lines.append(_hand_line(obs, info))
    lines.append(_turn_line(obs, info))
    lines.append([("class:dim", " " + "─" * (width - 2))])
    for text in info.log[-6:]:
        lines.append([("", " " + text[: width - 2])])
    lines.append(_verify_line(info))
    lines.append([("class:message", " " + (info.message or "")[: width - 2])])
    lines.append(
        [
            (
                "class:dim",
                " 1-3/←→+Enter play  t Trut  j Joue  c couché  p pass  s sing  ? help  q quit",
            )
        ]
    )
    return lines


def _verify_line(info: TableInfo) -> Line:
    if info.blame:
        return [("class:blame", f" ✗ CHEAT DETECTED: {info.blame}"[:80])]
    return [
        (
            "class:ok",
            f" ✓ verified: {info.shuffles_verified} shuffles, {info.reveals_verified} reveals",
        )
    ]


def end_lines(obs: TrutObservation, info: TableInfo) -> list[Line]:
    winner = obs.winner
    mine = winner == obs.team
    lines: list[Line] = [
        [
            (
                "class:title",
                " Game over — "
                + ("you win!" if mine else f"{_team_name(obs, info, winner or 0)} win"),
            )
        ]
    ]
    lines += _tokens(obs, info)
    lines.append([("class:bold", " Score after each hand (Longs / Petits):")])
    for hand, result, longs, petits in info.history[-12:]:
        tokens = "  ".join(f"{lo}/{pe}" for lo, pe in zip(longs, petits, strict=True))
        lines.append([("", f"  hand {hand + 1:>2}: {result:<14} {tokens}")])
    if info.transcript:
        lines.append([("", " Transcript saved (check it with: trutnet verify FILE):")])
        path = info.transcript
        for start in range(0, len(path), 78):  # long paths wrap rather than run off
            lines.append([("class:bold", "  " + path[start : start + 78])])
    lines.append(_verify_line(info))
    lines.append([("class:dim", " q: quit")])
    return lines


def lobby_lines(info: TableInfo, table_name: str, players: int) -> list[Line]:
    if players == 0:  # a joiner: the host fills the seats and starts the table
        return [
            [("class:title", f" Lobby — {table_name}")],
            [("", " You asked for a seat; the game starts when every seat is taken.")],
            [("class:dim", " q: quit")],
            [("class:message", " " + info.message)],
        ]
    lines: list[Line] = [
        [("class:title", f" Lobby — {table_name}")],
        [("", f" Seats taken: {len(info.lobby)}/{players}")],
    ]
    for seat, name, fp in info.lobby:
        lines.append([("", f"  seat {seat}: {name:<20} key {fp}")])
    for seat in range(len(info.lobby), players):
        lines.append([("class:dim", f"  seat {seat}: (empty)")])
    lines.append([("", "")])
    lines.append([("class:turn", " b: seat a bot in the next empty seat   q: quit")])
    lines.append([("class:dim", " The game starts as soon as every seat is taken.")])
    lines.append([("class:message", " " + info.message)])
    return lines


def plain(lines: list[Line]) -> str:
    """The lines without styles, as tests and logs read them."""
    return "\n".join("".join(text for _, text in line) for line in lines)
