"""`c4 sync`: the realm's history read from a node's blocks, each proven before it is kept.

The blocks are read in chunks, oldest first. For a chunk of blocks ``a`` to ``b``:

1. one request asks the metas of blocks ``a`` to ``b + 1`` (20 a ``blockchain``
   call, 999 blocks a chunk) and the commit of block ``b + 1``; that header is proven
   by the validators' signatures (the light client,
   :class:`~c4cli.node.light.verify.Verifier`), and each header below it by the hash chain:
   block ``h``'s header must hash to the ``last_block_id`` of block ``h + 1``, down to
   ``a``, whose own must be the hash of the last block the index holds (a history
   brought up again asks its next blocks' metas with the head's commit: a command
   on a synced home pays one request for the blocks made since);
2. the blocks that hold transactions (a meta's ``num_txs``; empty ones are never
   fetched) are fetched with their results, 50 blocks a request; each block is held
   to its proven header's ``data_hash``,
3. and its results to block ``h + 1``'s ``last_results_hash``: each transaction's
   delivery or refusal is the one committed (every such block's: a call through
   another realm, or code run once, reaches the realm too, and only its events say so);
4. the transactions that touched the realm are written with the chunk's end in one
   SQLite transaction (:class:`~c4cli.node.history.index.RealmIndex`).

Nothing a forged answer says is written: a chunk is kept whole or not at all, and a
failure (exit 4) names the block and what did not hold. The index reaches the block
before the node's proven head: a block's results are proven by the header after it.
"""

from __future__ import annotations

import time as wallclock
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from c4cli.address import package_address
from c4cli.chain.trust import DEPLOY, Caught, IndexedTx, Proven
from c4cli.errors import BadInput, Unreachable, Unverified
from c4cli.node.history.checkpoint import Checkpoint
from c4cli.node.history.index import RealmIndex, Synced
from c4cli.node.history.rows import Kept, realm_row
from c4cli.node.light.verify import Verifier, results_committed
from c4cli.node.net import rpc
from c4cli.node.net.rpc import Malformed
from c4cli.node.reader import METAS, NodeReader
from c4cli.wire.abci import Unencodable
from c4cli.wire.blocks import Header
from c4cli.wire.rpc import ResultBlock, ResultBlockResults

# A sync's requests are longer than a command's (tm2 takes 1000 calls a batch by
# default; a node that takes fewer says so, and is asked in shorter ones).
BATCH = 100  # calls a request: blocks and their results
CHUNK = METAS * 50 - 1  # blocks a step: their metas and the next one's in one request
RIDE = 3  # calls of metas asked with the head's commit when a history is brought up
RESULTS_WAIT = 3.0  # seconds a head holding transactions waits for the block after it

Progress = Callable[[int, int], None]  # (the block reached, the block to reach)


class SyncReport(NamedTuple):
    """What one sync did: the blocks it read (``start`` to ``reached.height``; none
    when ``start`` is past it), how many held transactions, and the realm's kept;
    ``waiting``: the head, when it holds transactions no later block proves yet;
    ``head``: the node's head, proven."""

    start: int
    reached: Synced
    busy: int
    found: int
    total: int
    waiting: int
    head: Proven


class NodeHistory:
    """A node home's history of its realm (the RealmHistory interface): the index in
    the home, brought up to the node's proven head on demand."""

    def __init__(self, reader: NodeReader, path: Path, chain_id: str) -> None:
        self.reader = reader  # its chain is checked to be ``chain_id`` by its first read
        self.index = RealmIndex(path, chain_id, reader.realm_path)
        self._memo: dict[str, object] = {}

    @property
    def realm_path(self) -> str:
        return self.index.realm_path

    @property
    def memo(self) -> dict[str, object]:
        return self._memo

    def sync(self, first: int | None = None, progress: Progress | None = None) -> SyncReport:
        """The index brought up to the node's proven head (from ``first`` on a first
        sync; a history that began elsewhere is refused)."""
        kept = self.index.synced()
        if kept is not None and first is not None and first != kept.first:
            raise BadInput(
                f"this home's history of the realm begins at block {kept.first}, not {first}: "
                f"delete {self.index.path} to begin it elsewhere"
            )
        verifier = self.reader.verifier
        assert verifier is not None, "a history is opened where blocks are proven"
        return sync(self.reader, verifier, self.index, first=first or 1, progress=progress)

    def begun(self) -> bool:
        return self.index.synced() is not None

    def catch_up(self) -> Caught:
        report = self.sync()
        reached = report.reached
        return Caught(reached.height, report.found, report.waiting, report.head.time)

    def rows(self, kinds: Sequence[str] = (), above: int = 0) -> Iterator[IndexedTx]:
        return self.index.txs(kinds=kinds, above=above)

    def checkpoint(self, code: str) -> Checkpoint:
        found = self._memo.get("checkpoint")
        if not isinstance(found, Checkpoint):
            found = self._memo["checkpoint"] = Checkpoint(self.index, code)
        return found


