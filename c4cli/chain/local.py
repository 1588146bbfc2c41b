"""The local chain: a home folder's log, replayed, behind the :class:`Chain` interface.

Commands see it as any gno.land client sees a node (sign and submit, query by
path, the last block), so a remote node can stand where :class:`LocalChain`
stands. The rest of its methods (init, the clock, the log, verify) exist only
for a chain in a folder.

The state is always the log replayed. Every command starts from the checkpoint
when it describes exactly this log file; from the checkpoint plus the blocks
appended after it when the log has only grown since (checkpoint + tail); and
otherwise replays from genesis with every check. Every command that appends a
block saves the checkpoint again before it lets go of the lock, so the next one
starts from it.
"""

from __future__ import annotations

import sqlite3
import time as wallclock
from pathlib import Path
from typing import TYPE_CHECKING, Any

from c4cli.chain.cache import Cache, Mark, TxRow
from c4cli.chain.interface import (
    DEFAULT_POLICY,
    Answer,
    Build,
    GameCall,
    Head,
    Receipt,
    SendPolicy,
    Signer,
    Verified,
)
from c4cli.chain.log import BlockLog, TornLog, chain_digest
from c4cli.errors import BadInput, HomeDamaged, Refused, warn_once

if TYPE_CHECKING:
    from c4cli.chain.blocks import Block, Genesis
    from c4cli.chain.state import ChainState, TxResult
    from c4cli.chain.tx import Tx


