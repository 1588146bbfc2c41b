"""`c4 serve` over real sockets, in process: tm2's methods on the local chain, c4's own
node client against it, the envelope's errors, and snapshots.

What gnokey, gnoweb and gno's JS client do against it, and the shapes side by side
with a real gnoland, are in tests/real_gnoland/test_serve_node.py.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import Served

from c4cli.address import package_address
from c4cli.serve import server as served
from c4cli.wire.merkle import merkle_root
from c4cli.wire.std import Tx, encode_tx
from support import Home, start_game, strong


@pytest.fixture
def node(chain: Home) -> Iterator[Served]:
    serving = Served(chain.path)
    yield serving
    serving.server.stop()


def test_blocks_and_transactions_read_as_tm2_gives_them(chain: Home, node: Served) -> None:
    game = chain.json("offer", "--stake", "1gnot", "alice")
    status = node.rpc("status")
    assert status["node_info"]["network"] == "dev"
    assert status["sync_info"]["latest_block_height"] == "1"
    assert status["sync_info"]["latest_block_time"] == "2026-01-01T00:00:05Z"
    record = chain.json("log")[0]
    assert (
        status["sync_info"]["latest_block_hash"]
        == base64.b64encode(bytes.fromhex(record["hash"])).decode()
    )

    block = node.rpc("block", height="1")["block"]
    (raw_b64,) = block["data"]["txs"]
    raw = base64.b64decode(raw_b64)
    assert base64.b64encode(hashlib.sha256(raw).digest()).decode() == game["hash"]
    header = block["header"]
    assert (header["height"], header["num_txs"], header["total_txs"]) == ("1", "1", "1")
    data_hash = merkle_root([hashlib.sha256(raw).digest()])
    assert data_hash is not None and header["data_hash"] == base64.b64encode(data_hash).decode()

    found = node.rpc("tx", hash=game["hash"])
    assert (found["height"], found["index"], found["tx"]) == ("1", 0, raw_b64)
    deliver = found["tx_result"]["ResponseBase"]
    assert base64.b64decode(deliver["Data"]) == b"(1 int)\n\n"
    assert deliver["Events"] == [
        {
            "@type": "/bank.TransferEvent",
            "from": chain.address("alice"),
            "to": package_address("gno.land/r/samcrew/connect4"),
            "coins": "1000000ugnot",
        }
    ]
    results = node.rpc("block_results", height="1")["results"]["deliver_tx"]
    assert results == [found["tx_result"]]
    metas = node.rpc("blockchain", minHeight="1", maxHeight="1")
    assert metas["last_height"] == "1" and metas["block_metas"][0]["header"] == header


def test_gnowebs_state_queries_get_a_tm2_refusal_that_says_why(node: Served) -> None:
    """Issue 48: vm/qpkg_json (gnoweb's State tab) is answered as gnoland answers a path
    it does not serve, an UnknownRequestError whose log names gnoland for it."""
    data = base64.b64encode(b"gno.land/r/samcrew/connect4").decode()
    answer = node.rpc("abci_query", path="vm/qpkg_json", data=data)["response"]
    base = answer["ResponseBase"]
    assert base["Error"] == {"@type": "/std.UnknownRequestError"}
    assert base["Log"].startswith("vm/qpkg_json reads the GnoVM's stored objects")
    assert "c4 node start" in base["Log"]


def test_c4s_own_node_client_plays_through_it(chain: Home, node: Served) -> None:
    """c4 --remote at c4 serve: its queries, simulation, broadcast and look-ups all land
    on the same home's log, and replay holds."""
    started = start_game(chain, "", passphrase=strong("a"), seed=strong("b"))
    before = len(chain.json("log"))
    shown = chain.json("show", started.id, "--remote", node.url)
    assert shown["game"]["turnPlayer"] == chain.address(started.first)
    played = chain.json(
        "play", started.id, "4", started.first, "--remote", node.url, "--chain-id", "dev"
    )
    assert played["game"]["moves"] == 1
    # A node named for one command is trusted for nothing: the receipt says so.
    assert played["verified"] is False and played["proof"] is None
    assert played["unverified"].startswith("a node this home is not bound to")
    assert len(chain.json("log")) == before + 1
    assert chain.json("log")[-1]["txs"][0]["hash"] == played["hash"]
    assert chain.json("verify")["ok"] is True


def test_a_home_bound_to_c4_serve_takes_its_word_only_when_told(
    chain: Home, node: Served, tmp_path: Path
) -> None:
    """c4 serve has no validators, so no block of it can be proven: binding a home to it
    is refused in one line naming --trust-node, and with --trust-node the home trusts
    no set, and the binding remembers it (issue 48): every later command takes the
    node's word, and its receipts say so."""
    other = Home(tmp_path / "other")
    refused = other.run("init", "--remote", node.url)
    assert refused.exit_code == 4 and refused.stderr.count("\n") == 1, refused.stderr
    assert "a node without validators (such as c4 serve) proves no block" in refused.stderr
    assert not (other.path / "config.toml").exists()
    bound = other.json("--trust-node", "init", "--remote", node.url)
    assert bound["trust"] is None and not (other.path / "trust.toml").exists()
    assert "trust_node = true" in (other.path / "config.toml").read_text()
    assert other.json("time")["height"] == chain.json("time")["height"]
    assert other.json("--trust-node", "time")["height"] == chain.json("time")["height"]
    other.ok("keys", "add", "dave")
    sent = other.run("send", "--to", "dave", "--amount", "5ugnot", "dave")  # none to send
    assert sent.exit_code != 0 and "--trust-node" not in sent.stderr, sent.output
    both = other.run(
        "--trust-node", "init", "--remote", node.url, "--force", "--trust", "1:" + "A" * 64
    )
    assert both.exit_code == 2 and "--trust-node trusts none" in both.stderr


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (b"not json", -32700, "Parse error. Invalid JSON"),
        (b'{"jsonrpc":"2.0","id":1,"method":"nope"}', -32601, "Method not found"),
        (b'{"jsonrpc":"2.0","id":1,"method":"tx","params":{"hash":"abc"}}', -32602, None),
        (b'{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"99"}}', -32603, None),
    ],
)
def test_the_envelopes_errors_are_tm2s(
    node: Served, body: bytes, code: int, message: str | None
) -> None:
    status, data = node.raw("POST", "/", body)
    error = json.loads(data)["error"]
    assert status == 200 and error["code"] == code
    if message is not None:
        assert error["message"] == message


