"""One kept-alive connection per node per command, over real sockets (plain and TLS),
to the in-process node of tests/fakenode.py behind an HTTP/1.1 server that counts
connections; and the money rules where the server closes a kept connection."""

from __future__ import annotations

import http.server
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakenode import ALICE, ALICE_KEY, BOB, FEE, SKIP, FakeNode, Ledger
from real_gnoland.wan import certificate

from c4cli.chain.interface import Signer
from c4cli.errors import Unreachable
from c4cli.home.journal import Journal
from c4cli.node.chain import open_node
from c4cli.node.net.http import Connection, Target
from c4cli.node.spec import NodeSpec
from c4cli.settings import Settings
from c4cli.wire.tx import send_msg


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, node: FakeNode, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.node = node
        self.tls = tls
        self.connections = 0
        self.requests = 0
        # What the server does after answering request N (1-based): "close" closes the
        # connection as a server that keeps none would, silently; "drop" reads request
        # N, has the node do the work, and closes without answering.
        self.after: dict[int, str] = {}
        self.trickle = False

    def get_request(self) -> tuple[Any, Any]:
        sock, address = super().get_request()
        self.connections += 1
        if self.tls is not None:
            sock = self.tls.wrap_socket(sock, server_side=True)
        return sock, address

    @property
    def url(self) -> str:
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://localhost:{self.server_address[1]}"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.requests += 1
        what = self.server.after.get(self.server.requests)
        answer = self.server.node.answer(body)
        if what == "drop":
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        if self.server.trickle:
            for byte in answer:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.2)
        else:
            self.wfile.write(answer)
        if what == "close":
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        return


def _serve(server: Server) -> Iterator[Server]:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def ledger() -> Ledger:
    return Ledger({ALICE: 10**9, BOB: 0})


@pytest.fixture
def server(ledger: Ledger) -> Iterator[Server]:
    yield from _serve(Server(FakeNode(ledger)))


def _send(url: str, home: Path, ugnot: int = 5) -> int:
    deadlines = Settings.read().deadlines()  # as a run reads $C4_TIMEOUT
    spec = NodeSpec(url, "gno.land/r/c4cli/connect4", "dev", Journal(home), deadlines=deadlines)
    chain = open_node(spec)
    build = lambda reader: [send_msg(ALICE, BOB, f"{ugnot}ugnot")]  # noqa: E731
    receipt = chain.submit(Signer(ALICE, ALICE_KEY), build, FEE, "", policy=SKIP)
    for _ in range(3):  # polls after it, as `c4 watch` makes them
        time.sleep(0.6)  # past the half second a status answer stands for the head
        chain.head()
    return receipt.height


def test_a_send_and_what_follows_take_one_connection(server: Server, tmp_path: Path) -> None:
    assert _send(server.url, tmp_path) == 2
    assert (server.connections, server.requests) == (1, 5)  # 2 for the send, 3 polls


def test_a_connection_the_server_closed_while_idle_is_replaced(
    server: Server, ledger: Ledger, tmp_path: Path
) -> None:
    server.after = {1: "close", 2: "close"}
    assert _send(server.url, tmp_path) == 2 and ledger.accounts[BOB][2] == 5
    assert server.connections == 3  # a new one after each close, found before writing


