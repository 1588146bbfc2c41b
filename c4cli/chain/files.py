"""Files that hold secrets: created 0600 in 0700 folders, written whole or not at all."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from c4cli.errors import HomeDamaged

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dir(path: Path) -> Path:
    """Create ``path`` and any missing parents, each 0700 (mkdir's own parents ignore mode)."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        folder.mkdir(mode=PRIVATE_DIR, exist_ok=True)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write a 0600 file atomically: a crash leaves the old file or the new, never half."""
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` survive a power cut."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_private(path: Path) -> bytes:
    """Read a secret file, refusing one that other users could read."""
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise HomeDamaged(
            f"{path} is readable by other users (mode {stat.S_IMODE(mode):o}); "
            f"fix it with: chmod 600 {path}"
        )
    return path.read_bytes()
