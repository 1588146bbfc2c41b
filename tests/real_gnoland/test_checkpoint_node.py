"""The replay's checkpoint on a real gnoland (issue 61): a verified read replays only
the realm's transactions since the last run; a checkpoint damaged by hand, or made by
another version of the mirror, is found and made again; a run killed at any point
leaves a history and a checkpoint the next command uses or makes again."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.test_remote import bound_home

from c4cli.client import replayed
from support import Home, start_game

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/kept/connect4"


@pytest.fixture(scope="module")
def player(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    """The realm at its own path, and a home that played a whole game on it."""
    home = bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("player"))
    start_game(home, "4545454")
    return home


def stranger(gno_node: Any, folder: Path) -> Home:
    home = Home(folder)
    home.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    return home


def history_file(home: Home) -> Path:
    return home.path / "history" / "dev" / f"{REALM_PATH.replace('/', '_')}.sqlite"


def document(home: Home) -> dict[str, Any]:
    with sqlite3.connect(history_file(home)) as db:
        rows = dict(db.execute("SELECT key, value FROM replay_meta").fetchall())
    assert hashlib.sha256(rows["document"].encode()).hexdigest() == rows["digest"]
    found: dict[str, Any] = json.loads(rows["document"])
    return found


def rewrite(home: Home, change: Any) -> None:
    """The checkpoint's document changed by ``change``, its digest made to match."""
    with sqlite3.connect(history_file(home)) as db:
        text = db.execute("SELECT value FROM replay_meta WHERE key = 'document'").fetchone()[0]
        changed = json.dumps(change(json.loads(text)), sort_keys=True, separators=(",", ":"))
        db.execute("UPDATE replay_meta SET value = ? WHERE key = 'document'", (changed,))
        digest = hashlib.sha256(changed.encode()).hexdigest()
        db.execute("UPDATE replay_meta SET value = ? WHERE key = 'digest'", (digest,))


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The heights of the rows the mirror runs again, in this process."""
    seen: list[int] = []
    real = replayed._replay

    def counted(*args: Any) -> Any:
        seen.append(args[-1].height)
        return real(*args)

    monkeypatch.setattr(replayed, "_replay", counted)
    return seen


def test_a_read_replays_only_the_transactions_since_the_last(
    player: Home, gno_node: Any, tmp_path: Path, replays: list[int]
) -> None:
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    first = home.json("show", "1")
    assert first["verified"] is True and first["game"]["status"] == "won"
    assert len(replays) == 11  # the whole game, once
    kept = document(home)
    assert kept["height"] >= max(replays) and kept["state"]["game_count"] == 1
    replays.clear()
    again = home.json("show", "1")
    assert again == first and replays == []  # from the checkpoint: nothing replayed
    assert again["moves"] == "4545454"  # the record of a game the checkpoint holds
    start_game(player, "1212121")
    replays.clear()
    second = home.json("show", "2")
    assert second["verified"] is True and second["moves"] == "1212121"
    assert len(replays) == 11 and min(replays) > kept["height"]  # the new game only
    assert document(home)["state"]["game_count"] == 2
    audit = home.json("audit")
    assert audit["discrepancies"] == [] and audit["paid_ugnot"] > 0
    later = home.json("show", "1")
    assert later["game"] == first["game"] and later["moves"] == first["moves"]


@pytest.mark.parametrize(
    "damage",
    ["document", "other-mirror", "settled-game", "calls-row"],
)
def test_a_damaged_or_foreign_checkpoint_is_made_again(
    player: Home, gno_node: Any, tmp_path: Path, damage: str, replays: list[int]
) -> None:
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    shown = home.json("show", "1")
    index = history_file(home)
    with sqlite3.connect(index) as db:
        if damage == "document":  # by hand: the digest no longer holds
            db.execute(
                "UPDATE replay_meta SET value = replace(value, '\"fee\":', '\"fee\":9') "
                "WHERE key = 'document'"
            )
        elif damage == "settled-game":
            db.execute("UPDATE replay_settled SET record = replace(record, 'won', 'draw')")
        elif damage == "calls-row":
            db.execute(
                "DELETE FROM replay_calls WHERE height = (SELECT MIN(height) FROM replay_calls)"
            )
    if damage == "other-mirror":
        rewrite(home, lambda d: {**d, "code": "replay 0 another version"})
    replays.clear()
    again = home.json("show", "1")
    assert again == shown  # the same game, verified, made again from the history
    calls = [tx for tx in home.json("log", "--realm") if tx["kind"] == "call"]
    assert len(replays) == len(calls), replays  # the whole history replayed once more
    kept = document(home)
    assert kept["code"] != "replay 0 another version"
    replays.clear()
    assert home.json("show", "1") == shown and replays == []  # the new one is used


def test_a_read_killed_at_any_point_leaves_what_the_next_one_uses(
    player: Home, gno_node: Any, tmp_path: Path, c4_bin: str
) -> None:
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    shown = home.json("show", "1")
    env = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="")
    for delay in (0.05, 0.15, 0.3, 0.5, 0.8):
        with sqlite3.connect(history_file(home)) as db:  # forget it: the next run makes it
            for table in ("replay_meta", "replay_settled", "replay_used", "replay_calls"):
                db.execute(f"DELETE FROM {table}")
        proc = subprocess.Popen(
            [c4_bin, "show", "1", "--json"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert home.json("show", "1") == shown, delay


def test_a_sync_killed_at_any_point_leaves_what_the_next_command_uses(
    player: Home, gno_node: Any, tmp_path: Path, c4_bin: str
) -> None:
    whole = stranger(gno_node, tmp_path / "whole")
    whole.ok("sync")
    shown = whole.json("show", "1")
    for number, delay in enumerate((0.05, 0.2, 0.4, 0.7, 1.0)):
        home = stranger(gno_node, tmp_path / str(number))
        env = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="")
        proc = subprocess.Popen(
            [c4_bin, "sync"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        home.ok("sync")  # carries on from what the killed one kept whole
        again = home.json("show", "1")
        assert again["verified"] is True, (delay, again)
        assert (again["game"], again["moves"]) == (shown["game"], shown["moves"]), delay
