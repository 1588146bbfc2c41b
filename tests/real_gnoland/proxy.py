"""A JSON-RPC proxy in front of the real node that rewrites chosen answers.

The node answers every request; a test names, per JSON-RPC method, what the
proxy does instead of passing the answer on: hold it, forge a success, hand back
another transaction's answer, change a field, trickle it out, or claim another
chain. Everything not named goes through untouched.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import signal
import subprocess
import time
import traceback
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from support import running

# A rule: (the request, a function that asks the node) -> the answer document to send,
# None to send nothing (the connection is closed without an answer), or an HTTP status
# to answer the whole request with (429: a rate-limited hosted RPC; 503).
Rule = Callable[[dict[str, Any], Callable[[], dict[str, Any]]], dict[str, Any] | int | None]


class Proxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, node_url: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.node_url = node_url
        self.rules: dict[str, Rule] = {}
        self.seen: list[str] = []
        self.requests: list[list[str]] = []  # each HTTP request's methods, a batch's all
        self.authorization: list[str] = []  # the basic-auth credentials c4 sent
        self.trickle_headers = False
        self.errors: list[str] = []  # a request that failed here (a node killed under it)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Kept, not printed: the tests that run c4 in this process read its stderr,
        which a traceback from this thread would land in."""
        self.errors.append(traceback.format_exc())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def forward(self, body: bytes) -> dict[str, Any]:
        request = urllib.request.Request(self.node_url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            document: dict[str, Any] = json.loads(answer.read())
        return document


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Proxy

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        auth = self.headers.get("Authorization")
        if auth and auth.startswith("Basic ") and auth[6:] not in self.server.authorization:
            self.server.authorization.append(auth[6:])
        request = json.loads(body)
        # A JSON-RPC batch (c4 sends its first read with the status that checks the
        # chain): each call answered as if it came alone, rules and all.
        calls = request if isinstance(request, list) else [request]
        self.server.requests.append([str(call.get("method")) for call in calls])
        answers = [self._answer(json.dumps(call).encode(), call) for call in calls]
        if any(answer is None for answer in answers):
            self.close_connection = True
            return
        status = next((answer for answer in answers if isinstance(answer, int)), None)
        if status is not None:
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "17")
            self.end_headers()
            self.wfile.write(b"too many requests")
            return
        data = json.dumps(answers if isinstance(request, list) else answers[0]).encode()
        if self.server.trickle_headers:
            # One header byte a second: every read of the socket gets something.
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            for byte in head:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(1)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _answer(self, body: bytes, request: dict[str, Any]) -> dict[str, Any] | int | None:
        method = str(request.get("method"))
        self.server.seen.append(method)
        rule = self.server.rules.get(method)
        if rule is None:
            return self.server.forward(body)
        return rule(request, lambda: self.server.forward(body))

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def proxy_for(node_url: str) -> Iterator[Proxy]:
    server = Proxy(node_url)
    with running(server):
        yield server


def interrupted_while_held(
    node_url: str, command: Callable[[str], tuple[list[str], dict[str, str]]]
) -> tuple[int, str]:
    """Run the c4 command line ``command(proxy_url)`` gives (argv and environment) through a
    proxy that passes its broadcast to the node and holds the answer; SIGINT it once
    the bytes have left. Its exit code and stderr."""

    def held(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        document = forward()  # the node has it, and commits it
        time.sleep(30)  # the answer is late
        return document

    with proxy_for(node_url) as proxy:
        proxy.rules["broadcast_tx_commit"] = held
        argv, env = command(proxy.url)
        proc = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 30
        while "broadcast_tx_commit" not in proxy.seen and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    return proc.returncode, err


def after_broadcast(proxy: Proxy, rule: Rule) -> Rule:
    """``rule`` once a broadcast went through ``proxy``; until then the node's answers
    pass (a transaction's landing is what is forged, not the header that proves the
    account's numbers before anything is signed)."""

    def ruled(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        return rule(request, forward) if "broadcast_tx_commit" in proxy.seen else forward()

    return ruled


def tx_hash_of(request: dict[str, Any]) -> str:
    """The TX HASH of the transaction a broadcast request carries."""
    raw = base64.b64decode(request["params"]["tx"])
    return base64.b64encode(hashlib.sha256(raw).digest()).decode()


def answer(request: dict[str, Any], result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def abci_answer(request: dict[str, Any], data: bytes, height: int = 1) -> dict[str, Any]:
    """An abci_query answer carrying ``data``."""
    return answer(
        request,
        {
            "response": {
                "ResponseBase": {
                    "Error": None,
                    "Data": base64.b64encode(data).decode(),
                    "Events": None,
                    "Log": "",
                    "Info": "",
                },
                "Key": None,
                "Value": None,
                "Proof": None,
                "Height": str(height),
            }
        },
    )


def abci_path(request: dict[str, Any]) -> str:
    return str(request.get("params", {}).get("path", ""))
