"""The local chain: a home folder's log, replayed, behind the :class:`Chain` interface.

Commands see it as any gno.land client sees a node (sign and submit, query by
path, the last block), so a remote node can stand where :class:`LocalChain`
stands. The rest of its methods (init, the clock, the log, verify) exist only
for a chain in a folder.

The state is always the log replayed (:mod:`c4cli.local.loading`, through the
checkpoint when it fits). Every command that appends a block saves the checkpoint
again before it lets go of the lock, so the next one starts from it.
"""

from __future__ import annotations

import json
import time as wallclock
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from c4cli.chain.controls import Reverted, Snapshot
from c4cli.chain.interface import (
    DEFAULT_POLICY,
    Build,
    GameCall,
    Head,
    ListedBlock,
    ListedTx,
    Receipt,
    SendPolicy,
    Signer,
    ThenRead,
    Verified,
)
from c4cli.coins import Coins
from c4cli.errors import (
    BadInput,
    ChainExists,
    HomeDamaged,
    Refused,
    SessionNotFound,
    UnknownAccount,
)
from c4cli.local import cheats, genesis_state, next_time, pooled, snapshots
from c4cli.local.blocks import LoggedBlock, listed_blocks, listed_tx, new_record, tx_entry
from c4cli.local.cache import Mark
from c4cli.local.log import BlockRecord, TornLog, TxEntry, chain_digest
from c4cli.local.projection import TxRow
from c4cli.local.reader import LocalReader, reader_of
from c4cli.local.replay import keep_outcomes
from c4cli.wire.msgs import Msg
from c4cli.wire.pubkeys import PubKey
from c4cli.wire.std import Fee, Tx, encode_tx, runs_locally
from c4cli.wire.tx import signed_tx

if TYPE_CHECKING:
    from c4cli.local.execute import Outcome, TxResult
    from c4cli.local.genesis import Genesis
    from c4cli.local.state import ChainState


