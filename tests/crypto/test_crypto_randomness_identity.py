"""Commit-reveal joint randomness; Ed25519 identities and their key files."""

from __future__ import annotations

import os
import stat
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trutnet.crypto import Context, Identity, ProofError, SeededRandom, fingerprint
from trutnet.crypto.identity import verify
from trutnet.crypto.randomness import (
    check_reveals,
    commitment,
    draw,
    joint_seed,
    new_value,
    roll_dice,
)
from trutnet.keystore import KeyFileError, load_identity, load_or_create_identity, save_identity

CTX = Context(1, b"t", 0, "dice")


def commit_all(seats, rng):
    values = {s: new_value(rng) for s in range(seats)}
    return values, {s: commitment(v, s, CTX) for s, v in values.items()}


def test_joint_roll_uses_every_value_and_is_deterministic():
    values, commits = commit_all(4, SeededRandom(1))
    seed = joint_seed(commits, values, CTX)
    assert joint_seed(commits, values, CTX) == seed
    dice = roll_dice(seed, dice=5)
    assert len(dice) == 5 and all(1 <= d <= 6 for d in dice)
    changed = {**values, 2: b"\x00" * 32}  # any seat's value changes the outcome
    assert joint_seed({**commits, 2: commitment(changed[2], 2, CTX)}, changed, CTX) != seed


def test_missing_and_wrong_reveals_are_identified():
    values, commits = commit_all(4, SeededRandom(2))
    reveals = dict(values)
    del reveals[1]
    reveals[3] = b"\x01" * 32
    assert check_reveals(commits, reveals, CTX) == [1, 3]
    with pytest.raises(ProofError, match=r"\[1, 3\]"):
        joint_seed(commits, reveals, CTX)
    # A commitment is bound to its seat and context.
    assert commitment(values[0], 0, CTX) != commitment(values[0], 1, CTX)
    assert commitment(values[0], 0, CTX) != commitment(values[0], 0, CTX.with_step("coin"))


@given(st.binary(min_size=32, max_size=32), st.integers(1, 2**64), st.integers(0, 20))
def test_draw_stays_in_range(seed, bound, count):
    values = draw(seed, bound, count)
    assert len(values) == count and all(0 <= v < bound for v in values)


def test_draw_rejects_to_avoid_modulo_bias():
    # The candidates at or above the largest multiple of the bound are skipped: with a
    # bound of 3 * 2^254 a quarter of all 256-bit candidates is skipped, and with plain
    # modulo reduction the values below 2^254 would be twice as likely as the others.
    bound = 3 * 2**254
    seed = b"s" * 32
    values = draw(seed, bound, 400)
    assert sum(v < 2**254 for v in values) < 180  # one third expected; modulo gives a half
    counts = Counter(roll_dice(b"\x05" * 32, dice=6000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert all(850 < n < 1150 for n in counts.values())  # about 1000 each, fixed seed


def test_signatures_and_fingerprints():
    me = Identity.generate(SeededRandom(4))
    sig = me.sign(b"hello")
    verify(me.public, sig, b"hello")
    for public, signature, message in [
        (me.public, sig, b"hellO"),
        (Identity.generate(os.urandom).public, sig, b"hello"),
        (me.public, sig[:-1] + bytes([sig[-1] ^ 1]), b"hello"),
    ]:
        with pytest.raises(ProofError):
            verify(public, signature, message)
    assert len(me.fingerprint) == 19 and me.fingerprint.count("-") == 3
    assert fingerprint(me.public) == me.fingerprint != Identity.generate(os.urandom).fingerprint
    assert me.seed().hex() not in repr(me)


def test_key_files_are_private_and_read_strictly(tmp_path):
    path = tmp_path / "keys" / "identity.key"
    me = load_or_create_identity(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_identity(path).public == me.public
    save_identity(me, path)
    assert load_identity(path).public == me.public
    path.chmod(0o644)
    with pytest.raises(KeyFileError, match="readable by others"):
        load_identity(path)
    path.chmod(0o600)
    path.write_text("not a key\n")
    with pytest.raises(KeyFileError):
        load_identity(path)
    path.write_text("trutnet-ed25519-v1 zz\n")
    with pytest.raises(KeyFileError):
        load_identity(path)
    with pytest.raises(KeyFileError):
        load_identity(tmp_path / "missing.key")