class LocalChain:
    """A chain in ``<home>/chain``: an append-only TOML log and a throwaway cache."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.log = BlockLog(home)
        self.cache = Cache(home / "chain" / "cache")
        # Where the state last loaded stands in the log, and how many blocks
        # loading it executed (0 from a checkpoint of this very log).
        self.mark = Mark(0, b"")
        self.replayed = 0
        self._realm_path: str | None = None

    # -- genesis ----------------------------------------------------------------

    def exists(self) -> bool:
        return self.log.exists()

    def refuse_existing(self, *, force: bool) -> None:
        """`c4 init` without --force on a home that has a chain: refused, nothing touched."""
        if self.log.exists() and not force:
            raise self._exists()

    def _exists(self) -> BadInput:
        return BadInput(f"a chain already exists in {self.home}: pass --force to replace it")

    def init(self, genesis: Genesis, *, force: bool = False) -> ChainState:
        from c4cli.chain.state import ChainState, check_supply

        check_supply(genesis.balances)  # in gno's words, exit 2, before anything is written
        record = genesis.to_record()
        ChainState(genesis, record["hash"])
        with self.log.creating():
            try:
                self.log.create(record, force=force)
            except FileExistsError:
                raise self._exists() from None
            self.cache.discard()
            return self._current()

    # -- reading ------------------------------------------------------------------

    def state(self) -> ChainState:
        """The state at the last block, under a shared lock."""
        with self.log.locked(exclusive=False):
            return self._current()

    def cached(self) -> Cache:
        """The cache, made to describe the log as it is now (its ready answers)."""
        with self.log.locked(exclusive=False):
            if not self.cache.fresh(self.log.path):
                self._current()
            return self.cache

    # -- the Chain interface ------------------------------------------------------

    @property
    def realm_path(self) -> str:
        # Read once: a chain's realm path is its genesis', and every realm read asks.
        if self._realm_path is None:
            self._realm_path = str(self.cached().stamp["realm_path"])
        return self._realm_path

    @property
    def exact_clock(self) -> bool:
        return True

    @property
    def poll_interval(self) -> float:
        return 0.1  # a look at the log's size: cheap, and no busy loop

    @property
    def fills_in_fee(self) -> bool:
        return False

    def head(self) -> Head:
        stamp = self.cached().stamp
        return Head(int(stamp["height"]), int(stamp["time"]))

    def next_block_time(self, wall_clock: float) -> int:
        """When a block made now would be dated (the clock the views count down on)."""
        return self.state().next_block_time(wall_clock)

    def chain_time(self, wall_clock: float) -> int:
        """Chain time now: the last block's on a manual clock, the (shifted) wall clock's else."""
        state = self.state()
        if state.genesis.clock == "manual":
            return state.time
        return max(int(wall_clock) + state.clock_offset, state.time)

    def query(self, path: str, data: str = "") -> Answer:
        """A query by gno.land's path, at the last block: from the checkpoint's ready
        answers when it has them, else from the state."""
        from c4cli.chain.queries import StateReader, from_cache

        with self.log.locked(exclusive=False):
            if not self.cache.fresh(self.log.path):
                self._current()
            answer = from_cache(self.cache, path, data)
            if answer is not None:
                return answer
            return StateReader(self._current()).query(path, data)

    def _current(self) -> ChainState:
        """The state at the last block: the checkpoint, the checkpoint and the blocks
        after it, or the log replayed from genesis, whichever fits this log."""
        self.replayed = 0
        if self.cache.fresh(self.log.path):
            state = self.cache.load()
            if state is not None:
                self.mark = self.cache.mark
                return state
        data = self.log.read_bytes()
        if self.cache.checkpoint() is not None:
            mark = self.cache.mark
            if self.log.digest_through(data, mark.offset) == mark.digest:
                state = self.cache.load()
                if state is not None and self._catch_up(state, data, mark):
                    return state
        txs: list[TxRow] = []
        state = self.replay(txs=txs, data=data)
        self.replayed = state.height
        digest = self.log.digest_through(data, len(data))
        assert digest is not None, "a log that replays has whole blocks"
        self.mark = Mark(len(data), digest)
        genesis, _ = self.log.parse_genesis(data)
        self._save_cache(state, full=True, txs=txs, genesis=genesis)
        return state

    def _catch_up(self, state: ChainState, data: bytes, mark: Mark) -> bool:
        """Execute the blocks the log gained after the checkpoint, and save it again.

        False if the checkpoint could not take them: the caller replays instead.
        """
        from c4cli.chain.replay import keep_outcomes, naming

        txs: list[TxRow] = []
        digest = mark.digest
        with naming(self.log):
            for raw in self.log.parse_blocks(data, mark.offset, state.height + 1):
                keep_outcomes(txs, state, state.apply_block(raw.record))
                digest = chain_digest(digest, data[raw.offset : raw.end])
                self.replayed += 1
        if not self.replayed:
            # The same blocks in a file touched since (or with blank lines after the
            # last block): only the identity the checkpoint records is refreshed.
            self.mark = mark
            self._save_cache(state, full=False, txs=[])
            return True
        self.mark = Mark(len(data), digest)
        return self._save_cache(state, full=False, txs=txs)

    def _save_cache(
        self,
        state: ChainState,
        *,
        full: bool,
        txs: list[TxRow],
        genesis: dict[str, Any] | None = None,
        appended: bool = False,
    ) -> bool:
        """Save the checkpoint; a home that cannot take it keeps one in memory instead.

        The cache is a cache: a full disk, a read-only medium or an I/O error
        never fails a command. After an append the command says so in one
        warning line; later commands replay the log and give the same answers.
        Returns whether the checkpoint on disk was saved.
        """
        try:
            self.cache.save(state, self.log.path, self.mark, full=full, txs=txs, genesis=genesis)
            return True
        except (OSError, sqlite3.Error) as exc:
            self.cache.close()
            if appended:
                warn_once(
                    f"warning: the cache in {self.cache.path.parent} could not be saved "
                    f"({_reason(exc)}); the transaction is recorded, and later commands "
                    "replay the log instead"
                )
            # This process goes on with a cache in memory: rebuilt from the log
            # (the next read replays it), so its answers are the log's.
            self.cache = Cache(None)
            if full:
                self.cache.save(
                    state, self.log.path, self.mark, full=True, txs=txs, genesis=genesis
                )
            return False

    def replay(
        self,
        *,
        verify: bool = False,
        timings: dict[str, float] | None = None,
        txs: list[TxRow] | None = None,
        data: bytes | None = None,
    ) -> ChainState:
        """Every block from genesis with every check; with ``verify``, checks in parallel."""
        from c4cli.chain.replay import replay

        return replay(self.log, parallel=verify, timings=timings, txs=txs, data=data)

    def blocks(self, first: int, last: int | None) -> list[Block]:
        """Blocks ``first`` to ``last`` with each transaction's outcome, without replaying.

        The cache must describe this very log (it is rebuilt if not), so the
        blocks read here are the ones its outcomes came from.
        """
        from c4cli.chain.blocks import Block

        with self.log.locked(exclusive=False):
            if not self.cache.fresh(self.log.path):
                self._current()
            data = self.log.read_bytes()
            _, offset = self.log.parse_genesis(data)
            out = []
            for span in self.log.spans(data, offset, 1):
                if span.height < first:
                    continue
                if last is not None and span.height > last:
                    break
                record = self.log.parse_block(data[span.start : span.end], span.height)
                outcomes = []
                for entry in record.get("txs", []):
                    found = self.cache.transaction(str(entry["hash"]))
                    if found is None:  # cannot happen with a cache this code wrote
                        raise HomeDamaged(f"{self.cache.path}: incomplete; delete it")
                    outcomes.append(found[1])
                out.append(Block(record, outcomes))
            return out

    def game_calls(self, game_id: int) -> list[GameCall]:
        with self.log.locked(exclusive=False):
            if not self.cache.fresh(self.log.path):
                self._current()
            rows = self.cache.game_txs(game_id)
        return [
            GameCall(
                height,
                hash_,
                str(outcome["signer"]),
                str(outcome["func"]).split(","),
                [[str(arg) for arg in args] for args in outcome.get("args", [])],
            )
            for height, hash_, outcome in rows
        ]

    def listing(self, first: int, last: int | None, tail: int | None) -> list[dict[str, Any]]:
        from c4cli.chain.listing import local_blocks

        if tail is not None:
            top = last if last is not None else self.head().height
            first = max(first, top - tail + 1)
        return local_blocks(self.blocks(first, last))

    def listed_tx(self, tx_hash: str) -> tuple[dict[str, Any], bytes] | None:
        from c4cli.chain.amino import encode_tx
        from c4cli.chain.listing import local_tx

        found = self.find_tx(tx_hash)
        if found is None:
            return None
        record, index, outcome = found
        entry = record["txs"][index]
        doc = local_tx(entry, outcome, record["height"], record["time"])
        doc["tx"] = entry["tx"]
        return doc, encode_tx(entry["tx"])

    def find_tx(self, tx_hash: str) -> tuple[dict[str, Any], int, dict[str, Any]] | None:
        """A transaction by hash: its block, its index there and its outcome."""
        with self.log.locked(exclusive=False):
            if not self.cache.fresh(self.log.path):
                self._current()
            found = self.cache.transaction(tx_hash)
        if found is None:
            return None
        height, outcome = found
        (block,) = self.blocks(height, height)
        for index, entry in enumerate(block.record.get("txs", [])):
            if entry["hash"] == tx_hash:
                return block.record, index, outcome
        return None

    def verify(self, timings: dict[str, float] | None = None) -> Verified:
        """Everything from genesis, ignoring the cache: hashes, signatures, execution."""
        with self.log.locked(exclusive=False):
            state = self.replay(verify=True, timings=timings)
        return Verified(state.height, state.last_hash, state.transactions())

    # -- writing ------------------------------------------------------------------

    def submit(
        self,
        signer: Signer,
        build: Build,
        fee: dict[str, str],
        memo: str,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> Receipt:
        """Sign for the signer's current sequence, execute, append: all under the lock.

        ``build`` makes the messages from queries of the state they will run
        against, so a default such as "the move count I see" is read inside the
        same lock. Executing is the simulation: a refused transaction is never
        appended, whatever ``policy.simulate`` says, and ``only`` appends nothing.
        """
        from c4cli.chain.accounts import session_not_found, unknown_account
        from c4cli.chain.queries import StateReader
        from c4cli.chain.tx import signed_tx

        with self.log.locked(exclusive=True):
            state = self._current()
            messages = build(StateReader(state))
            account = state.account(signer.address)
            if account is None:
                raise unknown_account(signer.address)
            number, sequence = account.number, account.sequence
            if signer.session_addr is not None:
                session = account.sessions.get(signer.session_addr)
                if session is None:
                    raise session_not_found(signer.session_addr, signer.address)
                number, sequence = session.number, session.sequence
            tx = signed_tx(
                messages,
                fee,
                memo,
                private_key=signer.private_key,
                chain_id=state.genesis.chain_id,
                account_number=number,
                sequence=sequence,
                session_addr=signer.session_addr,
            )
            return self._append_tx(state, tx, number, sequence, dry_run=policy.simulate == "only")

    def broadcast(self, tx: Tx) -> Receipt:
        """Append a transaction signed elsewhere, checked exactly like our own."""
        with self.log.locked(exclusive=True):
            state = self._current()
            account = state.signing_account(tx)
            number, sequence = account.number, account.sequence
            signatures = tx.get("signatures")
            if isinstance(signatures, list) and signatures and isinstance(signatures[0], dict):
                session = account.sessions.get(str(signatures[0].get("session_addr")))
                if session is not None:
                    number, sequence = session.number, session.sequence
            return self._append_tx(state, tx, number, sequence)

    def _append_tx(
        self, state: ChainState, tx: Tx, number: int, sequence: int, *, dry_run: bool = False
    ) -> Receipt:
        from c4cli.chain.blocks import tx_entry

        block_time = state.next_block_time(wallclock.time())
        entry = tx_entry(tx, number, sequence)
        record = self._block_record(state, block_time, txs=[entry])
        # Executing the block is the simulation: a refusal raises before anything is written.
        results = state.apply_block(record, new=True)
        if dry_run:
            # Only this copy of the state holds the block: the log and the checkpoint
            # were not touched, and every later read loads the state afresh.
            return Receipt(height=0, time=0, result=results[0].delivered(), simulated=True)
        self._append(state, record, results)
        return Receipt(height=state.height, time=state.time, result=results[0].delivered())

    def _append(self, state: ChainState, record: dict[str, Any], results: list[TxResult]) -> None:
        from c4cli.chain.replay import keep_outcomes

        written = self.log.append(record)
        self.mark = Mark(self.mark.offset + len(written), chain_digest(self.mark.digest, written))
        txs: list[TxRow] = []
        keep_outcomes(txs, state, results)
        self._save_cache(state, full=False, txs=txs, appended=True)

    def _block_record(
        self, state: ChainState, block_time: int, *, txs: list[Any], advance: int = 0
    ) -> dict[str, Any]:
        from c4cli.chain.blocks import block_hash
        from c4cli.chain.clock import MAX_TIME, format_time

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

    def advance(self, seconds: int) -> Head:
        """Mine an empty block ``seconds`` later (and, on a wall clock, shift the clock)."""
        from c4cli.chain.clock import MAX_TIME, check_settable

        if not 0 < seconds <= MAX_TIME:
            raise BadInput("the duration must be from 1s to the year 9999")
        with self.log.locked(exclusive=True):
            state = self._current()
            if state.genesis.clock == "manual":
                block_time = state.time + seconds
            else:
                block_time = max(
                    int(wallclock.time()) + state.clock_offset + seconds, state.time + 1
                )
            check_settable(block_time)
            return self._mine_empty(state, block_time, advance=seconds)

    def set_time(self, unix: int) -> Head:
        """Mine an empty block at exactly ``unix``, which must be after the last block."""
        from c4cli.chain.clock import check_settable, format_time

        check_settable(unix)
        with self.log.locked(exclusive=True):
            state = self._current()
            if unix <= state.time:
                raise BadInput(
                    f"{format_time(unix)} is not after the last block "
                    f"(height {state.height}, {format_time(state.time)})"
                )
            return self._mine_empty(state, unix, advance=0)

    def _mine_empty(self, state: ChainState, block_time: int, *, advance: int) -> Head:
        record = self._block_record(state, block_time, txs=[], advance=advance)
        self._append(state, record, state.apply_block(record))
        return Head(state.height, state.time)

    def repair(self) -> int | None:
        """Cut a torn final block off the log; returns the height kept, or None if whole."""
        with self.log.locked(exclusive=True):
            try:
                self.replay()
            except TornLog as torn:
                self.log.truncate(torn.cut)
                self.cache.discard()
                return torn.height - 1
            return None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__
