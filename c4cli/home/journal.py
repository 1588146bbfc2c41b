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
:meth:`c4cli.node.delivery.Delivery.reconcile`).
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
from typing import Any

from c4cli import faults
from c4cli.chain.clock import format_time
from c4cli.chain.interface import GameCall, Receipt, Signer
from c4cli.chain.listing import messages
from c4cli.errors import DiskError, HomeDamaged, notice
from c4cli.interrupts import deferred

JOURNAL = "journal.jsonl"
LOCKS = "locks"  # one lock file per account a command of this home signs for

PENDING = "pending"
LANDED = "landed"
REFUSED = "refused"
DROPPED = "dropped"


class Journal:
    """The journal file of one home."""

    def __init__(self, home: Path) -> None:
        self.path = home / JOURNAL
        # The file as last read: a command asks for the seen height and the pending
        # entries, and reads it once for both (until it writes a line).
        self._read: list[dict[str, Any]] | None = None

    def _write(self, entry: dict[str, Any], consequence: str) -> None:
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        self._read = None
        try:
            with deferred(), open(self.path, "a", encoding="utf-8") as handle:
                faults.check(f"journal-{entry['status']}")
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise DiskError(
                f"cannot write {self.path}: {exc.strerror or exc}; {consequence}"
            ) from None

    def pending(
        self,
        tx: dict[str, Any],
        raw: bytes,
        tx_id: str,
        signer: Signer,
        sequence: int,
        since: int,
    ) -> None:
        """Before the bytes leave: what was signed, for which account and sequence, and
        a height the node had reached before (no block up to it can hold them)."""
        entry = {
            "status": PENDING,
            "hash": tx_id,
            "signer": signer.address,
            "session": signer.session_addr,
            "sequence": sequence,
            "since": since,
            "sent_at": format_time(int(wallclock.time())),
            **messages(tx),
            "tx": base64.b64encode(raw).decode(),
            "signed": tx,
        }
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
        entry = {
            "status": REFUSED if error else LANDED,
            "height": receipt.height,
            "time": format_time(receipt.time),
            "hash": result.hash,
            "signer": result.signer,
            **messages(result.tx),
            "result": [value for value, _ in result.values],
            "transfers": [{"to": to, "amount": f"{a}ugnot"} for to, a in result.transfers],
            "gas_wanted": int(result.tx.get("fee", {}).get("gas_wanted") or 0),
            "gas_used": receipt.gas_used,
            "gas_fee": fee,
        }
        if error:
            entry["error"] = error
        self._write(
            entry,
            f"the transaction is on the node (TX HASH {result.hash}, height {receipt.height}), "
            "only this home's journal misses it",
        )

    def dropped(self, tx_id: str, reason: str, *, unproven: bool = False) -> None:
        """Known never to reach a block; or, ``unproven``, refused before a block on the
        node's word only: reported so, but checked again (with its bytes kept) until a
        block proves it (see :meth:`unsettled`)."""
        self._write(
            {"status": DROPPED, "hash": tx_id, "reason": reason, "unproven": unproven},
            f"transaction {tx_id} is still listed as pending",
        )

    def took_sequence(self, tx_id: str, height: int) -> None:
        """Transaction ``tx_id`` of this home landed (in block ``height``): every other
        unsettled one of the same account, signed for the same sequence, never will."""
        entries = {entry["hash"]: entry for entry in self.entries()}
        taker = entries.get(tx_id)
        if taker is None or not isinstance(taker.get("sequence"), int):
            return
        for entry in self.unsettled(str(taker.get("signer")), taker.get("session")):
            if entry["hash"] != tx_id and entry.get("sequence") == taker["sequence"]:
                self.dropped(
                    entry["hash"],
                    f"transaction {tx_id} of this account took its sequence at height {height}",
                )

    def forget_above(self, height: int) -> list[str]:
        """The user's word that this home's transactions journaled as landed above
        ``height`` are not on its chain (a forged answer, a chain reset): each is
        dropped, so the height this home saw comes back within the chain's reach.
        Their TX HASHes."""
        forgotten = [
            entry["hash"]
            for entry in self.entries()
            if entry["status"] in (LANDED, REFUSED)
            and isinstance(entry.get("height"), int)
            and entry["height"] > height
        ]
        for tx_id in forgotten:
            self.dropped(
                tx_id, f"not on this chain, the user said (c4 log --forget-above {height})"
            )
        return forgotten

    def entries(self) -> list[dict[str, Any]]:
        """One entry per transaction, in the order they were first sent; each as its
        latest line says (a pending one's ``tx`` bytes kept until it lands)."""
        if self._read is None:
            self._read = self._parse()
        return [dict(entry) for entry in self._read]

    def _parse(self) -> list[dict[str, Any]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise HomeDamaged(f"cannot read {self.path}: {exc.strerror or exc}") from None
        by_hash: dict[str, dict[str, Any]] = {}
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                if number == len(lines):
                    continue  # a last line cut short by a crash: the one before stands
                raise HomeDamaged(f"{self.path}: line {number} is not JSON") from None
            if not isinstance(entry, dict) or not isinstance(entry.get("hash"), str):
                continue
            entry.setdefault("status", LANDED)  # lines written before statuses existed
            wrong = _misshapen(entry)
            if wrong is not None:
                raise HomeDamaged(
                    f"{self.path}: line {number} is not a transaction as c4 writes it "
                    f"(its {wrong!r} is not what c4 writes there)"
                )
            merged = by_hash.setdefault(entry["hash"], {})
            merged.update(entry)
            if entry["status"] in (LANDED, REFUSED):
                merged.pop("unproven", None)
            if entry["status"] != PENDING and not merged.get("unproven"):
                merged.pop("tx", None)
                merged.pop("signed", None)
        return list(by_hash.values())

    def seen_height(self) -> int:
        """The highest block this home saw one of its transactions land in: a node
        below it is on a chain rolled back, or another chain."""
        heights = [
            int(e["height"])
            for e in self.entries()
            if e["status"] in (LANDED, REFUSED) and isinstance(e.get("height"), int)
        ]
        return max(heights, default=0)

    def game_calls(self, game_id: int) -> list[GameCall]:
        """The landed transactions about one game (an offer by its result), oldest first."""
        calls = []
        for entry in self.entries():
            if entry["status"] != LANDED or not isinstance(entry.get("height"), int):
                continue
            funcs = str(entry.get("func", "")).split(",")
            args = [[str(arg) for arg in msg] for msg in entry.get("args", [])]
            result = entry.get("result") or []
            about = [
                (result[:1] == [str(game_id)]) if func == "Offer" else msg[:1] == [str(game_id)]
                for func, msg in zip(funcs, args, strict=False)
            ]
            if any(about):
                calls.append(
                    GameCall(entry["height"], entry["hash"], str(entry["signer"]), funcs, args)
                )
        return calls

    def unsettled(self, address: str, session: str | None) -> list[dict[str, Any]]:
        """Transactions signed for this account (and session) whose fate no block has
        proved: pending ones, and those a node said it refused before a block."""
        return [
            entry
            for entry in self.entries()
            if _unsettled(entry)
            and entry.get("signer") == address
            and entry.get("session") == session
        ]

    def unseen(self) -> list[dict[str, Any]]:
        """Pending transactions of every account, oldest first."""
        return [entry for entry in self.entries() if entry["status"] == PENDING]


_TEXTS = ("time", "sent_at", "signer", "reason", "gas_fee", "error", "func", "tx")
_WHOLES = ("height", "sequence", "since", "gas_wanted", "gas_used")


def _unsettled(entry: dict[str, Any]) -> bool:
    """No block has proved its fate: pending, or refused before a block on a node's word."""
    unproven = entry["status"] == DROPPED and entry.get("unproven") is True
    return entry["status"] == PENDING or unproven


def _texts(value: Any, *, or_none: bool = False) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) or (or_none and v is None) for v in value
    )


