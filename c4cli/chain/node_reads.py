"""A gno.land node, read: the chain behind a URL, its head and times, queries, accounts.

tm2 JSON-RPC (``wire.md`` §4): ``status`` and ``block`` for the chain's head and
times, ``abci_query`` for every read (the realm's paths, ``auth/accounts``,
``bank/balances``, the gas price); ``tx``, a transaction by hash, is
:mod:`c4cli.chain.node_txs`. The first call of a command checks that the node is on
the home's chain and not behind it.
"""

from __future__ import annotations

import base64
import json
import time as wallclock
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from c4cli.chain import answers
from c4cli.chain.interface import Answer, Head, SentLog, Signer
from c4cli.chain.paths import GASPRICE, SIMULATE
from c4cli.chain.rpc import Rpc
from c4cli.errors import BadInput, Refused, Unreachable
from c4cli.escape import printable

T = TypeVar("T")
STATUS_FRESH = 0.5  # seconds a status answer stands for the head
LAG_WAIT = 3.0  # seconds a node behind this home's last transaction is waited for


class OtherChain(Unreachable):
    """A URL that leads to another chain: never skipped over, always refused."""


class Unusable(Unreachable):
    """A node of the right chain that cannot serve now (catching up, or behind what
    this home has seen): the next URL is asked, if the home has another."""


def split_urls(text: str) -> list[str]:
    """The RPC URLs of ``--remote``, ``$C4_REMOTE`` or config.toml: one, or several of
    one chain separated by commas.

    >>> split_urls("http://a:26657, http://b:26657")
    ['http://a:26657', 'http://b:26657']
    """
    return [url.strip() for url in text.split(",") if url.strip()]