class LocalChain(LocalReader):
    """A chain in ``<home>/chain``: an append-only TOML log and a throwaway cache."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self._genesis_games: dict[int, str] | None = None  # a state's move strings, once read

    # -- genesis ----------------------------------------------------------------

    def refuse_existing(self, *, force: bool) -> None:
        """`c4 init` without --force on a home that has a chain: refused, nothing touched."""
        if self.log.exists() and not force:
            raise self._exists()

    def _exists(self) -> BadInput:
        return ChainExists(f"a chain already exists in {self.home}")

    def init(
        self, genesis: Genesis, *, force: bool = False, begun: bytes | None = None
    ) -> ChainState:
        """A new chain, from ``genesis`` (and the state ``begun`` its genesis names)."""
        from c4cli.local.state import ChainState, check_supply

        assert (begun is None) == (not genesis.state), "a state and its name go together"
        assert begun is None or genesis_state.digest(begun) == genesis.state
        document = None if begun is None else json.loads(begun)
        held = ChainState(genesis._replace(balances=()), "", document).total_supply()
        check_supply(genesis.balances, held)  # in gno's words, exit 2, before anything is written
        record = genesis.to_record()
        with self.log.creating():
            if self.log.exists() and not force:
                raise self._exists()
            genesis_state.write(self.log.folder, begun)
            try:
                self.log.create(record, force=force)
            except FileExistsError:
                raise self._exists() from None
            self.cache.discard()
            return self.current()

    # -- the Chain interface ------------------------------------------------------

    @property
    def exact_clock(self) -> bool:
        return True

    @property
    def poll_interval(self) -> float:
        return 0.1  # a look at the log's size: cheap, and no busy loop

    @property
    def fills_in_fee(self) -> bool:
        return False

    def chain_time(self, wall_clock: float) -> int:
        """Chain time now: the last block's on a manual clock, the (shifted) wall clock's else."""
        state = self.state()
        if state.genesis.clock == "manual":
            return state.time
        return max(state.wall_time(wall_clock), state.time)

    def blocks(self, first: int, last: int | None) -> list[LoggedBlock]:
        """Blocks ``first`` to ``last`` with each transaction's outcome, without replaying
        (the cache, rebuilt if need be, describes this very log: its outcomes are theirs)."""
        with self.reading():
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
                    found = self.cache.views.transaction(str(entry["hash"]))
                    if found is None:  # cannot happen with a cache this code wrote
                        raise HomeDamaged(f"{self.cache.path}: incomplete; delete it")
                    outcomes.append(found[1])
                out.append(LoggedBlock(record, outcomes))
            return out

    def transactions_through(self, height: int) -> int:
        """How many transactions blocks 1 to ``height`` hold (tm2's ``total_txs``)."""
        return self.cached().views.transactions_through(height)

    def game_calls(self, game_id: int) -> list[GameCall]:
        with self.reading():
            rows = self.cache.views.game_txs(game_id)
            begun = self._moves_at_genesis(game_id)
        return begun + [
            GameCall(
                height,
                hash_,
                outcome["signer"],
                outcome["func"].split(","),
                outcome.get("args", []),
                outcome.get("time", 0),
            )
            for height, hash_, outcome in rows
        ]

    def _moves_at_genesis(self, game_id: int) -> list[GameCall]:
        """A chain begun from a state (a fork, a load) holds games whose moves no block
        of its log made: the state's move string, as the record of its block 0."""
        genesis = self.cache.genesis()
        if genesis is not None and genesis.state and self._genesis_games is None:
            self._genesis_games = genesis_state.moves(self.log.folder, genesis.state)
        moves = (self._genesis_games or {}).get(game_id, "")
        if genesis is None or not moves:
            return []
        args = [[str(game_id), column, str(number)] for number, column in enumerate(moves)]
        return [GameCall(0, "", "", ["Play"] * len(moves), args, genesis.time)]

    def listing(self, first: int, last: int | None, tail: int | None) -> list[ListedBlock]:
        if tail is not None:
            top = last if last is not None else self.head().height
            first = max(first, top - tail + 1)
        return listed_blocks(self.blocks(first, last))

    def listed_tx(self, tx_hash: str) -> tuple[ListedTx, bytes] | None:
        found = self.find_tx(tx_hash)
        if found is None:
            return None
        record, index, outcome = found
        entry = record["txs"][index]
        doc = listed_tx(entry, outcome, record["height"], record["time"])
        doc["tx"] = entry["tx"]
        return doc, encode_tx(Tx.from_json(entry["tx"]))

    def find_tx(self, tx_hash: str) -> tuple[BlockRecord, int, Outcome] | None:
        """A transaction by hash: its block, its index there and its outcome."""
        with self.reading():
            found = self.cache.views.transaction(tx_hash)
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
            self.not_cut(self.log.path.stat().st_size)
        return Verified(state.height, state.last_hash, state.transactions())

    # -- writing ------------------------------------------------------------------

    def submit(
        self,
        signer: Signer,
        build: Build,
        fee: Fee,
        memo: str,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
        then_read: ThenRead | None = None,
    ) -> Receipt:
        """Sign for the signer's current sequence, execute, append: all under the lock.

        ``build`` makes the messages from queries of the state they will run
        against, so a default such as "the move count I see" is read inside the
        same lock. Executing is the simulation: a refused transaction is never
        appended, whatever ``policy.simulate`` says, and ``only`` appends nothing.
        ``then_read`` is for a node: what follows reads this home's own state.
        """
        with self.log.locked(exclusive=True):
            state = self.current()
            messages = build(reader_of(state))
            if signer.impersonated:  # the chain's refusal first: funding would not help
                cheats.require_impersonation(state.genesis)
            account = state.account(signer.address)
            if account is None:
                raise UnknownAccount(signer.address)
            number, sequence = account.number, account.sequence
            if signer.session_addr is not None:
                session = account.sessions.get(signer.session_addr)
                if session is None:
                    raise SessionNotFound(signer.session_addr, signer.address)
                number, sequence = session.number, session.sequence
            dry_run = policy.simulate == "only"
            if signer.impersonated:
                tx = cheats.impersonated(state, messages, fee, memo, account)
                entry = tx_entry(tx, number, sequence, impersonated=True)
                return self._append_tx(state, entry, dry_run)
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
            return self._append_tx(state, tx_entry(tx, number, sequence), dry_run)

    def unsigned_fee(
        self,
        msgs: list[Msg],
        fee: Fee,
        memo: str,
        pub_key: PubKey,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> Fee:
        return fee

    def broadcast(
        self,
        tx: Tx,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
        unsigned: bool = False,
        impersonated: bool = False,
    ) -> Receipt:
        """Append a transaction signed elsewhere, checked exactly like our own (with
        ``policy.simulate`` ``only``, checked and run but not appended). ``unsigned``
        is gno.land's ``.app/simulate`` of a call: run for what it would do, its
        signatures unchecked (gnokey blanks them), never appended."""
        runs_locally(tx, self.realm_path)
        if unsigned:
            with self.log.locked(exclusive=False):
                return self._simulate_unsigned(self.current(), tx)
        with self.log.locked(exclusive=True):
            state = self.current()
            entry = tx_entry(tx, *state.signing_numbers(tx), impersonated=impersonated)
            return self._append_tx(state, entry, policy.simulate == "only")

    def broadcast_block(
        self, txs: Sequence[Tx], impersonated: frozenset[str] = frozenset()
    ) -> list[Receipt | Refused]:
        return pooled.broadcast_block(self, txs, impersonated)

    def _simulate_unsigned(self, state: ChainState, tx: Tx) -> Receipt:
        entry = tx_entry(tx, *state.signing_numbers(tx))
        record = new_record(
            state.height, state.last_hash, state.next_block_time(wallclock.time()), txs=[entry]
        )
        results = state.apply_block(record, new=True, verified=True)
        return results[0].receipt(0, 0, simulated=True)

    def _append_tx(self, state: ChainState, entry: TxEntry, dry_run: bool) -> Receipt:
        block_time = state.next_block_time(wallclock.time())
        record = new_record(state.height, state.last_hash, block_time, txs=[entry])
        # Executing the block is the simulation: a refusal raises before anything is written.
        results = state.apply_block(record, new=True)
        if dry_run:
            # Only this copy of the state holds the block: the log and the checkpoint
            # were not touched, and every later read loads the state afresh.
            return results[0].receipt(0, 0, simulated=True)
        self.append(state, record, results)
        return results[0].receipt(state.height, state.time)

    def append(self, state: ChainState, record: BlockRecord, results: list[TxResult]) -> None:
        """Append a block ``state`` executed (exclusive lock held); save the checkpoint."""
        written = self.log.append(record)
        next_time.unpin(self.log.folder)
        self.mark = Mark(self.mark.offset + len(written), chain_digest(self.mark.digest, written))
        txs: list[TxRow] = []
        keep_outcomes(txs, state, results)
        self._save_cache(state, full=False, txs=txs, appended=True)

    def advance(self, seconds: int) -> Head:
        return cheats.advance(self, seconds)

    def set_time(self, unix: int) -> Head:
        return cheats.set_time(self, unix)

    def mine(self, count: int) -> Head:
        return cheats.mine(self, count)

    def set_balance(self, address: str, coins: Coins) -> Head:
        return cheats.set_balance(self, address, coins)

    def set_next_time(self, unix: int) -> int:
        return cheats.next_time(self, unix)

    def dump(self) -> bytes:
        return cheats.dump(self)

    def load(self, data: bytes) -> Head:
        return cheats.load(self, data)

    def opening(self, address: str) -> Coins:
        account = self.state_at(0).accounts.get(address)
        return {} if account is None else dict(account.coins)

    def snapshot(self) -> Snapshot:
        return snapshots.snapshot(self)

    def revert(self, ident: str) -> Reverted:
        return snapshots.revert(self, ident)

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
