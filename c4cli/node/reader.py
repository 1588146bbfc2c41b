"""A gno.land node, read: its head and times, queries, accounts, the gas price.

tm2 JSON-RPC: ``status`` and ``block`` for the chain's head and
times, ``abci_query`` for every read (the realm's paths, ``auth/accounts``,
``bank/balances``, the gas price). A :class:`NodeReader` holds the command's
:class:`~c4cli.node.net.transport.Transport`; what a transaction asks ahead of its
build travels in an :class:`Ahead`, a value of that one transaction.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from c4cli.chain.interface import Answer, Head, Signer
from c4cli.errors import BadInput, Refused, SessionNotFound, UnknownAccount, Unreachable
from c4cli.node.net import answers, rpc
from c4cli.node.net.rpc import Ask, Replies, Rpc
from c4cli.node.net.transport import Link, Transport
from c4cli.node.spec import Historian, NodeSpec, Prover
from c4cli.wire import results
from c4cli.wire.fields import int64
from c4cli.wire.paths import GASPRICE, SIMULATE
from c4cli.wire.rpc import ResultABCIQuery, ResultBlock, ResultCommit

if TYPE_CHECKING:
    from c4cli.chain.trust import RealmHistory, Stored
    from c4cli.node.light.verify import Verifier

Query = tuple[str, str]  # (path, data), asked at the last block


class Numbers(NamedTuple):
    """An account's (or a session's) number and sequence as a node says them, and a
    block it had made when it said them (their state is that block's or a later one's)."""

    number: int
    sequence: int
    height: int


class ProvenReads(NamedTuple):
    """Values of the main store proven after one block, the node's answers to queries
    at its last block (or its refusals), and the time of the block after the one
    proven (whose header proves them)."""

    stored: list[Stored]
    answers: list[Answer | Refused]
    time: int


METAS = 20  # tm2's ``blockchain`` answers at most 20 block metas
CALLS = 10  # calls in one request (a JSON-RPC batch)


def open_reader(spec: NodeSpec, link: Link | None = None) -> NodeReader:
    """The client of the node ``spec`` names for a command that only reads: nothing
    that signs, simulates or delivers is imported."""
    transport = Transport(
        spec.url,
        chain_id=spec.chain_id,
        timeout=spec.deadlines.read,
        seen_height=spec.seen_height,
        unbound=spec.unbound,
        down_hint=spec.down_hint,
        link=link,
    )
    return NodeReader(transport, spec.realm_path, spec.prover, spec.unproven, spec.historian)


class NodeReader:
    """The chain a transport leads to, as a query sees it (the ChainReader interface)."""

    def __init__(
        self,
        transport: Transport,
        realm_path: str,
        prover: Prover | None = None,
        unproven: str = "",
        historian: Historian | None = None,
    ) -> None:
        self.transport = transport
        self.rpc = Rpc(transport)
        self._realm_path = realm_path
        self._prover = prover
        self._verifier: Verifier | None = None
        self.unproven = unproven
        self._historian = historian
        self._history: RealmHistory | None = None
        self.memo: dict[str, object] = {}  # what a command's reads keep for the run

    def realm_history(self) -> RealmHistory | None:
        """The home's history of the realm, from blocks proven by its validators; None
        where the node's word is taken (no prover), or the home keeps none (`c4 sync`
        begins it). Opening it proves nothing yet: it loads no verifier."""
        if self._history is None and self._historian is not None and self._prover is not None:
            self._history = self._historian(self)
        return self._history

    @property
    def proves(self) -> bool:
        """Whether this node's blocks are held to the home's validators (not its word)."""
        return self._prover is not None

    @property
    def verifier(self) -> Verifier | None:
        """What holds blocks, heights and times to the home's validators, made at its
        first use (a query proves nothing: it never loads the verifier and its ed25519);
        None: the node's word, for the reason ``unproven`` says (every receipt says it)."""
        if self._verifier is None and self._prover is not None:
            self._verifier = self._prover(self.transport)
        return self._verifier

    @property
    def redacted(self) -> str:
        return self.transport.redacted

    @property
    def realm_path(self) -> str:
        return self._realm_path

    @property
    def chain_id(self) -> str:
        return self.transport.checked_chain_id()

    @property
    def exact_clock(self) -> bool:
        return False

    @property
    def poll_interval(self) -> float:
        return 1.0  # a node makes a block a second at most: ask it once a second

    @property
    def fills_in_fee(self) -> bool:
        return True

    def head(self) -> Head:
        """The chain's last block: its header proven by the trusted validators' signatures
        (a height or a time a node cannot prove is refused), else the node's status."""
        if self.verifier is not None:
            proven = self.verifier.latest()
            return Head(proven.height, proven.time)
        status = self.transport.status()
        return Head(status.latest_block_height, status.latest_block_time.seconds)

    def next_block_time(self, wall_clock: float) -> int:
        """A node stamps its next block about now, and always after its last one."""
        return max(int(wall_clock), self.head().time + 1)

    def chain_time(self, wall_clock: float) -> int:
        return max(int(wall_clock), self.head().time)

    def query(self, path: str, data: str = "", *, height: int = 0) -> Answer:
        if height < 0:
            raise BadInput(f"invalid height {height}: a block height is 0 (the last) or more")
        # The height the node says it answered at, as gnokey shows it (gno.land's query
        # handlers answer 0 for a past height).
        result = self.rpc.ask(rpc.abci_query(path, data.encode(), height))
        return self.answer(path, result)

    def raw_query(self, path: str, data: bytes) -> bytes:
        """A query whose data is bytes (a simulation's transaction): the value's bytes."""
        return decoded(path, self.rpc.ask(rpc.abci_query(path, data)))[0]

    def queries(self, asked: Sequence[Query]) -> list[Answer]:
        """Several queries at the last block, in one request (one each where the node
        takes no batch); the first refusal or failure among them is raised."""
        calls = read_calls(asked)
        found = self.rpc.batch(calls)
        return [self.answer(path, found[ask]) for (path, _), ask in zip(asked, calls, strict=True)]

    def answer(self, path: str, result: ResultABCIQuery | Unreachable) -> Answer:
        """The Answer in an ``abci_query`` result (or the refusal or failure it carries)."""
        value, height = decoded(path, result)
        return Answer(height, value.decode("utf-8", "replace"))

    def block(self, height: int) -> ResultBlock:
        return self.rpc.block(height)

    def block_with(
        self, height: int, reads: Sequence[Query]
    ) -> tuple[ResultBlock, ResultCommit | None, list[ResultABCIQuery | Unreachable]]:
        """``block`` at ``height``, its ``commit`` when blocks are verified (else None),
        and ``reads`` asked at the last block, all in one request (each read's answer a
        result, or the Unreachable it made). The node answers a batch's calls in
        order: the reads see at least that block.

        The reads are a saving, never a condition: when the request fails (a read
        held it past the timeout) or the block did not come with it, the block (and
        its commit) are asked again without them."""
        block, commit = rpc.block(height), rpc.commit(height)
        asked: list[Ask[object]] = [block, commit] if self.verifier is not None else [block]
        if reads:
            calls = read_calls(reads)
            try:
                found: Replies | None = self.rpc.batch([*asked, *calls])
            except Unreachable:
                found = None
            if found is not None and not isinstance(found.get(block), Unreachable):
                return found[block], _value(found, commit, asked), [found.get(c) for c in calls]
        if len(asked) == 1:
            return self.block(height), None, []
        replies = self.rpc.batch(asked)
        return replies[block], _value(replies, commit, asked), []

    def block_time(self, height: int) -> int:
        """Block ``height``'s time: its proven header's where blocks are verified."""
        if self.verifier is not None:
            return self.verifier.at(height).time
        return self.block(height).block.header.time.seconds

    def stored(self, key: bytes, what: str, height: int = 0, *, after: int = 0) -> Stored | None:
        """The main store's value at ``key``, proven (node/light/store.py); None where
        the node's word is taken."""
        verifier = self.verifier
        return None if verifier is None else verifier.stored(key, what, height, after=after)

    def stored_with(
        self, key: bytes, what: str, paths: Sequence[str], height: int = 0, *, latest: bool = False
    ) -> tuple[Stored, list[Answer]] | None:
        """:meth:`stored`, and the node's answers to ``paths`` at the block proven (then,
        with ``latest``, at its last block), asked in the proof's request; None where
        the node's word is taken."""
        verifier = self.verifier
        if verifier is None:
            return None
        proven, found = verifier.stored_with(key, what, paths, height, latest=latest)
        asked = [*paths, *paths] if latest else paths
        return proven, [
            self.answer(path, result) for path, result in zip(asked, found, strict=True)
        ]

    def proven_reads(
        self, keys: Sequence[tuple[bytes, str]], queries: Sequence[Query], height: int = 0
    ) -> ProvenReads | None:
        """Each of ``keys`` (a key, what names it) proven after one block, and the node's
        answers to ``queries`` at its last block (gno v1.7.1 answers a realm's
        ``vm/qeval`` from the realm's latest state whatever height is asked), in one
        request; None where the node's word is taken."""
        verifier = self.verifier
        if verifier is None:
            return None
        encoded = [(path, data.encode()) for path, data in queries]
        found = verifier.stored_all(keys, encoded, height)
        answers: list[Answer | Refused] = []
        for (path, _), result in zip(queries, found.answers, strict=True):
            try:
                answers.append(self.answer(path, result))
            except Refused as refused:  # the asker decides what a refusal means
                answers.append(refused)
        return ProvenReads(found.stored, answers, found.header.time.seconds)

    def ahead(self, *paths: str) -> Ahead:
        """A reader for one transaction's build whose first query also asks ``paths``."""
        return Ahead(self, paths)

    # -- accounts and prices --------------------------------------------------------------

    def account_numbers(self, signer: Signer, answer: Answer | None = None) -> Numbers:
        """The account number and sequence the signature must cover, as the node says
        them: the session's own when a session key signs (``answer``: the account's
        query, asked ahead)."""
        path = account_path(signer)
        missing: Refused = (
            UnknownAccount(signer.address)
            if signer.session_addr is None
            else SessionNotFound(signer.session_addr, signer.address)
        )
        try:
            answer = answer or self.query(path)
            document = json.loads(answer.data or "null")
        except Refused:
            raise missing from None
        except ValueError:
            raise Unreachable(
                f"{self.redacted} answered {path} with something that is not JSON"
            ) from None
        try:
            found = results.account_numbers(document)
        except ValueError:
            raise Unreachable(f"{self.redacted} answered {path} in a shape it never has") from None
        if found is None:
            raise missing
        # tm2 dates no answer of a custom query asked at the last block (its height is 0):
        # the node's last block as its status said, before this answer, dates it.
        return Numbers(*found, answer.height or self.transport.status_height)

    def gas_price(self, answer: Answer | None = None) -> tuple[int, int]:
        """The node's gas price as (ugnot, per this much gas); (0, 1) when it asks none."""
        try:
            document = json.loads((answer or self.query(GASPRICE)).data or "null") or {}
            price = document.get("price") or {}
            if isinstance(price, str):  # strict, unlike coins.ugnot_in: it sets what is paid
                amount = int(price.removesuffix("ugnot") or 0) if price.endswith("ugnot") else 0
            else:
                amount = int(price.get("amount") or 0) if price.get("denom") == "ugnot" else 0
            gas = int64(document.get("gas") or 1)
            if amount < 0 or gas < 0 or amount >= 2**63:
                raise ValueError("negative")
        except (ValueError, TypeError, AttributeError):
            raise Unreachable(f"{self.redacted} answered auth/gasprice with no price") from None
        return amount, max(gas, 1)


