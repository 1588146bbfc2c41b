"""The checkpoint: plain data, caught up block by block, never believed for another log."""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from c4cli.local.chain import LocalChain
from support import PREMINE, Home


def _played(chain: Home) -> None:
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    chain.ok("offer", "--stake", "10gnot", "alice")
    chain.ok("accept", "1", "bob")


def _full_replay(home: Path) -> dict[str, object]:
    return LocalChain(home).replay().snapshot()


def test_a_checkpoint_one_block_behind_replays_one_block(chain: Home) -> None:
    _played(chain)
    # The cache cannot be saved for this one send: the checkpoint stays at block 3.
    result = chain.run(
        "send", "--to", "carol", "--amount", "2gnot", "bob", env={"C4_FAULT": "cache-save:EIO"}
    )
    assert result.exit_code == 0 and "could not be saved" in result.stderr
    local = LocalChain(chain.path)
    state = local.state()
    assert local.replayed == 1
    assert state.height == 4 and state.snapshot() == _full_replay(chain.path)
    # It was saved caught up: the next command reads the checkpoint alone.
    again = LocalChain(chain.path)
    again.state()
    assert again.replayed == 0
    assert chain.balance("carol") == PREMINE + 2_000_000


def test_three_blocks_behind_replays_three(chain: Home) -> None:
    _played(chain)
    for amount in ("1ugnot", "2ugnot", "3ugnot"):
        chain.run(
            "send", "--to", "carol", "--amount", amount, "bob", env={"C4_FAULT": "cache-save:EIO"}
        )
    local = LocalChain(chain.path)
    assert local.state().height == 6 and local.replayed == 3


def test_an_edit_before_the_checkpoint_is_replayed_from_genesis(chain: Home) -> None:
    _played(chain)
    chain.run(
        "send", "--to", "carol", "--amount", "1ugnot", "bob", env={"C4_FAULT": "cache-save:EIO"}
    )
    log = chain.path / "chain" / "blocks.toml"
    # An edit that keeps the size and leaves the last block alone: only the digest tells.
    data = log.read_bytes()
    assert data.count(b'chain_id = "dev"') == 1
    log.write_bytes(data.replace(b'chain_id = "dev"', b'chain_id = "deX"'))
    chain.fails(3, "query", "balance", "bob")


def test_a_checkpoint_holds_no_code(chain: Home, tmp_path: Path) -> None:
    """A cache copied from someone else is data: a pickle in it is never loaded."""
    _played(chain)
    chain.ok("offer", "--stake", "1gnot", "carol")
    chain.ok("cancel", "2", "carol")  # a settled game: kept in a row of its own
    witness = tmp_path / "ran"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (Path.touch, (str(witness),))  # type: ignore[return-value]

    db = sqlite3.connect(chain.path / "chain" / "cache" / "state.sqlite")
    with db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'state'", (pickle.dumps(Payload()),))
        changed = db.execute("UPDATE settled SET record = ?", (pickle.dumps(Payload()),))
        assert changed.rowcount == 1
    db.close()
    chain.ok("send", "--to", "carol", "--amount", "1ugnot", "bob")  # loads the state
    assert not witness.exists()
    assert chain.balance("bob") == PREMINE + 1_000_000 - 10_000_000 - 1
    assert chain.game(1)["status"] == "playing"
    state = db_snapshot(chain.path)
    assert state["height"] == 6 and "accounts" in state  # rewritten as JSON by the replay


def db_snapshot(home: Path) -> dict[str, object]:
    db = sqlite3.connect(home / "chain" / "cache" / "state.sqlite")
    try:
        (raw,) = db.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
    finally:
        db.close()
    document: dict[str, object] = json.loads(raw)
    return document


def test_no_pickle_in_the_package() -> None:
    package = Path(__file__).resolve().parents[2] / "c4cli"
    users = [p.name for p in package.rglob("*.py") if "pickle" in p.read_text()]
    assert users == []


def test_a_cache_of_another_version_is_replaced(chain: Home) -> None:
    """A cache file an older c4 wrote (another schema) is rebuilt, not kept failing."""
    _played(chain)
    db = sqlite3.connect(chain.path / "chain" / "cache" / "state.sqlite")
    with db:
        db.execute("DROP TABLE accounts")
        db.execute("CREATE TABLE accounts (address TEXT PRIMARY KEY, ugnot INTEGER NOT NULL)")
        db.execute("UPDATE meta SET value = '{}' WHERE key = 'checkpoint'")
        db.execute("PRAGMA user_version = 5")
    db.close()
    chain.ok("send", "--to", "carol", "--amount", "1ugnot", "bob")
    again = LocalChain(chain.path)
    again.state()
    assert again.replayed == 0  # the save after the replay took: the checkpoint is current


def test_a_touched_log_is_read_once_then_the_checkpoint_is_current(chain: Home) -> None:
    _played(chain)
    log = chain.path / "chain" / "blocks.toml"
    os.utime(log, ns=(1, 1))  # the same bytes, another identity
    first = LocalChain(chain.path)
    first.state()
    assert first.replayed == 0
    second = LocalChain(chain.path)
    assert second.cache.fresh(log)  # the checkpoint took the log's new identity
    chain.ok("send", "--to", "carol", "--amount", "1ugnot", "bob")
    third = LocalChain(chain.path)
    third.state()
    assert third.replayed == 0


def test_a_cache_folder_that_cannot_be_opened_is_no_cache(
    chain: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache folder this user may not search (its mode, a mount gone bad) makes no
    reader fail: the log is replayed instead."""
    chain.ok("send", "--to", "bob", "--amount", "1ugnot", "alice")
    cache = chain.path / "chain" / "cache" / "state.sqlite"
    real_exists = Path.exists

    def exists(self: Path, *args: Any, **kwargs: Any) -> bool:
        if self == cache:
            raise PermissionError(13, "Permission denied", str(self))
        return real_exists(self, *args, **kwargs)

    monkeypatch.setattr(Path, "exists", exists)
    assert chain.json("time")["height"] == 1
    assert chain.balance("bob") == PREMINE + 1
