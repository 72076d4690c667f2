"""The table state machine: a whole Trut game as a signed, hash-chained log (sans-I/O).

:class:`TableReplica` validates and applies entries; it holds no secret, so the same
code replays a saved transcript offline. :class:`TablePeer` is one seat: a replica
plus that seat's secrets (its ElGamal key, its cards). Neither touches a socket, a
clock or a global random source: entries come in as bytes, entries to send go out
as bytes, randomness is passed in.

At every point the replica names the single seat that must write the next entry,
and the entry types it may write (:meth:`TableReplica.expected`), so the game itself
fixes the order of the log (ruling T9 keeps one seat to act at a time):

``open`` (seat 0: the seat identities and the game configuration) -> ``keys`` (every
seat in seat order: ElGamal key and proof) -> ``commit`` then ``reveal`` (every seat:
joint randomness for the first-Donneur draw, T3) -> per hand: ``shuffle`` (every seat)
-> ``shares`` (the deal: each seat's decryption shares of the other seats' cards;
shares of the Fortial opponents' cards are withheld until the Fortial decision is
over, T15) -> game actions: ``act`` (trut, accept, fold, pass, sing, keep ...) and
``play`` (a position and the player's own share: with the other seats' shares of that
position, which the share round that showed the card to its player put in the log,
it reveals the card at once, with no share round after it) -> ``checkpoint`` (every
seat signs the state hash after the hand) -> ... -> ``result`` (every seat signs the
final state). While the table waits for a seat, its coordinator may instead write
``void`` (a newcomer takes the seat from the next hand) or ``abandon`` (the game
ends), with a quorum of votes (7.7, :mod:`trutnet.protocol.replace`); a ``void``
overrides the stalled seat's own entry at the same point (7.8).

A bad entry is dropped and produces a :class:`~trutnet.protocol.blame.Blame`. When
the seat whose turn it is signs a bad entry for its turn, or equivocates, the table
stops (``halted``): every honest replica stops at the same entry with the same blame.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trutnet.crypto import (
    CardTable,
    Context,
    CryptoError,
    KeyPair,
    KeyProof,
    ShareBatch,
    combine,
    decode_point,
    decode_shuffle,
    encode_shuffle,
    joint_key,
    make_shares,
    open_deck,
    own_share,
    shuffle,
    verify_key,
    verify_shares,
    verify_shuffle,
)
from trutnet.crypto.elgamal import Deck
from trutnet.crypto.group import Point, RandomBytes
from trutnet.crypto.identity import Identity
from trutnet.crypto.randomness import commitment, draw
from trutnet.engine.api import CHANCE
from trutnet.engine.cards import FULL_DECK, card_from_index
from trutnet.engine.errors import EngineError
from trutnet.engine.games.trut import Deal, Draw, Play, TrutConfig, TrutGame, TrutState
from trutnet.engine.games.trut.actions import CardRef, Keep, SingCount, Void, Word, parse_action
from trutnet.protocol.blame import Blame
from trutnet.protocol.envelope import (
    PROTOCOL_VERSION,
    Entry,
    MessageError,
    parse_entry,
    sign_entry,
)
from trutnet.protocol.lobby import (
    NONCE_BYTES,
    LobbyError,
    check_fallback,
    check_name,
    table_id_for,
)
from trutnet.protocol.log import LogError, TableLog
from trutnet.protocol.replace import (
    Offer,
    SeatChange,
    VoteError,
    check_votes,
    coordinator,
    make_offer,
    make_vote,
    parse_offer,
    partners,
)

DECK_NAME = "french32"
AUTOMATIC = ("keys", "commit", "reveal", "shuffle", "shares", "checkpoint", "result")
# Largest entry of each type, in bytes (7.3): far above honest sizes, far below the cap.
TYPE_LIMITS = {
    "open": 4096,
    "keys": 512,
    "commit": 512,
    "reveal": 512,
    "shuffle": 16384,
    "shares": 8192,
    "act": 512,
    "play": 1024,
    "checkpoint": 512,
    "void": 8192,
    "abandon": 4096,
    "result": 512,
}


class Rejected(Exception):
    """An entry that was refused; ``blame`` names the seat at fault, if any."""

    def __init__(
        self, rule: str, message: str, blame: Blame | None = None, halt: bool = False
    ) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message
        self.blame = blame
        self.halt = halt


class LocalError(Exception):
    """This seat's own decision is not legal now: refused before anything is signed,
    and nothing changed (h11's ``LocalProtocolError``; a peer's bad entry is a
    :class:`Rejected` with a blame instead)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


@dataclass
class ShareRound:
    """Decryption shares being collected: ``owners`` maps a seat to the positions
    revealed to it; ``waiting`` lists the seats that still have to post, in order."""

    step: str
    owners: dict[int, list[int]]
    waiting: list[int]
    shares: dict[int, dict[int, Point]]  # position -> seat -> share

    def positions_for(self, seat: int) -> list[int]:
        return sorted(p for owner, ps in self.owners.items() if owner != seat for p in ps)


def _detail(exc: Exception) -> str:
    """An error's message without its ``[rule]`` prefix (so that a rule is named once)."""
    message = getattr(exc, "message", None)
    if isinstance(message, str):
        return message
    text, rule = str(exc), getattr(exc, "rule", None)
    prefix = f"[{rule}] "
    return text[len(prefix) :] if rule and text.startswith(prefix) else text


def _bytes_field(
    body: dict[str, Any], name: str, size: int | None = None, limit: int = 60_000
) -> bytes:
    value = body.get(name)
    if (
        not isinstance(value, bytes)
        or (size is not None and len(value) != size)
        or len(value) > limit
    ):
        raise Rejected("schema", f"field {name!r} must be {size or 'some'} bytes")
    return value


