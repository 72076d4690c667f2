"""Identity key files on disk (I/O edge): created with mode 0600, read back strictly.

The file holds one line, ``trutnet-ed25519-v1 <hex seed>``. It is written to a
temporary file created with mode 0600 (never readable by others, even briefly),
fsynced, then renamed into place; its directory is made 0700.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from trutnet.crypto.errors import DecodeError
from trutnet.crypto.identity import Identity
from trutnet.i18n import _
from trutnet.store import private_dir

HEADER = "trutnet-ed25519-v1"


class KeyFileError(Exception):
    """A key file that cannot be read, or is readable by others."""


def save_identity(identity: Identity, path: Path) -> None:
    path = Path(path)
    private_dir(path.parent, fix_mode=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, f"{HEADER} {identity.seed().hex()}\n".encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def load_identity(path: Path) -> Identity:
    path = Path(path)
    try:
        mode = path.stat().st_mode
        text = path.read_text()
    except OSError as exc:
        raise KeyFileError(
            _("cannot read key file {path}: {why}").format(path=path, why=exc.strerror)
        ) from exc
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyFileError(
            _("key file {path} is readable by others: chmod 600 it").format(path=path)
        )
    parts = text.split()
    if len(parts) != 2 or parts[0] != HEADER:
        raise KeyFileError(_("{path} is not a trutnet key file").format(path=path))
    try:
        return Identity.from_seed(bytes.fromhex(parts[1]))
    except (ValueError, DecodeError) as exc:
        raise KeyFileError(_("{path}: bad key").format(path=path)) from exc


def load_or_create_identity(path: Path) -> Identity:
    if Path(path).exists():
        return load_identity(path)
    identity = Identity.generate(os.urandom)
    save_identity(identity, path)
    return identity
