"""Transactions as `c4 log` and `c4 tx` list them: one shape, whichever chain holds them.

A listed transaction is a JSON object with the same keys on the local chain and on
a node; a value a chain's record does not hold is null. Its keys:

``hash``, ``height``, ``time``
    gno.land's TX HASH, the block it is in and that block's time (RFC 3339);
    null height and time for a node transaction not (or never) seen in a block.
``tx_status``
    ``landed``; on a node also ``refused`` (in a block, the realm or the VM
    refused it, its fee paid), ``pending`` (sent, not yet seen in a block) and
    ``dropped`` (known never to land). ``ok`` is true for ``landed`` only, and
    ``error`` holds a refusal's words.
``signer``, ``func``, ``args``, ``send``, ``to``
    the account it acts for, the messages' functions (``Play``, ``send``,
    ``create_session``…, joined by commas) and each message's arguments, coins
    sent and recipient (null for a call). On a node c4 knows these for the
    transactions its home sent; for another's, they are null.
``result``, ``transfers``
    the call's results as text, and the coins the chain paid out (``{"to",
    "amount"}``: a winner's payout, a refund, a fee withdrawal; stakes paid in
    are not listed).
``gas_wanted``, ``gas_used``, ``gas_fee``
    the gas asked for and used (the local chain meters none: 0) and the fee paid.
``verified``, ``proof``, ``unverified`` (`c4 tx` and receipts, on a node only)
    whether the block holding it is proven by the validators this home trusts:
    ``proof`` is ``{"height", "block_hash", "signed_power", "total_power",
    "result_proven"}`` (null when not verified, and ``unverified`` says why: the
    node's word); ``result_proven``: whether its result is held to the next
    header's results hash too.

`c4 log --json` is a list of blocks, ``{"height", "time", "hash", "txs": [...]}``:
on the local chain every block in the range (``hash``: the log's hash chain);
on a node, the blocks holding this home's transactions (``hash`` null: the node's
block ids are not the log's), then, if there are any, one more with null height,
time and hash holding the pending and dropped ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from c4cli.chain.interface import ListedBlock, ListedTx, Messages
from c4cli.chain.trust import Proven
from c4cli.wire.msgs import Msg, MsgCall, MsgSend
from c4cli.wire.std import Tx

if TYPE_CHECKING:
    from c4cli.local.blocks import LoggedBlock
    from c4cli.local.log import TxEntry

LANDED = "landed"
REFUSED = "refused"


def messages(tx: Tx) -> Messages:
    """What a tx's messages are: function names, arguments, coins sent, recipients."""
    msgs = tx.msgs
    return {
        "func": ",".join(tx.names()),
        "args": [list(m.args) if isinstance(m, MsgCall) else [] for m in msgs],
        "send": [_sent(m) for m in msgs],
        "to": [m.to_address if isinstance(m, MsgSend) else None for m in msgs],
    }


def _sent(msg: Msg) -> str:
    return msg.send if isinstance(msg, MsgCall) else msg.amount if isinstance(msg, MsgSend) else ""


def fee_of(tx: Tx) -> tuple[int, str]:
    return tx.fee.gas_wanted, tx.fee.gas_fee or "0ugnot"


def local_tx(entry: TxEntry, outcome: dict[str, Any], height: int, time: str) -> ListedTx:
    """A transaction of the local log, with what the cache says it did."""
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


def local_blocks(blocks: list[LoggedBlock]) -> list[ListedBlock]:
    """Blocks of the local log in the listing's shape."""
    shown: list[ListedBlock] = []
    for block in blocks:
        record = block.record
        txs = [
            local_tx(entry, outcome, record["height"], record["time"])
            for entry, outcome in zip(record.get("txs", []), block.outcomes, strict=True)
        ]
        shown.append(
            {"height": record["height"], "time": record["time"], "hash": record["hash"], "txs": txs}
        )
    return shown


def journal_tx(entry: dict[str, Any]) -> ListedTx:
    """A transaction of a node home's journal (see :mod:`c4cli.home.journal`)."""
    status = str(entry.get("status", LANDED))
    height = entry.get("height") if isinstance(entry.get("height"), int) else None
    try:
        gas_wanted, fee = fee_of(Tx.from_json(entry["signed"]))
    except (KeyError, ValueError):
        gas_wanted, fee = 0, ""
    error = entry.get("error") or entry.get("reason")
    return {
        "hash": entry["hash"],
        "height": height,
        "time": entry.get("time") if height is not None else None,
        "tx_status": status,
        "ok": status == LANDED,
        "error": None if error is None else str(error),
        "signer": entry.get("signer"),
        "func": entry.get("func"),
        "args": entry.get("args"),
        "send": entry.get("send"),
        "to": entry.get("to"),
        "result": entry.get("result", []),
        "transfers": entry.get("transfers", []),
        "gas_wanted": int(entry.get("gas_wanted") or gas_wanted),
        "gas_used": int(entry.get("gas_used") or 0),
        "gas_fee": str(entry.get("gas_fee") or fee or "0ugnot"),
    }


def journal_blocks(
    entries: list[dict[str, Any]], first: int, last: int | None, tail: int | None
) -> list[ListedBlock]:
    """A node home's journal as blocks: those in ``first``..``last`` (the last ``tail``
    of them), then the transactions seen in no block, whatever the range (a pending
    one may have landed: the next transaction of its account settles it)."""
    by_height: dict[int, ListedBlock] = {}
    unplaced = []
    for entry in entries:
        tx = journal_tx(entry)
        height = tx["height"]
        if height is None:
            unplaced.append(tx)
        elif first <= height and (last is None or height <= last):
            block = by_height.setdefault(
                height, {"height": height, "time": tx["time"], "hash": None, "txs": []}
            )
            block["txs"].append(tx)
    shown = [by_height[height] for height in sorted(by_height)]
    if tail is not None:
        shown = shown[-tail:]
    if unplaced:
        shown.append({"height": None, "time": None, "hash": None, "txs": unplaced})
    return shown


def proof_fields(proven: Proven | None, unproven: str) -> dict[str, Any]:
    """What a receipt or `c4 tx` says of its block's proof (nothing on the local chain,
    whose blocks c4 made and replays: neither is set there)."""
    if proven is not None:
        proof = {
            "height": proven.height,
            "block_hash": proven.block_hash,
            "signed_power": proven.signed,
            "total_power": proven.total,
            "result_proven": not proven.result_unproven,
        }
        return {"verified": True, "proof": proof}
    if unproven:
        return {"verified": False, "proof": None, "unverified": unproven}
    return {}


def proof_line(proven: Proven | None, unproven: str) -> str:
    """The same, as a receipt's line ("" on the local chain)."""
    if proven is not None:
        proof = proof_fields(proven, "")["proof"]
        return f"VERIFIED:   {proof_text(proof, proven.result_unproven)}"
    return f"VERIFIED:   no, the node's word: {unproven}" if unproven else ""


def proof_text(proof: dict[str, Any], why: str = "") -> str:
    """A ``proof`` (as :func:`proof_fields` gives it) in words, receipts' and `c4 tx`'s:
    the block, who signed it, and its result's standing (``why`` it is unproven)."""
    height = int(proof["height"])
    if proof["result_proven"]:
        result = f", its result by block {height + 1}"
    else:
        result = f" (its result: the node's word{', ' + why if why else ''})"
    return (
        f"block {height} ({str(proof['block_hash'])[:16]}…) signed by {proof['signed_power']} "
        f"of {proof['total_power']} voting power{result}"
    )
