"""The replay's checkpoint file (c4cli/node/history/checkpoint.py): what it keeps comes back
whole, and whatever does not hold together is found, never read as state."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from c4cli.chain.trust import CheckpointDamaged, IndexedTx, Saved
from c4cli.node.history.checkpoint import Checkpoint
from c4cli.node.history.index import RealmIndex, Synced

CODE = "replay 1 this code"
ALICE = "g1alice"


def index_with_rows(path: Path) -> RealmIndex:
    index = RealmIndex(path, "dev", "gno.land/r/c4cli/connect4")
    rows = [
        IndexedTx(h, 0, 1000 + h, "", "call", ALICE, "", "Play", "", b"tx%d" % h, None)
        for h in (3, 4, 5)
    ]
    index.append(rows, Synced(1, 5, "AB" * 32, 2))
    return index


def saved(height: int) -> Saved:
    return Saved(height, {"game_count": 1}, "", 1005, (1, 2, 3, 4, 5))


def test_what_is_kept_comes_back(tmp_path: Path) -> None:
    keep = Checkpoint(index_with_rows(tmp_path / "h.sqlite"), CODE)
    assert keep.load(5) is None
    assert keep.save(saved(5), [(1, {"id": 1})], [(ALICE, "c" * 64)], [(1, 3, 0), (1, 5, 0)])
    assert keep.load(5) == saved(5)
    assert keep.load(4) is None  # a checkpoint above the height asked is not this one
    assert keep.record(1) == {"id": 1}
    assert keep.used(ALICE, "c" * 64) and not keep.used(ALICE, "d" * 64)
    assert [row.height for row in keep.calls_of(1, 5)] == [3, 5]
    assert [row.height for row in keep.calls_of(1, 4)] == [3]
    assert keep.commitments() == [(ALICE, "c" * 64)]
    # Another run that kept as far (or further) is not overwritten by an older one.
    assert not keep.save(saved(4), [], [], [])
    assert keep.load(5) == saved(5)


def test_a_checkpoint_of_other_code_is_not_read(tmp_path: Path) -> None:
    index = index_with_rows(tmp_path / "h.sqlite")
    Checkpoint(index, CODE).save(saved(5), [], [], [])
    assert Checkpoint(index, "replay 2 other code").load(5) is None


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE replay_meta SET value = replace(value, '1005', '1006') WHERE key = 'document'",
        "UPDATE replay_meta SET value = 'not a digest' WHERE key = 'digest'",
        "DELETE FROM replay_used",
        "DELETE FROM replay_calls WHERE height = 3",
        "INSERT INTO replay_settled VALUES (2, '{}', 'x')",
    ],
)
def test_a_checkpoint_that_does_not_hold_together_is_found(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "h.sqlite"
    index = index_with_rows(path)
    Checkpoint(index, CODE).save(saved(5), [(1, {"id": 1})], [(ALICE, "c" * 64)], [(1, 3, 0)])
    index.close()
    with sqlite3.connect(path) as db:
        db.execute(damage)
    with pytest.raises(CheckpointDamaged):
        Checkpoint(RealmIndex(path, "dev", "gno.land/r/c4cli/connect4"), CODE).load(5)


def test_a_settled_game_changed_by_hand_is_found_when_read(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    index = index_with_rows(path)
    keep = Checkpoint(index, CODE)
    keep.save(saved(5), [(1, {"id": 1, "status": "won"})], [], [])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE replay_settled SET record = ?", (json.dumps({"id": 1}),))
    assert keep.load(5) == saved(5)  # the counts hold: the row is read only when asked
    with pytest.raises(CheckpointDamaged, match="game 1"):
        keep.record(1)
    with pytest.raises(CheckpointDamaged, match="game 2"):
        keep.record(2)  # one the state names but the file lacks


def test_a_calls_row_whose_transaction_is_gone_is_found(tmp_path: Path) -> None:
    keep = Checkpoint(index_with_rows(tmp_path / "h.sqlite"), CODE)
    keep.save(saved(5), [], [], [(1, 3, 0), (1, 4, 7)])  # no transaction at (4, 7)
    with pytest.raises(CheckpointDamaged, match="not all in the history"):
        keep.calls_of(1, 5)


def test_discarded_it_is_gone_and_the_history_stays(tmp_path: Path) -> None:
    index = index_with_rows(tmp_path / "h.sqlite")
    keep = Checkpoint(index, CODE)
    keep.save(saved(5), [(1, {"id": 1})], [(ALICE, "c" * 64)], [(1, 3, 0)])
    keep.discard()
    assert keep.load(5) is None and keep.commitments() == []
    assert index.count() == 3


def test_the_history_takes_bounds_past_sqlites_integers(tmp_path: Path) -> None:
    """`c4 log --realm --tail N` (and --from, --to) as a person may type them: a bound
    past SQLite's integers reads as "all", never an OverflowError."""
    index = index_with_rows(tmp_path / "h.sqlite")
    huge = 10**23
    assert [row.height for row in index.txs(tail=huge)] == [3, 4, 5]
    assert [row.height for row in index.txs(through=huge, tail=2)] == [4, 5]
    assert list(index.txs(above=huge)) == []
