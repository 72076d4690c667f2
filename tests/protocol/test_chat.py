"""The table's chat, pure (docs/protocol.md 9.4): who may speak and as whom, what a
message may say, how fast, read once, replays refused, muting by key, and the
offline check of a transcript's chat."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trutnet.crypto import Identity, SeededRandom
from trutnet.crypto.identity import fingerprint
from trutnet.protocol.chat import (
    BURST,
    CROWD_BURST,
    MAX_CHAT_BYTES,
    MAX_TEXT,
    REFILL_SECONDS,
    ChatError,
    ChatRoom,
    audit_chat,
    chat_message,
    check_text,
    read_chat,
)
from trutnet.protocol.envelope import GENESIS, sign_entry
from trutnet.protocol.untrusted import UntrustedInput

TABLE = bytes(range(16))


def identity(name: str) -> Identity:
    return Identity.generate(SeededRandom(f"chat/{name}"))


ANA, BOB, EVE, MALLORY = (identity(n) for n in ("ana", "bob", "eve", "mallory"))
SEATS = [ANA.public, BOB.public]
NAMES = ["Ana", "Bob"]
LISTED = {fingerprint(EVE.public): "Eve"}


def said(who: Identity, text: str, seat: int = 0, count: int = 0, head: bytes = GENESIS) -> bytes:
    return chat_message(who, TABLE, seat, count, head, text)


def read(wire: bytes) -> tuple[int | None, str, str]:
    line = read_chat(wire, TABLE, SEATS, NAMES, LISTED)
    return line.seat, line.name, line.text


def test_a_seat_speaks_by_its_key_and_a_listed_spectator_as_seat_0():
    assert read(said(BOB, "¡Quiero! 🂡", seat=1)) == (1, "Bob", "¡Quiero! 🂡")
    assert read(said(EVE, "nice trick")) == (None, "Eve", "nice trick")


@pytest.mark.parametrize(
    "wire, why",
    [
        (said(BOB, "I am Ana", seat=0), "names another seat"),  # a seat passing for another
        (said(MALLORY, "hi"), "neither a seat nor a spectator"),  # a key nobody lists
        (said(EVE, "hi", seat=1), "neither a seat nor a spectator"),  # a spectator as seat 1
        (chat_message(ANA, bytes(16), 0, 0, GENESIS, "hi"), "another table"),
        (said(ANA, "hi")[:-1] + b"\x00", "signature"),  # tampered with
        (b"\x93" * (MAX_CHAT_BYTES + 1), "at most"),
        ("text", "at most"),
    ],
)
def test_a_message_nobody_may_say_is_refused(wire, why):
    with pytest.raises(UntrustedInput, match=why):
        read(wire)


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * (MAX_TEXT + 1), "at most 200 characters"),
        ("red \x1b[31malert", "printable"),  # a terminal escape
        ("abc\u202edcba", "printable"),  # right-to-left override
        ("two\nlines", "printable"),
        ("e" + "\u0301" * 17, "combining marks"),
        (42, "empty"),
    ],
)
def test_a_text_that_could_harm_a_screen_is_not_sent_nor_read(text, why):
    with pytest.raises(ChatError, match=why):
        check_text(text)
    forged = sign_entry(
        ANA, table=TABLE, seat=0, seq=0, prev=GENESIS, type="chat", body={"text": text}
    ).wire
    with pytest.raises(UntrustedInput, match="text"):
        read(forged)


def test_a_message_with_more_than_a_text_is_refused():
    forged = sign_entry(
        ANA, table=TABLE, seat=0, seq=0, prev=GENESIS, type="chat", body={"text": "a", "x": 1}
    ).wire
    with pytest.raises(UntrustedInput, match="a text only"):
        read(forged)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2048))
def test_any_bytes_are_a_message_or_refused_in_one_way(data):
    room = ChatRoom(TABLE)
    with contextlib.suppress(UntrustedInput):
        room.receive(data, 0.0, SEATS, NAMES, LISTED)
    assert not room.lines


def test_a_message_delivered_twice_is_read_once_and_an_old_one_replayed_is_refused():
    room = ChatRoom(TABLE)
    wire = said(ANA, "hello")
    assert room.receive(wire, 0.0, SEATS, NAMES, LISTED) is not None
    assert room.receive(wire, 0.0, SEATS, NAMES, LISTED) is None
    heads = [n.to_bytes(32, "big") for n in range(1, 400)]
    room.heads.note(heads[0])
    old = said(ANA, "again", count=1, head=heads[0])
    for head in heads[1:]:
        room.heads.note(head)
    with pytest.raises(UntrustedInput, match="replay"):
        room.receive(old, 0.0, SEATS, NAMES, LISTED)
    fresh = said(ANA, "now", count=2, head=heads[-1])
    ahead = said(ANA, "from ahead", count=3, head=b"\x77" * 32)  # a head not reached yet
    assert room.receive(fresh, 0.0, SEATS, NAMES, LISTED) is not None
    assert room.receive(ahead, 0.0, SEATS, NAMES, LISTED) is not None
    assert [line.text for line in room.lines] == ["hello", "now", "from ahead"]


def test_an_author_over_its_rate_is_dropped_and_counted_and_refills_in_time():
    room = ChatRoom(TABLE)
    wires = [said(BOB, f"spam {n}", seat=1, count=n) for n in range(40)]
    kept = [room.receive(w, 0.0, SEATS, NAMES, LISTED) for w in wires[:30]]
    assert sum(line is not None for line in kept) == 2 * BURST  # a reader allows bunching
    assert room.dropped[fingerprint(BOB.public)] == 30 - 2 * BURST
    assert room.receive(wires[30], REFILL_SECONDS * 0.9, SEATS, NAMES, LISTED) is None
    assert room.receive(wires[31], REFILL_SECONDS * 1.01, SEATS, NAMES, LISTED) is not None
    # Ana's bucket is her own: Bob's flood takes nothing from her
    assert room.receive(said(ANA, "still here"), 0.0, SEATS, NAMES, LISTED) is not None


def test_spectators_share_one_bucket_and_never_take_the_seats():
    crowd = [identity(f"crowd{n}") for n in range(6)]
    listed = {fingerprint(c.public): f"C{n}" for n, c in enumerate(crowd)}
    room = ChatRoom(TABLE)
    accepted = 0
    for n, who in enumerate(crowd):
        for count in range(BURST):
            wire = chat_message(who, TABLE, 0, count, GENESIS, f"{n}/{count}")
            accepted += room.receive(wire, 0.0, SEATS, NAMES, listed) is not None
    assert accepted == CROWD_BURST
    assert room.receive(said(ANA, "the seats speak"), 0.0, SEATS, NAMES, listed) is not None


def test_the_sender_keeps_its_rate_so_that_its_readers_never_drop_it():
    mine, theirs = ChatRoom(TABLE), ChatRoom(TABLE)
    sent = [mine.say(BOB, 1, GENESIS, f"m{n}", 0.0) for n in range(BURST)]
    with pytest.raises(ChatError, match=f"too fast: at most {BURST} messages at once; wait 3 s"):
        mine.say(BOB, 1, GENESIS, "one more", 0.0)
    sent += [mine.say(BOB, 1, GENESIS, f"later {n}", (n + 1) * REFILL_SECONDS) for n in range(6)]
    # every message arrives late and bunched: all are read
    assert all(theirs.receive(w, 20.0, SEATS, NAMES, LISTED) for w in sent[: 2 * BURST])
    assert [room.sent for room in (mine,)] == [len(sent)]


def test_every_refusal_is_said_in_the_persons_language():
    """The screen says why a message was not sent from the refusal's rule and values
    (the protocol's own words are English): the same words in English, others in
    French."""
    from trutnet import i18n
    from trutnet.runtime.table_chat import CHAT_REFUSALS

    refused = []
    for text in ("", "x" * (MAX_TEXT + 1), "two\nlines", "e" + "\u0301" * 17):
        with pytest.raises(ChatError) as caught:
            check_text(text)
        refused.append(caught.value)
    mine = ChatRoom(TABLE)
    for n in range(BURST):
        mine.say(BOB, 1, GENESIS, f"m{n}", 0.0)
    with pytest.raises(ChatError) as caught:
        mine.say(BOB, 1, GENESIS, "one more", 0.0)
    refused.append(caught.value)
    assert [e.what for e in refused] == ["empty", "long", "line", "marks", "fast"]
    for error in refused:
        assert CHAT_REFUSALS[error.what].format(**error.values) == str(error)
    i18n.use("fr")
    try:
        french = [i18n._(CHAT_REFUSALS[e.what]).format(**e.values) for e in refused]
    finally:
        i18n.use("en")
    assert french[4] == "trop vite : au plus 5 messages d'affilée ; attendez 3 s", french
    assert not set(french) & {str(e) for e in refused}


def test_a_muted_key_is_hidden_from_the_screen_and_kept_for_the_transcript():
    room = ChatRoom(TABLE)
    for wire in (said(ANA, "hi"), said(BOB, "rude", seat=1), said(ANA, "bye", count=1)):
        room.receive(wire, 0.0, SEATS, NAMES, LISTED)
    room.mute(fingerprint(BOB.public))
    assert [line.text for line in room.shown()] == ["hi", "bye"]
    assert len(room.wires()) == 3
    room.mute(fingerprint(BOB.public), False)
    assert [line.text for line in room.shown()] == ["hi", "rude", "bye"]


def test_a_transcript_s_chat_is_checked_offline():
    opened = [("Ana", ANA.public), ("Bob", BOB.public)]
    seated = [("Ana", ANA.public), ("Cid", MALLORY.public)]  # Bob was replaced by Cid
    wires = [said(ANA, "hi"), said(BOB, "gl", seat=1), said(MALLORY, "took it", seat=1)]
    wires.append(said(EVE, "watching"))
    lines, failure = audit_chat(TABLE, wires, [opened, seated])
    assert failure is None
    assert [(line.seat, line.name) for line in lines] == [
        (0, "Ana"),
        (1, "Bob"),
        (1, "Cid"),
        (None, f"key {fingerprint(EVE.public)}"),
    ]
    edited = said(ANA, "hi")[:-40] + bytes(40)
    assert "signature" in str(audit_chat(TABLE, [*wires, edited], [opened, seated])[1])
    posing = said(BOB, "a spectator, honest", seat=0)  # a seat's key as seat 0
    assert "chat message 0" in str(audit_chat(TABLE, [posing], [opened, seated])[1])
