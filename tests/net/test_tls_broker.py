"""A table over a broker reached by TLS (``--broker mqtts://host:port``): a real
Mosquitto with a TLS listener on loopback, its certificate signed by an authority made
here; the host trusts it through ``SSL_CERT_FILE``, the joiner pins the broker's own
certificate (``mqtts://host:port#sha256=HEX``). A joiner that does not trust it, or
pins another certificate, is told so in one line, and never talks to the broker in
clear.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import subprocess
import threading

import pytest

from tests.mosquitto import free_port
from tests.network_helpers import EARLY, result_of, spawn, track
from trutnet.net.broker import mosquitto_binary

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(mosquitto_binary() is None, reason="needs Mosquitto"),
]


def _authority_and_server(folder):
    """A certificate authority, and the broker's key and certificate (for 127.0.0.1)
    signed by it, as PEM files in ``folder``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    day = datetime.timedelta(days=1)

    def name(text):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("trutnet test authority"))
        .issuer_name(name("trutnet test authority"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - day)
        .not_valid_after(now + day)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder()
        .subject_name(name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - day)
        .not_valid_after(now + day)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "server.pem").write_bytes(server.public_bytes(pem))
    (folder / "server.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    os.chmod(folder / "server.key", 0o600)


@pytest.fixture
def tls_broker(tmp_path):
    """A Mosquitto that speaks MQTT over TLS only, on a free loopback port."""
    _authority_and_server(tmp_path)
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    lines = [
        "per_listener_settings false",
        f"listener {port} 127.0.0.1",
        f"cafile {tmp_path / 'ca.pem'}",
        f"certfile {tmp_path / 'server.pem'}",
        f"keyfile {tmp_path / 'server.key'}",
        "allow_anonymous true",
        "persistence false",
        "log_dest stderr",  # unbuffered: read as it is written
        "log_type information",
    ]
    if os.geteuid() == 0:
        lines.append("user root")
    conf.write_text("\n".join(lines) + "\n")
    broker = track(
        subprocess.Popen(
            [mosquitto_binary() or shutil.which("mosquitto") or "mosquitto", "-c", str(conf)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    )
    up = threading.Event()

    def read() -> None:  # its log, read to the end (a full pipe would stop it)
        assert broker.stdout is not None
        for line in broker.stdout:
            if " running" in line:  # said once its listener is open
                up.set()

    threading.Thread(target=read, daemon=True).start()
    assert up.wait(30) and broker.poll() is None, "mosquitto did not start"
    yield f"mqtts://127.0.0.1:{port}", tmp_path / "ca.pem"
    broker.terminate()
    broker.wait(timeout=10)


def test_a_table_plays_over_a_tls_broker_and_a_joiner_that_does_not_trust_it_is_told(
    tls_broker, tmp_path, monkeypatch
):
    url, ca = tls_broker
    # A joiner with this machine's usual authorities: the broker's is not among them
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    stranger = spawn(["join", "--bot", "heuristic", "--broker", url, "--table", "00" * 16])
    _, err = stranger.communicate(timeout=60)
    assert stranger.returncode != 0
    said = [line for line in err.splitlines() if line.strip()]
    assert len(said) == 1 and "TLS certificate is not one this machine trusts" in said[0], err

    # Pinned to another certificate: refused in one line, before any MQTT is sent
    wrong = f"{url}#sha256={'0' * 64}"
    stranger = spawn(["join", "--bot", "heuristic", "--broker", wrong, "--table", "00" * 16])
    _, err = stranger.communicate(timeout=60)
    said = [line for line in err.splitlines() if line.strip()]
    assert stranger.returncode != 0 and len(said) == 1, err
    assert "shows a TLS certificate that is not the pinned one" in said[0], err

    monkeypatch.setenv("SSL_CERT_FILE", str(ca))  # the host trusts the authority
    common = ["--seed", "tls", "--json"]
    host = spawn(["host", "--players", "2", "--variant", "gatinaise", "--no-announce",
                  "--broker", url, "--store", str(tmp_path / "host"), *common])  # fmt: skip
    from trutnet.runtime.events import announced_table

    table, early = announced_table(host)
    EARLY[host.pid] = early
    # the joiner trusts no authority for it, but pins the broker's own certificate
    monkeypatch.delenv("SSL_CERT_FILE")
    pinned = f"{url}#sha256={_fingerprint(ca.parent / 'server.pem')}"
    joiner = spawn(["join", "--bot", "heuristic", "--table", table, "--name", "p1",
                    "--broker", pinned, "--store", str(tmp_path / "p1"), *common])  # fmt: skip
    results = [result_of(p, timeout=300) for p in (host, joiner)]
    assert results[0]["state_hash"] == results[1]["state_hash"]
    assert all(r["halted"] is None and r["winner"] is not None for r in results), results
    brokers = [{e["broker"] for e in r["events"] if e["event"] == "connected"} for r in results]
    assert brokers == [{url}, {pinned}], brokers


def _fingerprint(pem_file) -> str:
    """The SHA-256 of a certificate's DER encoding, as a pin says it."""
    import hashlib
    import ssl

    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem_file.read_text())).hexdigest()


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("mqtts://h#sha256=" + "AB:" * 31 + "AB", "mqtts://h:8883#sha256=" + "ab" * 32),
        ("mqtts://h:9#sha256=" + "0" * 64, "mqtts://h:9#sha256=" + "0" * 64),
        ("mqtt://h#sha256=" + "0" * 64, None),  # a pin needs TLS
        ("mqtts://h#sha1=" + "0" * 40, None),
        ("mqtts://h#sha256=" + "0" * 63, None),
    ],
)
def test_a_pin_is_64_hex_digits_of_sha256_on_mqtts_only(url, said):
    from trutnet.net.broker import BrokerError, parse_broker_url

    if said is None:
        with pytest.raises(BrokerError, match="a pinned broker looks like"):
            parse_broker_url(url)
    else:
        endpoint = parse_broker_url(url)
        assert endpoint.url == said and endpoint.address == said.split("#")[0]
