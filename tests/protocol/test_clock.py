"""A table's turn clock, pure (docs/protocol.md 7.11): the host's rule as the lobby
carries it, and one peer's reading of it on times given."""

from __future__ import annotations

import re

import pytest

from trutnet.crypto import Identity, SeededRandom
from trutnet.protocol.clock import ClockError, ClockRule, TurnClock, clock_text
from trutnet.protocol.lobby import CLOCK, LobbyError, check_announcement, sign_announcement


@pytest.mark.parametrize(
    "text, rule, said",
    [
        ("30", ClockRule(per_move=30), "30 s a decision"),
        ("300+5", ClockRule(bank=300, increment=5), "5:00 each, +5 s a decision"),
        ("600+0", ClockRule(bank=600), "10:00 each"),
        (" 45 ", ClockRule(per_move=45), "45 s a decision"),
    ],
)
def test_a_rule_reads_and_says_itself(text, rule, said):
    from trutnet.client.lobby_view import clock_rule_said

    assert ClockRule.parse(text) == rule
    assert ClockRule.parse(rule.spec()) == rule
    assert clock_rule_said(rule) == said
    assert clock_rule_said(None) == ""


@pytest.mark.parametrize(
    "text, why",
    [
        ("4", "5..3600"),
        ("3601", "5..3600"),
        ("9+5", "bank is 10..7200"),
        ("300+601", "increment is 0..600"),
        ("30s", "not '30s'"),
        ("-5", "not '-5'"),
        ("1" * 17, "SECONDS"),
        (30, "SECONDS"),
    ],
)
def test_a_rule_that_cannot_be_says_what_can(text, why):
    with pytest.raises(ClockError, match=why) as refused:
        ClockRule.parse(text)
    # which part is wrong, and its bounds, for a screen to say in the person's words
    parts = {"5": "per_move", "b": "bank", "i": "increment"}
    assert refused.value.what == parts.get(why[0], "form")
    assert refused.value.bounds == (
        tuple(int(n) for n in re.findall(r"\d+", why)) if ".." in why else (0, 0)
    )


def test_a_clock_and_its_refusals_are_said_in_the_persons_language(capsys):
    """The lobby's clock and ``--clock``'s refusals in French (the protocol's own
    words are English)."""
    from trutnet import i18n
    from trutnet.cli import main
    from trutnet.client.lobby_view import clock_rule_said

    i18n.use("fr")
    try:
        assert clock_rule_said(ClockRule(bank=300, increment=5)) == "5:00 chacun, +5 s par décision"
        for text, said in [
            ("30s", "une horloge est SECONDES pour chaque décision, ou RÉSERVE+INC"),
            ("4", "l'horloge d'une décision est de 5..3600 secondes"),
            ("300+601", "l'incrément d'une pendule d'échecs est de 0..600 secondes"),
        ]:
            with pytest.raises(SystemExit):
                main(["play", "--clock", text, "--lang", "fr"])
            error = " ".join(capsys.readouterr().err.split())
            assert said in error and "a clock" not in error and "seconds" not in error, error
    finally:
        i18n.use("en")


def test_a_decision_clock_gives_each_decision_its_time():
    clock = TurnClock(ClockRule(per_move=30), seats=2)
    clock.waiting(0, now=100.0)
    assert clock.left(0, 110.0) == 20 and clock.left(1, 110.0) == 30
    assert clock.ran_out(129.9) is None and clock.ran_out(130.0) == 0
    clock.waiting(0, now=120.0)  # the same seat still deciding: its turn goes on
    assert clock.ran_out(130.0) == 0
    clock.waiting(1, now=131.0)
    assert clock.left(1, 131.0) == 30 and clock.ran_out(131.0) is None
    clock.waiting(None, now=140.0)  # a shuffle: nobody decides, nobody runs out
    assert clock.ran_out(10_000.0) is None


def test_a_chess_clock_charges_each_seat_its_time_and_adds_the_increment():
    clock = TurnClock(ClockRule(bank=60, increment=5), seats=2)
    clock.waiting(0, now=0.0)
    clock.waiting(1, now=20.0)  # seat 0 spent 20 s: 60 - 20 + 5
    assert clock.banks == [45.0, 60.0]
    clock.waiting(None, now=70.0)  # seat 1 spent 50 s
    assert clock.banks == [45.0, 15.0]
    clock.waiting(1, now=80.0)
    assert clock.left(1, 90.0) == 5 and clock.ran_out(95.0) == 1
    clock.waiting(0, now=200.0)  # far over: the bank stays at zero, then the increment
    assert clock.banks[1] == 5.0


def test_time_is_shown_in_minutes_and_never_below_zero():
    assert [clock_text(s) for s in (0.2, 59, 61, 3725, -3)] == ["0:01", "0:59", "1:01",
                                                                 "1:02:05", "0:00"]  # fmt: skip


def test_the_lobby_carries_a_checked_clock():
    from trutnet.protocol.lobby import ANNOUNCE_VERSION, table_id_for

    host = Identity.generate(SeededRandom("clock/host"))
    nonce = bytes(16)
    table_id = table_id_for(host.public, nonce)
    body = {
        "v": ANNOUNCE_VERSION, "game": "trut", "variant": "classic", "players": 2, "taken": 1,
        "name": "t", "host": "", "table": table_id.hex(), "broker": "mqtt://h:1",
        "status": "open", "private": False, "nonce": nonce,
    }  # fmt: skip
    from trutnet.crypto.identity import fingerprint

    body["host"] = fingerprint(host.public)
    said = check_announcement(sign_announcement(host, table_id, {**body, CLOCK: "300+5"}), table_id)
    assert ClockRule.parse(said[CLOCK]) == ClockRule(bank=300, increment=5)
    for bad in ("1", "x", 30, None):
        with pytest.raises(LobbyError, match="malformed"):
            check_announcement(sign_announcement(host, table_id, {**body, CLOCK: bad}), table_id)
