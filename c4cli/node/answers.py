"""What a gno.land node answers, read: times, deliver results, refusals, amino results.

Nothing here trusts the shape of an answer: a field that is missing or of another
kind is Unreachable in one line (or, where the caller says what it was reading, a
KeyError, TypeError or ValueError it turns into one). The shapes both backends share
(accounts, events, a call's values) are gno.land's, in ``wire/results.py``.
"""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any, NamedTuple, TypedDict

from c4cli.chain.trust import Validator
from c4cli.errors import Unreachable
from c4cli.wire.protowire import DecodeError, unzigzag, wire_fields
from c4cli.wire.results import TxAnswer


def unix_time(rfc3339: str) -> int:
    """Whole seconds of a tm2 time (``2026-01-01T00:00:05.123456789Z``), as the realm reads it."""
    whole = rfc3339.strip().rstrip("Z").split(".")[0]
    try:
        return int(datetime.fromisoformat(whole + "+00:00").timestamp())
    except (ValueError, OverflowError):
        raise Unreachable(f"the node answered a time that is not one: {rfc3339[:40]!r}") from None


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def field(node: str, document: Any, *path: str) -> Any:
    """``document[path…]`` of a node's answer, or Unreachable naming what is missing."""
    value = document
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise Unreachable(f"{node} answered without {'.'.join(path)}")
        value = value[key]
    return value


def delivered(found: TxAnswer) -> tuple[dict[str, Any], str, list[Any]]:
    """A node's ``tx`` answer's deliver result: its base, its data as text, its events
    (KeyError, TypeError, AttributeError or ValueError for a shape it never has)."""
    deliver = found["tx_result"]
    base: dict[str, Any] = deliver.get("ResponseBase", deliver)
    data = base64.b64decode(base.get("Data") or "").decode("utf-8", "replace")
    events = base.get("Events") or []
    if not isinstance(events, list):
        raise TypeError("events")
    return base, data, events


def int64(value: Any) -> int:
    """An int64 of a node's answer (a JSON string or number), refused outside int64."""
    number = int(str(value))
    if not -(2**63) <= number < 2**63:
        raise ValueError("outside int64")
    return number


def hash_text(value: Any) -> str:
    """A hash as a node's JSON gives it: base64 of the bytes (tm2's []byte)."""
    return value if isinstance(value, str) else ""


def refusal(base: dict[str, Any]) -> str:
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
    return first_line(log.split("\nstack:", 1)[0].removeprefix("recovered: ")) or "refused"


def error_type(base: dict[str, Any]) -> str:
    """The type of a refusal's error as tm2 writes it (``/std.UnauthorizedError``)."""
    error = base.get("Error")
    return str(error.get("@type") or "") if isinstance(error, dict) else ""


def decode_result(data: bytes) -> dict[str, Any]:
    """The fields c4 needs of an amino ``sdk.Result``: error or not, log, gas used.

    ``Result`` embeds ``ResponseBase`` (field 1: Error 1, Data 2, Events 3, Log 4,
    Info 5) and has GasWanted (2) and GasUsed (3), int64 as zigzag varints.
    """
    out: dict[str, Any] = {"gas_used": 0}
    log = ""
    for number, value in amino_fields(data):
        if number == 3 and isinstance(value, int):
            out["gas_used"] = unzigzag(value)
        elif number == 1 and isinstance(value, bytes):
            for inner, inner_value in amino_fields(value):
                if inner == 1 and isinstance(inner_value, bytes):
                    out["error"] = True
                    out["log"] = string_error(inner_value)
                    kind = dict(amino_fields(inner_value)).get(1)
                    out["kind"] = kind.decode("utf-8", "replace") if isinstance(kind, bytes) else ""
                elif inner == 4 and isinstance(inner_value, bytes):
                    log = inner_value.decode("utf-8", "replace")
    if out.get("error") and not out.get("log"):
        out["log"] = refusal({"Log": log})
    return out


def string_error(any_bytes: bytes) -> str:
    """A realm panic's text from an ``Any`` holding an ``/abci.StringError``; "" otherwise."""
    fields = dict(amino_fields(any_bytes))
    value = fields.get(2)
    if fields.get(1) != b"/abci.StringError" or not isinstance(value, bytes):
        return ""
    inner = dict(amino_fields(value))
    text = inner.get(1, b"")
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else ""


