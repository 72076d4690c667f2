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
        ("host", "--bridge", "mqtt://rv:1883"): "add --invite",
        ("host", "--invite", "--bridge", "ws://rv:80"): "no WebSockets",
        ("play", "--invite", "--bridge", "mqtt://rv", "--broker", "mqtt://rv"): "there already",
        # nobody answers there: friends elsewhere would get a command that cannot work
        ("host", "--invite", "--bridge", "mqtt://127.0.0.1:1"): "--bridge: cannot reach",
    }
    for args, said in refusals.items():
        assert main(list(args)) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and said in err[0] and err[0].startswith(f"trutnet {args[0]}:"), err