def test_bytes_that_do_not_decode_are_refused_and_nothing_is_appended(
    chain: Home, node: Served
) -> None:
    before = chain.log_bytes()
    answer = node.rpc("broadcast_tx_commit", tx=base64.b64encode(b"\x00\x01junk").decode())
    assert answer["check_tx"]["ResponseBase"]["Error"] == {"@type": "/std.TxDecodeError"}
    assert answer["height"] == "0"
    assert chain.log_bytes() == before


def test_a_refused_call_is_a_check_refusal_and_never_appended(chain: Home, node: Served) -> None:
    signed = chain.path.parent / "cancel.json"
    signed.write_text(chain.ok("call", "Cancel", "77", "alice", "--generate-only").stdout)
    chain.ok("sign", str(signed), "alice")
    tx = Tx.from_json(json.loads(signed.read_text()))
    before = chain.log_bytes()
    answer = node.rpc("broadcast_tx_commit", tx=base64.b64encode(encode_tx(tx)).decode())
    check = answer["check_tx"]["ResponseBase"]
    assert check["Error"] == {"@type": "/abci.StringError", "value": "game not found"}
    assert check["Log"] == "game not found" and answer["height"] == "0"
    assert chain.log_bytes() == before


def test_uri_form_batches_and_notifications(chain: Home, node: Served) -> None:
    status, data = node.raw("GET", "/status")
    assert status == 200 and json.loads(data)["id"] == ""
    status, data = node.raw("GET", f'/abci_query?path="bank/balances/{chain.address("alice")}"')
    answer = json.loads(data)["result"]["response"]
    assert base64.b64decode(answer["ResponseBase"]["Data"]) == b'"10000000000000ugnot"'
    expr = b"gno.land/r/samcrew/connect4.fee"
    status, data = node.raw("GET", '/abci_query?path="vm/qeval"&data=0x' + expr.hex())
    answer = json.loads(data)["result"]["response"]
    assert base64.b64decode(answer["ResponseBase"]["Data"]) == b"(100000 int64)"
    assert node.raw("GET", "/nope")[0] == 404
    batch = [
        {"jsonrpc": "2.0", "id": 2, "method": "health"},
        {"jsonrpc": "2.0", "id": "", "method": "health"},  # a notification: no answer
        {"jsonrpc": "2.0", "id": 3, "method": "status"},
    ]
    answers = node.post(batch)
    assert [a["id"] for a in answers] == [2, 3]
    assert node.post({"jsonrpc": "2.0", "id": "", "method": "health"}) is None


