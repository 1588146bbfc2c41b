"""A home's block log and the state it replays to, through a checkpoint when one fits.

Every read starts from the checkpoint when it describes exactly this log file;
from the checkpoint plus the blocks appended after it when the log has only grown
since (checkpoint + tail); and otherwise replays from genesis with every check.
The checkpoint is a cache: one that cannot be saved never fails a command.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from c4cli.errors import HomeDamaged, notice
from c4cli.local import next_time
from c4cli.local.cache import Cache, Mark
from c4cli.local.log import BlockLog, GenesisRecord, chain_digest
from c4cli.local.projection import TxRow

if TYPE_CHECKING:
    from c4cli.local.state import ChainState


class LoggedState:
    """The log in ``<home>/chain`` and its checkpoint; the state at its last block."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.log = BlockLog(home)
        self.cache = Cache(home / "chain" / "cache")
        # Where the state last loaded stands in the log, and how many blocks
        # loading it executed (0 from a checkpoint of this very log).
        self.mark = Mark(0, b"")
        self.replayed = 0

    # -- reading ------------------------------------------------------------------

    def state(self) -> ChainState:
        """The state at the last block, under a shared lock."""
        with self.log.locked(exclusive=False):
            return self.current()

    def cached(self) -> Cache:
        """The cache, made to describe the log as it is now (its ready answers)."""
        with self.reading() as cache:
            return cache

    @contextmanager
    def reading(self) -> Iterator[Cache]:
        """A shared lock on the log, held while the caller reads, with the cache brought
        up to the log first (its ready answers, and the outcomes of its blocks)."""
        with self.log.locked(exclusive=False):
            if not self.cache.fresh(self.log.path):
                self.current()
            yield self.cache

    def current(self) -> ChainState:
        """The state at the last block (the caller holds the lock), with the time `c4
        cheat next-time` set for the next block."""
        state = self._loaded()
        state.pinned_time = next_time.pinned(self.log.folder)
        return state

    def _loaded(self) -> ChainState:
        """The state at the last block: the checkpoint, the checkpoint and the blocks
        after it, or the log replayed from genesis, whichever fits this log."""
        self.replayed = 0
        if self.cache.fresh(self.log.path):
            state = self.cache.load()
            if state is not None:
                self.mark = self.cache.mark
                return state
        data = self.log.read_bytes()
        if self.cache.checkpoint() is not None:
            mark = self.cache.mark
            if self.log.digest_through(data, mark.offset) == mark.digest:
                state = self.cache.load()
                if state is not None and self._catch_up(state, data, mark):
                    return state
        txs: list[TxRow] = []
        state = self.replay(txs=txs, data=data)
        self.not_cut(len(data))  # after the replay: an edit or a torn block says so first
        self.replayed = state.height
        digest = self.log.digest_through(data, len(data))
        assert digest is not None, "a log that replays has whole blocks"
        self.mark = Mark(len(data), digest)
        genesis, _ = self.log.parse_genesis(data)
        self._save_cache(state, full=True, txs=txs, genesis=genesis)
        return state

    def not_cut(self, size: int) -> None:
        """Refuse a log (that replays) shorter than the checkpoint saw it: whole blocks
        cut off the end, transactions this home acknowledged gone. Deleting the cache
        accepts the shorter log (a backup restored on purpose); `c4 verify --repair`
        of a torn final block does so itself."""
        stamp = self.cache.checkpoint()
        if stamp is None:
            return
        try:
            offset, height = int(stamp["offset"]), int(stamp["height"])
        except (KeyError, TypeError, ValueError):
            return
        if size < offset:
            raise HomeDamaged(
                f"{self.log.path} is shorter than this home last saw it ({size} bytes, was "
                f"{offset} at height {height}): blocks this home acknowledged are gone; "
                f"`c4 verify` checks what is left, and deleting {self.cache.path.parent} "
                "accepts the shorter log"
            )

    def _catch_up(self, state: ChainState, data: bytes, mark: Mark) -> bool:
        """Execute the blocks the log gained after the checkpoint, and save it again.

        False if the checkpoint could not take them: the caller replays instead.
        """
        from c4cli.local.replay import keep_outcomes, naming  # blocks to execute: not a read

        txs: list[TxRow] = []
        digest = mark.digest
        with naming(self.log):
            for raw in self.log.parse_blocks(data, mark.offset, state.height + 1):
                keep_outcomes(txs, state, state.apply_block(raw.record))
                digest = chain_digest(digest, data[raw.offset : raw.end])
                self.replayed += 1
        if not self.replayed:
            # The same blocks in a file touched since (or copied, or with blank lines
            # after the last block): only the identity the checkpoint records is
            # refreshed. Where that cannot be saved (a read-only or full home), the
            # caller replays, and the whole state goes to the cache kept in memory.
            self.mark = mark
            return self._save_cache(state, full=False, txs=[])
        self.mark = Mark(len(data), digest)
        return self._save_cache(state, full=False, txs=txs)

    def _save_cache(
        self,
        state: ChainState,
        *,
        full: bool,
        txs: list[TxRow],
        genesis: GenesisRecord | None = None,
        appended: bool = False,
    ) -> bool:
        """Save the checkpoint; a home that cannot take it keeps one in memory instead.

        The cache is a cache: a full disk, a read-only medium or an I/O error
        never fails a command. After an append the command says so in one
        warning line; later commands replay the log and give the same answers.
        Returns whether the checkpoint on disk was saved.
        """
        try:
            self.cache.save(state, self.log.path, self.mark, full=full, txs=txs, genesis=genesis)
            return True
        except (OSError, sqlite3.Error) as exc:
            self.cache.close()
            if appended:
                notice(
                    f"warning: the cache in {self.cache.path.parent} could not be saved "
                    f"({_reason(exc)}); the transaction is recorded, and later commands "
                    "replay the log instead"
                )
            # This process goes on with a cache in memory: rebuilt from the log
            # (the next read replays it), so its answers are the log's.
            self.cache = Cache(None)
            if full:
                self.cache.save(
                    state, self.log.path, self.mark, full=True, txs=txs, genesis=genesis
                )
            return False

    def replay(
        self,
        *,
        verify: bool = False,
        timings: dict[str, float] | None = None,
        txs: list[TxRow] | None = None,
        data: bytes | None = None,
    ) -> ChainState:
        """Every block from genesis with every check; with ``verify``, checks in parallel."""
        from c4cli.local.replay import replay  # the transactions' types, their checks

        return replay(self.log, parallel=verify, timings=timings, txs=txs, data=data)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
