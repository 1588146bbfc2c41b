"""`c4 --impersonate ADDR`: any address acts without its key, on a local chain whose
genesis allows it (`c4 init --impersonation`; a fork always does). Each such
transaction says so in its receipt and its log entry; a chain that allows none, a
home bound to a node, and a log with one copied in each refuse it."""

from __future__ import annotations

import json
from pathlib import Path

from c4cli.local.blocks import new_record, tx_entry
from c4cli.local.log import render_block
from c4cli.wire.tx import fee, impersonated_tx, send_msg
from support import GENESIS, Home


def allowing(home: Home) -> Home:
    for name in ("alice", "bob"):
        home.ok("keys", "add", name)
    made = home.json("init", "--clock", "manual", "--genesis-time", GENESIS, "--impersonation")
    assert made["impersonation"] is True
    return home


def test_an_address_acts_without_its_key_and_says_so(home: Home, tmp_path: Path) -> None:
    allowing(home)
    bob = home.address("bob")
    (home.path / "keys" / "bob.json").unlink(missing_ok=True)  # no key at hand at all
    shown = home.ok("--impersonate", bob, "offer", "--stake", "1gnot").stdout
    assert f"IMPERSONATED: {bob} acted without its key" in shown
    landed = home.json("--impersonate", bob, "send", "--to", "alice", "--amount", "1gnot")
    assert landed["impersonated"] is True and landed["ok"] is True
    entries = [tx for block in home.json("log") for tx in block["txs"]]
    assert len(entries) == 2 and all(tx["impersonated"] is True for tx in entries)
    assert home.ok("log").stdout.count("IMPERSONATED") == 2
    shown_tx = home.ok("tx", entries[1]["hash"]).stdout
    assert "IMPERSONATED: it acted without its key" in shown_tx, shown_tx
    assert home.json("tx", entries[1]["hash"])["impersonated"] is True
    log = (home.path / "chain" / "blocks.toml").read_text()
    assert log.count("impersonated = true") == 2
    assert home.json("verify")["ok"] is True
    assert home.json("query", "game", "1")["game"]["creator"] == bob
    # The address itself may stand as KEY; another key may not.
    home.ok("--impersonate", bob, "cancel", "1", bob)
    refused = home.fails(
        2, "--impersonate", bob, "send", "--to", "bob", "--amount", "1gnot", "alice"
    )
    assert "give no KEY, or that address" in refused.stderr


def test_a_chain_that_allows_none_and_a_node_refuse_it(chain: Home) -> None:
    bob = chain.address("bob")
    refused = chain.fails(2, "--impersonate", bob, "offer", "--stake", "1gnot")
    assert "allows no impersonation" in refused.stderr
    unfunded = "g1kl0dn0rtwk46h9zcmazyyrruta290crhdjhep9"  # no account: the chain says why first
    refused = chain.fails(2, "--impersonate", unfunded, "offer", "--stake", "1gnot")
    assert "allows no impersonation" in refused.stderr, refused.stderr
    node = chain.fails(
        2, "--remote", "http://127.0.0.1:9", "--impersonate", bob, "offer", "--stake", "1gnot"
    )
    assert "acts on a local chain only" in node.stderr
    chain.fails(2, "--impersonate", "nobody", "offer", "--stake", "1gnot")


def test_an_impersonated_transaction_copied_into_a_log_that_allows_none_is_damage(
    chain: Home,
) -> None:
    genesis = (chain.path / "chain" / "blocks.toml").read_text()
    genesis_hash = genesis.split('hash = "')[-1].split('"')[0]
    alice, bob = chain.address("alice"), chain.address("bob")
    tx = impersonated_tx(
        [send_msg(alice, bob, "1ugnot")], fee(100000, "1ugnot"), "",
        chain_id="dev", account_number=1, sequence=0, pub_key=None,
    )  # fmt: skip
    record = new_record(0, genesis_hash, 1767225605, txs=[tx_entry(tx, 1, 0, impersonated=True)])
    with open(chain.path / "chain" / "blocks.toml", "ab") as log:
        log.write(render_block(record))
    (chain.path / "chain" / "cache.sqlite").unlink(missing_ok=True)
    damaged = chain.run("verify")
    assert damaged.exit_code == 3, damaged.output
    assert "block 1, transaction 1 fails: impersonated" in damaged.stderr, damaged.stderr
    assert json.loads(chain.run("verify", "--json").stdout)["ok"] is False


def test_a_dump_of_a_chain_that_allows_it_loads_as_such(home: Home, tmp_path: Path) -> None:
    """A fork's dump (or any chain's that allows impersonation) begins a chain with its
    chain id and its impersonation, as the chain it was dumped from."""
    for name in ("alice", "bob"):
        home.ok("keys", "add", name)
    home.ok("init", "--clock", "manual", "--chain-id", "dev-fork", "--impersonation")
    home.ok("offer", "--stake", "1gnot", "alice")
    dumped = tmp_path / "state.json"
    home.ok("cheat", "dump", str(dumped))
    again = Home(tmp_path / "again").json("init", "--load", str(dumped))
    assert again["chain_id"] == "dev-fork" and again["impersonation"] is True
    copy = Home(tmp_path / "copy")
    made = copy.json("init", "--load", str(dumped), "--chain-id", "c4-test")
    assert made["impersonation"] is True and made["chain_id"] == "c4-test"  # as asked
    bob = home.address("bob")
    landed = copy.json("--impersonate", bob, "send", "--to", bob, "--amount", "1ugnot")
    assert landed["impersonated"] is True
