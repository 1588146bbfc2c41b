"""The journal of a home bound to a node: what this home sent, one JSON line each.

A node keeps every transaction, but finding the ones a home sent would mean
scanning the chain; ``c4 log`` on a node lists this instead. A transaction is
written twice: as ``pending`` (with its bytes) *before* they leave for the
node, and again once its fate is known: ``landed`` (in a block), ``refused``
(in a block, but the realm or the VM refused it: its fee was paid) or
``dropped`` (known never to reach a block: the node refused it before one, or
another transaction took its sequence). A later line about the same hash
supersedes an earlier one.

So a broadcast whose answer never came, a signal while waiting for the block,
or a crash right after sending leaves a ``pending`` line, never nothing: the
next command that signs for that account settles it first (see
:meth:`c4cli.node.sending.delivery.Delivery.reconcile`).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import time as wallclock
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from c4cli import faults
from c4cli.chain.clock import format_time, parse_time
from c4cli.chain.interface import GameCall, ListedTx, Receipt, Signer, Unsettled
from c4cli.chain.listing import messages
from c4cli.errors import DiskError, HomeDamaged, notice
from c4cli.home.entry import DROPPED, LANDED, PENDING, REFUSED, Entry
from c4cli.interrupts import deferred
from c4cli.wire.std import Tx

JOURNAL = "journal.jsonl"
LOCKS = "locks"  # one lock file per account a command of this home signs for


class Journal:
    """The journal file of one home."""

    def __init__(self, home: Path) -> None:
        self.path = home / JOURNAL
        # The file as last read: a command asks for the seen height and the pending
        # entries, and reads it once for both (until it writes a line).
        self._read: list[Entry] | None = None

    def _write(self, entry: Entry, consequence: str) -> None:
        line = json.dumps(entry.to_json(), separators=(",", ":")) + "\n"
        self._read = None
        try:
            with deferred(), open(self.path, "a", encoding="utf-8") as handle:
                faults.check(f"journal-{entry.status}")
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise DiskError(
                f"cannot write {self.path}: {exc.strerror or exc}; {consequence}"
            ) from None

    def pending(
        self,
        tx: Tx,
        raw: bytes,
        tx_id: str,
        signer: Signer,
        sequence: int,
        since: int,
    ) -> None:
        """Before the bytes leave: what was signed, for which account and sequence, and
        a height the node had reached before (no block up to it can hold them)."""
        entry = Entry(
            status=PENDING,
            hash=tx_id,
            signer=signer.address,
            session=signer.session_addr,
            sequence=sequence,
            since=since,
            sent_at=format_time(int(wallclock.time())),
            **messages(tx),
            tx=base64.b64encode(raw).decode(),
            signed=tx,
        )
        self._write(entry, "nothing was sent")

    @contextmanager
    def holding(self, signer: Signer) -> Iterator[None]:
        """This home's lock on one account (a session's own, for a session key), held
        from settling what it sent before, through signing and sending, to learning
        the new transaction's fate: two commands of the same account never sign for
        the same sequence from one home, so neither can take the other's transaction
        (the same bytes, the same TX HASH) for its own. One that waits says so."""
        folder = self.path.parent / LOCKS
        name = signer.address + (f"-{signer.session_addr}" if signer.session_addr else "")
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(folder / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise DiskError(
                f"cannot write {folder / name}.lock: {exc.strerror or exc}; nothing was signed"
            ) from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                notice(f"waiting for another c4 command of {name} in this home to finish")
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def landed(self, receipt: Receipt, *, fee: str, error: str = "") -> None:
        """Once the transaction is in a block (``error``: the realm or VM refused it)."""
        result = receipt.result
        entry = Entry(
            status=REFUSED if error else LANDED,
            height=receipt.height,
            time=format_time(receipt.time),
            hash=result.hash,
            signer=result.signer,
            **messages(result.tx),
            result=[value for value, _ in result.values],
            transfers=[{"to": to, "amount": f"{a}ugnot"} for to, a in result.transfers],
            gas_wanted=result.tx.fee.gas_wanted,
            gas_used=receipt.gas_used,
            gas_fee=fee,
            error=error or None,
            proven=receipt.proven is not None and not receipt.proven.result_unproven,
        )
        self._write(
            entry,
            f"the transaction is on the node (TX HASH {result.hash}, height {receipt.height}), "
            "only this home's journal misses it",
        )

    def unproven(self) -> list[ListedTx]:
        """Transactions whose fate was taken in part on a word, not a proof: landed or
        refused with the result (or the block) the node's word, and those dropped by
        `c4 log --forget-above` (the user's word); as listed, oldest first."""
        return [listed(entry) for entry in self.typed() if entry.proven is False]

    def rechecked(self, found: ListedTx) -> None:
        """Transaction ``found`` (as `c4 tx` lists it) proven by its block and the next
        header's results: its journal line says what the proof says."""
        entry = Entry(
            status=found["tx_status"],
            hash=found["hash"],
            height=found["height"],
            time=found["time"],
            result=list(found["result"]),
            transfers=list(found["transfers"]),
            gas_used=found["gas_used"],
            error=found["error"] or None,
            proven=True,
        )
        self._write(entry, f"transaction {found['hash']} keeps its earlier line")

    def dropped(self, tx_id: str, reason: str, *, unproven: bool = False) -> None:
        """Known never to reach a block; or, ``unproven``, refused before a block on the
        node's word only: reported so, but checked again (with its bytes kept) until a
        block proves it (see :meth:`unsettled`)."""
        self._write(
            Entry(status=DROPPED, hash=tx_id, reason=reason, unproven=unproven),
            f"transaction {tx_id} is still listed as pending",
        )

    def took_sequence(self, tx_id: str, height: int) -> None:
        """Transaction ``tx_id`` of this home landed (in block ``height``): every other
        unsettled one of the same account, signed for the same sequence, never will."""
        taker = next((entry for entry in self.typed() if entry.hash == tx_id), None)
        if taker is None or taker.sequence is None or taker.signer is None:
            return
        for other in self.unsettled(taker.signer, taker.session):
            if other.tx_id != tx_id and other.sequence == taker.sequence:
                self.dropped(
                    other.tx_id,
                    f"transaction {tx_id} of this account took its sequence at height {height}",
                )

    def forget_above(self, height: int) -> list[str]:
        """The user's word that this home's transactions journaled as landed above
        ``height`` are not on its chain (a forged answer, a chain reset): each is
        dropped, so the height this home saw comes back within the chain's reach.
        Their TX HASHes."""
        forgotten = [
            entry.hash
            for entry in self.typed()
            if entry.status in (LANDED, REFUSED)
            and entry.height is not None
            and entry.height > height
        ]
        for tx_id in forgotten:
            reason = f"not on this chain, the user said (c4 log --forget-above {height})"
            self._write(
                Entry(status=DROPPED, hash=tx_id, reason=reason, proven=False),
                f"transaction {tx_id} is still listed as landed",
            )
        return forgotten

    def listed(self) -> list[ListedTx]:
        """Every transaction as `c4 log` lists it (:func:`listed`), oldest first."""
        return [listed(entry) for entry in self.typed()]

    def typed(self) -> list[Entry]:
        """One entry per transaction, in the order they were first sent; each as its
        latest line says (a pending one's ``tx`` bytes kept until it lands)."""
        if self._read is None:
            self._read = self._parse()
        return list(self._read)

    def _parse(self) -> list[Entry]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise HomeDamaged(f"cannot read {self.path}: {exc.strerror or exc}") from None
        by_hash: dict[str, Entry] = {}
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                document = json.loads(line)
            except ValueError:
                if number == len(lines):
                    continue  # a last line cut short by a crash: the one before stands
                raise HomeDamaged(f"{self.path}: line {number} is not JSON") from None
            if not isinstance(document, dict) or not isinstance(document.get("hash"), str):
                continue
            try:
                entry = Entry.from_json(document)
            except ValueError as wrong:
                raise HomeDamaged(
                    f"{self.path}: line {number} is not a transaction as c4 writes it "
                    f"(its {str(wrong)!r} is not what c4 writes there)"
                ) from None
            earlier = by_hash.get(entry.hash)
            by_hash[entry.hash] = entry.merged(entry) if earlier is None else earlier.merged(entry)
        return list(by_hash.values())

    def seen_height(self) -> int:
        """The highest block this home saw one of its transactions land in: a node
        below it is on a chain rolled back, or another chain."""
        heights = [
            e.height for e in self.typed() if e.status in (LANDED, REFUSED) and e.height is not None
        ]
        return max(heights, default=0)

    def game_calls(self, game_id: int) -> list[GameCall]:
        """The landed transactions about one game (an offer by its result), oldest first."""
        calls = []
        for entry in self.typed():
            if entry.status != LANDED or entry.height is None:
                continue
            funcs = (entry.func or "").split(",")
            args = [list(msg) for msg in entry.args or []]
            result = entry.result or []
            about = [
                (result[:1] == [str(game_id)]) if func == "Offer" else msg[:1] == [str(game_id)]
                for func, msg in zip(funcs, args, strict=False)
            ]
            if any(about):
                when = parse_time(entry.time) if entry.time else 0
                calls.append(
                    GameCall(entry.height, entry.hash, str(entry.signer), funcs, args, when)
                )
        return calls

    def unsettled(self, address: str, session: str | None) -> list[Unsettled]:
        """Transactions signed for this account (and session) whose fate no block has
        proved: pending ones, and those a node said it refused before a block."""
        return [
            self._unsettled(entry)
            for entry in self.typed()
            if not entry.settled and entry.signer == address and entry.session == session
        ]

    def landed_sequences(self, address: str, session: str | None) -> frozenset[int]:
        """The sequences this account (and session) signed for in transactions that landed
        (in a block: proven, on a home that proves blocks; its result a success): each
        one the chain has taken."""
        return frozenset(
            entry.sequence
            for entry in self.typed()
            if entry.status == LANDED
            and entry.sequence is not None
            and entry.signer == address
            and entry.session == session
        )

    def unseen(self) -> list[Unsettled]:
        """Pending transactions of every account, oldest first."""
        return [self._unsettled(entry) for entry in self.typed() if entry.status == PENDING]

    def _unsettled(self, entry: Entry) -> Unsettled:
        unsettled = entry.unsettled()
        if unsettled is None:
            raise HomeDamaged(f"{self.path}: unsettled {entry.hash} lacks its transaction")
        return unsettled


def entries(home: Path) -> list[Entry]:
    """Every transaction of the journal, oldest first."""
    return Journal(home).typed()


def listed(entry: Entry) -> ListedTx:
    """A transaction of the journal as `c4 log` and `c4 tx` list one
    (:mod:`c4cli.chain.listing`): what the home sent, and what a block (or the node)
    said of it."""
    status = entry.status
    height = entry.height
    fee = entry.signed.fee if entry.signed is not None else None
    return {
        "hash": entry.hash,
        "height": height,
        "time": entry.time if height is not None else None,
        "tx_status": status,
        "ok": status == LANDED,
        "error": entry.error or entry.reason,
        "signer": entry.signer,
        "func": entry.func,
        "args": entry.args,
        "send": entry.send,
        "to": entry.to,
        "result": entry.result or [],
        "transfers": entry.transfers or [],
        "gas_wanted": entry.gas_wanted or (fee.gas_wanted if fee is not None else 0),
        "gas_used": entry.gas_used or 0,
        "gas_fee": entry.gas_fee or (fee.gas_fee if fee is not None else "") or "0ugnot",
    }