def sync(
    reader: NodeReader,
    verifier: Verifier,
    index: RealmIndex,
    *,
    first: int = 1,
    progress: Progress | None = None,
    wait: float = RESULTS_WAIT,
) -> SyncReport:
    """Bring ``index`` up to the block before the node's proven head; from ``first``
    when it holds nothing yet, else from the block after the last it holds. A head
    that holds transactions is followed by a block proving their results (tm2 makes
    one at once, for the new app hash): it is waited for, ``wait`` seconds at most."""
    was = index.synced()
    if was is None:
        was = Synced(first, first - 1, "", 0)
    start, reached = was.height + 1, was
    importers = index.importers()  # grown by the chunks, kept with each
    busy = found = 0
    deadline = wallclock.monotonic() + wait
    while True:
        head, known = _head(reader, verifier, reached.height + 1 if was.height else 0)
        busy_head: bool | None = None  # whether the head holds transactions, once known
        if head.height in known:
            busy_head = known[head.height].num_txs > 0
        while reached.height < head.height - 1:
            low, high = reached.height + 1, min(reached.height + CHUNK, head.height - 1)
            done = _chunk(reader, verifier, reached, low, high, head, known, importers)
            deployed = next((r.height for r in done.rows if r.kind == DEPLOY and r.ok), 0)
            reached = Synced(reached.first, high, done.top, reached.deployed or deployed)
            index.append(done.rows, reached, importers)
            busy, found = busy + done.busy, found + len(done.rows)
            busy_head = done.busy_above
            if progress is not None:
                progress(high, head.height - 1)
        if busy_head is None:
            busy_head = _holds_txs(reader, head.height)
        if not busy_head or not _newer(verifier, head.height, deadline):
            break
    waiting = head.height if busy_head else 0
    index.settle()
    return SyncReport(start, reached, busy, found, index.count(), waiting, head)


def _head(reader: NodeReader, verifier: Verifier, low: int) -> tuple[Proven, dict[int, Header]]:
    """The node's proven head; with it, from block ``low`` on when ``low`` is given (a
    history brought up again), :data:`RIDE` calls of metas asked in the same request:
    the blocks made since the last sync, often all of them, at no round trip more."""
    if not low:
        return verifier.latest(), {}
    asked = [rpc.blockchain(a, a + METAS - 1) for a in range(low, low + RIDE * METAS, METAS)]
    head, rode = verifier.latest_with(asked)
    known: dict[int, Header] = {}
    for ask in asked:
        found = rode.get(ask)
        if isinstance(found, Malformed):
            raise found
        if isinstance(found, Unreachable):
            break  # blocks past the node's last (tm2 refuses a minimum above it)
        known.update((meta.header.height, meta.header) for meta in found.block_metas)
    return head, known


def _holds_txs(reader: NodeReader, height: int) -> bool:
    """Whether block ``height`` holds transactions, as its meta says: the node's word,
    taken only to know whether the next block is worth waiting for."""
    if height < 1:
        return False
    metas = reader.rpc.blockchain(height, height).block_metas
    return any(meta.header.num_txs > 0 for meta in metas)


def _newer(verifier: Verifier, height: int, deadline: float) -> bool:
    """Whether a block above ``height`` is proven before ``deadline``: asked after 50
    ms, then at twice the wait each time up to a quarter second (tm2 makes the block
    after one that held transactions as soon as its commit timeout has passed: a fast
    chain's is there at the first look, a one-second chain's about the sixth)."""
    pause = 0.05
    while wallclock.monotonic() < deadline:
        wallclock.sleep(pause)
        pause = min(pause * 2, 0.25)
        if verifier.latest().height > height:
            return True
    return False


class Chunk(NamedTuple):
    """What a chunk of blocks held: the realm's transactions, its last block's proven
    hash (hex), how many of its blocks held transactions, and whether the block above
    it did (the head's, when the chunk ends below it)."""

    rows: list[IndexedTx]
    top: str
    busy: int
    busy_above: bool


