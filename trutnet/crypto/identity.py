"""Player identities: Ed25519 keys (``cryptography``), signatures, fingerprints.

Pure: keys go in and out as bytes. Writing key files (mode 0600) is the job of
:mod:`trutnet.keystore`, at the I/O edge.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from trutnet.crypto.errors import DecodeError, ProofError
from trutnet.crypto.group import RandomBytes

PUBLIC_BYTES = 32
SIGNATURE_BYTES = 64


def fingerprint(public: bytes) -> str:
    """A short, readable fingerprint for people to compare: 80 bits of SHA-256, base32,
    in groups of four (``ABCD-EFGH-IJKL-MNOP``)."""
    text = base64.b32encode(hashlib.sha256(b"trutnet/v1/fp" + public).digest()[:10]).decode()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def decode_public(data: bytes) -> Ed25519PublicKey:
    if not isinstance(data, bytes | bytearray) or len(data) != PUBLIC_BYTES:
        raise DecodeError(f"an identity key is {PUBLIC_BYTES} bytes")
    try:
        return Ed25519PublicKey.from_public_bytes(bytes(data))
    except ValueError as exc:
        raise DecodeError("not an Ed25519 public key") from exc


def verify(public: bytes, signature: bytes, message: bytes) -> None:
    """Check an Ed25519 signature; raise ProofError if it does not verify."""
    if not isinstance(signature, bytes | bytearray) or len(signature) != SIGNATURE_BYTES:
        raise DecodeError(f"a signature is {SIGNATURE_BYTES} bytes")
    try:
        decode_public(public).verify(bytes(signature), message)
    except InvalidSignature as exc:
        raise ProofError("bad signature") from exc


class Identity:
    """A player's signing key. ``repr`` and ``str`` never show the secret."""

    __slots__ = ("_key", "public")

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public: bytes = key.public_key().public_bytes_raw()

    @classmethod
    def generate(cls, rng: RandomBytes) -> Identity:
        return cls.from_seed(rng(32))

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        if len(seed) != 32:
            raise DecodeError("an Ed25519 seed is 32 bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    def seed(self) -> bytes:
        """The 32-byte secret seed, for the key store only."""
        return self._key.private_bytes_raw()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"