def _int_field(body: dict[str, Any], name: str, low: int, high: int) -> int:
    value = body.get(name)
    if type(value) is not int or not low <= value <= high:
        raise Rejected("schema", f"field {name!r} must be an integer {low}..{high}")
    return value


def _exact_fields(body: dict[str, Any], names: set[str]) -> None:
    if set(body) != names:
        raise Rejected("schema", f"body fields must be {sorted(names)}")


class TableReplica:
    """Validates and applies table entries; holds no secret."""

    def __init__(self, table_id: bytes) -> None:
        self.table_id = table_id
        self.log = TableLog()
        self.blames: list[Blame] = []
        self.halted: Blame | None = None
        self.phase = "open"
        self.seats: list[bytes] = []  # identity keys
        self.names: list[str] = []
        self.fallbacks: list[str] = []
        self.replaced: list[tuple[int, int]] = []  # (seat, log length) of each replacement
        self.changes: list[SeatChange] = []  # every void and abandon (7.7), for audits
        self.retired: set[bytes] = set()  # identity keys that lost their seat (7.7)
        self.journal: list[bytes] = []  # every entry applied, in order, forks included (7.8)
        self.forks = 0  # how many times a void overrode the stalled seat's entry (7.8)
        self.config: TrutConfig | None = None
        self.state: TrutState | None = None
        self.cards = CardTable(DECK_NAME, len(FULL_DECK))
        self.elgamal: list[Point] = []
        self.joint: Point | None = None
        self.turn = 0  # index into the current round of seats
        self.commits: dict[int, bytes] = {}
        self.values: dict[int, bytes] = {}
        self.deck: Deck = ()
        self.shares: ShareRound | None = None
        # Every verified share of this hand, position -> seat -> share: what reveals a
        # played card with the player's own share from its ``play`` entry (7.4).
        self.hand_shares: dict[int, dict[int, Point]] = {}
        self.withheld: dict[int, list[int]] = {}
        self.checkpoints: dict[int, bytes] = {}
        self.revealed: dict[int, int] = {}  # position -> card index, public reveals
        self.on_private: Callable[[TableReplica, ShareRound], None] | None = None

    # ------------------------------------------------------------ who acts

    @property
    def n(self) -> int:
        return len(self.seats)

    @property
    def abandoned(self) -> SeatChange | None:
        """The ``abandon`` that ended the game (7.7), if one did."""
        last = self.changes[-1] if self.changes else None
        return last if last is not None and last.kind == "abandoned" else None

    def expected(self) -> tuple[int, tuple[str, ...]] | None:
        """The seat that must write the next entry, and the types it may write."""
        if self.halted is not None or self.phase == "done":
            return None
        if self.phase == "open":
            return 0, ("open",)
        if self.phase in ("keys", "commit", "reveal", "shuffle", "checkpoint", "result"):
            return self.turn, (self.phase,)
        if self.phase == "shares":
            assert self.shares is not None
            return self.shares.waiting[0], ("shares",)
        if self.phase == "game":
            assert self.state is not None
            seat = self.state.current_seat()
            assert seat is not None and seat != CHANCE
            return seat, ("act", "play") if self.state.phase == "play" else ("act",)
        raise AssertionError(self.phase)

    def context(self, step: str) -> Context:
        hand = self.state.hand_number if self.state is not None else 0
        return Context(PROTOCOL_VERSION, self.table_id, hand, step)

    # --------------------------------------------------------------- intake

    def receive(self, wire: bytes) -> Entry | None:
        """Validate and apply one entry. Returns it, or None for a harmless duplicate.

        Raises :class:`Rejected` (with a blame where a seat is at fault).
        """
        if self.halted is not None:
            raise Rejected("halted", f"the table stopped: {self.halted}")
        try:
            entry = parse_entry(wire, self.table_id)
        except MessageError as exc:
            raise Rejected(exc.rule, _detail(exc)) from exc
        limit = TYPE_LIMITS.get(entry.type)
        if limit is None:
            raise Rejected("schema", f"unknown entry type {entry.type!r}")
        if len(entry.wire) > limit:
            raise Rejected("size", f"{entry.type} entry of {len(entry.wire)} bytes (limit {limit})")
        if self.seats and (entry.seat >= self.n or self.seats[entry.seat] != entry.author):
            blame = None
            if entry.author in self.seats:  # a seated player forging another seat's entry
                forger = self.seats.index(entry.author)
                blame = Blame(
                    forger,
                    "identity",
                    f"seat {forger} signed an entry as seat {entry.seat}",
                    (entry.wire,),
                )
                self.blames.append(blame)
            raise Rejected(
                "identity", f"entry signed by a key that is not seat {entry.seat}'s", blame
            )
        if any(e.wire == entry.wire for e in self.log.entries[-64:]):
            return None
        if entry.type in ("void", "abandon") and entry.prev != self.log.head:
            known = self.log.known(entry)
            if known is not None:
                if known.wire == entry.wire:
                    return None
            elif self.log.index_of(entry.prev) is not None:
                return self._fork(entry)
        try:
            self.log.check(entry)
        except LogError as exc:
            if exc.rule == "equivocation":
                self._halt(exc.blame)
            raise Rejected(exc.rule, _detail(exc), exc.blame, exc.rule == "equivocation") from exc
        expected = self.expected()
        if expected is None:
            raise Rejected("over", "the game is over: no entry is expected")
        seat, kinds = expected
        if (
            entry.type in ("void", "abandon")
            and self.can_void(seat)
            and self.state is not None
            and entry.seat == coordinator(seat, self.state.team_of)
        ):
            kinds = (*kinds, entry.type)  # 7.7: the coordinator acts for the table
            seat = entry.seat
        if entry.seat != seat or entry.type not in kinds:
            blame = Blame(
                entry.seat,
                "turn",
                f"{entry.type} from seat {entry.seat}; seat {seat} must write {'/'.join(kinds)}",
                (entry.wire,),
            )
            raise Rejected("turn", blame.detail, blame)
        try:
            try:
                self._apply(entry)
            except (EngineError, CryptoError, LobbyError) as exc:
                raise Rejected(getattr(exc, "rule", "schema"), _detail(exc)) from exc
            except (KeyError, TypeError, ValueError, IndexError, AssertionError) as exc:
                # A body that slipped past a schema check: the same refusal everywhere.
                raise Rejected("schema", f"{entry.type}: {type(exc).__name__}: {exc}") from exc
        except Rejected as exc:
            if not self.seats:  # before the open, no one is seated: nobody to blame (7.5)
                raise Rejected(exc.rule, exc.message) from exc
            blame = exc.blame or Blame(entry.seat, exc.rule, exc.message, (entry.wire,))
            self._halt(blame)
            raise Rejected(exc.rule, exc.message, blame, True) from exc
        self.log.append(entry)
        self.journal.append(entry.wire)
        return entry

    def _fork(self, entry: Entry) -> Entry:
        """7.8: a valid ``void``/``abandon`` at an earlier head ``H`` beats the stalled
        seat's own entry at ``H``: the log is replayed up to ``H`` and the void applied.
        Refused unless the entry after ``H`` is the stalled seat's and no voter (nor the
        coordinator) wrote after ``H`` on this branch: honest voters never build on it,
        so a quorum cannot rewrite a history it took part in."""
        index = self.log.index_of(entry.prev)
        assert index is not None
        suffix = self.log.entries[index + 1 :]
        rebuilt = TableReplica(self.table_id)
        rebuilt.on_private = self.on_private
        for old in self.log.entries[: index + 1]:
            rebuilt.receive(old.wire)
        expected = rebuilt.expected()
        if expected is None or suffix[0].seat != expected[0]:
            raise Rejected("chain", f"{entry.type} does not extend the head of the log")
        try:
            applied = rebuilt.receive(entry.wire)
        except Rejected as exc:  # a bad void off this branch: dropped, its blame kept
            if exc.blame is not None:
                self.blames.append(exc.blame)
            raise Rejected(exc.rule, exc.message, exc.blame) from exc
        assert applied is not None
        change = rebuilt.changes[-1]
        builders = sorted({e.seat for e in suffix if e.seat in (*change.voters, entry.seat)})
        if builders:
            raise Rejected(
                "fork",
                f"seats {builders} voted at this point and then wrote after it: "
                f"{entry.type} refused",
            )
        journal, forks = [*self.journal, entry.wire], self.forks + 1
        blames = [b for b in self.blames if b not in rebuilt.blames]
        self.__dict__.update(rebuilt.__dict__)
        self.journal, self.forks, self.blames = journal, forks, [*self.blames, *blames]
        return applied

    def _halt(self, blame: Blame | None) -> None:
        if blame is not None:
            self.blames.append(blame)
            self.halted = blame

    # ---------------------------------------------------------------- apply

    def _apply(self, entry: Entry) -> None:
        handler = getattr(self, f"_on_{entry.type}")
        handler(entry, entry.body)

    def _on_open(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"game", "config", "seats", "names", "fallbacks", "nonce"})
        if table_id_for(entry.author, _bytes_field(body, "nonce", NONCE_BYTES)) != self.table_id:
            raise Rejected("table", "open: the table id is not bound to this host's key (7.10)")
        seats, names, fallbacks = body["seats"], body["names"], body["fallbacks"]
        if not all(isinstance(x, list) for x in (seats, names, fallbacks)) or not (
            len(names) == len(seats) == len(fallbacks)
        ):
            raise Rejected("schema", "open: one name and one fallback per seat")
        try:
            self.names = [check_name(n) for n in names]
            self.fallbacks = [check_fallback(f) for f in fallbacks]
        except LobbyError as exc:
            raise Rejected("schema", f"open: {exc}") from exc
        if (
            body["game"] != "trut"
            or not isinstance(seats, list)
            or not all(isinstance(s, bytes) and len(s) == 32 for s in seats)
        ):
            raise Rejected("schema", "open: game trut and a list of seat keys")
        try:
            config = TrutConfig.from_dict(body["config"])
        except EngineError as exc:
            raise Rejected("schema", f"open: {exc}") from exc
        if config.start is not None and config.start.deck is not None:
            raise Rejected("schema", "a networked game never knows the deck")
        if (
            len(seats) != config.players
            or len(set(seats)) != len(seats)
            or seats[0] != entry.author
        ):
            raise Rejected("schema", "open: one distinct key per seat, the host's first")
        self.seats = list(seats)
        self.config = config
        self.state = TrutGame(config).new_initial_state()
        self.phase, self.turn = "keys", 0

    def _advance_turn(self, next_phase: Callable[[], None]) -> None:
        self.turn += 1
        if self.turn == self.n:
            self.turn = 0
            next_phase()

    def _on_keys(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"key", "proof"})
        try:
            key = decode_point(_bytes_field(body, "key", 33))
            proof = KeyProof.from_bytes(_bytes_field(body, "proof", 64))
            verify_key(key, proof, self.context("keys"), entry.seat)
        except CryptoError as exc:
            raise Rejected("key-proof", str(exc)) from exc
        if any(bytes(k) == bytes(key) for k in self.elgamal):
            raise Rejected("key-proof", "a key already used by another seat")
        self.elgamal.append(key)
        self._advance_turn(self._after_keys)

    def _after_keys(self) -> None:
        self.joint = joint_key(self.elgamal)
        assert self.state is not None
        self.phase = "commit" if self.state.phase == "draw" else "shuffle"

    def _on_commit(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"commit"})
        self.commits[entry.seat] = _bytes_field(body, "commit", 32)
        self._advance_turn(lambda: setattr(self, "phase", "reveal"))

    def _on_reveal(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"value"})
        value = _bytes_field(body, "value", 32)
        if commitment(value, entry.seat, self.context("draw")) != self.commits[entry.seat]:
            raise Rejected("commitment", "the revealed value does not open the commitment")
        self.values[entry.seat] = value
        self._advance_turn(self._first_dealer_draw)

    def _first_dealer_draw(self) -> None:
        """T3 with joint randomness: the face-up cards come from the joint seed."""
        state = self.state
        assert state is not None
        seed = hashlib.sha256(
            b"trutnet/v1/draw" + b"".join(self.values[s] for s in range(self.n))
        ).digest()
        counter = 0
        while state.phase == "draw":
            unused = [c for c in FULL_DECK if c not in state.draw_used]
            pick = draw(hashlib.sha256(seed + counter.to_bytes(4, "big")).digest(), len(unused))
            state.apply(Draw(unused[pick[0]]))
            counter += 1
        self.phase = "shuffle"

    def _on_shuffle(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"deck"})
        source = self.deck if self.turn else open_deck(self.cards.points)
        try:
            result, proof = decode_shuffle(_bytes_field(body, "deck"), len(self.cards))
            assert self.joint is not None
            verify_shuffle(
                source,
                result,
                proof,
                self.joint,
                self.context(f"shuffle/{entry.seat}"),
                self.elgamal,
            )
        except CryptoError as exc:
            raise Rejected("shuffle-proof", str(exc)) from exc
        self.deck = result
        self._advance_turn(self._deal)

    def _deal(self) -> None:
        state = self.state
        assert state is not None
        state.apply(Deal(None))
        owners = {s: list(state.holdings[s]) for s in range(self.n)}
        self.withheld, self.hand_shares = {}, {}
        if state.phase == "fortial":  # T15: the opponents' shares are withheld
            team = state.fortial_team
            self.withheld = {s: ps for s, ps in owners.items() if state.team_of[s] != team}
            owners = {s: ps for s, ps in owners.items() if state.team_of[s] == team}
        self._start_shares("deal", owners)

    def _start_shares(self, step: str, owners: dict[int, list[int]]) -> None:
        owners = {s: ps for s, ps in owners.items() if ps}
        round_ = ShareRound(step, owners, [], {})
        round_.waiting = [s for s in range(self.n) if round_.positions_for(s)]
        if not round_.waiting:
            self._resume_game()
            return
        self.shares = round_
        self.phase = "shares"

    def _on_shares(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"shares"})
        round_ = self.shares
        assert round_ is not None
        positions = round_.positions_for(entry.seat)
        try:
            batch = ShareBatch.from_bytes(_bytes_field(body, "shares"))
            if batch.seat != entry.seat or list(batch.positions) != positions:
                raise Rejected("shares", f"shares must cover positions {positions}")
            verify_shares(
                batch,
                self.elgamal[entry.seat],
                [self.deck[p] for p in positions],
                self.context(round_.step),
            )
        except CryptoError as exc:
            raise Rejected("share-proof", str(exc)) from exc
        for pos, share in zip(batch.positions, batch.shares, strict=True):
            round_.shares.setdefault(pos, {})[entry.seat] = share
            self.hand_shares.setdefault(pos, {})[entry.seat] = share
        round_.waiting.pop(0)
        if round_.waiting:
            return
        self.shares = None
        if self.on_private is not None:
            self.on_private(self, round_)
        self._resume_game()

    def _resume_game(self) -> None:
        state = self.state
        assert state is not None
        if self.withheld and state.phase not in ("fortial", "deal", "over"):
            withheld, self.withheld = self.withheld, {}
            self._start_shares("deal-withheld", withheld)
            return
        if state.phase in ("deal", "over"):
            self.phase, self.turn, self.checkpoints = "checkpoint", 0, {}
            self.withheld = {}
        else:
            self.phase = "game"

    def _on_act(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"action"})
        text = body["action"]
        state = self.state
        assert state is not None
        try:
            action = parse_action(text) if isinstance(text, str) else None
            if not isinstance(action, Word | SingCount | Keep):
                raise Rejected(
                    "schema",
                    "act carries trut, accept, fold, pass, sing, agree, "
                    "refuse, sing N or keep (plays use play)",
                )
            if isinstance(action, Keep) and any(r.card is not None for r in action.refs):
                raise Rejected("schema", "keep names positions only (keep @3 @7 @12)")
            before = [list(h) for h in state.holdings]
            state.apply(action)
        except EngineError as exc:
            raise Rejected(getattr(exc, "rule", "engine"), _detail(exc)) from exc
        if isinstance(action, SingCount):  # T19: the new cards are revealed to their owners
            new = {s: [p for p in state.holdings[s] if p not in before[s]] for s in range(self.n)}
            self._start_shares("sing", new)
        else:
            self._resume_game()

    def _on_play(self, entry: Entry, body: dict[str, Any]) -> None:
        """7.4: a play reveals its card from the entry alone. The other seats' shares of
        the position are in the log already: a seat holds a position only once a share
        round has shown it to that seat, and such a round holds a verified share of it
        from every other seat. A play of a position without them is refused."""
        _exact_fields(body, {"position", "shares"})
        state = self.state
        assert state is not None
        pos = _int_field(body, "position", 0, len(FULL_DECK) - 1)
        if pos not in state.holdings[entry.seat]:
            raise Rejected("T5", f"position {pos} was not dealt to seat {entry.seat}")
        try:
            batch = ShareBatch.from_bytes(_bytes_field(body, "shares"))
            if batch.seat != entry.seat or batch.positions != (pos,):
                raise Rejected("shares", "the play carries the player's share of its card")
            verify_shares(batch, self.elgamal[entry.seat], [self.deck[pos]], self.context("play"))
        except CryptoError as exc:
            raise Rejected("share-proof", str(exc)) from exc
        others = self.hand_shares.get(pos, {})
        missing = [s for s in range(self.n) if s != entry.seat and s not in others]
        if missing:
            raise Rejected(
                "reveal",
                f"position {pos} was never shown to seat {entry.seat} (no share from seats "
                f"{missing}): a seat plays only a card a share round showed it",
            )
        shares = [others[s] for s in range(self.n) if s != entry.seat]
        self._finish_play(pos, [*shares, batch.shares[0]])

    def _finish_play(self, pos: int, shares: list[Point]) -> None:
        """Decrypt the played position with every seat's share; the engine applies it."""
        assert self.state is not None
        point = combine(self.deck[pos], shares)
        try:
            card = card_from_index(self.cards.index_of(point))
        except CryptoError as exc:
            raise Rejected("reveal", str(exc)) from exc
        self.revealed[pos] = card.index
        try:
            self.state.apply(Play(CardRef(card, pos)))
        except EngineError as exc:
            raise Rejected(getattr(exc, "rule", "engine"), _detail(exc)) from exc
        self._resume_game()

    def _on_checkpoint(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"hand", "state"})
        assert self.state is not None
        digest = _bytes_field(body, "state", 32)
        if body["hand"] != self.state.hand_number or type(body["hand"]) is not int:
            raise Rejected("checkpoint", f"the checkpoint is for hand {self.state.hand_number}")
        if digest != bytes.fromhex(self.state.state_hash()):
            raise Rejected("checkpoint", "the signed state hash is not the table's")
        self._advance_turn(self._after_checkpoint)

    def _after_checkpoint(self) -> None:
        assert self.state is not None
        if self.state.phase == "over":
            self.phase = "result"
        else:
            self.phase, self.deck, self.revealed, self.hand_shares = "shuffle", (), {}, {}

    def can_void(self, seat: int) -> bool:
        """Whether ``seat`` (the seat the table waits for) may be replaced now (7.7)."""
        expected = self.expected()
        return (
            expected is not None
            and expected[0] == seat
            and self.n >= 2
            and self.phase in ("shuffle", "shares", "game", "checkpoint")
            and self.state is not None
            and self.state.phase != "over"
        )

    def _stalled_quorum(
        self, author: int, prev: bytes, body: dict[str, Any], taker: bytes | None
    ) -> tuple[int, tuple[int, ...]]:
        """The stalled seat and the voters of a ``void``/``abandon`` (7.7)."""
        state, expected = self.state, self.expected()
        assert state is not None and expected is not None
        stalled = _int_field(body, "seat", 0, self.n - 1)
        if stalled != expected[0] or not self.can_void(stalled):
            raise Rejected("votes", f"the table waits for seat {expected[0]}, not {stalled}")
        if author != coordinator(stalled, state.team_of):
            raise Rejected("votes", f"seat {author} is not the coordinator for seat {stalled}")
        try:
            votes = check_votes(
                body["votes"],
                self.table_id,
                self.seats,
                state.team_of,
                prev,
                stalled,
                state.hand_number,
                taker,
            )
        except VoteError as exc:
            raise Rejected("votes", str(exc)) from exc
        if author not in {v.voter for v in votes}:
            raise Rejected("votes", "the coordinator votes too")
        return stalled, tuple(v.voter for v in votes)

    def check_void(
        self, author: int, prev: bytes, body: dict[str, Any]
    ) -> tuple[Offer, int, tuple[int, ...]]:
        """Raise :class:`Rejected` unless ``body`` is a valid ``void`` now; changes nothing."""
        _exact_fields(body, {"seat", "votes", "offer"})
        state = self.state
        assert state is not None
        try:
            offer = parse_offer(body["offer"], self.table_id)
        except VoteError as exc:
            raise Rejected("offer", str(exc)) from exc
        stalled, voters = self._stalled_quorum(author, prev, body, offer.id)
        if (offer.seat, offer.hand, offer.entry.prev) != (stalled, state.hand_number, prev):
            raise Rejected("offer", "the offer is for this seat, hand and point of the log")
        if offer.identity in self.seats or offer.identity in self.retired:
            raise Rejected("offer", "the taker must be a newcomer: a key that never held a seat")
        if any(bytes(k) == bytes(offer.key) for k in self.elgamal):
            raise Rejected("offer", "an ElGamal key already used at this table")
        return offer, stalled, voters

    def check_abandon(self, author: int, prev: bytes, body: dict[str, Any]) -> tuple[int, ...]:
        """Raise :class:`Rejected` unless ``body`` is a valid ``abandon`` now."""
        _exact_fields(body, {"seat", "votes"})
        return self._stalled_quorum(author, prev, body, None)[1]

    def _on_void(self, entry: Entry, body: dict[str, Any]) -> None:
        """A newcomer takes the stalled seat with its own keys, from the next hand."""
        offer, stalled, voters = self.check_void(entry.seat, entry.prev, body)
        state = self.state
        assert state is not None
        if state.phase not in ("draw", "deal", "over"):
            state.apply(Void())  # D16: no score, the same Donneur deals again
        self.retired.add(self.seats[stalled])
        self.seats[stalled], self.names[stalled] = offer.identity, offer.name
        self.elgamal[stalled] = offer.key
        self.joint = joint_key(self.elgamal)
        self.shares, self.hand_shares, self.withheld = None, {}, {}
        self.deck, self.revealed, self.checkpoints = (), {}, {}
        self.phase, self.turn = "shuffle", 0
        self.replaced.append((stalled, len(self.log)))
        self.changes.append(
            SeatChange(
                "replaced",
                stalled,
                len(self.log),
                state.hand_number,
                voters,
                entry.seat,
                offer.identity,
                offer.name,
            )
        )

    def _on_abandon(self, entry: Entry, body: dict[str, Any]) -> None:
        """The game ends here with no winner; the stalled seat is blamed."""
        voters = self.check_abandon(entry.seat, entry.prev, body)
        stalled = body["seat"]
        state = self.state
        assert state is not None
        self.changes.append(
            SeatChange("abandoned", stalled, len(self.log), state.hand_number, voters, entry.seat)
        )
        self.blames.append(
            Blame(
                stalled,
                "stalled",
                f"the table waited for seat {stalled}; seats {list(voters)} abandoned the game",
                tuple(body["votes"]),
            )
        )
        self.phase = "done"

    def _on_result(self, entry: Entry, body: dict[str, Any]) -> None:
        _exact_fields(body, {"winner", "state"})
        assert self.state is not None
        if body.get("winner") != self.state.winner or _bytes_field(
            body, "state", 32
        ) != bytes.fromhex(self.state.state_hash()):
            raise Rejected("result", "the signed result is not the table's")
        self._advance_turn(lambda: setattr(self, "phase", "done"))


