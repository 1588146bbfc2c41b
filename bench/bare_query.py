"""The least a Python command can do to answer `query vm/qrender`: the floor c4 is held to.

    python bench/bare_query.py HOST:PORT PATH DATA

One JSON-RPC ``abci_query`` over a plain socket, its answer printed as gnokey prints
it, and nothing else: no home, no chain id check, no second node, no check of the
answer's shape, no escaping of what the node wrote. `remote.py` times it with the
interpreter c4 is installed under, in the same rounds as c4 and gnokey, so the
share of c4's time that is Python's own start-up (and the share that is c4's) is
measured, not guessed. Not a client to use.
"""

import base64
import json
import socket
import sys


def main() -> None:
    host, port = sys.argv[1].rsplit(":", 1)
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "abci_query",
        "params": {"path": sys.argv[2], "data": base64.b64encode(sys.argv[3].encode()).decode()},
    }
    body = json.dumps(request).encode()
    head = f"POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    head += f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n"
    with socket.create_connection((host, int(port))) as conn:
        conn.sendall(head.encode() + body)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    _, _, payload = received.partition(b"\r\n\r\n")
    if b"Transfer-Encoding: chunked" in received.split(b"\r\n\r\n", 1)[0]:
        payload = _unchunk(payload)
    response = json.loads(payload)["result"]["response"]
    data = base64.b64decode(response["ResponseBase"]["Data"] or "").decode()
    print(f"height: {response['Height']}\ndata: {data}")


def _unchunk(payload: bytes) -> bytes:
    body = b""
    while payload:
        size, _, payload = payload.partition(b"\r\n")
        length = int(size, 16)
        if length == 0:
            break
        body, payload = body + payload[:length], payload[length + 2 :]
    return body


if __name__ == "__main__":
    main()