def test_an_oversize_body_and_a_trickle_are_cut_off(
    node: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, data = node.raw("POST", "/", b"x" * (served.MAX_BODY + 1))
    error = json.loads(data)["error"]
    assert status == 200
    assert (error["code"], error["data"]) == (-32600, "http: request body too large")
    monkeypatch.setattr(served, "READ_TIMEOUT", 0.5)
    with socket.create_connection(("127.0.0.1", node.port), timeout=5) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        started = time.monotonic()
        for _ in range(20):
            time.sleep(0.1)
            try:
                sock.sendall(b" ")
            except OSError:
                break
        assert sock.recv(1000) == b""  # closed without an answer, as Go's server does
        assert time.monotonic() - started < 4
    assert node.rpc("health") == {}  # the server goes on


def test_snapshot_revert_and_time_over_rpc(chain: Home, node: Served) -> None:
    snap = node.rpc("c4_snapshot")
    chain.ok("offer", "--stake", "1gnot", "alice")
    moved = node.rpc("c4_advanceTime", seconds="91")
    assert moved["height"] == "2"
    assert moved["time"] == "2026-01-01T00:01:36Z"  # 00:00:05 + 91 s
    for made_up in ("1:0000000000000000", "garbage"):  # the caller's: invalid params
        answer = node.post({"jsonrpc": "2.0", "id": 1, "method": "c4_revert",
                            "params": {"id": made_up}})  # fmt: skip
        assert answer["error"]["code"] == -32602, answer
    reverted = node.rpc("c4_revert", id=snap["id"])
    assert (reverted["height"], reverted["blocks_cut"]) == ("0", "2")
    assert node.rpc("status")["sync_info"]["latest_block_height"] == "0"
    assert chain.json("verify")["ok"] is True
    kept = Path(reverted["kept"]).read_text()
    assert "# end of block 2" in kept and "Offer" in kept


def _signed(chain: Home, name: str, *call: str) -> str:
    """A call signed by ``name`` for its next sequence, as base64 bytes to broadcast."""
    path = chain.path.parent / f"{name}.json"
    path.write_text(chain.ok("call", *call, name, "--generate-only").stdout)
    chain.ok("sign", str(path), name, "--send-cap", "10gnot")
    return base64.b64encode(encode_tx(Tx.from_json(json.loads(path.read_text())))).decode()


def test_with_a_block_time_what_arrived_lands_in_one_block(chain: Home) -> None:
    serving = Served.__new__(Served)
    serving.server = served.Server(("127.0.0.1", 0), chain.path, block_time=0.5)
    serving.url = serving.server.url
    serving.port = int(serving.url.rsplit(":", 1)[1])
    serving.thread = threading.Thread(target=serving.server.serve_forever, daemon=True)
    serving.thread.start()
    try:
        commitment = "ab" * 32
        txs = {
            "alice": _signed(
                chain, "alice", "Offer", "", "30", commitment, "100000", "--send", "1gnot"
            ),
            "bob": _signed(chain, "bob", "Offer", "", "30", "cd" * 32, "100000", "--send", "2gnot"),
            "carol": _signed(chain, "carol", "Cancel", "77"),
        }
        answers: dict[str, Any] = {}

        def send(name: str) -> None:
            answers[name] = serving.rpc("broadcast_tx_commit", tx=txs[name])

        threads = [threading.Thread(target=send, args=(name,)) for name in txs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        heights = {name: answer["height"] for name, answer in answers.items()}
        assert heights["alice"] == heights["bob"] == "1" and heights["carol"] == "0"
        carol = answers["carol"]["check_tx"]["ResponseBase"]["Error"]
        assert carol == {"@type": "/abci.StringError", "value": "game not found"}
        (block,) = chain.json("log")
        assert len(block["txs"]) == 2
        assert chain.json("verify")["ok"] is True
        # sync answers once the bytes decode; the block follows.
        offered = base64.b64decode(answers["alice"]["deliver_tx"]["ResponseBase"]["Data"])
        game = offered.decode().split()[0].lstrip("(")  # "(N int)": the order they came in
        again = _signed(chain, "alice", "Cancel", game)
        said = serving.rpc("broadcast_tx_sync", tx=again)
        assert said["error"] is None and said["hash"]
        for _ in range(200):
            if len(chain.json("log")) == 2:
                break
            time.sleep(0.1)
        assert chain.json("log")[-1]["txs"][0]["hash"] == said["hash"]
    finally:
        serving.server.stop()


def test_a_c4_command_and_a_broadcast_at_the_same_moment(
    chain: Home, node: Served, c4_bin: str
) -> None:
    """Both sign for alice's next sequence: each lands or is refused in the chain's
    words (c4 signs again after a taken sequence), and the log replays whole."""
    for round_ in range(4):
        raw = _signed(
            chain, "alice", "Offer", "", "30", f"{round_:064x}", "100000", "--send", "1gnot"
        )
        env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
        proc = subprocess.Popen(
            [c4_bin, "send", "--to", "bob", "--amount", f"{round_ + 1}ugnot", "alice", "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        answer = node.rpc("broadcast_tx_commit", tx=raw)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, 1), err
        check = answer["check_tx"]["ResponseBase"]
        if check["Error"] is not None:
            assert check["Error"] == {"@type": "/std.UnauthorizedError"}
            assert check["Log"].startswith("signature verification failed")
        hashes = {tx["hash"] for block in chain.json("log") for tx in block["txs"]}
        assert (answer["hash"] in hashes) == (check["Error"] is None)
        assert (proc.returncode == 0) == (json.loads(out).get("hash") in hashes)
    assert chain.json("verify")["ok"] is True


def test_a_port_in_use_is_one_line_and_exit_2(chain: Home) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = chain.fails(2, "serve", "--listen", f"127.0.0.1:{port}")
    assert refused.stderr == (f"Error: cannot listen on 127.0.0.1:{port}: Address already in use\n")


WRITES = {
    "broadcast_tx_commit": "tx",
    "broadcast_tx_sync": "tx",
    "broadcast_tx_async": "tx",
    "c4_revert": "id",
    "c4_advanceTime": "seconds",
}


def test_a_web_page_cannot_change_the_chain(chain: Home, node: Served) -> None:
    """Issue 47: what changes the chain, as a GET (a page's link or image) or POSTed by a
    page of another origin, is refused and the chain is as it was; reads stay open to
    any page (gnoweb's and the JS client's), CORS and all."""
    snap = node.rpc("c4_snapshot")
    chain.ok("offer", "--stake", "1gnot", "alice")
    signed = _signed(chain, "bob", "Offer", "", "30", "cd" * 32, "100000", "--send", "2gnot")
    log, head = chain.log_bytes(), node.rpc("status")["sync_info"]
    values = {"tx": signed, "id": snap["id"], "seconds": "91"}
    page = {"Origin": "https://evil.example", "Content-Type": "text/plain"}
    for method, name in WRITES.items():
        value = values[name]
        query = f"0x{base64.b64decode(value).hex()}" if name == "tx" else f'"{value}"'
        status, data = node.raw("GET", f"/{method}?{name}={query}")
        error = json.loads(data)["error"]
        assert (status, error["code"]) == (200, -32600), error
        assert error["data"] == (
            f"{method} changes the chain: POST it (a GET, which any page can make, is refused)"
        )
        body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {name: value}}
        for document in (body, [body]):
            status, data = node.raw("POST", "/", json.dumps(document).encode(), page)
            answered = json.loads(data)
            error = (answered[0] if isinstance(answered, list) else answered)["error"]
            assert error["data"] == (
                f"{method} changes the chain: refused to a page of another origin "
                "(https://evil.example)"
            )
    assert chain.log_bytes() == log and node.rpc("status")["sync_info"] == head
    # A read from that page is answered, with the header a browser needs to see it.
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
    read = {"jsonrpc": "2.0", "id": 1, "method": "status"}
    conn.request("POST", "/", json.dumps(read).encode(), page)
    answer = conn.getresponse()
    assert answer.getheader("Access-Control-Allow-Origin") == "*"
    assert json.loads(answer.read())["result"]["node_info"]["network"] == "dev"
    conn.close()
    # Without a page (gnokey, the JS client in Node, curl) the same broadcast lands.
    assert node.rpc("broadcast_tx_commit", tx=signed)["height"] == "2"


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1"], ids=["beyond", "loopback"])
def test_on_every_address_the_cheats_need_the_token(chain: Home, host: str) -> None:
    """Any user of the machine reaches a loopback server: its cheats need the token as
    a public one's do. The token is kept for the home's owner alone while it runs."""
    import stat

    serving = Served(chain.path, host)
    kept = chain.path / "serve.token"
    try:
        assert kept.read_text().strip() == serving.server.token
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        token = serving.server.token
        assert len(token) == 32
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "c4_advanceTime", "params": {"seconds": "5"}}
        ).encode()
        for given in ({}, {"Authorization": "Bearer " + "0" * 32}):
            error = json.loads(serving.raw("POST", "/", body, given)[1])["error"]
            assert "needs the token c4 serve printed" in error["data"]
        assert chain.json("time")["height"] == 0
        done = json.loads(serving.raw("POST", "/", body, {"Authorization": f"Bearer {token}"})[1])
        assert done["result"]["height"] == "1"
        # Reads and signed broadcasts need no token.
        assert "result" in json.loads(serving.raw("GET", "/status")[1])
    finally:
        serving.server.stop()
    assert not kept.exists()  # gone with the server


def test_hostile_bodies_are_one_line_errors(
    node: Served, capfd: pytest.CaptureFixture[str]
) -> None:
    """Deep nesting, a lone surrogate, 5,000-digit integers and a client that resets
    mid-request: each a JSON-RPC error (or a closed connection), never a traceback."""
    cases = [
        (b"[" * 100_000 + b"]" * 100_000, -32700, "exceeded max depth"),
        (b'{"jsonrpc":"2.0","id":"\\ud800","method":"nope"}', -32601, None),
        (b'{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"' + b"9" * 5000 + b'"}}',
         -32602, "invalid character '9' looking for beginning of value"),
        (b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"health"}', -32700, None),
    ]  # fmt: skip
    for body, code, words in cases:
        status, data = node.raw("POST", "/", body)
        error = json.loads(data.decode("utf-8"))["error"]
        assert status == 200 and error["code"] == code, error
        assert words is None or error["data"] == words
    status, data = node.raw("GET", "/block?height=" + "9" * 5000)
    assert json.loads(data)["error"]["code"] == -32602
    for _ in range(3):
        sock = socket.create_connection(("127.0.0.1", node.port))
        sock.sendall(b"POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00" * 2)
        sock.close()  # a reset, not a close
    time.sleep(0.3)
    assert node.rpc("health") == {}
    assert "Traceback" not in capfd.readouterr().err


def test_a_burst_of_forty_connections_is_taken(node: Served) -> None:
    """Forty clients connect at once (a CI job's parallel gnokeys): each is accepted
    at once (a full backlog drops the handshake, and the client waits a second or more
    to try again) and answered."""
    answered: list[int] = []
    barrier = threading.Barrier(40)

    def client() -> None:
        barrier.wait()
        sock = socket.create_connection(("127.0.0.1", node.port), timeout=0.9)
        sock.settimeout(10)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        sock.close()
        answered.append(int(data.split(b" ", 2)[1]))

    threads = [threading.Thread(target=client) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answered == [200] * 40


def test_each_answer_leaves_in_one_write_with_nagle_off(
    node: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 53: on a kept-alive connection (gnokey's three or four requests a
    transaction, gnoweb's and the JS client's), an answer written in two writes waits
    for the client's delayed ACK before its second part leaves; c4 serve writes each
    answer once, on a socket with TCP_NODELAY as Go's server sets it."""
    writes: list[int] = []
    send, sendall = socket.socket.send, socket.socket.sendall

    def counted(original: Any) -> Any:
        def write(sock: socket.socket, data: Any, *flags: int) -> Any:
            if sock in node.server.open:
                writes.append(len(data))
            return original(sock, data, *flags)

        return write

    monkeypatch.setattr(socket.socket, "send", counted(send))
    monkeypatch.setattr(socket.socket, "sendall", counted(sendall))
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
    body = b'{"jsonrpc":"2.0","id":1,"method":"status","params":{}}'
    for _ in range(3):  # the JSON-RPC POST, the URI form, an error
        conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
        assert conn.getresponse().read()
        conn.request("GET", "/abci_query?path=%22nope%22")
        assert conn.getresponse().read()
        conn.request("GET", "/no-such-endpoint")
        missing = conn.getresponse()
        assert missing.status == 404 and missing.read()
    (server_side,) = node.server.open
    assert server_side.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    conn.close()
    assert len(writes) == 9, writes


def test_expect_100_continue_is_answered_at_once(node: Served) -> None:
    """curl asks `Expect: 100-continue` for a body over 1 kB and waits up to a second
    for the interim answer: it leaves before the body is read."""
    sock = socket.create_connection(("127.0.0.1", node.port), timeout=10)
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "health", "params": {}, "x": "y" * 2000}
    )
    head = (
        f"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n\r\n"
    )
    sock.sendall(head.encode())
    sock.settimeout(0.5)  # not a timing: the interim answer never comes without a flush
    assert sock.recv(65536).startswith(b"HTTP/1.1 100 Continue\r\n")
    sock.settimeout(10)
    sock.sendall(body.encode())
    data = b""
    while b'"result"' not in data:
        data += sock.recv(65536)
    sock.close()
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")


def test_a_block_time_beats_on_a_fixed_grid() -> None:
    """Issue 53: with --block-time the blocks keep a node's beat: the time a block takes
    to make does not push the next one later, and a beat missed is skipped."""
    from c4cli.serve.broadcast import next_beat

    assert next_beat(10.0, 10.3, 1.0) == 11.0  # a block took 0.3 s: the next still at 11
    assert next_beat(11.0, 11.01, 1.0) == 12.0
    assert next_beat(10.0, 12.25, 1.0) == 13.0  # 11 and 12 missed: on the grid, not at 13.25
    assert next_beat(10.0, 11.0, 1.0) == 12.0  # exactly on a beat: the next one


def test_a_connections_thread_takes_the_next_connection(node: Served) -> None:
    """Issue 53: gnokey opens a connection for every query; a thread started for each
    cost some 1.5 ms of its answer, so a thread whose connection ended takes the next."""
    for _ in range(20):
        status, _ = node.raw("GET", "/health")
        assert status == 200
    time.sleep(0.2)  # the last connection's thread back to waiting (not a timing: a wait)
    serving = [t for t in threading.enumerate() if t.name == "c4-serve-connection"]
    assert 1 <= len(serving) <= 5, serving  # a few: a client may come back before one waits
