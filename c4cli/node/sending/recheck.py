"""What a home journaled on a word, held to its block once a proof is to be had.

A move's success is journaled without waiting for the next block, whose header
commits the results: its result is the node's word. So is a refusal whose next
block did not come in time, anything sent with ``--trust-node``, and a landing the
user forgot with ``c4 log --forget-above`` (the user's word). Each such journal
line says ``"proven": false``; :func:`recheck` looks again, and what is then proven
(the block by the trusted validators, the result by the next header) is journaled
so; where the proof says another fate, it is said on stderr.
"""

from __future__ import annotations

from c4cli.chain.interface import SentLog, Signer
from c4cli.errors import Unreachable, warn_once
from c4cli.node.reader import NodeReader
from c4cli.node.sending.lookup import listed_tx

LANDED, DROPPED = "landed", "dropped"


def recheck(reader: NodeReader, journal: SentLog | None, signer: Signer | None = None) -> None:
    """Every journaled transaction taken on a word, proven now where it can be
    (``signer``: only that account's refusals and forgotten ones, what a new
    transaction of it might pay twice for; a landing's success can wait for `c4
    log`). A look-up that fails proves nothing: they stay as they are."""
    if journal is None or reader.verifier is None:
        return
    for entry in journal.unproven():
        if signer is not None and (
            entry["signer"] != signer.address or entry["tx_status"] == LANDED
        ):
            continue
        try:
            listed = listed_tx(reader, entry["hash"])
        except Unreachable:
            return
        if listed is None:
            continue  # on no node: what the journal says stands
        found = listed[0]
        proof = found.get("proof")
        if not found.get("verified") or proof is None or not proof["result_proven"]:
            continue  # the next block is not made yet: later
        journal.rechecked(found)
        said = (entry["tx_status"], entry["height"])
        if (found["tx_status"], found["height"]) != said:
            word = "the user's" if entry["tx_status"] == DROPPED else "the node's"
            warn_once(
                f"note: transaction {found['hash']}, journaled as {said[0]} on {word} word, "
                f"is proven {found['tx_status']} at height {found['height']}: the journal now "
                "says so"
            )
