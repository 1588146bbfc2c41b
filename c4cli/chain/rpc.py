"""tm2 JSON-RPC over HTTP, with a deadline for the whole answer.

Every call has a deadline for the whole answer, not only for each read of the
socket, and an answer is believed only if it is the JSON-RPC answer to that very
call: anything else (a proxy's HTML page, cut JSON, another id, a body of many
megabytes) is one line naming the node and exit 4, never a traceback.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import socket
import threading
import time as wallclock
from typing import Any
from urllib.parse import unquote, urlsplit

from c4cli.chain.answers import first_line
from c4cli.errors import BadInput, Unreachable

TIMEOUT = 10.0  # seconds for a whole answer to a read ($C4_TIMEOUT overrides)
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
        self._headers = {"Content-Type": "application/json"}
        if parts.username is not None:
            login = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            self._headers["Authorization"] = "Basic " + base64.b64encode(login.encode()).decode()

    def _post(self, body: bytes, timeout: float) -> bytes:
        """POST one request; the answer's bytes, read within ``timeout`` seconds in all.

        The exchange runs in a helper thread so that the deadline holds for the whole
        answer, status line and headers included: a server that trickles its headers
        a byte at a time is cut off at the deadline like one that never answers.
        """
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
        parts = self._parts
        if parts.scheme == "https":
            return http.client.HTTPSConnection(
                parts.hostname or "", parts.port or 443, timeout=timeout
            )
        return http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=timeout)

    def _exchange(self, connection: Any, body: bytes, deadline: float, timeout: float) -> bytes:
        try:
            connection.request("POST", self._parts.path or "/", body, self._headers)
            response = connection.getresponse()
            if response.status != 200:
                raise Unreachable(
                    f"{self.redacted} answered HTTP {response.status} "
                    f"{first_line(str(response.reason))[:80]}"
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
        if not isinstance(document, dict) or document.get("id") != self._id:
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


def _hang_up(connection: Any) -> None:
    """Stop an exchange that ran past its deadline: its thread's read ends at once."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def rpc_timeout() -> float:
    text = os.environ.get("C4_TIMEOUT", "")
    try:
        value = float(text) if text else TIMEOUT
    except ValueError:
        raise BadInput(f"invalid $C4_TIMEOUT {text!r}: a number of seconds") from None
    if not 0 < value <= 3600:
        raise BadInput(f"invalid $C4_TIMEOUT {text!r}: from a fraction of a second to 3600")
    return value
