"""Files that hold secrets: created 0600 in 0700 folders, written whole or not at all;
and every file a user hands c4, read within a bound."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path

from c4cli import faults
from c4cli.errors import BadInput, HomeDamaged, disk_error, warn_once
from c4cli.interrupts import deferred

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


def write_private(
    path: Path,
    data: bytes,
    *,
    fault: str = "",
    consequence: str = "nothing was signed or sent",
    exclusive: bool = False,
) -> None:
    """Write a 0600 file atomically: a crash leaves the old file or the new, never half.

    A file that cannot be written (disk full, read-only, I/O error) stops the
    command with one line before anything is signed or sent; no temporary file
    is left behind. ``fault`` names the point for the tests' fault seam.
    ``exclusive``: the file must not exist yet, and of two writers at once exactly
    one wins (the other gets FileExistsError), never a silent replacement.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with deferred():
            private_dir(path.parent)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
            try:
                written = 0
                while written < len(data):
                    written += os.write(fd, data[written:])
                if fault:
                    faults.check(fault)
                os.fsync(fd)
            finally:
                os.close(fd)
            if exclusive:
                os.link(tmp, path)  # fails if the name exists: a rename would replace it
            else:
                os.replace(tmp, path)
            fsync_dir(path.parent)
    except FileExistsError:
        raise
    except OSError as exc:
        raise disk_error(path, exc, consequence) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` survive a power cut."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_private(path: Path) -> bytes:
    """Read a secret file, refusing one that other users could read, a symbolic link
    (whose advice to chmod would change the file it points at), and anything but a
    plain file (a FIFO would hang the command, a device would never end)."""
    if path.is_symlink():
        raise HomeDamaged(
            f"{path} is a symbolic link (to {os.readlink(path)}): c4 reads only plain files "
            "here; put the file itself in its place"
        )
    # Opened without blocking and without following a link put there since: what is
    # checked is what is read.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise HomeDamaged(
                f"{path} is not a plain file (a FIFO, a device or a folder): c4 reads only "
                "plain files here"
            )
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise HomeDamaged(
                f"{path} is readable by other users (mode {stat.S_IMODE(mode):o}); "
                f"fix it with: chmod 600 {path}"
            )
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


def warn_if_exposed(home: Path) -> None:
    """One warning line when the home others could tamper with holds keys c4 is about
    to use: writable by every user, or owned by another user."""
    try:
        info = home.stat()
    except OSError:
        return
    if info.st_mode & stat.S_IWOTH:
        warn_once(
            f"warning: {home} is writable by every user (mode {stat.S_IMODE(info.st_mode):o}): "
            f"anyone can replace its keys, secrets or chain; fix it with: chmod o-w {home}"
        )
    elif hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        warn_once(f"warning: {home} belongs to another user (uid {info.st_uid})")


KIB, MIB = 1 << 10, 1 << 20
CHUNK = 64 * KIB  # a read at a time: Ctrl-C is taken between two


def read_bounded(given: str, limit: int, what: str) -> bytes:
    """The bytes of the file ``given`` names ("-": stdin), refused past ``limit`` bytes
    in one line: a device that never ends (/dev/zero), a FIFO or a file of another kind
    is read a chunk at a time and stops there, interruptible."""
    name = "stdin" if given == "-" else given
    try:
        handle = sys.stdin.buffer if given == "-" else open(given, "rb")  # noqa: SIM115
    except OSError as exc:
        raise BadInput(f"cannot read {what} {name}: {exc.strerror or exc}") from None
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= limit:
            chunk = handle.read(min(CHUNK, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise BadInput(f"cannot read {what} {name}: {exc.strerror or exc}") from None
    finally:
        if given != "-":
            handle.close()
    raise BadInput(f"{what} {name} is larger than {_size(limit)}: not one c4 reads")


def _size(count: int) -> str:
    return f"{count // MIB} MiB" if count >= MIB else f"{count // KIB} KiB"
