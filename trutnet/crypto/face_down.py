"""A card chosen from a public menu, placed face down by one seat, shown to chosen keys.

The menu is a list of card encodings ``M_0 .. M_{n-1}`` (:func:`~.cards.deck_points`).
A seat that chooses ``M_i`` places it face down as an ElGamal ciphertext under ``H``, a
point nobody knows the discrete log of::

    R = r*G,    E = M_i + r*H

``(R, E)`` binds the choice (``R`` fixes ``r``, so ``E`` fixes ``M_i``) and hides it
(DDH). A **menu proof** shows it is one of the menu's cards without saying which: an OR
of ``n`` Chaum-Pedersen proofs that ``log_G(R) = log_H(E - M_j)``, one of them real and
the others simulated, their challenges summing to the transcript's (Cramer, Damgård,
Schoenmakers 1994).

**Showing** the card to a seat B with key ``Y_B`` re-encrypts it under that key::

    R_B = s*G,  E_B = M_i + s*Y_B

with a proof of ``(r, s)`` such that ``R = r*G``, ``R_B = s*G`` and
``E - E_B = r*H - s*Y_B``: everyone checks that B receives the card that lies face down,
so two seats shown one card see the same card. Only B opens it: ``M_i = E_B - x_B*R_B``.

A **draw** decides something about a card once it lies face down, without letting its
owner choose or foresee the outcome: seat C publishes ``V = x_C*P`` where
``P = hash_to_point(context || R || E)``, with a proof that ``log_G(Y_C) = log_P(V)``.
``V`` is unique for C's key and the card (C cannot try again), and nobody without
``x_C`` can compute it (the owner cannot foresee it, and cannot make ``P`` a point
whose multiple would tell it something: ``P`` is a hash). :func:`draw_below` reads an
outcome from it.

Every proof's transcript binds its context (table, round, step), the seats and keys,
the menu and every point, so a proof is valid nowhere else. ``docs/protocol.md`` part 8
gives the byte layout.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from trutnet.crypto.elgamal import KeyPair
from trutnet.crypto.errors import CryptoError, DecodeError, ProofError
from trutnet.crypto.group import (
    ORDER,
    Point,
    RandomBytes,
    base_mul,
    encode_scalar,
    hash_to_point,
    random_scalar,
)
from trutnet.crypto.transcript import Context, Transcript
from trutnet.crypto.wire import Reader

PROTOCOL = "trutnet/v1/face-down"
MAX_MENU = 64
"""Most cards a menu may offer (a bound for whoever decodes a menu proof)."""

H = hash_to_point(b"trutnet/v1/face-down", b"H")


def _menu_transcript(
    context: Context, seat: int, menu: Sequence[Point], r_point: Point, e_point: Point
) -> Transcript:
    transcript = Transcript(PROTOCOL + "/menu", context)
    transcript.append("seat", seat.to_bytes(2, "big"))
    transcript.append_points("menu", menu)
    transcript.append_points("card", [r_point, e_point])
    return transcript


@dataclass(frozen=True, slots=True)
class FaceDown:
    """A card of a menu of ``len(challenges)`` placed face down as ``(R, E)``, with its
    menu proof (one challenge and one response per card of the menu)."""

    r_point: Point
    e_point: Point
    challenges: tuple[int, ...]
    responses: tuple[int, ...]

    def to_bytes(self) -> bytes:
        """``R E`` then ``u8(n)``, the n challenges and the n responses."""
        return b"".join(
            [
                bytes(self.r_point),
                bytes(self.e_point),
                bytes([len(self.challenges)]),
                *(encode_scalar(c) for c in self.challenges),
                *(encode_scalar(z) for z in self.responses),
            ]
        )

    @staticmethod
    def from_bytes(data: bytes) -> FaceDown:
        reader = Reader(data)
        r_point, e_point = reader.point(), reader.point()
        size = reader.u8()
        if not 1 <= size <= MAX_MENU:
            raise DecodeError(f"a menu holds 1..{MAX_MENU} cards")
        challenges, responses = tuple(reader.scalars(size)), tuple(reader.scalars(size))
        reader.end()
        return FaceDown(r_point, e_point, challenges, responses)


def _check_menu(menu: Sequence[Point]) -> None:
    if not 1 <= len(menu) <= MAX_MENU or len(set(menu)) != len(menu):
        raise CryptoError(f"a menu is 1..{MAX_MENU} distinct cards")


def place(
    index: int, menu: Sequence[Point], seat: int, context: Context, rng: RandomBytes
) -> tuple[FaceDown, int]:
    """Card ``index`` of ``menu`` placed face down by ``seat``, and the randomness ``r``
    that its owner keeps to show it later."""
    _check_menu(menu)
    if not 0 <= index < len(menu):
        raise CryptoError("the chosen card is not on the menu")
    r = random_scalar(rng)
    r_point, e_point = base_mul(r), menu[index] + H * r
    transcript = _menu_transcript(context, seat, menu, r_point, e_point)
    challenges, responses, commits = [0] * len(menu), [0] * len(menu), []
    nonce = random_scalar(rng)
    for j, card in enumerate(menu):
        if j == index:
            commits += [base_mul(nonce), H * nonce]
            continue
        challenges[j], responses[j] = random_scalar(rng), random_scalar(rng)
        commits += _menu_commits(r_point, e_point - card, challenges[j], responses[j])
    transcript.append_points("commits", commits)
    total = transcript.challenge("c")
    challenges[index] = (total - sum(challenges)) % ORDER
    responses[index] = (nonce + challenges[index] * r) % ORDER
    return FaceDown(r_point, e_point, tuple(challenges), tuple(responses)), r


def _menu_commits(r_point: Point, difference: Point, challenge: int, response: int) -> list[Point]:
    """The commitments a branch's challenge and response stand for:
    ``z*G - c*R`` and ``z*H - c*(E - M_j)``."""
    neg = ORDER - challenge
    return [base_mul(response) + r_point * neg, H * response + difference * neg]


def verify_face_down(card: FaceDown, menu: Sequence[Point], seat: int, context: Context) -> None:
    """Check that ``card`` (placed by ``seat``) is one of ``menu``'s cards."""
    _check_menu(menu)
    if len(card.challenges) != len(menu) or len(card.responses) != len(menu):
        raise ProofError(f"seat {seat}: the menu proof is not for a menu of {len(menu)}")
    transcript = _menu_transcript(context, seat, menu, card.r_point, card.e_point)
    commits = []
    for j, menu_card in enumerate(menu):
        commits += _menu_commits(
            card.r_point, card.e_point - menu_card, card.challenges[j], card.responses[j]
        )
    if any(c.is_identity for c in commits):
        raise ProofError(f"seat {seat}: the face-down card is not one of the menu's")
    transcript.append_points("commits", commits)
    if transcript.challenge("c") != sum(card.challenges) % ORDER:
        raise ProofError(f"seat {seat}: the face-down card is not one of the menu's")


