"""Transactions on a node, by hash: found on any of the home's nodes, checked.

A node indexes transactions by hash only. ``tx`` answers are believed once their
bytes hash to the hash asked for and the block they name holds them; payouts are
read from the bank's transfer events. What this home sent is its journal's
(:mod:`c4cli.home.journal`), listed as blocks by ``c4 log``.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

from c4cli.address import package_address
from c4cli.chain import answers
from c4cli.chain.amino import DecodeError, decode_tx
from c4cli.chain.clock import format_time
from c4cli.chain.interface import GameCall
from c4cli.chain.listing import journal_blocks, node_tx
from c4cli.chain.node_reads import NodeReader
from c4cli.chain.rpc import Rpc
from c4cli.coins import ugnot_in
from c4cli.errors import Unreachable


class NodeTransactions(NodeReader):
    """A node's transactions by hash, and what this home sent."""

    def listing(self, first: int, last: int | None, tail: int | None) -> list[dict[str, Any]]:
        """What this home sent (its journal): a node lists no account's transactions."""

        entries = [] if self.journal is None else self.journal.entries()
        return journal_blocks(entries, first, last, tail)

    def listed_tx(self, tx_hash: str) -> tuple[dict[str, Any], bytes] | None:
        """The node's record of any transaction, checked against its hash, read from its
        own bytes (signer, messages, signatures), whichever client sent it."""

        found = self.transaction(tx_hash)
        if found is None:
            return None
        try:
            raw = base64.b64decode(str(found["tx"]), validate=True)
            height = answers.int64(found["height"])
            base, data, events = answers.delivered(found)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise Unreachable(
                f"{self.redacted} answered tx {tx_hash} in a shape it never has"
            ) from None
        if base64.b64encode(hashlib.sha256(raw).digest()).decode() != tx_hash:
            raise Unreachable(f"{self.redacted} answered tx {tx_hash} with another transaction")
        error = answers.refusal(base) if base.get("Error") else ""
        values = [value for value, _ in answers.call_values(data)]
        transfers = [] if error else self._transfers(events)
        try:
            tx: dict[str, Any] | None = decode_tx(raw)
        except (DecodeError, UnicodeDecodeError):
            tx = None  # bytes the node took but c4 cannot read: shown without them
        doc = node_tx(found, format_time(self.block_time(height)), (values, transfers, error), tx)
        doc.update(hash=tx_hash, height=height, tx=tx)
        return doc, raw

    def game_calls(self, game_id: int) -> list[GameCall]:
        """The calls about the game this home sent and saw land (its journal): a node
        indexes transactions by hash only, so another client's are not to be had."""
        if self.journal is None:
            return []
        return self.journal.game_calls(game_id)

    def transaction(self, tx_id: str, *, timeout: float | None = None) -> dict[str, Any] | None:
        """A transaction by hash, as the node's ``tx`` gives it; None if it has none.
        With several URLs, every node is asked before saying none has it (a broadcast
        whose answer was lost may have reached another node first)."""
        try:
            found = self.rpc("tx", {"hash": tx_id}, timeout=timeout)
        except Unreachable as exc:
            if not answers.unknown_tx(str(exc)):
                raise
            found = self._elsewhere(tx_id, timeout)
            if found is None:
                return None
        if not isinstance(found, dict):
            raise Unreachable(f"{self.redacted} answered tx {tx_id} in a shape it never has")
        return found

    def _elsewhere(self, tx_id: str, timeout: float | None) -> Any:
        """The transaction as the home's other nodes know it, if one does."""
        for url in self.urls:
            if url == self.url:
                continue
            try:
                return Rpc(url, timeout=self.timeout).rpc("tx", {"hash": tx_id}, timeout=timeout)
            except Unreachable:
                continue
        return None

    def _block_holding(
        self, height: int, raw: bytes, reads: Sequence[tuple[str, str]] = (), block: Any = None
    ) -> int:
        """Block ``height``'s time, once it is seen to hold ``raw``: a broadcast's answer
        is believed only if the block it names has the transaction in it.

        ``block`` is that block's answer if it came already; else it is asked for, with
        ``reads`` (queries as (path, data)) at the last block in the same request, each
        answer that came serving the first query of it."""
        if block is None:
            block = self.block_with(height, reads)
        txs = answers.field(self.redacted, block, "block", "data", "txs")
        if not isinstance(txs, list) or base64.b64encode(raw).decode() not in txs:
            raise Unreachable(
                f"{self.redacted} said the transaction is in block {height}, "
                "but that block does not hold it"
            )
        return answers.unix_time(
            str(answers.field(self.redacted, block, "block", "header", "time"))
        )

    def _transfers(self, events: list[Any]) -> list[tuple[str, int]]:
        """Who was paid what, from the bank's transfer events: everything but the coins
        sent into the realm (stakes), as the local chain's receipts list payouts."""
        realm = package_address(self.realm_path)
        return [
            (str(event.get("to")), ugnot_in(str(event.get("coins", ""))))
            for event in events
            if isinstance(event, dict)
            and event.get("@type") == "/bank.TransferEvent"
            and event.get("to") != realm
        ]
