"""The chain in a folder: genesis, blocks, clock, refusals, tampering and the cache."""

from __future__ import annotations

import base64
import shutil
import tomllib

import pytest

from support import GENESIS, GENESIS_UNIX, LISTED_TX_KEYS, PREMINE, TEST1, Home


def test_init_premines_every_key_and_the_deployer(chain: Home) -> None:
    for name in ("alice", "bob", "carol", "test1"):
        assert chain.balance(name) == PREMINE
    assert chain.address("test1") == TEST1
    assert chain.json("query", "fees") == {
        "fee_ugnot": 100000,
        "collected_ugnot": 0,
        "owner": TEST1,
        "pending_owner": None,
    }
    document = tomllib.loads(chain.log_bytes().decode())  # any TOML reader reads the log
    assert document["genesis"]["chain_id"] == "dev"
    assert document["genesis"]["time"] == GENESIS


def test_init_refuses_to_overwrite(chain: Home) -> None:
    chain.fails(2, "init")
    chain.ok("init", "--force", "--clock", "manual", "--premine", "alice=5gnot")
    assert chain.balance("alice") == 5_000_000


def test_send_lands_at_height_1_five_seconds_on(chain: Home) -> None:
    receipt = chain.json("send", "--to", "bob", "--amount", "5gnot", "alice")
    assert receipt["height"] == 1 and receipt["time"] == "2026-01-01T00:00:05Z"
    assert chain.balance("alice") == PREMINE - 5_000_000
    assert chain.balance("bob") == PREMINE + 5_000_000
    assert chain.json("time") == {
        "height": 1,
        "time": "2026-01-01T00:00:05Z",
        "unix": GENESIS_UNIX + 5,
    }
    text = chain.ok("send", "--to", "bob", "--amount", "1ugnot", "alice").stdout
    hash_ = chain.json("log", "--from", "2")[0]["txs"][0]["hash"]
    # gnokey's receipt: a send has no deliver data, so Println leaves one empty line.
    # The bank's event, as gnokey prints a node's (Go's JSON of the event, no @type).
    moved = (
        f'[{{"from":"{chain.address("alice")}","to":"{chain.address("bob")}",'
        '"coins":[{"denom":"ugnot","amount":1}]}]'
    )
    assert text.startswith(
        "\nOK!\nGAS WANTED: 2000000\nGAS USED:   0\nHEIGHT:     2\n"
        f"TOTAL TX COST:  0ugnot\nEVENTS:     {moved}\n"
        f"INFO:       \nTX HASH:    {hash_}\n"
    )


def test_time_advance_and_set(chain: Home) -> None:
    assert chain.json("time", "advance", "91s")["time"] == "2026-01-01T00:01:31Z"
    receipt = chain.json("send", "--to", "bob", "--amount", "1ugnot", "alice")
    assert receipt["time"] == "2026-01-01T00:01:36Z" and receipt["height"] == 2
    chain.fails(2, "time", "set", "2026-01-01T00:01:36Z")
    chain.fails(2, "time", "set", "2025-12-31T00:00:00Z")
    assert chain.json("time", "set", "2026-01-01T00:01:37Z")["height"] == 3
    chain.fails(2, "time", "advance", "soon")
    chain.fails(2, "time", "set", "yesterday")


