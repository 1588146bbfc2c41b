"""`c4 init --fork URL[@HEIGHT]`: a local chain that begins from a node's realm as the
validators' signed blocks make it (anvil's ``--fork-url``/``--fork-block-number``).

The node is read through a home of its own in the user's cache folder
(``c4cli/forks/sources/…``), bound to it as `c4 init --remote` binds one: its
validator set trusted on first use (or at the block ``--trust`` names), the
realm's history synced there (`c4 sync`), every block proven. The realm's state at
HEIGHT is *computed*: c4's mirror replays the history's delivered calls up to it
(:mod:`c4cli.client.replayed`); a realm the history cannot make (code run once
that reached it, another version of its code, a deployment before the history)
is refused, never taken on the node's word. So are the accounts (anvil takes its
fork's on its node's word): the number, sequence, public key and coins of every
address the realm's history names (signers, players, the owner, the realm itself),
read from the main store after block HEIGHT, each with its proof, held to the
header after it that the validators signed (:func:`c4cli.node.light.store.read_many`);
the document's origin says so.

The state becomes a document `c4 init --load` takes (:mod:`c4cli.local.genesis_state`),
with an ``origin``: the chain id, the URL without its credentials, the height, and
the block's hash and time. It is kept in the cache folder by chain id, realm, height
and block hash, and found again by them once the node's block at that height is
proven (one request; no sync): a URL names no chain, and another chain behind the
same host is never given this one's realm. A ``--trust HEIGHT:HASH`` is always
honoured: it binds the node's home anew at that block, and at the height it names it
finds the kept document with no request at all (the user vouched for the block).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from c4cli import settings
from c4cli.address import package_address
from c4cli.chain.clock import format_time
from c4cli.chain.trust import Caught, IndexedTx, ReplayKeep
from c4cli.client import connect, history, replayed
from c4cli.client.accounts import PROVEN
from c4cli.coins import parse_coins
from c4cli.errors import BadInput, Unreachable, Unverified
from c4cli.home.config import read_remote
from c4cli.jsonvalue import Document
from c4cli.local import genesis_state, state_document
from c4cli.local.accounts import stored_key
from c4cli.node.history.sync import NodeHistory, Progress
from c4cli.node.light import store
from c4cli.node.reader import NodeReader
from c4cli.realm.memory import RealmState
from c4cli.wire import pubkeys, results, stored
from c4cli.wire.protowire import DecodeError
from c4cli.wire.storeproof import account_key

if TYPE_CHECKING:
    from c4cli.local.accounts import AccountRecord
    from c4cli.local.genesis_state import RealmRecord, StateDocument


class Origin(NamedTuple):
    url: str  # as c4 prints one: no credentials, no path
    height: int | None  # None: the node's last proven block


def parse_origin(text: str) -> Origin:
    """``URL[@HEIGHT]``: the height after the last ``@`` when it is a number (a URL's
    credentials hold an ``@`` too)."""
    url, at, height = text.rpartition("@")
    if at and height.isascii() and height.isdigit():
        if len(height) > 19 or not 0 < int(height) < 2**63:
            raise BadInput(f"{text[:80]!r}: the height after @ is a block of the chain, from 1")
        return Origin(url, int(height))
    # ``http://host:26657@abc`` is a height mistyped, not a user "host" and a password
    # "26657" for a host "abc": credentials hold no port.
    netloc = url.partition("//")[2]
    if at and re.fullmatch(r"[^@/:]+:[0-9]{1,5}", netloc) and re.fullmatch(r"\w+", height):
        raise BadInput(f"{text[:80]!r}: the height after @ is a block of the chain, from 1")
    return Origin(text, None)


def cache_folder() -> Path:
    """Where forks keep what they fetched: the user's cache folder, as gno's builds."""
    return settings.current().cache_home / "c4cli" / "forks"


class Forked(NamedTuple):
    """A state to begin a chain from, where it came from, and whether the cache had it."""

    data: bytes
    origin: Document
    cached: bool


def forked(
    url: str,
    height: int | None,
    realm_path: str,
    *,
    trust: str | None = None,
    progress: Progress | None = None,
) -> Forked:
    """The realm's state at block ``height`` (None: the last the node's signed blocks
    prove) of the node at ``url``, as a state document."""
    folder = cache_folder()
    source = folder / "sources" / hashlib.sha256(f"{url}|{realm_path}".encode()).hexdigest()[:24]
    bound = read_remote(source)
    if trust is not None and bound is not None and height is not None:
        vouched, block_hash = connect.trust_point(trust)
        kept = _kept(folder, bound.chain_id, realm_path, height, block_hash)
        if vouched == height and kept is not None:
            return Forked(kept, json.loads(kept)["origin"], True)
    if bound is None or trust is not None:  # --trust, always honoured
        connect.bind(source, url, realm_path, chain_id=None, force=bound is not None, trust=trust)
    if height is not None:
        reader = connect.open_reader(source)
        assert isinstance(reader, NodeReader) and reader.verifier is not None
        if height < reader.verifier.latest().height:
            proven = reader.verifier.at(height)  # the block, proven: which chain, which block
            kept = _kept(folder, reader.chain_id, realm_path, height, proven.block_hash)
            if kept is not None:
                return Forked(kept, json.loads(kept)["origin"], True)
    report, _ = history.synced(
        source, url=None, realm_path=None, chain_id=None, trust_node=False, first=None,
        progress=progress,
    )  # fmt: skip
    reader = connect.open_reader(source)
    assert isinstance(reader, NodeReader) and reader.verifier is not None
    reached = report.reached.height
    at = reached if height is None else height
    if at > reached:
        raise BadInput(
            f"block {at} is past the last block the node's signed blocks prove now ({reached})"
        )
    proven = reader.verifier.at(at)
    chain_id = reader.chain_id
    kept_history = NodeHistory(reader, connect.history_path(source, chain_id, realm_path), chain_id)
    through = Through(kept_history, at)

    def read(made: replayed.Computed) -> tuple[set[str], RealmRecord]:
        if made.state is None or made.unknown:
            raise BadInput(
                f"the realm's state at block {at} is not one c4 can compute from its signed "
                f"blocks ({made.unknown}): a fork begins from no node's word for it"
            )
        keep = through.checkpoint(replayed.mirror_code())
        return _named(made.state, through.signers()), _realm_record(made.state, keep)

    named, realm = replayed.read_made(through, at, read)
    accounts = _accounts(reader, sorted(named), at)
    origin: Document = {
        "chain_id": chain_id,
        "url": connect.shown_url(url),
        "height": at,
        "block_hash": proven.block_hash,
        "time": format_time(proven.time),
        "accounts": PROVEN.format(height=at) + " (the main store's proofs)",
    }
    document: StateDocument = {
        "c4_state": genesis_state.FORMAT,
        "chain_id": chain_id,
        "height": at,
        "time": format_time(proven.time),
        "account_numbers": 1 + max((a["number"] for a in accounts), default=-1),
        "gas_collected": {},
        "accounts": accounts,
        "realm": realm,
        "origin": origin,
    }
    data = genesis_state.encoded(document)
    _keep(folder, chain_id, realm_path, at, proven.block_hash, data)
    return Forked(data, origin, False)


class Through:
    """A realm's history up to block ``height`` (a RealmHistory that no longer grows:
    its state is computed from it, from its checkpoint when that stands no higher)."""

    def __init__(self, whole: NodeHistory, height: int) -> None:
        self.height, self.whole = height, whole

    @property
    def realm_path(self) -> str:
        return self.whole.realm_path

    @property
    def memo(self) -> dict[str, object]:
        return {}

    def begun(self) -> bool:
        return True

    def catch_up(self) -> Caught:
        return Caught(self.height, 0, 0)

    def rows(self, kinds: Sequence[str] = (), above: int = 0) -> Iterator[IndexedTx]:
        return self.whole.index.txs(kinds=kinds, above=above, through=self.height)

    def checkpoint(self, code: str) -> ReplayKeep:
        return self.whole.checkpoint(code)

    def signers(self) -> set[str]:
        return self.whole.index.signers(self.height)


def _realm_record(realm: RealmState, keep: ReplayKeep) -> RealmRecord:
    """The realm's part of a fork's genesis: its games and every commitment used, those
    the replay's checkpoint keeps out of memory too."""
    record = state_document.realm_record(realm)
    pairs = {(a, c) for a, c in record["commitments"]} | set(keep.commitments())
    record["commitments"] = sorted([a, c] for a, c in pairs)
    return record


