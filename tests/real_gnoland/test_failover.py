"""A home bound to several RPC URLs of one chain: the first that serves is used.

One real gnoland here, reached directly and through proxies that play a node gone
down, a node still catching up, and a node that takes a broadcast and loses its
answer (and then claims never to have seen it). A network of validators is the
subject of its own tests; these hold the client's part on any number of nodes.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from typing import Any

import pytest
from real_gnoland.proxy import abci_answer, answer, proxy_for
from real_gnoland.test_remote import deploy_copy, home_with_keys

from c4cli.home.config import Remote, read_remote, write_remote
from support import Home, start_game

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/failover/connect4"


@pytest.fixture(scope="module")
def deployed(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    deploy_copy(gno_node, REALM_PATH, tmp_path_factory.mktemp("failover-realm"))


def _dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _home(gno_node: Any, folder: Any, *urls: str) -> Home:
    home = home_with_keys(gno_node, folder)
    write_remote(home.path, Remote(",".join(urls), "dev", REALM_PATH))
    return home


def catching_up(request: dict[str, Any], forward: Any) -> dict[str, Any]:
    found = forward()
    found["result"]["sync_info"]["catching_up"] = True
    return dict(found)


def test_init_binds_every_url_and_a_dead_first_one_is_skipped(
    gno_node: Any, deployed: None, tmp_path: Any
) -> None:
    home = home_with_keys(gno_node, tmp_path)
    dead = _dead_url()
    refused = home.run("init", "--remote", f"{gno_node.url},{dead}", "--realm-path", REALM_PATH)
    assert refused.exit_code == 4 and dead in refused.stderr  # every URL must answer at init
    assert read_remote(home.path) is None
    home.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    write_remote(home.path, Remote(f"{dead},{gno_node.url}", "dev", REALM_PATH))
    assert home.json("query", "fees")["owner"]  # read through the second URL
    before = int(home.json("query", "balance", "bob")["ugnot"])
    receipt = home.json("send", "--to", "bob", "--amount", "7ugnot", "alice")
    assert receipt["ok"] and int(home.json("query", "balance", "bob")["ugnot"]) == before + 7
    # All of them down: one line naming each, exit 4.
    write_remote(home.path, Remote(f"{dead},{_dead_url()}", "dev", REALM_PATH))
    result = home.run("query", "fees")
    assert result.exit_code == 4 and "no node of this chain could serve" in result.stderr
    assert result.stderr.count("cannot reach the chain at") == 2


def test_a_node_still_catching_up_is_not_read(gno_node: Any, deployed: None, tmp_path: Any) -> None:
    """Its answers are old: never believed (here they are garbage, and the command still
    answers right, from the next node)."""
    direct = _home(gno_node, tmp_path / "direct", gno_node.url).json("query", "fees")
    with proxy_for(gno_node.url) as behind:
        behind.rules["status"] = catching_up
        behind.rules["abci_query"] = lambda request, forward: abci_answer(request, b"old")
        alone = _home(gno_node, tmp_path / "alone", behind.url)
        result = alone.run("query", "fees")
        assert result.exit_code == 4 and "is still catching up" in result.stderr
        home = _home(gno_node, tmp_path / "two", behind.url, gno_node.url)
        assert home.json("query", "fees") == direct


def test_a_lost_broadcast_is_looked_up_on_every_node(
    gno_node: Any, deployed: None, tmp_path: Any
) -> None:
    """The first node takes the transaction, loses its answer, and then says it never saw
    it: the second node has it, so the move is reported landed, once, not sent again."""

    def lose(request: dict[str, Any], forward: Any) -> None:
        forward()  # the node has it
        return None  # the answer never comes

    def deny(request: dict[str, Any], forward: Any) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": request["id"],
            "error": {"code": -32603, "message": "Internal error", "data": "tx not found"},
        }

    with proxy_for(gno_node.url) as first:
        first.rules["broadcast_tx_commit"] = lose
        first.rules["tx"] = deny
        home = _home(gno_node, tmp_path, first.url, gno_node.url)
        before = int(home.json("query", "balance", "bob")["ugnot"])
        receipt = home.json("send", "--to", "bob", "--amount", "5ugnot", "alice")
        assert receipt["ok"] and receipt["height"] > 0
        assert first.seen.count("broadcast_tx_commit") == 1
    assert int(home.json("query", "balance", "bob")["ugnot"]) == before + 5
    (entry,) = [tx for tx in home.sent() if tx["hash"] == receipt["hash"]]
    assert entry["tx_status"] == "landed", entry
    assert json.dumps(answer({"id": 1}, None))  # the proxy's helpers stay importable


def test_a_node_behind_this_homes_last_transaction_is_waited_for(
    gno_node: Any, deployed: None, tmp_path: Any
) -> None:
    """Read-your-writes: a node a block or two behind the home's last landed
    transaction is given a moment; one that stays behind is refused in one line."""
    home = _home(gno_node, tmp_path, gno_node.url)
    landed = home.json("send", "--to", "bob", "--amount", "3ugnot", "alice")["height"]
    lagging = {"left": 2}

    def behind(request: dict[str, Any], forward: Any) -> dict[str, Any]:
        found = dict(forward())
        if lagging["left"] > 0:
            lagging["left"] -= 1
            found["result"]["sync_info"]["latest_block_height"] = str(landed - 1)
        return found

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["status"] = behind
        result = home.run("--remote", proxy.url, "query", "balance", "bob", "--json")
        assert result.exit_code == 0, result.output
        assert proxy.seen.count("status") >= 3 and lagging["left"] == 0
        lagging["left"] = 10**6  # and now it stays behind
        started = time.monotonic()
        result = home.run("--remote", proxy.url, "query", "balance", "bob")
        assert result.exit_code == 4 and "the node is behind" in result.stderr
        assert time.monotonic() - started < 10


def test_a_block_that_does_not_come_is_bounded_by_the_users_deadlines(
    gno_node: Any, deployed: None, tmp_path: Any
) -> None:
    """The broadcast never reaches a block (the proxy sits on it): the command ends
    within $C4_BLOCK_TIMEOUT plus $C4_TIMEOUT, says sent and pending, and the next
    send settles it (the same bytes sent again: it lands once)."""

    def sits(request: dict[str, Any], forward: Any) -> None:
        time.sleep(30)
        return None

    home = _home(gno_node, tmp_path, gno_node.url)
    before = int(home.json("query", "balance", "bob")["ugnot"])
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = sits
        started = time.monotonic()
        result = home.run(
            "--remote", proxy.url, "send", "--to", "bob", "--amount", "4ugnot", "alice",
            env={"C4_TIMEOUT": "2", "C4_BLOCK_TIMEOUT": "2"},
        )  # fmt: skip
        took = time.monotonic() - started
    assert result.exit_code == 4 and "is pending, not yet seen in a block" in result.stderr
    assert took < 12, took
    (pending,) = [tx for tx in home.sent() if tx["tx_status"] == "pending"]
    settled = home.run("send", "--to", "bob", "--amount", "1ugnot", "alice")
    assert settled.exit_code == 0, settled.output
    assert f"transaction {pending['hash']}, sent earlier, landed" in settled.stderr
    assert int(home.json("query", "balance", "bob")["ugnot"]) == before + 4 + 1


def test_a_chain_without_blocks_is_said_instead_of_a_clock_counting_down(
    gno_node: Any, deployed: None, tmp_path: Any, c4_bin: str, monkeypatch: Any
) -> None:
    """`c4 show` and `c4 watch` on a node whose last block is five minutes old: the move
    clock (block time) stands still with the chain, and they say so. The halt is a
    proxy's forged status, which only a home that takes the node's word believes
    (--trust-node): a verified head is the last signed header's."""
    monkeypatch.setenv("C4_TRUST_NODE", "1")
    home = _home(gno_node, tmp_path / "home", gno_node.url)
    started = start_game(home, "4")
    old = time.strftime("%Y-%m-%dT%H:%M:%S.5Z", time.gmtime(time.time() - 300))

    def halted(request: dict[str, Any], forward: Any) -> dict[str, Any]:
        found = forward()
        found["result"]["sync_info"]["latest_block_time"] = old
        return dict(found)

    with proxy_for(gno_node.url) as still:
        still.rules["status"] = halted
        write_remote(home.path, Remote(still.url, "dev", REALM_PATH))
        shown = home.ok("show", started.id).stdout
        assert "(no block for 30" in shown and "stands still with the chain)" in shown, shown
        assert "s left" not in shown
        watch = subprocess.Popen(
            [c4_bin, "watch", started.id],
            env=dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD=""),
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert watch.stdout is not None
            lines = [watch.stdout.readline() for _ in range(2)]
        finally:
            watch.kill()
            watch.wait()
        assert lines[1].startswith(f"game {started.id}, move 1: ") and (
            "to move, no block for 30" in lines[1]
        ), lines
