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
* a ``Reveal``, a public share round for the shares not yet posted;
* a ``JointRandom`` (a commit-reveal) and a ``Locate`` (equality tests):
  :mod:`.joint_rounds`;
* a ``Turn``, the seat's ``act``; a ``SecretChoice``, its ``seal``; an ``Open``, its
  ``unseal``: :mod:`.decisions`.

Between rounds (``round_number()`` moves on) and at the end every seat signs a
``checkpoint``; the end is followed by every seat's ``result``. While the table waits
for a seat, the coordinator may write ``void`` or ``abandon`` (7.7, :mod:`.replace`).

The steps that need no seat order are **unordered rounds** (7.2, :mod:`.unordered`);
a stalled seat is :mod:`.stalled`. Each of these modules is a part of
:class:`TableReplica`. The shuffle and the decisions stay one entry at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from trutnet.crypto import (
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
from trutnet.protocol.checked import CheckedProofs, deck_bytes, statement
from trutnet.protocol.commitments import JointDraw, Sealed, draw_index
from trutnet.protocol.decisions import SeatDecisions
from trutnet.protocol.entry_types import size_limit
from trutnet.protocol.envelope import PROTOCOL_VERSION, Entry, MessageError, parse_entry
from trutnet.protocol.joint_rounds import JointRounds
from trutnet.protocol.lobby import LobbyError
from trutnet.protocol.locate import LocateRound
from trutnet.protocol.log import OVERRIDES, LogError, TableLog, equivocation_blame
from trutnet.protocol.opening import read_open
from trutnet.protocol.replace import SeatChange, coordinator
from trutnet.protocol.rounds import OpenRound
from trutnet.protocol.schema import (
    Rejected,
    bytes_field,
    detail,
    exact_fields,
)
from trutnet.protocol.shares import EVERYONE, DeckLedger, ShareRound
from trutnet.protocol.stalled import StalledSeats
from trutnet.protocol.unordered import UnorderedRounds


class TableReplica(StalledSeats, UnorderedRounds, JointRounds, SeatDecisions):
    """Validates and applies table entries; holds no secret."""

    def __init__(self, table_id: bytes, checked: CheckedProofs | None = None) -> None:
        self.table_id = table_id
        # the proofs checked by this process's replicas (one trust domain): each once
        self.checked = CheckedProofs() if checked is None else checked
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
        self.decks = DeckLedger((), self.checked)
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
        if any(e.wire == wire for e in self.log.entries[-64:]):
            return None  # one it holds (a duplicate, a sync's overlap): not read again
        entry = self._admit(wire)
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

    def _admit(self, wire: bytes) -> Entry:
        """``wire`` parsed, of a known type within its size, signed by its seat's key (a
        seated player who signs as another seat is blamed)."""
        try:
            entry = parse_entry(wire, self.table_id, self.checked)
        except MessageError as exc:
            raise Rejected(exc.rule, detail(exc)) from exc
        limit = size_limit(entry.type, self.decks, self.locating)
        if limit is None:
            raise Rejected("schema", f"unknown entry type {entry.type!r}")
        if len(entry.wire) > limit:
            raise Rejected("size", f"{entry.type} entry of {len(entry.wire)} bytes (limit {limit})")
        if self.seats and (entry.seat >= self.n or self.seats[entry.seat] != entry.author):
            blame = None
            if entry.author in self.seats:  # a seated player forging another seat's entry
                forger = self.seats.index(entry.author)
                why = f"seat {forger} signed an entry as seat {entry.seat}"
                blame = Blame(forger, "identity", why, (entry.wire,))
                self.blames.append(blame)
            why = f"entry signed by a key that is not seat {entry.seat}'s"
            raise Rejected("identity", why, blame)
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
        opening = read_open(entry, body, self.table_id, self.checked)
        self.seats, self.names, self.fallbacks = opening.seats, opening.names, opening.fallbacks
        self.game, self.state, self.decks = opening.game, opening.state, opening.decks
        self.team_of = opening.team_of
        self.round_seen = opening.state.round_number()
        self._start_round("keys", range(len(opening.seats)))

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

    # ------------------------------------------------------------ chance

    def _on_shuffle(self, entry: Entry, body: dict[str, Any]) -> None:
        exact_fields(body, {"deck"})
        step = self.step
        assert isinstance(step, Shuffle) and self.joint is not None
        data = bytes_field(body, "deck")
        context = self.context(f"shuffle/{step.deck}/{entry.seat}")
        keys = [bytes(key) for key in self.elgamal]
        said = statement(
            "shuffle", context.encode(), bytes(self.joint), *keys, deck_bytes(self.deck), data
        )
        try:
            result, proof = self.checked.decoded(data, len(self.deck), decode_shuffle)
            if self._own:  # a seat's own shuffle is checked by every other replica
                self.checked.vouch(said)
            else:
                check = partial(
                    verify_shuffle, self.deck, result, proof, self.joint, context, self.elgamal
                )
                self.checked.once(said, check)
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