def _chunk(
    reader: NodeReader,
    verifier: Verifier,
    below: Synced,
    low: int,
    high: int,
    head: Proven,
    known: dict[int, Header],
    importers: set[str],
) -> Chunk:
    """The realm's transactions in blocks ``low`` to ``high``, every one proven. Block
    ``high + 1``'s header is proven by its commit, asked with the metas, or, when it
    is the ``head`` the light client proved already, by that head's hash. The metas
    that came with the head (``known``) are not asked again."""
    node = reader.redacted
    wanted = range(low, high + 2)
    on_head = head.height == high + 1
    headers = {h: known[h] for h in wanted if h in known}
    top = head
    if not on_head or len(headers) < len(wanted):
        ranges = [(lo, min(lo + METAS - 1, high + 1)) for lo in range(low, high + 2, METAS)]
        metas = [rpc.blockchain(a, b) for a, b in ranges]
        commit = rpc.commit(high + 1)
        found = reader.rpc.batch([*metas, *([] if on_head else [commit])])
        headers = {
            meta.header.height: meta.header for ask in metas for meta in found[ask].block_metas
        }
        if not on_head:
            try:
                signed = found[commit]
            except Malformed as wrong:
                raise Unverified(str(wrong)) from None
            top = verifier.header(signed.header, signed.commit)
    if not set(wanted) <= set(headers):
        raise Unreachable(f"{node} did not list blocks {low} to {high + 1}")
    hashes, before = _hash_chain(headers, low, high, bytes.fromhex(top.block_hash))
    # A history begun at block ``--from`` holds no block below it to follow.
    if below.block_hash and before != bytes.fromhex(below.block_hash):
        raise Unverified(
            f"block {low} as {node} gave it does not follow block {below.height} as this "
            "home's history holds it: the node's chain is not the one synced before"
        )
    busy = [h for h in range(low, high + 1) if headers[h].num_txs > 0]
    rows = _realm_txs(reader, headers, hashes, busy, importers)
    above = headers[high + 1].num_txs > 0
    return Chunk(rows, hashes[high].hex().upper(), len(busy), above)


def _hash_chain(
    headers: dict[int, Header], low: int, high: int, top: bytes
) -> tuple[dict[int, bytes], bytes]:
    """Each header's hash, from ``high + 1`` (the one the validators signed, ``top``)
    down to ``low``, each the one the header above it follows; and the hash ``low``'s
    header says came before it."""
    hashes: dict[int, bytes] = {}
    expected = top
    for height in range(high + 1, low - 1, -1):
        header = headers[height]
        got = header.hash()
        if got is None or got != expected:
            said = "the validators signed" if height == high + 1 else f"block {height + 1} follows"
            raise Unverified(f"block {height}: its header is not the one {said}")
        hashes[height] = got
        expected = header.last_block_id.hash
    return hashes, expected


def _realm_txs(
    reader: NodeReader,
    headers: dict[int, Header],
    hashes: dict[int, bytes],
    busy: list[int],
    importers: set[str],
) -> list[IndexedTx]:
    """The transactions of the ``busy`` blocks that touched the realm, with their
    results: the blocks held to their data hashes, the results to the next headers.
    Every busy block's results are read: a call from another realm, or code run once,
    reaches the realm too, and only the events say so. A block and its results are
    asked in one request, :data:`BATCH` calls a request."""
    path = reader.realm_path
    realm = Kept(path, package_address(path), importers)  # once a chunk
    rows: list[IndexedTx] = []
    step = BATCH // 2
    for part in range(0, len(busy), step):
        heights = busy[part : part + step]
        asked = [(rpc.block(h), rpc.block_results(h)) for h in heights]
        found = reader.rpc.batch([ask for pair in asked for ask in pair])
        for height, (block, results) in zip(heights, asked, strict=True):
            rows.extend(
                _block_rows(
                    reader.redacted, realm, headers, hashes, height, found[block], found[results]
                )
            )
    return rows


def _block_rows(
    node: str,
    realm: Kept,
    headers: dict[int, Header],
    hashes: dict[int, bytes],
    height: int,
    block_answer: ResultBlock,
    results_answer: ResultBlockResults,
) -> Iterator[IndexedTx]:
    """Block ``height``'s transactions that touched the realm, the block held to its
    proven header and its data hash, its results to the next header."""
    block = block_answer.block
    if block.header.hash() != hashes[height]:
        raise Unverified(f"block {height} as {node} gave it is not the block proven")
    if block.data_hash() != (headers[height].data_hash or None):
        raise Unverified(f"block {height}: its transactions do not hash to its data hash")
    results = results_answer.deliver_tx
    if len(results) != len(block.txs):
        raise Unverified(
            f"block {height}: {node} gave {len(results)} results for {len(block.txs)} txs"
        )
    try:
        results_committed(height, results, headers[height + 1])
    except Unencodable as unknown:
        raise Unreachable(
            f"block {height}: its results hold {unknown}, which c4 cannot hold to the "
            "next header: nothing after it is proven"
        ) from None
    time = headers[height].time.seconds
    for place, raw in enumerate(block.txs):
        row = realm_row(realm, height, place, time, raw, results[place])
        if row is not None:
            yield row