def amino_fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """The top-level fields of a node's amino answer (a simulation's result), read as a
    transaction's are; bytes that are not amino are one line and exit 4."""
    try:
        return wire_fields(data, skip_fixed=True)
    except DecodeError as exc:
        raise Unreachable(f"the node's simulation result is not amino: {exc}") from None


# -- typed answers -------------------------------------------------------------------
# Each tm2 answer c4 reads is decoded here once, at the client's edge, into a typed
# value; a shape a node never sends is one line and exit 4. The light client's values
# are the amino JSON's own dicts, typed and checked (their bytes are what is hashed,
# so they are kept as the node wrote them).


class NodeStatus(NamedTuple):
    """A ``status`` answer: the chain's id, the node's last block, and whether it is
    still catching up."""

    network: str
    height: int
    time: str  # RFC 3339, as the node wrote it
    catching_up: bool


def status(node: str, answer: Any) -> NodeStatus:
    """A ``status`` answer read, or Unreachable naming the node."""
    try:
        network = answer["node_info"]["network"]
        sync = answer["sync_info"]
        height = str(sync["latest_block_height"])
        if not isinstance(network, str) or not height.isdigit() or len(height) > 18:
            raise ValueError("not a status")
        return NodeStatus(
            network, int(height), str(sync.get("latest_block_time") or ""),
            sync.get("catching_up") is True,
        )  # fmt: skip
    except (KeyError, TypeError, ValueError):
        raise Unreachable(f"{node} answered status in a shape it never has") from None


class PartSet(TypedDict):
    total: int | str
    hash: str | None


class BlockId(TypedDict):
    hash: str | None
    parts: PartSet


class Header(TypedDict):
    """A block header as a node's amino JSON gives it (int64 as strings, hashes in
    base64), every field present (None where the node left one out)."""

    version: str
    chain_id: str
    height: str
    time: str
    num_txs: str
    total_txs: str
    app_version: str
    last_block_id: BlockId
    last_commit_hash: str | None
    data_hash: str | None
    validators_hash: str | None
    next_validators_hash: str | None
    consensus_hash: str | None
    app_hash: str | None
    last_results_hash: str | None
    proposer_address: str | None


class Vote(TypedDict):
    """A precommit as a commit lists it."""

    type: int | str
    height: int | str
    round: int | str
    block_id: BlockId
    timestamp: str
    validator_address: str
    validator_index: int | str
    signature: str | None


class Commit(TypedDict):
    block_id: BlockId
    precommits: list[Vote | None]


class Signed(NamedTuple):
    """A ``commit`` answer: a header and the commit that signed it."""

    header: Header
    commit: Commit


def _kind(value: Any, *kinds: type) -> Any:
    """``value`` if it is of one of ``kinds`` (bool is no int), else TypeError."""
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise TypeError("a field of another kind")
    return value


def _int64_text(value: Any) -> Any:
    int64(_kind(value, str, int))
    return value


def _block_id(value: Any) -> BlockId:
    found = _kind(value or {}, dict)
    parts = _kind(found.get("parts") or {}, dict)
    return BlockId(
        hash=_kind(found.get("hash"), str, type(None)),
        parts=PartSet(
            total=_int64_text(parts.get("total") or 0),
            hash=_kind(parts.get("hash"), str, type(None)),
        ),
    )


def header(value: Any) -> Header:
    """A header of a node's answer, typed (TypeError or ValueError for another shape)."""
    found = _kind(value, dict)

    def text(name: str) -> str:
        return str(_kind(found[name], str))

    def hashed(name: str) -> str | None:
        value = _kind(found.get(name), str, type(None))
        return None if value is None else str(value)

    return Header(
        version=text("version"),
        chain_id=text("chain_id"),
        height=str(_int64_text(found["height"])),
        time=text("time"),
        num_txs=str(_int64_text(found["num_txs"])),
        total_txs=str(_int64_text(found["total_txs"])),
        app_version=text("app_version"),
        last_block_id=_block_id(found.get("last_block_id")),
        last_commit_hash=hashed("last_commit_hash"),
        data_hash=hashed("data_hash"),
        validators_hash=hashed("validators_hash"),
        next_validators_hash=hashed("next_validators_hash"),
        consensus_hash=hashed("consensus_hash"),
        app_hash=hashed("app_hash"),
        last_results_hash=hashed("last_results_hash"),
        proposer_address=hashed("proposer_address"),
    )


