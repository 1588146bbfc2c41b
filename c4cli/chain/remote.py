"""A gno.land node behind the :class:`~c4cli.chain.interface.Chain` interface.

tm2 JSON-RPC over HTTP (``wire.md`` §4): ``abci_query`` for every read,
``broadcast_tx_commit`` to send, ``tx`` to look a transaction up by hash,
``status`` and ``block`` for the chain's head and times. Every call has a
deadline for the whole answer, not only for each read of the socket, and an
answer is believed only if it is the JSON-RPC answer to that very call:
anything else (a proxy's HTML page, cut JSON, another id, a body of many
megabytes) is one line naming the node and exit 4, never a traceback.

A transaction is never sent twice: when a broadcast's answer is lost, the
node is asked for the transaction by its hash before anything else happens.
"""

from __future__ import annotations

import base64
import json
import math
import time as wallclock
from typing import Any
from urllib.parse import urlsplit

from c4cli import outbox
from c4cli.chain.interface import (
    DEFAULT_POLICY,
    Answer,
    Build,
    GameCall,
    Head,
    Receipt,
    SendPolicy,
    SentLog,
    Signer,
    TxOutcome,
)
from c4cli.coins import ugnot_in
from c4cli.errors import BadInput, HomeDamaged, Refused, Unreachable, warn_once
from c4cli.escape import printable

TIMEOUT = 10.0  # seconds for a whole answer to a read ($C4_TIMEOUT overrides)
BROADCAST_TIMEOUT = 60.0  # broadcast_tx_commit waits for the block
MAX_ANSWER = 16 * 1024 * 1024
GAS_MARGIN = 1.2  # gas wanted = simulated gas used x this (gnokey's default margin is similar)
SIMULATION_GAS = 100_000_000  # the most a simulation may use
LOOKUPS = 10  # times a lost broadcast is looked up by hash, a second apart


def unix_time(rfc3339: str) -> int:
    """Whole seconds of a tm2 time (``2026-01-01T00:00:05.123456789Z``), as the realm reads it."""
    from datetime import datetime

    whole = rfc3339.strip().rstrip("Z").split(".")[0]
    try:
        return int(datetime.fromisoformat(whole + "+00:00").timestamp())
    except (ValueError, OverflowError):
        raise Unreachable(f"the node answered a time that is not one: {rfc3339[:40]!r}") from None


class RefusedInBlock(Refused):
    """The realm or the VM refused a transaction that is in a block: it paid its fee."""


def redact(url: str) -> str:
    """A node URL as c4 shows it: scheme, host and port only. Credentials (``user:pass@``)
    and a path (where hosted RPC providers put API keys) are never printed.

    >>> redact("https://me:secret@rpc.example.com/v1/KEY123")
    'https://rpc.example.com/…'
    >>> redact("127.0.0.1:26657")
    'http://127.0.0.1:26657'
    """
    parts = urlsplit(url if "://" in url else f"http://{url}")
    scheme = "http" if parts.scheme == "tcp" else parts.scheme
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    path = "/…" if parts.path.strip("/") or parts.query else ""
    return f"{scheme}://{host}{port}{path}"


