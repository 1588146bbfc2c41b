"""`c4 serve` for gno.land's own tools: a whole staked game by gnokey v1.7.1 alone, the
same gnokey script against a real gnoland (`c4 node start`) with the same results, and
gno's JS client querying and moving. `c4 serve` runs as a user runs it (the installed
console script), on a fresh home.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from json_walk import validate
from oracles import js_clients, missing
from real_gnoland.gnokey_game import (
    GAS_FEE,
    HOUSE_FEE,
    REALM,
    STAKE,
    Gnokey,
    Receipt,
    play,
    start,
)
from real_gnoland.gnonode import install_gno, node_available

from c4cli.address import package_address
from c4cli.gotext import parse_result

# Two players' mnemonics (BIP39 of fixed entropy): gnokey and c4 hold the same keys.
MNEMONICS = {
    "alice": "abandon " * 23 + "art",
    "bob": "zoo " * 23 + "vote",
}
FUNDS = 10_000_000_000_000  # every key of a home, at genesis (10,000,000 GNOT)


def c4(c4_bin: str, home: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    run = subprocess.run(
        [c4_bin, *args],
        env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", **(env or {})),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, (args, run.stdout, run.stderr)
    return json.loads(run.stdout) if "--json" in args else run.stdout


def home_with_players(c4_bin: str, home: Path) -> dict[str, str]:
    addresses = {}
    for name, mnemonic in MNEMONICS.items():
        subprocess.run(
            [c4_bin, "keys", "add", name, "--recover"],
            input=mnemonic + "\n",
            env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD=""),
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        addresses[name] = c4(c4_bin, home, "keys", "show", name, "--json")["address"]
    return addresses


@pytest.fixture(scope="module")
def gnokey_bin() -> str:
    reason = node_available()
    if reason is not None:
        missing("go", reason + " (scripts/install-gno.sh installs gnokey)")
    return str(install_gno()[0] / "gnokey")


class Serving:
    def __init__(self, c4_bin: str, home: Path) -> None:
        self.c4_bin = c4_bin
        self.proc = subprocess.Popen(
            [c4_bin, "serve", "--listen", "127.0.0.1:0", "--json"],
            env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD=""),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        first = json.loads(self.proc.stdout.readline())
        validate("serve", first)
        self.url: str = first["url"]

    def stop(self) -> str:
        self.proc.send_signal(2)
        _, err = self.proc.communicate(timeout=30)
        return err


@pytest.fixture
def served(c4_bin: str, tmp_path: Path) -> Iterator[tuple[Path, dict[str, str], Serving]]:
    home = tmp_path / "home"
    addresses = home_with_players(c4_bin, home)
    c4(c4_bin, home, "init", "--clock", "manual", "--genesis-time", "2026-01-01T00:00:00Z")
    serving = Serving(c4_bin, home)
    try:
        yield home, addresses, serving
    finally:
        if serving.proc.poll() is None:
            serving.stop()


def gnokey_for(gnokey_bin: str, folder: Path, remote: str) -> Gnokey:
    gk = Gnokey(gnokey_bin, folder, remote)
    for name, mnemonic in MNEMONICS.items():
        gk.add(name, mnemonic)
    return gk


def test_gnokey_alone_plays_a_staked_game_on_c4_serve(
    c4_bin: str, gnokey_bin: str, served: Any, tmp_path: Path
) -> None:
    home, addresses, serving = served
    gk = gnokey_for(gnokey_bin, tmp_path / "gnokey", serving.url)
    assert gk.balance(addresses["alice"]) == FUNDS

    won = start(gk, "alice", "bob")  # a win: the first mover stacks column 4
    play(gk, won, "4545454")
    assert c4(c4_bin, home, "show", str(won.game_id), "--json")["game"]["status"] == "won"

    slow = start(gk, "bob", "alice")  # a timeout: one move, then silence
    play(gk, slow, "1")
    c4(c4_bin, home, "time", "advance", "91s")  # from another shell, while serving
    claimed = gk.call(slow.second, "ClaimTimeout", str(slow.game_id))
    payout = {"from": package_address(REALM), "to": addresses[slow.first]}
    assert claimed.events == [payout | {"coins": [{"denom": "ugnot", "amount": 9_900_000}]}]

    # The payouts, exact: every transaction paid its gas fee; each decisive game pays
    # its winner both stakes less the house fee.
    txs = {name: sum(1 for r in gk.receipts if r.key == name) for name in MNEMONICS}
    wins = {name: [won.first, slow.first].count(name) for name in MNEMONICS}
    for name, address in addresses.items():
        expected = FUNDS - 2 * STAKE - txs[name] * GAS_FEE + wins[name] * (2 * STAKE - HOUSE_FEE)
        assert gk.balance(address) == expected, name
        assert c4(c4_bin, home, "query", "balance", name, "--json")["ugnot"] == expected

    # The log holds exactly what gnokey sent, each at the height and hash it printed.
    logged = {
        tx["hash"]: block["height"]
        for block in c4(c4_bin, home, "log", "--json")
        for tx in block["txs"]
    }
    assert {r.hash: r.height for r in gk.receipts} == logged
    assert c4(c4_bin, home, "verify", "--json")["ok"] is True
    serving.stop()
    assert serving.proc.returncode == 0


def _script(gk: Gnokey) -> dict[str, Any]:
    """The CI script both chains run: a game to a win, and an offer cancelled."""
    won = start(gk, "alice", "bob")
    play(gk, won, "4545454")
    offered = gk.call("bob", "Offer", "", "30", "ab" * 32, str(HOUSE_FEE), send=STAKE)
    gk.call("bob", "Cancel", offered.data.strip()[1:].split(" ")[0])
    return gk.game(won.game_id)


def _storage(receipt: Receipt) -> int:
    """What the storage deposits of a receipt's events cost its signer (gnokey's form)."""
    cost = 0
    for event in receipt.events:
        if "fee_delta" in event:
            cost += int(event["fee_delta"]["amount"])  # type: ignore[index]
        elif "fee_refund" in event and not event.get("refund_withheld"):
            cost -= int(event["fee_refund"]["amount"])  # type: ignore[index]
    return cost


def _bank(receipt: Receipt) -> list[Any]:
    return [event for event in receipt.events if "coins" in event]


def test_the_same_gnokey_script_on_gnoland_and_on_c4_serve(
    c4_bin: str, gnokey_bin: str, gno_env: dict[str, str], served: Any, tmp_path: Path
) -> None:
    node_home = tmp_path / "node-home"
    addresses = home_with_players(c4_bin, node_home)
    started = c4(c4_bin, node_home, "node", "start", "--json", env=gno_env)
    try:
        on_node = gnokey_for(gnokey_bin, tmp_path / "gnokey-node", started["url"])
        node_game = _script(on_node)
        node_balances = {name: on_node.balance(a) for name, a in addresses.items()}
    finally:
        c4(c4_bin, node_home, "node", "stop", env=gno_env)
    _, serve_addresses, serving = served
    assert serve_addresses == addresses
    on_serve = gnokey_for(gnokey_bin, tmp_path / "gnokey-serve", serving.url)
    serve_game = _script(on_serve)

    # The realm's results and the bank's events, call by call; the final game but its times.
    def said(gk: Gnokey) -> list[Any]:
        return [(r.key, r.func, r.data, _bank(r)) for r in gk.receipts]

    assert said(on_serve) == said(on_node)
    times = ("expiresAt", "deadline")
    assert {k: v for k, v in serve_game.items() if k not in times} == {
        k: v for k, v in node_game.items() if k not in times
    }
    # Balances: gnoland also charges storage deposits, which the local chain does not meter.
    for name, address in addresses.items():
        storage = sum(_storage(r) for r in on_node.receipts if r.key == name)
        assert node_balances[name] + storage == on_serve.balance(address), name
    assert any(_storage(r) for r in on_node.receipts)
    assert not any(r.storage or _storage(r) for r in on_serve.receipts)


def test_gnos_js_client_reads_and_moves_on_c4_serve(
    c4_bin: str, gnokey_bin: str, served: Any, tmp_path: Path
) -> None:
    home, addresses, serving = served
    gk = gnokey_for(gnokey_bin, tmp_path / "gnokey", serving.url)
    game = start(gk, "alice", "bob")
    run = subprocess.run(
        ["node", "serve_client.js", serving.url, REALM, str(game.game_id), "4", "0"],
        cwd=js_clients(),
        input=MNEMONICS[game.first],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert (seen["chain_id"], seen["address"]) == ("dev", addresses[game.first])
    assert seen["balance"] == gk.balance(addresses[game.first]) + GAS_FEE  # before the move
    value, kind = parse_result(seen["game"])  # the VM's print: ("{…}" string)
    assert kind == "string" and json.loads(value)["game"]["turnPlayer"] == addresses[game.first]
    assert (
        f"| [#{game.game_id}](/r/samcrew/connect4:game/{game.game_id}) | 10 GNOT |" in seen["lobby"]
    )
    moved = seen["moved"]
    (block,) = [b for b in c4(c4_bin, home, "log", "--json") if b["height"] == int(moved["height"])]
    assert block["txs"][0]["hash"] == moved["hash"] and block["txs"][0]["func"] == "Play"
    assert c4(c4_bin, home, "show", str(game.game_id), "--json")["game"]["moves"] == 1
    assert c4(c4_bin, home, "verify", "--json")["ok"] is True


def _raw(url: str, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request(method, path, body=body or None)
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    return answer.status, data


def _shape(value: Any) -> Any:
    """A JSON document's structure: its keys in order, an @type's value, list items'
    shapes; other leaves stand for themselves only by kind (None matches any: tm2's
    empty values, where a chain in a folder has nothing)."""
    if isinstance(value, dict):
        return [(k, v if k == "@type" else _shape(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return None if value is None else type(value).__name__


def _same_shape(ours: Any, theirs: Any, where: str = "") -> None:
    if ours is None or theirs is None:
        return
    if isinstance(ours, list) and ours and isinstance(ours[0], tuple):
        assert [k for k, _ in ours] == [k for k, _ in theirs], where
        for (key, mine), (_, other) in zip(ours, theirs, strict=True):
            if key == "@type":
                assert mine == other, f"{where}.@type"
            else:
                _same_shape(mine, other, f"{where}.{key}")
    elif isinstance(ours, list) and isinstance(theirs, list):
        if ours and theirs and _kind(ours[0]) == _kind(theirs[0]):  # events of one kind
            _same_shape(ours[0], theirs[0], where + "[]")
    else:
        assert ours == theirs or ("str" in (ours, theirs) and ours in ("str", "list")), where


def _kind(shape: Any) -> Any:
    return (
        dict(shape).get("@type")
        if isinstance(shape, list) and shape and isinstance(shape[0], tuple)
        else None
    )


def test_c4_serve_answers_in_gnolands_shapes_and_errors(
    c4_bin: str, gno_node: Any, served: Any, tmp_path: Path
) -> None:
    """The same requests to a real gnoland and to c4 serve: each answer's structure (keys
    in gnoland's order, @types), and each error's code and words."""
    home, _, serving = served
    offered = c4(c4_bin, home, "offer", "--stake", "1gnot", "alice", "--json")
    node_tx = next(  # the deploy's (the first block that holds a transaction)
        txs[0]
        for height in range(1, 50)
        if (txs := gno_node.rpc("block", height=str(height))["block"]["data"]["txs"])
    )
    node_hash = base64.b64encode(hashlib.sha256(base64.b64decode(node_tx)).digest()).decode()
    alice = {
        "url": serving.url,
        "hash": offered["hash"],
        "who": c4(c4_bin, home, "keys", "show", "alice", "--json")["address"],
    }
    test1 = {
        "url": gno_node.url,
        "hash": node_hash,
        "who": "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5",
    }

    def calls(side: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
        data = base64.b64encode(b"gno.land/r/nowhere.X()").decode()
        return [
            ("status", {}),
            ("abci_info", {}),
            ("health", {}),
            ("net_info", {}),
            ("validators", {}),
            ("consensus_params", {}),
            ("block", {"height": "1"}),
            ("blockchain", {"minHeight": "1", "maxHeight": "1"}),
            ("block_results", {"height": "1"}),
            ("tx", {"hash": side["hash"]}),
            ("abci_query", {"path": f"auth/accounts/{side['who']}"}),
            ("abci_query", {"path": f"bank/balances/{side['who']}"}),
            ("abci_query", {"path": "auth/gasprice"}),
            ("abci_query", {"path": "vm/qeval", "data": data}),
            ("abci_query", {"path": "nope/x"}),
            ("broadcast_tx_commit", {"tx": base64.b64encode(b"\x0a\x00junk").decode()}),
        ]

    for (method, ours), (_, theirs) in zip(calls(alice), calls(test1), strict=True):
        mine = json.loads(_raw(serving.url, "POST", "/", _request(method, ours))[1])
        other = json.loads(_raw(gno_node.url, "POST", "/", _request(method, theirs))[1])
        assert list(mine) == list(other), method
        _same_shape(_shape(mine), _shape(other), method)
        if str(ours.get("path", "")).startswith("auth/accounts/"):  # the answer's own JSON
            data = [
                json.loads(base64.b64decode(d["result"]["response"]["ResponseBase"]["Data"]))
                for d in (mine, other)
            ]
            _same_shape(_shape(data[0]), _shape(data[1]), "account")
            assert list(data[0]) == list(data[1]) == ["BaseAccount", "attributes"]

    errors = [
        ("POST", "/", b"not json"),
        ("POST", "/", b'{"jsonrpc":"2.0","id":1,"method":"nope"}'),
        ("POST", "/", _request("tx", {"hash": "abc"})),
        ("POST", "/", _request("block", {"height": "999999"})),
        ("POST", "/", b"x" * 1_000_001),
        ("POST", "/", b'{"jsonrpc":"2.0","id":"","method":"health"}'),
        ("GET", "/tx?hash=abc", b""),
        ("GET", "/nope", b""),
    ]
    for method, path, body in errors:
        mine_status, mine = _raw(serving.url, method, path, body)
        other_status, other = _raw(gno_node.url, method, path, body)
        assert mine_status == other_status, (path, body[:40])
        if not other.startswith(b"{"):
            assert mine == other, (path, body[:40])
            continue
        ours_error, their_error = json.loads(mine)["error"], json.loads(other)["error"]
        assert ours_error["code"] == their_error["code"], (path, body[:40])
        assert ours_error["message"] == their_error["message"], (path, body[:40])
        if body != b"not json":  # the parser's own words differ (Go's and Python's)
            assert ours_error.get("data") == their_error.get("data"), (path, body[:40])


def _request(method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def test_gnokey_mistakes_and_other_gno_get_an_answer_never_a_hang_up(
    served: tuple[Path, dict[str, str], Serving], gnokey_bin: str, tmp_path: Path
) -> None:
    """Issue 48: with gnokey's default `-simulate test`, a send above the balance, a
    denomination nobody holds, a call to a realm that is not there, a `maketx run` and
    a `maketx addpkg`: each is refused in an answer (gnokey prints tm2's error, never
    EOF), nothing lands, and the server prints nothing (no traceback)."""
    home, addresses, serving = served
    gk = gnokey_for(gnokey_bin, tmp_path / "gnokey", serving.url.removeprefix("http://"))
    script = tmp_path / "run.gno"
    script.write_text('package main\n\nfunc main() { println("hi") }\n')
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "foo.gno").write_text("package foo\n\nfunc A() int { return 1 }\n")
    (package / "gnomod.toml").write_text('module = "gno.land/p/demo/foo"\ngno = "0.9"\n')
    bob = addresses["bob"]
    cases = {
        "a send above the balance": (["send", "-to", bob, "-send", f"{FUNDS * 2}ugnot"], [],
                                     "insufficient funds"),
        "a denomination nobody holds": (["send", "-to", bob, "-send", "5ugno"], [],
                                        "insufficient funds"),
        "a realm that is not there": (["call", "-pkgpath", "gno.land/r/nope/x", "-func", "F"],
                                      [], "invalid package path"),
        "maketx run": (["run"], [str(script)], "unknown request"),
        "maketx addpkg": (["addpkg", "-pkgdir", str(package), "-pkgpath",
                           "gno.land/p/demo/foo"], [], "unknown request"),
    }  # fmt: skip
    height = c4(serving.c4_bin, home, "time", "--json")["height"]
    for case, (args, after, words) in cases.items():
        argv = [gnokey_bin, "maketx", *args, "-gas-fee", f"{GAS_FEE}ugnot", "-gas-wanted",
                "5000000", "-broadcast", "-chainid", "dev", "-remote", gk.remote,
                "-insecure-password-stdin", "-home", str(gk.home), "alice", *after]  # fmt: skip
        run = subprocess.run(argv, input="\n", capture_output=True, text=True, timeout=120)
        out = run.stdout + run.stderr
        assert run.returncode != 0 and "EOF" not in out, (case, out)
        assert f"Data: {words}" in out, (case, out)
    assert c4(serving.c4_bin, home, "time", "--json")["height"] == height  # none landed
    assert serving.stop() == ""
