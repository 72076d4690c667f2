"""Transcripts, ``trutnet verify``, and resuming a peer after a crash."""

from __future__ import annotations

import contextlib
import json
import stat
import subprocess
import sys

import msgpack
import pytest

from tests import TESTS
from trutnet.engine.canonical import canonical_bytes
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.memory_table import new_memory_table, play_memory_game, step
from trutnet.protocol.audit import audit
from trutnet.protocol.envelope import parse_entry
from trutnet.store import PeerStore, StoreError, load_transcript, save_transcript

CONFIG = TrutConfig(2, start=StartPosition((5, 6), (1, 2), 0))


@pytest.fixture(scope="module")
def game():
    table = play_memory_game(TrutGame(CONFIG), "audit", ["heuristic"] * 2)
    replica = table.peers[0].replica
    assert replica.phase == "done"
    return replica.table_id, [e.wire for e in replica.log.entries]


def test_real_transcript_verifies(game, tmp_path):
    table_id, wires = game
    report = audit(table_id, wires)
    assert report.ok and report.entries == len(wires)
    path = tmp_path / "game.json"
    save_transcript(path, table_id, wires)
    assert load_transcript(path) == (table_id, wires)
    text = path.read_text()
    assert "elgamal" not in text and "secret" not in text


def _resign_free_edit(wire, edit):
    """Edit an entry's body without its author's key: the signature no longer matches."""
    envelope, sig = msgpack.unpackb(wire, raw=False)
    envelope[7] = edit(envelope[7])
    return canonical_bytes([envelope, sig])


def test_tampered_transcripts_are_rejected_with_the_first_failure(game):
    table_id, wires = game
    entries = [parse_entry(w) for w in wires]
    plays = [i for i, e in enumerate(entries) if e.type == "act" and "shares" in e.body]
    results = [i for i, e in enumerate(entries) if e.type == "result"]
    changed_card = list(wires)
    i = plays[0]
    changed_card[i] = _resign_free_edit(wires[i], lambda b: {**b, "action": "play @31"})
    dropped = wires[: plays[0]] + wires[plays[0] + 1 :]
    reordered = list(wires)
    reordered[plays[0]], reordered[plays[0] + 1] = reordered[plays[0] + 1], reordered[plays[0]]
    edited_score = list(wires)
    j = results[0]
    edited_score[j] = _resign_free_edit(wires[j], lambda b: {**b, "winner": 1 - b["winner"]})
    truncated = wires[:-1]
    for name, bad, at in [
        ("changed card", changed_card, plays[0]),
        ("dropped entry", dropped, plays[0]),
        ("reordered", reordered, plays[0]),
        ("edited score", edited_score, results[0]),
        ("truncated", truncated, None),
    ]:
        report = audit(table_id, bad)
        assert not report.ok, name
        assert report.failed_at == at, name
    assert "signature" in audit(table_id, changed_card).failure
    assert "chain" in audit(table_id, dropped).failure or "turn" in audit(table_id, dropped).failure


def test_verify_command_accepts_and_rejects(game, tmp_path):
    table_id, wires = game
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    save_transcript(good, table_id, wires)
    save_transcript(bad, table_id, wires[:5] + wires[6:])

    def run(*a):
        return subprocess.run(
            [sys.executable, "-m", "trutnet", *a],
            capture_output=True,
            text=True,
            timeout=300,
        )

    ok = run("verify", str(good))
    assert ok.returncode == 0, ok.stderr
    assert "OK: the transcript is valid" in ok.stdout and "Game over" in ok.stdout
    replica = audit(table_id, wires).replica  # the winner as named at the table, once
    assert replica.names[:2] == ["seat 0", "seat 1"]
    assert f"valid; seat {replica.state.winning_team()} wins," in ok.stdout
    failed = run("verify", str(bad))
    assert failed.returncode == 1 and "FAILED: entry 5" in failed.stderr
    french = run("verify", str(bad), "--lang", "fr")
    assert french.returncode == 1 and "ÉCHEC : entrée 5 : " in french.stderr, french.stderr
    assert "(les mots du protocole, en anglais)" in french.stderr
    for content in (
        "",
        "{}",
        json.dumps({"format": "trutnet-transcript", "version": 1, "table": "zz", "entries": []}),
    ):
        (tmp_path / "junk.json").write_text(content)
        junk = run("verify", str(tmp_path / "junk.json"))
        assert junk.returncode == 2 and "Traceback" not in junk.stderr
    missing = run("verify", str(tmp_path / "missing.json"))
    assert missing.returncode == 2


