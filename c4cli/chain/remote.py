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

from c4cli.chain.interface import Answer, Build, Head, Receipt, Signer
from c4cli.errors import BadInput, Refused, Unreachable

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
    return int(datetime.fromisoformat(whole + "+00:00").timestamp())


class NodeChain:
    """The chain at ``url`` (``http://127.0.0.1:26657``, ``https://rpc.gno.land:443``)."""

    def __init__(
        self,
        url: str,
        *,
        realm_path: str,
        chain_id: str | None = None,
        timeout: float | None = None,
    ) -> None:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        try:
            parts.port  # noqa: B018 (a port that is not a number raises here, not mid-call)
        except ValueError:
            parts = parts._replace(scheme="")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BadInput(f"invalid node URL {url!r}: use http://HOST:PORT or https://HOST")
        self.url = url
        self._parts = parts
        self._realm_path = realm_path
        self._chain_id = chain_id
        self.timeout = timeout if timeout is not None else _timeout()
        self._id = 0

    # -- JSON-RPC -----------------------------------------------------------------

    def _post(self, body: bytes, timeout: float) -> bytes:
        """POST one request; the answer's bytes, read within ``timeout`` seconds in all."""
        import http.client

        parts = self._parts
        deadline = wallclock.monotonic() + timeout
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(
                parts.hostname or "", parts.port or 443, timeout=timeout
            )
        else:
            connection = http.client.HTTPConnection(
                parts.hostname or "", parts.port or 80, timeout=timeout
            )
        try:
            connection.request(
                "POST", parts.path or "/", body, {"Content-Type": "application/json"}
            )
            response = connection.getresponse()
            if response.status != 200:
                raise Unreachable(f"{self.url} answered HTTP {response.status} {response.reason}")
            chunks: list[bytes] = []
            size = 0
            while True:
                left = deadline - wallclock.monotonic()
                if left <= 0:
                    raise Unreachable(f"{self.url} did not finish answering within {timeout:g} s")
                if connection.sock is not None:
                    connection.sock.settimeout(left)
                chunk = response.read1(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > MAX_ANSWER:
                    raise Unreachable(f"{self.url} answered more than {MAX_ANSWER >> 20} MiB")
                chunks.append(chunk)
            return b"".join(chunks)
        except TimeoutError:
            raise Unreachable(f"{self.url} did not answer within {timeout:g} s") from None
        except (OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise Unreachable(f"cannot reach the chain at {self.url}: {reason}") from None
        finally:
            connection.close()

    def rpc(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """One JSON-RPC call; its ``result``, or Unreachable with one line."""
        self._id += 1
        request = {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}
        raw = self._post(json.dumps(request).encode(), timeout or self.timeout)
        try:
            document = json.loads(raw)
        except ValueError:
            raise Unreachable(
                f"{self.url} answered {method} with something that is not JSON"
            ) from None
        if not isinstance(document, dict) or document.get("id") != self._id:
            raise Unreachable(f"{self.url} answered {method} with another call's answer")
        error = document.get("error")
        if error:
            message = (
                error.get("data") or error.get("message") if isinstance(error, dict) else error
            )
            raise Unreachable(f"{self.url}: {method}: {_first_line(str(message))}")
        if "result" not in document:
            raise Unreachable(f"{self.url} answered {method} without a result")
        return document["result"]

    # -- the Chain interface --------------------------------------------------------

    @property
    def realm_path(self) -> str:
        return self._realm_path

    @property
    def chain_id(self) -> str:
        if self._chain_id is None:
            status = self.rpc("status", {})
            self._chain_id = str(_field(self, status, "node_info", "network"))
        return self._chain_id

    def head(self) -> Head:
        status = self.rpc("status", {})
        height = int(_field(self, status, "sync_info", "latest_block_height"))
        return Head(height, unix_time(str(_field(self, status, "sync_info", "latest_block_time"))))

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
                f"{self.url} answered abci_query {path} in a shape it never has"
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
                f"{self.url} answered {path} with something that is not JSON"
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
            raise Unreachable(f"{self.url} answered {path} in a shape it never has") from None

    def gas_price(self) -> tuple[int, int]:
        """The node's gas price as (ugnot, per this much gas); (0, 1) when it asks none."""
        document = json.loads(self.query("auth/gasprice").data or "null") or {}
        price = document.get("price") or {}
        if isinstance(price, str):
            amount = int(price.removesuffix("ugnot") or 0) if price.endswith("ugnot") else 0
        else:
            amount = int(price.get("amount") or 0) if price.get("denom") == "ugnot" else 0
        gas = int(document.get("gas") or 1)
        return amount, max(gas, 1)

    # -- sending ----------------------------------------------------------------------

    def simulate(self, tx_bytes: bytes) -> int:
        """The gas a transaction would use (``.app/simulate``); a refusal raises Refused."""
        value, _ = self._abci(".app/simulate", tx_bytes)
        result = _decode_result(value)
        if result.get("error"):
            raise Refused(str(result.get("log") or "the simulation failed"))
        return int(result.get("gas_used", 0))

    def submit(self, signer: Signer, build: Build, fee: dict[str, str], memo: str) -> Receipt:
        """Sign for the account's number and sequence on the node, broadcast, wait for the block.

        ``fee`` with an empty ``gas_wanted`` asks for simulation: the gas wanted is the
        simulated gas plus a margin, and the fee what the node's gas price asks for it.
        A sequence another client used first is fetched again, and the transaction
        signed and sent once more, once.
        """
        msgs = build(self)
        try:
            return self._send(signer, msgs, fee, memo)
        except Refused as refused:
            if not _sequence_taken(str(refused)):
                raise
        return self._send(signer, msgs, fee, memo)  # with the sequence as it is now

    def _send(self, signer: Signer, msgs: list[Any], fee: dict[str, str], memo: str) -> Receipt:
        number, sequence = self.account_numbers(signer)
        chosen = fee
        if not fee.get("gas_wanted"):
            chosen = self._estimate(signer, msgs, fee, memo, number, sequence)
        return self._broadcast(
            signer, self._sign(signer, msgs, chosen, memo, number, sequence), chosen
        )

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
    ) -> dict[str, str]:
        from c4cli.chain.amino import encode_tx
        from c4cli.chain.tx import fee as make_fee

        trial = make_fee(SIMULATION_GAS, fee.get("gas_fee") or "1ugnot")
        used = self.simulate(encode_tx(self._sign(signer, msgs, trial, memo, number, sequence)))
        wanted = math.ceil(used * GAS_MARGIN)
        if fee.get("gas_fee"):
            return make_fee(wanted, fee["gas_fee"])
        amount, per = self.gas_price()
        return make_fee(wanted, f"{max(math.ceil(wanted * amount / per), 1)}ugnot")

    def _broadcast(self, signer: Signer, tx: dict[str, Any], fee: dict[str, str]) -> Receipt:
        from c4cli.chain.amino import encode_tx, tx_hash

        raw = encode_tx(tx)
        tx_id = tx_hash(tx)
        try:
            answer = self.rpc(
                "broadcast_tx_commit",
                {"tx": base64.b64encode(raw).decode()},
                timeout=max(BROADCAST_TIMEOUT, self.timeout),
            )
        except Unreachable as lost:
            # The node may have the transaction even though its answer never came:
            # find it by hash before saying anything, and never send it again.
            found = self._look_up(tx_id)
            if found is None:
                raise Unreachable(
                    f"{lost}; transaction {tx_id} was not found on the node"
                ) from None
            return self._receipt(signer, tx, tx_id, found, int(found["height"]))
        try:
            check = answer["check_tx"].get("ResponseBase", answer["check_tx"])
            if check.get("Error"):
                raise Refused(_refusal(check))
            deliver = answer["deliver_tx"]
            height = int(answer["height"])
        except (KeyError, TypeError, AttributeError, ValueError):
            raise Unreachable(
                f"{self.url} answered broadcast_tx_commit in a shape it never has"
            ) from None
        return self._receipt(signer, tx, tx_id, {"tx_result": deliver}, height)

    def _look_up(self, tx_id: str) -> dict[str, Any] | None:
        for attempt in range(LOOKUPS):
            try:
                found: dict[str, Any] = self.rpc("tx", {"hash": tx_id})
                return found
            except Unreachable:
                if attempt + 1 < LOOKUPS:
                    wallclock.sleep(1)
        return None

    def _transfers(self, events: list[Any]) -> list[tuple[str, int]]:
        """Who was paid what, from the bank's transfer events: everything but the coins
        sent into the realm (stakes), as the local chain's receipts list payouts."""
        from c4cli.address import package_address

        realm = package_address(self.realm_path)
        return [
            (str(event.get("to")), _ugnot(str(event.get("coins", ""))))
            for event in events
            if isinstance(event, dict)
            and event.get("@type") == "/bank.TransferEvent"
            and event.get("to") != realm
        ]

    def transaction(self, tx_id: str) -> dict[str, Any] | None:
        """A transaction by hash, as the node's ``tx`` gives it; None if it has none."""
        try:
            found: dict[str, Any] = self.rpc("tx", {"hash": tx_id})
        except Unreachable as exc:
            if _unknown_tx(str(exc)):
                return None
            raise
        return found

    def _receipt(
        self, signer: Signer, tx: dict[str, Any], tx_id: str, found: dict[str, Any], height: int
    ) -> Receipt:
        from c4cli.chain.state import TxResult, game_of_call
        from c4cli.chain.tx import MSG_CALL, MSG_SEND

        try:
            deliver = found["tx_result"]
            base = deliver.get("ResponseBase", deliver)
        except (KeyError, TypeError, AttributeError):
            raise Unreachable(
                f"{self.url} answered with a transaction in a shape it never has"
            ) from None
        if base.get("Error"):
            raise Refused(_refusal(base))
        result = TxResult(tx, signer.address, tx_id)
        result.data = base64.b64decode(base.get("Data") or "").decode("utf-8", "replace")
        result.values = _values(result.data)
        for msg in tx["msg"]:
            kind = msg.get("@type")
            if kind == MSG_CALL:
                result.funcs.append(str(msg["func"]))
                game = game_of_call(
                    str(msg["func"]), list(msg.get("args") or []), tuple(result.values)
                )
                if game is not None:
                    result.game_id = game
            elif kind == MSG_SEND:
                result.funcs.append("send")
            else:
                result.funcs.append(str(kind).rsplit(".", 1)[-1].removeprefix("m_"))
        result.transfers = self._transfers(base.get("Events") or [])
        return Receipt(
            height=height,
            time=self.block_time(height),
            result=result,
            gas_used=int(deliver.get("GasUsed") or 0),
            events=json.dumps(base.get("Events") or [], separators=(",", ":")),
            info=str(base.get("Info") or ""),
        )


def _ugnot(coins: str) -> int:
    for coin in coins.split(","):
        if coin.endswith("ugnot") and coin[: -len("ugnot")].isdigit():
            return int(coin[: -len("ugnot")])
    return 0


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
            raise Unreachable(f"{chain.url} answered without {'.'.join(path)}")
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
