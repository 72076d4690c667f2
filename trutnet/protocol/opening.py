"""The ``open`` entry (docs/protocol.md 7.10): the host names the game, its
configuration, the seats' keys (its own first), their names and fallback brokers, and
the nonce that binds the table id to its key. :func:`read_open` checks one and makes
the game it names, through the engine's registry (no game is named here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trutnet.crypto import CryptoError
from trutnet.engine import make_game
from trutnet.engine.api import Game, GameState
from trutnet.engine.errors import EngineError
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.envelope import Entry
from trutnet.protocol.lobby import (
    NONCE_BYTES,
    LobbyError,
    check_fallback,
    check_name,
    distinct_names,
    table_id_for,
)
from trutnet.protocol.schema import Rejected, bytes_field, detail, exact_fields
from trutnet.protocol.shares import DeckLedger


@dataclass(frozen=True)
class Opening:
    """What an ``open`` entry sets up: the game and its first state, the seats' keys,
    names (as shown: made distinct) and fallbacks, each seat's team, the decks."""

    game: Game
    state: GameState
    seats: list[bytes]
    names: list[str]
    fallbacks: list[str]
    team_of: tuple[int, ...]
    decks: DeckLedger


def read_open(
    entry: Entry, body: dict[str, Any], table_id: bytes, proofs: CheckedProofs
) -> Opening:
    """The table ``entry`` opens; :class:`Rejected` saying why it cannot."""
    exact_fields(body, {"game", "config", "seats", "names", "fallbacks", "nonce"})
    if table_id_for(entry.author, bytes_field(body, "nonce", NONCE_BYTES)) != table_id:
        raise Rejected("table", "open: the table id is not bound to this host's key (7.10)")
    seats, names, fallbacks = body["seats"], body["names"], body["fallbacks"]
    if not all(isinstance(x, list) for x in (seats, names, fallbacks)) or not (
        len(names) == len(seats) == len(fallbacks)
    ):
        raise Rejected("schema", "open: one name and one fallback per seat")
    try:
        shown = distinct_names([check_name(n) for n in names])
        checked = [check_fallback(f) for f in fallbacks]
    except LobbyError as exc:
        raise Rejected("schema", f"open: {exc}") from exc
    if not isinstance(body["game"], str) or not all(
        isinstance(s, bytes) and len(s) == 32 for s in seats
    ):
        raise Rejected("schema", "open: a game name and a list of seat keys")
    if not isinstance(body["config"], dict):
        raise Rejected("schema", "open: the configuration is a map")
    try:
        game = make_game(body["game"], body["config"])
        players = game.num_players()
        state = game.new_initial_state()
        teams = game.teams()
        ledger = DeckLedger(game.decks(), proofs)
    except (EngineError, CryptoError, NotImplementedError) as exc:
        raise Rejected("schema", f"open: {detail(exc)}") from exc
    if state.holders():  # every position comes from a joint shuffle (no given deck)
        raise Rejected("schema", "a networked game never knows the deck")
    if len(seats) != players or len(set(seats)) != len(seats) or seats[0] != entry.author:
        raise Rejected("schema", "open: one distinct key per seat, the host's first")
    team_of = [t for s in range(players) for t, team in enumerate(teams) if s in team]
    if len(team_of) != players:
        raise Rejected("schema", "open: the game puts every seat in exactly one team")
    return Opening(game, state, list(seats), shown, checked, tuple(team_of), ledger)
