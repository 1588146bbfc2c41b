"""`c4 serve`'s HTTP server: tm2's RPC endpoints on one address, a thread a connection.

HTTP/1.1 with kept-alive connections, as gnoland's. A request's body is limited to
gnoland's ``max_body_bytes`` (1,000,000: its answer to more is its JSON-RPC error),
and the whole request must arrive within ``READ_TIMEOUT`` (a client that trickles is
cut off, as Go's server cuts it). A browser's page may read it (CORS, any origin);
what changes the chain is refused to a page of another origin and as a GET, and
the cheats (``c4_revert``, ``c4_mine``, ``c4_impersonate``, …) need the token it prints,
on every address (the loopback too: any local user reaches it), kept while it runs in
the home's ``serve.token``, which its owner alone can read
(:class:`~c4cli.serve.rpc.Caller`).

Stopping (Ctrl-C, SIGTERM) closes the listening socket, makes the block of what
waits in the pool (``--block-time``), wakes the idle connections, and waits for
every request in flight: a transaction being appended is appended whole and
answered, or not begun.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import queue
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

from c4cli.files import write_private
from c4cli.serve import rpc
from c4cli.serve.methods import Answers, Methods

MAX_BODY = 1_000_000
READ_TIMEOUT = 10.0
BACKLOG = 128  # connections a burst of clients may open before the first is taken
WRITE_BUFFER = 1 << 16  # bytes of a response gathered into one write
IDLE_THREADS = 32  # connection threads kept waiting for the next connection


TOKEN_FILE = "serve.token"  # the running server's token, 0600 in the home
UNPROVEN = "X-C4-Unproven"  # a gateway's answer that carries a node's word: what, and why


class Server(HTTPServer):
    """A connection a thread, as Go's server has a goroutine a connection; the threads
    are kept once their connection ends and take the next one (starting a thread for
    each new connection cost some 1.5 ms of its first answer: gnokey opens one for
    every query)."""

    allow_reuse_address = True
    request_queue_size = BACKLOG

    def __init__(
        self,
        address: tuple[str, int],
        home: Path,
        block_time: float = 0,
        methods: Callable[[str], Answers] | None = None,
    ) -> None:
        super().__init__(address, Handler)
        host, port = str(self.server_address[0]), int(self.server_address[1])
        self.url = f"http://{host}:{port}"
        # The cheats need this (printed at start, and kept for the home's owner alone):
        # on the loopback too, where any user of the machine reaches the server.
        self.token = secrets.token_hex(16)
        self.token_file = home / TOKEN_FILE
        write_private(self.token_file, self.token.encode() + b"\n", consequence="not served")
        # The home's local chain, or what ``methods`` makes for this address (a gateway).
        listen = f"{host}:{port}"
        self.methods: Answers = (
            Methods(home, listen, block_time) if methods is None else methods(listen)
        )
        self.open: set[socket.socket] = set()
        self.open_lock = threading.Lock()
        self._jobs: queue.SimpleQueue[tuple[Any, Any] | None] = queue.SimpleQueue()
        self._idle = 0  # threads waiting on _jobs
        self._threads: list[threading.Thread] = []
        self._closing = False
        self._threads_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        """The connection to a waiting thread, or to a new one when none waits."""
        with self._threads_lock:
            if self._idle:
                self._idle -= 1
                self._jobs.put((request, client_address))
                return
            thread = threading.Thread(
                target=self._serve, args=(request, client_address), name="c4-serve-connection"
            )
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)
        thread.start()

    def _serve(self, request: Any, client_address: Any) -> None:
        job: tuple[Any, Any] | None = (request, client_address)
        while job is not None:
            try:
                self.finish_request(*job)
            except Exception:
                self.handle_error(*job)
            finally:
                self.shutdown_request(job[0])
            with self._threads_lock:
                if self._closing or self._idle >= IDLE_THREADS:
                    return
                self._idle += 1
            job = self._jobs.get()

    def track(self, sock: socket.socket, add: bool) -> None:
        with self.open_lock:
            (self.open.add if add else self.open.discard)(sock)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that failed: one that the client reset or left is no news (no
        traceback per connection); anything else is said in one line."""
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError | TimeoutError):
            return
        print(f"c4 serve: a request failed: {type(error).__name__}: {error}", file=sys.stderr)

    def stop(self) -> None:
        """Stop accepting, make the pool's last block, wake the idle connections, and
        wait for the busy ones."""
        self.shutdown()
        self.methods.broadcaster.stop()
        with self._threads_lock:
            self._closing = True
            for _ in range(self._idle):
                self._jobs.put(None)
            self._idle = 0
            threads = list(self._threads)
        with self.open_lock:
            for sock in list(self.open):
                with contextlib.suppress(OSError):  # a pending read ends; a write goes on
                    sock.shutdown(socket.SHUT_RD)
        for thread in threads:
            thread.join()
        self.server_close()
        with contextlib.suppress(OSError):
            self.token_file.unlink()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "c4-serve"
    timeout = READ_TIMEOUT
    # A response's status line, headers and body leave in one write: the handler
    # flushes after each request (and a larger body follows at once, TCP_NODELAY
    # below). Written in two, the second waited for the client's delayed ACK (Nagle's
    # algorithm): ~40 ms on every request after a kept-alive connection's first.
    wbufsize = WRITE_BUFFER
    server: Server

    def setup(self) -> None:
        super().setup()
        # As Go's server sets it on every connection it accepts.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        return  # the log is the chain's; requests are not printed

    def handle_expect_100(self) -> bool:
        """``Expect: 100-continue`` (curl's, for a body over 1 kB): the interim answer
        leaves at once, or the client waits a second for it before sending its body."""
        self.send_response_only(100)
        self.end_headers()
        self.wfile.flush()
        return True

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        marks = getattr(self.server.methods, "take_marks", None)
        for mark in marks() if marks is not None else []:
            self.send_header(UNPROVEN, mark.encode("ascii", "replace").decode()[:500])
        if self.headers.get("Origin"):
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Vary", "Origin")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _body(self, started: float) -> bytes | None:
        """The request's body, read to its end within the deadline; None when too long."""
        length = int(self.headers.get("Content-Length") or 0)
        chunks, left = [], min(length, MAX_BODY + 1)  # past the limit, read as Go's server
        while left:
            remaining = started + READ_TIMEOUT - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the request did not arrive in time")
            self.connection.settimeout(remaining)
            chunk = self.rfile.read1(min(left, 65536))
            if not chunk:
                raise ConnectionError("the client went away")
            chunks.append(chunk)
            left -= len(chunk)
        self.connection.settimeout(self.timeout)  # the next request's wait, as before
        return None if length > MAX_BODY else b"".join(chunks)

    def do_POST(self) -> None:
        started = time.monotonic()
        try:
            body = self._body(started)
        except (TimeoutError, ConnectionError, ValueError):
            self.close_connection = True
            return
        if body is None:
            self.close_connection = True
            data = "http: request body too large"
            self._send(200, rpc.dumps(rpc.error_document("", rpc.INVALID_REQUEST, data)))
            return
        if self.path.split("?")[0] not in ("", "/"):
            document = rpc.error_document("", rpc.INVALID_REQUEST, f"invalid path: {self.path}")
            self._send(200, rpc.dumps(document))
            return
        if not body:
            self._send(200, rpc.endpoints(self.server.methods), "text/html")
            return
        answer = rpc.post(self.server.methods, body, self._caller())
        self._send(200, answer or b"")

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path in ("", "/"):
            self._send(200, rpc.endpoints(self.server.methods), "text/html")
            return
        answer = rpc.get(self.server.methods, path, query)
        if answer is None:
            self._send(404, b"404 page not found\n", "text/plain; charset=utf-8")
            return
        self._send(200, answer)

    do_HEAD = do_GET

    def _caller(self) -> rpc.Caller:
        """The request's page, if a browser names one of another origin, and whether it
        carries the server's token."""
        origin = self.headers.get("Origin") or ""
        token, given = self.server.token, self.headers.get("Authorization") or ""
        return rpc.Caller(
            foreign="" if origin in ("", self.server.url) else origin[:200],
            authorized=hmac.compare_digest(given.encode(), f"Bearer {token}".encode()),
        )

    def do_OPTIONS(self) -> None:
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Content-Type")
        self.send_header("Content-Length", "0")
        self.end_headers()


def run(server: Server, ready: Callable[[Server], None]) -> None:
    """Serve until interrupted; ``ready`` is told once the server answers."""
    thread = threading.Thread(target=server.serve_forever, name="c4-serve", daemon=True)
    thread.start()
    try:
        ready(server)
        while thread.is_alive():
            thread.join(0.5)
    finally:
        server.stop()


def loopback(host: str) -> bool:
    """Whether ``host`` (an address to listen on) is reached from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
