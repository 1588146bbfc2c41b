"""A sent transaction's fate proved by the blocks themselves, not by a node's index.

A node's ``tx`` look-up is no evidence either way: it fails when the node is
rate-limited or slow, and says "not found" both for a transaction it never had
and for one its index has not reached yet. Blocks are evidence. A transaction
signed for sequence S of an account can only land in a block at or after the
height the node had when it was signed (the account's sequence was S there);
once the account's sequence is past S, some block up to the node's height holds
the one transaction that took S. Reading every block of that range tells which:

- this very transaction's bytes in a block: it landed (its result is read from
  ``block_results``);
- not there, in a range read to its end: another transaction of the account took
  S, and this one can never land (superseded). The taker is named when its
  signature verifies for S; where blocks are verified, only a taker named in a
  block proven by the validators' signatures drops it.

Anything short of that (a node that does not answer, a block that would not
come, a node behind the range, a range longer than :data:`SCAN_LIMIT`) proves
nothing, and says so (Unreachable): the caller keeps the transaction pending.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from typing import NamedTuple

from c4cli.chain.interface import Signer
from c4cli.errors import Unreachable
from c4cli.node.net import rpc
from c4cli.node.reader import CALLS, METAS, NodeReader, account_path
from c4cli.wire import results
from c4cli.wire.rpc import ResultBlock, ResultTx
from c4cli.wire.std import DecodeError, decode_tx
from c4cli.wire.tx import signature_error

SCAN_LIMIT = 20_000  # the most blocks read to prove one fate; past it, nothing is proved


class BlockFate(NamedTuple):
    """What the blocks say of a transaction: ``found`` (as ``tx`` answers it) when it
    landed; else the height and hash of the one that took its sequence ("" unknown)."""

    found: ResultTx | None
    taker: str = ""
    height: int = 0


def account_and_head(reader: NodeReader, signer: Signer) -> tuple[int, int, int]:
    """(account number, sequence, the node's height) from one node in one request,
    the account read first: the height is at least the state's the sequence comes from."""
    path = account_path(signer)
    account, status = rpc.abci_query(path), rpc.status()
    found = reader.rpc.batch([account, status])
    data = found[account].response.data
    head = found[status].latest_block_height
    try:
        numbers = results.account_numbers(json.loads(data or b"null"))
    except ValueError:
        raise Unreachable(f"{reader.redacted} answered {path} in a shape it never has") from None
    if numbers is None:
        raise Unreachable(f"{reader.redacted} has no account {signer.address} now")
    return numbers[0], numbers[1], head


def fate_from_blocks(
    reader: NodeReader,
    signer: Signer,
    raw: bytes,
    sequence: int,
    since: int,
) -> BlockFate | None:
    """The fate of ``raw`` (signed for ``sequence``, sent when the node was at height
    ``since``) as the blocks prove it; None while the account's sequence is still
    ``sequence`` (it may be on its way). Unreachable when nothing can be proved now:
    a node that does not answer, a block that would not come, a range too long."""
    number, now, head = account_and_head(reader, signer)
    if now <= sequence:
        return None
    first = max(since, 1)
    if head - first + 1 > SCAN_LIMIT:
        raise Unreachable(
            f"blocks {first} to {head} would have to be read to prove where it went (more "
            f"than {SCAN_LIMIT})"
        )
    taker: tuple[str, int] | None = None
    for height, block in _blocks_with_txs(reader, first, head):
        txs = block.block.txs
        if raw in txs:
            return BlockFate(_result(reader, height, txs.index(raw), raw), "", height)
        if taker is None:
            taker = _taker(reader, signer, txs, number, sequence, height)
            if taker is not None and reader.verifier is not None:
                reader.verifier.block(block)  # the taker's block, proven (or Unverified)
    if taker is None and reader.verifier is not None:
        # Where blocks are verified, only a proven block holding the transaction that
        # took the sequence drops this one: a node's word that it is nowhere is not.
        raise Unreachable(
            f"{reader.redacted} showed no block that holds the transaction that took "
            f"sequence {sequence}: nothing is proven"
        )
    tx_hash, height = taker or ("", 0)
    return BlockFate(None, tx_hash, height)


def _blocks_with_txs(
    reader: NodeReader, first: int, last: int
) -> Iterator[tuple[int, ResultBlock]]:
    """Each block from ``first`` to ``last`` that holds transactions, as (height, the
    block's answer), every height of the range accounted for."""
    for start in range(first, last + 1, METAS * CALLS):
        ranges = [
            (low, min(low + METAS - 1, last))
            for low in range(start, min(start + METAS * CALLS, last + 1), METAS)
        ]
        metas = [rpc.blockchain(lo, hi) for lo, hi in ranges]
        listed = reader.rpc.batch(metas)
        busy = []
        for (lo, hi), ask in zip(ranges, metas, strict=True):
            counts = {m.header.height: m.header.num_txs for m in listed[ask].block_metas}
            if set(counts) != set(range(lo, hi + 1)):
                raise Unreachable(f"{reader.redacted} did not list blocks {lo} to {hi}")
            busy += [height for height, count in sorted(counts.items()) if count > 0]
        for part in range(0, len(busy), CALLS):
            blocks = [(height, rpc.block(height)) for height in busy[part : part + CALLS]]
            found = reader.rpc.batch([asked for _, asked in blocks])
            for height, asked in blocks:
                block = found[asked]
                if not block.block.txs:
                    raise Unreachable(f"{reader.redacted} answered block {height} without its txs")
                yield height, block


def _result(reader: NodeReader, height: int, index: int, raw: bytes) -> ResultTx:
    """Our transaction's answer as ``tx`` would give it, from its block's results."""
    results = reader.rpc.block_results(height).deliver_tx
    if not 0 <= index < len(results):
        raise Unreachable(
            f"{reader.redacted} answered block_results {height} in a shape it never has"
        )
    return ResultTx(hashlib.sha256(raw).digest(), height, index, results[index], raw)


def _taker(
    reader: NodeReader,
    signer: Signer,
    txs: tuple[bytes, ...],
    number: int,
    sequence: int,
    height: int,
) -> tuple[str, int] | None:
    """The transaction of this block signed by the account for ``sequence``, if one is."""
    for raw in txs:
        try:
            tx = decode_tx(raw)
            if tx.signature.session_addr != signer.session_addr or not any(
                msg.signer == signer.address for msg in tx.msgs
            ):
                continue
            problem = signature_error(
                tx,
                chain_id=reader.chain_id,
                account_number=number,
                sequence=sequence,
                key_address=signer.session_addr or signer.address,
            )
        except (DecodeError, UnicodeDecodeError, KeyError, IndexError, TypeError, ValueError):
            continue
        if problem is None:
            return base64.b64encode(hashlib.sha256(raw).digest()).decode(), height
    return None