def _named(realm: RealmState, signers: set[str]) -> set[str]:
    """Every address the realm's history names: who signed, who played, the owner and
    the one it waits for, and the realm itself."""
    found = set(signers)
    for game in realm.games.values():
        found.update(a for a in (game.creator, game.opponent, game.acceptor) if a)
    found.update(a for a in (realm.owner, realm.pending_owner) if a)
    found.add(package_address(realm.path))
    return found


def _accounts(reader: NodeReader, addresses: list[str], height: int) -> list[AccountRecord]:
    """Each address's account after block ``height`` (none for an address the chain
    holds no account of), read from the main store and proven against the header after
    it that the trusted validators signed, as a state document lists one."""
    verifier = reader.verifier
    assert verifier is not None, "a fork's source home proves its blocks"
    keys = [(account_key(address), f"the account {address}") for address in addresses]
    listed: list[AccountRecord] = []
    for address, proven in zip(addresses, store.read_many(verifier, keys, height), strict=True):
        try:
            account = None if proven.value is None else stored.account(proven.value)
        except (DecodeError, ValueError) as exc:
            raise Unverified(
                f"the account {address} proven at block {height} is not one: {exc}"
            ) from None
        if account is not None:
            listed.append(_record(address, account))
    return listed


def _record(address: str, account: results.Tm2Account) -> AccountRecord:
    """An account as a state document lists one (its key as the checkpoint keeps it)."""
    try:
        key = None if account.public_key is None else pubkeys.from_json(account.public_key)
    except (ValueError, KeyError, TypeError) as exc:
        raise Unreachable(f"the node gave {address} a public key c4 cannot read: {exc}") from None
    return {
        "address": address,
        "number": account.number,
        "sequence": account.sequence,
        "coins": parse_coins(account.coins),
        "pub_key": stored_key(key),
        "sessions": [],
    }


def _kept_path(folder: Path, chain_id: str, realm_path: str, height: int, block_hash: str) -> Path:
    """Where a document is kept: by chain id, realm, height and block hash."""
    name = f"{height}-{block_hash.upper()}.json"
    return folder / "states" / connect.file_name(chain_id) / connect.file_name(realm_path) / name


def _kept(
    folder: Path, chain_id: str, realm_path: str, height: int, block_hash: str
) -> bytes | None:
    """The document kept for that block, checked to be of it (None: not kept, or not
    readable, or not that block's: fetched again)."""
    try:
        data = _kept_path(folder, chain_id, realm_path, height, block_hash).read_bytes()
        origin = json.loads(data)["origin"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None
    if (origin.get("chain_id"), origin.get("height")) != (chain_id, height):
        return None
    if str(origin.get("block_hash")).upper() != block_hash.upper():
        return None
    return data


def _keep(
    folder: Path, chain_id: str, realm_path: str, height: int, block_hash: str, data: bytes
) -> None:
    """Keep the document by chain id, realm, height and block hash; a cache that cannot
    be written costs the next fork a fetch, nothing more."""
    path = _kept_path(folder, chain_id, realm_path, height, block_hash)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
