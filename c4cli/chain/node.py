"""The local chain: a home folder's log, replayed, behind a small client interface.

The commands see only :class:`Chain` ("sign and submit these messages", "query
this path", "what is the state"), so a remote gno.land node can later stand
where :class:`LocalChain` stands now.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
import time as wallclock
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from c4cli.chain.files import write_private
from c4cli.chain.log import BlockLog, TornLog
from c4cli.chain.state import (
    MAX_TIME,
    ChainState,
    Genesis,
    TxResult,
    block_hash,
    format_time,
)
from c4cli.chain.tx import Msg, Tx, signed_tx
from c4cli.errors import BadInput, Refused

CHECKPOINT_VERSION = 1
# Replaying fewer blocks than this is cheaper than writing a new checkpoint.
CHECKPOINT_EVERY = 64


@dataclass(frozen=True)
class Signer:
    """A key ready to sign: the account it acts for and the private key that signs.

    A session key acts for its master: ``address`` is the master's, and
    ``session_addr`` names the session, whose own sequence the signature covers.
    """

    address: str
    private_key: bytes
    session_addr: str | None = None


@dataclass
class Receipt:
    height: int
    time: int
    result: TxResult


class Chain(Protocol):
    def submit(
        self,
        signer: Signer,
        msgs: Callable[[ChainState], list[Msg]],
        fee: dict[str, str],
        memo: str,
    ) -> Receipt: ...

    def state(self) -> ChainState: ...


def code_fingerprint() -> str:
    """Names the code that built a checkpoint: a pickled state only fits the code that made it.

    Size and mtime of every module of the chain, realm and engine, so a checkpoint
    written by another version (or an edited checkout) is ignored, not misread.
    """
    package = Path(__file__).resolve().parent.parent
    parts = [CHECKPOINT_VERSION.__str__()]
    for layer in ("engine", "realm", "chain"):
        for path in sorted((package / layer).glob("*.py")):
            info = path.stat()
            parts.append(f"{layer}/{path.name}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


@dataclass
class Checkpoint:
    version: str
    offset: int
    prefix_sha256: str
    state: ChainState


class LocalChain:
    """A chain in ``<home>/chain``: an append-only TOML log and a throwaway cache."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.log = BlockLog(home)
        self.cache_path = home / "chain" / "cache" / "checkpoint.pickle"

    # -- genesis ----------------------------------------------------------------

    def init(self, genesis: Genesis, *, force: bool = False) -> ChainState:
        record = genesis.to_record()
        ChainState(genesis, record["hash"])  # refuses bad balances before anything is written
        try:
            self.log.create(record, force=force)
        except FileExistsError:
            raise BadInput(
                f"a chain already exists in {self.home}: pass --force to replace it"
            ) from None
        self.drop_cache()
        return self.state()

    def drop_cache(self) -> None:
        self.cache_path.unlink(missing_ok=True)

    # -- reading ------------------------------------------------------------------

    def state(self) -> ChainState:
        """The state at the last block, under a shared lock."""
        with self.log.locked(exclusive=False):
            return self._load()

    def _load(self, *, use_cache: bool = True) -> ChainState:
        data = self.log.read_bytes()
        checkpoint = self._read_checkpoint(data) if use_cache else None
        if checkpoint is not None:
            state, offset = checkpoint.state, checkpoint.offset
        else:
            record, offset = self.log.parse_genesis(data)
            state = ChainState(Genesis.from_record(record), str(record.get("hash")))
        replayed = 0
        for raw in self.log.parse_blocks(data, offset, state.height + 1):
            state.apply_block(raw.record)
            offset = raw.end
            replayed += 1
        if replayed >= CHECKPOINT_EVERY or (checkpoint is None and use_cache and replayed):
            self._write_checkpoint(data, offset, state)
        return state

    def _read_checkpoint(self, data: bytes) -> Checkpoint | None:
        try:
            with open(self.cache_path, "rb") as handle:
                checkpoint = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None
        if (
            not isinstance(checkpoint, Checkpoint)
            or checkpoint.version != code_fingerprint()
            or checkpoint.offset > len(data)
            or hashlib.sha256(data[: checkpoint.offset]).hexdigest() != checkpoint.prefix_sha256
        ):
            # The log it came from changed (or it is not ours): replay from genesis.
            return None
        return checkpoint

    def _write_checkpoint(self, data: bytes, offset: int, state: ChainState) -> None:
        checkpoint = Checkpoint(
            code_fingerprint(), offset, hashlib.sha256(data[:offset]).hexdigest(), state
        )
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs speed
            write_private(self.cache_path, pickle.dumps(checkpoint, pickle.HIGHEST_PROTOCOL))

    def blocks(self) -> tuple[ChainState, list[tuple[dict[str, Any], list[TxResult]]]]:
        """Replay from genesis with every check, keeping each block and its results."""
        with self.log.locked(exclusive=False):
            data = self.log.read_bytes()
            record, offset = self.log.parse_genesis(data)
            state = ChainState(Genesis.from_record(record), str(record.get("hash")))
            out = []
            for raw in self.log.parse_blocks(data, offset, 1):
                out.append((raw.record, state.apply_block(raw.record)))
            return state, out

    def verify(self) -> ChainState:
        """Everything from genesis, ignoring the cache: hashes, signatures, execution."""
        with self.log.locked(exclusive=False):
            return self._load(use_cache=False)

    # -- writing ------------------------------------------------------------------

    def submit(
        self,
        signer: Signer,
        msgs: Callable[[ChainState], list[Msg]],
        fee: dict[str, str],
        memo: str,
    ) -> Receipt:
        """Sign for the signer's current sequence, execute, append: all under the lock.

        ``msgs`` builds the messages from the state it will run against, so a
        default such as "the move count I see" is read inside the same lock.
        """
        with self.log.locked(exclusive=True):
            state = self._load()
            messages = msgs(state)
            account = state.account(signer.address)
            if account is None:
                raise Refused(f"unknown address: account {signer.address} does not exist")
            sequence = account.sequence
            if signer.session_addr is not None:
                session = account.sessions.get(signer.session_addr)
                if session is None:
                    raise Refused(
                        f"session {signer.session_addr} not found for account {signer.address}"
                    )
                sequence = session.sequence
            tx = signed_tx(
                messages,
                fee,
                memo,
                private_key=signer.private_key,
                chain_id=state.genesis.chain_id,
                account_number=account.number,
                sequence=sequence,
                session_addr=signer.session_addr,
            )
            return self._append_tx(state, tx, account.number, sequence)

    def broadcast(self, tx: Tx) -> Receipt:
        """Append a transaction signed elsewhere, checked exactly like our own."""
        with self.log.locked(exclusive=True):
            state = self._load()
            account = state.signing_account(tx)
            sequence = account.sequence
            signatures = tx.get("signatures")
            if isinstance(signatures, list) and signatures and isinstance(signatures[0], dict):
                session = account.sessions.get(str(signatures[0].get("session_addr")))
                sequence = session.sequence if session is not None else sequence
            return self._append_tx(state, tx, account.number, sequence)

    def _append_tx(self, state: ChainState, tx: Tx, number: int, sequence: int) -> Receipt:
        block_time = state.next_block_time(wallclock.time())
        entry = {"account_number": number, "sequence": sequence, "tx": tx}
        record = self._block_record(state, block_time, txs=[entry])
        # Executing the block is the simulation: a refusal raises before anything is written.
        results = state.apply_block(record, new=True)
        self.log.append(record)
        return Receipt(height=state.height, time=state.time, result=results[0])

    def _block_record(
        self, state: ChainState, block_time: int, *, txs: list[Any], advance: int = 0
    ) -> dict[str, Any]:
        if block_time > MAX_TIME:
            raise Refused(
                f"the next block would be after {format_time(MAX_TIME)}: the clock is full"
            )
        record: dict[str, Any] = {
            "height": state.height + 1,
            "time": format_time(block_time),
            "prev_hash": state.last_hash,
        }
        if advance:
            record["advance"] = advance
        if txs:  # an empty block has no txs key at all: TOML has no empty array of tables
            record["txs"] = txs
        record["hash"] = block_hash(record)
        return record

    def advance(self, seconds: int) -> ChainState:
        """Mine an empty block ``seconds`` later (and, on a wall clock, shift the clock)."""
        if not 0 < seconds <= MAX_TIME:
            raise BadInput("the duration must be from 1s to the year 9999")
        with self.log.locked(exclusive=True):
            state = self._load()
            if state.genesis.clock == "manual":
                block_time = state.time + seconds
            else:
                block_time = max(
                    int(wallclock.time()) + state.clock_offset + seconds, state.time + 1
                )
            return self._mine_empty(state, block_time, advance=seconds)

    def set_time(self, unix: int) -> ChainState:
        """Mine an empty block at exactly ``unix``, which must be after the last block."""
        with self.log.locked(exclusive=True):
            state = self._load()
            if unix <= state.time:
                raise BadInput(
                    f"{format_time(unix)} is not after the last block "
                    f"(height {state.height}, {format_time(state.time)})"
                )
            return self._mine_empty(state, unix, advance=0)

    def _mine_empty(self, state: ChainState, block_time: int, *, advance: int) -> ChainState:
        record = self._block_record(state, block_time, txs=[], advance=advance)
        state.apply_block(record)
        self.log.append(record)
        return state

    def repair(self) -> int | None:
        """Cut a torn final block off the log; returns the height kept, or None if whole."""
        with self.log.locked(exclusive=True):
            data = self.log.read_bytes()
            record, offset = self.log.parse_genesis(data)
            state = ChainState(Genesis.from_record(record), str(record.get("hash")))
            try:
                for raw in self.log.parse_blocks(data, offset, 1):
                    state.apply_block(raw.record)
            except TornLog as torn:
                self.log.truncate(torn.cut)
                self.drop_cache()
                return state.height
            return None
