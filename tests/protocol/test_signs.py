"""Signs (``trutnet/protocol/signs.py``, docs/protocol.md 9.8; ruling K15): a 4-player
Truco table in one process, each seat's board fed the same heads; a sign reaches the
partner and the catchers the draws name, and nobody else; partners and catchers open
the same card; a spectator's board (no key) learns who signed and who caught it, not
what; forged, replayed, late and over-the-limit messages are refused."""

from __future__ import annotations

import pytest

from tests.tables import play_memory_game
from trutnet.crypto import SeededRandom
from trutnet.engine.registry import make_game
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.envelope import parse_entry, sign_entry
from trutnet.protocol.signs import CATCH_TYPE, SHOW_TYPE, SIGN_TYPE, SignBoard, sign_id
from trutnet.protocol.untrusted import UntrustedInput


def in_play(catch: int = 1, chicos: int = 3, checked=None):
    """A 4-player Truco table whose first hand is dealt, and one board per seat plus
    a spectator's, each at the log's head (``checked``: one memo of checked proofs for
    all of them, as the simulator's processes share)."""
    game = make_game("truco", {"players": 4, "senas_catch": catch, "chicos": chicos})
    table = play_memory_game(game, 5, ["random"] * 4, until=lambda t: _dealt(t))
    replica = table.peers[0].replica
    boards = [SignBoard(replica.table_id, replica.context, checked) for _ in range(5)]
    for board in boards:
        board.note_head(replica.log.head, 4, replica.state.signs)
    return table, boards


def _dealt(table) -> bool:
    state = table.peers[0].replica.state
    return (
        state is not None
        and getattr(state, "phase", "") == "play"
        and all(len(p.replica.state.hands[s]) == 3 for s, p in enumerate(table.peers))
        and not table.peers[0].replica.round
    )


def deliver(table, boards, wire):
    """``wire`` to every board; every seat's duty (draws, shows) answered in turn, like
    each peer's runtime does; every message that went round."""
    replica = table.peers[0].replica
    publics = dict(enumerate(replica.elgamal))
    seats = list(replica.seats)
    queue, sent = [wire], []
    rng = SeededRandom("duties")
    while queue:
        wire = queue.pop(0)
        sent.append(wire)
        for index, board in enumerate(boards):
            for news in board.receive(wire, publics, seats):
                if index == 4:
                    continue  # the spectator has no duty
                peer = table.peers[index]
                sign = news.sign
                if news.kind == SIGN_TYPE and index in sign.rules.watchers:
                    queue.append(board.catch(peer.identity, peer.elgamal, index, sign, rng))
                if news.kind == CATCH_TYPE and news.caught and sign.seat == index:
                    r, choice = table.kept[sign.id]
                    queue.append(
                        board.show_to(
                            peer.identity, sign, r, choice, news.by, publics[news.by], rng
                        )
                    )
    return sent


def resigned(entry, identity, seq, **changed):
    """``entry`` (a sign message) signed again by ``identity`` as sign ``seq`` of the
    same seat, with ``changed`` fields (``prev``, ``type``, ``body``)."""
    fields = {"prev": entry.prev, "type": entry.type, "body": entry.body, **changed}
    return sign_entry(identity, table=entry.table, seat=entry.seat, seq=seq, **fields).wire


def make_sign(table, boards, seat, choice, seed=""):
    replica = table.peers[0].replica
    peer = table.peers[seat]
    publics = dict(enumerate(replica.elgamal))
    rng = SeededRandom(f"s{seat}/{seed}")
    wire, r = boards[seat].make(peer.identity, seat, replica.log.head, choice, rng, publics)
    from trutnet.protocol.signs import sign_id

    table.kept = getattr(table, "kept", {})
    table.kept[sign_id(wire)] = (r, choice)
    return wire