def _misshapen(entry: dict[str, Any]) -> str | None:
    """The first field of a journal line whose value is not of the kind c4 writes there
    (commands read them as such), or None; fields c4 does not know are left alone."""
    checks: dict[str, bool] = {
        "status": entry["status"] in (PENDING, LANDED, REFUSED, DROPPED),
        "session": entry.get("session") is None or isinstance(entry["session"], str),
        "args": isinstance(entry.get("args", []), list)
        and all(_texts(msg) for msg in entry.get("args", [])),
        "send": _texts(entry.get("send", [])),
        "to": _texts(entry.get("to", []), or_none=True),
        "result": _texts(entry.get("result", [])),
        "transfers": isinstance(entry.get("transfers", []), list)
        and all(
            isinstance(t, dict) and _texts([t.get("to"), t.get("amount")])
            for t in entry.get("transfers", [])
        ),
        "signed": isinstance(entry.get("signed", {}), dict),
        "unproven": isinstance(entry.get("unproven", False), bool),
    }
    checks.update({key: isinstance(entry.get(key, ""), str) for key in _TEXTS})
    if all(checks.values()) and "func" in entry:
        # One of each per message, as messages() writes them together.
        count = len(entry["func"].split(","))
        checks.update(
            {key: len(entry[key]) == count for key in ("args", "send", "to") if key in entry}
        )
    checks.update({key: type(entry.get(key, 0)) is int for key in _WHOLES})  # not a bool
    return next((key for key, fine in checks.items() if not fine), None)


def entries(home: Path) -> list[dict[str, Any]]:
    """Every transaction of the journal, oldest first."""
    return Journal(home).entries()
