"""The checkpoint: the state at one block of the log, kept so a command need not replay.

One SQLite file, ``chain/cache/state.sqlite``, written in one transaction after
each block that a command appends (or replays). Deleting it changes nothing but
speed. The checkpoint is the live part of the state as one JSON document in an
explicit, versioned format (accounts, live games, stats, boards: see
``ChainState.snapshot``), with settled games and used commitments as rows of their
own, read back one at a time only when a call asks for them (it is the realm's
:class:`~c4cli.realm.memory.Store`). Nothing in it is code: a home copied from
someone else is read as data, never executed. Beside it, in the same file and
the same transactions, the read model (:mod:`c4cli.local.projection`) keeps the
answers the common queries read.

Why it is keyed as it is. A checkpoint is only as good as the log it was made
from, and the log is a file anyone may copy, edit, cut or replace, so the key is
the file and not a height: its identity (device, inode, size, modification and
change times, right after the block was written) says "exactly this file", the
usual case, a few rows read and no log at all. Its offset and chain digest (see
``log.chain_digest``) say "this prefix of the log": when the log has grown since
(a process died before saving), the blocks after the offset are replayed on top
of the checkpoint, with every check. Any other log (edited, replaced, cut) is
replayed from genesis. And the state is what this code's execution of the
blocks gives, so the code is part of the key too (``code_fingerprint``): a
checkpoint written by other code is replayed instead of believed.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from c4cli import faults
from c4cli.errors import HomeDamaged
from c4cli.files import private_dir
from c4cli.local import projection
from c4cli.local.genesis import Genesis
from c4cli.local.projection import ReadModel, TxRow
from c4cli.realm.memory import Game

if TYPE_CHECKING:
    from c4cli.local.log import GenesisRecord
    from c4cli.local.state import ChainState
    from c4cli.realm.memory import Game

# The format of everything below; a cache of any other version is not read (11: a
# transaction's outcome keeps its deliver data and its bank events, for `c4 serve`).
CACHE_VERSION = "11"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS settled (id INTEGER PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commitments (
    address TEXT NOT NULL, commitment TEXT NOT NULL, PRIMARY KEY (address, commitment)
) WITHOUT ROWID;
"""
TABLES = ("meta", "settled", "commitments")
# Tables of earlier versions, dropped with the rest when the version changes.
OLD_TABLES = ("games",)


def log_identity(path: Path) -> list[int]:
    """What changes whenever the log file is written, replaced or copied."""
    info = os.stat(path)
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


