"""What only a chain in a folder has, beside the :class:`~c4cli.chain.interface.Chain`
every backend is: making it (from nothing, or from a state a dump wrote), its clock,
anvil's cheats, snapshots, and checking or repairing its log.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from c4cli.chain.interface import Chain, Head, Verified
from c4cli.coins import Coins

if TYPE_CHECKING:
    from c4cli.local.genesis import Genesis

ID_DIGITS = 16  # of a block's hash in a snapshot's id


class Snapshot(NamedTuple):
    """The log as it stood: its last block's height and hash (hex)."""

    height: int
    hash: str

    @property
    def id(self) -> str:
        return f"{self.height}:{self.hash[:ID_DIGITS]}"


class Reverted(NamedTuple):
    snapshot: Snapshot
    blocks: int  # how many blocks were cut off (0: the log already ended there)
    kept: Path  # the file they were appended to


class LocalControls(Chain, Protocol):
    """What only a chain in a folder has, as anvil has beside its RPC: making it, moving
    its clock, and checking or repairing its log."""

    def exists(self) -> bool: ...

    def require(self) -> None:
        """Exit 3, in one line, if the home holds no chain."""
        ...

    def answers_from_cache(self) -> bool:
        """Whether a read now is answered as the log stands, without replaying a block
        or writing the cache (what a shell's completion may do, and no more)."""
        ...

    def refuse_existing(self, *, force: bool) -> None:
        """`c4 init` without --force on a home that has a chain: refused, nothing touched."""
        ...

    def init(self, genesis: Genesis, *, force: bool = False, begun: bytes | None = None) -> object:
        """A new chain from ``genesis``, and from the state ``begun`` (a document `c4
        cheat dump` wrote, whose sha256 the genesis names) when it begins from one."""
        ...

    def advance(self, seconds: int) -> Head:
        """Mine an empty block ``seconds`` after the last one."""
        ...

    def set_time(self, unix: int) -> Head:
        """Mine an empty block at exactly ``unix`` (after the last block)."""
        ...

    def mine(self, count: int) -> Head:
        """Mine ``count`` empty blocks (anvil_mine)."""
        ...

    def set_balance(self, address: str, coins: Coins) -> Head:
        """A block that sets an account's coins to exactly ``coins`` (anvil_setBalance)."""
        ...

    def set_next_time(self, unix: int) -> int:
        """Date the next block ``unix``, whatever makes it (evm_setNextBlockTimestamp)."""
        ...

    def opening(self, address: str) -> Coins:
        """What ``address`` held at genesis (a premine, or the state the chain began from)."""
        ...

    def load(self, data: bytes) -> Head:
        """The chain begun again from a state document, its log kept beside it
        (anvil_loadState, over `c4 serve`'s RPC)."""
        ...

    def dump(self) -> bytes:
        """The whole state at the last block, as a document (anvil_dumpState)."""
        ...

    def verify(self, timings: dict[str, float] | None = None) -> Verified: ...

    def repair(self) -> int | None:
        """Cut a torn final block off the log: the height kept, or None if it was whole."""
        ...

    def snapshot(self) -> Snapshot:
        """A name for the log as it stands (anvil's evm_snapshot)."""
        ...

    def revert(self, ident: str) -> Reverted:
        """Cut the log back to a snapshot, keeping the blocks cut off beside it."""
        ...
