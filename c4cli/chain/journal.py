"""The journal of a home bound to a node: what this home sent, one JSON line each.

A node keeps every transaction, but finding the ones a home sent would mean
scanning the chain; ``c4 log`` on a node lists this instead. A line is written
once the node has the transaction in a block, so the journal never lists one
that did not land (a crash before the line loses the line, never the tx:
``c4 tx HASH`` still finds it on the node).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from c4cli.chain.clock import format_time
from c4cli.chain.interface import Receipt
from c4cli.errors import DiskError, HomeDamaged

JOURNAL = "journal.jsonl"


def record(home: Path, receipt: Receipt) -> None:
    """Append what ``receipt`` says was delivered."""
    import os

    result = receipt.result
    msgs = result.tx.get("msg", [])
    entry = {
        "height": receipt.height,
        "time": format_time(receipt.time),
        "hash": result.hash,
        "signer": result.signer,
        "func": ",".join(result.funcs),
        "args": [list(m.get("args") or []) for m in msgs],
        "send": [m.get("send") or m.get("amount") or "" for m in msgs],
        "to": [m.get("to_address") for m in msgs],
        "result": [value for value, _ in result.values],
        "gas_used": receipt.gas_used,
    }
    path = home / JOURNAL
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise DiskError(
            f"cannot write {path}: {exc.strerror or exc}; the transaction is on the node "
            f"(TX HASH {result.hash}), only this home's journal misses it"
        ) from None


def entries(home: Path) -> list[dict[str, Any]]:
    """Every line of the journal, oldest first."""
    path = home / JOURNAL
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise HomeDamaged(f"cannot read {path}: {exc.strerror or exc}") from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            raise HomeDamaged(f"{path}: line {number} is not JSON") from None
        if isinstance(entry, dict):
            out.append(entry)
    return out
