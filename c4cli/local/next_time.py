"""The time ``c4 cheat next-time`` wished for the next block, kept in ``chain/next-time``
until a block takes it (a wish, not the chain's: the block records its own time).

Every load of the state reads it, so it is a module of its own that the cheats
(which write it) and the log's readers (which read it) share.
"""

from __future__ import annotations

from pathlib import Path

from c4cli.chain.clock import format_time, parse_time
from c4cli.errors import BadInput, disk_error

FILE = "next-time"


def pin(folder: Path, unix: int) -> None:
    """Date the next block ``unix`` (the caller checked it and holds the lock)."""
    path = folder / FILE
    try:
        path.write_text(f"{format_time(unix)}\n")
    except OSError as exc:
        raise disk_error(path, exc, "the next block's time was not set") from None


def pinned(folder: Path) -> int:
    """The time set for the next block; 0 when none is set."""
    try:
        return parse_time((folder / FILE).read_text().strip())
    except (OSError, BadInput):
        return 0  # none set, or unreadable: the clock as it always runs


def unpin(folder: Path) -> None:
    """The next block was made: its time was taken."""
    (folder / FILE).unlink(missing_ok=True)
