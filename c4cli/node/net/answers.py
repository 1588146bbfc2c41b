"""A node's words, read: a refusal's text and kind, a simulation's gas.

The answers themselves are the wire's values (:mod:`c4cli.wire.rpc`,
:mod:`c4cli.wire.abci`), read once by the typed RPC (:mod:`c4cli.node.net.rpc`); what is
here is how c4 words what they say.
"""

from __future__ import annotations

from typing import NamedTuple

from c4cli.errors import Refused, Unreachable
from c4cli.wire.abci import AbciError, ResponseDeliverTx
from c4cli.wire.protowire import DecodeError

STRING_ERROR = "/abci.StringError"


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def refusal(error: AbciError | None, log: str) -> str:
    """The node's words for a refusal: a realm panic's own text, else the log's first line."""
    if error is not None and error.type_url == STRING_ERROR and error.text:
        return error.text
    if "--= Error =--" in log:
        # tm2's error report (after "msg:0,success:false,log:" in a simulation's): the
        # message is on the first trace line, after " - ".
        for line in log.split("--= Error =--", 1)[1].splitlines():
            number, _, rest = line.strip().partition(" ")
            if number.isdigit() and " - " in rest:
                return rest.split(" - ", 1)[1].strip()
    return first_line(log.split("\nstack:", 1)[0].removeprefix("recovered: ")) or "refused"


def refused(result: ResponseDeliverTx) -> Refused:
    """A refusal the node gave as ``result``, worded, with tm2's type of its error
    (``/std.UnauthorizedError``) as its kind."""
    kind = result.error.type_url if result.error is not None else ""
    return Refused(refusal(result.error, result.log), kind=kind)


class Simulated(NamedTuple):
    """A simulation's answer: the gas it used, and its refusal (None when it ran)."""

    gas_used: int
    refusal: Refused | None


def simulated(data: bytes) -> Simulated:
    """A simulation's amino ``ResponseDeliverTx`` read; bytes that are not amino are one
    line and exit 4."""
    try:
        result = ResponseDeliverTx.from_amino(data)
    except DecodeError as exc:
        raise Unreachable(f"the node's simulation result is not amino: {exc}") from None
    return Simulated(result.gas_used, refused(result) if result.refused else None)
