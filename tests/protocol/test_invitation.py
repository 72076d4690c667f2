"""Invitations (docs/protocol.md 9.9): a code read aloud gives a friend the table's
key; a wrong code learns nothing; an attacker gets one guess per try, and the code
burns after MAX_FAILED; it expires, and closes when the table is full. A private
table's password (9.10) works the same way, bound to its table, and locks a while
instead of burning."""

from __future__ import annotations

import os

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trutnet.protocol.invitation import (
    CONFIRM_SECONDS,
    LOCK_SECONDS,
    MAX_FAILED,
    MAX_LOCK,
    MAX_PENDING,
    Code,
    InvitationError,
    InvitationGuest,
    InvitationHost,
    TablePassword,
)
from trutnet.protocol.invitation_words import WORDS

WELCOME = msgpack.packb({"table": bytes(16), "key": os.urandom(32), "broker": "mqtt://a:1"})


def host(code: Code, now: float = 0.0) -> InvitationHost:
    return InvitationHost(code, WELCOME, now, lifetime=600)


def exchange(inviting: InvitationHost, typed: str, now: float = 1.0) -> bytes:
    """A whole exchange as the guest who typed ``typed``; the welcome's bytes."""
    guest = InvitationGuest(Code.parse(typed), os.urandom)
    ask_id, answer = inviting.ask(guest.ask(), now)
    assert ask_id == guest.id
    confirmation = guest.answer(answer)
    got = inviting.confirm(confirmation, now)
    assert got is not None and got[0] == guest.id
    return guest.welcome(got[1])


def test_the_right_code_gives_the_welcome_and_nothing_else_does():
    code = Code.make(os.urandom, 7)
    inviting = host(code)
    assert exchange(inviting, str(code)) == WELCOME
    assert exchange(inviting, str(code).upper().replace("-", " ")) == WELCOME  # as typed
    assert inviting.welcomed == 2 and inviting.failed == 0


def test_a_wrong_code_learns_only_that_it_is_wrong_and_counts_as_a_failed_guess():
    code = Code(7, ("purple", "sausage"))
    inviting = host(code)
    guest = InvitationGuest(Code(7, ("purple", "salmon")), os.urandom)
    _, answer = inviting.ask(guest.ask(), 1.0)
    with pytest.raises(InvitationError) as wrong:
        guest.answer(answer)
    assert wrong.value.reason == "wrong"
    with pytest.raises(InvitationError):
        guest.welcome(b"anything")  # no key: nothing opens
    inviting.tick(1.0 + CONFIRM_SECONDS)  # never confirmed: a failed guess
    assert inviting.failed == 1 and inviting.welcomed == 0


def test_a_guest_that_forges_a_confirmation_gets_no_welcome_and_is_counted():
    inviting = host(Code(7, ("purple", "sausage")))
    guest = InvitationGuest(Code(7, ("purple", "salmon")), os.urandom)
    inviting.ask(guest.ask(), 1.0)
    forged = msgpack.packb({"v": 1, "id": guest.id, "confirm": bytes(32)})
    assert inviting.confirm(forged, 1.0) is None
    assert inviting.failed == 1


def test_the_code_burns_after_the_failed_guesses_even_for_the_right_code():
    code = Code(12, ("acorn", "zebra"))
    inviting = host(code)
    for k in range(MAX_FAILED):
        guess = InvitationGuest(Code(12, ("acorn", WORDS[k])), os.urandom)
        _, answer = inviting.ask(guess.ask(), 1.0)
        with pytest.raises(InvitationError):
            guess.answer(answer)
    inviting.tick(1.0 + CONFIRM_SECONDS)
    assert inviting.state(2.0 + CONFIRM_SECONDS) == "burned"
    right = InvitationGuest(code, os.urandom)
    _, answer = inviting.ask(right.ask(), 2.0 + CONFIRM_SECONDS)
    with pytest.raises(InvitationError) as burned:
        right.answer(answer)
    assert burned.value.reason == "burned"


def test_a_code_expires_and_closes_and_a_flood_of_asks_is_refused_as_busy():
    code = Code(3, ("lemon", "tiger"))
    inviting = InvitationHost(code, WELCOME, 0.0, lifetime=60)
    late = InvitationGuest(code, os.urandom)
    _, answer = inviting.ask(late.ask(), 61.0)
    with pytest.raises(InvitationError) as expired:
        late.answer(answer)
    assert expired.value.reason == "expired"
    inviting = host(code)
    for _ in range(MAX_PENDING):
        inviting.ask(InvitationGuest(code, os.urandom).ask(), 1.0)
    one_more = InvitationGuest(code, os.urandom)
    _, answer = inviting.ask(one_more.ask(), 1.0)
    with pytest.raises(InvitationError) as busy:
        one_more.answer(answer)
    assert busy.value.reason == "busy" and inviting.failed == 0
    inviting = host(code)
    inviting.closed = True  # the table is full
    shut = InvitationGuest(code, os.urandom)
    _, answer = inviting.ask(shut.ask(), 1.0)
    with pytest.raises(InvitationError) as closed:
        shut.answer(answer)
    assert closed.value.reason == "closed"


