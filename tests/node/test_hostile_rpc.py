"""A node that answers badly, or not at all: one line, exit 4, nothing recorded.

No gnoland here: the "node" is a socket nobody listens on, or a server on
127.0.0.1 that answers every JSON-RPC call the way a broken node or a proxy in
front of one does. The home is bound to a node (its config.toml says so) and holds
funded-looking keys, so that a move gets as far as a move can before it needs the
node.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from c4cli.home.config import Remote, write_remote
from c4cli.home.journal import JOURNAL
from c4cli.home.keys import Keyring
from support import Home

REALM_PATH = "gno.land/r/c4cli/connect4"


@pytest.fixture
def bound(tmp_path: Path) -> Home:
    """A home bound to a node at a port nobody listens on, with alice's key."""
    home = Home(tmp_path / "home")
    Keyring(home.path).add("alice", bytes(range(1, 33)), "")
    write_remote(home.path, Remote(f"http://127.0.0.1:{_free_port()}", "dev", REALM_PATH))
    return home


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_node_that_does_not_answer(bound: Home) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    for args in (["lobby"], ["query", "game", "1"], ["play", "1", "4", "alice"]):
        result = bound.run("--remote", url, *args)
        assert result.exit_code == 4, (args, result.output)
        assert result.stderr.count("\n") == 1 and url in result.stderr, result.stderr
    assert bound.sent() == []
    assert not (bound.path / JOURNAL).exists()  # nothing was recorded as sent


def test_a_json_error_names_the_node(bound: Home) -> None:
    result = bound.run("--remote", "http://127.0.0.1:1", "--json", "lobby")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["ok"] is False


class _Hostile(http.server.BaseHTTPRequestHandler):
    """Answers every JSON-RPC call the way its server's ``mode`` says a bad node does."""

    mode = ""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        mode = self.server.mode  # type: ignore[attr-defined]
        if mode == "status 502":
            self.send_response(502)
            self.end_headers()
            return
        bodies = {
            "garbage": b"\x00\xff\xfe not json at all",
            "html": b"<html><body><h1>502 Bad Gateway</h1></body></html>",
            "truncated": b'{"jsonrpc":"2.0","id":1,"result":{"response":{"ResponseBase"',
            "wrong id": b'{"jsonrpc":"2.0","id":424242,"result":{}}',
            "no result": b'{"jsonrpc":"2.0","id":1}',
            "odd shape": b'{"jsonrpc":"2.0","id":1,"result":{"response":7}}',
        }
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if mode == "html" else "application/json")
        self.end_headers()
        if mode == "huge":
            chunk = b"[" * 65536
            for _ in range(20 * 16):  # 20 MiB, more than c4 reads
                try:
                    self.wfile.write(chunk)
                except OSError:
                    return
        elif mode == "slow":
            for _ in range(60):  # a byte every half second: each read is quick, the whole is not
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.5)
        else:
            self.wfile.write(bodies[mode])

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def hostile() -> Iterator[http.server.ThreadingHTTPServer]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


MODES = ["garbage", "html", "truncated", "wrong id", "no result", "odd shape", "huge", "slow"]


@pytest.mark.parametrize("mode", [*MODES, "status 502"])
def test_a_hostile_node_is_one_line_and_exit_4(
    bound: Home, hostile: http.server.ThreadingHTTPServer, mode: str
) -> None:
    hostile.mode = mode  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{hostile.server_address[1]}"
    before = bound.sent()
    for args in (["query", "game", "1"], ["play", "1", "4", "alice"]):
        started = time.monotonic()
        result = bound.run("--remote", url, *args, env={"C4_TIMEOUT": "2"})
        took = time.monotonic() - started
        assert result.exit_code == 4, (mode, args, result.output)
        assert result.stderr.count("\n") == 1 and url in result.stderr, (mode, result.stderr)
        assert "Traceback" not in result.output
        assert took < 8, (mode, args, took)  # bounded by the deadline, not by the server
    assert bound.sent() == before  # nothing was recorded as sent
    assert not (bound.path / JOURNAL).exists()