@pytest.mark.parametrize(
    ("old", "file"),
    [
        # each play followed by a share round: 2 players from 6 Longs and 2 Petits each,
        # ``play_memory_game(TrutConfig(2, start=StartPosition((6, 6), (2, 2), 0)),
        # "v1-b", ["heuristic"] * 2)``
        (1, "transcript-v1.json"),
        # every round written in seat order, each entry naming the one before it: the
        # same game with the seed "v2-b", saved by the code of protocol version 2
        (2, "transcript-v2.json"),
        # before the table could locate a card (``blind``, ``unblind``): the same game
        # with the seed "v3-b", saved by the code of protocol version 3
        (3, "transcript-v3.json"),
    ],
)
def test_a_transcript_of_an_older_protocol_version_is_refused_naming_both_versions(old, file):
    """``tests/vectors/transcript-v1.json``, ``-v2`` and ``-v3`` are whole games saved
    by trutnet at protocol versions 1, 2 and 3. This version refuses the first
    entry, and says why."""

    from trutnet.protocol.envelope import PROTOCOL_VERSION

    path = TESTS / "vectors" / file
    table_id, wires = load_transcript(path)
    report = audit(table_id, wires)
    assert not report.ok and report.failed_at == 0 and report.blame is None
    assert report.failure == (
        f"[version] an entry of protocol version {old}; this trutnet speaks version "
        f"{PROTOCOL_VERSION}"
    )
    assert PROTOCOL_VERSION == 4
    verify = subprocess.run(
        [sys.executable, "-m", "trutnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert verify.returncode == 1 and "Traceback" not in verify.stderr
    assert f"FAILED: entry 0: [version] an entry of protocol version {old}; " in verify.stderr
    assert "this trutnet speaks version 4" in verify.stderr


def test_peer_killed_mid_hand_resumes_from_its_files(tmp_path):
    short = TrutConfig(3, variant="gatinaise")  # first to 5 Longs: the shorter game
    table = new_memory_table(TrutGame(short), "resume", ["heuristic"] * 3)
    table.attach_stores(tmp_path)
    assert stat.S_IMODE((tmp_path / "seat-1" / "secrets.json").stat().st_mode) == 0o600
    while not (
        table.peers[0].replica.phase == "game" and table.peers[0].replica.state.hand_number == 1
    ):
        assert step(table)
    table.kill(1)
    for _ in range(3):  # the others go on while seat 1 is down (until they need it)
        step(table)
    table.restart(1, "resume/after-crash")
    while step(table):
        pass
    replicas = [p.replica for p in table.peers]
    assert {r.phase for r in replicas} == {"done"}
    assert len({r.state.state_hash() for r in replicas}) == 1
    assert not [e for _, e in table.rejected if e.blame is not None]


def test_torn_last_record_is_dropped(tmp_path):
    store = PeerStore(tmp_path)
    store.append(b"one")
    store.append(b"two")
    with open(store.log_path, "ab") as f:
        f.write(b"\x00\x00\x00\x09par")  # a crash in the middle of an append
    assert store.entries() == [b"one", b"two"]
    with pytest.raises(StoreError):
        store.load_secrets()


@pytest.mark.parametrize("torn", [b"\x00", b"\x00\x00\x00\x09", b"\x00\x00\x00\x09par"])
def test_a_seat_resumed_after_a_torn_record_appends_where_a_reader_looks(tmp_path, torn):
    """Found by ``trutnet sim --torn``: a seat that died mid-append, once resumed, wrote
    its next records after the torn bytes, so its log read as garbage the next time."""
    store = PeerStore(tmp_path)
    store.append(b"one")
    with open(store.log_path, "ab") as f:
        f.write(torn)  # a crash in the middle of an append
    resumed = PeerStore(tmp_path)
    assert resumed.entries() == [b"one"] and resumed.count() == 1
    resumed.append(b"two")
    resumed.append(b"three")
    assert PeerStore(tmp_path).entries() == [b"one", b"two", b"three"]
    assert resumed.count() == 3


# ------------------------------------------------- a blame, proven offline (7.5)


def test_an_equivocation_the_table_stopped_on_is_proven_from_the_transcript_alone():
    """Seat 1 signs two valid shuffles for one place: the honest replicas stop on it,
    and the log plus the blame's evidence prove it to anyone."""
    from tests.protocol.test_protocol_table import (
        CONFIG,
        expecting,
        forge,
        honest_shuffle,
        run_until,
    )
    from trutnet.crypto import SeededRandom, encode_shuffle, shuffle
    from trutnet.protocol.table import Rejected

    table = run_until(CONFIG, expecting(1, "shuffle"))
    peer, replica, source, ctx = honest_shuffle(table, 1)
    for seed in (7, 8):  # two honest shuffles of the same deck, each one valid
        out, proof = shuffle(source, replica.joint, ctx, replica.elgamal, SeededRandom(seed))
        wire = forge(peer, "shuffle", {"deck": encode_shuffle(out, proof)})
        for honest_peer in (table.peers[0], table.peers[2]):
            with contextlib.suppress(Rejected):  # the second one is refused
                honest_peer.receive(wire)
    honest = table.peers[0].replica
    rule = "equivocation"
    blame = honest.halted
    assert (blame.seat, blame.rule) == (1, rule) and len(blame.evidence) == 2
    log = [e.wire for e in honest.log.entries]
    report = audit(honest.table_id, log, evidence=blame.evidence)
    assert report.proven is not None and (report.proven.seat, report.proven.rule) == (1, rule)
    # without the evidence, or with an entry every replica takes, nothing is proven
    assert audit(honest.table_id, log).proven is None
    logged = [wire for wire in blame.evidence if wire in log]  # the one the table took
    assert len(logged) == 1
    report = audit(honest.table_id, log, evidence=logged)
    assert report.proven is None and report.unproven is not None
    # the other alone is proof enough: the log holds its twin
    other = [wire for wire in blame.evidence if wire not in log]
    assert audit(honest.table_id, log, evidence=other).proven == blame
    report = audit(honest.table_id, log, evidence=[b"\x00junk", b""])
    assert report.proven is None and report.unproven is not None


def test_a_bad_shuffle_proof_is_proven_on_its_signer(tmp_path):
    """The evidence goes into the transcript and comes back from it, bounded."""
    from tests.protocol.test_protocol_table import (
        CONFIG,
        deliver_to_honest,
        expecting,
        forge,
        run_until,
    )
    from trutnet.crypto import SeededRandom, encode_shuffle, shuffle
    from trutnet.store import read_transcript

    table = run_until(CONFIG, expecting(1, "shuffle"))
    cheater = table.peers[1]
    replica = cheater.replica
    ctx = replica.context("shuffle/french32/1")
    out, proof = shuffle(replica.deck, replica.joint, ctx, replica.elgamal, SeededRandom(3))
    data = encode_shuffle(out, proof)
    wire = forge(cheater, "shuffle", {"deck": data[:-1] + bytes([data[-1] ^ 1])})
    deliver_to_honest(table, 1, wire)
    honest = table.peers[0].replica
    assert honest.halted is not None and honest.halted.rule == "shuffle-proof"
    log = [e.wire for e in honest.log.entries]
    path = save_transcript(
        tmp_path / "t.json", honest.table_id, log, evidence=honest.halted.evidence
    )
    saved = json.loads(path.read_text())
    assert len(saved["evidence"]) == 1
    transcript = read_transcript(path)
    assert transcript.evidence == [wire]
    report = audit(transcript.table_id, transcript.entries, evidence=transcript.evidence)
    assert (report.proven.seat, report.proven.rule) == (1, "shuffle-proof")
    # a transcript that names more evidence than a blame has is refused with one line
    saved["evidence"] = saved["evidence"] * 3
    (tmp_path / "more.json").write_text(json.dumps(saved))
    with pytest.raises(StoreError, match="evidence"):
        read_transcript(tmp_path / "more.json")
