"""One kept-alive HTTP/1.1 connection to a node, written out over a socket.

A command sends all its requests to a node over one TCP connection (and one TLS
session), as Go's HTTP client does for gnokey: ``TCP_NODELAY`` so that no request
waits on Nagle's algorithm, each request in one write, each answer read exactly to
its end (``Content-Length`` or chunked) so the connection serves the next.

Every answer has a deadline for the whole of it, not only for each read of the
socket, and a size limit: a server that trickles is cut off like one that never
answers. http.client is not used: it brings the email package (some 20 ms of every
remote command's start-up) for headers a JSON-RPC answer does not have.

Bytes that may have left are never sent again: a connection the server closed
while idle is found closed *before* anything is written, and replaced; a request
whose answer is lost on a connection that was reused is asked again on a new one
only when the caller says it may be (a read), never for a broadcast.
"""

from __future__ import annotations

import base64
import select
import socket
import time as wallclock
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

from c4cli.errors import BadInput, Unreachable
from c4cli.node.net import early
from c4cli.node.net.answers import first_line
from c4cli.node.net.urls import redact

MAX_ANSWER = 16 * 1024 * 1024
READ = 65536
BROADCAST_IDLE = 2.0  # seconds a kept connection may have idled to carry a broadcast


class Exchange(Protocol):
    """A way to POST a JSON-RPC request to one node and read the answer's body: the
    socket (:class:`Connection`), or an in-process node in tests."""

    def post(self, body: bytes, timeout: float, *, replayable: bool) -> bytes:
        """The answer's body within ``timeout`` seconds, or Unreachable in one line.
        ``replayable``: the request may be sent twice (a read, never a broadcast)."""
        ...

    def close(self) -> None: ...


class Target:
    """Where a node URL (``http://127.0.0.1:26657``, ``https://rpc.gno.land:443``,
    gnokey's ``tcp://127.0.0.1:26657``) sends requests, checked when it is read;
    credentials in it are sent as HTTP basic authentication and never printed."""

    def __init__(self, url: str) -> None:
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
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.tls else 80)
        where = f"[{self.host}]" if ":" in self.host else self.host
        lines = [
            f"POST {parts.path or '/'}{'?' + parts.query if parts.query else ''} HTTP/1.1",
            f"Host: {where}{f':{parts.port}' if parts.port else ''}",
            "Content-Type: application/json",
        ]
        if parts.username is not None:
            login = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            lines.append("Authorization: Basic " + base64.b64encode(login.encode()).decode())
        # The head of every request, its body's length left to fill in.
        self.head = (
            "\r\n".join(lines).replace("%", "%%") + "\r\nContent-Length: %d\r\n\r\n"
        ).encode()


class Lost(Exception):
    """A reused connection found dead before any byte of the answer came: the server
    had closed it, and may never have read the request."""


class Connection:
    """The connection to one node, opened at the first request and kept open for the
    next while the server keeps it (HTTP/1.1's default)."""

    # What to do when the node refuses the connection, where the opener knows (a home
    # whose own node it is: start it); "" when it does not.
    down_hint = ""

    def __init__(self, target: Target) -> None:
        self.target = target
        self._sock: socket.socket | None = None
        self._session: Any = None  # the TLS session, to resume on a new connection
        self._context: Any = None
        self._used = 0.0  # when the connection last carried an answer
        self.opened = 0  # connections opened (the tests count them)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def post(self, body: bytes, timeout: float, *, replayable: bool) -> bytes:
        deadline = wallclock.monotonic() + timeout
        try:
            if self._sock is None:  # a connection dialled while c4 loaded, if one was
                self._sock = self._dialled(deadline)
            # A socket that carried nothing yet may have been closed as much as a kept one.
            reused = self._sock is not None and self._still_open(self._sock)
            # A broadcast's bytes go out once: not on a connection idle long enough for the
            # server to be closing it (tm2 lets one idle 10 s), whose loss proves nothing.
            idle = wallclock.monotonic() - self._used
            if not reused or (not replayable and idle > BROADCAST_IDLE):
                reused = False
                self.close()
            try:
                return self._exchange(body, deadline, timeout)
            except Lost:
                self.close()
                if not (reused and replayable):
                    raise Unreachable(
                        f"{self.target.redacted} closed the connection without answering"
                    ) from None
            # The server closed the kept connection as the request went out: a read is
            # asked once more, on a new connection.
            try:
                return self._exchange(body, deadline, timeout)
            except Lost:
                self.close()
                raise Unreachable(
                    f"{self.target.redacted} closed the connection without answering"
                ) from None
        except TimeoutError:
            self.close()
            raise Unreachable(
                f"{self.target.redacted} did not answer within {timeout:g} s"
            ) from None
        except Unreachable:
            self.close()
            raise
        except OSError as exc:
            self.close()
            reason = exc.strerror or str(exc) or type(exc).__name__
            refused = isinstance(exc, ConnectionRefusedError) and self.down_hint
            hint = f"; {self.down_hint}" if refused else ""
            raise Unreachable(
                f"cannot reach the chain at {self.target.redacted}: {reason}{hint}"
            ) from None

    def _exchange(self, body: bytes, deadline: float, timeout: float) -> bytes:
        if self._sock is None:
            self._sock = self._connect(deadline)
        sock = self._sock
        sock.settimeout(max(deadline - wallclock.monotonic(), 0.001))
        try:
            sock.sendall(self.target.head % len(body) + body)
        except (BrokenPipeError, ConnectionResetError):
            raise Lost from None
        answer = _Answer(self.target.redacted, sock, deadline, timeout)
        result = answer.body()
        self._used = wallclock.monotonic()
        if not answer.keep_alive:
            self.close()
        return result

    def _connect(self, deadline: float) -> socket.socket:
        left = max(deadline - wallclock.monotonic(), 0.001)
        tls = self._tls_context if self.target.tls else None
        sock = early.connect(self.target.host, self.target.port, left, tls, self._session)
        self.opened += 1
        return sock

    def _tls_context(self) -> Any:
        if self._context is None:
            self._context = early.tls().create_default_context()
        return self._context

    def _dialled(self, deadline: float) -> socket.socket | None:
        """The connection early.dial opened to this node while c4 loaded (its TCP and
        TLS handshakes done), or None; its error, raised as this connect's own."""
        left = max(deadline - wallclock.monotonic(), 0.001)
        dialled = early.take(self.target.host, self.target.port, self.target.tls, left)
        if dialled is None:
            return None
        self.opened += 1
        self._context = dialled[1] or self._context
        return dialled[0]

    def _still_open(self, sock: socket.socket) -> bool:
        """Whether a kept connection can carry a request: nothing waits to be read on it
        (the server's close, or bytes no request asked for, make it unusable)."""
        if self.target.tls:
            self._session = getattr(sock, "session", None) or self._session
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return False
        if not readable:
            return True
        if self.target.tls:
            sock.setblocking(False)
            try:
                sock.recv(1)
            except early.tls().SSLWantReadError:
                return True  # only TLS's own records (a session ticket): still open
            except OSError:
                return False
            finally:
                sock.setblocking(True)
        return False