class TablePeer:
    """One seat at the table: a replica plus this seat's secrets. Sans-I/O.

    ``receive(wire)`` takes any entry from the network; ``outbox()`` returns the entries
    this seat must send now (its automatic steps); ``decide()`` says whether the game
    waits for this seat's decision, and ``act(text)`` makes it. A decision that is not
    legal now raises :class:`LocalError` before anything is signed.

    A peer whose identity holds no seat is a **newcomer** (7.7): it follows the log like
    a spectator, and may :meth:`offer` to take a stalled seat with its own fresh keys;
    it plays once a ``void`` names its offer. A seated peer that a ``void`` replaced
    (:meth:`replaced`) writes nothing more and follows the game.
    """

    def __init__(self, identity: Identity, seat: int, table_id: bytes, rng: RandomBytes) -> None:
        self.identity = identity
        self.seat = seat
        self.rng = rng
        self.replica = TableReplica(table_id)
        self.replica.on_private = self._learn
        self.elgamal = KeyPair.generate(rng)
        self._values: dict[int, bytes] = {}
        self.holds: set[tuple[int, bytes]] = set()  # (stalled seat, head) this seat voted at
        self.on_secrets: Callable[[dict[str, Any]], None] | None = None

    def secrets(self) -> dict[str, Any]:
        """What this seat must keep to resume after a crash (never put in a transcript)."""
        return {
            "seat": self.seat,
            "table": self.replica.table_id.hex(),
            "elgamal": hex(self.elgamal.secret),
            "values": {str(k): v.hex() for k, v in self._values.items()},
            "holds": sorted([s, h.hex()] for s, h in self.holds),
        }

    def _secrets_changed(self) -> None:
        if self.on_secrets is not None:
            self.on_secrets(self.secrets())

    @classmethod
    def restore(
        cls, identity: Identity, secrets: dict[str, Any], entries: Sequence[bytes], rng: RandomBytes
    ) -> TablePeer:
        """A seat back from a crash: its secrets, then its own journal replayed (forks
        included: a void that overrode this seat's entry overrides it again, 7.8)."""
        peer = cls(identity, int(secrets["seat"]), bytes.fromhex(secrets["table"]), rng)
        peer.elgamal = KeyPair(int(secrets["elgamal"], 16))
        peer._values = {int(k): bytes.fromhex(v) for k, v in secrets["values"].items()}
        peer.holds = {(int(s), bytes.fromhex(h)) for s, h in secrets.get("holds", [])}
        for wire in entries:
            peer.receive(wire)
        return peer

    def catch_up(self, entries: Sequence[bytes]) -> int:
        """Apply the entries after this seat's head (from any peer's log); verified as
        always, so a lying source is detected. Returns how many were applied."""
        log = self.replica.log
        ids = [parse_entry(w).id for w in entries]
        # After the last entry both logs share (a replaced seat's own entry is not shared).
        start = next(
            (i + 1 for i in reversed(range(len(ids))) if log.index_of(ids[i]) is not None), 0
        )
        applied = 0
        for wire in entries[start:]:
            if self.receive(wire) is not None:
                applied += 1
        return applied

    # -- intake

    def receive(self, wire: bytes) -> Entry | None:
        entry = self.replica.receive(wire)
        if entry is not None and self.holds:
            self._prune_holds()
        if entry is not None and entry.type == "void":
            seats = self.replica.seats
            if self.identity.public in seats and seats.index(self.identity.public) != self.seat:
                self.seat = seats.index(self.identity.public)  # a newcomer took its seat
                self._secrets_changed()
        return entry

    def _learn(self, replica: TableReplica, round_: ShareRound) -> None:
        """Decrypt this seat's own cards of a finished private share round."""
        if not 0 <= self.seat < replica.n or replica.seats[self.seat] != self.identity.public:
            return  # not seated (a newcomer, or replaced)
        if replica.elgamal[self.seat] != self.elgamal.public:
            return  # a round from before this seat was re-keyed (7.7): not our cards
        mine = round_.owners.get(self.seat, [])
        state = replica.state
        assert state is not None
        for pos in mine:
            ct = replica.deck[pos]
            parts = [*round_.shares[pos].values(), own_share(self.elgamal, ct)]
            index = replica.cards.index_of(combine(ct, parts))
            state.learn(pos, card_from_index(index))

    # -- output

    def _sign(self, type: str, body: dict[str, Any]) -> bytes:
        log = self.replica.log
        entry = sign_entry(
            self.identity,
            table=self.replica.table_id,
            seat=self.seat,
            seq=log.next_seq(self.identity.public),
            prev=log.head,
            type=type,
            body=body,
        )
        self.replica.receive(entry.wire)
        return entry.wire

    def open_table(
        self,
        config: TrutConfig,
        seats: Sequence[bytes],
        names: Sequence[str] | None = None,
        fallbacks: Sequence[str] | None = None,
        *,
        nonce: bytes,
    ) -> bytes:
        """The host's ``open`` entry: seat assignment (see :class:`~.lobby.Lobby`);
        ``nonce`` binds the table id to this seat's key (7.10)."""
        if table_id_for(self.identity.public, nonce) != self.replica.table_id:
            raise ValueError("this table id is not bound to this host's key and nonce")
        count = len(seats)
        body = {
            "nonce": bytes(nonce),
            "game": "trut",
            "config": config.to_dict(),
            "seats": list(seats),
            "names": list(names) if names is not None else [f"seat {s}" for s in range(count)],
            "fallbacks": list(fallbacks) if fallbacks is not None else [""] * count,
        }
        return self._sign("open", body)

    def seated(self) -> bool:
        """True while this identity holds its seat."""
        seats = self.replica.seats
        return 0 <= self.seat < len(seats) and seats[self.seat] == self.identity.public

    def standby(self) -> bool:
        """True for a newcomer: the table is open, and this identity holds no seat and
        never held one."""
        seats = self.replica.seats
        return bool(seats) and self.identity.public not in seats and not self.replaced()

    def replaced(self) -> bool:
        """True once a ``void`` gave this identity's seat to a newcomer (7.7)."""
        return self.identity.public in self.replica.retired

    def holding(self) -> bool:
        """True while this seat must not write (7.8): it voted to replace a seat at a head
        that the stalled seat has since extended, and the coordinator has written
        nothing after that head here (so its ``void`` may still come and override the
        stalled seat's entry). The coordinator itself never holds: it knows it did not
        write the ``void``."""
        return any(self._hold_state(hold) == "holding" for hold in self.holds)

    def _hold_state(self, hold: tuple[int, bytes]) -> str:
        """``pending`` (the log has not moved past the vote), ``holding``, or ``over``."""
        stalled, head = hold
        log, state = self.replica.log, self.replica.state
        index = log.index_of(head)
        if state is None or index is None or index + 1 == len(log):
            return "pending"
        after = log.entries[index + 1 :]
        chief = coordinator(stalled, state.team_of)
        if after[0].seat != stalled or chief == self.seat or any(e.seat == chief for e in after):
            return "over"
        return "holding"

    def _prune_holds(self) -> None:
        over = {hold for hold in self.holds if self._hold_state(hold) == "over"}
        if over:
            self.holds -= over
            self._secrets_changed()

    def release(self) -> None:
        """Stop holding (the runtime gave up on the votes): follow the stalled seat's entry."""
        self.holds.clear()
        self._secrets_changed()

    def next_automatic(self) -> bytes | None:
        """Sign and apply the next automatic entry if it is this seat's to write now."""
        if not self.seated() or self.holding():
            return None
        expected = self.replica.expected()
        if expected is None or expected[0] != self.seat or expected[1][0] not in AUTOMATIC:
            return None
        return self._sign(expected[1][0], self._automatic(expected[1][0]))

    def outbox(self) -> list[bytes]:
        """Every automatic entry that is this seat's to write now, in order."""
        out: list[bytes] = []
        while (wire := self.next_automatic()) is not None:
            out.append(wire)
        return out

    def _automatic(self, kind: str) -> dict[str, Any]:
        replica = self.replica
        if kind == "keys":
            proof = self.elgamal.prove(replica.context("keys"), self.seat, self.rng)
            return {"key": bytes(self.elgamal.public), "proof": proof.to_bytes()}
        if kind == "commit":
            value = self.rng(32)
            self._values[self.seat] = value
            self._secrets_changed()  # kept before the commitment leaves this seat
            return {"commit": commitment(value, self.seat, replica.context("draw"))}
        if kind == "reveal":
            return {"value": self._values[self.seat]}
        if kind == "shuffle":
            source = replica.deck if replica.turn else open_deck(replica.cards.points)
            assert replica.joint is not None
            result, proof = shuffle(
                source,
                replica.joint,
                replica.context(f"shuffle/{self.seat}"),
                replica.elgamal,
                self.rng,
            )
            return {"deck": encode_shuffle(result, proof)}
        if kind == "shares":
            round_ = replica.shares
            assert round_ is not None
            positions = round_.positions_for(self.seat)
            batch = make_shares(
                self.elgamal,
                self.seat,
                positions,
                [replica.deck[p] for p in positions],
                replica.context(round_.step),
                self.rng,
            )
            return {"shares": batch.to_bytes()}
        state = replica.state
        assert state is not None
        if kind == "checkpoint":
            return {"hand": state.hand_number, "state": bytes.fromhex(state.state_hash())}
        return {"winner": state.winner, "state": bytes.fromhex(state.state_hash())}

    # -- replacing a stalled seat (7.7)

    def _stall_point(self, stalled: int) -> int:
        state = self.replica.state
        if state is None or not self.replica.can_void(stalled):
            raise LocalError("void", f"the table is not waiting for seat {stalled} in a game")
        return state.hand_number

    def offer(self, stalled: int, name: str) -> bytes:
        """As a newcomer: a signed offer to take ``stalled`` with this peer's own keys."""
        replica = self.replica
        if self.identity.public in replica.seats or self.replaced():
            raise LocalError("offer", "a seated (or replaced) player cannot take a seat")
        hand = self._stall_point(stalled)
        assert replica.state is not None
        if not partners(stalled, replica.state.team_of):
            raise LocalError("offer", "only a seat with partners can be taken (else: abandon)")
        try:
            check_name(name)
        except LobbyError as exc:
            raise LocalError("offer", str(exc)) from exc
        self.seat = stalled
        self._secrets_changed()  # the ElGamal key is kept before the offer leaves
        return make_offer(
            self.identity,
            self.elgamal,
            replica.table_id,
            stalled,
            replica.log.head,
            hand,
            name,
            self.rng,
        )

    def vote(self, stalled: int, taker: bytes | None = None) -> bytes:
        """This seat's signed vote at the current head: give ``stalled`` to the offer
        ``taker`` (its id), or abandon the game (None). From now on this seat writes
        nothing on top of the stalled seat's entry at this head (:meth:`holding`)."""
        if not self.seated() or stalled == self.seat:
            raise LocalError("vote", "only another seated player votes on a stalled seat")
        hand = self._stall_point(stalled)
        head = self.replica.log.head
        self.holds.add((stalled, head))
        self._secrets_changed()  # the hold outlives a crash (7.8)
        return make_vote(
            self.identity, self.replica.table_id, self.seat, head, stalled, hand, taker
        )

    def replace(self, stalled: int, votes: Sequence[bytes], offer: bytes) -> bytes:
        """As coordinator: the ``void`` that gives ``stalled`` to the newcomer of
        ``offer``. Raises :class:`~.replace.VoteError`, signing nothing, unless it is valid."""
        body = {"seat": stalled, "votes": list(votes), "offer": offer}
        try:
            self.replica.check_void(self.seat, self.replica.log.head, body)
        except Rejected as exc:
            raise VoteError(exc.message) from exc
        return self._sign("void", body)

    def abandon(self, stalled: int, votes: Sequence[bytes]) -> bytes:
        """As coordinator: the ``abandon`` that ends the game, blaming ``stalled``."""
        body = {"seat": stalled, "votes": list(votes)}
        try:
            self.replica.check_abandon(self.seat, self.replica.log.head, body)
        except Rejected as exc:
            raise VoteError(exc.message) from exc
        return self._sign("abandon", body)

    # -- decisions

    def decide(self) -> bool:
        if not self.seated() or self.holding():
            return False
        expected = self.replica.expected()
        return expected is not None and expected[0] == self.seat and expected[1][0] == "act"

    def act(self, text: str) -> bytes:
        """This seat's game decision: ``play 7h`` (or any engine notation).

        Raises :class:`LocalError` (nothing signed, nothing changed) if it is not this
        seat's decision now or the rules forbid it.
        """
        if not self.decide():
            raise LocalError("turn", "this seat has no decision to make now")
        state = self.replica.state
        assert state is not None
        try:
            action = parse_action(text)
        except EngineError as exc:
            raise LocalError(getattr(exc, "rule", "notation"), _detail(exc)) from exc
        if not isinstance(action, Word | SingCount | Keep | Play):
            raise LocalError("schema", f"{action} is not a player's decision")
        hand = state.holdings[self.seat]
        if isinstance(action, Play):
            pos = self._position(action.ref, hand)
            action = Play(CardRef(state.known.get(pos), pos))
        elif isinstance(action, Keep):
            action = Keep(tuple(CardRef(None, self._position(r, hand)) for r in action.refs))
        try:
            state.clone().apply(action)  # the rules judge a copy: nothing changes here
        except EngineError as exc:
            raise LocalError(getattr(exc, "rule", "engine"), _detail(exc)) from exc
        if isinstance(action, Play):
            pos = action.ref.pos
            assert pos is not None
            batch = make_shares(
                self.elgamal,
                self.seat,
                [pos],
                [self.replica.deck[pos]],
                self.replica.context("play"),
                self.rng,
            )
            return self._sign("play", {"position": pos, "shares": batch.to_bytes()})
        return self._sign("act", {"action": str(action)})

    def _position(self, ref: CardRef, hand: Sequence[int]) -> int:
        """The deck position of one of this seat's cards named by ``ref``."""
        known = self.replica.state.known if self.replica.state is not None else {}
        if ref.pos is not None:
            if ref.pos not in hand or (ref.card is not None and known.get(ref.pos) != ref.card):
                raise LocalError("T5", f"{ref} is not a card in this seat's hand")
            return ref.pos
        pos = next((p for p in hand if known.get(p) == ref.card), None)
        if pos is None:
            raise LocalError("T5", f"{ref} is not a card in this seat's hand")
        return pos
