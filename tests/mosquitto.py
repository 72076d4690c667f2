"""Start a real Mosquitto on a free loopback port, for the network tests (``users``: one
that lets in only these users, each with its password)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def mosquitto(users: dict[str, str] | None = None) -> Iterator[str]:
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(binary).exists():
        raise RuntimeError("mosquitto is not installed (.ci/run installs it with apt)")
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        conf = Path(tmp) / "mosquitto.conf"
        access = "allow_anonymous true\n"
        if users is not None:
            passwords = Path(tmp) / "passwords"
            for user, password in users.items():
                subprocess.run(
                    ["mosquitto_passwd", *(["-c"] if not passwords.exists() else []), "-b",
                     str(passwords), user, password],
                    check=True, capture_output=True,
                )  # fmt: skip
            access = f"allow_anonymous false\npassword_file {passwords}\n"
            access += "user root\n" if os.geteuid() == 0 else ""  # it reads our 0600 file
        conf.write_text(
            f"listener {port} 127.0.0.1\n{access}"
            "set_tcp_nodelay true\npersistence false\nlog_type none\n"
        )
        proc = subprocess.Popen(
            [binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            else:
                raise RuntimeError("mosquitto did not start")
            yield f"mqtt://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(timeout=10)