class _Answer:
    """One HTTP/1.1 answer read off a socket: its status checked, its body read to its
    exact end, within the deadline and the size limit."""

    def __init__(self, node: str, sock: socket.socket, deadline: float, timeout: float) -> None:
        self.node = node
        self.sock = sock
        self.deadline = deadline
        self.timeout = timeout
        self.buffer = bytearray()
        self.size = 0
        self.keep_alive = False

    def _more(self, *, got_any: bool) -> bool:
        """Read what the server sends next into the buffer; False at its close."""
        left = self.deadline - wallclock.monotonic()
        if left <= 0:
            what = "finish answering" if got_any else "answer"
            raise Unreachable(f"{self.node} did not {what} within {self.timeout:g} s")
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(READ)
        except TimeoutError:
            raise Unreachable(f"{self.node} did not answer within {self.timeout:g} s") from None
        except ConnectionResetError:
            if not got_any:
                raise Lost from None
            raise
        if not chunk:
            return False
        self.size += len(chunk)
        if self.size > MAX_ANSWER:
            raise Unreachable(f"{self.node} answered more than {MAX_ANSWER >> 20} MiB")
        self.buffer += chunk
        return True

    def body(self) -> bytes:
        while b"\r\n\r\n" not in self.buffer:
            if not self._more(got_any=bool(self.buffer)):
                if not self.buffer:
                    raise Lost
                raise Unreachable(f"{self.node} answered something that is not HTTP")
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = bytes(head).decode("latin-1").split("\r\n")
        status = lines[0].split(" ", 2)
        if len(status) < 2 or not status[0].startswith("HTTP/"):
            raise Unreachable(f"{self.node} answered something that is not HTTP")
        if status[1] != "200":
            reason = status[2] if len(status) > 2 else ""
            raise Unreachable(
                f"{self.node} answered HTTP {status[1][:3]} {first_line(reason)[:80]}".rstrip()
            )
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip().lower()
        connection = headers.get("connection", "")
        self.keep_alive = (
            "close" not in connection if status[0] == "HTTP/1.1" else "keep-alive" in connection
        )
        self.buffer = rest
        if "chunked" in headers.get("transfer-encoding", ""):
            return self._chunked()
        length = headers.get("content-length")
        if length is None or not length.isdigit():
            self.keep_alive = False  # the answer ends where the server closes
            while self._more(got_any=True):
                pass
            return bytes(self.buffer)
        while len(self.buffer) < int(length):
            if not self._more(got_any=True):
                raise Unreachable(f"{self.node} did not finish answering within {self.timeout:g} s")
        if len(self.buffer) > int(length):
            self.keep_alive = False  # bytes past the answer: the connection is not clean
        return bytes(self.buffer[: int(length)])

    def _chunked(self) -> bytes:
        out: list[bytes] = []
        while True:
            line = self._line()
            try:
                size = int(line.split(b";")[0], 16)
            except ValueError:
                size = -1
            if size < 0:
                raise Unreachable(f"{self.node} answered with a cut or malformed body")
            if size == 0:
                while self._line():  # trailers, up to the blank line
                    pass
                if self.buffer:
                    self.keep_alive = False
                return b"".join(out)
            while len(self.buffer) < size + 2:
                if not self._more(got_any=True):
                    raise Unreachable(f"{self.node} answered with a cut or malformed body")
            out.append(bytes(self.buffer[:size]))
            del self.buffer[: size + 2]

    def _line(self) -> bytes:
        while b"\r\n" not in self.buffer:
            if not self._more(got_any=True):
                raise Unreachable(f"{self.node} answered with a cut or malformed body")
        line, _, rest = self.buffer.partition(b"\r\n")
        self.buffer = rest
        return bytes(line)