class NodeChain:
    """The chain at ``url`` (``http://127.0.0.1:26657``, ``https://rpc.gno.land:443``,
    gnokey's ``tcp://127.0.0.1:26657``).

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
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme == "tcp":
            parts = parts._replace(scheme="http")
        try:
            parts.port  # noqa: B018 (a port that is not a number raises here, not mid-call)
        except ValueError:
            parts = parts._replace(scheme="")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            shown = redact(url) if "@" in url else url
            raise BadInput(f"invalid node URL {shown!r}: use http://HOST:PORT or https://HOST")
        self.url = url
        self.redacted = redact(url)
        self._parts = parts
        self._realm_path = realm_path
        self._chain_id = chain_id
        self._checked = False
        self._status: Any = None
        self.seen_height = seen_height
        # A node named for one command on a home not bound to it: read freely, sign
        # only for a chain id the user gave (--chain-id), never for what it claims.
        self.confirmed = not unbound or chain_id is not None
        self._expected_from = "--chain-id says" if unbound else "this home's config.toml says"
        self.journal = journal
        self.timeout = timeout if timeout is not None else _timeout()
        self._id = 0
        self._headers = {"Content-Type": "application/json"}
        if parts.username is not None:
            from urllib.parse import unquote

            login = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            self._headers["Authorization"] = "Basic " + base64.b64encode(login.encode()).decode()

    # -- JSON-RPC -----------------------------------------------------------------

    def _post(self, body: bytes, timeout: float) -> bytes:
        """POST one request; the answer's bytes, read within ``timeout`` seconds in all.

        The exchange runs in a helper thread so that the deadline holds for the whole
        answer, status line and headers included: a server that trickles its headers
        a byte at a time is cut off at the deadline like one that never answers.
        """
        import threading

        box: dict[str, Any] = {}
        connection = self._connection(timeout)
        deadline = wallclock.monotonic() + timeout

        def exchange() -> None:
            try:
                box["answer"] = self._exchange(connection, body, deadline, timeout)
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc

        worker = threading.Thread(target=exchange, daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            _hang_up(connection)
            raise Unreachable(f"{self.redacted} did not answer within {timeout:g} s")
        if "error" in box:
            raise box["error"]
        answer: bytes = box["answer"]
        return answer

    def _connection(self, timeout: float) -> Any:
        import http.client

        parts = self._parts
        if parts.scheme == "https":
            return http.client.HTTPSConnection(
                parts.hostname or "", parts.port or 443, timeout=timeout
            )
        return http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=timeout)

    def _exchange(self, connection: Any, body: bytes, deadline: float, timeout: float) -> bytes:
        import http.client

        try:
            connection.request("POST", self._parts.path or "/", body, self._headers)
            response = connection.getresponse()
            if response.status != 200:
                raise Unreachable(
                    f"{self.redacted} answered HTTP {response.status} "
                    f"{_first_line(str(response.reason))[:80]}"
                )
            chunks: list[bytes] = []
            size = 0
            while True:
                left = deadline - wallclock.monotonic()
                if left <= 0:
                    raise Unreachable(
                        f"{self.redacted} did not finish answering within {timeout:g} s"
                    )
                if connection.sock is not None:
                    connection.sock.settimeout(left)
                chunk = response.read1(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_ANSWER:
                    raise Unreachable(f"{self.redacted} answered more than {MAX_ANSWER >> 20} MiB")
                chunks.append(chunk)
            return b"".join(chunks)
        except TimeoutError:
            raise Unreachable(f"{self.redacted} did not answer within {timeout:g} s") from None
        except (OSError, http.client.HTTPException, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise Unreachable(f"cannot reach the chain at {self.redacted}: {reason}") from None
        finally:
            connection.close()

    def rpc(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """One JSON-RPC call; its ``result``, or Unreachable with one line.

        The first call of a command checks the chain behind the URL (see the class).
        """
        if not self._checked and method != "status":
            self._check_chain()
        self._id += 1
        request = {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}
        raw = self._post(json.dumps(request).encode(), timeout or self.timeout)
        try:
            document = json.loads(raw)
        except ValueError:
            raise Unreachable(
                f"{self.redacted} answered {method} with something that is not JSON"
            ) from None
        if not isinstance(document, dict) or document.get("id") != self._id:
            raise Unreachable(f"{self.redacted} answered {method} with another call's answer")
        error = document.get("error")
        if error:
            message = (
                error.get("data") or error.get("message") if isinstance(error, dict) else error
            )
            raise Unreachable(f"{self.redacted}: {method}: {_first_line(str(message))[:300]}")
        if "result" not in document:
            raise Unreachable(f"{self.redacted} answered {method} without a result")
        return document["result"]

    def _check_chain(self) -> None:
        """The node is on the home's chain, and not behind what this home has seen."""
        self._checked = True
        status = self.rpc("status", {})
        network = _field(self, status, "node_info", "network")
        height = _field(self, status, "sync_info", "latest_block_height")
        if not isinstance(network, str) or not str(height).isdigit():
            raise Unreachable(f"{self.redacted} answered status in a shape it never has")
        if self._chain_id is not None and network != self._chain_id:
            raise Unreachable(
                f"{self.redacted} is on chain {printable(network)[:64]!r}, not {self._chain_id!r} "
                f"as {self._expected_from}: refused (another chain's answers are not this "
                "chain's)"
            )
        if int(height) < self.seen_height:
            raise Unreachable(
                f"{self.redacted} is at height {height}, below height {self.seen_height} where "
                "this home saw a transaction land: the chain was rolled back or replaced, "
                "or the node is still catching up; refused"
            )
        self._chain_id = network
        self._status = status

    # -- the Chain interface --------------------------------------------------------

    @property
    def realm_path(self) -> str:
        return self._realm_path

    @property
    def chain_id(self) -> str:
        if not self._checked:
            self._check_chain()
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
            self._check_chain()
        status, self._status = self._status, None  # the check's own answer, once
        if status is None:
            status = self.rpc("status", {})
        height = str(_field(self, status, "sync_info", "latest_block_height"))
        if not height.isdigit() or len(height) > 18:
            raise Unreachable(f"{self.redacted} answered status in a shape it never has")
        moment = unix_time(str(_field(self, status, "sync_info", "latest_block_time")))
        return Head(int(height), moment)

    def next_block_time(self, wall_clock: float) -> int:
        """A node stamps its next block about now, and always after its last one."""
        return max(int(wall_clock), self.head().time + 1)

    def chain_time(self, wall_clock: float) -> int:
        return max(int(wall_clock), self.head().time)

    def query(self, path: str, data: str = "") -> Answer:
        value, height = self._abci(path, data.encode())
        return Answer(height, value.decode("utf-8", "replace"))

    def _abci(self, path: str, data: bytes) -> tuple[bytes, int]:
        params = {
            "path": path,
            "data": base64.b64encode(data).decode(),
            "height": "0",
            "prove": False,
        }
        result = self.rpc("abci_query", params)
        try:
            response = result["response"]
            base = response.get("ResponseBase", response)
            if base.get("Error"):
                raise Refused(_refusal(base))
            value = base64.b64decode(base.get("Data") or response.get("Value") or "")
            return value, int(response.get("Height") or 0)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise Unreachable(
                f"{self.redacted} answered abci_query {path} in a shape it never has"
            ) from None

    def block_time(self, height: int) -> int:
        block = self.rpc("block", {"height": str(height)})
        return unix_time(str(_field(self, block, "block", "header", "time")))

    # -- accounts ---------------------------------------------------------------------

    def account_numbers(self, signer: Signer) -> tuple[int, int]:
        """(account number, sequence) the signature must cover: the session's own when a
        session key signs."""
        if signer.session_addr is not None:
            path = f"auth/accounts/{signer.address}/session/{signer.session_addr}"
            missing = f"session {signer.session_addr} not found for account {signer.address}"
        else:
            path = f"auth/accounts/{signer.address}"
            missing = f"unknown address: account {signer.address} does not exist"
        try:
            document = json.loads(self.query(path).data or "null")
        except Refused:
            raise Refused(missing) from None
        except ValueError:
            raise Unreachable(
                f"{self.redacted} answered {path} with something that is not JSON"
            ) from None
        if not document:
            raise Refused(missing)
        base = document
        for wrapper in ("BaseSessionAccount", "BaseAccount"):
            if isinstance(base, dict) and wrapper in base:
                base = base[wrapper]
        try:
            return int(base.get("account_number") or 0), int(base.get("sequence") or 0)
        except (AttributeError, TypeError, ValueError):
            raise Unreachable(f"{self.redacted} answered {path} in a shape it never has") from None

    def gas_price(self) -> tuple[int, int]:
        """The node's gas price as (ugnot, per this much gas); (0, 1) when it asks none."""
        try:
            document = json.loads(self.query("auth/gasprice").data or "null") or {}
            price = document.get("price") or {}
            if isinstance(price, str):
                amount = int(price.removesuffix("ugnot") or 0) if price.endswith("ugnot") else 0
            else:
                amount = int(price.get("amount") or 0) if price.get("denom") == "ugnot" else 0
            gas = _int64(document.get("gas") or 1)
            if amount < 0 or gas < 0 or amount >= 2**63:
                raise ValueError("negative")
        except (ValueError, TypeError, AttributeError):
            raise Unreachable(f"{self.redacted} answered auth/gasprice with no price") from None
        return amount, max(gas, 1)

    # -- sending ----------------------------------------------------------------------

    def simulate(self, tx_bytes: bytes) -> int:
        """The gas a transaction would use (``.app/simulate``); a refusal raises Refused."""
        value, _ = self._abci(".app/simulate", tx_bytes)
        result = _decode_result(value)
        if result.get("error"):
            raise Refused(str(result.get("log") or "the simulation failed"))
        return int(result.get("gas_used", 0))

    def submit(
        self,
        signer: Signer,
        build: Build,
        fee: dict[str, str],
        memo: str,
        *,
        policy: SendPolicy = DEFAULT_POLICY,
    ) -> Receipt:
        """Sign for the account's number and sequence on the node, broadcast, wait for the block.

        Before anything is signed, transactions this home sent for the same account
        whose fate is unknown are settled (:meth:`reconcile`). ``fee`` with an empty
        ``gas_wanted`` asks for simulation: the gas wanted is the simulated gas plus a
        margin, and the fee what the node's gas price asks for it, refused above
        ``policy.fee_cap``. With the gas given, the transaction is still simulated
        first unless ``policy.simulate`` is ``skip``, so a call the realm refuses costs
        nothing. A sequence another client used first is fetched again, and the
        transaction signed and sent once more, once.
        """
        if not self.confirmed:
            raise BadInput(
                f"{self.redacted} is not the node this home is bound to: pass --chain-id "
                f"{self.chain_id} (the chain it reports) to sign for that chain"
            )
        self.reconcile(signer)
        msgs = build(self)
        try:
            return self._send(signer, msgs, fee, memo, policy)
        except RefusedInBlock:
            raise  # it landed and paid its fee: never signed and sent again
        except Refused as refused:
            if not _sequence_taken(str(refused)):
                raise
        return self._send(signer, msgs, fee, memo, policy)  # with the sequence as it is now

    def _send(
        self,
        signer: Signer,
        msgs: list[Any],
        fee: dict[str, str],
        memo: str,
        policy: SendPolicy,
    ) -> Receipt:
        from c4cli.chain.amino import encode_tx

        number, sequence = self.account_numbers(signer)
        chosen = fee
        if not fee.get("gas_wanted"):
            chosen, gas_used = self._estimate(signer, msgs, fee, memo, number, sequence, policy)
            tx = self._sign(signer, msgs, chosen, memo, number, sequence)
        else:
            tx = self._sign(signer, msgs, chosen, memo, number, sequence)
            gas_used = 0
            if policy.simulate != "skip":
                gas_used = self.simulate(encode_tx(tx))
        if policy.simulate == "only":
            return self._simulated(signer, tx, gas_used)
        return self._broadcast(signer, tx, sequence)

    def _simulated(self, signer: Signer, tx: dict[str, Any], gas_used: int) -> Receipt:
        """What a simulation says, as a receipt that was never sent (height 0)."""
        from c4cli.chain.amino import tx_hash
        from c4cli.chain.tx import msg_names

        result = TxOutcome(tx, tx_hash(tx), signer.address, funcs=tuple(msg_names(tx)))
        return Receipt(height=0, time=0, result=result, gas_used=gas_used, simulated=True)

    def _sign(
        self,
        signer: Signer,
        msgs: list[Any],
        fee: dict[str, str],
        memo: str,
        number: int,
        sequence: int,
    ) -> dict[str, Any]:
        from c4cli.chain.tx import signed_tx

        return signed_tx(
            msgs,
            fee,
            memo,
            private_key=signer.private_key,
            chain_id=self.chain_id,
            account_number=number,
            sequence=sequence,
            session_addr=signer.session_addr,
        )

    def _estimate(
        self,
        signer: Signer,
        msgs: list[Any],
        fee: dict[str, str],
        memo: str,
        number: int,
        sequence: int,
        policy: SendPolicy,
    ) -> tuple[dict[str, str], int]:
        """The fee to sign (the gas the simulation used plus a margin, and what the
        node's gas price asks for it, bounded), and the gas the simulation used."""
        from c4cli.chain.amino import encode_tx
        from c4cli.chain.tx import fee as make_fee

        trial = make_fee(SIMULATION_GAS, fee.get("gas_fee") or "1ugnot")
        used = self.simulate(encode_tx(self._sign(signer, msgs, trial, memo, number, sequence)))
        wanted = math.ceil(used * GAS_MARGIN)
        if fee.get("gas_fee"):
            return make_fee(wanted, fee["gas_fee"]), used
        amount, per = self.gas_price()
        asked = max(math.ceil(wanted * amount / per), 1)
        if asked > policy.fee_cap:
            from c4cli.coins import gnot

            raise BadInput(
                f"the node asks a fee of {asked}ugnot ({wanted} gas at {amount}ugnot per "
                f"{per} gas), above the {gnot(policy.fee_cap)} c4 pays without being told; "
                "nothing was signed: pass --gas-fee to pay it, or raise --fee-cap"
            )
        return make_fee(wanted, f"{asked}ugnot"), used

    def _broadcast(self, signer: Signer, tx: dict[str, Any], sequence: int) -> Receipt:
        """Send a signed transaction and wait for its block.

        The journal holds it as pending before the bytes leave, and the outbox says
        "sent" from then on: whatever happens next (a lost answer, a signal, a
        crash) it is never reported as not recorded, and never sent twice.
        """
        from c4cli.chain.amino import encode_tx, tx_hash

        raw = encode_tx(tx)
        tx_id = tx_hash(tx)
        if self.journal is not None:
            self.journal.pending(tx, raw, tx_id, signer, sequence)
        outbox.sending(tx_id)
        return self._deliver(signer, tx, raw, tx_id)

    def _deliver(self, signer: Signer, tx: dict[str, Any], raw: bytes, tx_id: str) -> Receipt:
        """broadcast_tx_commit of bytes already journaled as pending, and the receipt."""
        try:
            answer = self.rpc(
                "broadcast_tx_commit",
                {"tx": base64.b64encode(raw).decode()},
                timeout=max(BROADCAST_TIMEOUT, self.timeout),
            )
        except Unreachable as lost:
            # The node may have the transaction even though its answer never came:
            # find it by hash before saying anything, and never send it again.
            return self._find_or_pending(signer, tx, tx_id, str(lost))
        try:
            check = answer["check_tx"].get("ResponseBase", answer["check_tx"])
            refusal = _refusal(check) if check.get("Error") else None
            deliver = answer["deliver_tx"]
            height = int(answer["height"])
            answered_hash = _hash_text(answer.get("hash"))
        except (KeyError, TypeError, AttributeError, ValueError):
            return self._find_or_pending(
                signer,
                tx,
                tx_id,
                f"{self.redacted} answered broadcast_tx_commit in a shape it never has",
            )
        if refusal is not None:
            # Refused by the ante handler: not in the mempool, never in a block (the
            # node's word: reported as such, but no secret is deleted on it).
            outbox.denied(tx_id)
            if self.journal is not None:
                self.journal.dropped(tx_id, f"refused before a block: {refusal}")
            raise Refused(refusal)
        if answered_hash != tx_id or height <= 0:
            # Not this transaction's answer (a proxy's invention, another tx's): ask
            # the node about ours instead of believing it.
            return self._find_or_pending(
                signer,
                tx,
                tx_id,
                f"{self.redacted} answered the broadcast with another "
                f"transaction's result (hash {answered_hash or '-'}, height {height})",
            )
        return self._landed(signer, tx, tx_id, {"tx_result": deliver}, height)

    def _find_or_pending(self, signer: Signer, tx: dict[str, Any], tx_id: str, why: str) -> Receipt:
        found = self._look_up(tx_id)
        if found is None:
            raise Unreachable(
                f"{why}; the transaction was sent (TX HASH {tx_id}) and is not yet seen in a "
                f"block: `c4 tx {tx_id}` tells, and the next transaction of this account "
                "settles it first"
            )
        try:
            height = int(found["height"])
        except (KeyError, TypeError, ValueError):
            raise Unreachable(f"{self.redacted} answered tx {tx_id} without a height") from None
        return self._landed(signer, tx, tx_id, found, height)

    def _look_up(self, tx_id: str) -> dict[str, Any] | None:
        """The transaction by hash, asked until the deadline ($C4_TIMEOUT) passes."""
        deadline = wallclock.monotonic() + self.timeout
        while True:
            try:
                found = self.transaction(tx_id, timeout=max(deadline - wallclock.monotonic(), 0.1))
            except Unreachable:
                found = None
            if found is not None:
                return found
            if wallclock.monotonic() + 1 > deadline:
                return None
            wallclock.sleep(1)

    def reconcile(self, signer: Signer) -> None:
        """Settle what this home sent for ``signer``'s account and has not seen land.

        Each pending transaction is looked up by hash. Found: journaled as landed
        (or refused). Not found, and the account's sequence has moved past it:
        another transaction took its place, it can never land (dropped). Not found
        and its sequence still free: the very same bytes are sent again (the same
        hash: it can land once at most) and awaited; still nowhere, this command
        signs nothing (exit 4) rather than risk paying twice.
        """
        if self.journal is None:
            return
        for entry in self.journal.unsettled(signer.address, signer.session_addr):
            tx_id = str(entry["hash"])
            found = self.transaction(tx_id)
            if found is None:
                _, sequence = self.account_numbers(signer)
                if sequence > int(entry.get("sequence", 0)):
                    found = self.transaction(tx_id)  # it may have just been indexed
                    if found is None:
                        self.journal.dropped(tx_id, "another transaction took its sequence")
                        warn_once(f"note: transaction {tx_id}, sent earlier, never landed")
                        continue
            tx = entry.get("signed")
            if not isinstance(tx, dict):
                raise HomeDamaged(f"{self.journal.path}: pending {tx_id} lacks its transaction")
            try:
                if found is None:
                    raw = base64.b64decode(str(entry.get("tx", "")))
                    receipt = self._resend(signer, tx, raw, tx_id)
                else:
                    receipt = self._landed(signer, tx, tx_id, found, int(found["height"]))
            except Refused as refused:
                outbox.forget(tx_id)
                warn_once(f"note: transaction {tx_id}, sent earlier, {refused}")
                continue
            except (KeyError, TypeError, ValueError):
                raise Unreachable(f"{self.redacted} answered tx {tx_id} without a height") from None
            outbox.forget(tx_id)
            warn_once(f"note: transaction {tx_id}, sent earlier, landed at height {receipt.height}")

    def _resend(self, signer: Signer, tx: dict[str, Any], raw: bytes, tx_id: str) -> Receipt:
        """The same bytes once more, for a pending transaction the node does not have."""
        outbox.sending(tx_id)
        try:
            return self._deliver(signer, tx, raw, tx_id)
        except Unreachable as exc:
            if "already exists in cache" in str(exc) or "in the mempool" in str(exc):
                return self._find_or_pending(signer, tx, tx_id, "it is in the node's mempool")
            raise Unreachable(
                f"transaction {tx_id}, sent earlier, is still not in a block and nothing new "
                f"was signed ({exc}); try again later"
            ) from None

    def _landed(
        self, signer: Signer, tx: dict[str, Any], tx_id: str, found: dict[str, Any], height: int
    ) -> Receipt:
        """The receipt of a transaction in block ``height``, checked against that block,
        journaled; a refusal by the realm or the VM raises Refused saying what it cost."""
        receipt, error = self._receipt(signer, tx, tx_id, found, height)
        outbox.landed(tx_id, height)
        fee = str(tx.get("fee", {}).get("gas_fee") or "0ugnot")
        if self.journal is not None:
            self.journal.landed(receipt, fee=fee, error=error)
        if error:
            raise RefusedInBlock(
                f"{error}; the transaction landed in block {height} (TX HASH {tx_id}) and "
                f"paid its fee of {fee}"
            )
        return receipt

    def _transfers(self, events: list[Any]) -> list[tuple[str, int]]:
        """Who was paid what, from the bank's transfer events: everything but the coins
        sent into the realm (stakes), as the local chain's receipts list payouts."""
        from c4cli.address import package_address

        realm = package_address(self.realm_path)
        return [
            (str(event.get("to")), ugnot_in(str(event.get("coins", ""))))
            for event in events
            if isinstance(event, dict)
            and event.get("@type") == "/bank.TransferEvent"
            and event.get("to") != realm
        ]

    def listing(self, first: int, last: int | None, tail: int | None) -> list[dict[str, Any]]:
        """What this home sent (its journal): a node lists no account's transactions."""
        from c4cli.chain.listing import journal_blocks

        entries = [] if self.journal is None else self.journal.entries()
        return journal_blocks(entries, first, last, tail)

    def listed_tx(self, tx_hash: str) -> tuple[dict[str, Any], bytes] | None:
        """The node's record of any transaction, checked against its hash, with the
        journal's where this home sent it."""
        import hashlib

        from c4cli.chain.clock import format_time
        from c4cli.chain.listing import node_tx

        found = self.transaction(tx_hash)
        if found is None:
            return None
        try:
            raw = base64.b64decode(str(found["tx"]), validate=True)
            height = _int64(found["height"])
            base, data, events = _delivered(found)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise Unreachable(
                f"{self.redacted} answered tx {tx_hash} in a shape it never has"
            ) from None
        if base64.b64encode(hashlib.sha256(raw).digest()).decode() != tx_hash:
            raise Unreachable(f"{self.redacted} answered tx {tx_hash} with another transaction")
        error = _refusal(base) if base.get("Error") else ""
        values = [value for value, _ in _values(data)]
        transfers = [] if error else self._transfers(events)
        journal = [] if self.journal is None else self.journal.entries()
        sent = next((entry for entry in journal if entry.get("hash") == tx_hash), None)
        doc = node_tx(found, format_time(self.block_time(height)), (values, transfers, error), sent)
        doc.update(hash=tx_hash, height=height, tx=None)
        return doc, raw

    def game_calls(self, game_id: int) -> list[GameCall]:
        """The calls about the game this home sent and saw land (its journal): a node
        indexes transactions by hash only, so another client's are not to be had."""
        if self.journal is None:
            return []
        return self.journal.game_calls(game_id)

    def transaction(self, tx_id: str, *, timeout: float | None = None) -> dict[str, Any] | None:
        """A transaction by hash, as the node's ``tx`` gives it; None if it has none."""
        try:
            found = self.rpc("tx", {"hash": tx_id}, timeout=timeout)
        except Unreachable as exc:
            if _unknown_tx(str(exc)):
                return None
            raise
        if not isinstance(found, dict):
            raise Unreachable(f"{self.redacted} answered tx {tx_id} in a shape it never has")
        return found

    def _block_holding(self, height: int, raw: bytes) -> int:
        """Block ``height``'s time, once it is seen to hold ``raw``: a broadcast's answer
        is believed only if the block it names has the transaction in it."""
        block = self.rpc("block", {"height": str(height)})
        txs = _field(self, block, "block", "data", "txs")
        if not isinstance(txs, list) or base64.b64encode(raw).decode() not in txs:
            raise Unreachable(
                f"{self.redacted} said the transaction is in block {height}, "
                "but that block does not hold it"
            )
        return unix_time(str(_field(self, block, "block", "header", "time")))

    def _receipt(
        self, signer: Signer, tx: dict[str, Any], tx_id: str, found: dict[str, Any], height: int
    ) -> tuple[Receipt, str]:
        """The receipt of a transaction found in a block, and the refusal's words if the
        realm or the VM refused it there ("" if not)."""
        from c4cli.chain.amino import encode_tx
        from c4cli.chain.tx import msg_names

        try:
            base, data, events = _delivered(found)
            gas_used = _int64(found["tx_result"].get("GasUsed") or 0)
        except (KeyError, TypeError, AttributeError, ValueError):
            raise Unreachable(
                f"{self.redacted} answered with a transaction in a shape it never has"
            ) from None
        time = self._block_holding(height, encode_tx(tx))
        error = _refusal(base) if base.get("Error") else ""
        result = TxOutcome(
            tx,
            tx_id,
            signer.address,
            funcs=tuple(msg_names(tx)),
            values=tuple(_values(data)),
            data=data,
            transfers=() if error else tuple(self._transfers(events)),
        )
        receipt = Receipt(
            height=height,
            time=time,
            result=result,
            gas_used=gas_used,
            events=json.dumps(events, separators=(",", ":")),
            info=str(base.get("Info") or ""),
        )
        return receipt, error


