"""A gno.land node behind the :class:`~c4cli.chain.interface.Chain` interface.

The node client is composed, not stacked: a :class:`~c4cli.node.net.transport.Transport`
(URLs, failover, the chain check, deadlines, one kept connection per node), a
:class:`~c4cli.node.reader.NodeReader` that holds it, and a
:class:`~c4cli.node.sending.sender.Sender` that holds the reader and a
:class:`~c4cli.node.sending.delivery.Delivery` (which holds the journal). :class:`NodeChain`
answers the interface by handing each question to the part that owns it. A query
opens only the reader (:func:`open_reader`): nothing that signs is imported.
"""

from __future__ import annotations

from collections.abc import Sequence

from c4cli.chain.interface import (
    DEFAULT_POLICY,
    Answer,
    Build,
    GameCall,
    Head,
    ListedBlock,
    ListedTx,
    Receipt,
    SendPolicy,
    SentLog,
    Signer,
    ThenRead,
)
from c4cli.chain.listing import blocks_of
from c4cli.chain.trust import RealmHistory, Stored
from c4cli.node.net.transport import Link
from c4cli.node.reader import NodeReader, ProvenReads, open_reader
from c4cli.node.sending import lookup
from c4cli.node.sending.delivery import Delivery
from c4cli.node.sending.recheck import recheck
from c4cli.node.sending.sender import Sender
from c4cli.node.spec import NodeSpec
from c4cli.wire.msgs import Msg
from c4cli.wire.pubkeys import PubKey
from c4cli.wire.std import Fee, Tx


class NodeChain:
    """A node's chain for a command that may sign: reads by its reader, transactions
    by its sender, what this home sent by its journal."""

    def __init__(self, reader: NodeReader, sender: Sender, journal: SentLog | None) -> None:
        self.reader = reader
        self.sender = sender
        self.journal = journal

    # -- what the transport knows --------------------------------------------------------

    @property
    def url(self) -> str:
        return self.reader.transport.url

    @property
    def urls(self) -> list[str]:
        return self.reader.transport.urls

    # -- reads ---------------------------------------------------------------------------

    @property
    def realm_path(self) -> str:
        return self.reader.realm_path

    @property
    def chain_id(self) -> str:
        return self.reader.chain_id

    @property
    def exact_clock(self) -> bool:
        return self.reader.exact_clock

    @property
    def poll_interval(self) -> float:
        return self.reader.poll_interval

    @property
    def fills_in_fee(self) -> bool:
        return self.reader.fills_in_fee

    def head(self) -> Head:
        return self.reader.head()

    def realm_history(self) -> RealmHistory | None:
        return self.reader.realm_history()

    @property
    def proves(self) -> bool:
        return self.reader.proves

    def next_block_time(self, wall_clock: float) -> int:
        return self.reader.next_block_time(wall_clock)

    def chain_time(self, wall_clock: float) -> int:
        return self.reader.chain_time(wall_clock)

    def query(self, path: str, data: str = "", *, height: int = 0) -> Answer:
        return self.reader.query(path, data, height=height)

    def queries(self, asked: Sequence[tuple[str, str]]) -> list[Answer]:
        return self.reader.queries(asked)

    def stored(self, key: bytes, what: str, height: int = 0, *, after: int = 0) -> Stored | None:
        return self.reader.stored(key, what, height, after=after)

    def stored_with(
        self, key: bytes, what: str, paths: Sequence[str], height: int = 0, *, latest: bool = False
    ) -> tuple[Stored, list[Answer]] | None:
        return self.reader.stored_with(key, what, paths, height, latest=latest)

    def proven_reads(
        self, keys: Sequence[tuple[bytes, str]], queries: Sequence[tuple[str, str]], height: int = 0
    ) -> ProvenReads | None:
        return self.reader.proven_reads(keys, queries, height)

    @property
    def memo(self) -> dict[str, object]:
        return self.reader.memo

    @property
    def redacted(self) -> str:
        return self.reader.redacted

    # -- what this home sent, and any transaction by hash ----------------------------------

    def listing(self, first: int, last: int | None, tail: int | None) -> list[ListedBlock]:
        """What this home sent (its journal: a node lists no account's transactions), its
        pending transactions looked up first (see Delivery.settle_seen)."""
        self.sender.delivery.settle_seen()
        recheck(self.reader, self.journal)
        sent = [] if self.journal is None else self.journal.listed()
        return blocks_of(sent, first, last, tail)

    def listed_tx(self, tx_hash: str) -> tuple[ListedTx, bytes] | None:
        return lookup.listed_tx(self.reader, tx_hash)

    def game_calls(self, game_id: int) -> list[GameCall]:
        """The calls about the game this home sent and saw land (its journal): a node
        indexes transactions by hash only, so another client's are not to be had."""
        return [] if self.journal is None else self.journal.game_calls(game_id)

    # -- transactions ----------------------------------------------------------------------

    def submit(
        self,
        signer: Signer,
        build: Build,
        fee: Fee,
        memo: str,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
        then_read: ThenRead | None = None,
    ) -> Receipt:
        return self.sender.submit(signer, build, fee, memo, policy=policy, then_read=then_read)

    def broadcast(self, tx: Tx, *, policy: SendPolicy = DEFAULT_POLICY) -> Receipt:
        return self.sender.broadcast(tx, policy=policy)

    def unsigned_fee(
        self,
        msgs: list[Msg],
        fee: Fee,
        memo: str,
        pub_key: PubKey,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> Fee:
        return self.sender.unsigned_fee(msgs, fee, memo, pub_key, policy=policy)


def open_node(spec: NodeSpec, link: Link | None = None) -> NodeChain:
    """The whole client of the node ``spec`` names: reads, signing, delivery."""
    reader = open_reader(spec, link)
    delivery = Delivery(reader, spec.journal, block_deadline=spec.deadlines.block)
    return NodeChain(reader, Sender(reader, delivery), spec.journal)