class NodeReader(Rpc):
    """The chain at ``url`` (``http://127.0.0.1:26657``, ``https://rpc.gno.land:443``,
    gnokey's ``tcp://127.0.0.1:26657``), or at any of several URLs of one chain
    (``URL1,URL2``): the first that serves is used, and a command moves on to the
    next when it stops answering (a read is asked again there; a broadcast never is:
    its hash is looked up on every node instead).

    ``chain_id``, when given (the home's), is checked against the node's before
    anything is read or signed, and ``seen_height`` (the highest block this home
    saw a transaction land in) against its height: a URL that now leads to
    another chain, or to one rolled back, is refused in one line.
    """

    def __init__(
        self,
        url: str,
        *,
        realm_path: str,
        chain_id: str | None = None,
        timeout: float | None = None,
        journal: SentLog | None = None,
        seen_height: int = 0,
        unbound: bool = False,
    ) -> None:
        self.urls = split_urls(url) or [url]
        for other in self.urls[1:]:
            Rpc(other)  # every URL is checked now, not when the first one fails
        super().__init__(self.urls[0], timeout=timeout)
        self._tried: list[Unreachable] = []  # why the URLs left behind were left
        self._realm_path = realm_path
        self._chain_id = chain_id
        self._checked = False
        self._status: Any = None  # the last status answer, and when it came
        self._status_at = 0.0
        self.seen_height = seen_height
        # A node named for one command on a home not bound to it: read freely, sign
        # only for a chain id the user gave (--chain-id), never for what it claims.
        self.confirmed = not unbound or chain_id is not None
        self._expected_from = "--chain-id says" if unbound else "this home's config.toml says"
        self.journal = journal
        # Sign over the legacy payload: set once a node refused the current one.
        self.legacy_payload = False
        self._ahead: list[str] = []  # paths to ask along with the next read
        # Answers asked ahead (those paths', reads along with a landed block), by
        # (path, data): each serves the first query of it at the last block, once.
        self._asked: dict[tuple[str, bytes], Any] = {}
        self.takes_batches = False  # whether the node answered a batch as one, this command
        # The node's height when this command first checked the chain: a block that
        # existed before anything was sent, so nothing sent now can be in it or below.
        self.first_height = 0

    def rpc(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """One JSON-RPC call; the first of a command checks the chain behind the URL.

        A read that comes first travels in one request with the ``status`` that checks
        the chain (a JSON-RPC batch: one round trip, not two); its answer is believed
        only once the status has passed. A broadcast never rides along with a read:
        the chain is checked before its bytes leave, and it is sent to one node only
        (reads may ride after it: ``NodeDelivery._commit``)."""
        if method.startswith("broadcast"):
            if not self._checked:
                self._over_nodes(self._check_chain)
            return super().rpc(method, params, timeout=timeout)

        def attempt() -> Any:
            if self._checked:
                return Rpc.rpc(self, method, params, timeout=timeout)
            (answer,) = self._calls([(method, params)], timeout)
            if isinstance(answer, Unreachable):
                raise answer
            return answer

        return self._over_nodes(attempt)

    def _over_nodes(self, attempt: Callable[[], T]) -> T:
        """``attempt()`` on the node in use, and again on the next URL of the home's
        while one stops answering (or is of no use now); the last failure, with the
        others', when none is left."""
        while True:
            try:
                return attempt()
            except OtherChain:
                raise
            except Unreachable as problem:
                if len(self.urls) == 1 or answers.unknown_tx(str(problem)):
                    raise
                self._tried.append(problem)
                if len(self._tried) >= len(self.urls):
                    raise Unreachable(
                        "no node of this chain could serve: "
                        + "; ".join(str(p) for p in self._tried)
                    ) from None
                Rpc.__init__(self, self.urls[len(self._tried)], timeout=self.timeout)
                self._checked, self._status = False, None

    def calls(
        self, calls: list[tuple[str, dict[str, Any]]], *, timeout: float | None = None
    ) -> list[Any]:
        """Several reads in one request, with the chain's check on a command's first:
        each answer's ``result``, or the Unreachable it makes (returned: the caller
        raises the one it needs). One call at a time where the node takes no batch."""
        return self._over_nodes(lambda: self._calls(calls, timeout))

    def _calls(self, calls: list[tuple[str, dict[str, Any]]], timeout: float | None) -> list[Any]:
        check = not self._checked
        asked: list[tuple[str, dict[str, Any]]] = [("status", {})] if check else []
        found = self.batch(asked + calls, timeout=timeout)
        self.takes_batches = found is not None
        if found is None:
            if check:
                self._check_chain()
            return [self._alone(method, params, timeout) for method, params in calls]
        if check and self._check_chain(found[0]):
            return [self._alone(method, params, timeout) for method, params in calls]
        return found[len(asked) :]

    def _alone(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        try:
            return Rpc.rpc(self, method, params, timeout=timeout)
        except Unreachable as problem:
            return problem

    def ask_along(self, *paths: str) -> None:
        """Have the next read of the node also ask these paths (in the same request);
        their answers serve the first query of each, once."""
        self._ahead += [path for path in paths if path not in self._ahead]

    def _check_chain(self, status: Any = None) -> bool:
        """The node is on the home's chain, has caught up, and is not behind what this
        home has seen (``status``: its answer, when it came in a batch). True when it
        had to be waited for: what it answered along with that status is older than
        this home's last transaction, and is asked again."""
        self._checked = True
        waited = False
        try:
            if isinstance(status, Unreachable):
                raise status
            if status is None:
                status = Rpc.rpc(self, "status", {})
            network = answers.field(self.redacted, status, "node_info", "network")
            height = answers.field(self.redacted, status, "sync_info", "latest_block_height")
            if not isinstance(network, str) or not str(height).isdigit():
                raise Unreachable(f"{self.redacted} answered status in a shape it never has")
            catching_up = status["sync_info"].get("catching_up")  # a dict: read just above
        except Unreachable:
            self._checked = False
            raise
        if self._chain_id is not None and network != self._chain_id:
            raise OtherChain(
                f"{self.redacted} is on chain {printable(network)[:64]!r}, not {self._chain_id!r} "
                f"as {self._expected_from}: refused (another chain's answers are not this "
                "chain's)"
            )
        if catching_up is True:
            self._checked = False
            raise Unusable(
                f"{self.redacted} is still catching up with the chain (at height {height}): "
                "its answers would be old"
            )
        if int(height) < self.seen_height:
            status = self._caught_up(status, int(height))
            waited = True
        self._chain_id = network
        self._status, self._status_at = status, wallclock.monotonic()
        # The height read before any wait: lower is only more careful.
        self.first_height = self.first_height or int(height)
        return waited

    def _caught_up(self, status: Any, height: int) -> Any:
        """The status of a node behind this home's last landed transaction, once it has
        reached that block (read-your-writes: a transaction sent through another node
        is shown, or the node is passed over); it is given a moment to get there."""
        deadline = wallclock.monotonic() + min(LAG_WAIT, self.timeout)
        while height < self.seen_height and wallclock.monotonic() < deadline:
            wallclock.sleep(0.25)
            status = Rpc.rpc(self, "status", {})
            found = str(answers.field(self.redacted, status, "sync_info", "latest_block_height"))
            height = int(found) if found.isdigit() else -1
        if height < self.seen_height:
            self._checked = False
            raise Unusable(
                f"{self.redacted} is at height {height}, below height {self.seen_height} where "
                "this home saw a transaction land: the node is behind (or the chain was rolled "
                "back or replaced); refused"
            )
        return status

    # -- the Chain interface --------------------------------------------------------

    @property
    def realm_path(self) -> str:
        return self._realm_path

    @property
    def chain_id(self) -> str:
        if not self._checked:
            self._over_nodes(self._check_chain)
        assert self._chain_id is not None
        return self._chain_id

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
        if not self._checked:
            self._over_nodes(self._check_chain)
        # A status under half a second old serves again (a view reads the head more
        # than once); a wait for the next block asks once a second, so it never sees
        # an old one.
        status = self._status
        if status is None or wallclock.monotonic() - self._status_at >= STATUS_FRESH:
            status = self.rpc("status", {})
            self._status, self._status_at = status, wallclock.monotonic()
        height = str(answers.field(self.redacted, status, "sync_info", "latest_block_height"))
        if not height.isdigit() or len(height) > 18:
            raise Unreachable(f"{self.redacted} answered status in a shape it never has")
        moment = answers.unix_time(
            str(answers.field(self.redacted, status, "sync_info", "latest_block_time"))
        )
        return Head(int(height), moment)

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
        value, answered = self._abci(path, data.encode(), height)
        return Answer(answered, value.decode("utf-8", "replace"))

    def _abci(self, path: str, data: bytes, height: int = 0) -> tuple[bytes, int]:
        plain = not data and not height
        if not height and (path, data) in self._asked:
            result = self._asked.pop((path, data))
        elif self._ahead:
            extra = [p for p in self._ahead if p != path or not plain]
            self._ahead = []
            found = self.calls(
                [("abci_query", abci_params(path, data, height))]
                + [("abci_query", abci_params(p, b"", 0)) for p in extra]
            )
            self._asked.update(zip([(p, b"") for p in extra], found[1:], strict=True))
            result = found[0]
        else:
            result = self.rpc("abci_query", abci_params(path, data, height))
        return self._decoded(path, result)

    def queries(self, asked: Sequence[tuple[str, str]]) -> list[Answer]:
        """Several queries at the last block, in one request (one each where the node
        takes no batch); the first refusal or failure among them is raised."""
        found = self.calls(
            [("abci_query", abci_params(path, data.encode(), 0)) for path, data in asked]
        )
        answers = []
        for (path, _), result in zip(asked, found, strict=True):
            value, height = self._decoded(path, result)
            answers.append(Answer(height, value.decode("utf-8", "replace")))
        return answers

    def _decoded(self, path: str, result: Any) -> tuple[bytes, int]:
        """An abci_query's value and height, or the refusal or failure it carries."""
        if isinstance(result, Unreachable):
            raise result
        try:
            response = result["response"]
            base = response.get("ResponseBase", response)
            if base.get("Error"):
                raise Refused(answers.refusal(base))
            # A query's answer is its Data, which gnokey prints; a simulation may answer in
            # Value (never shown: c4 reads its gas from it).
            field = base.get("Data")
            if path == SIMULATE:
                field = field or response.get("Value")
            value = base64.b64decode(field or "")
            return value, int(response.get("Height") or 0)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise Unreachable(
                f"{self.redacted} answered abci_query {path} in a shape it never has"
            ) from None

    def block_with(self, height: int, reads: Sequence[tuple[str, str]] = ()) -> Any:
        """``block`` at ``height``; ``reads`` (queries as (path, data)) asked at the last
        block in the same request, each answer that came serving the first query of it.
        The node answers a batch's calls in order: they see at least that block.

        The reads are a saving, never a condition: when the request fails (a read
        held it past the timeout) or the block did not come with it, the block is
        asked alone, as it would have been without them."""
        block: Any = None
        if reads:
            try:
                found = self._calls([("block", {"height": str(height)}), *read_calls(reads)], None)
            except Unreachable:
                found = [None]
            block = None if isinstance(found[0], Unreachable) else found[0]
            if block is not None:
                self.keep_answers(reads, found[1:])
        return block if block is not None else self.rpc("block", {"height": str(height)})

    def keep_answers(self, reads: Sequence[tuple[str, str]], found: Sequence[Any]) -> None:
        """Keep what came for ``reads`` (queries as (path, data), asked ahead at the last
        block), each answer to serve the first query of it; a failed one is asked again."""
        for (path, data), answer in zip(reads, found, strict=False):
            if not isinstance(answer, Unreachable):
                self._asked[(path, data.encode())] = answer

    def answered(self, path: str, data: str) -> bool:
        """Whether an answer to this query, asked ahead, waits to serve it."""
        return (path, data.encode()) in self._asked

    def block_time(self, height: int) -> int:
        block = self.rpc("block", {"height": str(height)})
        return answers.unix_time(
            str(answers.field(self.redacted, block, "block", "header", "time"))
        )

    # -- accounts ---------------------------------------------------------------------

    @staticmethod
    def account_path(signer: Signer) -> str:
        """Where the node answers the numbers ``signer``'s signature covers."""
        return answers.account_path(signer.address, signer.session_addr)

    def account_numbers(self, signer: Signer) -> tuple[int, int]:
        """(account number, sequence) the signature must cover: the session's own when a
        session key signs."""
        path = self.account_path(signer)
        if signer.session_addr is not None:
            missing = f"session {signer.session_addr} not found for account {signer.address}"
        else:
            missing = f"unknown address: account {signer.address} does not exist"
        try:
            document = json.loads(self.query(path).data or "null")
        except Refused:
            raise Refused(missing) from None
        except ValueError:
            raise Unreachable(
                f"{self.redacted} answered {path} with something that is not JSON"
            ) from None
        try:
            found = answers.account_numbers(document)
        except ValueError:
            raise Unreachable(f"{self.redacted} answered {path} in a shape it never has") from None
        if found is None:
            raise Refused(missing)
        return found

    def gas_price(self) -> tuple[int, int]:
        """The node's gas price as (ugnot, per this much gas); (0, 1) when it asks none."""
        try:
            document = json.loads(self.query(GASPRICE).data or "null") or {}
            price = document.get("price") or {}
            if isinstance(price, str):  # strict, unlike coins.ugnot_in: it sets what is paid
                amount = int(price.removesuffix("ugnot") or 0) if price.endswith("ugnot") else 0
            else:
                amount = int(price.get("amount") or 0) if price.get("denom") == "ugnot" else 0
            gas = answers.int64(document.get("gas") or 1)
            if amount < 0 or gas < 0 or amount >= 2**63:
                raise ValueError("negative")
        except (ValueError, TypeError, AttributeError):
            raise Unreachable(f"{self.redacted} answered auth/gasprice with no price") from None
        return amount, max(gas, 1)


def read_calls(reads: Sequence[tuple[str, str]]) -> list[tuple[str, dict[str, Any]]]:
    """Queries as (path, data), as the ``abci_query`` calls that ask them at the last block."""
    return [("abci_query", abci_params(path, data.encode(), 0)) for path, data in reads]


def abci_params(path: str, data: bytes, height: int) -> dict[str, Any]:
    """``abci_query``'s parameters for a query of ``path`` with ``data`` at ``height``."""
    return {
        "path": path,
        "data": base64.b64encode(data).decode(),
        "height": str(height),
        "prove": False,
    }