@pytest.mark.parametrize("catch", [0, 4, 1])
def test_a_sign_reaches_the_partner_and_the_catchers_only_and_all_see_one_card(catch):
    table, boards = in_play(catch)
    sent = deliver(table, boards, make_sign(table, boards, 0, 2))  # 7e
    sign = next(iter(boards[4].signs.values()))  # the spectator's board
    assert sign.seat == 0 and sign.rules.partners == (2,) and set(sign.caught) == {1, 3}
    catchers = {s for s, c in sign.caught.items() if c}
    if catch == 0:
        assert catchers == set()
    if catch == 4:
        assert catchers == {1, 3}
    assert len(sent) == 1 + 2 + len(catchers)  # the sign, two draws, one show a catcher
    for seat in range(4):
        mine = boards[seat].signs[sign.id]
        assert mine.caught == sign.caught  # everyone agrees who caught it
        told = boards[seat].read(mine, seat, table.peers[seat].elgamal)
        if seat == 2 or seat in catchers:
            assert told == "7e"
        elif seat == 0:
            assert told is None  # the signer keeps its own choice, it needs no showing
        else:
            assert told is None
    # the spectator's board holds every shown card, and none is for a key it has
    assert set(sign.shown) == {2} | catchers


def test_the_draws_decide_who_catches_at_the_chance_asked():
    """Twelve signs (three a seat, the limit) on one table: 24 draws at 1/4, each
    seat's draw its own, none the same twice."""
    table, boards = in_play(1)
    for seat in range(4):
        for number in range(3):
            deliver(table, boards, make_sign(table, boards, seat, number, seed=number))
    signs = list(boards[4].signs.values())
    assert len(signs) == 12 and all(len(sign.caught) == 2 for sign in signs)
    caught = sum(sum(sign.caught.values()) for sign in signs)
    assert 1 <= caught <= 14  # 6 expected (the seeds fix it: 2 to 10 is 95%)


def test_forged_replayed_and_over_the_limit_signs_are_refused():
    table, boards = in_play(1)
    replica = table.peers[0].replica
    publics, seats = dict(enumerate(replica.elgamal)), list(replica.seats)
    first = make_sign(table, boards, 1, 0)
    deliver(table, boards, first)
    assert deliver(table, boards, first) == [first]  # read once
    assert len(boards[4].signs) == 1
    entry = parse_entry(first)
    impostor = table.peers[3].identity  # seat 3 signing as seat 1
    forged = resigned(entry, impostor, seq=5)
    with pytest.raises(UntrustedInput, match="does not hold its seat"):
        boards[4].receive(forged, publics, seats)
    # the same card, presented as another sign: its proofs fail
    moved = resigned(entry, table.peers[1].identity, seq=7)
    with pytest.raises(UntrustedInput, match="bad sign"):
        boards[4].receive(moved, publics, seats)
    for choice in (1, 2):
        deliver(table, boards, make_sign(table, boards, 1, choice))
    assert len(boards[4].signs) == 3
    with pytest.raises(ValueError, match="may not sign"):  # K15: three a hand
        make_sign(table, boards, 1, 3)
    junk = resigned(
        entry, table.peers[1].identity, seq=0, type=SHOW_TYPE, body={"sign": b"x" * 32, "shown": []}
    )
    assert boards[4].receive(junk, publics, seats) == []  # waits for a sign never seen
    with pytest.raises(UntrustedInput):
        boards[4].receive(b"\x00" * 9000, publics, seats)


def test_boards_that_share_checked_proofs_check_each_once_and_refuse_a_bad_one_each():
    checked = CheckedProofs()
    table, boards = in_play(4, checked=checked)
    replica = table.peers[0].replica
    publics, seats = dict(enumerate(replica.elgamal)), list(replica.seats)
    first = make_sign(table, boards, 0, 2)
    deliver(table, boards, first)  # a sign, two draws that both catch, two shows
    # six proofs (the card, its show to the partner, two draws, two shows), each
    # checked by one board and taken as checked by the four others
    assert checked.checks == 6, checked.checks
    assert checked.skipped == 4 * 6
    for seat in (1, 2, 3):  # read as before: the partner and both catchers
        mine = boards[seat].signs[sign_id(first)]
        assert boards[seat].read(mine, seat, table.peers[seat].elgamal) == "7e"
    moved = resigned(parse_entry(first), table.peers[0].identity, seq=7)  # its proofs fail
    for board in boards:  # a failed proof is never remembered: each board refuses it
        with pytest.raises(UntrustedInput, match="bad sign"):
            board.receive(moved, publics, seats)
    assert all(board.refused == 1 for board in boards)


