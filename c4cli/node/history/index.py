"""The realm's history on a node, kept in the home: every transaction that touched it.

`c4 sync` (:mod:`c4cli.node.history.sync`) reads a node's blocks from the first (or
``--from``) to its verified head and keeps, of each block proven by the validators'
signatures, the transactions that called the realm, deployed it, sent coins to it,
or reached it otherwise (with their fates, proven by the next header). :class:`RealmIndex`
is that index: one SQLite file a chain and realm, written a whole chunk of blocks at
a time in one SQLite transaction, with the height and hash of the last block read.
Ctrl-C, a dead node or a full disk leave it at the last chunk it holds whole, and the
next sync carries on from there, its first block held to follow that hash.

The index is the home's own record of what the blocks proved; deleting it only makes
the next sync read the blocks again.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from c4cli.chain.trust import IndexedTx
from c4cli.errors import HomeDamaged
from c4cli.files import private_dir
from c4cli.wire.abci import ResponseDeliverTx

INT64_MAX = 2**63 - 1  # SQLite's largest integer
REPLAY_TABLES = ("replay_meta", "replay_settled", "replay_used", "replay_calls")
SCHEMA_VERSION = 3  # 3: the packages that import the realm, kept
# A row is what the replay and the listings read, in the chain's order (the table is
# its own index); a transaction's hash is the sha256 of its bytes, made again on reading.
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS txs (
    height INTEGER NOT NULL,
    position INTEGER NOT NULL,
    time INTEGER NOT NULL,
    kind TEXT NOT NULL,
    signer TEXT NOT NULL,
    session TEXT NOT NULL,
    func TEXT NOT NULL,
    error TEXT NOT NULL,
    tx BLOB NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (height, position)
) WITHOUT ROWID;
"""


class Synced(NamedTuple):
    """How far the index reaches: blocks ``first`` to ``height`` read, the last one's
    hash (hex), and the realm's deployment when a block held it (0: not seen)."""

    first: int
    height: int
    block_hash: str
    deployed: int


