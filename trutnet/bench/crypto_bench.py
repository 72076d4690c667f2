"""``trutnet bench crypto``: the cost of shuffles, proofs and decryption shares.

For each deck size and seat count: a whole shuffle chain is run (every seat shuffles
and proves; each shuffle is verified), ``repeats`` times; figures are medians.
``phase_per_seat_ms`` is one seat's whole shuffle phase: its own shuffle and proof
plus verifying every other seat's shuffle.

The ``sealed`` rows are a second viewer's cost (8.8): one seat's shares of ``positions``
ciphertexts sealed to another seat with their proof, the check every replica makes,
the recipient's opening, and the batch's size on the wire.

The ``equality`` rows are a ``Locate``'s plaintext-equality tests (8.12) of ``K``
positions with ``seats`` seats: one seat's blinding and its check by another replica,
one seat's shares of the blinded ciphertexts and their check, and what a seat spends
in each round (``blind_per_seat_ms``: its own blinding plus checking every other
seat's; ``open_per_seat_ms``: its shares plus checking every other seat's, plus the
results), with each entry's batch size.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

from trutnet.crypto import (
    CardTable,
    Context,
    KeyPair,
    blind,
    blinded,
    encode_shuffle,
    equal,
    joint_key,
    make_shares,
    open_deck,
    open_sealed,
    seal_shares,
    shuffle,
    verify_blinds,
    verify_sealed,
    verify_shares,
    verify_shuffle,
)
from trutnet.i18n import _

DECKS = (("french32", 32), ("spanish40", 40))
SEATS = (2, 3, 4, 6, 8)  # up to 8: the most seats a built-in game declares
SEALED = (1, 3, 6)  # positions per sealed batch: a card, a hand, a Falcon's two partners
EQUALITY = ((4, 12), (6, 18))  # (seats, positions): a Locate among 3 dealt cards a seat


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _row(deck: str, size: int, seats: int, repeats: int) -> dict[str, Any]:
    rng = os.urandom
    cards = CardTable(deck, size)
    keys = [KeyPair.generate(rng) for _ in range(seats)]
    publics = [k.public for k in keys]
    joint = joint_key(publics)
    prove, verify, share, share_check, phase, sizes = [], [], [], [], [], []
    for rep in range(repeats):
        deck_now = open_deck(cards.points)
        prove_times, verify_times = [], []
        for seat in range(seats):
            ctx = Context(1, b"bench", rep, f"shuffle/{seat}")
            start = time.perf_counter()
            out, proof = shuffle(deck_now, joint, ctx, publics, rng)
            prove_times.append(_ms(start))
            start = time.perf_counter()
            verify_shuffle(deck_now, out, proof, joint, ctx, publics)
            verify_times.append(_ms(start))
            sizes.append(len(encode_shuffle(out, proof)))
            deck_now = out
        prove += prove_times
        verify += verify_times
        phase += [
            prove_times[s] + sum(v for i, v in enumerate(verify_times) if i != s)
            for s in range(seats)
        ]
        ctx = Context(1, b"bench", rep, "reveal")
        for position in range(seats):
            start = time.perf_counter()
            batch = make_shares(keys[0], 0, [position], [deck_now[position]], ctx, rng)
            share.append(_ms(start))
            start = time.perf_counter()
            verify_shares(batch, publics[0], [deck_now[position]], ctx)
            share_check.append(_ms(start))
    return {
        "cards": size,
        "seats": seats,
        "shuffle_prove_ms": round(statistics.median(prove), 2),
        "verify_ms": round(statistics.median(verify), 2),
        "share_ms": round(statistics.median(share), 3),
        "share_verify_ms": round(statistics.median(share_check), 3),
        "phase_per_seat_ms": round(statistics.median(phase), 2),
        "shuffle_bytes": sizes[0],
    }


def _sealed_row(count: int, repeats: int) -> dict[str, Any]:
    rng = os.urandom
    keys = [KeyPair.generate(rng) for _ in range(2)]
    joint = joint_key([k.public for k in keys])
    cards = CardTable("french32", 32).points[:count]
    deck = tuple(c.reencrypt(joint, 1 + i) for i, c in enumerate(open_deck(cards)))
    positions = list(range(count))
    seal, check, opening = [], [], []
    for rep in range(repeats):
        ctx = Context(2, b"bench", rep, "disclose")
        start = time.perf_counter()
        batch = seal_shares(keys[0], 0, keys[1].public, 1, positions, deck, ctx, rng)
        seal.append(_ms(start))
        start = time.perf_counter()
        verify_sealed(batch, keys[0].public, keys[1].public, deck, ctx)
        check.append(_ms(start))
        start = time.perf_counter()
        open_sealed(batch, keys[1])
        opening.append(_ms(start))
    return {
        "positions": count,
        "seal_ms": round(statistics.median(seal), 3),
        "seal_verify_ms": round(statistics.median(check), 3),
        "open_ms": round(statistics.median(opening), 3),
        "sealed_bytes": len(batch.to_bytes()),
    }


def _equality_row(seats: int, count: int, repeats: int) -> dict[str, Any]:
    rng = os.urandom
    keys = [KeyPair.generate(rng) for _ in range(seats)]
    publics = [k.public for k in keys]
    joint = joint_key(publics)
    points = CardTable("french32", 32).points
    deck = tuple(c.reencrypt(joint, 1 + i) for i, c in enumerate(open_deck(points[:count])))
    cards = [points[0]] * count  # the card at position 0, and nowhere else
    positions = list(range(count))
    make, check, share, share_check, blind_phase, open_phase = [], [], [], [], [], []
    for rep in range(repeats):
        ctx = Context(4, b"bench", rep, "locate/blind")
        batches, times = [], []
        for seat in range(seats):
            start = time.perf_counter()
            batches.append(blind(publics[seat], seat, positions, deck, cards, ctx, rng))
            times.append(_ms(start))
        start = time.perf_counter()
        verify_blinds(batches[1], publics[1], deck, cards, ctx)
        checked = _ms(start)
        make += times
        check.append(checked)
        blind_phase += [t + (seats - 1) * checked for t in times]
        joint_cts = blinded(batches)
        ctx = ctx.with_step("locate/unblind")
        opens, times = [], []
        for seat in range(seats):
            start = time.perf_counter()
            opens.append(make_shares(keys[seat], seat, positions, joint_cts, ctx, rng))
            times.append(_ms(start))
        start = time.perf_counter()
        verify_shares(opens[1], publics[1], joint_cts, ctx)
        checked = _ms(start)
        start = time.perf_counter()
        found = [k for k, ct in enumerate(joint_cts) if equal(ct, [o.shares[k] for o in opens])]
        results = _ms(start)
        assert found == [0]
        share += times
        share_check.append(checked)
        open_phase += [t + (seats - 1) * checked + results for t in times]
    return {
        "seats": seats,
        "positions": count,
        "blind_ms": round(statistics.median(make), 2),
        "blind_verify_ms": round(statistics.median(check), 2),
        "unblind_ms": round(statistics.median(share), 2),
        "unblind_verify_ms": round(statistics.median(share_check), 2),
        "blind_per_seat_ms": round(statistics.median(blind_phase), 2),
        "open_per_seat_ms": round(statistics.median(open_phase), 2),
        "blind_bytes": len(batches[0].to_bytes()),
        "unblind_bytes": len(opens[0].to_bytes()),
    }


def run(repeats: int = 3) -> dict[str, Any]:
    rows = [_row(deck, size, seats, repeats) for deck, size in DECKS for seats in SEATS]
    sealed = [_sealed_row(count, max(repeats, 5)) for count in SEALED]
    equality = [_equality_row(seats, count, max(repeats, 5)) for seats, count in EQUALITY]
    return {
        "group": "secp256k1 (coincurve)",
        "repeats": repeats,
        "rows": rows,
        "sealed": sealed,
        "equality": equality,
    }


def report(figures: dict[str, Any]) -> str:
    header = _("cards|seats|shuffle+prove|verify|share|share chk|phase/seat|bytes/shuffle").split(
        "|"
    )
    widths = (5, 5, 14, 8, 7, 9, 10, 13)
    lines = [
        _("crypto benchmark: {group}, median of {repeats} runs, one core").format(
            group=figures["group"], repeats=figures["repeats"]
        ),
        " ".join(f"{word:>{width}}" for word, width in zip(header, widths, strict=True)),
    ]
    for r in figures["rows"]:
        lines.append(
            f"{r['cards']:>5} {r['seats']:>5} {r['shuffle_prove_ms']:>11.2f} ms "
            f"{r['verify_ms']:>5.2f} ms {r['share_ms']:>4.2f} ms {r['share_verify_ms']:>6.2f} ms "
            f"{r['phase_per_seat_ms']:>7.2f} ms {r['shuffle_bytes']:>13}"
        )
    lines.append(_("shares sealed to a second viewer (one batch, one proof):"))
    header = _("positions|seal|verify|open|bytes").split("|")
    lines.append(
        " ".join(f"{word:>{width}}" for word, width in zip(header, (9, 9, 9, 9, 6), strict=True))
    )
    for r in figures["sealed"]:
        lines.append(
            f"{r['positions']:>9} {r['seal_ms']:>6.2f} ms {r['seal_verify_ms']:>6.2f} ms "
            f"{r['open_ms']:>6.2f} ms {r['sealed_bytes']:>6}"
        )
    lines.append(_("plaintext-equality tests (a Locate, 8.12), per seat:"))
    header = _("seats|K|blind|check 1|blind rnd|shares|check 1|open rnd|bytes").split("|")
    widths = (5, 3, 9, 9, 10, 9, 9, 9, 11)
    lines.append(" ".join(f"{word:>{width}}" for word, width in zip(header, widths, strict=True)))
    for r in figures["equality"]:
        lines.append(
            f"{r['seats']:>5} {r['positions']:>3} {r['blind_ms']:>6.2f} ms "
            f"{r['blind_verify_ms']:>6.2f} ms {r['blind_per_seat_ms']:>7.2f} ms "
            f"{r['unblind_ms']:>6.2f} ms {r['unblind_verify_ms']:>6.2f} ms "
            f"{r['open_per_seat_ms']:>6.2f} ms {r['blind_bytes']:>5}+{r['unblind_bytes']}"
        )
    return "\n".join(lines)
