"""A block of what `c4 serve --block-time` pooled: transactions signed elsewhere, each
checked against the state the ones before it left, the refused left out."""

from __future__ import annotations

import time as wallclock
from collections.abc import Sequence
from typing import TYPE_CHECKING

from c4cli.chain.interface import Receipt
from c4cli.errors import Refused
from c4cli.local.blocks import BlockContext, new_record
from c4cli.local.log import TxEntry
from c4cli.wire.std import Tx, runs_locally, tx_signer

if TYPE_CHECKING:
    from c4cli.local.chain import LocalChain


def broadcast_block(
    chain: LocalChain, txs: Sequence[Tx], impersonated: frozenset[str]
) -> list[Receipt | Refused]:
    """Transactions signed elsewhere, in one block: each checked as a broadcast is,
    against the state the ones before it left (one whose signer is ``impersonated``,
    on a chain that allows it, with no key's signature). A refused one is left out
    (never appended); the others land together. Each one's receipt, or its refusal,
    in order."""
    realm_path = chain.realm_path  # read before the lock: it may read the cache
    with chain.log.locked(exclusive=True):
        trial = chain.current()  # a copy to try them on: the cache loads a new one
        block_time = trial.next_block_time(wallclock.time())
        context = BlockContext(trial.height + 1, block_time)
        kept: list[TxEntry] = []
        said: list[Refused | None] = []
        for tx in txs:
            try:
                runs_locally(tx, realm_path)
                acting = tx_signer(tx) in impersonated
                kept.append(trial.admit(tx, context, impersonated=acting))
                said.append(None)
            except Refused as refused:
                said.append(refused)
        if not kept:
            return [refusal for refusal in said if refusal is not None]
        state = chain.current()
        record = new_record(state.height, state.last_hash, block_time, txs=kept)
        results = state.apply_block(record, new=True)
        chain.append(state, record, results)
    landed = iter(results)
    return [
        refusal if refusal is not None else next(landed).receipt(state.height, state.time)
        for refusal in said
    ]
