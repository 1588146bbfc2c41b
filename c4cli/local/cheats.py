"""What a chain in a folder lets its user do that no node does: anvil's cheats.

Each one that changes the chain is a block of the log, so a replay and `c4 verify`
make the same state again: ``c4 time advance`` and ``c4 time set`` (an empty block
at a time), ``c4 cheat mine N`` (N empty blocks), ``c4 cheat set-balance`` (a block
whose ``set_balances`` sets an account's coins before anything else runs in it,
as the genesis' ``balances`` set them at the start). ``c4 cheat next-time`` dates
the next block, whatever makes it, and is kept until then in ``chain/next-time``
(a wish, not the chain's: the block that takes it records its own time).
``c4 cheat dump`` writes the whole state as a document a new chain begins from
(:mod:`c4cli.local.genesis_state`). And an address may act without its key on a
chain whose genesis allows it (`c4 --impersonate`): its transaction carries no
key's signature, and its log entry says ``impersonated``.
"""

from __future__ import annotations

import json
import time as wallclock
from typing import TYPE_CHECKING, Any

from c4cli.chain.clock import MAX_TIME, check_settable, format_time, parse_time
from c4cli.chain.interface import Head
from c4cli.coins import Coins, format_coins
from c4cli.errors import BadInput, disk_error
from c4cli.local import genesis_state, state_document
from c4cli.local.blocks import new_record
from c4cli.local.next_time import pin
from c4cli.wire.msgs import Msg
from c4cli.wire.std import Fee, Tx
from c4cli.wire.tx import impersonated_tx

if TYPE_CHECKING:
    from c4cli.local.chain import LocalChain
    from c4cli.local.genesis import Genesis
    from c4cli.local.state import ChainState

MAX_MINED = 100_000  # empty blocks one `c4 cheat mine` makes at most


def advance(chain: LocalChain, seconds: int) -> Head:
    """Mine an empty block ``seconds`` later (and, on a wall clock, shift the clock)."""
    if not 0 < seconds <= MAX_TIME:
        raise BadInput("the duration must be from 1s to the year 9999")
    with chain.log.locked(exclusive=True):
        state = chain.current()
        if state.genesis.clock == "manual":
            block_time = state.time + seconds
        else:
            block_time = max(state.wall_time(wallclock.time()) + seconds, state.time + 1)
        check_settable(block_time)
        return _mine(chain, state, block_time, advance=seconds)


def set_time(chain: LocalChain, unix: int) -> Head:
    """Mine an empty block at exactly ``unix``, which must be after the last block."""
    check_settable(unix)
    with chain.log.locked(exclusive=True):
        state = chain.current()
        _after_last(state, unix)
        return _mine(chain, state, unix)


def mine(chain: LocalChain, count: int) -> Head:
    """Mine ``count`` empty blocks, each at the time the next block would have."""
    if not 0 < count <= MAX_MINED:
        raise BadInput(f"the number of blocks must be from 1 to {MAX_MINED:,}")
    with chain.log.locked(exclusive=True):
        state = chain.current()
        head = Head(state.height, state.time)
        for _ in range(count):
            block_time = state.next_block_time(wallclock.time())
            check_settable(block_time)
            head = _mine(chain, state, block_time)
        return head


def set_balance(chain: LocalChain, address: str, coins: Coins) -> Head:
    """A block that sets ``address``'s coins to exactly ``coins`` (none: it holds
    nothing), before anything else in it runs."""
    entry = {"address": address, "amount": format_coins(coins)}
    with chain.log.locked(exclusive=True):
        state = chain.current()
        block_time = state.next_block_time(wallclock.time())
        check_settable(block_time)
        record = new_record(state.height, state.last_hash, block_time, txs=[], set_to=[entry])
        chain.append(state, record, state.apply_block(record, new=True))
        return Head(state.height, state.time)


def next_time(chain: LocalChain, unix: int) -> int:
    """Date the next block ``unix`` (after the last block's), whatever makes it."""
    check_settable(unix)
    with chain.log.locked(exclusive=True):
        _after_last(chain.current(), unix)
        pin(chain.log.folder, unix)
    return unix


def dump(chain: LocalChain) -> bytes:
    """The whole state at the last block, as a document a new chain begins from:
    the log replayed (every game and commitment then in memory), the cache unread."""
    with chain.log.locked(exclusive=False):
        return genesis_state.encoded(state_document.dumped(chain.replay()))


def require_impersonation(genesis: Genesis) -> None:
    """BadInput, in one line, for a chain whose genesis lets no address act without its
    key (`c4 --impersonate`, `c4_impersonate`)."""
    if not genesis.impersonation:
        raise BadInput(
            "this chain's genesis allows no impersonation (a fork's does, and a chain "
            "made to allow it)"
        )


def impersonated(state: ChainState, msgs: list[Msg], fee: Fee, memo: str, account: Any) -> Tx:
    """The transaction an address sends without its key (`c4 --impersonate`), where
    the genesis allows it: a fork's does, and a chain made to allow it."""
    require_impersonation(state.genesis)
    return impersonated_tx(
        msgs, fee, memo, chain_id=state.genesis.chain_id, account_number=account.number,
        sequence=account.sequence, pub_key=account.pub_key,
    )  # fmt: skip


def load(chain: LocalChain, data: bytes) -> Head:
    """The home's chain begun again from the state document ``data`` (anvil_loadState,
    over `c4 serve`'s RPC): its chain id, clock and rules stay; the log until now is
    kept beside it (``chain/replaced-N.toml``), as a revert keeps what it cuts."""
    try:
        document = json.loads(data)
        kept = genesis_state.encoded(document)
        state = chain.state()
        new = state.genesis._replace(
            time=parse_time(str(document["time"])),
            realm_path=str(document["realm"]["path"]),
            deployer=str(document["realm"]["owner"]),
            balances=(),
            state=genesis_state.digest(kept),
        )
        type(state)(new, "", json.loads(kept))  # it loads, or nothing changes
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise BadInput(f"not a state c4 can begin a chain from: {exc}") from None
    _keep_aside(chain)
    chain.init(new, force=True, begun=kept)
    return Head(0, new.time)


def _keep_aside(chain: LocalChain) -> None:
    folder, number = chain.log.folder, 1
    while (folder / f"replaced-{number}.toml").exists():
        number += 1
    try:
        (folder / f"replaced-{number}.toml").write_bytes(chain.log.read_bytes())
    except OSError as exc:
        raise disk_error(folder / f"replaced-{number}.toml", exc, "nothing was loaded") from None


def _after_last(state: ChainState, unix: int) -> None:
    if unix <= state.time:
        raise BadInput(
            f"{format_time(unix)} is not after the last block "
            f"(height {state.height}, {format_time(state.time)})"
        )


def _mine(chain: LocalChain, state: ChainState, block_time: int, *, advance: int = 0) -> Head:
    record = new_record(state.height, state.last_hash, block_time, txs=[], advance=advance)
    chain.append(state, record, state.apply_block(record))
    return Head(state.height, state.time)