def _delivered(found: dict[str, Any]) -> tuple[dict[str, Any], str, list[Any]]:
    """A node's ``tx`` answer's deliver result: its base, its data as text, its events
    (KeyError, TypeError, AttributeError or ValueError for a shape it never has)."""
    deliver = found["tx_result"]
    base: dict[str, Any] = deliver.get("ResponseBase", deliver)
    data = base64.b64decode(base.get("Data") or "").decode("utf-8", "replace")
    events = base.get("Events") or []
    if not isinstance(events, list):
        raise TypeError("events")
    return base, data, events


def _hang_up(connection: Any) -> None:
    """Stop an exchange that ran past its deadline: its thread's read ends at once."""
    import contextlib
    import socket

    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _int64(value: Any) -> int:
    """An int64 of a node's answer (a JSON string or number), refused outside int64."""
    number = int(str(value))
    if not -(2**63) <= number < 2**63:
        raise ValueError("outside int64")
    return number


def _hash_text(value: Any) -> str:
    """A hash as a node's JSON gives it: base64 of the bytes (tm2's []byte)."""
    return value if isinstance(value, str) else ""


def _timeout() -> float:
    import os

    text = os.environ.get("C4_TIMEOUT", "")
    try:
        value = float(text) if text else TIMEOUT
    except ValueError:
        raise BadInput(f"invalid $C4_TIMEOUT {text!r}: a number of seconds") from None
    if not 0 < value <= 3600:
        raise BadInput(f"invalid $C4_TIMEOUT {text!r}: from a fraction of a second to 3600")
    return value


