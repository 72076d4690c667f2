"""The table protocol: any game as a signed, hash-chained log that N peers run (sans-I/O).

A table knows no game. The host's ``open`` entry names one from the engine's registry
(``trutnet.engine.make_game``) with its configuration, and the table runs it from the
engine's hidden-information description alone (``docs/engine.md``; ``docs/protocol.md``
7.4): decks shuffled jointly, positions disclosed to one seat by private share rounds
or revealed to all, joint random draws by commit-reveal, sealed choices by hash
commitments. Neither part touches a socket, a clock or a global random source:
entries come in as bytes, entries to send go out as bytes, randomness is passed in.

Its parts, each in its own module:

* :mod:`.replica`: :class:`TableReplica` validates and applies entries and drives the
  game; it holds no secret, so the same code replays a transcript offline;
* :mod:`.peer`: :class:`TablePeer` is one seat, a replica plus that seat's secrets;
* :mod:`.shares`: the encrypted decks, every verified decryption share, share rounds;
* :mod:`.commitments`: joint random draws and sealed choices;
* :mod:`.schema`: refusals (:class:`Rejected`, :class:`LocalError`) and body checks;
* :mod:`.rounds`: the unordered rounds in progress (7.2);
* :mod:`.replace`: votes and offers to replace or abandon a stalled seat (7.7).

At every point the replica names the single seat that must write the next entry and
the entry types it may write (:meth:`TableReplica.expected`), or the table is at an
unordered round (:mod:`.rounds`: keys, a joint draw's commits and reveals, share
rounds, checkpoints, results) whose seats write at once, in any order, and which
enters the log in seat order (:meth:`TableReplica.waiting`, ``kinds_for``); so the
game itself fixes the order of the log (a game keeps one seat to act at a time, or
asks for an unordered round). A bad entry
is dropped and produces a :class:`~trutnet.protocol.blame.Blame`; when the seat whose
turn it is signs a bad entry for its turn, or equivocates, the table stops
(``halted``): every honest replica stops at the same entry with the same blame.
"""

from trutnet.protocol.entry_types import AUTOMATIC, DECISIONS, TYPE_LIMITS
from trutnet.protocol.peer import TablePeer
from trutnet.protocol.replica import TableReplica
from trutnet.protocol.schema import LocalError, Rejected
from trutnet.protocol.shares import EVERYONE, DeckLedger, ShareRound

__all__ = [
    "AUTOMATIC",
    "DECISIONS",
    "EVERYONE",
    "TYPE_LIMITS",
    "DeckLedger",
    "LocalError",
    "Rejected",
    "ShareRound",
    "TablePeer",
    "TableReplica",
]
