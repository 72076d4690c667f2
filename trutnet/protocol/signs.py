"""Signs (``docs/protocol.md`` 9.8), sans-I/O: a seat tells its partners one card of a
menu, off turn, and the opponents' draws decide who catches it.

The game describes what a seat may sign at each head of the log
(``GameState.signs``, :class:`~trutnet.engine.hidden.Signs`); nothing here names a
game. Three entry-shaped messages, signed and published on the table's ``signs``
topic, never part of the log (the game goes on around them):

* ``sign`` from the signer, naming the head it signed at: ``{"card": FaceDown,
  "shown": [Shown per partner, in the description's order]}``: the card face down
  with its menu proof, and re-encrypted to each partner (:mod:`trutnet.crypto.
  face_down`). ``seq`` counts the signer's signs (0, 1, ...).
* ``catch`` from each watcher the description names: ``{"sign": id, "draw": Draw}``,
  the one value its key gives on that card; below the chance, it caught the sign.
* ``show`` from the signer once a watcher caught it: ``{"sign": id, "shown":
  [Shown]}``, the card re-encrypted to that catcher.

Every peer checks every proof, so everyone knows that a sign was made, by whom, who
caught it, and that every seat shown it was shown the same card; only those seats
open it. A sign is refused when its head says the seat may not sign there, when it
is over the period's limit, or when its ``seq`` was used by another sign (the first
one counts). The board keeps every message it accepted, for the transcript.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from trutnet.crypto import Context, CryptoError, DecodeError, KeyPair, Point
from trutnet.crypto.cards import deck_points
from trutnet.crypto.face_down import (
    Draw,
    FaceDown,
    Shown,
    draw,
    draw_below,
    open_shown,
    place,
    show,
    verify_draw,
    verify_face_down,
    verify_shown,
)
from trutnet.crypto.group import RandomBytes
from trutnet.crypto.identity import Identity
from trutnet.engine.hidden import Signs
from trutnet.protocol.checked import CheckedProofs, statement
from trutnet.protocol.envelope import MessageError, parse_entry, sign_entry
from trutnet.protocol.untrusted import UntrustedInput

SIGN_TYPE, CATCH_TYPE, SHOW_TYPE = "sign", "catch", "show"
MAX_SIGN_BYTES = 8192  # one signed message on the wire (a menu of 64 fits)
HEADS_KEPT = 256  # heads whose descriptions are kept (a sign naming an older one is late)
MAX_PENDING = 64  # messages held for a head or a sign not seen yet
MAX_SIGNS = 1024  # signs kept

Describe = Callable[[int], Signs | None]


def sign_id(wire: bytes) -> bytes:
    return hashlib.sha256(b"trutnet/v1/sign-id" + wire).digest()


@dataclass
class Sign:
    """One sign a peer accepted: who signed, where, what may be known of it."""

    id: bytes
    seat: int
    seq: int
    head: bytes
    rules: Signs
    card: FaceDown
    context: Context
    caught: dict[int, bool] = field(default_factory=dict)  # watcher -> caught it
    shown: dict[int, Shown] = field(default_factory=dict)  # seat -> the card shown it
    wires: list[bytes] = field(default_factory=list)  # sign, catches, shows

    def recipients(self) -> tuple[int, ...]:
        """Who is (to be) shown the card: the partners, then the catchers so far."""
        return self.rules.partners + tuple(s for s, c in sorted(self.caught.items()) if c)


@dataclass(frozen=True)
class SignNews:
    """What one accepted message tells: ``kind`` ``sign`` (``seat`` signed),
    ``catch`` (``by`` drew, ``caught``), ``show`` (``by`` was shown it)."""

    kind: str
    sign: Sign
    by: int | None = None
    caught: bool = False

    @property
    def what(self) -> str:
        """The news in a screen's words: ``made``, ``caught``, ``missed`` or ``shown``."""
        if self.kind == SIGN_TYPE:
            return "made"
        if self.kind == CATCH_TYPE:
            return "caught" if self.caught else "missed"
        return "shown"