def _field(chain: NodeChain, document: Any, *path: str) -> Any:
    value = document
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise Unreachable(f"{chain.redacted} answered without {'.'.join(path)}")
        value = value[key]
    return value


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _refusal(base: dict[str, Any]) -> str:
    """The node's words for a refusal: a realm panic's own text, else the log's first line."""
    error = base.get("Error")
    if isinstance(error, dict) and error.get("@type") == "/abci.StringError":
        return str(error.get("value"))
    log = str(base.get("Log") or "")
    if "--= Error =--" in log:
        # tm2's error report (after "msg:0,success:false,log:" in a simulation's): the
        # message is on the first trace line, after " - ".
        for line in log.split("--= Error =--", 1)[1].splitlines():
            number, _, rest = line.strip().partition(" ")
            if number.isdigit() and " - " in rest:
                return rest.split(" - ", 1)[1].strip()
    return _first_line(log.split("\nstack:", 1)[0].removeprefix("recovered: ")) or "refused"


def _unknown_tx(message: str) -> bool:
    """The node's answer to ``tx`` for a hash it has no transaction for."""
    lowered = message.lower()
    return "could not find tx" in lowered or "not found" in lowered


def _sequence_taken(message: str) -> bool:
    """A refusal that says the sequence moved on (another client signed first)."""
    return "signature verification failed" in message or "unauthorized" in message