def test_a_full_table_s_code_still_welcomes_a_spectator_and_only_as_one():
    """A table full is closed to seats; a spectator's ask (``watch``) still gets the
    welcome, even when the table filled while its exchange was open. The ``watch``
    field is a boolean or the ask is dropped; an expired or burned code refuses both."""
    code = Code(5, ("lemon", "tiger"))
    inviting = host(code)
    watcher = InvitationGuest(code, os.urandom, watch=True)
    _, answer = inviting.ask(watcher.ask(), 1.0)
    inviting.closed = True  # the table fills while the spectator's exchange is open
    got = inviting.confirm(watcher.answer(answer), 1.0)
    assert got is not None and watcher.welcome(got[1]) == WELCOME
    seat = InvitationGuest(code, os.urandom)
    _, answer = inviting.ask(seat.ask(), 1.0)
    with pytest.raises(InvitationError) as closed:
        seat.answer(answer)
    assert closed.value.reason == "closed"
    odd = msgpack.unpackb(InvitationGuest(code, os.urandom).ask())
    assert inviting.ask(msgpack.packb({**odd, "watch": 1}), 1.0) is None
    late = InvitationGuest(code, os.urandom, watch=True)
    _, answer = inviting.ask(late.ask(), 10_000.0)
    with pytest.raises(InvitationError) as expired:
        late.answer(answer)
    assert expired.value.reason == "expired"


def test_codes_are_read_as_people_type_them_and_typos_are_refused_with_the_nearest_word():
    assert Code.parse(" 7 Purple  SAUSAGE ") == Code(7, ("purple", "sausage"))
    with pytest.raises(InvitationError, match="did you mean sausage"):
        Code.parse("7-purple-sausgae")
    for bad in ("purple-sausage", "0-purple-sausage", "10000-purple-sausage", "7-purple", ""):
        with pytest.raises(InvitationError):
            Code.parse(bad)
    code = Code.make(os.urandom, 42)
    assert Code.parse(str(code)) == code


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600))
def test_any_bytes_from_the_broker_are_dropped_or_refused_never_a_crash(data):
    code = Code(7, ("purple", "sausage"))
    inviting = host(code)
    assert inviting.ask(data, 1.0) is None or inviting.state(1.0) is None
    assert inviting.confirm(data, 1.0) is None
    guest = InvitationGuest(code, os.urandom)
    with pytest.raises(InvitationError):
        guest.answer(data)
    with pytest.raises(InvitationError):
        guest.welcome(data)


TABLE_A, TABLE_B = bytes(range(16)), bytes(range(1, 17))


def password_exchange(inviting: InvitationHost, secret: TablePassword, now: float) -> bytes:
    """A whole exchange as a guest holding ``secret``: the welcome, or the
    :class:`InvitationError` of the answer (a wrong password confirms wrongly at once,
    as a hostile guest would, so that the host counts it now)."""
    guest = InvitationGuest(secret, os.urandom)
    reply = inviting.ask(guest.ask(), now)
    assert reply is not None
    try:
        confirmation = guest.answer(reply[1])
    except InvitationError:
        forged = msgpack.packb({"v": 1, "id": guest.id, "confirm": bytes(32)})
        inviting.confirm(forged, now)
        raise
    got = inviting.confirm(confirmation, now)
    assert got is not None
    return guest.welcome(got[1])


def test_a_private_table_s_password_gives_its_key_and_only_at_that_table():
    inviting = InvitationHost(TablePassword(TABLE_A, "our secret"), WELCOME, 0.0, float("inf"))
    assert password_exchange(inviting, TablePassword(TABLE_A, "our secret"), 1.0) == WELCOME
    for other in (TablePassword(TABLE_B, "our secret"), TablePassword(TABLE_A, "our secreT")):
        with pytest.raises(InvitationError) as wrong:  # another table's: no guess here
            password_exchange(inviting, other, 2.0)
        assert wrong.value.reason == "wrong"
    assert inviting.failed == 2 and inviting.welcomed == 1
    assert "our secret" not in repr(TablePassword(TABLE_A, "our secret"))
    assert TablePassword(TABLE_A, "x").place == TABLE_A.hex()  # met at the table's id


def test_a_password_locks_after_the_failed_guesses_for_longer_each_time_and_never_burns():
    """MAX_FAILED wrong passwords lock the table's door: even the right one is refused
    as locked until the lock ends, then taken; each lock is twice the last, at most
    MAX_LOCK, so a stranger gets about MAX_FAILED guesses an hour, and a friend who
    mistyped is never locked out for good."""
    secret = TablePassword(TABLE_A, "our secret")
    inviting = InvitationHost(secret, WELCOME, 0.0, float("inf"))
    now, locks = 0.0, []
    for _lock in range(8):
        for k in range(MAX_FAILED):
            with pytest.raises(InvitationError):
                password_exchange(inviting, TablePassword(TABLE_A, f"guess {k}"), now)
        assert inviting.state(now) == "locked"
        with pytest.raises(InvitationError) as locked:
            password_exchange(inviting, secret, now)
        assert locked.value.reason == "locked"
        locks.append(inviting.locked_until - now)
        now = inviting.locked_until
        assert password_exchange(inviting, secret, now) == WELCOME  # the lock is over
    assert locks[:3] == [LOCK_SECONDS, 2 * LOCK_SECONDS, 4 * LOCK_SECONDS]
    assert locks[-1] == MAX_LOCK and max(locks) == MAX_LOCK
    assert inviting.state(now) is None  # never burned