class Mark(NamedTuple):
    """Where in the log a state stands: the byte offset after its last block, and
    the chain digest of the log up to there."""

    offset: int
    digest: bytes


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Names the code that wrote a cache: a state is only what this code's execution of
    the blocks gives, so a cache written by other code is replayed instead of believed."""
    package = Path(__file__).resolve().parent.parent
    parts = [CACHE_VERSION]
    for layer in ("engine", "realm", "chain"):
        folder = package / layer
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                info = os.stat(folder / name)
                parts.append(f"{layer}/{name}:{info.st_size}:{info.st_mtime_ns}")
    return " ".join(parts)


class Cache:
    def __init__(self, folder: Path | None) -> None:
        # No folder: a cache in memory, for a process whose home cannot take one.
        self.in_memory = folder is None
        self.path = Path(":memory:") if folder is None else folder / "state.sqlite"
        self._db: sqlite3.Connection | None = None
        self._writable = False
        self._stamp: dict[str, Any] | None = None
        self.views = ReadModel(self._reading)

    # -- connection -------------------------------------------------------------

    def _connect(self, *, create: bool) -> sqlite3.Connection | None:
        """The database; with ``create``, made (or completed) so that it can be written."""
        if self._db is not None and (self._writable or not create):
            return self._db
        if not create and (self.in_memory or not _exists(self.path)):
            return None
        for attempt in range(2):
            try:
                if self._db is None:
                    if create and not self.in_memory:
                        private_dir(self.path.parent)
                    self._db = sqlite3.connect(self.path, isolation_level=None, timeout=60)
                    # No fsync per commit: a power cut may lose the last saves (the
                    # cache is then stale and replayed), never mix two of them.
                    self._db.execute("PRAGMA synchronous=NORMAL")
                if create:
                    self._db.execute("PRAGMA journal_mode=WAL")  # kept in the file
                    self._match_schema(self._db)
                    self._db.executescript(SCHEMA + projection.SCHEMA)
                    self._writable = True
            except sqlite3.Error:
                # Not a database we can use: it is only a cache, start a new one.
                self.discard()
                if not create or attempt:
                    return None
                continue
            return self._db
        return None

    @staticmethod
    def _match_schema(db: sqlite3.Connection) -> None:
        """Drop the tables of a cache another version of c4 wrote: it is only a cache."""
        (version,) = db.execute("PRAGMA user_version").fetchone()
        if version != int(CACHE_VERSION):
            for table in (*TABLES, *projection.TABLES, *OLD_TABLES):
                db.execute(f"DROP TABLE IF EXISTS {table}")
            db.execute(f"PRAGMA user_version = {int(CACHE_VERSION)}")

    def discard(self) -> None:
        """Forget the cache file (it is only ever a copy of what the log says).

        On a home that cannot be written the file stays: its stamp no longer
        matches the log once the log moves on, so it is never believed.
        """
        self.close()
        if self.in_memory:
            return
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        """Drop the connection (after a failed save: the next use reconnects)."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        self._writable = False
        self._stamp = None

    def _reading(self) -> sqlite3.Connection:
        db = self._connect(create=False)
        assert db is not None, "check fresh() first"
        return db

    def _meta(self, key: str) -> bytes | None:
        db = self._connect(create=False)
        if db is None:
            return None
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        value = row[0]
        # Whatever an edited or foreign cache holds, it is read as bytes, never trusted.
        return value.encode() if isinstance(value, str) else bytes(value or b"")

    # -- freshness --------------------------------------------------------------

    def fresh(self, log_path: Path) -> bool:
        """Whether the cache describes exactly the log file as it is now."""
        stamp = self.checkpoint()
        if stamp is None:
            return False
        try:
            identity = log_identity(log_path)
        except OSError:
            return False
        return bool(stamp.get("identity") == identity)

    def checkpoint(self) -> dict[str, Any] | None:
        """The checkpoint's stamp, if this code wrote it (for whichever log)."""
        try:
            raw = self._meta("checkpoint")
            stamp = None if raw is None else json.loads(raw)
        except sqlite3.Error:
            self.discard()  # not a database we can read: start a new one
            return None
        except ValueError:
            return None
        if not isinstance(stamp, dict) or stamp.get("code") != code_fingerprint():
            return None
        self._stamp = stamp
        return stamp

    @property
    def mark(self) -> Mark:
        """Where in the log the checkpoint stands (fresh() or checkpoint() first)."""
        return Mark(int(self.stamp["offset"]), bytes.fromhex(self.stamp["digest"]))

    @property
    def stamp(self) -> dict[str, Any]:
        """The checkpoint's stamp; read now if no fresh() or checkpoint() read it yet (a
        cache put in memory when the home's could not be saved)."""
        if self._stamp is None:
            self.checkpoint()
        if self._stamp is None:
            raise HomeDamaged(f"the cache in {self.path.parent} holds no checkpoint")
        return self._stamp

    # -- the state --------------------------------------------------------------

    def load(self) -> ChainState | None:
        """The checkpoint's state (after fresh() or checkpoint()), this cache as its store.

        None when the snapshot is missing or not what this version writes: the
        caller replays instead.
        """
        from c4cli.local.state import ChainState

        try:
            genesis, raw = self._meta("genesis"), self._meta("state")
            if genesis is None or raw is None:
                return None
            chain = Genesis.from_record(json.loads(genesis))
            return ChainState.restore(chain, json.loads(raw), self)
        except (sqlite3.Error, ValueError, KeyError, TypeError, AttributeError, HomeDamaged):
            return None

    def genesis(self) -> Genesis | None:
        """The genesis of the chain the checkpoint describes (None: no checkpoint)."""
        try:
            raw = self._meta("genesis")
            return None if raw is None else Genesis.from_record(json.loads(raw))
        except (sqlite3.Error, ValueError, KeyError, TypeError, AttributeError, HomeDamaged):
            return None

    def _row(self, sql: str, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """One row for the realm's store: a cache that cannot answer is damage, never "no"."""
        try:
            db = self._connect(create=False)
            if db is None:
                raise sqlite3.OperationalError("the file is gone")
            row: tuple[Any, ...] | None = db.execute(sql, args).fetchone()
            return row
        except sqlite3.Error as exc:
            raise HomeDamaged(
                f"{self.path}: unreadable ({exc}); delete it and the log is replayed"
            ) from None

    def game(self, game_id: int) -> Game:
        """A settled game, read back from its row (the realm's store)."""
        row = self._row("SELECT record FROM settled WHERE id = ?", (game_id,))
        if row is None or row[0] is None:
            raise HomeDamaged(
                f"{self.path}: game {game_id} is missing; delete it and the log is replayed"
            )
        try:
            return Game.from_record(json.loads(row[0]))
        except (ValueError, KeyError, TypeError):
            raise HomeDamaged(
                f"{self.path}: game {game_id} is unreadable; delete it and the log is replayed"
            ) from None

    def used(self, address: str, commitment: str) -> bool:
        row = self._row(
            "SELECT 1 FROM commitments WHERE address = ? AND commitment = ?", (address, commitment)
        )
        return row is not None

    def save(
        self,
        state: ChainState,
        log_path: Path,
        mark: Mark,
        *,
        full: bool,
        txs: list[TxRow],
        genesis: GenesisRecord | None = None,
    ) -> None:
        """Record ``state`` as the state of the log as it is now, in one transaction.

        ``full`` rewrites everything (after a replay from genesis, with every
        transaction in ``txs`` and the ``genesis`` record); otherwise only what
        changed since the state was loaded is written, and ``txs`` holds the new
        blocks' transactions. ``mark`` is where in the log ``state`` stands.
        """
        if not self.in_memory:
            faults.check("cache-save")
        db = self._connect(create=True)
        if db is None:
            raise sqlite3.OperationalError(f"cannot create {self.path}")
        realm = state.realm
        if full:
            games = {game.id: game for game in realm.games.values()}
        else:
            games = {game_id: realm.games[game_id] for game_id in state.dirty_games}
        released = realm.games.settled_in_memory()  # settled games move to their rows
        games.update((game.id, game) for game in released)
        accounts = list(state.accounts) if full else sorted(state.dirty_accounts)
        commitments = realm.used_commitments.recent()
        stamp = {
            "identity": log_identity(log_path),
            "code": code_fingerprint(),
            "height": state.height,
            "time": state.time,
            "last_hash": state.last_hash,
            "realm_path": state.genesis.realm_path,
            "chain_id": state.genesis.chain_id,
            "offset": mark.offset,
            "digest": mark.digest.hex(),
        }
        # The snapshot holds the live part only: settled games and used commitments
        # are in the rows written with it.
        meta = {
            "checkpoint": json.dumps(stamp).encode(),
            "state": json.dumps(state.snapshot()).encode(),
        }
        if genesis is not None:
            meta["genesis"] = json.dumps(genesis).encode()
        try:
            db.execute("BEGIN IMMEDIATE")
            if full:
                for table in (*TABLES, *projection.TABLES):
                    db.execute(f"DELETE FROM {table}")
            db.executemany(
                "INSERT OR REPLACE INTO settled (id, record) VALUES (?, ?)",
                [(game.id, json.dumps(game.to_record())) for game in released],
            )
            db.executemany(
                "INSERT OR IGNORE INTO commitments (address, commitment) VALUES (?, ?)",
                sorted(commitments),
            )
            projection.project(db, state, [g for _, g in sorted(games.items())], accounts, txs)
            db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", meta.items())
            db.execute("COMMIT")
            if full:
                # A full save is large: fold it into the database now, in the slow path
                # that made it, rather than in whichever quick command commits next.
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise  # nothing saved, nothing changed: the caller carries on without it
        # Saved: what the rows hold need not stay in memory.
        realm.games.release(released)
        realm.used_commitments.release(commitments)
        state.dirty_games.clear()
        state.dirty_accounts.clear()
        self._stamp = stamp
        state.realm.keep_in(self)


def _exists(path: Path) -> bool:
    """Whether the cache file is there; a folder that cannot be searched (permissions)
    counts as no cache, never as a failure: a cache is a cache."""
    try:
        return path.exists()
    except OSError:
        return False
