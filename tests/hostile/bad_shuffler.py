"""A cheating peer, as a process of its own (for the tests that watch an honest
person's screen when a seat cheats):

    python3 -m tests.hostile.bad_shuffler ARGS...

runs ``trutnet ARGS...`` (``join --bot random ...``) with one change: every shuffle
it signs carries a proof with its last byte flipped. Its own replica never checks
its own shuffle (docs/protocol.md 7.5), so it plays on; every honest replica must
refuse that shuffle, stop the table and blame this seat for ``shuffle-proof``.
"""

from __future__ import annotations

import sys

import trutnet.protocol.peer as peer
from trutnet.cli import main

honest = peer.encode_shuffle


def flipped(result, proof) -> bytes:
    data = honest(result, proof)
    return data[:-1] + bytes([data[-1] ^ 1])


if __name__ == "__main__":
    peer.encode_shuffle = flipped
    sys.exit(main(sys.argv[1:]))
