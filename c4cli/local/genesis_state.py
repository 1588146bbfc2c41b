"""A chain's whole state as one document: what `c4 cheat dump` writes, and what a new
chain begins from (`c4 init --load FILE`), as anvil's ``anvil_dumpState`` and
``anvil_loadState``.

The document is JSON (``{"c4_state": 1, …}``): every account (its number, sequence,
coins, public key and session keys), the account numbers handed out so far, the gas
fees collected, and the realm: its variables, every game (settled ones too), the
players' records and the leaderboards, the active list in its order, and every
commitment used. Heights are not in it: a chain that begins from one counts its
blocks from 1, its clock from the document's time (no realm value reads a height).

The state's own code makes and reads the document (``ChainState.dumped`` and the
state it begins from); here is only what a chain in a folder does with its bytes.
A chain that begins from one keeps it beside its log, as ``chain/genesis-state.json``,
named in the genesis by its sha256: the genesis hash covers the name, the name
covers the bytes, so `c4 verify` holds the whole state to the log, and an edit of
the file is damage like an edit of a block.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from c4cli.errors import HomeDamaged
from c4cli.files import write_private

if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

    from c4cli.coins import Coins
    from c4cli.jsonvalue import Document
    from c4cli.local.accounts import AccountRecord
    from c4cli.realm.memory import GameRecord, RealmRecordBase

    class RealmRecord(RealmRecordBase):
        """The realm's part of a state document: every game and used commitment."""

        games: list[GameRecord]
        commitments: list[list[str]]

    class StateDocument(TypedDict):
        """A chain's state as `c4 cheat dump` writes it and `c4 init --load` reads it."""

        c4_state: int  # FORMAT
        chain_id: str
        impersonation: NotRequired[bool]
        height: int
        time: str
        account_numbers: int
        gas_collected: Coins
        accounts: list[AccountRecord]
        realm: RealmRecord
        origin: NotRequired[Document]  # a fork's: the node, its block, whose word


FORMAT = 1
FILE = "genesis-state.json"


def encoded(document: Mapping[str, object]) -> bytes:
    """The document's bytes as a home keeps them (and as its hash covers them)."""
    return (json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n").encode()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read(folder: Path, expected: str) -> StateDocument:
    """The state a chain's genesis names (by its sha256 ``expected``), checked."""
    path = folder / FILE
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise HomeDamaged(
            f"the state the genesis begins from cannot be read ({exc.strerror})", file=path
        ) from None
    if digest(data) != expected:
        raise HomeDamaged("it is not the state the genesis names: it was altered", file=path)
    try:
        document: StateDocument = json.loads(data)
    except (ValueError, RecursionError):
        raise HomeDamaged("the state the genesis begins from is not JSON", file=path) from None
    return document


def write(folder: Path, data: bytes | None) -> None:
    """Keep ``data`` as the chain's genesis state (None: a chain that has none), whole
    or not at all, before the log that names it is written."""
    path = folder / FILE
    if data is None:
        path.unlink(missing_ok=True)
        return
    write_private(path, data, consequence="no chain was created")


def moves(folder: Path, expected: str) -> dict[int, str]:
    """Each game's move string in the state a chain's genesis names, by game id."""
    games = read(folder, expected)["realm"]["games"]
    return {int(str(game["id"])): str(game["moves"]) for game in games}
