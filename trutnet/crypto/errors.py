"""Errors of the crypto library: every refusal is one of these, never a library's own."""


class CryptoError(Exception):
    """Base class of the crypto library's errors."""


class DecodeError(CryptoError, ValueError):
    """Bytes that are not the canonical encoding of the expected value."""


class ProofError(CryptoError):
    """A proof, signature, commitment or share that does not verify."""
