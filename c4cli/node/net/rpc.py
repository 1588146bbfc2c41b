"""The node client's typed RPC: each tm2 method asked by name in one place, its answer
read once into the wire's values (:mod:`c4cli.wire.rpc`).

An :class:`Ask` is one call and how its result is read; :class:`Rpc` asks one, or
several in one request (:meth:`Rpc.batch`, :meth:`Rpc.send`), and gives each answer
as its value: a result a node never sends in that shape is one line (Unreachable,
exit 4) naming the node and the method. The :class:`~c4cli.node.net.transport.Transport`
under it moves the calls and their JSON, and knows no method but the chain's check.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from c4cli.errors import Unreachable
from c4cli.jsonvalue import JSON, Document
from c4cli.node.net.transport import NodeSaid, RpcCall, Transport
from c4cli.wire.rpc import (
    Method,
    ResultABCIQuery,
    ResultBlock,
    ResultBlockchain,
    ResultBlockResults,
    ResultBroadcastTxCommit,
    ResultCommit,
    ResultStatus,
    ResultTx,
    ResultValidators,
)

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
SHAPES = (KeyError, TypeError, ValueError, AttributeError)


class Malformed(Unreachable):
    """An answer in a shape the node never sends (exit 4, as any answer c4 cannot use)."""


class Ask(Generic[T_co]):
    """One call, and how its result is read into a value. Each ask is its own: a batch
    finds its answer by the ask itself (a plain class: ``dataclasses`` costs a command
    its import, c4cli/records.py)."""

    __slots__ = ("call", "read")

    def __init__(self, call: RpcCall, read: Callable[[Any], T_co]) -> None:
        self.call = call
        self.read = read

    def value(self, node: str, answer: object) -> T_co:
        """The call's answer (its result, or the Unreachable it made) as its value."""
        if isinstance(answer, Unreachable):
            raise answer
        try:
            return self.read(answer)
        except SHAPES:
            raise Malformed(f"{node} answered {self.call.method} in a shape it never has") from None


def _height(height: int) -> Document:
    return {"height": str(height)} if height else {}


def status() -> Ask[ResultStatus]:
    return Ask(RpcCall(Method.STATUS, {}), ResultStatus.from_json)


def commit(height: int = 0) -> Ask[ResultCommit]:
    """Block ``height``'s header and commit (0: the last block's)."""
    return Ask(RpcCall(Method.COMMIT, _height(height)), ResultCommit.from_json)


def block(height: int) -> Ask[ResultBlock]:
    return Ask(RpcCall(Method.BLOCK, _height(height)), ResultBlock.from_json)


def blockchain(low: int, high: int) -> Ask[ResultBlockchain]:
    """The metas of blocks ``low`` to ``high`` (tm2 gives 20 at most, highest first)."""
    params = {"minHeight": str(low), "maxHeight": str(high)}
    return Ask(RpcCall(Method.BLOCKCHAIN, params), ResultBlockchain.from_json)


def block_results(height: int) -> Ask[ResultBlockResults]:
    return Ask(RpcCall(Method.BLOCK_RESULTS, _height(height)), ResultBlockResults.from_json)


def validators(height: int) -> Ask[ResultValidators]:
    return Ask(RpcCall(Method.VALIDATORS, _height(height)), ResultValidators.from_json)


def tx(tx_id: str) -> Ask[ResultTx]:
    """A transaction by its hash (base64, as tm2 names one)."""
    return Ask(RpcCall(Method.TX, {"hash": tx_id}), ResultTx.from_json)


def abci_query(
    path: str, data: bytes = b"", height: int = 0, *, prove: bool = False
) -> Ask[ResultABCIQuery]:
    """A query at ``height`` (0: the last block's); tm2 takes its data as base64."""
    encoded = base64.b64encode(data).decode()
    params: dict[str, JSON] = {"path": path, "data": encoded, "height": str(height), "prove": prove}
    return Ask(RpcCall(Method.ABCI_QUERY, params), ResultABCIQuery.from_json)


def broadcast_tx_commit(raw: bytes) -> Ask[ResultBroadcastTxCommit]:
    params = {"tx": base64.b64encode(raw).decode()}
    return Ask(RpcCall(Method.BROADCAST_TX_COMMIT, params), ResultBroadcastTxCommit.from_json)


class Replies:
    """The answers of one request, each read as its ask's value when taken."""

    def __init__(self, node: str, asks: Sequence[Ask[Any]], answers: Sequence[object]) -> None:
        self._node = node
        self._answers = {id(ask): answer for ask, answer in zip(asks, answers, strict=True)}

    def __len__(self) -> int:
        return len(self._answers)

    def __getitem__(self, ask: Ask[T]) -> T:
        """``ask``'s value, or the Unreachable its answer made (raised)."""
        return ask.value(self._node, self._answers[id(ask)])

    def get(self, ask: Ask[T]) -> T | Unreachable:
        """``ask``'s value, or the Unreachable its answer made (returned)."""
        try:
            return self[ask]
        except Unreachable as problem:
            return problem


class Rpc:
    """tm2's RPC over one command's transport, typed."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    @property
    def redacted(self) -> str:
        return self.transport.redacted

    def ask(self, ask: Ask[T], *, timeout: float | None = None) -> T:
        """One read, as its value (the command's first rides with the chain's check)."""
        return ask.value(self.redacted, self.transport.call(*ask.call, timeout=timeout))

    def batch(self, asks: Sequence[Ask[Any]], *, timeout: float | None = None) -> Replies:
        """Several reads in one request (fewer where the node takes fewer); one alone is
        asked as one call, not a batch. A failure of the request is raised; a node's
        error for one call is that call's answer (raised when it is taken)."""
        found: list[object]
        if not asks:  # nothing to ask: no request (an empty batch is a round trip)
            return Replies(self.redacted, asks, [])
        if len(asks) == 1:
            try:
                found = [self.transport.call(*asks[0].call, timeout=timeout)]
            except NodeSaid as said:
                found = [said]
        else:
            found = self.transport.calls([ask.call for ask in asks], timeout=timeout)
        return Replies(self.redacted, asks, found)

    def send(self, asks: Sequence[Ask[Any]], *, timeout: float) -> Replies:
        """A broadcast (the first ask) and the reads riding after it, asked once, of the
        node in use only (:meth:`Transport.send`)."""
        found = self.transport.send([ask.call for ask in asks], timeout=timeout)
        return Replies(self.redacted, asks[: len(found)], found)

    def status(self) -> ResultStatus:
        return self.ask(status())

    def commit(self, height: int = 0) -> ResultCommit:
        return self.ask(commit(height))

    def block(self, height: int) -> ResultBlock:
        return self.ask(block(height))

    def block_results(self, height: int) -> ResultBlockResults:
        return self.ask(block_results(height))

    def validators(self, height: int) -> ResultValidators:
        return self.ask(validators(height))

    def blockchain(self, low: int, high: int) -> ResultBlockchain:
        return self.ask(blockchain(low, high))

    def tx(self, tx_id: str, *, timeout: float | None = None) -> ResultTx:
        return self.ask(tx(tx_id), timeout=timeout)

    def abci_query(self, path: str, data: bytes, height: int = 0) -> ResultABCIQuery:
        return self.ask(abci_query(path, data, height))
