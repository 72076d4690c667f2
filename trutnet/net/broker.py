"""Brokers behind one small interface: the embedded broker, or an external one.

* :class:`EmbeddedBroker` starts a broker in a child process (``broker_main``), so the
  host's own crypto cannot starve deliveries, and stops it; the child also dies if
  the peer dies. The broker is the system's Mosquitto when it is installed (Linux),
  amqtt otherwise: under the replayed-table load of ``trutnet bench network`` amqtt
  saturates its one core at a few dozen tables while Mosquitto does not
  (``docs/broker.md``). ``TRUTNET_EMBEDDED_BROKER=amqtt|mosquitto`` forces one.
* Every embedded broker lets anyone connect: a private table keeps its secret in its
  traffic, sealed end to end with a key its password's exchange hands out
  (``docs/protocol.md`` 9.10), not in the broker's door. Its config is written to a
  file of mode 0600 in a 0700 folder that is removed as soon as the broker has read it.
* :class:`ExternalBroker` is any MQTT 3.1.1/5 broker the group already runs
  (Mosquitto, EMQX...), given as ``mqtt://host:port``, or ``mqtts://host:port`` over
  TLS (:func:`tls_options`: the certificate and host name checked).
* A bridge (``bridge``, Mosquitto only): the embedded broker also carries the sealed
  tables' and the invitations' topics both ways with a rendezvous broker
  (:func:`bridge_lines`), so LAN seats stay on the LAN and friends elsewhere come
  through the rendezvous.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from trutnet.i18n import _

DEFAULT_PORT = 1883
KINDS = ("mosquitto", "amqtt")


class BrokerError(Exception):
    """A broker that cannot be started, reached, or parsed from a URL."""


@dataclass(frozen=True)
class Endpoint:
    """Where a broker listens; ``tls``: over TLS (``mqtts://``), its certificate checked
    against this machine's trusted authorities (``SSL_CERT_FILE`` adds one) and its
    host name."""

    host: str
    port: int
    tls: bool = False
    # ``mqtts://host:port#sha256=HEX``: the broker's certificate is this one (SHA-256
    # of its DER encoding), whoever signed it and whatever name it bears
    pin: str | None = None
    # ``ws://host:port/path`` (``wss://``: over TLS): MQTT over WebSockets at that path
    path: str | None = None
    # ``mqtt://USER@host:port``: the broker wants that user name, with the password of
    # ``$TRUTNET_BROKER_PASSWORD`` (never in a URL: :func:`broker_credentials`)
    user: str | None = None

    @property
    def url(self) -> str:
        """The URL that reaches it as this process does, its user and pin included."""
        pinned = f"#sha256={self.pin}" if self.pin else ""
        if self.user is None:
            return f"{self.address}{pinned}"
        scheme, rest = self.address.split("://", 1)
        return f"{scheme}://{quote(self.user, safe='')}@{rest}{pinned}"

    @property
    def address(self) -> str:
        """``mqtt[s]://host:port`` (``ws[s]://host:port/path``), without the pin (what an
        announcement says)."""
        if self.path is not None:
            return f"{'wss' if self.tls else 'ws'}://{self.host}:{self.port}{self.path}"
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


TLS_PORT = 8883  # MQTT over TLS, by default
BROKER_PASSWORD_ENV = "TRUTNET_BROKER_PASSWORD"  # the password of a broker's user
# the secrets a peer's environment may hold, which a broker process is not given
SECRET_VARIABLES = ("TRUTNET_TABLE_PASSWORD", BROKER_PASSWORD_ENV)
MAX_USER = 64


def parse_broker_url(url: str) -> Endpoint:
    """A broker's URL: ``mqtt://host:port``, ``mqtts://`` over TLS (``#sha256=HEX``: its
    certificate pinned), ``ws://host:port/path`` or ``wss://`` for MQTT over WebSockets
    (the path ``/mqtt`` when none is given); ``USER@`` before the host for a broker that
    wants a user name (its password is never in the URL)."""
    parts = urlsplit(url)
    if parts.password is not None:
        raise BrokerError(
            _(
                "a broker's password does not go in its URL, which shell history and process"
                " listings show: write mqtt://USER@host:port and set {variable}"
            ).format(variable=BROKER_PASSWORD_ENV)
        )
    user = unquote(parts.username) if parts.username is not None else None
    if user is not None and not (0 < len(user) <= MAX_USER and user.isprintable()):
        raise BrokerError(
            _("a broker's user name is 1 to {most} printable characters").format(most=MAX_USER)
        )
    scheme = parts.scheme
    websockets = scheme in ("ws", "wss")
    if (
        scheme not in ("mqtt", "mqtts", "ws", "wss")
        or not parts.hostname
        or (not websockets and parts.path not in ("", "/"))
        or len(parts.path) > 100
        or parts.query
    ):
        raise BrokerError(
            _(
                "a broker URL looks like mqtt://host:1883 (or mqtts://host:8883, TLS; ws://"
                " or wss://host:port/mqtt, WebSockets), not {url}"
            ).format(url=repr(url[:120]))
        )
    tls = scheme in ("mqtts", "wss")
    try:
        port = parts.port or {"mqtts": TLS_PORT, "ws": 80, "wss": 443}.get(scheme, DEFAULT_PORT)
    except ValueError as exc:
        raise BrokerError(_("bad port in {url}").format(url=repr(url))) from exc
    path = (parts.path or "/mqtt") if websockets else None
    pin = None
    if parts.fragment:
        pin = parts.fragment.removeprefix("sha256=").replace(":", "").lower()
        if (
            not tls
            or not parts.fragment.startswith("sha256=")
            or not re.fullmatch(r"[0-9a-f]{64}", pin)
        ):
            raise BrokerError(
                _(
                    "a pinned broker looks like mqtts://host:8883#sha256=HEX (the SHA-256 of its"
                    " certificate, 64 hex digits), not {url}"
                ).format(url=repr(url[:120]))
            )
    return Endpoint(parts.hostname, port, tls, pin, path, user)


def broker_credentials(endpoint: Endpoint) -> dict[str, str | None]:
    """The MQTT client's user name and password for ``endpoint``: its user, with the
    password of ``$TRUTNET_BROKER_PASSWORD``; none for a broker that wants none."""
    if endpoint.user is None:
        return {}
    return {"username": endpoint.user, "password": os.environ.get(BROKER_PASSWORD_ENV)}


def tls_options(endpoint: Endpoint) -> dict[str, Any]:
    """The MQTT client's options to reach ``endpoint``: WebSockets at its path for
    ``ws[s]://``; a TLS context that checks the certificate and the host name for
    ``mqtts://`` and ``wss://``, or, pinned, that trusts the pinned certificate alone
    (:func:`pinned_context`: it reads the broker's certificate first, a blocking
    call); nothing for ``mqtt://``."""
    options: dict[str, Any] = {}
    if endpoint.path is not None:
        options = {"transport": "websockets", "websocket_path": endpoint.path}
    if not endpoint.tls:
        return options
    import ssl

    if endpoint.pin:
        context = pinned_context(endpoint.host, endpoint.port, endpoint.pin)
        return {**options, "tls_context": context}
    return {**options, "tls_context": ssl.create_default_context()}


