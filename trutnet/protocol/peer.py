"""One seat at the table: a replica plus that seat's secrets (sans-I/O).

:class:`TablePeer` writes this seat's entries: the automatic ones (keys, commitments,
shuffles, shares, a ``Locate``'s blindings and shares, the opening of its sealed
choices, checkpoints, results) and its decisions (``act``, ``seal``), and decrypts
the positions the table shows it privately (with the shares other viewers of a
position sealed to it).
Its secrets (its ElGamal key, its commit value, the salts and texts of its sealed
choices, the votes it holds to) are saved through ``on_secrets`` before an entry that
depends on them leaves. It knows no game: decisions go through the engine interface
(``parse_action``, ``conceal``, ``reveals``, ``identify``, ``see``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from trutnet.crypto import (
    CryptoError,
    KeyPair,
    encode_shuffle,
    open_sealed,
    own_share,
    shuffle,
)
from trutnet.crypto.group import Point, RandomBytes
from trutnet.crypto.identity import Identity
from trutnet.crypto.randomness import commitment
from trutnet.engine.api import Action, Game
from trutnet.engine.errors import EngineError
from trutnet.engine.hidden import Open, Pos, SecretChoice, Shuffle, Turn
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.commitments import SALT_BYTES, seal_commitment
from trutnet.protocol.entry_types import AUTOMATIC, DECISIONS
from trutnet.protocol.envelope import Entry, parse_entry, sign_entry
from trutnet.protocol.lobby import LobbyError, check_name, table_id_for
from trutnet.protocol.locate import BLIND_STEP, UNBLIND_STEP
from trutnet.protocol.replace import VoteError, coordinator, make_offer, make_vote, partners
from trutnet.protocol.replica import TableReplica
from trutnet.protocol.schema import LocalError, Rejected, detail
from trutnet.protocol.shares import ShareRound


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

    def __init__(
        self,
        identity: Identity,
        seat: int,
        table_id: bytes,
        rng: RandomBytes,
        checked: CheckedProofs | None = None,
    ) -> None:
        self.identity = identity
        self.seat = seat
        self.rng = rng
        self.replica = TableReplica(table_id, checked)
        self.replica.on_private = self._learn
        self.replica.own_sealed = self._own_choice
        self.elgamal = KeyPair.generate(rng)
        self._values: dict[int, bytes] = {}
        self._sealed: dict[bytes, tuple[bytes, str]] = {}  # commitment -> (salt, action)
        self.holds: set[tuple[int, bytes]] = set()  # (stalled seat, head) this seat voted at
        self.on_secrets: Callable[[dict[str, Any]], None] | None = None

    def secrets(self) -> dict[str, Any]:
        """What this seat must keep to resume after a crash (never put in a transcript)."""
        return {
            "seat": self.seat,
            "table": self.replica.table_id.hex(),
            "elgamal": hex(self.elgamal.secret),
            "values": {str(k): v.hex() for k, v in self._values.items()},
            "sealed": sorted([c.hex(), s.hex(), a] for c, (s, a) in self._sealed.items()),
            "holds": sorted([s, h.hex()] for s, h in self.holds),
            # this seat's entry of the unordered round in progress: sent, but in no
            # journal until the round is whole (7.2); written again, it would equivocate
            "held": [w.hex() for w in self.replica.held() if self._own(w)],
        }

    def _own_choice(self, seat: int, commit: bytes) -> str | None:
        """The decision behind this seat's sealed commitment ``commit``, if it made it."""
        kept = self._sealed.get(commit) if seat == self.seat else None
        return None if kept is None else kept[1]

    def _own(self, wire: bytes) -> bool:
        return parse_entry(wire).author == self.identity.public

    def _secrets_changed(self) -> None:
        if self.on_secrets is not None:
            self.on_secrets(self.secrets())

    @classmethod
    def restore(
        cls,
        identity: Identity,
        secrets: dict[str, Any],
        entries: Sequence[bytes],
        rng: RandomBytes,
        checked: CheckedProofs | None = None,
        on_head: Callable[[TableReplica], object] | None = None,
    ) -> TablePeer:
        """A seat back from a crash: its secrets, then its own journal replayed (forks
        included: a void that overrode this seat's entry overrides it again, 7.8), then
        its own entry of the unordered round in progress, if it had sent one.
        ``on_head``: called with the replica after each entry of the journal (what
        follows the log head by head, such as the signs read at each, 9.8)."""
        peer = cls(identity, int(secrets["seat"]), bytes.fromhex(secrets["table"]), rng, checked)
        peer._keep(secrets)
        peer.holds = {(int(s), bytes.fromhex(h)) for s, h in secrets.get("holds", [])}
        for wire in entries:
            peer.receive(wire)
            if on_head is not None:
                on_head(peer.replica)
        for held in secrets.get("held", []):
            # refused if the round is over, or a void cut it short: nothing to keep then
            with contextlib.suppress(Rejected):
                peer.receive(bytes.fromhex(held))
        return peer

    def _keep(self, secrets: dict[str, Any]) -> None:
        """The secrets that show this seat's cards: its ElGamal key, its commitment
        values, its sealed choices."""
        self.elgamal = KeyPair(int(secrets["elgamal"], 16))
        self._values = {int(k): bytes.fromhex(v) for k, v in secrets["values"].items()}
        self._sealed = {
            bytes.fromhex(c): (bytes.fromhex(s), a) for c, s, a in secrets.get("sealed", [])
        }

    @classmethod
    def reader(
        cls, public: bytes, seat: int, table_id: bytes, secrets: dict[str, Any], rng: RandomBytes
    ) -> TablePeer:
        """A seat's peer that only reads: its secrets (:meth:`_keep`'s) show it the
        seat's cards as the log deals them, and it has no key to sign with (a replay of
        a finished game from that seat's view)."""
        peer = cls(_Reader(public), seat, table_id, rng)  # type: ignore[arg-type]
        peer._keep(secrets)
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
        """Decrypt this seat's own positions of a finished private share round."""
        if not 0 <= self.seat < replica.n or replica.seats[self.seat] != self.identity.public:
            return  # not seated (a newcomer, or replaced)
        if replica.elgamal[self.seat] != self.elgamal.public:
            return  # a round from before this seat was re-keyed (7.7): not its cards
        state = replica.state
        assert state is not None
        private: dict[Pos, dict[int, Point]] = {}  # seat -> share, never posted in clear
        for positions, batch in round_.delivered.get(self.seat, ()):  # sealed to this seat
            for pos, share in zip(positions, open_sealed(batch, self.elgamal), strict=True):
                private.setdefault(pos, {})[batch.seat] = share
        for pos in round_.owners.get(self.seat, ()):
            shares = private.setdefault(pos, {})
            shares[self.seat] = own_share(self.elgamal, replica.decks.ciphertext(pos))
            try:
                card = replica.decks.card(pos, shares)
            except CryptoError as exc:  # every share was verified: never happens
                raise Rejected("reveal", f"{pos} decrypts to no card: {exc}") from exc
            state.see(pos, card)

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
        self.replica.receive(entry.wire, own=True)
        if entry.wire in self.replica.held():
            self._secrets_changed()  # kept before it leaves: it is in no journal yet (7.2)
        return entry.wire

    def open_table(
        self,
        game: Game,
        seats: Sequence[bytes],
        names: Sequence[str] | None = None,
        fallbacks: Sequence[str] | None = None,
        *,
        nonce: bytes,
    ) -> bytes:
        """The host's ``open`` entry: the game, its configuration and the seat assignment
        (see :class:`~.lobby.Lobby`); ``nonce`` binds the table id to this seat's key (7.10)."""
        if table_id_for(self.identity.public, nonce) != self.replica.table_id:
            raise ValueError("this table id is not bound to this host's key and nonce")
        count = len(seats)
        body = {
            "nonce": bytes(nonce),
            "game": game.name,
            "config": game.config_dict(),
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
        log, replica = self.replica.log, self.replica
        index = log.index_of(head)
        if replica.state is None or index is None or index + 1 == len(log):
            return "pending"
        after = log.entries[index + 1 :]
        at_head = {e.seat for e in after if e.prev == head}  # the stalled seat's step
        beyond = {e.seat for e in after if e.prev != head}
        chief = coordinator(stalled, replica.team_of)
        if stalled not in at_head or chief == self.seat or chief in beyond:
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
        kinds = self.replica.kinds_for(self.seat)
        if not kinds or kinds[0] not in AUTOMATIC:
            return None
        return self._sign(kinds[0], self._automatic(kinds[0]))

    def outbox(self) -> list[bytes]:
        """Every automatic entry that is this seat's to write now, in order."""
        out: list[bytes] = []
        while (wire := self.next_automatic()) is not None:
            out.append(wire)
        return out

    def _automatic(self, kind: str) -> dict[str, Any]:
        replica = self.replica
        state = replica.state
        if kind == "keys":
            proof = self.elgamal.prove(replica.context("keys"), self.seat, self.rng)
            return {"key": bytes(self.elgamal.public), "proof": proof.to_bytes()}
        if kind == "commit":
            value = self.rng(32)
            self._values[self.seat] = value
            self._secrets_changed()  # kept before the commitment leaves this seat
            draw = replica.draw
            assert draw is not None
            return {"commit": commitment(value, self.seat, replica.context(f"draw/{draw.label}"))}
        if kind == "reveal":
            return {"value": self._values[self.seat]}
        if kind == "shuffle":
            step = replica.step
            assert isinstance(step, Shuffle) and replica.joint is not None
            result, proof = shuffle(
                replica.deck,
                replica.joint,
                replica.context(f"shuffle/{step.deck}/{self.seat}"),
                replica.elgamal,
                self.rng,
            )
            return {"deck": encode_shuffle(result, proof)}
        if kind == "shares":
            return self._shares()
        if kind in ("blind", "unblind"):  # a Locate's equality tests (8.12)
            locating = replica.locating
            assert locating is not None
            if kind == "blind":
                context = replica.context(BLIND_STEP)
                return {
                    "blinds": locating.make_blind(self.elgamal.public, self.seat, context, self.rng)
                }
            context = replica.context(UNBLIND_STEP)
            return {"shares": locating.make_unblind(self.elgamal, self.seat, context, self.rng)}
        if kind == "unseal":
            return self._unseal()
        assert state is not None
        if kind == "checkpoint":
            return {"hand": state.round_number(), "state": bytes.fromhex(state.state_hash())}
        return {"winner": state.winning_team(), "state": bytes.fromhex(state.state_hash())}

    def _shares(self) -> dict[str, Any]:
        """This seat's entry in a share round: its shares in the clear, and those it
        seals to a seat that is shown a position this seat was shown too (8.8)."""
        replica = self.replica
        round_ = replica.shares
        assert round_ is not None
        context, decks = replica.context(round_.step), replica.decks
        body: dict[str, Any] = {}
        positions = round_.positions_for(self.seat)
        if positions:
            batch = decks.make(self.elgamal, self.seat, positions, context, self.rng)
            body["shares"] = batch.to_bytes()
        sealed = round_.sealed_for(self.seat)
        if sealed:
            body["sealed"] = [
                decks.seal(
                    self.elgamal, self.seat, replica.elgamal[to], to, ps, context, self.rng
                ).to_bytes()
                for to, ps in sealed.items()
            ]
        return body

    def _unseal(self) -> dict[str, Any]:
        replica = self.replica
        step = replica.step
        assert isinstance(step, Open)
        sealed = replica.sealed.get((self.seat, step.label))
        opened = None if sealed is None else self._sealed.get(sealed.commit)
        if opened is None:  # lost with a crash before it was saved: nothing to open
            raise LocalError("seal", f"this seat does not know its sealed {step.label}")
        salt, text = opened
        assert replica.state is not None
        return self._with_shares({"salt": salt, "action": text}, replica.state.parse_action(text))

    def _with_shares(self, body: dict[str, Any], action: Action) -> dict[str, Any]:
        """``body`` with this seat's own shares of the positions ``action`` reveals."""
        replica = self.replica
        assert replica.state is not None
        own = replica.decks.missing(self.seat, replica.state.reveals(self.seat, action))
        if own:
            batch = replica.decks.make(
                self.elgamal, self.seat, own, replica.context("act"), self.rng
            )
            body["shares"] = batch.to_bytes()
        return body

    # -- replacing a stalled seat (7.7)

    def _stall_point(self, stalled: int, void: bool) -> int:
        replica = self.replica
        allowed = replica.can_void(stalled) if void else replica.can_abandon(stalled)
        if replica.state is None or not allowed:
            raise LocalError("void", f"the table is not waiting for seat {stalled} in a game")
        return replica.round_number()

    def offer(self, stalled: int, name: str) -> bytes:
        """As a newcomer: a signed offer to take ``stalled`` with this peer's own keys."""
        replica = self.replica
        if self.identity.public in replica.seats or self.replaced():
            raise LocalError("offer", "a seated (or replaced) player cannot take a seat")
        hand = self._stall_point(stalled, True)
        if not partners(stalled, replica.team_of):
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
        hand = self._stall_point(stalled, taker is not None)
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
        """Whether the game waits for this seat's decision (a turn, or a sealed choice)."""
        if not self.seated() or self.holding():
            return False
        kinds = self.replica.kinds_for(self.seat)
        return bool(kinds) and kinds[0] in DECISIONS

    def act(self, text: str) -> bytes:
        """This seat's decision in the game's notation (``play 7h``, ``bet 1``...).

        Written as the engine conceals it (cards by position); a decision that shows
        cards carries this seat's own shares of them (7.4); a sealed choice is written
        as a commitment only. Raises :class:`LocalError` (nothing signed, nothing
        changed) if it is not this seat's decision now or the rules forbid it.
        """
        if not self.decide():
            raise LocalError("turn", "this seat has no decision to make now")
        replica = self.replica
        state, step = replica.state, replica.step
        assert state is not None
        try:
            action = state.parse_action(text)
            written = state.conceal(self.seat, action)
            positions = state.reveals(self.seat, written)
            cards = {p: c for p in positions if (c := state.identity_of(p)) is not None}
            legal = {state.conceal(self.seat, a) for a in state.legal_actions(self.seat)}
            probe = state.clone()  # the rules judge a copy: nothing changes here
            if isinstance(step, SecretChoice):
                probe.apply(action)  # a state accepts the choice itself when sealing it
            elif len(cards) == len(positions):  # a card it does not know: the table judges
                probe.apply(probe.identify(written, cards))
        except EngineError as exc:
            raise LocalError(getattr(exc, "rule", "notation"), detail(exc)) from exc
        if written not in legal:  # the engine took it: an action only the table applies
            raise LocalError("decision", f"{text} is not a decision of this seat now")
        if isinstance(step, SecretChoice):
            salt = self.rng(SALT_BYTES)
            context = replica.context(f"seal/{step.label}")
            commit = seal_commitment(context, self.seat, salt, str(written))
            self._sealed[commit] = (salt, str(written))
            self._secrets_changed()  # the choice is kept before its commitment leaves
            return self._sign("seal", {"commit": commit})
        assert isinstance(step, Turn)
        return self._sign("act", self._with_shares({"action": str(written)}, written))


class _Reader:
    """A seat's public key with no secret key: a peer built on it reads and never signs."""

    def __init__(self, public: bytes) -> None:
        self.public = public

    def sign(self, message: bytes) -> bytes:
        raise LocalError("sign", "a seat's view only reads: it signs nothing")