class SignBoard:
    """What one peer makes of a table's signs. Pure: the caller feeds it the heads of
    its log (:meth:`note_head`) and the messages from the network (:meth:`receive`),
    and asks it for its own seats' messages (:meth:`make`, :meth:`duties`)."""

    def __init__(
        self,
        table_id: bytes,
        context: Callable[[str, int], Context],
        checked: CheckedProofs | None = None,
    ) -> None:
        self.table_id = table_id
        # the proofs and signatures checked (each once; shared only within one trust
        # domain, as :class:`CheckedProofs` says)
        self.checked = CheckedProofs() if checked is None else checked
        self._context = context
        self._heads: OrderedDict[bytes, dict[int, Signs]] = OrderedDict()
        self.signs: OrderedDict[bytes, Sign] = OrderedDict()
        self._by_seq: dict[tuple[int, int], bytes] = {}
        self._pending: OrderedDict[bytes, None] = OrderedDict()
        self._seen: set[bytes] = set()
        self.refused = 0  # messages refused (for a screen or a test to read)
        self._keys: tuple[Mapping[int, Point], list[bytes]] | None = None

    # ------------------------------------------------------------ the log's heads

    def note_head(self, head: bytes, seats: int, describe: Describe) -> list[SignNews]:
        """The log reached ``head``: what each seat may sign there. Messages held for
        it are read now; the news they make."""
        if head in self._heads:
            return []
        rules = {}
        for seat in range(seats):
            described = describe(seat)
            if described is not None:
                rules[seat] = described
        self._heads[head] = rules
        while len(self._heads) > HEADS_KEPT:
            self._heads.popitem(last=False)
        return self._retry()

    def may_sign(self, head: bytes, seat: int) -> Signs | None:
        """What ``seat`` may sign at ``head`` (None: nothing, or a head not reached)."""
        rules = self._heads.get(head, {}).get(seat)
        if rules is None or self._count(seat, rules.period) >= rules.limit:
            return None
        return rules

    def _count(self, seat: int, period: int) -> int:
        return sum(1 for s in self.signs.values() if s.seat == seat and s.rules.period == period)

    # ------------------------------------------------------------ reading

    def receive(
        self, wire: Any, publics: Mapping[int, Point], seats: list[bytes]
    ) -> list[SignNews]:
        """One message from the network (``publics``: each seat's ElGamal key,
        ``seats``: each seat's signing key): the news it makes (none when it waits for
        a head or a sign not seen yet, or was read already); :class:`UntrustedInput` for
        one that may not count (nothing changes)."""
        self._keys = (publics, seats)
        news = self._take(wire)
        return news + self._retry() if news else news

    def _take(self, wire: Any) -> list[SignNews]:
        if not isinstance(wire, bytes) or len(wire) > MAX_SIGN_BYTES:
            raise UntrustedInput(f"a sign message is at most {MAX_SIGN_BYTES} bytes")
        try:
            entry = parse_entry(wire, self.table_id, self.checked)
        except MessageError as exc:
            raise UntrustedInput(f"not a signed sign message: {exc}") from exc
        if entry.wire in self._seen:
            return []
        assert self._keys is not None
        seats = self._keys[1]
        if not 0 <= entry.seat < len(seats) or seats[entry.seat] != entry.author:
            raise UntrustedInput("a sign message from a key that does not hold its seat")
        try:
            news = self._read(entry)
        except (CryptoError, DecodeError, KeyError, TypeError, ValueError) as exc:
            self.refused += 1
            what = f"a bad {entry.type} message from seat {entry.seat}: {exc}"
            raise UntrustedInput(what) from exc
        if news is None:  # waits for the head or the sign it names
            self._pending[entry.wire] = None
            while len(self._pending) > MAX_PENDING:
                self._pending.popitem(last=False)
            return []
        self._seen.add(entry.wire)
        return news

    def _retry(self) -> list[SignNews]:
        """Read the held messages that can be read now, until none can."""
        news: list[SignNews] = []
        progress = self._keys is not None
        while progress:
            progress = False
            for wire in list(self._pending):
                del self._pending[wire]
                try:
                    got = self._take(wire)
                except UntrustedInput:
                    continue
                news += got
                progress = progress or bool(got)
        return news

    def _read(self, entry: Any) -> list[SignNews] | None:
        body = entry.body
        if entry.type == SIGN_TYPE:
            return self._read_sign(entry, body)
        if entry.type not in (CATCH_TYPE, SHOW_TYPE) or not isinstance(body.get("sign"), bytes):
            raise ValueError("a sign message is a sign, a catch or a show")
        sign = self.signs.get(body["sign"])
        if sign is None:
            return None
        if entry.type == CATCH_TYPE:
            return self._read_catch(entry, body, sign)
        return self._read_show(entry, body, sign)

    def _read_sign(self, entry: Any, body: dict[str, Any]) -> list[SignNews] | None:
        if set(body) != {"card", "shown"} or not isinstance(body["shown"], list):
            raise ValueError("a sign is its card and the cards shown to the partners")
        if entry.prev not in self._heads:
            return None
        rules = self.may_sign(entry.prev, entry.seat)
        if rules is None:
            raise ValueError("this seat may not sign there (the game, or its limit)")
        if (entry.seat, entry.seq) in self._by_seq or len(self.signs) >= MAX_SIGNS:
            raise ValueError(f"sign {entry.seq} of this seat was made already")
        context = self._context(f"sign/{entry.seat}/{entry.seq}", rules.period)
        card = FaceDown.from_bytes(body["card"])
        menu = deck_points(rules.menu.name, len(rules.menu))
        said = statement(
            "sign",
            context.encode(),
            rules.menu.name.encode(),
            len(menu).to_bytes(2, "big"),
            entry.seat.to_bytes(1, "big"),
            body["card"],
        )
        self.checked.once(said, partial(verify_face_down, card, menu, entry.seat, context))
        sign = Sign(sign_id(entry.wire), entry.seat, entry.seq, entry.prev, rules, card, context)
        self._check_shown(sign, body["shown"], rules.partners)
        sign.wires.append(entry.wire)
        self.signs[sign.id] = sign
        self._by_seq[(entry.seat, entry.seq)] = sign.id
        return [SignNews(SIGN_TYPE, sign)]

    def _publics_of(self, seat: int) -> Point:
        assert self._keys is not None
        return self._keys[0][seat]

    def _check_shown(self, sign: Sign, wires: list[Any], to: tuple[int, ...]) -> None:
        if len(wires) != len(to):
            raise ValueError("one card shown to each seat it is for")
        for seat, data in zip(to, wires, strict=True):
            shown = Shown.from_bytes(data)
            if shown.to != seat or seat in sign.shown:
                raise ValueError("a card shown to the wrong seat")
            public = self._publics_of(seat)
            said = statement(
                "sign-shown",
                sign.context.encode(),
                sign.card.to_bytes(),
                bytes(public),
                sign.seat.to_bytes(1, "big"),
                data,
            )
            self.checked.once(
                said, partial(verify_shown, shown, sign.card, public, sign.seat, sign.context)
            )
            sign.shown[seat] = shown

    def _read_catch(self, entry: Any, body: dict[str, Any], sign: Sign) -> list[SignNews]:
        if set(body) != {"sign", "draw"} or entry.seat not in sign.rules.watchers:
            raise ValueError("a catch is a watcher's draw on a sign")
        if entry.seat in sign.caught:
            raise ValueError("this watcher drew on this sign already")
        drawn = Draw.from_bytes(body["draw"])
        if drawn.seat != entry.seat:
            raise ValueError("a draw of another seat")
        public = self._publics_of(entry.seat)
        said = statement(
            "sign-draw", sign.context.encode(), sign.card.to_bytes(), bytes(public), body["draw"]
        )
        self.checked.once(said, partial(verify_draw, drawn, sign.card, public, sign.context))
        caught = draw_below(drawn, *sign.rules.catch)
        sign.caught[entry.seat] = caught
        sign.wires.append(entry.wire)
        return [SignNews(CATCH_TYPE, sign, entry.seat, caught)]

    def _read_show(self, entry: Any, body: dict[str, Any], sign: Sign) -> list[SignNews] | None:
        if set(body) != {"sign", "shown"} or entry.seat != sign.seat:
            raise ValueError("a show is the signer's")
        if not isinstance(body["shown"], list) or len(body["shown"]) != 1:
            raise ValueError("a show shows the card to one catcher")
        catcher = Shown.from_bytes(body["shown"][0]).to
        if catcher not in sign.caught:
            return None  # its catch has not come yet
        if not sign.caught[catcher]:
            raise ValueError("a card shown to a watcher that did not catch it")
        self._check_shown(sign, body["shown"], (catcher,))
        sign.wires.append(entry.wire)
        return [SignNews(SHOW_TYPE, sign, catcher)]

    # ------------------------------------------------------------ this peer's seats

    def make(
        self,
        identity: Identity,
        seat: int,
        head: bytes,
        index: int,
        rng: RandomBytes,
        publics: Mapping[int, Point],
    ) -> tuple[bytes, int]:
        """``seat``'s sign of menu card ``index`` at ``head``: the wire to publish and the
        card's randomness (kept, to show it to the catchers). :class:`ValueError` when
        the seat may not sign there."""
        rules = self.may_sign(head, seat)
        if rules is None:
            raise ValueError("this seat may not sign now")
        seq = 1 + max((s.seq for s in self.signs.values() if s.seat == seat), default=-1)
        context = self._context(f"sign/{seat}/{seq}", rules.period)
        menu = deck_points(rules.menu.name, len(rules.menu))
        card, r = place(index, menu, seat, context, rng)
        shown = [
            show(card, r, menu[index], to, publics[to], seat, context, rng).to_bytes()
            for to in rules.partners
        ]
        body = {"card": card.to_bytes(), "shown": shown}
        wire = sign_entry(
            identity,
            table=self.table_id,
            seat=seat,
            seq=seq,
            prev=head,
            type=SIGN_TYPE,
            body=body,
        ).wire
        return wire, r

    def catch(
        self, identity: Identity, key: KeyPair, seat: int, sign: Sign, rng: RandomBytes
    ) -> bytes:
        """Watcher ``seat``'s draw on ``sign``."""
        drawn = draw(sign.card, key, seat, sign.context, rng)
        body = {"sign": sign.id, "draw": drawn.to_bytes()}
        return sign_entry(
            identity,
            table=self.table_id,
            seat=seat,
            seq=sign.seq,
            prev=sign.head,
            type=CATCH_TYPE,
            body=body,
        ).wire

    def show_to(
        self,
        identity: Identity,
        sign: Sign,
        r: int,
        index: int,
        catcher: int,
        key_to: Point,
        rng: RandomBytes,
    ) -> bytes:
        """The signer's card of ``sign`` (its randomness ``r``, menu card ``index``)
        shown to ``catcher``."""
        menu = deck_points(sign.rules.menu.name, len(sign.rules.menu))
        shown = show(sign.card, r, menu[index], catcher, key_to, sign.seat, sign.context, rng)
        body = {"sign": sign.id, "shown": [shown.to_bytes()]}
        return sign_entry(
            identity,
            table=self.table_id,
            seat=sign.seat,
            seq=sign.seq,
            prev=sign.head,
            type=SHOW_TYPE,
            body=body,
        ).wire

    def read(self, sign: Sign, seat: int, key: KeyPair) -> str | None:
        """The notation of ``sign``'s card, if it was shown to ``seat`` (with ``key``)."""
        shown = sign.shown.get(seat)
        if shown is None:
            return None
        menu = deck_points(sign.rules.menu.name, len(sign.rules.menu))
        return sign.rules.menu.cards[open_shown(shown, key, menu)]

    def wires(self) -> list[bytes]:
        """Every accepted message, sign by sign (for the transcript)."""
        return [w for sign in self.signs.values() for w in sign.wires]