@functools.lru_cache(maxsize=16)
def pinned_context(host: str, port: int, pin: str, timeout: float = 10.0) -> Any:
    """A TLS context that trusts exactly the certificate whose SHA-256 is ``pin``.

    The broker's certificate is read once (no check yet) and compared with the pin;
    the context then holds that certificate as its only trust anchor (a partial chain:
    the certificate itself, whoever signed it), with no host-name check (the pin names
    the certificate). A broker that shows another certificate later, the one read
    included, fails the handshake. :class:`BrokerError` when it is not the pinned one,
    or cannot be read (not cached: the next connection reads it again)."""
    import ssl

    try:
        pem = ssl.get_server_certificate((host, port), timeout=timeout)
    except (OSError, ssl.SSLError) as exc:
        raise BrokerError(
            _("cannot read the TLS certificate of {host}:{port}: {why}").format(
                host=host, port=port, why=exc
            )
        ) from exc
    der = ssl.PEM_cert_to_DER_cert(pem)
    shown = hashlib.sha256(der).hexdigest()
    if shown != pin:
        raise BrokerError(
            _(
                "the broker at {host}:{port} shows a TLS certificate that is not the pinned one"
                " (sha256 {shown}…, pinned {pinned}…)"
            ).format(host=host, port=port, shown=shown[:16], pinned=pin[:16])
        )
    context = ssl.create_default_context(cadata=pem)
    context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
    context.check_hostname = False
    return context


