"""A bridge's configuration (``--bridge``, docs/broker.md): the embedded Mosquitto
carries a sealed table's topics and the invitations', and nothing else, to a
rendezvous it can reach; what it cannot take is refused in one line. The bridged game
itself is played across a simulated internet in ``test_internet.py``."""

from __future__ import annotations

import pytest


def test_a_bridge_carries_only_sealed_topics_to_a_rendezvous_a_mosquitto_bridge_can_reach(
    tmp_path, monkeypatch, capsys
):
    """Unit level: the bridge block of the embedded Mosquitto's config, and the one-line
    refusals of a bridge that cannot be (the CLI's, status 2, before anything starts),
    a rendezvous nobody answers at among them."""
    from trutnet.cli import main
    from trutnet.net.broker import BrokerError, EmbeddedBroker, bridge_endpoint, mosquitto_config

    conf = mosquitto_config("10.1.0.2", 18830, tmp_path, bridge_endpoint("mqtt://rv.example:1883"))
    text = conf.read_text()
    assert "address rv.example:1883" in text and "try_private true" in text
    topics = [line.split()[1] for line in text.splitlines() if line.startswith("topic ")]
    assert topics == ["trutnet/v1/sealed/#", "trutnet/v1/invite/#"]  # nothing of an open table
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/trutnet-test/ca.pem")
    (tmp_path / "tls").mkdir()
    tls = mosquitto_config("10.1.0.2", 1, tmp_path / "tls", bridge_endpoint("mqtts://rv"))
    assert "address rv:8883" in tls.read_text()
    assert "bridge_cafile /etc/trutnet-test/ca.pem" in tls.read_text()
    for url in ("ws://rv:80/mqtt", "mqtts://rv:8883#sha256=" + "ab" * 32, "http://rv"):
        with pytest.raises(BrokerError):
            bridge_endpoint(url)
    with pytest.raises(BrokerError, match="needs Mosquitto"):
        EmbeddedBroker(kind="amqtt", bridge=bridge_endpoint("mqtt://rv:1883"))
    monkeypatch.setenv("HOME", str(tmp_path))
    refusals = {
        ("host", "--bridge", "mqtt://rv:1883"): "add --invite or --private",
        ("host", "--private", "--invite"): "do not go together",
        ("host", "--invite", "--bridge", "ws://rv:80"): "no WebSockets",
        ("play", "--invite", "--bridge", "mqtt://rv", "--broker", "mqtt://rv"): "there already",
        # nobody answers there: friends elsewhere would get a command that cannot work
        ("host", "--invite", "--bridge", "mqtt://127.0.0.1:1"): "--bridge: cannot reach",
    }
    for args, said in refusals.items():
        assert main(list(args)) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and said in err[0] and err[0].startswith(f"trutnet {args[0]}:"), err


def test_a_bridged_private_tables_lobby_says_how_friends_elsewhere_join():
    """``play --private --bridge URL``: beside the LAN's command, the lobby gives the
    command that joins through the rendezvous, by its URL and the table's id."""
    import argparse
    from types import SimpleNamespace

    from trutnet.cli.play_command import _lobby_says
    from trutnet.client.view import TableInfo
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.net.broker import parse_broker_url

    ui = SimpleNamespace(info=TableInfo(names=[], fingerprints=[], me=None), table_name="")
    rendezvous = parse_broker_url("mqtt://rv.example:1883")
    args = argparse.Namespace(broker=None, bridge=rendezvous.url, rendezvous=rendezvous,
                              invite=False, hints=True, clock=None, bind="127.0.0.1",
                              announce=True)  # fmt: skip
    table = bytes(range(16))
    _lobby_says(ui, args, TrutGame(TrutConfig(2)), ("Ana's table", table), None, True, "127.0.0.1")
    assert ui.info.join_how[-2:] == [
        'Friends join with: trutnet join "Ana\'s table" --private',
        f"Beyond this LAN: trutnet join --broker mqtt://rv.example:1883 --table {table.hex()}"
        " --private",
    ]
