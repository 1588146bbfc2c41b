"""A node's connection opened while the command is still loading (a browser's preconnect).

Across a real network, a TCP connection and a TLS handshake cost two round trips
before the first request can leave, and a Python command spends tens of
milliseconds importing its code after it could know the node's URL. The console
calls :func:`dial` for a query or a move before the rest of c4 loads
(``cli/ahead.py``), and the door (``client/connect.py``) once it has read the
home's binding (a dial of the same node a moment later keeps the first): a thread
connects (and shakes hands) while the main thread imports, and the first
:class:`~c4cli.node.net.http.Connection` to that node takes the result with :func:`take`:
the socket, or the error its own connect would have raised. Nothing is ever written
here: the bytes of a request only leave on the connection that takes the socket.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

CONNECT_TIMEOUT = 60.0  # the caller waits only as long as its own deadline allows
FRESH = 5.0  # seconds a dial stands for the same node asked again (one command's start)


class _Dial:
    def __init__(self, host: str, port: int, tls: bool) -> None:
        self.host, self.port, self.tls = host, port, tls
        self.started = time.monotonic()
        self.sock: socket.socket | None = None
        self.context: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            # TLS's import, in this thread: off the main thread's path.
            self.sock = connect(
                self.host, self.port, CONNECT_TIMEOUT, self._context if self.tls else None
            )
        except BaseException as exc:  # handed to the connection, which raises it as its own
            self.error = exc

    def _context(self) -> Any:
        self.context = tls().create_default_context()
        return self.context


def connect(
    host: str,
    port: int,
    timeout: float,
    context: Callable[[], Any] | None = None,
    session: Any = None,
) -> socket.socket:
    """A TCP connection to ``host``, with ``TCP_NODELAY``; with ``context`` (called once
    the TCP handshake is done) TLS over it, resuming ``session`` if the server will."""
    # An ASCII host name goes to the resolver as bytes (getaddrinfo takes them;
    # typeshed says str only): as text, Python first loads the IDNA codec and
    # stringprep, ~10 ms of every remote command's start-up.
    name: str | bytes = host.encode() if host.isascii() else host
    sock = socket.create_connection((name, port), timeout=timeout)  # type: ignore[arg-type]
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if context is not None:
            sock = context().wrap_socket(sock, server_hostname=host, session=session)
    except BaseException:
        sock.close()
        raise
    return sock


_dials: dict[tuple[str, int, bool], _Dial] = {}


def tls() -> ModuleType:
    """The ssl module, imported for an https node only: TLS (~15 ms) costs a plain-HTTP
    node nothing."""
    import ssl

    return ssl


def dial(urls: str) -> None:
    """Begin connecting to the node at the first of ``urls`` (a home's, comma-separated);
    a URL that does not parse is left for the node client to refuse in its own words."""
    url = next((part.strip() for part in urls.split(",") if part.strip()), "")
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        tls = parts.scheme == "https"
        if parts.scheme not in ("http", "https", "tcp") or not parts.hostname:
            return
        port = parts.port or (443 if tls else 80)
    except ValueError:
        return
    key = (parts.hostname, port, tls)
    old = _dials.get(key)
    if old is not None and old.error is None and time.monotonic() - old.started < FRESH:
        return  # dialled as this command began (cli/ahead.py): that one serves
    if old is not None and old.sock is not None:  # one no command took: a fresh one instead
        old.sock.close()
    _dials[key] = _Dial(parts.hostname, port, tls)


def take(host: str, port: int, tls: bool, timeout: float) -> tuple[socket.socket, Any] | None:
    """The connection dialled to this node, once it is up (within ``timeout`` seconds):
    (the socket, its TLS context); the dial's error raised as the caller's own connect
    would; None when none was dialled (or it did not finish in time: TimeoutError)."""
    found = _dials.pop((host, port, tls), None)
    if found is None:
        return None
    if time.monotonic() - found.started >= FRESH and not found.thread.is_alive():
        # Another command's, in a process that runs several (a test's): its socket, or
        # its error, is of a server that may be gone from this address since.
        if found.sock is not None:
            found.sock.close()
        return None
    found.thread.join(timeout)
    if found.thread.is_alive():
        raise TimeoutError("connect")
    if found.error is not None:
        raise found.error
    assert found.sock is not None
    return found.sock, found.context
