"""`c4 serve` for gno.land's own tools: a whole staked game by gnokey v1.7.1 alone, the
same gnokey script against a real gnoland (`c4 node start`) with the same results, and
gno's JS client querying and moving. `c4 serve` runs as a user runs it (the installed
console script), on a fresh home.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from node.gnokey_game import (
    GAS_FEE,
    HOUSE_FEE,
    REALM,
    STAKE,
    Gnokey,
    Receipt,
    play,
    start,
)
from node.gnonode import install_gno, node_available
from oracles import js_clients, missing

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
        self.proc = subprocess.Popen(
            [c4_bin, "serve", "--listen", "127.0.0.1:0", "--json"],
            env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD=""),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        first = json.loads(self.proc.stdout.readline())
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
    payout = {"from": _realm(claimed), "to": addresses[slow.first]}
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


def _realm(receipt: Receipt) -> object:
    return receipt.events[0]["from"]


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
