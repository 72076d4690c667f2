"""A channel that only the holders of one key can read: keys derived by HKDF-SHA256,
messages sealed with ChaCha20-Poly1305, and the password-authenticated key exchange
(SPAKE2) that turns a short code read aloud into such a key (docs/protocol.md 9.9).

The primitives come from maintained libraries (``cryptography`` for HKDF, HMAC and
the AEAD; ``spake2``, the PAKE of magic-wormhole). Pure once its randomness is passed
in (``seal`` takes the nonce's source; SPAKE2 draws its own scalar from the system).
Knows nothing of tables or games.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from hashlib import sha256

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_A, SPAKE2_B

from trutnet.crypto.errors import CryptoError

KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
PAKE_MESSAGE_BYTES = 33  # a SPAKE2 message: a side byte and an Ed25519 point


def derive(key: bytes, label: str, size: int = KEY_BYTES) -> bytes:
    """HKDF-SHA256 of ``key`` (no salt) for one purpose named by ``label``."""
    return HKDF(hashes.SHA256(), size, salt=None, info=label.encode()).derive(key)


def tag(key: bytes, label: str, data: bytes) -> bytes:
    """HMAC-SHA256 of ``label`` and ``data`` (length-prefixed) under ``key``."""
    message = len(label).to_bytes(2, "big") + label.encode() + data
    return hmac.new(key, message, sha256).digest()


def same(a: bytes, b: bytes) -> bool:
    """Constant-time equality of two byte strings."""
    return hmac.compare_digest(a, b)


def seal(key: bytes, aad: bytes, plaintext: bytes, rng: Callable[[int], bytes]) -> bytes:
    """``nonce || ChaCha20-Poly1305(key, nonce, plaintext, aad)``, a fresh random nonce."""
    nonce = rng(NONCE_BYTES)
    return nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, aad)


def unseal(key: bytes, aad: bytes, sealed: bytes) -> bytes:
    """The plaintext of :func:`seal`'s output; :class:`CryptoError` if it was sealed
    under another key or ``aad``, or changed on the way."""
    if len(sealed) < NONCE_BYTES + TAG_BYTES:
        raise CryptoError("a sealed message is too short")
    nonce, body = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
    try:
        return ChaCha20Poly1305(key).decrypt(nonce, body, aad)
    except InvalidTag:
        raise CryptoError("a sealed message does not open with this key") from None


class Pake:
    """One side of one SPAKE2 exchange over ``password``: ``first`` speaks first (the
    side that asks), and both sides bind ``context`` (the roles and where they meet).
    :meth:`message` is sent; :meth:`finish` takes the other side's and gives the
    shared key, which two sides share only if they used one password."""

    def __init__(self, password: bytes, first: bool, context: bytes) -> None:
        ids = {"idA": b"trutnet ask " + context, "idB": b"trutnet answer " + context}
        self._side = SPAKE2_A(password, **ids) if first else SPAKE2_B(password, **ids)
        self._message = self._side.start()

    def message(self) -> bytes:
        return self._message

    def finish(self, other: bytes) -> bytes:
        """The shared key; :class:`CryptoError` for a message that is not a SPAKE2
        message of the other side."""
        if not isinstance(other, bytes) or len(other) != PAKE_MESSAGE_BYTES:
            raise CryptoError("a key exchange message is 33 bytes")
        try:
            return bytes(self._side.finish(other))
        except Exception as exc:  # untrusted bytes in a library's decoder: anything it
            # raises means "not a message" (SPAKEError, ValueError, NotOnCurve, found by
            # tests/fuzz/fuzz_invitation.py; a crash here would stop a host's invitation)
            raise CryptoError(f"not a key exchange message: {exc}") from None