def test_a_sign_naming_a_head_not_reached_waits_for_it():
    table, boards = in_play(4)
    replica = table.peers[0].replica
    late = SignBoard(replica.table_id, replica.context)  # has not seen the head yet
    wire = make_sign(table, boards, 2, 4)
    publics, seats = dict(enumerate(replica.elgamal)), list(replica.seats)
    assert late.receive(wire, publics, seats) == []
    news = late.note_head(replica.log.head, 4, replica.state.signs)
    assert [n.kind for n in news] == [SIGN_TYPE]


def test_verify_checks_a_transcripts_signs_without_learning_them(tmp_path, capsys):
    """A whole game (one chico) with two signs in its first hand, saved with them:
    ``trutnet verify`` says how many were made and caught; the audit fails on a sign
    message changed, or one naming a head the log never had (checked with the proofs
    the seats' replicas found checked: the log's own verdict cannot change)."""
    from trutnet.cli import main
    from trutnet.memory_table import step
    from trutnet.protocol.audit import audit
    from trutnet.store import save_transcript

    table, boards = in_play(4, chicos=1)
    for seat, choice in ((0, 1), (3, 6)):
        deliver(table, boards, make_sign(table, boards, seat, choice))
    while step(table):
        pass
    replica = table.peers[0].replica
    assert replica.phase == "done"
    entries = [e.wire for e in replica.log.entries]
    wires = boards[4].wires()
    assert len(wires) == 2 * (1 + 2 + 2)  # each: the sign, two draws, two shows
    good = save_transcript(tmp_path / "game.json", replica.table_id, entries, signs=wires)
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "signs: 2 signs, caught 4 times" in out
    said = [line for line in out.splitlines() if "sign" in line]
    assert not any(card in line.split() for line in said for card in ("1b", "1f"))
    changed = bytearray(wires[1])
    changed[-5] ^= 1
    checked = replica.checked
    report = audit(replica.table_id, entries, checked, signs=[wires[0], bytes(changed)])
    assert report.ok and report.sign_failure.startswith("sign message 1: ")
    entry = parse_entry(wires[0])
    stray = resigned(entry, table.peers[0].identity, seq=9, prev=b"\x07" * 32)
    report = audit(replica.table_id, entries, checked, signs=[*wires, stray])
    assert "names a head that is not in the log" in report.sign_failure
    assert len(report.signs.signs) == 2  # the good ones were read
    replay_shows_who_signed_and_to_the_seat_its_signs(table, entries, wires)
    bad = save_transcript(tmp_path / "bad.json", replica.table_id, entries, signs=[stray])
    assert main(["verify", str(bad)]) == 1  # a person's verify says FAILED
    assert "FAILED: sign message 0" in capsys.readouterr().err


def replay_shows_who_signed_and_to_the_seat_its_signs(table, entries, wires):
    """``trutnet replay``'s log: a spectator reads who signed and who caught it, never
    the sign; a seat's view (seat 2: seat 0's partner, a catcher of seat 3's sign)
    reads the two signs it was shown."""
    from trutnet.client.replay import load_replay
    from trutnet.seat_views import SeatView

    table_id = table.peers[0].replica.table_id
    watched = load_replay(table_id, entries, None, wires)
    said = [line for line in watched.log if line.startswith("✋")]
    assert said[:2] == ["✋ seat 0 makes a sign", "✋ seat 1 caught seat 0's sign"], said
    assert not any("basto" in line or "falso" in line for line in said)
    view = SeatView(table_id, 2, table.peers[2].secrets())
    seen = [line for line in load_replay(table_id, entries, view, wires).log if "✋" in line]
    assert "✋ seat 0 signs to you: ancho de basto (a wink)" in seen, seen
    assert "✋ seat 3's sign, caught: ancho falso (tilted head)" in seen, seen
