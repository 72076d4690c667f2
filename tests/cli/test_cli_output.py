"""What the headless commands (``host``, ``join`` without a screen) print for a person:
one line per event, ``[who] kind: key=value ...``, with nothing from the network able
to break the line or reach the terminal as an escape sequence."""

from __future__ import annotations

import json

from trutnet.cli.running import logfmt
from trutnet.cli.running import printer as _printer


def test_an_event_is_one_line_of_key_value_pairs(capsys):
    emit = _printer(False, "host")
    emit("table", {"game": "trut", "variant": "classic deluxe", "players": 4, "private": False})
    emit("finished", {"waited_for": []})
    out = capsys.readouterr().out.splitlines()
    assert out == [
        '[host] table: game=trut variant="classic deluxe" players=4 private=false',
        "[host] finished: waited_for=[]",
    ]


def test_text_from_the_network_stays_one_value_on_one_line():
    notice = "Bob\nx=1 \x1b[2J\x9b31m"
    line = logfmt({"notice": notice, "name": "Zoé", "empty": ""})
    assert "\n" not in line and "\x1b" not in line and "\x9b" not in line
    assert line.startswith('notice="Bob\\nx=1 \\u001b[2J\\u009b31m" name=Zoé empty=""')
    value = line.split(" name=")[0].removeprefix("notice=")
    assert json.loads(value) == notice  # the exact text, readable back


def test_json_events_name_their_kind_and_author(capsys):
    _printer(True, "Ann")("notice", {"event": "forged", "who": "Bob", "text": "hi"})
    event = json.loads(capsys.readouterr().out)
    assert event == {"event": "notice", "who": "Ann", "text": "hi"}
