"""What a node client proves of a node's blocks, and the validator set it holds them to.

A :class:`TrustedSet` is kept by the home (``trust.toml``, :mod:`c4cli.home.trust`)
and handed to the node client as a :class:`TrustStore`, as the journal is; a
:class:`Proven` block rides in each receipt (:class:`~c4cli.chain.interface.Receipt`).
A :class:`RealmHistory` is the realm's transactions kept from proven blocks (`c4
sync`, :mod:`c4cli.node.history.index`), each an :class:`IndexedTx`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from c4cli.realm.memory import GameRecord, RealmSnapshot
    from c4cli.wire.abci import ResponseDeliverTx
    from c4cli.wire.blocks import Validator

# A validator as tm2 lists one, and as c4 keeps one.


class Stored(NamedTuple):
    """A value of the main store (None: none there) in the state after block ``height``,
    proven by header ``height + 1``'s app hash (node/light/store.py)."""

    key: bytes
    value: bytes | None
    height: int


class Proven(NamedTuple):
    """A block proven by the validators' signatures: its height, hash (hex), time, the
    voting power that signed it of the trusted set's whole, and whether a transaction's
    result in it is proven too."""

    height: int
    block_hash: str
    time: int
    signed: int
    total: int
    # The transaction's result held to the next header's ``last_results_hash`` ("")
    # or why it is the node's word (that block not made yet, a type c4 cannot encode).
    result_unproven: str = "the next block not awaited"


class TrustedSet(NamedTuple):
    """The validator set a home trusts for a node's chain (``trust.toml``): read at block
    ``height`` (its hash, and the hash of the set named to follow it, hex), each
    validator as tm2's ``validators`` lists one, and how the trust came (``source``)."""

    chain_id: str
    height: int
    block_hash: str
    next_hash: str
    validators: tuple[Validator, ...]
    source: str


class TrustStore(Protocol):
    """Where a node client keeps the validator set it trusts: the home's ``trust.toml``
    (:mod:`c4cli.home.trust`), handed in by whoever opens the node, as the journal is."""

    def load(self) -> TrustedSet | None: ...

    def save(self, trusted: TrustedSet) -> None: ...

    def advance(self, trusted: TrustedSet) -> None:
        """The set kept, proven up to a higher block: written only while the store still
        holds that set below that height (a later head or a followed set is never
        overwritten by an older one)."""
        ...

    def forget(self) -> None: ...


# What a transaction of the realm's history did to it (its ``kind``).
CALL = "call"  # a MsgCall of one of the realm's functions
DEPLOY = "deploy"  # the MsgAddPackage of the realm's path
SEND = "send"  # coins sent to the realm's address
RUN = "run"  # a MsgRun whose events come from the realm: not replayed, said so
UNKNOWN = "unknown"  # a message c4 cannot read, or another realm's call, that reached it


class IndexedTx(NamedTuple):
    """One transaction of the realm's history, as its block (proven) holds it."""

    height: int
    position: int  # its place in the block
    time: int  # its block's time, unix seconds
    hash: str  # sha256 of its bytes, base64, as tm2 names a transaction
    kind: str
    signer: str  # the account that signed (its first message's)
    session: str  # the session key's address when one signed, else ""
    func: str  # the realm functions called, comma-separated ("" for other kinds)
    error: str  # the refusal's log, "" when it was delivered
    tx: bytes  # its amino bytes
    # Its ResponseDeliverTx, for what is not replayed (run, unknown: the events that say
    # it reached the realm); None for the rest.
    result: ResponseDeliverTx | None

    @property
    def ok(self) -> bool:
        return not self.error


class Caught(NamedTuple):
    """What bringing a history up to its node's proven head did: the last block it now
    holds, the realm's transactions it found on the way, the head when that holds
    transactions no later block proves yet (0: none waits), and the proven head's time
    (unix seconds; 0: not known): no node answers a query at a later block."""

    height: int
    found: int
    waiting: int
    head_time: int = 0


class RealmHistory(Protocol):
    """The realm's transactions from proven blocks, kept by a node home (`c4 sync`)."""

    @property
    def realm_path(self) -> str: ...

    @property
    def memo(self) -> dict[str, object]:
        """What a caller keeps beside the history for the run (what it derived)."""
        ...

    def begun(self) -> bool:
        """Whether the home keeps this history (a `c4 sync` began it)."""
        ...

    def catch_up(self) -> Caught:
        """The history brought up to the node's proven head (Unverified on a forgery)."""
        ...

    def rows(self, kinds: Sequence[str] = (), above: int = 0) -> Iterator[IndexedTx]:
        """Its transactions in the chain's order (of some kinds), of the blocks after
        ``above``."""
        ...

    def checkpoint(self, code: str) -> ReplayKeep | None:
        """Where the state its rows make is kept between runs, by ``code`` (what names
        the code that makes it: another's is not read); None: made each run."""
        ...


class Saved(NamedTuple):
    """The realm's state as a history's rows make it through block ``height``, kept
    between runs: the state (``RealmState.snapshot``; None before a deployment), why
    the rest is the node's word ("" when c4 makes it), the last time a transaction
    touched the realm, and the coins its calls moved (``Tally`` totals)."""

    height: int
    state: RealmSnapshot | None
    unknown: str
    changed: int
    tally: tuple[int, ...]


class ReplayKeep(Protocol):
    """A history's checkpoint (:mod:`c4cli.node.history.checkpoint`): the last :class:`Saved`,
    and, read one at a time, the settled games and used commitments the state leaves
    out (what the realm's ``Store`` reads) and each game's calls. A part that does not
    hold together raises :class:`CheckpointDamaged`."""

    def load(self, through: int) -> Saved | None:
        """The kept state, when it stands at or below block ``through``."""
        ...

    def save(
        self,
        saved: Saved,
        settled: Sequence[tuple[int, GameRecord]],
        used: Sequence[tuple[str, str]],
        calls: Sequence[tuple[int, int, int]],
    ) -> bool:
        """``saved`` kept, with the games settled, commitments used and calls made
        (game, height, position) since the last; False when a newer one stands."""
        ...

    def record(self, game_id: int) -> GameRecord:
        """A settled game's record (``Game.to_record``), as it was saved."""
        ...

    def used(self, address: str, commitment: str) -> bool: ...

    def calls_of(self, game_id: int, through: int) -> list[IndexedTx]:
        """The history's transactions of calls about game ``game_id`` the checkpoint
        holds, up to block ``through``, in the chain's order."""
        ...

    def commitments(self) -> list[tuple[str, str]]:
        """Every used commitment it keeps out of memory (a fork's genesis holds all)."""
        ...

    def discard(self) -> None:
        """Forget it all: the next run makes the state again from the rows."""
        ...


class CheckpointDamaged(Exception):
    """A checkpoint that does not hold together: made again from the history."""
