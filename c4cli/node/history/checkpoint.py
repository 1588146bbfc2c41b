"""The replay's checkpoint: the realm's state its history makes, kept between runs.

A verified read on a node home holds the node's answer to the state the realm's
history makes (:mod:`c4cli.client.replayed`). Made from the first row each run, it
would cost every command the whole history; kept here, a command replays only the
rows the last sync added. It lives in the history's own file
(:class:`~c4cli.node.history.index.RealmIndex`), in tables of its own, written in one
SQLite transaction:

- ``replay_meta``: the last :class:`~c4cli.chain.trust.Saved` as one JSON document,
  with its sha256 and the code that made it (the mirror's fingerprint, named by the
  caller): a document that does not hash to its digest, or made by other code, is
  never read as state;
- ``replay_settled`` and ``replay_used``: the settled games and used commitments the
  state leaves out (the realm's ``Store``), read one at a time when a call asks, each
  row with its own digest, their counts in the document;
- ``replay_calls``: where each game's calls are in the history (game, height,
  position), for a game's record.

Whatever does not hold together (a digest, a count, a row a state names but the file
lacks) raises :class:`~c4cli.chain.trust.CheckpointDamaged`: the caller forgets the
checkpoint and makes the state from the history again. Killing a run at any point
leaves either the last checkpoint or the new one, whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from c4cli.chain.trust import CheckpointDamaged, IndexedTx, Saved
from c4cli.node.history.index import REPLAY_TABLES, RealmIndex

TABLES = REPLAY_TABLES
SCHEMA = """
CREATE TABLE IF NOT EXISTS replay_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS replay_settled (
    id INTEGER PRIMARY KEY, record TEXT NOT NULL, digest TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS replay_used (
    address TEXT NOT NULL, commitment TEXT NOT NULL, PRIMARY KEY (address, commitment)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS replay_calls (
    game INTEGER NOT NULL, height INTEGER NOT NULL, position INTEGER NOT NULL,
    PRIMARY KEY (game, height, position)
) WITHOUT ROWID;
"""

if TYPE_CHECKING:
    from c4cli.realm.memory import GameRecord


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _counts(db: sqlite3.Connection) -> list[int]:
    """The rows of each table beside the document, as the document counts them."""
    return [int(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in TABLES[1:]]


class Checkpoint:
    """The checkpoint of one history (a :class:`~c4cli.chain.trust.ReplayKeep`)."""

    def __init__(self, index: RealmIndex, code: str) -> None:
        self.index = index
        self.code = code  # the code that makes the state (its fingerprint): another's is not read
        self._ready = False

    def _db(self) -> sqlite3.Connection:
        db = self.index.connection()
        if not self._ready:
            db.executescript(SCHEMA)
            self._ready = True
        return db

    def _document(self) -> dict[str, Any] | None:
        """The kept document, whole and this code's; None when there is none."""
        rows = dict(self._db().execute("SELECT key, value FROM replay_meta").fetchall())
        if not rows:
            return None
        text, digest = rows.get("document", ""), rows.get("digest", "")
        if _digest(text) != digest:
            raise CheckpointDamaged("its document does not hash to its digest")
        document: dict[str, Any] = json.loads(text)
        if document.get("code") != self.code:
            return None  # made by another version of c4's mirror: made again
        return document

    def load(self, through: int) -> Saved | None:
        try:
            document = self._document()
            if document is None or int(document["height"]) > through:
                return None
            counts = _counts(self._db())
            if counts != document["counts"]:
                raise CheckpointDamaged(f"it holds {counts} rows, its document says "
                                        f"{document['counts']}")  # fmt: skip
            return Saved(
                int(document["height"]),
                document["state"],
                str(document["unknown"]),
                int(document["changed"]),
                tuple(int(n) for n in document["tally"]),
            )
        except (sqlite3.Error, ValueError, KeyError, TypeError) as exc:
            raise CheckpointDamaged(str(exc)) from None

    def save(
        self,
        saved: Saved,
        settled: Sequence[tuple[int, GameRecord]],
        used: Sequence[tuple[str, str]],
        calls: Sequence[tuple[int, int, int]],
    ) -> bool:
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                kept = self._document()
            except (CheckpointDamaged, ValueError):
                kept = None
            if kept is not None and int(kept["height"]) >= saved.height:
                db.execute("ROLLBACK")
                return False  # another run kept as far or further
            if kept is None:
                for table in TABLES:
                    db.execute(f"DELETE FROM {table}")
            records = [(n, json.dumps(r, separators=(",", ":"))) for n, r in settled]
            db.executemany(
                "INSERT OR REPLACE INTO replay_settled VALUES (?, ?, ?)",
                [(n, text, _digest(f"{n}:{text}")) for n, text in records],
            )
            db.executemany("INSERT OR IGNORE INTO replay_used VALUES (?, ?)", used)
            db.executemany("INSERT OR IGNORE INTO replay_calls VALUES (?, ?, ?)", calls)
            counts = _counts(db)
            document = json.dumps(
                {
                    "code": self.code,
                    "height": saved.height,
                    "state": saved.state,
                    "unknown": saved.unknown,
                    "changed": saved.changed,
                    "tally": list(saved.tally),
                    "counts": counts,
                },
                separators=(",", ":"),
                sort_keys=True,
            )
            db.executemany(
                "INSERT OR REPLACE INTO replay_meta VALUES (?, ?)",
                [("document", document), ("digest", _digest(document))],
            )
            db.execute("COMMIT")
            return True
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise

    def record(self, game_id: int) -> GameRecord:
        """A settled game's record: it must be here, whole."""
        try:
            found = (
                self._db()
                .execute("SELECT record, digest FROM replay_settled WHERE id = ?", (game_id,))
                .fetchone()
            )
            if found is None or _digest(f"{game_id}:{found[0]}") != found[1]:
                raise CheckpointDamaged(f"game {game_id} is missing or damaged")
            record: GameRecord = json.loads(found[0])
        except (sqlite3.Error, ValueError) as exc:
            raise CheckpointDamaged(f"game {game_id}: {exc}") from None
        return record

    def used(self, address: str, commitment: str) -> bool:
        try:
            found = (
                self._db()
                .execute(
                    "SELECT 1 FROM replay_used WHERE address = ? AND commitment = ?",
                    (address, commitment),
                )
                .fetchone()
            )
        except sqlite3.Error as exc:
            raise CheckpointDamaged(str(exc)) from None
        return found is not None

    def calls_of(self, game_id: int, through: int) -> list[IndexedTx]:
        try:
            keys = (
                self._db()
                .execute(
                    "SELECT height, position FROM replay_calls WHERE game = ? AND height <= ?",
                    (game_id, through),
                )
                .fetchall()
            )
            found = self.index.at([(int(h), int(p)) for h, p in keys])
        except sqlite3.Error as exc:
            raise CheckpointDamaged(str(exc)) from None
        if len(found) != len(keys):
            raise CheckpointDamaged(f"game {game_id}'s calls are not all in the history")
        return found

    def commitments(self) -> list[tuple[str, str]]:
        rows = self._db().execute("SELECT address, commitment FROM replay_used").fetchall()
        return [(str(a), str(c)) for a, c in rows]

    def discard(self) -> None:
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        for table in TABLES:
            db.execute(f"DELETE FROM {table}")
        db.execute("COMMIT")
