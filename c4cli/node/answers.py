"""What a gno.land node answers, read: times, deliver results, refusals, amino results.

Nothing here trusts the shape of an answer: a field that is missing or of another
kind is Unreachable in one line (or, where the caller says what it was reading, a
KeyError, TypeError or ValueError it turns into one). The shapes both backends share
(accounts, events, a call's values) are gno.land's, in ``wire/results.py``.
"""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

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


def status_height(status: Any) -> int:
    """The last block's height a ``status`` answer gives (KeyError, TypeError or
    ValueError for a shape it never has)."""
    return int64(status["sync_info"]["latest_block_height"])


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
