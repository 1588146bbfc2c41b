"""Blocks as the log records them (the genesis, height 0, is :mod:`c4cli.local.genesis`),
and as a listing shows them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

from c4cli.chain.clock import MAX_TIME, format_time
from c4cli.chain.interface import ListedBlock, ListedTx
from c4cli.chain.listing import LANDED, fee_of, messages
from c4cli.errors import Refused
from c4cli.local.genesis import block_hash
from c4cli.local.log import BlockRecord, TxEntry
from c4cli.wire.std import Tx, tx_hash

if TYPE_CHECKING:
    from c4cli.local.execute import Outcome


def tx_entry(tx: Tx, account_number: int, sequence: int, *, impersonated: bool = False) -> TxEntry:
    """A transaction as a block records it: the numbers it was signed for, its TX HASH
    (what a node indexes it by) and the signed tx as amino JSON; ``impersonated`` for
    one no key signed (`c4 --impersonate`, on a chain whose genesis allows it)."""
    entry: TxEntry = {
        "account_number": account_number,
        "sequence": sequence,
        "hash": tx_hash(tx),
        "tx": tx.to_json(),
    }
    if impersonated:
        entry["impersonated"] = True
    return entry


def new_record(
    height: int,
    prev_hash: str,
    block_time: int,
    *,
    txs: list[TxEntry],
    advance: int = 0,
    set_to: list[dict[str, str]] | None = None,
) -> BlockRecord:
    """The record of a block about to follow block ``height`` (hash ``prev_hash``);
    ``set_to``: the balances `c4 cheat set-balance` sets at its start."""
    if block_time > MAX_TIME:
        raise Refused(f"the next block would be after {format_time(MAX_TIME)}: the clock is full")
    fields: dict[str, Any] = {  # in the order the log writes them, the hash last
        "height": height + 1,
        "time": format_time(block_time),
        "prev_hash": prev_hash,
    }
    if advance:
        fields["advance"] = advance
    if set_to:
        fields["set_balances"] = set_to
    if txs:  # an empty block has no txs key at all: TOML has no empty array of tables
        fields["txs"] = txs
    fields["hash"] = block_hash(fields)
    return cast(BlockRecord, fields)


class BlockContext(NamedTuple):
    """The block a transaction is delivered in: what every step of it may read."""

    height: int
    time: int


class LoggedBlock(NamedTuple):
    """A block as the log has it, and what each of its transactions did."""

    record: BlockRecord
    outcomes: list[Outcome]


def listed_tx(entry: TxEntry, outcome: Outcome, height: int, time: str) -> ListedTx:
    """A transaction of the log as `c4 log` and `c4 tx` list one (:mod:`c4cli.chain.listing`),
    with what the cache says it did."""
    tx = Tx.from_json(entry["tx"])
    gas_wanted, gas_fee = fee_of(tx)
    said = messages(tx)
    listed: ListedTx = {
        "hash": entry["hash"],
        "height": height,
        "time": time,
        "tx_status": LANDED,
        "ok": True,
        "error": None,
        "signer": outcome["signer"],
        "func": said["func"],
        "args": said["args"],
        "send": said["send"],
        "to": said["to"],
        "result": outcome["result"],
        "transfers": outcome["transfers"],
        "gas_wanted": gas_wanted,
        "gas_used": 0,
        "gas_fee": gas_fee,
    }
    if entry.get("impersonated"):
        listed["impersonated"] = True  # no key signed it: an address acted without one
    return listed


def listed_blocks(blocks: list[LoggedBlock]) -> list[ListedBlock]:
    """Blocks of the log as `c4 log` lists them."""
    shown: list[ListedBlock] = []
    for block in blocks:
        record = block.record
        txs = [
            listed_tx(entry, outcome, record["height"], record["time"])
            for entry, outcome in zip(record.get("txs", []), block.outcomes, strict=True)
        ]
        shown.append(
            {"height": record["height"], "time": record["time"], "hash": record["hash"], "txs": txs}
        )
    return shown
