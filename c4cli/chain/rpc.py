"""tm2 JSON-RPC over HTTP, with a deadline for the whole answer.

Every call has a deadline for the whole answer, not only for each read of the
socket, and an answer is believed only if it is the JSON-RPC answer to that very
call: anything else (a proxy's HTML page, cut JSON, another id, a body of many
megabytes) is one line naming the node and exit 4, never a traceback.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time as wallclock
from typing import Any
from urllib.parse import unquote, urlsplit

from c4cli.chain.answers import first_line
from c4cli.errors import BadInput, Unreachable

TIMEOUT = 10.0  # seconds for a whole answer to a read ($C4_TIMEOUT overrides)
BLOCK_TIMEOUT = 60.0  # seconds a broadcast waits for its block ($C4_BLOCK_TIMEOUT overrides)
MAX_ANSWER = 16 * 1024 * 1024


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


class Rpc:
    """JSON-RPC to the node at ``url`` (``http://127.0.0.1:26657``,
    ``https://rpc.gno.land:443``, gnokey's ``tcp://127.0.0.1:26657``); credentials in
    the URL are sent as HTTP basic authentication and never printed."""

    # What to do when the node refuses the connection, where the opener knows (a home
    # whose own node it is: start it); "" when it does not.
    down_hint = ""

    def __init__(self, url: str, *, timeout: float | None = None) -> None:
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
        self.timeout = timeout if timeout is not None else rpc_timeout()
        self._id = 0
        host = parts.hostname or ""
        where = f"[{host}]" if ":" in host else host
        lines = [
            f"POST {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1",
            f"Host: {where}{f':{parts.port}' if parts.port else ''}",
            "Content-Type: application/json",
            "Connection: close",
        ]
        if parts.username is not None:
            login = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            lines.append("Authorization: Basic " + base64.b64encode(login.encode()).decode())
        # The head of every request, its body's length left to fill in.
        self._request_head = (
            "\r\n".join(lines).replace("%", "%%") + "\r\nContent-Length: %d\r\n\r\n"
        ).encode()

    def _post(self, body: bytes, timeout: float) -> bytes:
        """POST one request; the answer's body, read within ``timeout`` seconds in all.

        HTTP/1.1 over a socket, written out here: http.client brings the email
        package (some 20 ms of every remote command's start-up) for headers a JSON-RPC
        answer does not have. Every read waits only for what is left of the deadline,
        so a server that trickles its answer a byte at a time is cut off at the
        deadline like one that never answers.
        """
        deadline = wallclock.monotonic() + timeout
        parts = self._parts
        host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
        try:
            # An ASCII host name goes to the resolver as bytes (getaddrinfo takes them;
            # typeshed says str only): as text, Python first loads the IDNA codec and
            # stringprep, ~10 ms of every remote command's start-up.
            name: str | bytes = host.encode() if host.isascii() else host
            address = (name, port)
            sock: socket.socket = socket.create_connection(address, timeout=timeout)  # type: ignore[arg-type]
            try:
                if parts.scheme == "https":
                    import ssl  # only for https: TLS costs a plain-HTTP node nothing

                    context = ssl.create_default_context()
                    sock = context.wrap_socket(sock, server_hostname=host)
                head = self._request_head % len(body)
                sock.sendall(head + body)
                raw = self._read_all(sock, deadline, timeout)
            finally:
                sock.close()
        except TimeoutError:
            raise Unreachable(f"{self.redacted} did not answer within {timeout:g} s") from None
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            refused = isinstance(exc, ConnectionRefusedError) and self.down_hint
            hint = f"; {self.down_hint}" if refused else ""
            raise Unreachable(
                f"cannot reach the chain at {self.redacted}: {reason}{hint}"
            ) from None
        return self._body(raw, timeout)

    def _read_all(self, sock: socket.socket, deadline: float, timeout: float) -> bytes:
        """Everything the server sends until it closes (the request said
        ``Connection: close``), within the deadline and the size limit."""
        chunks: list[bytes] = []
        size = 0
        while True:
            left = deadline - wallclock.monotonic()
            if left <= 0:
                what = "finish answering" if chunks else "answer"
                raise Unreachable(f"{self.redacted} did not {what} within {timeout:g} s")
            sock.settimeout(left)
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > MAX_ANSWER:
                raise Unreachable(f"{self.redacted} answered more than {MAX_ANSWER >> 20} MiB")
            chunks.append(chunk)

    def _body(self, raw: bytes, timeout: float) -> bytes:
        """The body of an HTTP/1.1 answer: refused unless its status is 200; unchunked
        when the server sent it in chunks."""
        head, sep, body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = lines[0].split(" ", 2)
        if not sep or len(status) < 2 or not status[0].startswith("HTTP/"):
            if not raw:
                raise Unreachable(f"{self.redacted} closed the connection without answering")
            raise Unreachable(f"{self.redacted} answered something that is not HTTP")
        if status[1] != "200":
            reason = status[2] if len(status) > 2 else ""
            raise Unreachable(
                f"{self.redacted} answered HTTP {status[1][:3]} {first_line(reason)[:80]}".rstrip()
            )
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return self._unchunked(body)
        length = headers.get("content-length")
        if length is not None and length.isdigit() and len(body) < int(length):
            raise Unreachable(f"{self.redacted} did not finish answering within {timeout:g} s")
        return body if length is None or not length.isdigit() else body[: int(length)]

    def _unchunked(self, body: bytes) -> bytes:
        out: list[bytes] = []
        at = 0
        while True:
            end = body.find(b"\r\n", at)
            try:
                size = int(body[at:end].split(b";")[0], 16) if end >= 0 else -1
            except ValueError:
                size = -1
            if size < 0 or end + 2 + size > len(body):
                raise Unreachable(f"{self.redacted} answered with a cut or malformed body")
            if size == 0:
                return b"".join(out)
            out.append(body[end + 2 : end + 2 + size])
            at = end + 2 + size + 2

    def rpc(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any:
        """One JSON-RPC call; its ``result``, or Unreachable with one line."""
        self._id += 1
        request = {"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}
        raw = self._post(json.dumps(request).encode(), timeout or self.timeout)
        try:
            document = json.loads(raw)
        except ValueError:
            raise Unreachable(
                f"{self.redacted} answered {method} with something that is not JSON"
            ) from None
        return self._result(method, document, self._id)

    def batch(
        self, calls: list[tuple[str, dict[str, Any]]], *, timeout: float | None = None
    ) -> list[Any] | None:
        """Several JSON-RPC calls in one request (tm2 answers a JSON array); their
        answers, each a ``result`` or the Unreachable its error makes (returned, not
        raised, so the caller decides in what order to believe them). None when the
        node answers the batch with something else (a server or proxy without batches):
        then ask one call at a time."""
        first = self._id + 1
        self._id += len(calls)
        requests = [
            {"jsonrpc": "2.0", "id": first + n, "method": method, "params": params}
            for n, (method, params) in enumerate(calls)
        ]
        raw = self._post(json.dumps(requests).encode(), timeout or self.timeout)
        try:
            documents = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(documents, list) or len(documents) != len(calls):
            return None
        by_id = {doc.get("id"): doc for doc in documents if isinstance(doc, dict)}
        out: list[Any] = []
        for n, (method, _) in enumerate(calls):
            try:
                out.append(self._result(method, by_id.get(first + n), first + n))
            except Unreachable as problem:
                out.append(problem)
        return out

    def _result(self, method: str, document: Any, wanted: int) -> Any:
        """The ``result`` of the answer to call ``wanted``, or Unreachable in one line."""
        if not isinstance(document, dict) or document.get("id") != wanted:
            raise Unreachable(f"{self.redacted} answered {method} with another call's answer")
        error = document.get("error")
        if error:
            message = (
                error.get("data") or error.get("message") if isinstance(error, dict) else error
            )
            raise Unreachable(f"{self.redacted}: {method}: {first_line(str(message))[:300]}")
        if "result" not in document:
            raise Unreachable(f"{self.redacted} answered {method} without a result")
        return document["result"]


def rpc_timeout() -> float:
    """$C4_TIMEOUT: the seconds any one answer of a node may take."""
    return _seconds("C4_TIMEOUT", TIMEOUT)


def block_timeout() -> float:
    """$C4_BLOCK_TIMEOUT: the seconds a broadcast waits for the block that holds it. Past
    it the transaction is reported sent and pending (and its hash looked up for at most
    $C4_TIMEOUT more), and the next transaction of the account settles it."""
    return _seconds("C4_BLOCK_TIMEOUT", BLOCK_TIMEOUT)


def _seconds(variable: str, default: float) -> float:
    text = os.environ.get(variable, "")
    try:
        value = float(text) if text else default
    except ValueError:
        raise BadInput(f"invalid ${variable} {text!r}: a number of seconds") from None
    if not 0 < value <= 3600:
        raise BadInput(f"invalid ${variable} {text!r}: from a fraction of a second to 3600")
    return value