def test_wall_clock_advance_shifts_later_blocks(home: Home) -> None:
    home.ok("keys", "add", "alice")
    home.ok("init")
    first = home.json("time", "advance", "1h")["unix"]
    sent = home.json("send", "--to", "test1", "--amount", "1ugnot", "alice")
    assert sent["height"] == 2
    # The offset stays after the send: another hour lands an hour past the first.
    # (Had it been lost, the block would land at the wall clock's now + 1 h, within
    # seconds of the first.)
    assert home.json("time", "advance", "1h")["unix"] >= first + 3600


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--to", "bob", "--amount", "20000000gnot", "alice"], 1, None),
        (["--to", "bob", "--amount", "1gnot", "nobody"], 2, "key 'nobody' not found in {keys}"),
        (["--to", "bob", "--amount", "lots", "alice"], 2, None),
        (["--to", "bob", "--amount", "-5ugnot", "alice"], 2, None),
        (["--to", "bob", "--amount", "0ugnot", "alice"], 2, None),
        (["--to", "g1notanaddress", "--amount", "1gnot", "alice"], 2, None),
        (["--to", "bob", "--amount", "1gnot", "--gas-fee", "x", "alice"], 2, None),
    ],
)
def test_refused_sends_change_nothing(
    chain: Home, args: list[str], code: int, message: str | None
) -> None:
    expected = None if message is None else message.format(keys=chain.path / "keys")
    result = chain.fails(code, "send", *args, message=expected)
    if code == 1:
        assert result.stderr.startswith("Error: insufficient funds: ")


def test_unknown_account_is_refused(chain: Home) -> None:
    chain.ok("keys", "add", "dave")  # a key made after genesis holds nothing yet
    chain.fails(1, "send", "--to", "bob", "--amount", "1ugnot", "dave")


def test_gas_fee_is_charged_to_the_signer(chain: Home) -> None:
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "--gas-fee", "1000ugnot", "alice")
    assert chain.balance("alice") == PREMINE - 1_000_000 - 1000
    assert chain.balance("bob") == PREMINE + 1_000_000


def test_missing_home_exits_3(home: Home) -> None:
    for args in (["time"], ["verify"], ["log"], ["query", "balance", TEST1]):
        result = home.run(*args)
        assert result.exit_code == 3 and "c4 init" in result.stderr


def _tampered(chain: Home, old: bytes, new: bytes) -> None:
    data = chain.log_bytes()
    assert data.count(old) >= 1
    (chain.path / "chain" / "blocks.toml").write_bytes(data.replace(old, new, 1))


READERS = [["verify"], ["time"], ["log"], ["query", "balance", "alice"], ["query", "game", "1"]]


def test_one_edited_character_is_caught_everywhere(chain: Home) -> None:
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    chain.ok("send", "--to", "carol", "--amount", "2gnot", "alice")
    chain.ok("send", "--to", "carol", "--amount", "3gnot", "bob")
    chain.ok("time")  # leaves a checkpoint behind
    assert (chain.path / "chain" / "cache" / "state.sqlite").exists()
    _tampered(chain, b'amount = "2000000ugnot"', b'amount = "3000000ugnot"')
    for args in READERS:
        result = chain.run(*args)
        assert result.exit_code == 3, args
        assert "block 2 " in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1


def test_recomputed_hashes_still_fail_the_signature(chain: Home) -> None:
    from c4cli.local.genesis import block_hash

    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    data = chain.log_bytes().decode()
    document = tomllib.loads(data)
    block = document["block"][0]
    block["txs"][0]["tx"]["msg"][0]["amount"] = "9000000ugnot"
    block["hash"] = block_hash(block)
    from c4cli.local.log import render_block

    head = data[: data.index("\n[[block]]\n")]
    (chain.path / "chain" / "blocks.toml").write_bytes(head.encode() + render_block(block))
    result = chain.run("verify")
    assert result.exit_code == 3 and "block 1, transaction 1 fails: signature" in result.stderr


def test_deleting_the_cache_changes_no_output(chain: Home) -> None:
    for amount in ("1gnot", "2gnot", "3gnot"):
        chain.ok("send", "--to", "bob", "--amount", amount, "alice")
    commands = [["log"], ["time"], ["query", "account", "alice"], ["query", "balance", "bob"]]
    with_cache = [chain.ok(*c).stdout for c in commands]
    shutil.rmtree(chain.path / "chain" / "cache")
    without = [chain.ok(*c).stdout for c in commands]
    assert with_cache == without
    (chain.path / "chain" / "cache" / "state.sqlite").write_bytes(b"not a database")
    assert [chain.ok(*c).stdout for c in commands] == with_cache


