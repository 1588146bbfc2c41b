"""The read model: the answers the common queries read, one row each.

A projection of the state, as eventsourcing keeps projections apart from the
snapshots they are not: every game's GameJSON, each account's JSON as
``auth/accounts`` gives it, the active list, the leaderboards, the package variables,
and every transaction by hash and by the game it is about (``c4 tx``, ``c4 log``,
a game's moves in order). The realm's own accessors render them when they
change, so a query reads a row and runs no realm code. The rows live in the
checkpoint's SQLite file and are written in the same transaction as it
(:meth:`c4cli.local.cache.Cache.save`), so the two always describe the same block.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from c4cli.realm.accessors import game_object, leaders_json

if TYPE_CHECKING:
    from c4cli.local.execute import Outcome
    from c4cli.local.state import ChainState
    from c4cli.realm.memory import Game

SCHEMA = """
CREATE TABLE IF NOT EXISTS game_views (id INTEGER PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (address TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS txs (
    hash TEXT PRIMARY KEY, height INTEGER NOT NULL, game INTEGER, outcome TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS txs_by_game ON txs (game, height) WHERE game IS NOT NULL;
CREATE TABLE IF NOT EXISTS views (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
TABLES = ("game_views", "accounts", "txs", "views")

# A transaction as the read model keeps it: (tx hash, height, the game it is about or
# None, outcome as JSON).
TxRow = tuple[str, int, int | None, str]


def project(
    db: sqlite3.Connection,
    state: ChainState,
    games: list[Game],
    accounts: list[str],
    txs: list[TxRow],
) -> None:
    """Write the rows of what changed (inside the caller's transaction): ``games`` and
    ``accounts`` as they stand now, ``txs`` the new blocks' transactions."""
    db.executemany(
        "INSERT OR REPLACE INTO game_views (id, json) VALUES (?, ?)",
        [(game.id, game_object(game)) for game in games],
    )
    db.executemany(
        "INSERT OR REPLACE INTO accounts (address, json) VALUES (?, ?)",
        [
            (address, json.dumps(account.to_json(), indent=2))
            for address in accounts
            if (account := state.accounts.get(address)) is not None
        ],
    )
    db.executemany(
        "INSERT OR REPLACE INTO txs (hash, height, game, outcome) VALUES (?, ?, ?, ?)", txs
    )
    realm = state.realm
    db.executemany(
        "INSERT OR REPLACE INTO views (key, value) VALUES (?, ?)",
        [
            ("active", json.dumps(list(realm.active))),
            ("leaders", leaders_json(realm)),
            ("variables", json.dumps(realm.variables())),
        ],
    )


class ReadModel:
    """The rows :func:`project` wrote, read back (the cache must describe the log as it
    is: ``Cache.fresh``)."""

    def __init__(self, connection: Callable[[], sqlite3.Connection]) -> None:
        self._connection = connection

    def _one(self, sql: str, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._connection().execute(sql, args).fetchone()
        return row

    def _view(self, key: str) -> str | None:
        row = self._one("SELECT value FROM views WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    def game_text(self, game_id: int) -> str | None:
        row = self._one("SELECT json FROM game_views WHERE id = ?", (game_id,))
        return None if row is None else str(row[0])

    def games_text(self, ids: list[int]) -> list[str]:
        return [text for i in ids if (text := self.game_text(i)) is not None]

    def active_ids(self) -> list[int]:
        raw = self._view("active")
        return [] if raw is None else [int(i) for i in json.loads(raw)]

    def leaders_text(self) -> str:
        return self._view("leaders") or ""

    def variables(self) -> dict[str, int | str]:
        """The realm's package variables (its fee, collected fees, owners) by name."""
        raw = self._view("variables")
        found: dict[str, int | str] = {} if raw is None else json.loads(raw)
        return found

    def account_json(self, address: str) -> str | None:
        """The account's JSON as ``auth/accounts`` gives it, or None for no account."""
        row = self._one("SELECT json FROM accounts WHERE address = ?", (address,))
        return None if row is None else str(row[0])

    def transaction(self, tx_hash: str) -> tuple[int, Outcome] | None:
        """The height and outcome of a transaction by its hash, or None."""
        row = self._one("SELECT height, outcome FROM txs WHERE hash = ?", (tx_hash,))
        return None if row is None else (int(row[0]), json.loads(row[1]))

    def transactions_through(self, height: int) -> int:
        """How many transactions the blocks up to and with ``height`` hold."""
        row = self._one("SELECT COUNT(*) FROM txs WHERE height <= ?", (height,))
        return 0 if row is None else int(row[0])

    def game_txs(self, game_id: int) -> list[tuple[int, str, Outcome]]:
        """The transactions about one game (its offer, accept, reveals, moves, ending),
        oldest first: height, hash and outcome."""
        rows = (
            self._connection()
            .execute(
                "SELECT height, hash, outcome FROM txs WHERE game = ? ORDER BY height", (game_id,)
            )
            .fetchall()
        )
        return [(int(height), str(hash_), json.loads(outcome)) for height, hash_, outcome in rows]
