"""Replaying the log from genesis: the state is what the blocks say, checked on the way.

``c4 verify`` spreads the costly, independent checks (each block's own hash and
each transaction's signature over the numbers recorded with it) over worker
processes, one per spare core, while this process executes the blocks in order.
A block is only executed once its checks came back clean; a block whose checks
failed is executed the slow way, so the error names it exactly as a
single-process replay would.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from c4cli.chain.log import BlockLog, RawBlock, parse_toml
from c4cli.errors import HomeDamaged

if TYPE_CHECKING:
    from c4cli.chain.state import ChainState, TxResult

# Blocks per worker task: large enough to amortise the hand-over, small enough
# that the first results come back while the workers are still busy.
BATCH = 2000


def _genesis(log: BlockLog, data: bytes) -> tuple[ChainState, int]:
    from c4cli.chain.state import ChainState, Genesis

    record, offset = log.parse_genesis(data)
    return ChainState(Genesis.from_record(record), str(record.get("hash"))), offset


def replay(log: BlockLog, *, parallel: bool = False) -> ChainState:
    """The state at the last block, every block checked."""
    data = log.read_bytes()
    state, offset = _genesis(log, data)
    blocks = log.parse_blocks(data, offset, 1)
    workers = (os.cpu_count() or 1) if parallel else 1
    if workers < 2:
        for raw in blocks:
            state.apply_block(raw.record)
        return state
    _replay_parallel(state, data, blocks, state.genesis.chain_id, workers)
    return state


def replay_blocks(log: BlockLog) -> tuple[ChainState, list[tuple[dict[str, Any], list[TxResult]]]]:
    """Replay keeping each block and its results, for the commands that list them."""
    data = log.read_bytes()
    state, offset = _genesis(log, data)
    out = [(raw.record, state.apply_block(raw.record)) for raw in log.parse_blocks(data, offset, 1)]
    return state, out


def _batches(blocks: Iterator[RawBlock], data: bytes) -> Iterator[list[RawBlock]]:
    batch: list[RawBlock] = []
    for raw in blocks:
        batch.append(raw)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _replay_parallel(
    state: ChainState, data: bytes, blocks: Iterator[RawBlock], chain_id: str, workers: int
) -> None:
    import multiprocessing

    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    # The main process executes; the workers check. With 2 cores: 1 worker + main.
    with context.Pool(max(1, workers - 1)) as pool:
        pending: list[Any] = []
        try:
            for batch in _batches(blocks, data):
                chunks = [data[raw.offset : raw.end] for raw in batch]
                pending.append((batch, pool.apply_async(check_blocks, (chunks, chain_id))))
                if len(pending) > workers + 1:
                    _execute(state, *_take(pending))
        except HomeDamaged:
            # A later block is unreadable; an earlier one may still fail first.
            while pending:
                _execute(state, *_take(pending))
            raise
        while pending:
            _execute(state, *_take(pending))


def _take(pending: list[Any]) -> tuple[list[RawBlock], list[bool]]:
    batch, result = pending.pop(0)
    return batch, result.get()


def _execute(state: ChainState, batch: list[RawBlock], clean: list[bool]) -> None:
    for raw, ok in zip(batch, clean, strict=True):
        state.apply_block(raw.record, verified=ok)


def check_blocks(chunks: list[bytes], chain_id: str) -> list[bool]:
    """In a worker: for each block, whether its hash and every signature in it check out.

    Signatures are checked over the account number and sequence recorded with the
    transaction; the executing process checks that those are the ones the state
    expects, so together they are the full check.
    """
    import base64

    from c4cli.chain import crypto
    from c4cli.chain.state import block_hash
    from c4cli.chain.tx import msg_signer, sign_bytes

    out = []
    for chunk in chunks:
        try:
            record = parse_toml(chunk)["block"][0]
            ok = record.get("hash") == block_hash(record)
            for entry in record.get("txs", []) if ok else []:
                tx = entry["tx"]
                signature = tx["signatures"][0]
                pub_key = base64.b64decode(signature["pub_key"]["value"], validate=True)
                signer = signature.get("session_addr") or msg_signer(tx["msg"][0])
                doc = sign_bytes(
                    chain_id,
                    int(entry["account_number"]),
                    int(entry["sequence"]),
                    tx["fee"],
                    tx["msg"],
                    tx.get("memo", ""),
                )
                raw_signature = base64.b64decode(signature["signature"], validate=True)
                if crypto.address_of(pub_key) != signer or not crypto.verify(
                    pub_key, doc, raw_signature
                ):
                    ok = False
                    break
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            ok = False
        out.append(ok)
    return out
