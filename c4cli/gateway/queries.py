"""The gateway's ``abci_query``: each path proven the way it can be (see
:mod:`c4cli.gateway.methods`), or passed on marked."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from c4cli.client import accounts
from c4cli.client.proven import PAGE_OF, NotCommitted, Prover, code_differs, same_answer
from c4cli.errors import Unverified
from c4cli.gotext import parse_result, quote
from c4cli.local.state_reader import functions
from c4cli.node.light.store import proven_under
from c4cli.node.net.rpc import Malformed
from c4cli.serve.methods import RpcError
from c4cli.wire import stored
from c4cli.wire.abci import ResponseQuery
from c4cli.wire.paths import (
    ACCOUNTS,
    BALANCES,
    GASPRICE,
    QDOC,
    QEVAL,
    QFILE,
    QFUNCS,
    QRENDER,
    SIMULATE,
)
from c4cli.wire.rpc import ResultABCIQuery
from c4cli.wire.storeproof import STORE_KEY, package_key

if TYPE_CHECKING:
    from c4cli.gateway.methods import Gateway

UNPROVEN = {  # why a query is passed on marked
    SIMULATE: "a simulation is the node's own run of a transaction: no block holds it",
    QDOC: "the doc is the VM's reading of the code: c4 does not make it",
}


def abci_query(gw: Gateway, params: dict[str, Any]) -> Any:
    path = str(params.get("path") or "")
    data = param_bytes(params, "data")
    height = height_of(params)
    if path.startswith(ACCOUNTS) and "/" not in path.removeprefix(ACCOUNTS):
        return _answered(accounts.read(gw.reader, path.removeprefix(ACCOUNTS), "account", height))
    if path.startswith(BALANCES) and "/" not in path.removeprefix(BALANCES):
        return _answered(accounts.read(gw.reader, path.removeprefix(BALANCES), "balance", height))
    if path == GASPRICE:
        return _answered(accounts.gas_price(gw.reader, height))
    if path == STORE_KEY and params.get("prove") in (True, "true"):
        return _store_key(gw, params, data)
    realm = gw.reader.realm_path.encode()
    if path == QEVAL and data.startswith(realm + b"."):
        expression = data.removeprefix(realm + b".").decode("utf-8", "replace")
        return _realm_read(gw, params, expression, path)
    in_realm = data == realm or (path == QFILE and data.startswith(realm + b"/"))
    if path in (QFUNCS, QFILE) and in_realm:
        return _source(gw, params, path, data.decode("utf-8", "replace"))
    if path == QRENDER and data.startswith(realm + b":"):
        page = data.removeprefix(realm + b":").decode("utf-8", "replace")
        return _realm_read(gw, params, PAGE_OF + page, path)
    why = UNPROVEN.get(path, "no proof c4 makes reaches it")
    return gw.passed("abci_query", params, f"{path or 'the empty path'}: {why}")


def _store_key(gw: Gateway, params: dict[str, Any], key: bytes) -> Any:
    answer = gw.raw("abci_query", params)
    response = read_answer(ResultABCIQuery.from_json, answer, "abci_query").response
    if response.refused:
        return answer
    if response.key != key:
        raise Unverified("the node proved another key than the one asked")
    header = gw.verifier.proven_header(response.height + 1)
    proven_under(response.proof, key, response.value or None, header, "the store key")
    return answer


def _realm_read(gw: Gateway, params: dict[str, Any], expression: str, path: str) -> Any:
    """A read of c4's realm (a ``vm/qeval`` expression, or a ``vm/qrender`` page as
    proven.PAGE_OF names one), held to the state it committed."""
    answer = gw.raw("abci_query", params)
    response = read_answer(ResultABCIQuery.from_json, answer, "abci_query").response
    if response.refused or height_of(params):
        why = "a refusal is the node's word" if response.refused else "a past height"
        gw.mark("abci_query", f"{path} {expression}: {why}")
        return answer
    said = response.data.decode("utf-8", "replace")
    if path == QEVAL:
        try:
            said, _ = parse_result(said)
        except ValueError:
            raise Unverified(f"the node answered {expression} with garbage") from None
    prover = Prover(gw.reader)
    prover.code_held = gw.code_held
    try:
        ours = prover.check(expression, said, lambda: said)
    except NotCommitted:
        why = prover.why_not or "not a read the realm's committed state makes"
        gw.mark("abci_query", f"{path} {expression}: {why}")
        return answer
    gw.code_held = prover.code_held
    if same_answer(said, ours):
        return answer
    # The node's first answer, a block before the proof's (a clock, a move since):
    # the answer proven is given instead, in the node's words.
    text = response.data.decode("utf-8", "replace")
    shown = ours if path == QRENDER else text.replace(quote(said), quote(ours), 1)
    return ResultABCIQuery(response._replace(data=shown.encode())).to_json()


def _source(gw: Gateway, params: dict[str, Any], path: str, data: str) -> Any:
    """``vm/qfile`` or ``vm/qfuncs`` of c4's realm, held to its code proven."""
    answer = gw.raw("abci_query", params)
    response = read_answer(ResultABCIQuery.from_json, answer, "abci_query").response
    files, why = _code(gw)
    if response.refused or why:
        why = why or "a refusal is the node's word"
        gw.mark("abci_query", f"{path} {data}: {why}")
        return answer
    realm = gw.reader.realm_path
    if path == QFUNCS:
        ours: str | None = functions()
    elif data == realm:
        ours = "\n".join(files)
    else:
        ours = files.get(data.removeprefix(realm + "/"))
    if ours is None or response.data.decode("utf-8", "replace") != ours:
        raise Unverified(f"{path} {data}: the node's answer is not the realm's code proven")
    return answer


def _code(gw: Gateway) -> tuple[dict[str, str], str]:
    """The realm's files, proven, and "" where they are c4's (else why not)."""
    realm = gw.reader.realm_path
    if gw.files is None:
        found = gw.verifier.stored(package_key(realm), "the realm's code")
        differs = code_differs(found.value, realm)
        if differs:
            return (
                {},
                f"the realm's code proven at block {found.height} is not c4's ({differs})",
            )
        gw.files = stored.package(found.value or b"")[1]
        gw.code_held = True
    return gw.files, ""


def _answered(read: accounts.Read) -> Any:
    """An ``abci_query`` answer as gnoland writes one, of a read proven."""
    response = ResponseQuery(data=read.data.encode(), height=read.height)
    return ResultABCIQuery(response).to_json()


def read_answer(parse: Callable[[Any], Any], answer: Any, method: str) -> Any:
    try:
        return parse(answer)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise Malformed(f"the node answered {method} in a shape it never has") from None


def height_of(params: dict[str, Any]) -> int:
    value = params.get("height") or 0
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        return 0


def param_bytes(params: dict[str, Any], name: str) -> bytes:
    try:
        return base64.b64decode(str(params.get(name) or ""), validate=True)
    except (binascii.Error, ValueError):
        raise RpcError(-32602, "Invalid params", f"{name}: not base64") from None
