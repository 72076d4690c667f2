"""Mental poker: verifiable shuffles, proven reveals (shares in the clear, or sealed to
one seat), plaintext-equality tests, joint dice, identities.

Pure and deterministic once its randomness (a ``RandomBytes`` callable such as
``os.urandom``) is passed in; no I/O; knows nothing of any game. A deck is a list of
card *indices* to it. ``docs/protocol.md`` part 8 specifies every encoding and
transcript.
"""

from trutnet.crypto.cards import BUILTIN_DECKS, CardTable, deck_points
from trutnet.crypto.drbg import SeededRandom
from trutnet.crypto.elgamal import (
    Ciphertext,
    Deck,
    KeyPair,
    KeyProof,
    decode_deck,
    encode_deck,
    joint_key,
    open_deck,
    verify_key,
)
from trutnet.crypto.equality import Blinds, blind, blinded, equal, verify_blinds
from trutnet.crypto.errors import CryptoError, DecodeError, ProofError
from trutnet.crypto.group import G, Point, decode_point, decode_scalar, hash_to_point
from trutnet.crypto.identity import Identity, fingerprint
from trutnet.crypto.sealed import SealedShares, open_sealed, seal_shares, verify_sealed
from trutnet.crypto.shares import ShareBatch, combine, make_shares, own_share, verify_shares
from trutnet.crypto.shuffle import (
    ShuffleProof,
    decode_shuffle,
    encode_shuffle,
    shuffle,
    verify_shuffle,
)
from trutnet.crypto.transcript import Context, Transcript

__all__ = [
    "BUILTIN_DECKS",
    "Blinds",
    "CardTable",
    "Ciphertext",
    "Context",
    "CryptoError",
    "Deck",
    "DecodeError",
    "G",
    "Identity",
    "KeyPair",
    "KeyProof",
    "Point",
    "ProofError",
    "SealedShares",
    "SeededRandom",
    "ShareBatch",
    "ShuffleProof",
    "Transcript",
    "blind",
    "blinded",
    "combine",
    "deck_points",
    "decode_deck",
    "decode_point",
    "decode_scalar",
    "decode_shuffle",
    "encode_deck",
    "encode_shuffle",
    "equal",
    "fingerprint",
    "hash_to_point",
    "joint_key",
    "make_shares",
    "open_deck",
    "open_sealed",
    "own_share",
    "seal_shares",
    "shuffle",
    "verify_blinds",
    "verify_key",
    "verify_sealed",
    "verify_shares",
    "verify_shuffle",
]