def test_torn_final_block_is_detected_and_repaired(chain: Home) -> None:
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    whole = chain.log_bytes()
    chain.ok("send", "--to", "bob", "--amount", "2gnot", "alice")
    torn = chain.log_bytes()[: len(whole) + 100]
    (chain.path / "chain" / "blocks.toml").write_bytes(torn)
    result = chain.run("time")
    assert result.exit_code == 3 and "c4 verify --repair" in result.stderr
    assert "block 2" in result.stderr
    repaired = chain.ok("verify", "--repair").stdout
    assert "now ends at height 1" in repaired
    assert chain.log_bytes() == whole
    assert chain.json("time")["height"] == 1


def test_log_and_tx(chain: Home) -> None:
    receipt = chain.json("send", "--to", "bob", "--amount", "1gnot", "alice")
    chain.ok("time", "advance", "10s")
    blocks = chain.json("log")
    assert [b["height"] for b in blocks] == [1, 2]
    assert blocks[0]["txs"][0]["hash"] == receipt["hash"]
    assert blocks[1]["txs"] == []
    assert chain.json("log", "--from", "2")[0]["height"] == 2
    shown = chain.json("tx", receipt["hash"])
    assert set(blocks[0]["txs"][0]) == LISTED_TX_KEYS and set(shown) == LISTED_TX_KEYS | {"tx"}
    assert shown["height"] == 1 and shown["func"] == "send"
    assert shown["signer"] == chain.address("alice")
    # As on a node: the chain has no such transaction (exit 1, the same on both backends).
    missing = base64.b64encode(b"\x07" * 32).decode()
    chain.fails(1, "tx", missing, message=f"no transaction with hash {missing!r} on this chain")
    # Not a hash at all: bad input, whatever the chain holds.
    bad = "invalid TX HASH 'notbase64!!': base64 of 32 bytes, as gnokey prints it"
    chain.fails(2, "tx", "notbase64!!", message=bad)
    chain.fails(2, "show", "0", message="invalid game id '0': a game is a positive number")


def test_gnokey_style_queries(chain: Home) -> None:
    alice = chain.address("alice")
    out = chain.ok("query", f"bank/balances/{alice}").stdout
    assert out == f'height: 0\ndata: "{PREMINE}ugnot"\n'
    out = chain.ok("query", f"auth/accounts/{alice}").stdout
    assert '"public_key": null' in out and '"account_number": "1"' in out
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    account = chain.json("query", "account", "alice")["BaseAccount"]
    assert account["sequence"] == "1"
    assert account["public_key"]["@type"] == "/tm.PubKeySecp256k1"
    missing = "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"
    assert chain.ok("query", f"auth/accounts/{missing}").stdout == "height: 1\ndata: null\n"


def test_a_stale_cache_is_never_believed(chain: Home) -> None:
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    cache = chain.path / "chain" / "cache"
    old = {p.name: p.read_bytes() for p in cache.iterdir()}
    chain.ok("send", "--to", "bob", "--amount", "2gnot", "alice")
    chain.ok("send", "--to", "carol", "--amount", "3gnot", "bob")
    current = [chain.ok(*c).stdout for c in (["time"], ["query", "balance", "bob"], ["log"])]
    for path in cache.iterdir():  # put back the cache as it was two blocks ago
        path.unlink()
    for name, data in old.items():
        (cache / name).write_bytes(data)
    again = [chain.ok(*c).stdout for c in (["time"], ["query", "balance", "bob"], ["log"])]
    assert again == current
    assert chain.balance("bob") == PREMINE + 1_000_000 + 2_000_000 - 3_000_000
    receipt = chain.json("send", "--to", "bob", "--amount", "1ugnot", "carol")
    assert receipt["height"] == 4  # a writer also starts from the log, not the stale cache
