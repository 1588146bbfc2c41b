"""The way to a chain's node: its URLs, the chain check, deadlines, JSON-RPC calls.

A :class:`Transport` is one command's link to a chain through one URL or several
of the same chain (``URL1,URL2``): the first that serves is used, and the next
when it stops answering (a read is asked again there; a broadcast never is). Its
first request of a command checks that the node is on the home's chain, has
caught up, and is not behind what this home has seen; reads ride in that request
(a JSON-RPC batch). Every call has a deadline for its whole answer, and an answer
is believed only if it is the JSON-RPC answer to that very call.
"""

from __future__ import annotations

import json
import re
import time as wallclock
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from c4cli.errors import Unreachable
from c4cli.escape import printable
from c4cli.jsonvalue import JSON
from c4cli.node.net.answers import first_line
from c4cli.node.net.http import Connection, Exchange, Target
from c4cli.node.net.urls import split_urls
from c4cli.settings import READ_DEADLINE
from c4cli.wire.rpc import Method, ResultStatus

T = TypeVar("T")
STATUS_FRESH = 0.5  # seconds a status answer stands for the head
LAG_WAIT = 3.0  # seconds a node behind this home's last transaction is waited for

# How a transport reaches one node: the socket, or an in-process node in tests.
Link = Callable[[Target, str], Exchange]


class RpcCall(NamedTuple):
    """One JSON-RPC call: a batch is a list of them, answered in order."""

    method: Method
    params: Mapping[str, JSON]


class NodeSaid(Unreachable):
    """A node's JSON-RPC error; where c4 acts on what it means, one of the kinds below."""


class UnknownTx(NodeSaid):
    """The node has no transaction of the hash asked (or its index has not reached it)."""


class AlreadyHeld(NodeSaid):
    """The node's mempool holds these very bytes already."""


class MempoolRefused(NodeSaid):
    """The node's mempool will not take the bytes (it is full, or holds them)."""


class NoMethod(NodeSaid):
    """The node does not serve the method asked."""


class OtherChain(Unreachable):
    """A URL that leads to another chain: never skipped over, always refused."""