class RealmIndex:
    """The index of one chain's realm in one file; created on the first write."""

    def __init__(self, path: Path, chain_id: str, realm_path: str) -> None:
        self.path = path
        self.chain_id = chain_id
        self.realm_path = realm_path
        self._db: sqlite3.Connection | None = None

    # -- the file -----------------------------------------------------------------------

    def _connect(self, *, create: bool) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        if not create and not self.path.exists():
            return None
        if create:
            private_dir(self.path.parent)
        try:
            db = sqlite3.connect(self.path, isolation_level=None, timeout=60)
            db.execute("PRAGMA journal_mode=WAL")
            (version,) = db.execute("PRAGMA user_version").fetchone()
            if version != SCHEMA_VERSION:
                # Another version's rows (or none yet): read the blocks again, and make
                # the replay's checkpoint (node/history/checkpoint.py) again from them.
                db.executescript(
                    "DROP TABLE IF EXISTS txs; DROP TABLE IF EXISTS meta; "
                    + "".join(f"DROP TABLE IF EXISTS {t}; " for t in REPLAY_TABLES)
                )
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.executescript(SCHEMA)
            self._check(db)
        except sqlite3.Error as exc:
            raise HomeDamaged(
                f"the realm's history cannot be read ({exc}): delete it and sync again",
                file=self.path,
            ) from None
        self._db = db
        return db

    def _check(self, db: sqlite3.Connection) -> None:
        """The file is this chain's and realm's, written by this schema (or new)."""
        known = dict(db.execute("SELECT key, value FROM meta").fetchall())
        wanted = {"chain_id": self.chain_id, "realm_path": self.realm_path}
        if not known:
            db.executemany("INSERT INTO meta VALUES (?, ?)", wanted.items())
            return
        for key, value in wanted.items():
            if known.get(key) != value:
                raise HomeDamaged(
                    f"it holds the history of {known.get('realm_path')!r} on chain "
                    f"{known.get('chain_id')!r}, not of "
                    f"{self.realm_path!r} on {self.chain_id!r}: delete it and sync again",
                    file=self.path,
                )

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    # -- how far it reaches -------------------------------------------------------------

    def synced(self) -> Synced | None:
        """Where the last sync left the index; None before the first."""
        db = self._connect(create=False)
        if db is None:
            return None
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if "height" not in meta:
            return None
        return Synced(
            int(meta["first"]), int(meta["height"]), meta["block_hash"], int(meta["deployed"])
        )

    def importers(self) -> set[str]:
        """The packages deployed (in the blocks read) whose code imports the realm, or a
        package that does: a call of one, or code run once that imports one, may reach
        the realm without an event saying so."""
        db = self._connect(create=False)
        if db is None:
            return set()
        found = db.execute("SELECT value FROM meta WHERE key = 'importers'").fetchone()
        return set(json.loads(found[0])) if found else set()

    def append(
        self, rows: Sequence[IndexedTx], reached: Synced, importers: set[str] | None = None
    ) -> None:
        """Blocks read up to ``reached``, with the transactions they hold, and the
        packages known to import the realm by then: all or nothing."""
        db = self._connect(create=True)
        assert db is not None
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT OR REPLACE INTO txs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (row.height, row.position, row.time, row.kind, row.signer, row.session,
                     row.func, row.error, row.tx, _result_text(row.result))
                    for row in rows
                ],
            )  # fmt: skip
            meta = [(key, str(value)) for key, value in reached._asdict().items()]
            if importers is not None:
                meta.append(("importers", json.dumps(sorted(importers))))
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta)
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise

    def settle(self) -> None:
        """Fold the write-ahead log into the file and empty it, once a sync is done: the
        history on disk is its rows, not the pages its chunks wrote on the way."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- reading ------------------------------------------------------------------------

    def txs(
        self,
        *,
        kinds: Sequence[str] = (),
        above: int = 0,
        through: int | None = None,
        tail: int | None = None,
    ) -> Iterator[IndexedTx]:
        """The kept transactions in the chain's order (of some kinds), of the blocks
        after ``above`` up to ``through``; only the last ``tail`` of them, when given.
        The table's key is (height, position): a range is read, never the whole."""
        db = self._connect(create=False)
        if db is None:
            return
        # A bound as a person typed it may pass SQLite's integers: past them, no row is.
        above = min(above, INT64_MAX)
        through = None if through is None else min(through, INT64_MAX)
        tail = None if tail is None else min(tail, INT64_MAX)
        clauses, values = ["height > ?"], [above]
        if through is not None:
            clauses.append("height <= ?")
            values.append(through)
        if kinds:
            clauses.append(f"kind IN ({', '.join('?' for _ in kinds)})")
        where = " AND ".join(clauses)
        if tail is None:
            query = f"SELECT * FROM txs WHERE {where} ORDER BY height, position"
        else:
            query = (
                f"SELECT * FROM (SELECT * FROM txs WHERE {where} "
                "ORDER BY height DESC, position DESC LIMIT ?) ORDER BY height, position"
            )
        for row in db.execute(query, [*values, *kinds, *([] if tail is None else [tail])]):
            yield _row(row)

    def at(self, keys: Sequence[tuple[int, int]]) -> list[IndexedTx]:
        """The kept transactions at (height, position) ``keys``, in the chain's order."""
        db = self._connect(create=False)
        if db is None or not keys:
            return []
        found = []
        for height, position in sorted(set(keys)):
            row = db.execute(
                "SELECT * FROM txs WHERE height = ? AND position = ?", (height, position)
            ).fetchone()
            if row is not None:
                found.append(_row(row))
        return found

    def signers(self, through: int) -> set[str]:
        """Every account that signed a kept transaction up to block ``through``."""
        db = self._connect(create=False)
        if db is None:
            return set()
        rows = db.execute("SELECT DISTINCT signer FROM txs WHERE height <= ?", (through,))
        return {str(signer) for (signer,) in rows if signer}

    def connection(self) -> sqlite3.Connection:
        """The file, open for writing: what the replay's checkpoint keeps beside the
        rows (:mod:`c4cli.node.history.checkpoint`) goes in its own tables of it."""
        db = self._connect(create=True)
        assert db is not None
        return db

    def count(self) -> int:
        db = self._connect(create=False)
        return 0 if db is None else int(db.execute("SELECT COUNT(*) FROM txs").fetchone()[0])


def _row(row: tuple[Any, ...]) -> IndexedTx:
    height, position, time, kind, signer, session, func, error, tx, result = row
    tx_hash = base64.b64encode(hashlib.sha256(tx).digest()).decode()
    kept = ResponseDeliverTx.from_json(json.loads(result)) if result != "{}" else None
    return IndexedTx(
        height, position, time, tx_hash, kind, signer, session, func, error, tx, kept
    )  # fmt: skip


def _result_text(result: ResponseDeliverTx | None) -> str:
    """A kept result as the index stores it: its amino JSON ({} for none)."""
    return "{}" if result is None else json.dumps(result.to_json(), separators=(",", ":"))