def _vote(value: Any) -> Vote | None:
    if value is None:
        return None
    found = _kind(value, dict)
    return Vote(
        type=_int64_text(found["type"]),
        height=_int64_text(found["height"]),
        round=_int64_text(found["round"]),
        block_id=_block_id(found.get("block_id")),
        timestamp=_kind(found["timestamp"], str),
        validator_address=_kind(found.get("validator_address"), str),
        validator_index=_int64_text(found.get("validator_index") or 0),
        signature=_kind(found.get("signature"), str, type(None)),
    )


def commit(value: Any) -> Commit:
    """A commit of a node's answer, typed (TypeError or ValueError for another shape)."""
    found = _kind(value, dict)
    precommits = _kind(found.get("precommits") or [], list)
    return Commit(
        block_id=_block_id(found.get("block_id")), precommits=[_vote(v) for v in precommits]
    )


def signed(value: Any) -> Signed:
    """A ``commit`` answer's header and commit (KeyError, TypeError or ValueError for
    another shape)."""
    inner = value["signed_header"]
    return Signed(header(inner["header"]), commit(inner["commit"]))


def validator(row: Any) -> Validator:
    """A validator of a ``validators`` answer (or a genesis), as c4 keeps one."""
    key = row["pub_key"]
    power = int(row.get("voting_power", row.get("power")))
    if power <= 0:
        raise ValueError("a validator has voting power")
    return Validator(
        address=str(row["address"]),
        pub_key={"@type": str(key["@type"]), "value": str(key["value"])},
        voting_power=str(power),
    )


class QueryAnswer(NamedTuple):
    """An ``abci_query`` answer: its response's base (for a refusal's error and log), the
    data (what gnokey prints), the value (where a simulation may answer), the height."""

    base: dict[str, Any]
    data: bytes
    value: bytes
    height: int

    @property
    def refused(self) -> bool:
        return bool(self.base.get("Error"))


def query(node: str, path: str, answer: Any) -> QueryAnswer:
    """An ``abci_query`` answer read, or Unreachable naming the node and the path."""
    try:
        response = answer["response"]
        base = response.get("ResponseBase", response)
        if not isinstance(base, dict):
            raise TypeError("no response")
        return QueryAnswer(
            base,
            base64.b64decode(base.get("Data") or ""),
            base64.b64decode(response.get("Value") or ""),
            int64(response.get("Height") or 0),
        )
    except (KeyError, TypeError, AttributeError, ValueError):
        raise Unreachable(f"{node} answered abci_query {path} in a shape it never has") from None


class BlockMeta(NamedTuple):
    """One of a ``blockchain`` answer's metas: a block's id and its header."""

    block_id: BlockId
    header: Header


def block_metas(node: str, answer: Any) -> list[BlockMeta]:
    """A ``blockchain`` answer's metas, typed, or Unreachable naming the node."""
    try:
        metas = _kind(answer["block_metas"], list)
        return [
            BlockMeta(_block_id(meta.get("block_id")), header(meta["header"])) for meta in metas
        ]
    except (KeyError, TypeError, AttributeError, ValueError):
        raise Unreachable(f"{node} answered blockchain in a shape it never has") from None


class BlockAnswer(NamedTuple):
    """A ``block`` answer: its header, and its transactions as base64 (amino bytes)."""

    header: Header
    txs: list[str]


def block(node: str, answer: Any) -> BlockAnswer:
    """A ``block`` answer, typed, or Unreachable naming the node."""
    try:
        inner = answer["block"]
        txs = _kind(inner["data"].get("txs") or [], list)
        return BlockAnswer(header(inner["header"]), [_kind(tx, str) for tx in txs])
    except (KeyError, TypeError, AttributeError, ValueError):
        raise Unreachable(f"{node} answered block in a shape it never has") from None


def block_results(node: str, height: int, answer: Any) -> list[dict[str, Any]]:
    """A ``block_results`` answer's ``deliver_tx`` results, each a ResponseDeliverTx as
    the node's amino JSON writes it, or Unreachable naming the node and the height."""
    try:
        found = answer["results"]["deliver_tx"] or []
        return [_kind(deliver, dict) for deliver in _kind(found, list)]
    except (KeyError, TypeError):
        raise Unreachable(
            f"{node} answered block_results {height} in a shape it never has"
        ) from None
