"""The table's replica: validates and applies the entries of any game (sans-I/O).

:class:`TableReplica` holds no secret, so the same code replays a saved transcript
offline. It knows no game: it builds the one the ``open`` entry names through the
engine's registry, and runs it from the engine's hidden-information description
alone (``docs/engine.md``): after every step it asks the state for its
``table_requests`` and runs them (``docs/protocol.md`` 7.4):

* a ``Disclose`` is a private share round (:mod:`.shares`; a position's earlier
  viewers seal their shares to a new one);
* a ``Shuffle``, a ``shuffle`` from every seat in seat order (the deck's cards, then
  any carried ciphertexts), then the engine's deal;
* a ``JointRandom``, a commit-reveal among every seat (:mod:`.commitments`);
* a ``Reveal``, a public share round for the shares not yet posted;
* a ``Locate``, a ``blind`` round then an ``unblind`` round of plaintext-equality
  tests (:mod:`.locate`), after which everyone knows which positions hold the card;
* a ``Turn``, the seat's ``act``; a decision that ``reveals()`` positions carries the
  seat's own shares of them, and needs no round when every other share is posted;
* a ``SecretChoice``, the seat's ``seal``; an ``Open``, its ``unseal``.

Between rounds (``round_number()`` moves on) and at the end every seat signs a
``checkpoint``; the end is followed by every seat's ``result``. While the table waits
for a seat, the coordinator may write ``void`` or ``abandon`` (7.7, :mod:`.replace`).

The steps that need no seat order (``keys``, ``commit``, ``reveal``, ``shares``,
``blind``, ``unblind``, ``checkpoint``, ``result``) are **unordered rounds** (7.2,
:mod:`.rounds`): their entries come in any order, each checked as it comes
(``_on_<type>``), then counted in seat order (``_keep_<type>``); the round enters the
log whole, and ``_after_<type>`` goes on. The shuffle and the decisions stay one entry at a time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import partial
from typing import Any

from trutnet.crypto import (
    Blinds,
    Context,
    CryptoError,
    KeyProof,
    decode_point,
    decode_shuffle,
    joint_key,
    verify_key,
    verify_shuffle,
)
from trutnet.crypto.elgamal import Ciphertext
from trutnet.crypto.group import Point
from trutnet.crypto.randomness import commitment
from trutnet.engine import make_game
from trutnet.engine.api import Action, Game, GameState
from trutnet.engine.errors import EngineError
from trutnet.engine.hidden import (
    Disclose,
    JointRandom,
    Locate,
    Open,
    Pos,
    Reveal,
    SecretChoice,
    Shuffle,
    Step,
    Turn,
)
from trutnet.protocol.blame import Blame
from trutnet.protocol.commitments import (
    DRAW_DOMAIN,
    SALT_BYTES,
    JointDraw,
    Sealed,
    draw_index,
    seal_commitment,
)
from trutnet.protocol.envelope import PROTOCOL_VERSION, Entry, MessageError, parse_entry
from trutnet.protocol.lobby import (
    NONCE_BYTES,
    LobbyError,
    check_fallback,
    check_name,
    distinct_names,
    table_id_for,
)
from trutnet.protocol.locate import BLIND_STEP, UNBLIND_STEP, LocateRound, share_batch_size
from trutnet.protocol.log import OVERRIDES, LogError, TableLog, equivocation_blame
from trutnet.protocol.replace import (
    SeatChange,
    coordinator,
)
from trutnet.protocol.rounds import OpenRound
from trutnet.protocol.schema import (
    Rejected,
    bytes_field,
    detail,
    exact_fields,
    text_field,
)
from trutnet.protocol.shares import EVERYONE, DeckLedger, ShareRound
from trutnet.protocol.stalled import StalledSeats

AUTOMATIC = (
    "keys",
    "commit",
    "reveal",
    "shuffle",
    "shares",
    "blind",
    "unblind",
    "unseal",
    "checkpoint",
    "result",
)
DECISIONS = ("act", "seal")
# Largest entry of each type, in bytes (7.3): far above honest sizes, far below the cap.
TYPE_LIMITS = {
    "open": 4096,
    "keys": 512,
    "commit": 512,
    "reveal": 512,
    "shuffle": 16384,
    "shares": 8192,
    "blind": 16384,
    "unblind": 8192,
    "act": 4096,
    "seal": 512,
    "unseal": 4096,
    "checkpoint": 512,
    "void": 8192,
    "abandon": 4096,
    "result": 512,
}
SHUFFLE_BYTES_PER_CARD = 196  # 8.7: a shuffle message is 2 + 196 N + 160 bytes
MAX_ACTION = 1024  # characters of a decision's notation


class TableReplica(StalledSeats):
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
        self.game: Game | None = None
        self.state: GameState | None = None
        self.team_of: tuple[int, ...] = ()
        self.decks = DeckLedger(())
        self.elgamal: list[Point] = []
        self.joint: Point | None = None
        self.turn = 0  # the seat whose shuffle comes next
        self.round: OpenRound | None = None  # the unordered round in progress (7.2)
        self.step: Step | None = None  # what the engine asked the table to run now
        self.deck: tuple[Ciphertext, ...] = ()  # the deck being shuffled, as last shuffled
        self.draw: JointDraw | None = None
        self.seed: tuple[bytes, int] | None = None  # joint seed and the next draw's counter
        self.shares: ShareRound | None = None
        self.locating: LocateRound | None = None  # the Locate in progress
        self.pending: tuple[int, Action] | None = None  # (seat or EVERYONE, action) to apply
        self.disclosed: dict[int, set[Pos]] = {}  # positions shown to each seat alone
        self.shown: dict[int, set[Pos]] = {}  # ... to each seat alone or with everyone
        self.sealed: dict[tuple[int, str], Sealed] = {}  # (seat, label) -> its commitment
        self.round_seen = 0  # the engine's round at the last checkpoint
        self.final = False  # the last checkpoint is signed
        self._own = False  # the entry being received is this replica's seat's own
        # Hooks: a round of private shares is over (a seat decrypts its cards), and
        # positions were shown to their owners or to everyone (before the engine goes on).
        self.on_private: Callable[[TableReplica, ShareRound], None] | None = None
        self.on_round: Callable[[TableReplica, dict[int, tuple[Pos, ...]]], None] | None = None
        # The choice behind a commitment this replica's seat made (its peer keeps it), so
        # that its engine applies the choice itself rather than the stand-in (7.4): a seat
        # knows its own sealed choices (a hand chosen in secret). None: not known.
        self.own_sealed: Callable[[int, bytes], str | None] | None = None

    # ------------------------------------------------------------ who acts

    @property
    def revealed(self) -> dict[Pos, str]:
        """Every position revealed to everyone in the decks as last shuffled."""
        return self.decks.revealed

    @property
    def abandoned(self) -> SeatChange | None:
        """The ``abandon`` that ended the game with no winner (7.7), if one did."""
        last = self.ended_without
        return last if last is not None and last.kind == "abandoned" else None

    @property
    def ended_without(self) -> SeatChange | None:
        """The ``abandon`` that ended the game without a seat (7.7), if one did: with no
        winner (``abandoned``), or once over, without its signature (``closed``)."""
        last = self.changes[-1] if self.changes else None
        return last if last is not None and last.kind in ("abandoned", "closed") else None

    def expected(self) -> tuple[int, tuple[str, ...]] | None:
        """The seat that must write the next entry (in an unordered round, the lowest
        seat whose entry has not come), and the types it may write."""
        if self.halted is not None or self.phase == "done":
            return None
        if self.round is not None:
            missing = self.round.missing()
            return (missing[0], (self.round.kind,)) if missing else None
        if self.phase == "open":
            return 0, ("open",)
        if self.phase == "shuffle":
            return self.turn, (self.phase,)
        step = self.step
        if isinstance(step, Turn):
            return step.seat, ("act",)
        if isinstance(step, SecretChoice):
            return step.seat, ("seal",)
        if isinstance(step, Open):
            return step.seat, ("unseal",)
        raise AssertionError(self.phase)

    def waiting(self) -> tuple[int, ...]:
        """Every seat the table waits for now, in seat order: the seat to write next,
        or each seat of the unordered round whose entry has not come."""
        expected = self.expected()
        if expected is None:
            return ()
        return self.round.missing() if self.round is not None else (expected[0],)

    def writers(self) -> tuple[int, ...]:
        """The seats that write the step the table is at, whatever has come of it: the
        seat to write next, or every seat of the unordered round (7.7 judges a stalled
        seat by this, so that every replica judges alike)."""
        expected = self.expected()
        if expected is None:
            return ()
        return self.round.seats if self.round is not None else (expected[0],)

    def kinds_for(self, seat: int) -> tuple[str, ...]:
        """The types ``seat`` may write now (none if the table does not wait for it)."""
        expected = self.expected()
        if expected is None:
            return ()
        if self.round is not None:
            return (self.round.kind,) if seat in self.round.missing() else ()
        return expected[1] if expected[0] == seat else ()

    def held(self) -> list[bytes]:
        """The entries of the unordered round in progress that came, in seat order: not
        in the log yet, but a peer that missed them may ask (9.2)."""
        return [e.wire for e in self.round.held()] if self.round is not None else []

    def round_number(self) -> int:
        return self.state.round_number() if self.state is not None else 0

    def context(self, step: str, round: int | None = None) -> Context:
        number = self.round_number() if round is None else round
        return Context(PROTOCOL_VERSION, self.table_id, number, step)

    # --------------------------------------------------------------- intake

    def receive(self, wire: bytes, own: bool = False) -> Entry | None:
        """Validate and apply one entry. Returns it (applied, or held in the unordered
        round in progress), or None for a harmless duplicate.

        Raises :class:`Rejected` (with a blame where a seat is at fault). ``own``: an
        entry that this replica's own seat has just built (:meth:`TablePeer._sign`):
        all is checked but its shuffle proof, which costs as much to check as to make,
        and which every other replica checks.
        """
        self._own = own
        try:
            return self._receive(wire)
        finally:
            self._own = False

    def _receive(self, wire: bytes) -> Entry | None:
        if self.halted is not None:
            self._equivocation_after_stop(wire)
            raise Rejected("halted", f"the table stopped: {self.halted}")
        try:
            entry = parse_entry(wire, self.table_id)
        except MessageError as exc:
            raise Rejected(exc.rule, detail(exc)) from exc
        limit = self._limit(entry.type)
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
        round_ = self.round
        mine = round_.entries.get(entry.seat) if round_ is not None else None
        if mine is not None and mine.wire == entry.wire:
            return None  # already held in the round in progress
        if entry.type in OVERRIDES and entry.prev != self.log.head:
            known = self.log.known(entry)
            if known is not None and known.wire == entry.wire:
                return None
            # 7.8: it overrides the stalled seat's entry (or, in an unordered round, the
            # round at its head: its own author's entry of the round among them)
            beside = known is not None and known.prev == entry.prev
            if (known is None or (beside and known.type not in OVERRIDES)) and (
                self.log.index_of(entry.prev) is not None
            ):
                return self._fork(entry)
        try:
            self.log.check(entry)
        except LogError as exc:
            if exc.rule == "equivocation":
                self._halt(exc.blame)
            raise Rejected(exc.rule, detail(exc), exc.blame, exc.rule == "equivocation") from exc
        twin = equivocation_blame(mine, entry) if mine is not None else None
        if twin is not None:  # two entries of one seat in the round in progress
            assert round_ is not None
            self._equivocates(round_, entry, twin)
        expected = self.expected()
        if expected is None:
            raise Rejected("over", "the game is over: no entry is expected")
        kinds = self.kinds_for(entry.seat)
        if entry.type in OVERRIDES and any(
            self.can_abandon(s) and entry.seat == coordinator(s, self.team_of)
            for s in self.writers()
        ):
            kinds = (*kinds, entry.type)  # 7.7: the coordinator acts for the table
        if entry.type not in kinds:
            if round_ is not None:
                who = f"seats {list(round_.missing())} must write {round_.kind}"
            else:
                who = f"seat {expected[0]} must write {'/'.join(expected[1])}"
            blame = Blame(
                entry.seat, "turn", f"{entry.type} from seat {entry.seat}; {who}", (entry.wire,)
            )
            raise Rejected("turn", blame.detail, blame)
        if round_ is not None and entry.type == round_.kind:
            return self._pool(round_, entry)
        try:
            self._checked(entry, lambda: getattr(self, f"_on_{entry.type}")(entry, entry.body))
        except Rejected as exc:
            if not self.seats:  # before the open, no one is seated: nobody to blame (7.5)
                raise Rejected(exc.rule, exc.message) from exc
            raise self._stop(entry, exc) from exc
        self.log.append(entry)
        self.journal.append(entry.wire)
        return entry

    def _checked(self, entry: Entry, check: Callable[[], Any]) -> Any:
        """``check()``, whose failures are all :class:`Rejected`: the same refusal
        everywhere."""
        try:
            return check()
        except (EngineError, CryptoError, LobbyError) as exc:
            raise Rejected(getattr(exc, "rule", "schema"), detail(exc)) from exc
        except (KeyError, TypeError, ValueError, IndexError, AssertionError) as exc:
            # A body that slipped past a schema check: the same refusal everywhere.
            raise Rejected("schema", f"{entry.type}: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _blamed(entry: Entry, exc: Rejected) -> Rejected:
        """``exc`` with its blame: on ``entry``'s author unless it names one."""
        blame = exc.blame or Blame(entry.seat, exc.rule, exc.message, (entry.wire,))
        return Rejected(exc.rule, exc.message, blame, exc.halt)

    def _stop(self, entry: Entry, exc: Rejected) -> Rejected:
        """The table stops on ``entry`` (7.5): the refusal to raise, with its blame."""
        blamed = self._blamed(entry, exc)
        self._halt(blamed.blame)
        return Rejected(blamed.rule, blamed.message, blamed.blame, True)

    # ------------------------------------------------------ unordered rounds (7.2)

    def _start_round(self, kind: str, seats: Any) -> None:
        """Every seat of ``seats`` writes ``kind`` now, naming the log's head."""
        self.round, self.phase = OpenRound(kind, tuple(seats)), kind

    def _pool(self, round_: OpenRound, entry: Entry) -> Entry:
        """Hold an entry of the round in progress, checked now; it counts in seat order.
        A bad entry is refused now, and stops the table when its turn to count comes
        (so every replica stops at the same one, whatever came first)."""
        seat = entry.seat
        try:
            round_.values[seat] = self._checked(
                entry, lambda: getattr(self, f"_on_{entry.type}")(entry, entry.body)
            )
        except Rejected as exc:
            round_.faults[seat] = self._blamed(entry, exc)
        round_.entries[seat] = entry
        self._judge(round_)
        fault = round_.faults.get(seat)
        if fault is not None:  # it counts once every lower seat's entry has
            raise fault
        return entry

    def _equivocates(self, round_: OpenRound, entry: Entry, blame: Blame) -> None:
        """A second entry of a seat in the round in progress (7.2): an equivocation, that
        seat's fault in the round whatever either entry holds (it wins over the failed
        checks of either), counted in seat order like a bad entry: the table stops now
        if the seat has counted or is next, else when it comes up. Always raises."""
        fault = Rejected("equivocation", blame.detail, blame)
        round_.faults[entry.seat] = fault
        if round_.seats.index(entry.seat) < round_.judged:  # every lower seat counted
            raise self._stop(round_.entries[entry.seat], fault)
        self._judge(round_)
        raise fault

    def _equivocation_after_stop(self, wire: bytes) -> None:
        """The table stopped on an entry of seat S; ``wire`` is another entry of S with
        the same sequence number and head: the blame becomes S's equivocation, with
        both entries (7.2). A replica that got the other entry first has recorded
        that very blame, so every replica that has both records the same one, whatever
        the order they came in. Raises that refusal; returns for anything else."""
        halted = self.halted
        if halted is None or halted.rule == "equivocation" or len(halted.evidence) != 1:
            return
        try:
            entry = parse_entry(wire, self.table_id)
            known = parse_entry(halted.evidence[0], self.table_id)
        except MessageError:
            return
        blame = equivocation_blame(known, entry)
        if blame is None or entry.seat != halted.seat or known.seat != halted.seat:
            return
        self.blames = [blame if b is halted else b for b in self.blames]
        self.halted = blame
        raise Rejected("equivocation", blame.detail, blame, True)

    def _judge(self, round_: OpenRound) -> None:
        """Count the held entries in seat order as far as they go; once all count, the
        round enters the log (in seat order) and the table goes on."""
        while (seat := round_.next_to_judge()) is not None:
            entry = round_.entries[seat]
            fault = round_.faults.get(seat)
            keep = getattr(self, f"_keep_{round_.kind}", None)
            if fault is None and keep is not None:
                try:
                    self._checked(entry, partial(keep, seat, round_.values[seat]))
                except Rejected as exc:
                    fault = exc
            if fault is not None:
                raise self._stop(entry, fault)
            round_.judged += 1
        if not round_.complete:
            return
        entries = [round_.entries[s] for s in round_.seats]
        self.log.append_round(entries)
        self.journal.extend(e.wire for e in entries)
        self.round = None
        try:
            self._checked(entries[-1], getattr(self, f"_after_{round_.kind}"))
        except Rejected as exc:  # the table cannot go on: as the round's last entry
            raise self._stop(entries[-1], exc) from exc

    def _limit(self, kind: str) -> int | None:
        limit = TYPE_LIMITS.get(kind)
        if kind == "shuffle" and self.decks.specs:  # a larger deck has a larger shuffle
            largest = self.decks.total  # a deck grows by carried cards to all decks' at most
            limit = max(TYPE_LIMITS["shuffle"], SHUFFLE_BYTES_PER_CARD * largest + 1024)
        if kind in ("blind", "unblind") and self.locating is not None:  # K positions
            count = len(self.locating.positions)
            size = Blinds.size(count) if kind == "blind" else share_batch_size(count)
            limit = max(TYPE_LIMITS[kind], size + 1024)
        return limit

    def _restart_dealing(self) -> None:
        """The seats' keys changed (a ``void``, 7.7): every deck, share, disclosure,
        seal and draw in progress is forgotten; the game's round starts afresh."""
        assert self.state is not None
        self.decks.clear()
        self.shares, self.pending, self.draw, self.seed = None, None, None, None
        self.locating = None
        self.round = None
        self.disclosed, self.shown, self.sealed, self.deck = {}, {}, {}, ()
        self.round_seen = self.state.round_number()

    def _halt(self, blame: Blame | None) -> None:
        if blame is not None:
            self.blames.append(blame)
            self.halted = blame

    # ------------------------------------------------------------ set-up

    def _on_open(self, entry: Entry, body: dict[str, Any]) -> None:
        exact_fields(body, {"game", "config", "seats", "names", "fallbacks", "nonce"})
        if table_id_for(entry.author, bytes_field(body, "nonce", NONCE_BYTES)) != self.table_id:
            raise Rejected("table", "open: the table id is not bound to this host's key (7.10)")
        seats, names, fallbacks = body["seats"], body["names"], body["fallbacks"]
        if not all(isinstance(x, list) for x in (seats, names, fallbacks)) or not (
            len(names) == len(seats) == len(fallbacks)
        ):
            raise Rejected("schema", "open: one name and one fallback per seat")
        try:
            self.names = distinct_names([check_name(n) for n in names])  # as shown
            self.fallbacks = [check_fallback(f) for f in fallbacks]
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
            ledger = DeckLedger(game.decks())
        except (EngineError, CryptoError, NotImplementedError) as exc:
            raise Rejected("schema", f"open: {detail(exc)}") from exc
        if state.holders():  # every position comes from a joint shuffle (no given deck)
            raise Rejected("schema", "a networked game never knows the deck")
        if len(seats) != players or len(set(seats)) != len(seats) or seats[0] != entry.author:
            raise Rejected("schema", "open: one distinct key per seat, the host's first")
        team_of = [t for s in range(players) for t, team in enumerate(teams) if s in team]
        if len(team_of) != players:
            raise Rejected("schema", "open: the game puts every seat in exactly one team")
        self.seats, self.game, self.state, self.decks = list(seats), game, state, ledger
        self.team_of = tuple(team_of)
        self.round_seen = state.round_number()
        self._start_round("keys", range(players))

    def _advance_turn(self, next_phase: Callable[[], None]) -> None:
        self.turn += 1
        if self.turn == self.n:
            self.turn = 0
            next_phase()

    def _on_keys(self, entry: Entry, body: dict[str, Any]) -> Point:
        exact_fields(body, {"key", "proof"})
        try:
            key = decode_point(bytes_field(body, "key", 33))
            proof = KeyProof.from_bytes(bytes_field(body, "proof", 64))
            verify_key(key, proof, self.context("keys"), entry.seat)
        except CryptoError as exc:
            raise Rejected("key-proof", str(exc)) from exc
        return key

    def _keep_keys(self, seat: int, key: Point) -> None:
        if any(bytes(k) == bytes(key) for k in self.elgamal):
            raise Rejected("key-proof", "a key already used by another seat")
        self.elgamal.append(key)  # counted in seat order: the key of seat len(elgamal)

    def _after_keys(self) -> None:
        self.joint = joint_key(self.elgamal)
        self._drive()

    # -------------------------------------------------- driving the game (7.4)

    def _drive(self) -> None:
        """Run what the engine asks for until an entry is needed: sets ``phase``."""
        state = self.state
        assert state is not None
        while True:
            seed, self.seed = self.seed, None  # a run of joint draws ends at anything else
            if state.round_number() != self.round_seen or (state.is_terminal() and not self.final):
                self._start_round("checkpoint", range(self.n))
                return
            if state.is_terminal():
                self._start_round("result", range(self.n))
                return
            requests = state.table_requests(self.shown)
            disclosures = [r for r in requests if isinstance(r, Disclose)]
            if disclosures:
                if self._disclose(disclosures):
                    return
                continue
            if not requests:
                raise Rejected("engine", "the game is not over and asks for nothing")
            step = requests[-1]
            assert not isinstance(step, Disclose)
            self.step = step
            if isinstance(step, JointRandom):
                if seed is None:
                    self.draw = JointDraw(step.label)
                    self._start_round("commit", range(self.n))
                    return
                k = draw_index(seed[0], seed[1], len(step.outcomes))
                state.apply(step.outcomes[k])
                self.seed = (seed[0], seed[1] + 1)
            elif isinstance(step, Shuffle):  # its own cards, then the carried ones
                self.phase, self.turn = "shuffle", 0
                self.deck = self.decks.start(step.deck, step.carry)
                return
            elif isinstance(step, Reveal):
                if self._reveal(EVERYONE, step.then, step.positions):
                    return
            elif isinstance(step, Locate):
                if self._locate(step):
                    return
            else:  # Turn, SecretChoice, Open: a seat writes
                self.phase = "game"
                return

    def _disclose(self, requests: list[Disclose]) -> bool:
        """Start the private round the disclosures ask for; True if it waits for shares."""
        owners: dict[int, tuple[Pos, ...]] = {}
        for request in requests:
            if not 0 <= request.to < self.n:
                raise Rejected("hidden", f"no seat {request.to} to show {request} to")
            new = self.decks.sort({*request.positions, *owners.get(request.to, ())})  # in play
            self.disclosed.setdefault(request.to, set()).update(new)
            self.shown.setdefault(request.to, set()).update(new)
            owners[request.to] = tuple(new)
        # A position shown before to other seats: each of them seals its share (8.8).
        viewers = {
            pos: {s for s, seen in self.disclosed.items() if pos in seen}
            for positions in owners.values()
            for pos in positions
        }
        round_ = ShareRound.plan("disclose", owners, self.decks, self.n, viewers)
        if round_.waiting:
            self._share_round(round_)
            return True
        self._private_done(round_)
        return False

    def _private_done(self, round_: ShareRound) -> None:
        if self.on_private is not None:
            self.on_private(self, round_)
        if self.on_round is not None:
            self.on_round(self, dict(round_.owners))

    def _reveal(self, seat: int, action: Action, positions: tuple[Pos, ...]) -> bool:
        """Reveal ``positions`` to everyone, then apply ``action`` identified: at once when
        every share is posted, else after a public round. True if it waits for shares."""
        self.pending = (seat, action)
        missing = [p for p in positions if not self.decks.complete(p, self.n)]
        round_ = ShareRound.plan("reveal", {EVERYONE: missing}, self.decks, self.n)
        round_.owners = {EVERYONE: tuple(positions)}
        if round_.waiting:
            self._share_round(round_)
            return True
        self._finish_reveal(positions)
        return False

    def _finish_reveal(self, positions: tuple[Pos, ...]) -> None:
        state, pending = self.state, self.pending
        assert state is not None and pending is not None
        self.pending = None
        cards: dict[Pos, str] = {}
        for pos in positions:
            try:
                cards[pos] = self.decks.card(pos)
            except CryptoError as exc:
                raise Rejected("reveal", f"{pos}: {exc}") from exc
        self.decks.revealed.update(cards)
        for seat in range(self.n):
            self.shown.setdefault(seat, set()).update(cards)
        if positions and self.on_round is not None:
            self.on_round(self, {EVERYONE: tuple(positions)})
        state.apply(state.identify(pending[1], cards))

    def _share_round(self, round_: ShareRound) -> None:
        """Every seat of ``round_.waiting`` posts its shares, in any order."""
        self.shares = round_
        self._start_round("shares", round_.waiting)

    def _on_shares(self, entry: Entry, body: dict[str, Any]) -> None:
        round_ = self.shares
        assert round_ is not None
        positions, sealed = round_.positions_for(entry.seat), round_.sealed_for(entry.seat)
        exact_fields(body, ({"shares"} if positions else set()) | ({"sealed"} if sealed else set()))
        context = self.context(round_.step)
        if positions:  # verified as it comes: a seat's shares, whatever the order
            self.decks.accept(
                bytes_field(body, "shares"),
                entry.seat,
                self.elgamal[entry.seat],
                positions,
                context,
            )
        if sealed:
            batches = self.decks.accept_sealed(
                body["sealed"], entry.seat, self.elgamal, sealed, context
            )
            for to, delivered in batches.items():
                round_.delivered.setdefault(to, []).append(delivered)

    def _after_shares(self) -> None:
        round_ = self.shares
        assert round_ is not None
        self.shares = None
        if round_.step == "reveal":
            self._finish_reveal(round_.owners[EVERYONE])
        else:
            self._private_done(round_)
        self._drive()

    # ------------------------------------------- locating a card (7.4, 8.12)

    def _locate(self, step: Locate) -> bool:
        """Start the equality tests ``step`` asks for; True if they wait for entries."""
        if not step.positions:
            assert self.state is not None
            self.state.apply(self.state.identify(step.then, {}))
            return False
        self.locating = LocateRound.plan(step, self.decks)
        self._start_round("blind", range(self.n))
        return True

    def _on_blind(self, entry: Entry, body: dict[str, Any]) -> Blinds:
        exact_fields(body, {"blinds"})
        assert self.locating is not None
        return self.locating.check_blind(
            bytes_field(body, "blinds"),
            entry.seat,
            self.elgamal[entry.seat],
            self.context(BLIND_STEP),
        )

    def _keep_blind(self, seat: int, batch: Blinds) -> None:
        assert self.locating is not None
        self.locating.blinds[seat] = batch

    def _after_blind(self) -> None:
        """Every blinding is in the log: the shares of the joint blinded ciphertexts
        name the blind round's digest, so none comes before every blinding (7.4)."""
        assert self.locating is not None
        self.locating.join()
        self._start_round("unblind", range(self.n))

    def _on_unblind(self, entry: Entry, body: dict[str, Any]) -> tuple[Point, ...]:
        exact_fields(body, {"shares"})
        assert self.locating is not None
        return self.locating.check_unblind(
            bytes_field(body, "shares"),
            entry.seat,
            self.elgamal[entry.seat],
            self.context(UNBLIND_STEP),
        )

    def _keep_unblind(self, seat: int, shares: tuple[Point, ...]) -> None:
        assert self.locating is not None
        self.locating.shares[seat] = shares

    def _after_unblind(self) -> None:
        """Everyone learns which positions hold the card; the engine goes on."""
        locating, state = self.locating, self.state
        assert locating is not None and state is not None
        self.locating = None
        cards = dict.fromkeys(locating.found(), locating.step.card)
        self.decks.revealed.update(cards)
        for seat in range(self.n):
            self.shown.setdefault(seat, set()).update(cards)
        if cards and self.on_round is not None:
            self.on_round(self, {EVERYONE: tuple(cards)})
        state.apply(state.identify(locating.step.then, cards))
        self._drive()

    # ------------------------------------------------------------ chance

    def _on_commit(self, entry: Entry, body: dict[str, Any]) -> bytes:
        exact_fields(body, {"commit"})
        return bytes_field(body, "commit", 32)

    def _keep_commit(self, seat: int, commit: bytes) -> None:
        assert self.draw is not None
        self.draw.commits[seat] = commit

    def _after_commit(self) -> None:
        """Every commitment is in the log: the reveals name the commit round's digest,
        so none can come before every commitment (7.4)."""
        self._start_round("reveal", range(self.n))

    def _draw_context(self) -> Context:
        assert self.draw is not None
        return self.context(f"draw/{self.draw.label}")

    def _on_reveal(self, entry: Entry, body: dict[str, Any]) -> bytes:
        exact_fields(body, {"value"})
        draw = self.draw
        assert draw is not None
        value = bytes_field(body, "value", 32)
        if commitment(value, entry.seat, self._draw_context()) != draw.commits[entry.seat]:
            raise Rejected("commitment", "the revealed value does not open the commitment")
        return value

    def _keep_reveal(self, seat: int, value: bytes) -> None:
        assert self.draw is not None
        self.draw.values[seat] = value

    def _after_reveal(self) -> None:
        draw = self.draw
        assert draw is not None
        values = b"".join(draw.values[s] for s in range(self.n))
        self.seed = (hashlib.sha256(DRAW_DOMAIN + values).digest(), 0)
        self.draw = None
        self._drive()

    def _on_shuffle(self, entry: Entry, body: dict[str, Any]) -> None:
        exact_fields(body, {"deck"})
        step = self.step
        assert isinstance(step, Shuffle) and self.joint is not None
        try:
            result, proof = decode_shuffle(bytes_field(body, "deck"), len(self.deck))
            if not self._own:  # a seat's own shuffle is checked by every other replica
                verify_shuffle(
                    self.deck,
                    result,
                    proof,
                    self.joint,
                    self.context(f"shuffle/{step.deck}/{entry.seat}"),
                    self.elgamal,
                )
        except CryptoError as exc:
            raise Rejected("shuffle-proof", str(exc)) from exc
        self.deck = result
        self._advance_turn(self._after_shuffle)

    def _after_shuffle(self) -> None:
        step, state = self.step, self.state
        assert isinstance(step, Shuffle) and state is not None
        self.decks.install(step.deck, self.deck, step.carry)
        self.deck = ()
        carried = set(step.carry)  # moved into the new deck: those positions are gone
        for shown in (*self.disclosed.values(), *self.shown.values()):
            shown -= {p for p in shown if p.deck == step.deck or p in carried}
        state.apply(step.then)
        self._drive()

    # ------------------------------------------------------------ decisions

    def _decision(self, seat: int, text: Any) -> tuple[Action, tuple[Pos, ...]]:
        """``text`` as the decision ``seat`` may write now, and the positions it reveals.

        The written form is the concealed one (cards by position, 4) and one of the
        seat's legal actions: never an action only the table applies (a deal, a void)."""
        state = self.state
        assert state is not None
        if not isinstance(text, str) or not 1 <= len(text) <= MAX_ACTION:
            raise Rejected("schema", "field 'action' is the decision's notation")
        action = state.parse_action(text)
        positions = state.reveals(seat, action)  # public state only: the same refusal anywhere
        try:  # a replica that knows a card, and one that does not, refuse alike
            written = state.conceal(seat, action)
        except EngineError:
            written = None
        if written != action or str(action) != text:
            raise Rejected("schema", f"{text!r}: a decision names cards by position only")
        legal = {state.conceal(seat, a) for a in state.legal_actions(seat)}
        if action not in legal and not positions:
            state.clone().apply(action)  # the engine's own refusal names its rule
            raise Rejected("decision", f"{text!r} is not a decision of seat {seat} now")
        if positions and action not in legal:
            raise Rejected("decision", f"{text!r} is not a decision of seat {seat} now")
        return action, positions

    def _decide(self, entry: Entry, body: dict[str, Any], extra: set[str], text: Any) -> None:
        """Apply a seat's decision: reveal what it shows (its own shares in ``body``),
        then the engine applies it."""
        action, positions = self._decision(entry.seat, text)
        own = self.decks.missing(entry.seat, positions)
        exact_fields(body, extra | ({"shares"} if own else set()))
        if own:
            self.decks.accept(
                bytes_field(body, "shares"),
                entry.seat,
                self.elgamal[entry.seat],
                own,
                self.context("act"),
            )
        if positions:
            if self._reveal(entry.seat, action, positions):
                return
        else:
            assert self.state is not None
            self.state.apply(action)
        self._drive()

    def _on_act(self, entry: Entry, body: dict[str, Any]) -> None:
        self._decide(entry, body, {"action"}, body.get("action"))

    def _on_seal(self, entry: Entry, body: dict[str, Any]) -> None:
        exact_fields(body, {"commit"})
        step, state = self.step, self.state
        assert isinstance(step, SecretChoice) and state is not None
        commit = bytes_field(body, "commit", 32)
        self.sealed[entry.seat, step.label] = Sealed(commit, self.round_number())
        known = None if self.own_sealed is None else self.own_sealed(entry.seat, commit)
        state.apply(step.sealed if known is None else state.parse_action(known))
        self._drive()

    def _on_unseal(self, entry: Entry, body: dict[str, Any]) -> None:
        step = self.step
        assert isinstance(step, Open)
        sealed = self.sealed.pop((entry.seat, step.label), None)
        if sealed is None:
            raise Rejected("seal", f"seat {entry.seat} sealed no choice {step.label}")
        salt, text = bytes_field(body, "salt", SALT_BYTES), text_field(body, "action", MAX_ACTION)
        context = self.context(f"seal/{step.label}", sealed.round)
        if seal_commitment(context, entry.seat, salt, text) != sealed.commit:
            raise Rejected("commitment", f"the opened {step.label} is not the sealed one")
        self._decide(entry, body, {"salt", "action"}, text)

    # ------------------------------------------------------------ the end of rounds

    def _on_checkpoint(self, entry: Entry, body: dict[str, Any]) -> None:
        exact_fields(body, {"hand", "state"})
        state = self.state
        assert state is not None
        digest = bytes_field(body, "state", 32)
        if type(body["hand"]) is not int or body["hand"] != state.round_number():
            raise Rejected("checkpoint", f"the checkpoint is for round {state.round_number()}")
        if digest != bytes.fromhex(state.state_hash()):
            raise Rejected("checkpoint", "the signed state hash is not the table's")

    def _after_checkpoint(self) -> None:
        assert self.state is not None
        self.round_seen, self.final = self.state.round_number(), self.state.is_terminal()
        self._drive()

    def _on_result(self, entry: Entry, body: dict[str, Any]) -> None:
        exact_fields(body, {"winner", "state"})
        assert self.state is not None
        if body.get("winner") != self.state.winning_team() or bytes_field(
            body, "state", 32
        ) != bytes.fromhex(self.state.state_hash()):
            raise Rejected("result", "the signed result is not the table's")

    def _after_result(self) -> None:
        self.phase = "done"
