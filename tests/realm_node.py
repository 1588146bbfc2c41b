"""A node on 127.0.0.1 whose realm answers what a test makes it answer: ``status``, and
``abci_query`` ``vm/qeval`` of ``ActiveJSON`` (and ``GameJSON``) as gno.land prints a
string value. What a hostile node can put in a game (an escape sequence for a
creator, a deadline of 10^20) reaches c4 exactly as a real node's answer would.
"""

from __future__ import annotations

import base64
import http.server
import json
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from c4cli.gotext import quote
from support import running

NOW = 1_796_383_382
ADDRESS = "g172ldvt4fry06x4a2kmymkdxd8p3mepy86l6fxf"


def game(game_id: int, **fields: Any) -> dict[str, Any]:
    """An open offer as ActiveJSON lists one, with ``fields`` changed."""
    base = {
        "id": game_id,
        "creator": ADDRESS,
        "opponent": "",
        "acceptor": "",
        "stake": 1_000_000,
        "fee": 100_000,
        "expiresAt": NOW + 900,
        "commitment": "fd" * 32,
        "seedCommitment": "",
        "revealed": False,
        "board": "0" * 42,
        "turn": 0,
        "turnPlayer": "",
        "moves": 0,
        "lastCol": 0,
        "lastRow": 0,
        "deadline": 0,
        "status": "open",
        "winner": "",
    }
    return {**base, **fields}


class RealmNode(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, games: list[dict[str, Any]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.games = games
        self.errors: list[str] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Kept, not printed (see tests/real_gnoland/proxy.py)."""
        self.errors.append(traceback.format_exc())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def result(self, method: str, params: dict[str, Any]) -> Any:
        if method == "status":
            return {
                "node_info": {"network": "dev"},
                "sync_info": {
                    "latest_block_height": "5",
                    "latest_block_time": "2026-12-04T10:00:00Z",
                    "catching_up": False,
                },
            }
        asked = base64.b64decode(params.get("data") or "").decode()
        if asked.endswith(".ActiveJSON(0, 100)"):
            value = {"now": NOW, "fee": 100_000, "games": self.games}
        else:
            found = [g for g in self.games if asked.endswith(f".GameJSON({g['id']})")]
            value = {"now": NOW, "game": found[0] if found else None}
        data = f"({quote(json.dumps(value))} string)".encode()
        base = {"Error": None, "Data": base64.b64encode(data).decode(), "Events": None}
        return {"response": {"ResponseBase": {**base, "Log": "", "Info": ""}, "Height": "5"}}


class _Handler(http.server.BaseHTTPRequestHandler):
    server: RealmNode

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        calls = request if isinstance(request, list) else [request]
        answers = [
            {
                "jsonrpc": "2.0",
                "id": call["id"],
                "result": self.server.result(call["method"], call.get("params") or {}),
            }
            for call in calls
        ]
        body = json.dumps(answers if isinstance(request, list) else answers[0]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def realm_node(games: list[dict[str, Any]]) -> Iterator[RealmNode]:
    server = RealmNode(games)
    with running(server):
        yield server