@dataclass(frozen=True, slots=True)
class Shown:
    """A face-down card re-encrypted to seat ``to`` as ``(R_B, E_B)``, with the proof
    ``(challenge, z_r, z_s)`` that it is the same card."""

    to: int
    r_point: Point
    e_point: Point
    challenge: int
    z_r: int
    z_s: int

    def to_bytes(self) -> bytes:
        """``u8(to) R_B E_B challenge z_r z_s``."""
        return b"".join(
            [
                bytes([self.to]),
                bytes(self.r_point),
                bytes(self.e_point),
                *(encode_scalar(s) for s in (self.challenge, self.z_r, self.z_s)),
            ]
        )

    @staticmethod
    def from_bytes(data: bytes) -> Shown:
        reader = Reader(data)
        to = reader.u8()
        r_point, e_point = reader.point(), reader.point()
        challenge, z_r, z_s = reader.scalars(3)
        reader.end()
        return Shown(to, r_point, e_point, challenge, z_r, z_s)


def _show_transcript(
    context: Context, seat: int, card: FaceDown, to: int, key_to: Point, shown: Sequence[Point]
) -> Transcript:
    transcript = Transcript(PROTOCOL + "/show", context)
    transcript.append("seats", seat.to_bytes(2, "big") + to.to_bytes(2, "big"))
    transcript.append_points("card", [card.r_point, card.e_point])
    transcript.append_points("key", [key_to])
    transcript.append_points("shown", shown)
    return transcript


def show(
    card: FaceDown,
    r: int,
    menu_card: Point,
    to: int,
    key_to: Point,
    seat: int,
    context: Context,
    rng: RandomBytes,
) -> Shown:
    """``seat``'s face-down ``card`` (randomness ``r``, card ``menu_card``) shown to seat
    ``to``, whose public key is ``key_to``."""
    if base_mul(r) != card.r_point or card.e_point != menu_card + H * r:
        raise CryptoError("this is not the card placed face down")
    s = random_scalar(rng)
    r_to, e_to = base_mul(s), menu_card + key_to * s
    transcript = _show_transcript(context, seat, card, to, key_to, [r_to, e_to])
    a, b = random_scalar(rng), random_scalar(rng)
    transcript.append_points("commits", [base_mul(a), base_mul(b), H * a - key_to * b])
    c = transcript.challenge("c")
    return Shown(to, r_to, e_to, c, (a + c * r) % ORDER, (b + c * s) % ORDER)