class TooLong(Unreachable):
    """A node's refusal of a batch longer than it takes: a read is asked in shorter."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the node takes at most {limit} calls a batch")
        self.limit = limit


class Unusable(Unreachable):
    """A node of the right chain that cannot serve now (catching up, or behind what
    this home has seen): the next URL is asked, if the home has another."""


# tm2's refusal of a batch longer than its max_batch_requests (1000 by default)
TOO_LONG = re.compile(r"batch of \d+ requests exceeds the limit of (\d+)")
METHOD_NOT_FOUND = -32601  # JSON-RPC 2.0's code for a method the server does not have


def _code(error: Any) -> object:
    return error.get("code") if isinstance(error, dict) else None


def _said(message: str, code: object) -> type[NodeSaid]:
    """What a node's JSON-RPC error means where c4 acts on it: tm2 gives these errors
    no code of their own, so their words are read here, at the edge, and nowhere else."""
    lowered = message.lower()
    if code == METHOD_NOT_FOUND:
        return NoMethod
    if "could not find tx" in lowered or "not found" in lowered:
        return UnknownTx
    if "already exists in cache" in lowered:
        return AlreadyHeld
    if "in the mempool" in lowered or "mempool is full" in lowered:
        return MempoolRefused
    return NodeSaid


def read_status(node: str, answer: object) -> ResultStatus:
    """A ``status`` answer read, or Unreachable naming the node."""
    if isinstance(answer, Unreachable):
        raise answer
    try:
        return ResultStatus.from_json(answer)
    except (KeyError, TypeError, ValueError):
        raise Unreachable(f"{node} answered status in a shape it never has") from None


class Transport:
    """JSON-RPC to the chain behind ``url`` for one command, over one kept connection
    per node. ``chain_id`` (the home's, when bound) is checked against the node's
    before anything is read or signed, and ``seen_height`` (the highest block this
    home saw a transaction land in) against its height."""

    def __init__(
        self,
        url: str,
        *,
        chain_id: str | None = None,
        timeout: float | None = None,
        seen_height: int = 0,
        unbound: bool = False,
        down_hint: str = "",
        link: Link | None = None,
    ) -> None:
        self.urls = split_urls(url) or [url]
        self._targets = [Target(one) for one in self.urls]  # every URL checked now
        self._link: Link = link or (lambda target, hint: _connection(target, hint))
        self._down_hint = down_hint
        self._at = 0
        self._tried: list[Unreachable] = []  # why the URLs left behind were left
        self._node = self._link(self._targets[0], down_hint)
        self.timeout = READ_DEADLINE if timeout is None else timeout
        self._id = 0
        self.chain_id = chain_id
        self.seen_height = seen_height
        # A node named for one command on a home not bound to it: read freely, sign
        # only for a chain id the user gave (--chain-id), never for what it claims.
        self.confirmed = not unbound or chain_id is not None
        self._expected_from = (
            "the chain id given for this command says"
            if unbound
            else "this home's config.toml says"
        )
        self.checked = False
        self._status: ResultStatus | None = None  # the last status, and when it came
        self._status_at = 0.0
        self.takes_batches = False  # whether the node answered a batch as one
        self.batch_limit = 0  # the most calls a node took in one batch, once it refused more
        # The node's height when this command first checked the chain: a block that
        # existed before anything was sent, so nothing sent now can be in it or below.
        self.first_height = 0

    @property
    def url(self) -> str:
        return self.urls[self._at]

    @property
    def redacted(self) -> str:
        return self._targets[self._at].redacted

    def close(self) -> None:
        self._node.close()

    # -- calls --------------------------------------------------------------------------

    def call(
        self, method: Method, params: Mapping[str, JSON], *, timeout: float | None = None
    ) -> Any:
        """One read; its ``result``. The command's first rides with the chain's check."""

        def attempt() -> Any:
            if self.checked:
                return self._one(RpcCall(method, params), timeout, replayable=True)
            (answer,) = self._calls([RpcCall(method, params)], timeout)
            if isinstance(answer, Unreachable):
                raise answer
            return answer

        return self.over_nodes(attempt)

    def calls(self, calls: Sequence[RpcCall], *, timeout: float | None = None) -> list[Any]:
        """Several reads in one request, with the chain's check on a command's first:
        each answer's ``result``, or the Unreachable it makes (returned: the caller
        raises the one it needs). One call at a time where the node takes no batch."""
        return self.over_nodes(lambda: self._calls(list(calls), timeout))

    def send(self, calls: Sequence[RpcCall], *, timeout: float) -> list[Any]:
        """A broadcast (the first call) and the reads that ride after it, to the node in
        use only, once: never asked again, on this node or another. Its answers as
        :meth:`calls` gives them; a lone call where the node takes no batch."""
        self.ensure_checked()
        if len(calls) == 1 or not self.takes_batches:
            return [self._one(calls[0], timeout, replayable=False)]
        found = self._batch(list(calls), timeout, replayable=False)
        if found is None:
            raise Unreachable(f"{self.redacted} answered {calls[0].method} in a shape it never has")
        return found

    def elsewhere(self, call: RpcCall, timeout: float | None) -> Any:
        """``call`` asked of the home's other nodes, each in turn; the first answer, or
        None when none answers it."""
        for at, target in enumerate(self._targets):
            if at == self._at:
                continue
            other = self._link(target, "")
            try:
                return self._one(call, timeout, replayable=True, node=other, shown=target.redacted)
            except Unreachable:
                continue
            finally:
                other.close()
        return None

    def over_nodes(self, attempt: Callable[[], T]) -> T:
        """``attempt()`` on the node in use, and again on the next URL of the home's
        while one stops answering (or is of no use now); the last failure, with the
        others', when none is left."""
        while True:
            try:
                return attempt()
            except OtherChain:
                raise
            except Unreachable as problem:
                if len(self.urls) == 1 or isinstance(problem, UnknownTx):
                    raise
                self._tried.append(problem)
                if len(self._tried) >= len(self.urls):
                    raise Unreachable(
                        "no node of this chain could serve: "
                        + "; ".join(str(p) for p in self._tried)
                    ) from None
                self._node.close()
                self._at = len(self._tried)
                self._node = self._link(self._targets[self._at], self._down_hint)
                self.checked, self._status = False, None

    def _calls(self, calls: list[RpcCall], timeout: float | None) -> list[Any]:
        check = not self.checked
        asked = [RpcCall(Method.STATUS, {})] if check else []
        try:
            if self.batch_limit and len(asked + calls) > self.batch_limit:
                raise TooLong(self.batch_limit)
            found = self._batch(asked + calls, timeout, replayable=True)
        except TooLong as refusal:
            self.batch_limit = refusal.limit
            return self._split(asked, calls, timeout)
        self.takes_batches = found is not None
        if found is None:
            if check:
                self.check()
            return [self._alone(call, timeout) for call in calls]
        if check and self.check(found[0]):
            return [self._alone(call, timeout) for call in calls]
        return found[len(asked) :]

    def _split(self, ask: list[RpcCall], calls: list[RpcCall], timeout: float | None) -> list[Any]:
        """``calls`` in batches the node takes (the chain's check, ``ask``, in the first)."""
        size, most = max(1, self.batch_limit - len(ask)), self.batch_limit
        parts = [calls[:size]] + [calls[p : p + most] for p in range(size, len(calls), most)]
        return [answer for part in parts for answer in self._calls(part, timeout)]

    def _alone(self, call: RpcCall, timeout: float | None) -> Any:
        try:
            return self._one(call, timeout, replayable=True)
        except Unreachable as problem:
            return problem

    def _one(
        self,
        call: RpcCall,
        timeout: float | None,
        *,
        replayable: bool,
        node: Exchange | None = None,
        shown: str | None = None,
    ) -> Any:
        self._id += 1
        request = {"jsonrpc": "2.0", "id": self._id, "method": call.method, "params": call.params}
        raw = (node or self._node).post(
            json.dumps(request).encode(), timeout or self.timeout, replayable=replayable
        )
        try:
            document = json.loads(raw)
        except ValueError:
            raise Unreachable(
                f"{shown or self.redacted} answered {call.method} with something that is not JSON"
            ) from None
        return self._result(call.method, document, self._id, shown)

    def _batch(
        self, calls: list[RpcCall], timeout: float | None, *, replayable: bool
    ) -> list[Any] | None:
        """Several calls in one request (tm2 answers a JSON array); their answers, each
        a ``result`` or the Unreachable its error makes. None when the node answers
        the batch with something else (a server or proxy without batches)."""
        first = self._id + 1
        self._id += len(calls)
        requests = [
            {"jsonrpc": "2.0", "id": first + n, "method": call.method, "params": call.params}
            for n, call in enumerate(calls)
        ]
        raw = self._node.post(
            json.dumps(requests).encode(), timeout or self.timeout, replayable=replayable
        )
        try:
            documents = json.loads(raw)
        except ValueError:
            return None
        if isinstance(documents, dict):
            said = TOO_LONG.search(json.dumps(documents.get("error")))
            if said and 0 < int(said[1]) < len(calls):
                raise TooLong(int(said[1]))
        if not isinstance(documents, list) or len(documents) != len(calls):
            return None
        by_id = {doc.get("id"): doc for doc in documents if isinstance(doc, dict)}
        out: list[Any] = []
        for n, call in enumerate(calls):
            try:
                out.append(self._result(call.method, by_id.get(first + n), first + n))
            except Unreachable as problem:
                out.append(problem)
        return out

    def _result(self, method: Method, document: Any, wanted: int, shown: str | None = None) -> Any:
        """The ``result`` of the answer to call ``wanted``, or Unreachable in one line."""
        node = shown or self.redacted
        if not isinstance(document, dict) or document.get("id") != wanted:
            raise Unreachable(f"{node} answered {method} with another call's answer")
        error = document.get("error")
        if error:
            message = (
                error.get("data") or error.get("message") if isinstance(error, dict) else error
            )
            text = str(message)
            raise _said(text, _code(error))(f"{node}: {method}: {first_line(text)[:300]}")
        if "result" not in document:
            raise Unreachable(f"{node} answered {method} without a result")
        return document["result"]

    # -- the chain behind the URL ------------------------------------------------------

    def check(self, status: Any = None) -> bool:
        """The node is on the home's chain, has caught up, and is not behind what this
        home has seen (``status``: its answer, when it came in a batch). True when it
        had to be waited for: what it answered along with that status is older than
        this home's last transaction, and is asked again."""
        self.checked = True
        waited = False
        try:
            if status is None:
                status = self._one(RpcCall(Method.STATUS, {}), None, replayable=True)
            said = read_status(self.redacted, status)
        except Unreachable:
            self.checked = False
            raise
        if self.chain_id is not None and said.network != self.chain_id:
            raise OtherChain(
                f"{self.redacted} is on chain {printable(said.network)[:64]!r}, not "
                f"{self.chain_id!r} as {self._expected_from}: refused (another chain's "
                "answers are not this chain's)"
            )
        if said.catching_up:
            self.checked = False
            raise Unusable(
                f"{self.redacted} is still catching up with the chain (at height "
                f"{said.latest_block_height}): its answers would be old"
            )
        height = said.latest_block_height
        if height < self.seen_height:
            said = self._caught_up(said)
            waited = True
        self.chain_id = said.network
        self._status, self._status_at = said, wallclock.monotonic()
        # The height read before any wait: lower is only more careful.
        self.first_height = self.first_height or height
        return waited

    def _caught_up(self, said: ResultStatus) -> ResultStatus:
        """A node's status once it reached this home's last transaction's block."""
        deadline = wallclock.monotonic() + min(LAG_WAIT, self.timeout)
        while said.latest_block_height < self.seen_height and wallclock.monotonic() < deadline:
            wallclock.sleep(0.25)
            said = read_status(
                self.redacted, self._one(RpcCall(Method.STATUS, {}), None, replayable=True)
            )
        if said.latest_block_height < self.seen_height:
            self.checked = False
            raise Unusable(
                f"{self.redacted} is at height {said.latest_block_height}, below height "
                f"{self.seen_height} "
                "where this home saw a transaction land: the node is behind (or the chain was "
                "rolled back or replaced); refused"
            )
        return said

    def ensure_checked(self) -> None:
        """The chain behind the URL checked, once a command (the next URL if need be)."""
        if not self.checked:
            self.over_nodes(self.check)

    def saw(self, height: int) -> None:
        """This command saw one of its transactions land in block ``height``: a node below
        it is behind what this home knows (read-your-writes), the one in use included,
        unless its last status reached it."""
        if height <= self.seen_height:
            return
        self.seen_height = height
        known = self._status.latest_block_height if self._status is not None else 0
        if known < height:
            self.checked = False

    @property
    def status_height(self) -> int:
        """The node's last block as its last status said (0: none asked yet)."""
        return self._status.latest_block_height if self._status is not None else 0

    @property
    def fresh_status_height(self) -> int:
        """:attr:`status_height` while it stands for the head (STATUS_FRESH), else 0."""
        if self._status is None or wallclock.monotonic() - self._status_at >= STATUS_FRESH:
            return 0
        return self._status.latest_block_height

    def status(self) -> ResultStatus:
        """The node's status: the one the check read, while under half a second old (a
        view reads the head more than once), else asked again."""
        self.ensure_checked()
        if self._status is None or wallclock.monotonic() - self._status_at >= STATUS_FRESH:
            self._status = read_status(self.redacted, self.call(Method.STATUS, {}))
            self._status_at = wallclock.monotonic()
        return self._status

    def checked_chain_id(self) -> str:
        """The chain id, the chain checked first if it was not yet."""
        self.ensure_checked()
        assert self.chain_id is not None
        return self.chain_id


def _connection(target: Target, down_hint: str) -> Exchange:
    connection = Connection(target)
    connection.down_hint = down_hint
    return connection
