"""tm2's JSON-RPC envelope: a POST body (one call or a batch) or a URI GET, to bytes.

As gnoland v1.7.1 answers: indented JSON (two spaces) with Go's escapes of ``<``,
``>`` and ``&``; an empty POST lists the endpoints; a call with an empty id is a
notification (no answer); a GET's parameters are JSON values, or ``0x``-hex bytes,
or bare words taken as strings; the URI form answers with an empty id.

What changes the chain (a broadcast, and the cheats: ``c4_revert``, ``c4_mine``, …) is refused
(:class:`Caller`) as a GET, which a page's link or image can send, and to a
browser's request from another origin; the cheats need the server's token too, on
every address. Every read, and every signed broadcast, stays open, as gnoland's.
"""

from __future__ import annotations

import base64
import json
from typing import Any, NamedTuple
from urllib.parse import parse_qsl

from c4cli.serve import cheats
from c4cli.serve.methods import Answers, RpcError

PARSE_ERROR = (-32700, "Parse error. Invalid JSON")
INVALID_REQUEST = (-32600, "Invalid Request")
METHOD_NOT_FOUND = (-32601, "Method not found")
MAX_BATCH = 1000  # gnoland's max_batch_requests
FORBIDDEN = (-32600, "Invalid Request")

CHEATS = frozenset({"c4_revert", "c4_advanceTime", *cheats.PARAMS})
WRITES = CHEATS | {"broadcast_tx_async", "broadcast_tx_sync", "broadcast_tx_commit"}


class Caller(NamedTuple):
    """Who a request comes from, as far as changing the chain goes: a browser's page of
    another origin (``foreign``, its Origin), and whether a cheat carries the server's
    token."""

    foreign: str = ""
    authorized: bool = True

    def refusal(self, method: str, *, uri: bool = False) -> str:
        """Why ``method`` is not run for this caller ("" when it is)."""
        if method not in WRITES:
            return ""
        if uri:
            return (
                f"{method} changes the chain: POST it (a GET, which any page can make, is refused)"
            )
        if self.foreign:
            return (
                f"{method} changes the chain: refused to a page of another origin ({self.foreign})"
            )
        if method in CHEATS and not self.authorized:
            return f"{method} needs the token c4 serve printed (Authorization: Bearer TOKEN)"
        return ""


def dumps(document: Any) -> bytes:
    """JSON as Go's encoder writes it, indented as tm2's answers are."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    for char, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(char, escaped)  # these occur only inside JSON strings
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate a request carried (an id, a parameter echoed back): U+FFFD, as
        # Go's encoder writes invalid UTF-16.
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()


def error_document(ident: Any, code: tuple[int, str], data: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code[0], "message": code[1]}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": ident, "error": error}


def _answer(methods: Answers, request: Any, caller: Caller) -> dict[str, Any] | None:
    """One call's answer document; None for a notification."""
    if not isinstance(request, dict):
        return error_document("", INVALID_REQUEST, "a request must be a JSON object")
    ident = request.get("id", "")
    if ident == "" or ident is None:
        return None
    method = request.get("method")
    if not isinstance(method, str) or method not in methods.params:
        return error_document(ident, METHOD_NOT_FOUND)
    refused = caller.refusal(method)
    if refused:
        return error_document(ident, FORBIDDEN, refused)
    params = request.get("params")
    if isinstance(params, list):
        names = methods.params[method]
        if len(params) > len(names):
            return error_document(
                ident,
                (-32602, "Invalid params"),
                f"expected {len(names)} parameters ({names}), got {len(params)}",
            )
        params = dict(zip(names, params, strict=False))
    elif params is None:
        params = {}
    elif not isinstance(params, dict):
        return error_document(ident, (-32602, "Invalid params"), "params must be an object")
    return call(methods, ident, method, params)


def call(methods: Answers, ident: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    try:
        result = methods.call(method, params)
    except RpcError as exc:
        return error_document(ident, (exc.code, exc.message), exc.data)
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def post(methods: Answers, body: bytes, caller: Caller) -> bytes | None:
    """The answer to a POST body; None when nothing is to be sent (notifications only)."""
    if not body:
        return None
    try:
        request = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        return dumps(error_document("", PARSE_ERROR, str(exc)))
    except RecursionError:
        return dumps(error_document("", PARSE_ERROR, "exceeded max depth"))
    if isinstance(request, list):
        if not request:
            return dumps(error_document("", PARSE_ERROR, "an empty batch"))
        if len(request) > MAX_BATCH:
            data = f"batch of {len(request)} requests exceeds the limit of {MAX_BATCH}"
            return dumps(error_document("", INVALID_REQUEST, data))
        answers = [
            answer for one in request if (answer := _answer(methods, one, caller)) is not None
        ]
        return dumps(answers) if answers else None
    answer = _answer(methods, request, caller)
    return None if answer is None else dumps(answer)


def uri_params(query: str) -> dict[str, Any]:
    """A GET's parameters as tm2 reads them: ``0x`` hex is bytes (base64 here), a bare
    integer is an int64, valid JSON is itself, anything else a string."""
    params: dict[str, Any] = {}
    for name, value in parse_qsl(query, keep_blank_values=False):
        if value.startswith("0x"):
            try:
                params[name] = base64.b64encode(bytes.fromhex(value[2:])).decode()
            except ValueError as exc:
                raise RpcError(
                    -32602, "Invalid params", f"unable to decode hex string: {exc}"
                ) from None
            continue
        try:
            params[name] = json.loads(value)
        except ValueError:
            params[name] = value
    return params


def get(methods: Answers, path: str, query: str) -> bytes | None:
    """The answer to ``GET /<method>?<params>``; None for a path that is no method."""
    method = path.strip("/")
    if method not in methods.params:
        return None
    refused = Caller().refusal(method, uri=True)
    if refused:
        return dumps(error_document("", FORBIDDEN, refused))
    try:
        params = uri_params(query)
    except RpcError as exc:
        return dumps(error_document("", (exc.code, exc.message), exc.data))
    return dumps(call(methods, "", method, params))


def endpoints(methods: Answers) -> bytes:
    """What tm2 shows a browser at ``/``: a link per method."""
    links = "".join(
        f'<a href="/{name}?{"&".join(p + "=_" for p in args)}">/{name}?'
        f"{'&'.join(p + '=_' for p in args)}</a></br>"
        for name, args in sorted(methods.params.items())
    )
    return f"<html><body><br>Available endpoints:<br><br>{links}</body></html>".encode()
