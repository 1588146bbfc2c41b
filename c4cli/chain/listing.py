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

from c4cli.chain.interface import BlockProof, ListedBlock, ListedTx, Messages, ProofFields
from c4cli.chain.trust import Proven
from c4cli.wire.msgs import Msg, MsgCall, MsgSend
from c4cli.wire.std import Tx

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


def blocks_of(
    txs: list[ListedTx], first: int, last: int | None, tail: int | None
) -> list[ListedBlock]:
    """A node home's transactions (its journal's) as blocks: those in ``first``..``last``
    (the last ``tail`` of them), then the transactions seen in no block, whatever the
    range (a pending one may have landed: the next transaction of its account settles
    it)."""
    by_height: dict[int, ListedBlock] = {}
    unplaced = []
    for tx in txs:
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


def proof_fields(proven: Proven | None, unproven: str) -> ProofFields:
    """What a receipt or `c4 tx` says of its block's proof (nothing on the local chain,
    whose blocks c4 made and replays: neither is set there)."""
    if proven is not None:
        return {"verified": True, "proof": block_proof(proven)}
    if unproven:
        return {"verified": False, "proof": None, "unverified": unproven}
    return {}


def with_proof(doc: ProofFields, proven: Proven | None, unproven: str) -> None:
    """``doc`` (a listed transaction) told whether its block is proven."""
    doc.update(proof_fields(proven, unproven))


def block_proof(proven: Proven) -> BlockProof:
    return {
        "height": proven.height,
        "block_hash": proven.block_hash,
        "signed_power": proven.signed,
        "total_power": proven.total,
        "result_proven": not proven.result_unproven,
    }


def proof_line(proven: Proven | None, unproven: str) -> str:
    """The same, as a receipt's line ("" on the local chain)."""
    if proven is not None:
        return f"VERIFIED:   {proof_text(block_proof(proven), proven.result_unproven)}"
    return f"VERIFIED:   no, the node's word: {unproven}" if unproven else ""


def proof_text(proof: BlockProof, why: str = "") -> str:
    """A ``proof`` (as :func:`proof_fields` gives it) in words, receipts' and `c4 tx`'s:
    the block, who signed it, and its result's standing (``why`` it is unproven)."""
    height = proof["height"]
    if proof["result_proven"]:
        result = f", its result by block {height + 1}"
    else:
        result = f" (its result: the node's word{', ' + why if why else ''})"
    return (
        f"block {height} ({proof['block_hash'][:16]}…) signed by {proof['signed_power']} "
        f"of {proof['total_power']} voting power{result}"
    )
