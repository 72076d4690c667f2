"""Shared machinery of the coverage-guided fuzz harnesses (atheris).

Every harness feeds untrusted bytes to one decoder and checks one property: the decoder
either succeeds or raises one of the project's own error types. Anything else
(``RecursionError``, ``TypeError``, ``KeyError``, ``AssertionError``, ``MemoryError``...)
is a **finding**: it is printed as one ``FINDING`` line, shrunk to a small reproducer and
saved under ``tests/fuzz/crashes/`` (or ``$TRUTNET_FUZZ_CRASHES``), once per distinct
signature (exception type and the innermost project frame). The fuzzer then goes on, so
one run reports every distinct exception it meets, not only the first.

Seed corpora are real entries: a whole 2-player game played over the in-memory bus
(``trutnet/memory_table.py``) with full crypto, cached under ``$TRUTNET_FUZZ_CACHE``.

A harness is run as ``python tests/fuzz/fuzz_NAME.py [libFuzzer flags]``;
``scripts/fuzz.sh SECONDS`` runs them all, ``tests/fuzz/test_fuzz.py`` runs each briefly.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parents[2]
CRASHES = Path(os.environ.get("TRUTNET_FUZZ_CRASHES", ROOT / "tests" / "fuzz" / "crashes"))
CACHE = Path(os.environ.get("TRUTNET_FUZZ_CACHE", Path(tempfile.gettempdir()) / "trutnet-fuzz"))
GAME_SEED = "fuzz-corpus"
PLAYERS = 2

# Exceptions that no decoder may ever let out, whatever its input: the project's own
# error types are the only acceptable refusals (see each harness's ``ALLOWED``).
_seen: set[str] = set()


def _code_version() -> str:
    """A digest of the code that makes the corpus game: a cached game from older code
    (another entry format) is never reused."""
    digest = hashlib.sha256()
    package = ROOT / "trutnet"
    for path in sorted(
        [
            *package.glob("protocol/*.py"),
            *package.glob("crypto/*.py"),
            package / "memory_table.py",
            ROOT / "tests" / "games" / "tokens.py",
        ]
    ):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


GAMES = ("trut", "tokens-deluxe")
"""The corpus games: Trut, and the test game Tokens with its ``deluxe`` option (a deck
per seat, sealed choices, shares sealed to a second viewer, a card carried into
another deck's shuffle: every entry field Trut never writes)."""


def game(kind: str = "trut") -> tuple[bytes, list[bytes]]:
    """Table id and every entry of one real 2-player game of ``kind`` (cached on disk)."""
    if kind != "trut":
        import tests.games.plugin  # noqa: F401  (registers Tokens, for the replicas too)
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"game-{kind}-{GAME_SEED}-{PLAYERS}-{_code_version()}.pickle"
    if path.exists():
        with path.open("rb") as f:
            return pickle.load(f)
    from trutnet.memory_table import play_memory_game

    if kind == "trut":
        from trutnet.games.trut.rules import TrutConfig, TrutGame

        played = TrutGame(TrutConfig(PLAYERS)), ["heuristic"] * PLAYERS
    else:
        from tests.games.tokens import TokensGame

        played = TokensGame(3, deluxe=True), ["random"] * PLAYERS
    table = play_memory_game(played[0], GAME_SEED, played[1])
    table_id = table.peers[0].replica.table_id
    data = (table_id, list(table.log))
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as f:
        pickle.dump(data, f)
    tmp.replace(path)
    return data


def nested_body_entry(wire: bytes, depth: int, map_depth: bool = False) -> bytes:
    """A real entry whose body holds ``depth`` nested arrays (or maps): still under
    msgpack's own depth limit, a step away for the mutator from deeper ones."""
    envelope, sig = msgpack.unpackb(wire, raw=False)
    value: object = None
    for _ in range(depth):
        value = {"k": value} if map_depth else [value]
    envelope[7] = {"n": value}
    return msgpack.packb([envelope, sig], use_bin_type=True)


def identities() -> list:
    """The identities of the corpus game's seats (the memory bus derives them from the
    seed), so a harness can sign fuzzed bodies as the seat whose turn it is."""
    from trutnet.memory_table import make_table

    return make_table(PLAYERS, GAME_SEED)[1]


def make_immutable_atomic() -> None:
    """Let ``copy.deepcopy`` snapshot replicas: points, identities and entries are
    immutable, so a copy may share them (coincurve objects cannot be copied)."""
    from trutnet.crypto.elgamal import KeyPair
    from trutnet.crypto.group import Point
    from trutnet.crypto.identity import Identity
    from trutnet.protocol.envelope import Entry

    for cls in (Point, Identity, Entry, KeyPair):
        cls.__deepcopy__ = lambda self, memo: self  # type: ignore[attr-defined]


def signature(exc: BaseException) -> str:
    """Exception type and where it was raised: the innermost frame in trutnet/ (or
    the innermost frame at all)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}trutnet{os.sep}" in f.filename]
    frame = (ours or frames or [None])[-1]
    if frame is None:
        where = "?"
    elif isinstance(exc, RecursionError):  # the line is wherever the stack ran out
        where = Path(frame.filename).name
    else:
        where = f"{Path(frame.filename).name}:{frame.lineno}"
    return f"{type(exc).__name__} at {where}"


def _reproduces(check: Callable[[bytes], None], data: bytes, sig: str) -> bool:
    try:
        check(data)
    except Exception as exc:
        return signature(exc) == sig
    return False


def shrink(check: Callable[[bytes], None], data: bytes, sig: str, budget: int = 3000) -> bytes:
    """Greedy delta shrinking: drop chunks while the same finding still reproduces."""
    tries = 0
    chunk = max(1, len(data) // 2)
    while chunk >= 1 and tries < budget:
        pos, shrunk = 0, False
        while pos < len(data) and tries < budget:
            candidate = data[:pos] + data[pos + chunk :]
            tries += 1
            if candidate and _reproduces(check, candidate, sig):
                data, shrunk = candidate, True
            else:
                pos += chunk
        if not shrunk:
            chunk //= 2
    return data


def report(name: str, check: Callable[[bytes], None], data: bytes, exc: BaseException) -> None:
    """Record a finding once per signature: print it, save a shrunk reproducer."""
    sig = signature(exc)
    if sig in _seen:
        return
    _seen.add(sig)
    # A RecursionError depends on the stack depth at the call: keep its input whole,
    # so the reproducer still overflows outside the fuzzer.
    keep = isinstance(exc, RecursionError) or len(data) <= 1
    small = data if keep else shrink(check, data, sig)
    CRASHES.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(small).hexdigest()[:12]
    kind = type(exc).__name__
    path = CRASHES / f"{name}-{kind}-{digest}.bin"
    path.write_bytes(small)
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()[:300]
    tb = "".join(traceback.format_tb(exc.__traceback__)[-4:])
    (CRASHES / f"{name}-{kind}-{digest}.txt").write_text(
        f"harness: {name}\nsignature: {sig}\n{detail}\ninput: {len(small)} bytes "
        f"(found as {len(data)})\n\n{tb}"
    )
    print(f"FINDING {name}: {sig}: {detail[:160]} -> {path}", file=sys.stderr, flush=True)


def guard(name: str, check: Callable[[bytes], None], allowed: tuple[type[BaseException], ...]):
    """The libFuzzer entry point: run ``check``, let ``allowed`` errors through
    silently, record anything else as a finding (and go on fuzzing)."""

    def test_one_input(data: bytes) -> None:
        try:
            check(data)
        except allowed:
            return
        except Exception as exc:  # every non-project exception is a finding
            report(name, lambda d: _strip_allowed(check, d, allowed), data, exc)

    return test_one_input


def _strip_allowed(
    check: Callable[[bytes], None], data: bytes, allowed: tuple[type[BaseException], ...]
) -> None:
    try:
        check(data)
    except allowed:
        return


def main(name: str, test_one_input: Callable[[bytes], None], seeds: Iterable[bytes]) -> None:
    """Write the seed corpus into the first corpus directory named on the command line
    (``$TRUTNET_FUZZ_CACHE/corpus-NAME`` if none), then hand over to libFuzzer
    (atheris). Files named on the command line are replayed once each."""
    import atheris

    argv = list(sys.argv)
    dirs = [a for a in argv[1:] if not a.startswith("-") and not Path(a).is_file()]
    if not any(not a.startswith("-") for a in argv[1:]):
        dirs = [str(CACHE / f"corpus-{name}")]
        argv.append(dirs[0])
    if dirs:  # a corpus to fuzz from (not reproducers to replay): seed it
        corpus = Path(dirs[0])
        corpus.mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            (corpus / hashlib.sha256(seed).hexdigest()[:16]).write_bytes(seed)
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()