class Ahead:
    """The chain as one transaction's build reads it: its first query also asks the
    paths the sender will need next (the account's numbers, the gas price), in the
    same request; their answers are kept here for :meth:`take`, once each."""

    def __init__(self, reader: NodeReader, paths: Sequence[str]) -> None:
        self.reader = reader
        self._waiting = list(dict.fromkeys(paths))
        self._kept: dict[str, Answer] = {}

    @property
    def realm_path(self) -> str:
        return self.reader.realm_path

    def next_block_time(self, wall_clock: float) -> int:
        return self.reader.next_block_time(wall_clock)

    def query(self, path: str, data: str = "", *, height: int = 0) -> Answer:
        if not self._waiting or height:
            return self.reader.query(path, data, height=height)
        extra = [p for p in self._waiting if p != path or data]
        self._waiting = []
        asked = read_calls([(path, data), *((p, "") for p in extra)])
        found = self.reader.rpc.batch(asked)
        self._keep(extra, [found.get(ask) for ask in asked[1:]])
        answer = self.reader.answer(path, found.get(asked[0]))
        if not data:
            self._kept.setdefault(path, answer)
        return answer

    def _keep(self, paths: Sequence[str], found: Sequence[ResultABCIQuery | Unreachable]) -> None:
        for path, result in zip(paths, found, strict=True):
            # A refusal or a failure is not kept: the sender asks again, and words it.
            with contextlib.suppress(Refused, Unreachable):
                self._kept[path] = self.reader.answer(path, result)

    def take(self, path: str) -> Answer | None:
        """The answer to ``path`` asked ahead, once; None when it did not come. A build
        that read nothing: every path still waiting is asked now, in one request."""
        if path in self._waiting:
            waiting, self._waiting = self._waiting, []
            asked = read_calls([(p, "") for p in waiting])
            found = self.reader.rpc.batch(asked)
            self._keep(waiting, [found.get(ask) for ask in asked])
        return self._kept.pop(path, None)


