"""Who answers a sync request (docs/protocol.md 9.2): one peer for the table, only the
entries after the head asked for, each at most once per resend window whatever the
number of requests (:mod:`trutnet.runtime.sync_answers`, driven with a made-up clock)."""

from __future__ import annotations

from trutnet.runtime.sync_answers import RESEND, STEP, SyncAnswers, rank

LOG = [bytes([k]) * 32 for k in range(50)]  # the ids of a log of 50 entries


def entry_at(position: int) -> bytes | None:
    return LOG[position] if position < len(LOG) else None


def send_all(peer: SyncAnswers, now: float) -> list[int]:
    """Everything ``peer`` sends at ``now`` (each as it publishes it)."""
    sent: list[int] = []
    while True:
        positions, _ = peer.due(entry_at, now)
        if not positions:
            return sent
        for p in positions:
            peer.published(LOG[p], now, answer=True)
        sent += positions


def test_ranks_start_from_the_seat_the_request_picks():
    assert [rank(0, {s}, 3) for s in range(3)] == [0, 1, 2]
    assert [rank(4, {s}, 3) for s in range(3)] == [2, 0, 1]
    assert rank(1, {0, 2}, 3) == 1  # a process with two seats: its first one
    assert rank(0, set(), 3) == 3  # no seat: after every seat


def test_a_hundred_requests_make_one_copy_of_what_was_asked():
    peer = SyncAnswers()
    for k in range(100):
        peer.asked(20, now=0.001 * k, my_rank=0)
    assert send_all(peer, 0.1) == list(range(20, 50))  # only what was asked, once
    for k in range(100):  # more within the resend window: answered by that copy
        peer.asked(20, now=0.2 + 0.001 * k, my_rank=0)
    assert send_all(peer, 0.4) == []
    assert not peer.pending
    peer.asked(0, now=0.5, my_rank=0)  # earlier entries: those only
    assert send_all(peer, 0.5) == list(range(20))
    peer.asked(0, now=0.1 + RESEND + 0.05, my_rank=0)  # a window later: again
    assert send_all(peer, 0.1 + RESEND + 0.05) == list(range(20, 50))


def test_a_backup_answers_only_when_the_first_peer_does_not():
    first, backup = SyncAnswers(), SyncAnswers()
    first.asked(10, 0.0, 0)
    backup.asked(10, 0.0, 1)
    assert backup.due(entry_at, 0.0) == ([], STEP)  # it waits its turn
    for p in send_all(first, 0.05):
        backup.went_by(LOG[p], 0.06, again=True)  # the first one's answer goes by
    assert backup.due(entry_at, STEP + 0.01) == ([], None)
    assert not backup.pending
    # The first one is gone: the backup answers after its step.
    backup.asked(0, 5.0, 1)
    assert backup.due(entry_at, 5.0)[0] == []
    assert backup.due(entry_at, 5.0 + STEP)[0] == list(range(50))


def test_an_entry_that_went_by_after_the_request_answers_it():
    peer = SyncAnswers()
    peer.asked(45, 1.0, 0)
    for p in range(45, 48):
        peer.went_by(LOG[p], 1.1, again=False)  # their authors published them
    assert send_all(peer, 1.2) == [48, 49]
    peer.asked(0, 3.0, 1)  # this peer as a backup now
    peer.published(LOG[5], 3.0, answer=False)  # written here: its copy comes back
    peer.went_by(LOG[5], 3.01, again=True)  # its own copy is no other peer's answer
    assert peer.due(entry_at, 3.0 + STEP)[0] == [p for p in range(50) if p != 5]


def test_requests_naming_many_heads_are_merged_not_kept():
    peer = SyncAnswers()
    for start in range(50):
        peer.asked(start, 0.0, 0)
    assert len(peer._pending) <= 16
    assert send_all(peer, 0.0) == list(range(50))
