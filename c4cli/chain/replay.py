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

from c4cli.chain.log import BlockLog, Span, parse_toml
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
    workers = (os.cpu_count() or 1) if parallel else 1
    if workers < 2:
        for raw in log.parse_blocks(data, offset, 1):
            state.apply_block(raw.record)
        return state
    _replay_parallel(log, state, data, offset, workers)
    return state


def replay_blocks(log: BlockLog) -> tuple[ChainState, list[tuple[dict[str, Any], list[TxResult]]]]:
    """Replay keeping each block and its results, for the commands that list them."""
    data = log.read_bytes()
    state, offset = _genesis(log, data)
    out = [(raw.record, state.apply_block(raw.record)) for raw in log.parse_blocks(data, offset, 1)]
    return state, out


def _batches(spans: Iterator[Span]) -> Iterator[list[Span]]:
    batch: list[Span] = []
    for span in spans:
        batch.append(span)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _replay_parallel(
    log: BlockLog, state: ChainState, data: bytes, offset: int, workers: int
) -> None:
    """Workers parse and check batches of blocks; this process executes them in order.

    All processes share the cores: the workers carry the parsing, hashing and
    signature checks, the largest part; executing is what must stay in order.
    """
    import multiprocessing

    from c4cli.chain.tx import use_fast_json

    use_fast_json()  # before the workers fork, so they encode fast too
    chain_id = state.genesis.chain_id
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with context.Pool(workers) as pool:
        pending: list[Any] = []
        try:
            for batch in _batches(log.spans(data, offset, state.height + 1)):
                chunks = [data[span.start : span.end] for span in batch]
                pending.append((batch, pool.apply_async(check_blocks, (chunks, chain_id))))
                if len(pending) > 2 * workers:
                    _execute(log, state, *_take(pending))
        except HomeDamaged:
            # A later block is damaged; an earlier one may still fail first.
            while pending:
                _execute(log, state, *_take(pending))
            raise
        while pending:
            _execute(log, state, *_take(pending))


def _take(pending: list[Any]) -> tuple[list[Span], list[tuple[dict[str, Any] | None, bool]]]:
    batch, result = pending.pop(0)
    return batch, result.get()


def _execute(
    log: BlockLog,
    state: ChainState,
    batch: list[Span],
    checked: list[tuple[dict[str, Any] | None, bool]],
) -> None:
    for span, (record, clean) in zip(batch, checked, strict=True):
        if record is None:  # the worker could not read it: say so the usual way
            record = log.parse_block(b"", span.height)
        state.apply_block(record, verified=clean)


def check_blocks(chunks: list[bytes], chain_id: str) -> list[tuple[dict[str, Any] | None, bool]]:
    """In a worker: each block parsed, and whether its hash and every signature check out.

    Signatures are checked over the account number and sequence recorded with the
    transaction; the executing process checks that those are the ones the state
    expects, so together they are the full check. An unreadable block comes back
    as None, for the executing process to report in its turn.
    """
    import base64

    from c4cli.chain import crypto
    from c4cli.chain.state import block_hash
    from c4cli.chain.tx import msg_signer, sign_bytes

    out: list[tuple[dict[str, Any] | None, bool]] = []
    for chunk in chunks:
        try:
            document = parse_toml(chunk)
            record = document["block"][0]
            assert isinstance(record, dict) and len(document["block"]) == 1
        except (ValueError, KeyError, IndexError, TypeError, AssertionError):
            out.append((None, False))
            continue
        try:
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
        out.append((record, ok))
    return out