def _value(
    replies: Replies, commit: Ask[ResultCommit], asked: Sequence[object]
) -> ResultCommit | None:
    """The commit that came in a batch, if it was asked and came (else it is asked again)."""
    if commit not in asked:
        return None
    found = replies.get(commit)
    return None if isinstance(found, Unreachable) else found


def account_path(signer: Signer) -> str:
    """Where the node answers the numbers ``signer``'s signature covers."""
    return results.account_path(signer.address, signer.session_addr)


def decoded(path: str, result: ResultABCIQuery | Unreachable) -> tuple[bytes, int]:
    """An abci_query's value and height, or the refusal or failure it carries."""
    if isinstance(result, Unreachable):
        raise result
    found = result.response
    if found.refused:
        kind = found.error.type_url if found.error is not None else ""
        raise Refused(answers.refusal(found.error, found.log), kind=kind)
    # A query's answer is its Data, which gnokey prints; a simulation may answer in
    # Value (never shown: c4 reads its gas from it).
    return (found.data or found.value if path == SIMULATE else found.data), found.height


def read_calls(reads: Sequence[Query]) -> list[Ask[ResultABCIQuery]]:
    """Queries as (path, data), as the ``abci_query`` calls that ask them at the last block."""
    return [rpc.abci_query(path, data.encode()) for path, data in reads]