class _Framed(http.server.BaseHTTPRequestHandler):
    """Answers each JSON-RPC call (or batch of them) with ``{"ok": method}``, framed
    the way the server's ``framing`` says: chunked, or with a Content-Length."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        calls = request if isinstance(request, list) else [request]
        answers = [{"jsonrpc": "2.0", "id": c["id"], "result": {"ok": c["method"]}} for c in calls]
        if self.server.framing == "no batches" and isinstance(request, list):  # type: ignore[attr-defined]
            answers = [{"jsonrpc": "2.0", "id": -1, "error": "batches unsupported"}]
        self.server.sizes.append(len(calls))  # type: ignore[attr-defined]
        if self.server.framing == "at most 3" and len(calls) > 3:  # type: ignore[attr-defined]
            # tm2's refusal of a batch past its max_batch_requests: one answer, no id
            too_long = f"batch of {len(calls)} requests exceeds the limit of 3"
            error = {"code": -32600, "message": "Invalid Request", "data": too_long}
            request, answers = {}, [{"jsonrpc": "2.0", "id": "", "error": error}]
        data = json.dumps(answers if isinstance(request, list) else answers[0]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.server.framing == "chunked":  # type: ignore[attr-defined]
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for at in range(0, len(data), 7):
                piece = data[at : at + 7]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.mark.parametrize("framing", ["chunked", "length", "no batches"])
def test_answers_are_read_however_they_are_framed(framing: str) -> None:
    """The HTTP client c4 writes out (no http.client): a chunked answer and one with a
    Content-Length read alike; a batch comes back in one request, and a server
    without batches is asked one call at a time."""
    from c4cli.node.net.transport import RpcCall, Transport

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Framed)
    server.framing = framing  # type: ignore[attr-defined]
    server.sizes = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        transport = Transport(f"http://127.0.0.1:{server.server_address[1]}")
        transport.checked = True  # this server is no chain: only the framing is tested
        assert transport.call("status", {}) == {"ok": "status"}
        both = transport.calls([RpcCall("status", {}), RpcCall("abci_query", {"path": "x"})])
        assert both == [{"ok": "status"}, {"ok": "abci_query"}]
        assert transport.takes_batches == (framing != "no batches")
    finally:
        server.shutdown()
        server.server_close()


def test_a_node_that_takes_short_batches_is_asked_in_short_ones() -> None:
    """A batch longer than the node's max_batch_requests is refused whole (tm2's
    words name the limit): the same calls are asked again in batches of that length,
    their answers in the order asked, and later batches are cut before they leave."""
    from c4cli.node.net.transport import RpcCall, Transport

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Framed)
    server.framing, server.sizes = "at most 3", []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        transport = Transport(f"http://127.0.0.1:{server.server_address[1]}")
        transport.checked = True  # this server is no chain: only the batches are tested
        methods = [f"m{n}" for n in range(8)]
        found = transport.calls([RpcCall(m, {}) for m in methods])
        assert found == [{"ok": m} for m in methods]
        assert transport.batch_limit == 3
        assert server.sizes == [8, 3, 3, 2]  # type: ignore[attr-defined]
        assert transport.calls([RpcCall(m, {}) for m in methods[:7]]) == found[:7]
        assert server.sizes[4:] == [3, 3, 1]  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def test_a_bot_outlives_a_node_that_does_not_answer(bound: Home, c4_bin: str) -> None:
    """`c4 bot` on a node that is down: it says so and looks again, until stopped."""
    import os
    import signal
    import subprocess

    env = dict(os.environ, C4_HOME=str(bound.path), C4_PASSWORD="", C4_TIMEOUT="1")
    proc = subprocess.Popen(
        [c4_bin, "bot", "1", "alice", "--until-end"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4)
    assert proc.poll() is None  # still looking
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    lines = err.splitlines()
    assert proc.returncode == 130 and lines[-1].startswith("Error: interrupted"), err
    looks = [line for line in lines if line.endswith("; looking again")]
    assert len(looks) >= 2 and all("cannot reach the chain at" in line for line in looks)
    assert bound.sent() == []