class ExternalBroker:
    def __init__(self, url: str) -> None:
        self.endpoint = parse_broker_url(url)

    def start(self) -> Endpoint:
        return self.endpoint

    def stop(self) -> None:
        pass


def mosquitto_binary() -> str | None:
    """The system's Mosquitto, or None. Linux only: its child dies with its parent
    through ``PR_SET_PDEATHSIG``, which survives the ``exec``."""
    if not sys.platform.startswith("linux"):
        return None
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    return binary if os.access(binary, os.X_OK) else None


def embedded_kind() -> str:
    """Which broker :class:`EmbeddedBroker` starts: ``TRUTNET_EMBEDDED_BROKER`` if set,
    else Mosquitto when installed, else amqtt."""
    forced = os.environ.get("TRUTNET_EMBEDDED_BROKER", "")
    if forced:
        if forced not in KINDS:
            raise BrokerError(
                _("TRUTNET_EMBEDDED_BROKER is one of {kinds}").format(kinds=", ".join(KINDS))
            )
        if forced == "mosquitto" and mosquitto_binary() is None:
            raise BrokerError(
                _("TRUTNET_EMBEDDED_BROKER=mosquitto, but mosquitto is not installed")
            )
        return forced
    return "mosquitto" if mosquitto_binary() is not None else "amqtt"


# What a bridge carries between the embedded broker and a rendezvous: a sealed table's
# topics and the invitations' (docs/protocol.md 9.9), nothing of an open table
BRIDGED = ("trutnet/v1/sealed/#", "trutnet/v1/invite/#")


def bridge_endpoint(url: str) -> Endpoint:
    """The rendezvous a table is bridged to (``--bridge URL``): ``mqtt://`` or
    ``mqtts://`` (its certificate checked against this machine's authorities);
    :class:`BrokerError` in one line for what a Mosquitto bridge cannot take."""
    endpoint = parse_broker_url(url)
    if endpoint.path is not None or endpoint.pin is not None:
        raise BrokerError(
            _(
                "a bridge reaches its rendezvous by mqtt://host:port or mqtts://host:port"
                " (no WebSockets, no pinned certificate): {url}"
            ).format(url=repr(url[:120]))
        )
    return endpoint


def bridge_lines(bridge: Endpoint, name: str) -> list[str]:
    """Mosquitto's ``connection`` block that bridges :data:`BRIDGED` both ways with the
    rendezvous at ``bridge`` (bridge mode, so that a Mosquitto rendezvous never sends a
    message back the way it came)."""
    lines = [
        f"connection {name}",
        f"address {bridge.host}:{bridge.port}",
        *(f"topic {topic} both 1" for topic in BRIDGED),
        "cleansession true",
        "try_private true",
        "notifications false",
        "restart_timeout 1 10",  # a lost rendezvous is tried again within 10 s
        "bridge_protocol_version mqttv311",
    ]
    if bridge.tls:  # the rendezvous's certificate, checked as a peer checks it
        extra = os.environ.get("SSL_CERT_FILE")
        capath = ssl.get_default_verify_paths().capath or "/etc/ssl/certs"
        lines.append(f"bridge_cafile {extra}" if extra else f"bridge_capath {capath}")
    if bridge.user is not None:  # in a 0600 file of a 0700 folder, removed once read
        password = broker_credentials(bridge)["password"] or ""
        if not re.fullmatch(r"\S+", bridge.user) or not re.fullmatch(r"\S*", password):
            raise BrokerError(_("a bridged rendezvous's user name and password cannot hold spaces"))
        lines.append(f"remote_username {bridge.user}")
        lines += [f"remote_password {password}"] if password else []
    return lines


