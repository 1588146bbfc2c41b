"""Replaying the log from genesis: the state is what the blocks say, checked on the way.

``c4 verify`` (and any replay of a long log) spreads the costly, independent
checks (each block's own hash and each transaction's signature over the numbers
recorded with it) over worker processes, one per core, while this process
executes the blocks in order.
A block is only executed once its checks came back clean; a block whose checks
failed is executed the slow way, so the error names it exactly as a
single-process replay would.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from c4cli.errors import HomeDamaged
from c4cli.interrupts import SIGNALS, for_workers
from c4cli.local import genesis_state
from c4cli.local.genesis import Genesis, block_hash
from c4cli.local.log import BlockLog, Buffer, Span, let_go, parse_toml
from c4cli.wire.canonical import use_fast_json
from c4cli.wire.std import Tx
from c4cli.wire.tx import signature_error, tx_hash

if TYPE_CHECKING:
    from c4cli.local.execute import TxResult
    from c4cli.local.projection import TxRow
    from c4cli.local.state import ChainState

# Blocks per worker task: large enough to amortise the hand-over, small enough
# that the first results come back while the workers are still busy.
BATCH = 2000
# A replay in one process lets go of the mapped log behind it every this many blocks.
LET_GO_EVERY = 4096
# Below this much log, starting workers costs more than it saves.
PARALLEL_FROM_BYTES = 2_000_000
# `c4 verify` checks in workers once the log holds this much past its genesis.
PARALLEL_MIN_BYTES = 64 * 1024


def _genesis(log: BlockLog, data: Buffer) -> tuple[ChainState, int]:
    from c4cli.local.state import ChainState

    record, offset = log.parse_genesis(data)
    genesis = Genesis.from_record(record)
    begun = genesis_state.read(log.folder, genesis.state) if genesis.state else None
    return ChainState(genesis, str(record.get("hash")), begun), offset


def replay(
    log: BlockLog,
    *,
    parallel: bool = False,
    timings: dict[str, float] | None = None,
    txs: list[TxRow] | None = None,
    data: bytes | None = None,
) -> ChainState:
    """The state at the last block, every block checked.

    Checks run in parallel when asked (``c4 verify``) or when the log is long.
    ``timings`` (if given) receives the seconds spent reading the log, checking
    hashes and signatures (summed over the workers) and executing; ``txs`` (if
    given) receives every transaction's hash, height and outcome, for the cache;
    ``data`` is the log's bytes, if the caller has already read them.
    """
    if data is None:
        with log.mapped() as mapped:
            return _replay(log, mapped, parallel, timings, txs)
    return _replay(log, data, parallel, timings, txs)


def _replay(
    log: BlockLog,
    data: Buffer,
    parallel: bool,
    timings: dict[str, float] | None,
    txs: list[TxRow] | None,
) -> ChainState:
    started = time.perf_counter()
    with naming(log):
        state, offset = _genesis(log, data)
        # Workers pay off only past a few blocks: a short log is checked in this process.
        parallel = (parallel and len(data) - offset >= PARALLEL_MIN_BYTES) or (
            len(data) >= PARALLEL_FROM_BYTES
        )
        workers = (os.cpu_count() or 1) if parallel else 1
        clock = timings if timings is not None else {}
        clock["read"] = time.perf_counter() - started
        with gc_paused():
            if workers < 2:
                begun = time.perf_counter()
                for raw in log.parse_blocks(data, offset, 1):
                    keep_outcomes(txs, state, state.apply_block(raw.record))
                    if raw.record["height"] % LET_GO_EVERY == 0:
                        let_go(data, raw.offset)
                clock["execute"] = time.perf_counter() - begun  # checks included
            else:
                _replay_parallel(log, state, data, offset, workers, clock, txs)
    return state


@contextmanager
def naming(log: BlockLog) -> Iterator[None]:
    """Damage found while replaying names the log file, as every other home error does."""
    try:
        yield
    except HomeDamaged as exc:
        if exc.file == log.path:
            raise
        raise HomeDamaged(str(exc), file=log.path) from None


def keep_outcomes(txs: list[TxRow] | None, state: ChainState, results: list[TxResult]) -> None:
    """Add a block's transactions, as the cache keeps them, to ``txs`` (if wanted); a
    game's with its block's time (a game's record lists each move's)."""
    if txs is not None:
        for r in results:
            outcome = r.outcome() if r.game_id is None else {**r.outcome(), "time": state.time}
            txs.append((r.hash, state.height, r.game_id, json.dumps(outcome)))


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cycle collection while replaying: blocks and state hold no cycles, and the
    collector's passes over a growing heap cost a replay about a quarter of its time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
    log: BlockLog,
    state: ChainState,
    data: Buffer,
    offset: int,
    workers: int,
    clock: dict[str, float],
    txs: list[TxRow] | None,
) -> None:
    """Workers parse and check batches of blocks; this process executes them in order.

    All processes share the cores: the workers carry the parsing, hashing and
    signature checks, the largest part; executing is what must stay in order.
    """
    import multiprocessing

    use_fast_json()  # before the workers fork, so they encode fast too
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    clock.update(check=0.0, execute=0.0)
    chain_id = state.genesis.chain_id
    with _pool(context, workers) as pool:
        pending: list[Any] = []

        def execute_next() -> None:
            batch, result = pending.pop(0)
            checked, seconds = result.get()
            clock["check"] += seconds
            started = time.perf_counter()
            _execute(log, state, data, batch, checked, txs)
            clock["execute"] += time.perf_counter() - started
            let_go(data, batch[0].start)  # executed: this process needs none of it again

        try:
            for batch in _batches(log.spans(data, offset, state.height + 1)):
                chunks = [data[span.start : span.end] for span in batch]
                pending.append((batch, pool.apply_async(check_blocks, (chunks, chain_id))))
                if len(pending) > 2 * workers:
                    execute_next()
        except HomeDamaged:
            # A later block is damaged; an earlier one may still fail first.
            while pending:
                execute_next()
            raise
        while pending:
            execute_next()


@contextmanager
def _pool(context: Any, workers: int) -> Iterator[Any]:
    """A pool of checkers that starts and stops cleanly whenever it is stopped.

    The workers are forked with SIGINT and SIGTERM blocked, and unblock them only
    once their own handlers are in (for_workers): a pool stopped at once (a short
    log, Ctrl-C) can never meet a worker still running this process's handler,
    which raised in the worker and could leave the pool waiting for ever. A pool
    that finished is closed and joined; only a failure terminates it.
    """
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        pool = context.Pool(workers, initializer=for_workers)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()


def _execute(
    log: BlockLog,
    state: ChainState,
    data: Buffer,
    batch: list[Span],
    clean: list[bool],
    txs: list[TxRow] | None,
) -> None:
    for span, ok in zip(batch, clean, strict=True):
        record = log.parse_block(data[span.start : span.end], span.height)
        keep_outcomes(txs, state, state.apply_block(record, verified=ok))


def check_blocks(chunks: list[bytes], chain_id: str) -> tuple[list[bool], float]:
    """In a worker: for each block, whether its hash, every TX HASH and every signature
    check out.

    Signatures are checked over the account number and sequence recorded with the
    transaction; the executing process checks that those are the ones the state
    expects, so together they are the full check. Only the verdicts travel back:
    parsing a block again costs less than shipping the parsed one.
    """
    gc.disable()  # a worker process: see gc_paused()
    started = time.perf_counter()
    out: list[bool] = []
    for chunk in chunks:
        try:
            record = parse_toml(chunk)["block"][0]
            ok = record.get("hash") == block_hash(record)
            for entry in record.get("txs", []) if ok else []:
                tx = Tx.from_json(entry["tx"])
                if entry["hash"] != tx_hash(tx):
                    ok = False
                    break
                if entry.get("impersonated") is True:
                    continue  # no key signed it: the executor holds it to the genesis
                signer = tx.signature.session_addr or tx.signer
                problem = signature_error(
                    tx,
                    chain_id=chain_id,
                    account_number=int(entry["account_number"]),
                    sequence=int(entry["sequence"]),
                    key_address=signer,
                )
                if problem is not None:
                    ok = False
                    break
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            ok = False
        out.append(ok)
    return out, time.perf_counter() - started
