"""The local chain as a query sees it: the log's checkpoint and its ready answers.

What `c4 query` and every read of the local chain need, and nothing that signs,
executes or appends: :class:`LocalReader` answers gno.land's query paths at the
last block from the checkpoint (the log replayed only when the checkpoint does not
describe it), and at a past height from the log replayed up to it.
:class:`c4cli.local.chain.LocalChain` is this reader with the writing half, as a
node's ``NodeChain`` is its ``NodeReader`` with the sender.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from c4cli.chain.interface import Answer, Head, Reader
from c4cli.errors import BadInput
from c4cli.local.loading import LoggedState
from c4cli.local.queries import from_cache

if TYPE_CHECKING:
    from c4cli.local.state import ChainState


class LocalReader(LoggedState):
    """A chain in ``<home>/chain``, read: its answers and its last block."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self._realm_path: str | None = None

    def exists(self) -> bool:
        return self.log.exists()

    def require(self) -> None:
        self.log.require()

    def answers_from_cache(self) -> bool:
        return self.log.exists() and self.cache.fresh(self.log.path)

    @property
    def realm_path(self) -> str:
        # Read once: a chain's realm path is its genesis', and every realm read asks.
        if self._realm_path is None:
            self._realm_path = str(self.cached().stamp["realm_path"])
        return self._realm_path

    @property
    def chain_id(self) -> str:
        return str(self.cached().stamp["chain_id"])

    def head(self) -> Head:
        stamp = self.cached().stamp
        return Head(int(stamp["height"]), int(stamp["time"]))

    def realm_history(self) -> None:
        return None  # the log is the chain's whole history, every block in it

    def stored(self, key: bytes, what: str, height: int = 0, *, after: int = 0) -> None:
        return None  # no proof to ask: the log is the chain, every block of it checked

    def stored_with(
        self, key: bytes, what: str, paths: Sequence[str], height: int = 0, *, latest: bool = False
    ) -> None:
        return None

    def next_block_time(self, wall_clock: float) -> int:
        """When a block made now would be dated (the clock the views count down on)."""
        return self.state().next_block_time(wall_clock)

    def query(self, path: str, data: str = "", *, height: int = 0) -> Answer:
        """A query by gno.land's path: from the checkpoint's ready answers, else the
        state; at a past ``height``, from the log replayed up to it."""
        if height:
            return reader_of(self.state_at(height)).query(path, data, height=height)
        with self.reading():
            return self._answer(path, data)

    def queries(self, asked: Sequence[tuple[str, str]]) -> list[Answer]:
        """Several queries at the last block, under one lock (the same block for all)."""
        with self.reading():
            return [self._answer(path, data) for path, data in asked]

    def _answer(self, path: str, data: str) -> Answer:
        """A query at the last block, inside the lock with the cache brought up to it."""
        answer = from_cache(self.cache, path, data)
        if answer is not None:
            return answer
        return reader_of(self.current()).query(path, data)

    def state_at(self, height: int) -> ChainState:
        """The state after block ``height``: the log replayed, with every check, up to it."""
        with self.log.locked(exclusive=False):
            data = self.log.read_bytes()
            _, offset = self.log.parse_genesis(data)
            end = offset if height == 0 else None
            for span in self.log.spans(data, offset, 1):
                if span.height == height:
                    end = span.end
                    break
            if end is None or height < 0:
                top = self.head().height
                raise BadInput(f"height {height} is not on this chain (its last block is {top})")
            return self.replay(data=data[:end])


def reader_of(state: ChainState) -> Reader:
    """Queries on a state in hand run the realm's code (its import is most of a command's
    start-up): loaded only when the checkpoint's ready answers do not serve."""
    from c4cli.local.state_reader import StateReader

    return StateReader(state)