def _values(data: str) -> list[tuple[str, str]]:
    """A call's results as the VM prints them, ``(1 int)``, as (value, type) pairs."""
    from c4cli.gotext import parse_result

    values = []
    for line in data.splitlines():
        if line.startswith("(") and line.endswith(")"):
            try:
                values.append(parse_result(line))
            except ValueError:
                continue
    return values


def _decode_result(data: bytes) -> dict[str, Any]:
    """The fields c4 needs of an amino ``sdk.Result``: error or not, log, gas used.

    ``Result`` embeds ``ResponseBase`` (field 1: Error 1, Data 2, Events 3, Log 4,
    Info 5) and has GasWanted (2) and GasUsed (3), int64 as zigzag varints.
    """
    out: dict[str, Any] = {"gas_used": 0}
    log = ""
    for number, value in _fields(data):
        if number == 3 and isinstance(value, int):
            out["gas_used"] = (value >> 1) ^ -(value & 1)
        elif number == 1 and isinstance(value, bytes):
            for inner, inner_value in _fields(value):
                if inner == 1 and isinstance(inner_value, bytes):
                    out["error"] = True
                    out["log"] = _string_error(inner_value)
                elif inner == 4 and isinstance(inner_value, bytes):
                    log = inner_value.decode("utf-8", "replace")
    if out.get("error") and not out.get("log"):
        out["log"] = _refusal({"Log": log})
    return out


def _string_error(any_bytes: bytes) -> str:
    """A realm panic's text from an ``Any`` holding an ``/abci.StringError``; "" otherwise."""
    fields = dict(_fields(any_bytes))
    value = fields.get(2)
    if fields.get(1) != b"/abci.StringError" or not isinstance(value, bytes):
        return ""
    inner = dict(_fields(value))
    text = inner.get(1, b"")
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else ""


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """The top-level fields of protobuf wire bytes: varints and length-delimited runs."""
    out: list[tuple[int, int | bytes]] = []
    index = 0

    def varint() -> int:
        nonlocal index
        shift = value = 0
        while True:
            if index >= len(data):
                raise Unreachable("the node's simulation result is cut short")
            byte = data[index]
            index += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    while index < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            out.append((number, varint()))
        elif wire == 2:
            length = varint()
            out.append((number, data[index : index + length]))
            index += length
        elif wire == 1:
            index += 8
        elif wire == 5:
            index += 4
        else:
            raise Unreachable("the node's simulation result is not amino")
    return out
