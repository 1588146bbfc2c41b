"""anvil's cheats over `c4 serve`'s RPC (c4_setBalance, c4_mine,
c4_setNextBlockTimestamp, c4_dumpState, c4_loadState, c4_impersonate): each as its
`c4 cheat` does, the log keeping what changed; an impersonated signer's broadcast
taken without a valid signature on a chain that allows it, and refused elsewhere."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import Served

from c4cli.wire.std import Tx, encode_tx
from c4cli.wire.tx import fee, send_msg
from support import GENESIS, Home


@pytest.fixture
def node(chain: Home) -> Iterator[Served]:
    serving = Served(chain.path)
    yield serving
    serving.server.stop()


def test_each_cheat_over_rpc_is_the_cli_s(chain: Home, node: Served, tmp_path: Path) -> None:
    bob = chain.address("bob")
    set_to = node.rpc("c4_setBalance", address=bob, amount="7gnot")
    assert set_to["height"] == "1" and chain.balance("bob") == 7_000_000
    assert node.rpc("c4_mine", blocks="3")["height"] == "4"
    assert node.rpc("c4_setNextBlockTimestamp", time="2026-02-01T00:00:00Z") == {
        "time": "2026-02-01T00:00:00Z"
    }
    assert chain.json("cheat", "mine", "1")["time"] == "2026-02-01T00:00:00Z"
    node.rpc("c4_setNextBlockTimestamp", time=str(1769904000 + 60))  # Unix seconds too
    assert node.rpc("c4_mine", blocks=1)["time"] == "2026-02-01T00:01:00Z"
    for method, params in (
        ("c4_setBalance", {"address": "nobody", "amount": "1gnot"}),
        ("c4_setBalance", {"address": bob, "amount": "lots"}),
        ("c4_setBalance", {"address": bob, "amount": "9" * 5000 + "ugnot"}),  # issue 60
        ("c4_loadState", {"state": {"c4_state": 1, "realm": {"fee": -1}}}),
        ("c4_mine", {"blocks": "none"}),
        ("c4_setNextBlockTimestamp", {"time": "2000-01-01T00:00:00Z"}),
        ("c4_loadState", {"state": "not an object"}),
    ):
        answer = node.post({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        assert answer["error"]["code"] == -32602, (method, answer)
    assert chain.json("verify")["ok"] is True

    chain.ok("offer", "--stake", "1gnot", "alice")
    dumped = node.rpc("c4_dumpState")
    assert dumped["c4_state"] == 1 and len(dumped["realm"]["games"]) == 1
    before = chain.json("query", "game", "1")["game"]
    chain.ok("cancel", "1", "alice")
    log = chain.log_bytes()
    for lie in ({"fee": 10**30}, {"collected": -7}):  # refused, the chain as it was (issue 60)
        hostile = {**dumped, "realm": {**dumped["realm"], **lie}}
        answer = node.post(
            {"jsonrpc": "2.0", "id": 1, "method": "c4_loadState", "params": {"state": hostile}}
        )
        assert answer["error"]["code"] == -32602, answer
        assert chain.log_bytes() == log and chain.json("query", "fees")["fee_ugnot"] == 100000
    loaded = node.rpc("c4_loadState", state=dumped)
    assert loaded["height"] == "0" and loaded["time"] == dumped["time"]
    assert chain.json("query", "game", "1")["game"] == before  # the offer is back
    assert chain.balance("bob") == 7_000_000
    assert "# end of block" in (chain.path / "chain" / "replaced-1.toml").read_text()
    assert chain.json("verify")["ok"] is True


def _unsigned_send(frm: str, to: str, amount: str = "1ugnot") -> str:
    """A send with no signature at all, as gnokey broadcasts a tx it never signed."""
    tx = Tx((send_msg(frm, to, amount),), fee(100000, "1ugnot"))
    return base64.b64encode(encode_tx(tx)).decode()


def test_an_impersonated_signer_broadcasts_without_a_signature(home: Home) -> None:
    for name in ("alice", "bob"):
        home.ok("keys", "add", name)
    home.ok("init", "--clock", "manual", "--genesis-time", GENESIS, "--impersonation")
    alice, bob = home.address("alice"), home.address("bob")
    serving = Served(home.path)
    try:
        refused = serving.rpc("broadcast_tx_commit", tx=_unsigned_send(bob, alice))
        assert refused["check_tx"]["ResponseBase"]["Error"], refused  # not yet impersonated
        assert serving.rpc("c4_impersonate", address=bob)["impersonating"] == [bob]
        landed = serving.rpc("broadcast_tx_commit", tx=_unsigned_send(bob, alice))
        assert landed["height"] == "1" and not landed["deliver_tx"]["ResponseBase"]["Error"]
        log = (home.path / "chain" / "blocks.toml").read_text()
        assert log.count("impersonated = true") == 1
        assert home.json("verify")["ok"] is True
        serving.rpc("c4_stopImpersonating", address=bob)
        again = serving.rpc("broadcast_tx_commit", tx=_unsigned_send(bob, alice, "2ugnot"))
        assert again["check_tx"]["ResponseBase"]["Error"], again
    finally:
        serving.server.stop()


def test_impersonation_is_refused_on_a_chain_that_allows_none(chain: Home, node: Served) -> None:
    answer = node.post({"jsonrpc": "2.0", "id": 1, "method": "c4_impersonate",
                        "params": {"address": chain.address("bob")}})  # fmt: skip
    assert answer["error"]["code"] == -32602
    assert "allows no impersonation" in answer["error"]["data"]
