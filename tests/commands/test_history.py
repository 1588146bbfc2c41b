"""c4 log and the owner's receipts: what a reader of the chain's history sees."""

from __future__ import annotations

from support import Home, start_game


# What a user expected of `c4 log`: key names, a send's amount and recipient,
# calls written as everywhere else, --tail, and a negative --from refused.
def test_log_names_keys_and_shows_sends_and_calls(chain: Home) -> None:
    alice, bob = chain.address("alice"), chain.address("bob")
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    start_game(chain, "45")  # offer, accept, two reveals, two moves: heights 2-7
    text = chain.ok("log", "--from", "1", "--to", "1").stdout.split("\n")[1]
    assert text.split("  ")[4:6] == [
        f"alice ({alice})",
        f"send 1000000ugnot to bob ({bob})",
    ]
    tail = chain.json("log", "--tail", "2")
    assert [b["height"] for b in tail] == [6, 7]
    assert tail[-1]["txs"][0]["signer_key"] in ("alice", "bob")
    last = chain.ok("log", "--tail", "1").stdout
    assert "  Play(1, 5, 1)  " in last
    assert [b["height"] for b in chain.json("log", "--tail", "3", "--to", "4")] == [2, 3, 4]
    chain.fails(
        2, "log", "--from", "-1", message="Invalid value for '--from': -1 is not in the range x>=1."
    )
    chain.fails(2, "log", "--tail", "0")


def test_owner_commands_say_what_changed(chain: Home) -> None:
    out = chain.ok("set-fee", "0.2gnot", "test1").stdout
    assert out.splitlines()[-1] == "house fee for new offers set to 0.2 GNOT"
    chain.ok("keys", "add", "treasury")
    out = chain.ok("withdraw-fees", "--to", "treasury", "test1").stdout
    assert out.splitlines()[-1] == "fees withdrawn: nothing was collected"
    out = chain.ok("transfer-ownership", "carol", "test1").stdout
    assert out.splitlines()[-1] == (
        f"ownership offered to carol ({chain.address('carol')}); it takes over once it accepts"
    )
    assert (
        chain.ok("accept-ownership", "carol").stdout.splitlines()[-1] == "carol now owns the realm"
    )


def test_a_node_url_that_is_not_one(chain: Home) -> None:
    for url in ("notaurl::", "http://x:99999", "ftp://node"):
        chain.fails(
            2,
            "--remote",
            url,
            "lobby",
            message=f"invalid node URL {url!r}: use http://HOST:PORT or https://HOST",
        )
