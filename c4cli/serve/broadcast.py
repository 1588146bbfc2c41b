"""Transactions from any client into the local chain: at once, or on a block timer.

By default each transaction is a block of its own the moment it arrives (anvil's
instant mining). With a block time (`c4 serve --block-time 1s`), transactions wait
in a pool and each tick makes one block of all of them, checked in the order they
came; a refused one is left out, as the local chain never appends a refusal.
``broadcast_tx_commit`` waits for its block (tm2's 10 s, and one block time more);
``broadcast_tx_sync`` and ``_async`` answer once the bytes decode, and the outcome is
read in the block, as on a node.
"""

from __future__ import annotations

import base64
import hashlib
import threading
import time
from pathlib import Path
from typing import NamedTuple

from c4cli.chain.interface import Receipt
from c4cli.errors import C4Error, Refused
from c4cli.local.chain import LocalChain
from c4cli.serve import shapes
from c4cli.wire.abci import AbciError, ResponseDeliverTx
from c4cli.wire.std import DecodeError, Tx, decode_tx, encode_tx, tx_signer

COMMIT_TIMEOUT = 10.0  # gnoland's timeout_broadcast_tx_commit
TX_DECODE_ERROR = "/std.TxDecodeError"


class Delivered(NamedTuple):
    """A broadcast's answer: its hash, its check result, its deliver result (None when it
    was refused, or is still waiting for its block) and its height (0: none)."""

    tx_hash: bytes
    check: ResponseDeliverTx
    deliver: ResponseDeliverTx | None
    height: int


class Waiting:
    """One transaction in the pool, and, once its block is made, what became of it."""

    def __init__(self, tx_id: str, tx: Tx) -> None:
        self.tx_id, self.tx = tx_id, tx
        self.done = threading.Event()
        self.outcome: Receipt | Refused | None = None


class Broadcaster:
    """Checks and appends what clients broadcast; ``lock`` orders it with the server's
    other requests, ``block_time`` (seconds, 0: a block per transaction) paces blocks."""

    def __init__(self, home: Path, lock: threading.Lock, block_time: float = 0) -> None:
        self.home, self.lock, self.block_time = home, lock, block_time
        self.impersonated: set[str] = set()  # signers taken without their key (c4_impersonate)
        self.pool: list[Waiting] = []
        self.pool_lock = threading.Lock()
        self.stopped = threading.Event()
        if block_time > 0:
            threading.Thread(target=self._tick, name="c4-serve-blocks", daemon=True).start()

    def deliver(self, raw: bytes, *, wait: bool) -> Delivered:
        """One transaction's bytes: checked and appended (or pooled); with ``wait``, its
        block's answer."""
        digest = hashlib.sha256(raw).digest()
        tx_id = base64.b64encode(digest).decode()
        tx = _decoded(raw)
        if tx is None:
            return Delivered(digest, ResponseDeliverTx(AbciError(TX_DECODE_ERROR)), None, 0)
        with self.lock:
            chain = LocalChain(self.home)
            chain.require()
            if chain.find_tx(tx_id) is not None or self._pooled(tx_id):
                raise Exists()
            if self.block_time <= 0:
                try:
                    acting = tx_signer(tx) in self.impersonated
                    receipt: Receipt | Refused = chain.broadcast(tx, impersonated=acting)
                except Refused as refused:
                    receipt = refused
                return _answer(tx_id, tx, receipt)
            waiting = Waiting(tx_id, tx)
            with self.pool_lock:
                self.pool.append(waiting)
        if not wait:
            return Delivered(digest, shapes.checked(tx), None, 0)
        if not waiting.done.wait(COMMIT_TIMEOUT + self.block_time) or waiting.outcome is None:
            raise TimedOut()
        return _answer(tx_id, tx, waiting.outcome)

    def _pooled(self, tx_id: str) -> bool:
        with self.pool_lock:
            return any(waiting.tx_id == tx_id for waiting in self.pool)

    def _tick(self) -> None:
        """A block every ``block_time`` on a fixed beat, as a node's: making a block
        does not push the next one later (a beat missed while a block was being made
        is skipped, not made up in a burst)."""
        beat = time.monotonic()
        while True:
            now = time.monotonic()
            beat = next_beat(beat, now, self.block_time)
            if self.stopped.wait(beat - now):
                return
            self.make_block()

    def make_block(self) -> None:
        """One block of every pooled transaction (none: no block)."""
        with self.pool_lock:
            taken, self.pool = self.pool, []
        if not taken:
            return
        with self.lock:
            try:
                outcomes: list[Receipt | Refused] = LocalChain(self.home).broadcast_block(
                    [waiting.tx for waiting in taken], frozenset(self.impersonated)
                )
            except C4Error as exc:  # the home cannot be written: nothing was appended
                outcomes = [Refused(f"the block could not be made: {exc}")] * len(taken)
        for waiting, outcome in zip(taken, outcomes, strict=True):
            waiting.outcome = outcome
            waiting.done.set()

    def stop(self) -> None:
        """No more ticks; what waits in the pool goes into one last block."""
        self.stopped.set()
        self.make_block()


def next_beat(beat: float, now: float, period: float) -> float:
    """The first beat of a ``period`` grid through ``beat`` that is after ``now``."""
    if beat + period > now:
        return beat + period
    return now + period - (now - beat) % period


class Exists(Exception):
    """The bytes are on the chain or in the pool already (tm2: "tx already exists in
    cache")."""


class TimedOut(Exception):
    """No block took the transaction in time (tm2's words: "timed out waiting for tx to
    be included in a block")."""


def _answer(tx_id: str, tx: Tx, outcome: Receipt | Refused) -> Delivered:
    """A transaction's answer from what its block made of it (the receipt carries the
    deliver data and events the log's outcome keeps)."""
    if isinstance(outcome, Refused):
        refused = shapes.refused(str(outcome), outcome.kind, tx.fee.gas_wanted)
        return Delivered(_raw_hash(tx_id), refused, None, 0)
    deliver = shapes.delivered_now(tx, outcome.result)
    return Delivered(_raw_hash(tx_id), shapes.checked(tx), deliver, outcome.height)


def _raw_hash(tx_id: str) -> bytes:
    return base64.b64decode(tx_id)


def _decoded(raw: bytes) -> Tx | None:
    """The transaction of these bytes; None when they do not decode, or when they are not
    amino's own encoding of it: the log keeps amino JSON, and bytes that do not come
    back the same from it would not keep their TX HASH."""
    try:
        tx = decode_tx(raw)
        return tx if encode_tx(tx) == raw else None
    except (DecodeError, ValueError):
        return None
