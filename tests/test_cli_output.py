"""What the headless commands (``host``, ``join`` without a screen) print for a person:
one line per event, ``[who] kind: key=value ...``, with nothing from the network able
to break the line or reach the terminal as an escape sequence."""

from __future__ import annotations

import json

from trutnet.cli.table_commands import _printer, logfmt


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


def test_a_late_mqtt_client_finalizer_is_not_shown_and_anything_else_is():
    """A paho client finalized after the command's loop is gone may fail closing its
    sockets (``Client.__del__``): nothing is left to do, and the person saw 20 lines of
    "Exception ignored" under a one-line refusal; every other unraisable error is shown."""
    from types import SimpleNamespace

    import paho.mqtt.client as paho

    from trutnet.cli import table_commands

    shown = []
    previous = table_commands._quiet_finalizer.default
    table_commands._quiet_finalizer.default = shown.append
    try:
        late = SimpleNamespace(
            exc_value=RuntimeError("Event loop is closed"), object=paho.Client.__del__
        )
        table_commands._quiet_finalizer(late)
        assert shown == []
        other = SimpleNamespace(
            exc_value=ValueError("x"), object=test_json_events_name_their_kind_and_author
        )
        table_commands._quiet_finalizer(other)
        assert shown == [other]
    finally:
        table_commands._quiet_finalizer.default = previous
    import asyncio
    import sys

    hook = sys.unraisablehook
    try:
        table_commands._run(asyncio.sleep(0))  # every network command runs through it
        assert sys.unraisablehook is table_commands._quiet_finalizer
        assert table_commands._quiet_finalizer.default is not table_commands._quiet_finalizer
    finally:
        sys.unraisablehook = hook