def verify_shown(shown: Shown, card: FaceDown, key_to: Point, seat: int, context: Context) -> None:
    """Check that ``shown`` carries ``seat``'s face-down ``card`` to the key ``key_to``."""
    neg = ORDER - shown.challenge
    commits = [
        base_mul(shown.z_r) + card.r_point * neg,
        base_mul(shown.z_s) + shown.r_point * neg,
        H * shown.z_r - key_to * shown.z_s + (card.e_point - shown.e_point) * neg,
    ]
    transcript = _show_transcript(
        context, seat, card, shown.to, key_to, [shown.r_point, shown.e_point]
    )
    if any(c.is_identity for c in commits):
        raise ProofError(f"seat {seat}: the card shown to seat {shown.to} is not the one face down")
    transcript.append_points("commits", commits)
    if transcript.challenge("c") != shown.challenge:
        raise ProofError(f"seat {seat}: the card shown to seat {shown.to} is not the one face down")


def open_shown(shown: Shown, key: KeyPair, menu: Sequence[Point]) -> int:
    """The menu index of a card shown to this key (checked with :func:`verify_shown`)."""
    point = shown.e_point - shown.r_point * key.secret
    for index, menu_card in enumerate(menu):
        if point == menu_card:
            return index
    raise ProofError("the card shown is not one of the menu's")


@dataclass(frozen=True, slots=True)
class Draw:
    """Seat ``seat``'s draw ``V`` on a face-down card, with its DLEQ proof."""

    seat: int
    value: Point
    challenge: int
    response: int

    def to_bytes(self) -> bytes:
        """``u8(seat) V challenge response``."""
        return b"".join(
            [
                bytes([self.seat]),
                bytes(self.value),
                encode_scalar(self.challenge),
                encode_scalar(self.response),
            ]
        )

    @staticmethod
    def from_bytes(data: bytes) -> Draw:
        reader = Reader(data)
        seat, value = reader.u8(), reader.point()
        challenge, response = reader.scalars(2)
        reader.end()
        return Draw(seat, value, challenge, response)


def _draw_base(card: FaceDown, context: Context) -> Point:
    message = context.encode() + bytes(card.r_point) + bytes(card.e_point)
    return hash_to_point(PROTOCOL.encode() + b"/draw", message)


def _draw_transcript(
    context: Context, seat: int, public: Point, card: FaceDown, value: Point
) -> Transcript:
    transcript = Transcript(PROTOCOL + "/draw", context)
    transcript.append("seat", seat.to_bytes(2, "big"))
    transcript.append_points("key", [public])
    transcript.append_points("card", [card.r_point, card.e_point])
    transcript.append_points("value", [value])
    return transcript


def draw(card: FaceDown, key: KeyPair, seat: int, context: Context, rng: RandomBytes) -> Draw:
    """``seat``'s draw on ``card``: the one value its key gives for that card."""
    base = _draw_base(card, context)
    value = base * key.secret
    transcript = _draw_transcript(context, seat, key.public, card, value)
    nonce = random_scalar(rng)
    transcript.append_points("commits", [base_mul(nonce), base * nonce])
    c = transcript.challenge("c")
    return Draw(seat, value, c, (nonce + c * key.secret) % ORDER)


def verify_draw(drawn: Draw, card: FaceDown, public: Point, context: Context) -> None:
    """Check that ``drawn`` is the value of seat ``drawn.seat``'s key ``public`` on ``card``."""
    base = _draw_base(card, context)
    neg = ORDER - drawn.challenge
    commits = [base_mul(drawn.response) + public * neg, base * drawn.response + drawn.value * neg]
    if any(c.is_identity for c in commits):
        raise ProofError(f"seat {drawn.seat}: the draw does not verify")
    transcript = _draw_transcript(context, drawn.seat, public, card, drawn.value)
    transcript.append_points("commits", commits)
    if transcript.challenge("c") != drawn.challenge:
        raise ProofError(f"seat {drawn.seat}: the draw does not verify")


def draw_below(drawn: Draw, numerator: int, denominator: int) -> bool:
    """Whether the draw falls below ``numerator / denominator``: ``SHA-512("trutnet/v1/
    face-down/outcome" || V)`` read as an integer, modulo ``denominator`` (bias below
    2^-500 for any denominator up to 2^12)."""
    if not 0 <= numerator <= denominator or not 1 <= denominator <= 4096:
        raise CryptoError("a chance is numerator/denominator with 0 <= n <= d <= 4096")
    digest = hashlib.sha512(PROTOCOL.encode() + b"/outcome" + bytes(drawn.value)).digest()
    return int.from_bytes(digest, "big") % denominator < numerator