def mosquitto_config(host: str, port: int, folder: Path, bridge: Endpoint | None = None) -> Path:
    """Write the config of an embedded Mosquitto in ``folder``; ``bridge``: a
    rendezvous broker its sealed tables are bridged to (:func:`bridge_lines`)."""
    lines = [
        "per_listener_settings false",
        f"listener {port} {host}",
        "set_tcp_nodelay true",
        "persistence false",
        "log_dest none",
        "max_queued_messages 10000",  # a sync answer is up to 2000 entries
        "max_packet_size 262144",  # entries are at most 64 KiB: a bigger packet is cut off
    ]
    if os.geteuid() == 0:
        # Run as root, Mosquitto would switch to its own user, and that clears the
        # parent-death signal (it would outlive a killed host) and cannot read our
        # 0600 files: it runs as this process does, as amqtt would.
        lines.append("user root")
    lines.append("allow_anonymous true")
    if bridge is not None:
        lines += bridge_lines(bridge, f"trutnet-{os.getpid()}-{port}")
    conf = folder / "mosquitto.conf"
    _private_file(conf, "\n".join(lines) + "\n")
    return conf


def _private_file(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def _listening(pid: int, port: int) -> bool:
    """Whether process ``pid`` itself listens on TCP ``port`` (Linux ``/proc``): a
    connection could reach whatever else holds the port, as when Mosquitto failed to
    bind it."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
    except OSError:
        return False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                listen = fields[3] == "0A"
                if listen and int(fields[1].rsplit(":", 1)[1], 16) == port and fields[9] in inodes:
                    return True
    return False


class EmbeddedBroker:
    """A broker in a child process, bound to ``host`` (LAN play: the LAN interface):
    Mosquitto or amqtt (:func:`embedded_kind`)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        kind: str | None = None,
        bridge: Endpoint | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.kind = kind or embedded_kind()
        if self.kind not in KINDS:
            raise BrokerError(f"unknown broker {self.kind!r}")
        self.bridge = bridge  # a rendezvous its sealed tables are bridged to (Mosquitto)
        if bridge is not None and self.kind == "mosquitto":
            bridge_lines(bridge, "check")  # one it cannot take: said here, in one line
        if bridge is not None and self.kind != "mosquitto":
            raise BrokerError(
                _(
                    "bridging a table to {url} needs Mosquitto (the embedded broker here is"
                    " {kind}): install the mosquitto package, or play on the rendezvous"
                    " itself with --broker {url}"
                ).format(url=bridge.address, kind=self.kind)
            )
        self.process: subprocess.Popen[str] | None = None
        self.endpoint: Endpoint | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def start(self, timeout: float = 15.0) -> Endpoint:
        if self.process is not None:
            raise BrokerError("already started")
        folder = Path(tempfile.mkdtemp(prefix="trutnet-broker-"))  # mode 0700
        try:
            return self._start(folder, timeout)
        finally:
            shutil.rmtree(folder, ignore_errors=True)  # the broker has read it, or is gone

    def _start(self, folder: Path, timeout: float) -> Endpoint:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "trutnet.net.broker_main",
                self.host,
                str(self.port),
                str(os.getpid()),
                self.kind,
                str(folder),
                *([self.bridge.url] if self.bridge is not None else []),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            # the peer's secrets stay with it; a rendezvous's password goes to the child
            # for the bridge's config alone (Mosquitto is started without it)
            env={
                **{k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES},
                **(
                    {BROKER_PASSWORD_ENV: os.environ.get(BROKER_PASSWORD_ENV, "")}
                    if self.bridge is not None and self.bridge.user is not None
                    else {}
                ),
                "PYTHONUNBUFFERED": "1",
            },
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        line = ""
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if line.startswith("ready "):
                self.port = int(line.split()[1])
                break
            if line.startswith("port "):  # Mosquitto: exec'd, ready once it accepts
                self.port = int(line.split()[1])
                while time.monotonic() < deadline and self.process.poll() is None:
                    if _listening(self.process.pid, self.port):
                        break
                    time.sleep(0.02)
                else:
                    break
                break
            if self.process.poll() is not None:
                break
        if self.process.poll() is None and line.split()[:1] in (["ready"], ["port"]):
            self.endpoint = Endpoint(self.host, self.port)
            return self.endpoint
        self.stop()
        raise BrokerError(
            _("the embedded broker ({kind}) did not start on {host}:{port}").format(
                kind=self.kind, host=self.host, port=self.port
            )
        )

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None