class SignFeed:
    """A transcript's sign messages, read along a replay of its log: each once the
    replay reaches the head it names (a sign's draws and shows name the sign's head).
    :attr:`failure`: what is wrong with the first message refused (None: none)."""

    def __init__(self, table_id: bytes, wires: Sequence[bytes]) -> None:
        self.board: SignBoard | None = None
        self.failure: str | None = None
        self.waiting: dict[bytes, list[tuple[int, bytes]]] = {}
        for number, wire in enumerate(wires):
            try:
                prev = parse_entry(wire, table_id).prev
            except MessageError as exc:
                self._fail(number, str(exc))
                continue
            self.waiting.setdefault(prev, []).append((number, wire))

    def _fail(self, number: int, why: str) -> None:
        if self.failure is None:
            self.failure = f"sign message {number}: {why}"

    def step(self, replica: Any) -> list[SignNews]:
        """The replay's ``replica`` has a new head: the news of the messages read there."""
        if replica.state is None:
            return []
        if self.board is None:
            self.board = SignBoard(replica.table_id, replica.context)
        news = self.board.note_head(replica.log.head, replica.n, replica.state.signs)
        keys = (dict(enumerate(replica.elgamal)), list(replica.seats))
        for number, wire in self.waiting.pop(replica.log.head, []):
            try:
                news += self.board.receive(wire, *keys)
            except UntrustedInput as exc:
                self._fail(number, str(exc))
        return news

    def end(self) -> None:
        """The replay is over: a message still waiting names a head the log never had."""
        for held in self.waiting.values():
            for number, _wire in held:
                self._fail(number, "it names a head that is not in the log")
