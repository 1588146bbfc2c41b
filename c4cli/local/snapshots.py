"""Snapshots of a chain in a folder, as anvil's ``evm_snapshot``/``evm_revert``.

A snapshot is a name for the log as it stands: ``HEIGHT:HASH``, the last block's
height and the first 16 hex digits of its hash. Reverting to it cuts the log back
to that block; the blocks cut off are not deleted but appended, byte for byte, to
``chain/reverted.toml`` beside the log (under a comment naming the revert), before
the log is cut. So a revert killed half-way leaves the blocks in both files, never
in neither, and the log that remains is a prefix of the one before: it replays and
`c4 verify` holds. The hash in the id makes a snapshot of a branch since cut off
refuse to apply, in one line, rather than land on another chain at the same height.

Nothing else in the home is touched: the secrets of offers that no longer exist stay
kept (a later revert may bring their offers back).
"""

from __future__ import annotations

import os
import re
import time as wallclock
from pathlib import Path
from typing import TYPE_CHECKING

from c4cli.chain.clock import format_time
from c4cli.chain.controls import ID_DIGITS, Reverted, Snapshot
from c4cli.errors import BadInput, disk_error
from c4cli.files import PRIVATE_FILE
from c4cli.interrupts import deferred
from c4cli.local.log import BLOCK_MARK

if TYPE_CHECKING:
    from c4cli.local.chain import LocalChain

_ID = re.compile(r"^(0|[1-9][0-9]{0,18}):([0-9a-f]{16})$")
KEPT = "reverted.toml"


def parse_id(text: str) -> tuple[int, str]:
    found = _ID.match(text.strip())
    if found is None:
        raise BadInput(
            f"{text!r} is not a snapshot id: `c4 snapshot` prints one, HEIGHT:HASH (16 hex digits)"
        )
    return int(found[1]), found[2]


def snapshot(chain: LocalChain) -> Snapshot:
    """The log as it stands now (from the checkpoint's stamp: no state is loaded)."""
    stamp = chain.cached().stamp
    return Snapshot(int(stamp["height"]), str(stamp["last_hash"]))


def revert(chain: LocalChain, ident: str) -> Reverted:
    """Cut the log back to the snapshot ``ident``, keeping what is cut in ``reverted.toml``."""
    height, prefix = parse_id(ident)
    log = chain.log
    kept = log.folder / KEPT
    with log.locked(exclusive=True):
        data = log.read_bytes()
        genesis, offset = log.parse_genesis(data)
        end, found_hash, last = offset, str(genesis["hash"]), 0
        if height > 0:
            end = -1
            for span in log.spans(data, offset, 1):
                last = span.height
                if span.height == height:
                    record = log.parse_block(data[span.start : span.end], height)
                    end, found_hash = span.end, str(record["hash"])
                    break
            if end < 0:
                raise BadInput(
                    f"snapshot {ident} matches no block of this chain: its last block is {last}"
                )
        if not found_hash.startswith(prefix):
            raise BadInput(
                f"snapshot {ident} matches no block of this chain: its block {height} is "
                f"{height}:{found_hash[:ID_DIGITS]}"
            )
        cut = data[end:]
        target = Snapshot(height, found_hash)
        if not cut.strip():
            return Reverted(target, 0, kept)
        blocks = cut.count(BLOCK_MARK)
        header = (
            f"\n# c4 revert to {target.id} at {format_time(int(wallclock.time()))}: "
            f"{blocks} block(s) cut from {log.path.name}\n"
        ).encode()
        with deferred():  # a signal waits: the kept copy is whole before the cut
            _append_synced(kept, header + cut)
            log.truncate(end)
            chain.cache.discard()
        return Reverted(target, blocks, kept)


def _append_synced(path: Path, data: bytes) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise disk_error(path, exc, "the log was not cut") from None
