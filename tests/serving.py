"""`c4 serve` in process, on a real socket, for the tests that talk to it."""

from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path
from typing import Any

from c4cli.serve import server as served


class Served:
    def __init__(self, home: Path, host: str = "127.0.0.1") -> None:
        self.server = served.Server((host, 0), home)
        self.url = self.server.url
        self.port = int(self.url.rsplit(":", 1)[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def raw(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request(method, path, body=body or None, headers=headers or {})
        answer = conn.getresponse()
        data = answer.read()
        conn.close()
        return answer.status, data

    def post(self, document: Any) -> Any:
        """``document`` POSTed as the home's owner does: with the server's token."""
        headers = {"Authorization": f"Bearer {self.server.token}"}
        status, data = self.raw("POST", "/", json.dumps(document).encode(), headers)
        assert status == 200
        return json.loads(data) if data else None

    def rpc(self, method: str, **params: Any) -> Any:
        answer = self.post({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        assert "error" not in answer, answer
        return answer["result"]