def test_a_broadcast_whose_connection_dies_is_looked_up_never_resent(
    server: Server, ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("C4_TIMEOUT", "2")
    server.after = {2: "drop"}  # the broadcast reaches the node; its answer never comes
    assert _send(server.url, tmp_path) == 2 and ledger.accounts[BOB][2] == 5
    assert len(ledger.all_txs()) == 1
    assert [m for m in server.node.seen if "broadcast_tx_commit" in m] == [
        ["broadcast_tx_commit", "block", "status"]
    ]


def test_a_read_whose_kept_connection_dies_is_asked_once_more(
    server: Server, tmp_path: Path
) -> None:
    connection = Connection(Target(server.url))
    body = b'{"jsonrpc":"2.0","id":1,"method":"status","params":{}}'
    connection.post(body, 2, replayable=True)
    server.after = {2: "drop"}
    assert b'"network": "dev"' in connection.post(body, 2, replayable=True)
    assert (connection.opened, server.requests) == (2, 3)
    server.after = {4: "drop"}
    with pytest.raises(Unreachable, match="closed the connection without answering"):
        connection.post(body, 2, replayable=False)  # a broadcast's bytes: never again


def test_an_answer_that_trickles_is_cut_at_the_deadline(server: Server) -> None:
    server.trickle = True
    connection = Connection(Target(server.url))
    started = time.monotonic()
    with pytest.raises(Unreachable, match=r"did not (finish answering|answer) within 1 s"):
        connection.post(b'{"jsonrpc":"2.0","id":1,"method":"status"}', 1, replayable=True)
    assert time.monotonic() - started < 3


def test_over_tls_a_command_keeps_one_session(
    ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    certificate(cert, key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    for server in _serve(Server(FakeNode(ledger), context)):
        (tmp_path / "home").mkdir()
        assert _send(server.url, tmp_path / "home") == 2
        assert (server.connections, server.requests) == (1, 5)


BODY = b'{"jsonrpc":"2.0","id":1,"method":"status","params":{}}'


def test_a_connection_dialled_while_c4_loads_serves_the_first_request(server: Server) -> None:
    """The door dials the node as soon as it knows the URL (node/net/early.py); the first
    request goes out on that connection, not a second one."""
    from c4cli.node.net import early

    early.dial(server.url)
    connection = Connection(Target(server.url))
    assert b'"network": "dev"' in connection.post(BODY, 2, replayable=True)
    assert (server.connections, connection.opened) == (1, 1)


def test_an_early_dial_that_failed_is_the_connections_own_failure() -> None:
    import socket

    from c4cli.node.net import early

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there once it is closed
    url = f"http://127.0.0.1:{port}"
    early.dial(url)
    connection = Connection(Target(url))
    connection.down_hint = "start it"
    with pytest.raises(Unreachable, match=r"cannot reach the chain at .*refused; start it"):
        connection.post(BODY, 2, replayable=True)


def test_a_dial_another_command_left_is_not_this_ones(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a process that runs several commands (the tests' CliRunner), a dial one of
    them made and never took (its failure, when nothing listened at that port then)
    is not the connection of a later command to whatever listens there now."""
    from c4cli.node.net import early

    early.dial(server.url)
    stale = next(d for d in early._dials.values() if d.port == server.server_address[1])
    stale.thread.join(5)
    stale.error, stale.sock = ConnectionRefusedError(111, "Connection refused"), None
    monkeypatch.setattr(stale, "started", stale.started - early.FRESH)
    connection = Connection(Target(server.url))
    assert b'"network": "dev"' in connection.post(BODY, 2, replayable=True)


def test_the_console_reads_the_url_c4_wrote_and_guesses_nothing_else(tmp_path: Path) -> None:
    """cli/ahead.py reads only the line c4 writes in config.toml (a hint: what it
    cannot read is no dial, and the command reads its config as always)."""
    from c4cli.cli.ahead import _bound_url
    from c4cli.home.config import Remote, write_remote

    write_remote(tmp_path, Remote("https://rpc.example.com:443", "test5", "gno.land/r/x"))
    assert _bound_url(str(tmp_path / "config.toml")) == "https://rpc.example.com:443"
    (tmp_path / "config.toml").write_text('fee_cap = "5gnot"\n[other]\nurl = "http://no"\n')
    assert _bound_url(str(tmp_path / "config.toml")) is None
    (tmp_path / "config.toml").write_text('[remote]\nurl = "http://a\\"b"\n')
    assert _bound_url(str(tmp_path / "config.toml")) is None
    assert _bound_url(str(tmp_path / "missing" / "config.toml")) is None
