"""The one door to a chain: which backend a home uses, opened behind the `Chain` interface.

A home holds either a local chain (``chain/``, its block log) or a binding to a node
(``config.toml``'s ``[remote]``); ``--remote`` may name a node for one command line.
Commands ask here and get a :class:`~c4cli.chain.interface.Chain` (or, for what only
a chain in a folder can do, :class:`~c4cli.chain.controls.LocalControls`), never a
backend class, so the same command works on both.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from c4cli.errors import BadInput, BadTrustPoint, BoundElsewhere, HomeInUse, warn_once
from c4cli.home.config import Remote, forget_remote, read_remote, write_remote
from c4cli.jsonvalue import Document
from c4cli.node.net.urls import redact, split_urls
from c4cli.node.spec import Historian, NodeSpec, Prover
from c4cli.realm.rules import DEFAULT_PATH as DEFAULT_REALM_PATH
from c4cli.settings import DEFAULT_DEADLINES, Deadlines
from c4cli.wire.paths import QFUNCS

if TYPE_CHECKING:
    from c4cli.chain.controls import LocalControls
    from c4cli.chain.interface import Chain, ChainReader, Head
    from c4cli.chain.trust import RealmHistory, TrustedSet
    from c4cli.home.trust import TrustFile
    from c4cli.local.reader import LocalReader
    from c4cli.node.chain import NodeChain
    from c4cli.node.light.verify import Verifier
    from c4cli.node.net.transport import Transport
    from c4cli.node.reader import NodeReader

Client = TypeVar("Client", "NodeReader", "NodeChain")
Local = TypeVar("Local", "LocalReader", "LocalControls")
OWN_NODE = "node"  # where `c4 node start` keeps its gnoland (gnoland.devnode.NODE_DIR)
TRUST_NODE_WORD = "--trust-node (or $C4_TRUST_NODE=1) takes this node's word"


def open_chain(
    home: Path,
    *,
    url: str | None = None,
    realm_path: str | None = None,
    chain_id: str | None = None,
    trust_node: bool = False,
    deadlines: Deadlines = DEFAULT_DEADLINES,
) -> Chain:
    """The chain a command line uses: the node ``url`` names (a node this home is bound
    to when it names none), else the home's own log; a home with neither is exit 3.

    A home bound to a node keeps its realm path, chain id and journal when ``url``
    names another RPC server of the same chain: the chain id is checked against the
    node before anything is read. For a home bound to no node, ``url`` is read as it
    is, at ``realm_path`` (default the deployed realm's), and signs only for the
    ``chain_id`` given.
    """
    return _open(
        _sender, _local_chain, home, url=url, realm_path=realm_path, chain_id=chain_id,
        trust_node=trust_node, deadlines=deadlines,
    )  # fmt: skip


def open_reader(
    home: Path,
    *,
    url: str | None = None,
    realm_path: str | None = None,
    chain_id: str | None = None,
    trust_node: bool = False,
    deadlines: Deadlines = DEFAULT_DEADLINES,
) -> ChainReader:
    """The chain as :func:`open_chain` opens it, for a command that only asks (`c4
    query`): a node's client comes without its sending half, so nothing that signs,
    simulates or delivers is loaded; every check of the chain and its answers is the
    same."""
    return _open(
        _reader, _local_reader, home, url=url, realm_path=realm_path, chain_id=chain_id,
        trust_node=trust_node, deadlines=deadlines,
    )  # fmt: skip


def idle_reader(
    home: Path, *, url: str | None = None, deadlines: Deadlines = DEFAULT_DEADLINES
) -> ChainReader | None:
    """The chain for a shell's completion, which may read and must write nothing: a
    local chain only while its cache answers as the log stands (else None: a replay
    would save it), a node as a query opens it."""
    if url is None and read_remote(home) is None:
        chain = _local_reader(home)
        return chain if chain.answers_from_cache() else None
    return open_reader(home, url=url, deadlines=deadlines)


def local_chain(home: Path, what: str, *, url: str | None = None) -> LocalControls:
    """The home's chain in a folder, for ``what`` only such a chain has (exit 2 on a
    node, exit 3 without a chain)."""
    if url is not None or read_remote(home) is not None:
        raise BadInput(f"{what} has no meaning on a node: it works on the local chain only")
    chain = _local_chain(home)
    chain.require()
    return chain


def new_local_chain(home: Path, *, force: bool) -> LocalControls:
    """A chain to create in the home (`c4 init`, the demo): refused, with nothing
    touched, where a chain or a binding exists and ``force`` is not given."""
    chain = _local_chain(home)
    chain.refuse_existing(force=force)
    bound = read_remote(home)
    if bound is not None:
        if not force:
            raise HomeInUse(f"{home} is bound to a node", would="make a local chain instead")
        leave(home, bound.chain_id, now=True)
        forget_remote(home)
        _trust_file(home).forget()
    return chain


def leave(home: Path, chain_id: str, *, now: bool) -> None:
    """The home leaves chain ``chain_id``: refused while a transaction it sent there is
    pending (:mod:`c4cli.home.journals`); ``now``: its journal set aside, and where it
    went said. Without ``now``, only the check, made before anything is written."""
    from c4cli.home import journals

    journals.check_leave(home, chain_id)
    if now:
        _kept_aside(journals.leave(home, chain_id), chain_id)


def _kept_aside(aside: Path | None, chain_id: str) -> None:
    """Say where the journal of the chain a home left went (when it had one)."""
    if aside is not None:
        warn_once(f"note: the journal of chain {chain_id!r} is kept as {aside}")


def has_binding(home: Path) -> bool:
    """Whether the home is bound to a node (`c4 init --remote`)."""
    return read_remote(home) is not None


def has_chain(home: Path) -> bool:
    """Whether the home holds a chain of either kind."""
    return read_remote(home) is not None or _local_chain(home).exists()


class Binding(NamedTuple):
    """A home just bound to a node: the binding written, the node's last block, and the
    validator set now trusted (with its fingerprint)."""

    remote: Remote
    head: Head
    trusted: TrustedSet | None  # None: --trust-node, the node's word
    fingerprint: str


def shown_url(url: str) -> str:
    """A node URL (or a home's comma-separated list) as c4 prints it: credentials and
    paths (where hosted RPCs put API keys) left out."""
    return ",".join(redact(part) for part in split_urls(url))


def bind(
    home: Path,
    url: str,
    realm_path: str,
    *,
    chain_id: str | None,
    force: bool,
    trust: str | None = None,
    trust_node: bool = False,
    deadlines: Deadlines = DEFAULT_DEADLINES,
) -> Binding:
    """`c4 init --remote URL`: bind the home to a node once it has answered, is the chain
    ``chain_id`` (when given) and holds the realm, and trust its validator set: the one
    at the block ``trust`` names (``HEIGHT:HASH``, from a source the user trusts), else
    the node's now (trust on first use); none with ``trust_node``, which the binding
    keeps: every command of the home then takes the node's word, and says so. Nothing
    is written before that."""
    if has_chain(home) and not force:
        bound = read_remote(home)
        if bound is not None:
            raise HomeInUse(
                f"{home} is bound to {shown_url(bound.url)} (chain {bound.chain_id})",
                would="bind it anew (what it sent stays in its journal)",
            )
        raise HomeInUse(f"a chain already exists in {home}", would="replace it")
    height, block_hash = trust_point(trust)
    node = _reader()(NodeSpec(url, realm_path, chain_id, deadlines=deadlines))
    head = node.head()  # the node answers, or exit 4 and nothing is written
    if chain_id is not None and node.chain_id != chain_id:
        raise BadInput(f"the node at {url} is not chain {chain_id!r}")
    urls = node.transport.urls
    for other in urls:  # several URLs: every one answers, for this chain
        if other != node.transport.url:
            _reader()(NodeSpec(other, realm_path, node.chain_id, deadlines=deadlines)).head()
    node.query(QFUNCS, realm_path)  # the realm is there, or the node says so (exit 1)
    before = read_remote(home)
    leaving = before is not None and before.chain_id != node.chain_id
    if before is not None and leaving:
        leave(home, before.chain_id, now=False)  # before anything is written
    source = f"--trust {height}:{block_hash}" if trust else "first use"
    trusted, fingerprint = None, ""
    if not trust_node:
        trusted, fingerprint = _trust_anew(
            node, height=height, block_hash=block_hash, source=source
        )
    remote = Remote(url, node.chain_id, realm_path, trust_node=trust_node)
    if before is not None and leaving:
        leave(home, before.chain_id, now=True)
    write_remote(home, remote)
    if trusted is None:
        _trust_file(home).forget()  # a set trusted for an earlier binding is not this one's
    else:
        _trust_file(home).save(trusted)
    return Binding(remote, head, trusted, fingerprint)


def trusted_set(home: Path) -> tuple[TrustedSet, str] | None:
    """The validator set the home trusts and its fingerprint (`c4 trust`); None when it
    trusts none (a local chain, a binding that takes the node's word)."""
    return _trust_file(home).fingerprinted()


def trust_own_node(
    home: Path, validators: list[Document], deadlines: Deadlines = DEFAULT_DEADLINES
) -> str:
    """`c4 node start`: the home trusts the validators of the genesis c4 wrote, once its
    node's last block verifies with them; the set's fingerprint."""
    remote = read_remote(home)
    assert remote is not None, "bound first"
    spec = NodeSpec(remote.url, remote.realm_path, remote.chain_id, deadlines=deadlines)
    node = _reader()(spec)
    trusted, fingerprint = _trust_anew(node, validators=validators, source="c4 node start")
    _trust_file(home).save(trusted)
    return fingerprint


def trust_point(trust: str | None) -> tuple[int, str]:
    """``--trust HEIGHT:HASH`` read: a block height and its hash, in 64 hex digits or in
    base64 as the node's RPC gives it (``block_id.hash``); the hash as hex."""
    if trust is None:
        return 0, ""
    height, _, block_hash = trust.partition(":")
    if re.fullmatch(r"[A-Za-z0-9+/]{43}=", block_hash):
        block_hash = base64.b64decode(block_hash).hex()
    if not (height.isascii() and height.isdigit() and len(height) < 19 and int(height) > 0):
        block_hash = ""
    if not re.fullmatch(r"[0-9A-Fa-f]{64}", block_hash):
        raise BadTrustPoint(trust)
    return int(height), block_hash.upper()


def _trust_anew(
    node: NodeReader,
    *,
    height: int = 0,
    block_hash: str = "",
    validators: list[Document] | None = None,
    source: str,
) -> tuple[TrustedSet, str]:
    """A validator set to trust from now on, and its fingerprint: the node's at
    ``height`` (0: its last block) held to ``block_hash`` if given, or ``validators``
    known beforehand; its block's commit verifies with it."""
    from c4cli.node.light import verify

    trusted = verify.establish(
        node.transport,
        node.chain_id,
        height=height,
        block_hash=block_hash,
        validators=validators,
        source=source,
    )
    return trusted, verify.fingerprint(trusted)


def _prover(home: Path) -> Prover:
    """What holds a command's node to the validators this home trusts, made only when a
    block, a height or a time is to be proven (a query loads none of it)."""

    def prove(transport: Transport) -> Verifier:
        from c4cli.node.light import verify

        return verify.Verifier(transport, _trust_file(home))

    return prove


HISTORY = "history"  # the folder of a node home's histories of its realm (`c4 sync`)


def history_path(home: Path, chain_id: str, realm_path: str) -> Path:
    """The file of the history of ``realm_path`` on chain ``chain_id`` in ``home``."""
    return home / HISTORY / file_name(chain_id) / f"{file_name(realm_path)}.sqlite"


def file_name(text: str) -> str:
    """A chain id or a realm path as a file name: its own letters where they are safe
    (a path's slashes as ``_``), its hex where they are not."""
    name = text.replace("/", "_")
    return name if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}", name) else text.encode().hex()


def _historian(home: Path, chain_id: str, realm_path: str) -> Historian:
    """What opens the home's history of the realm, when a command asks for it (`c4
    sync` makes one where there is none: :mod:`c4cli.client.history`)."""

    def open_history(reader: NodeReader) -> RealmHistory | None:
        path = history_path(home, chain_id, realm_path)
        if not path.exists():
            return None  # a query of a home that keeps no history loads none of it
        from c4cli.node.history import sync

        return sync.NodeHistory(reader, path, chain_id)

    return open_history


def _trust_file(home: Path) -> TrustFile:
    from c4cli.home import trust

    return trust.TrustFile(home)


def _open(
    kind: Callable[[], Callable[[NodeSpec], Client]],
    local: Callable[[Path], Local],
    home: Path,
    *,
    url: str | None,
    realm_path: str | None,
    chain_id: str | None,
    trust_node: bool = False,
    deadlines: Deadlines = DEFAULT_DEADLINES,
) -> Client | Local:
    """The node's client of ``kind`` (imported only if a node is named), else the
    home's own chain as ``local`` opens it; a home with neither is exit 3."""
    config = read_remote(home)
    if url is None and config is None:
        chain = local(home)
        chain.require()
        return chain
    if config is None:
        _dial(str(url))
        path = realm_path or DEFAULT_REALM_PATH
        return kind()(NodeSpec(str(url), path, chain_id, unbound=True, deadlines=deadlines))
    if realm_path is not None and realm_path != config.realm_path:
        raise BoundElsewhere(
            f"this home is bound to the realm {config.realm_path}", "realm_path", realm_path
        )
    if chain_id is not None and chain_id != config.chain_id:
        raise BoundElsewhere(
            f"this home is bound to chain {config.chain_id!r}", "chain_id", chain_id
        )
    _dial(config.url if url is None else url)
    from c4cli.home import journal as journals  # after the dial: off the network's path

    journal = journals.Journal(home)
    trust_node = trust_node or config.trust_node  # bound so (c4 --trust-node init --remote)
    # A home `c4 node start` made: a node that refuses the connection is most likely
    # stopped, and the command that starts it is the next step.
    own = url is None and (home / OWN_NODE).is_dir()
    return kind()(
        NodeSpec(
            config.url if url is None else url,
            config.realm_path,
            config.chain_id,
            journal=journal,
            seen_height=journal.seen_height(),
            down_hint="this home's node is not running: `c4 node start` starts it" if own else "",
            prover=None if trust_node else _prover(home),
            unproven=TRUST_NODE_WORD if trust_node else "",
            historian=_historian(home, config.chain_id, config.realm_path),
            deadlines=deadlines,
        )
    )


# Each backend is imported only when a home uses it: a node's client brings an HTTP
# stack (and, to send, signing and delivery), the local chain SQLite, TOML and the
# log's replay; neither needs the other.


def _local_chain(home: Path) -> LocalControls:
    from c4cli.local import chain as local

    return local.LocalChain(home)


def _local_reader(home: Path) -> LocalReader:
    """The local chain without its writing half (no transaction's type, no executor,
    no cheat): what a query needs."""
    from c4cli.local import reader

    return reader.LocalReader(home)


def _dial(url: str) -> None:
    """Begin connecting to the (first) node while the node client loads."""
    from c4cli.node.net import early

    early.dial(url)


def _sender() -> Callable[[NodeSpec], NodeChain]:
    """A node's whole client: reads, signing, simulation and delivery."""
    from c4cli.node import chain

    return chain.open_node


def _reader() -> Callable[[NodeSpec], NodeReader]:
    """A node's client without its sending half: what a query needs."""
    from c4cli.node import reader

    return reader.open_reader
