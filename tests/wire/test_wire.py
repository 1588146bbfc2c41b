"""gno.land's bytes: amino binary, TX HASH and the amino-JSON sign document.

The oracles are gno's own code: its Go amino codec at the pinned version and
its JS clients from the npm registry (tests/oracles.py).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from c4cli.address import encode_address, package_address
from c4cli.coins import format_coins
from c4cli.home.keys import DEV_MNEMONIC
from c4cli.wire import crypto
from c4cli.wire.merkle import aunts, merkle_root, root_from_aunts
from c4cli.wire.msgs import Msg
from c4cli.wire.std import ZERO_ADDRESS, Fee, Tx, decode_tx, encode_tx, tx_hash
from c4cli.wire.tx import (
    call_msg,
    create_session_msg,
    fee,
    revoke_all_sessions_msg,
    revoke_session_msg,
    send_msg,
    sign_bytes,
    signed_tx,
)
from support import TEST1, Home, strong

VECTOR_TX = (
    '{"msg":[{"@type":"/vm.m_call","caller":"g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5",'
    '"send":"","max_deposit":"","pkg_path":"gno.land/r/demo/counter","func":"Increment"}],'
    '"fee":{"gas_wanted":"2000000","gas_fee":"1000000ugnot"},"signatures":[{"pub_key":'
    '{"@type":"/tm.PubKeySecp256k1","value":"A+FhNtsXHjLfSJk1lB8FbiL4mGPjc50Kt81J7EKDnJ2y"},'
    '"signature":"BAb4/Q/ye5wdKMB5MmMhyue6ONa5wTW4cEailxT/+acUmlj5ttOisKZto8rliJ2jHFlM1isyYmCqp'
    '42QcrmtOw=="}],"memo":""}'
)
VECTOR_BYTES = (
    "ClwKCi92bS5tX2NhbGwSTgooZzFqZzhtdHV0dTlraGhmd2M0bnhtdWhjcGZ0ZjBwYWpkaGZ2c3FmNSIXZ25vLmxh"
    "bmQvci9kZW1vL2NvdW50ZXIqCUluY3JlbWVudBITCICS9AESDDEwMDAwMDB1Z25vdBp+CjoKEy90bS5QdWJLZXlT"
    "ZWNwMjU2azESIwohA+FhNtsXHjLfSJk1lB8FbiL4mGPjc50Kt81J7EKDnJ2yEkAEBvj9D/J7nB0owHkyYyHK57o4"
    "1rnBNbhwRqKXFP/5pxSaWPm206Kwpm2jyuWInaMcWUzWKzJiYKqnjZByua07"
)
VECTOR_HASH = "8r5ecIc8Saj7DV0E3ek+vvJ3WtKt7Dt0oclDFCB+VI0="
# The same transaction as gnokey v1.7.1 signs it (the current payload).
GNOKEY_SIG = (
    "wj+abu7fEdiNSmZ4+sN+GFTf0yCcr5uAlnLtcbgIG9FI7Iyb8+deld+uTI4UAgrPxoloi5i8kcmYHkEG2I1/SA=="
)
GNOKEY_HASH = "nmmBf2hlwJfjGJ0Coz+K+BNjprvIqQz+f1Bt1MOa42k="
TEST1_KEY = crypto.derive_private_key(DEV_MNEMONIC)


def test_wire_vector_bytes_and_hash() -> None:
    tx = Tx.from_json(json.loads(VECTOR_TX))
    assert json.dumps(tx.to_json(), separators=(",", ":")) == VECTOR_TX
    assert base64.b64encode(encode_tx(tx)).decode() == VECTOR_BYTES
    assert tx_hash(tx) == VECTOR_HASH


def _counter_tx(args: list[str], tx_fee: Fee, *, legacy: bool = False) -> Tx:
    """test1 calls Increment of the counter realm, signed for account 0, sequence 0 on dev."""
    msgs = [call_msg(TEST1, "gno.land/r/demo/counter", "Increment", args)]
    return signed_tx(
        msgs,
        tx_fee,
        "",
        private_key=TEST1_KEY,
        chain_id="dev",
        account_number=0,
        sequence=0,
        legacy=legacy,
    )


def test_the_vectors_are_what_c4_signs() -> None:
    """gno's older vector with the legacy payload; gnokey v1.7.1's with the current one."""
    legacy = _counter_tx([], fee(2_000_000, "1000000ugnot"), legacy=True)
    assert json.dumps(legacy.to_json(), separators=(",", ":")) == VECTOR_TX
    assert tx_hash(legacy) == VECTOR_HASH
    current = _counter_tx([], fee(2_000_000, "1000000ugnot"))
    assert base64.b64encode(current.signature.signature).decode() == GNOKEY_SIG
    assert tx_hash(current) == GNOKEY_HASH


def test_zero_fee_is_signed_as_no_coin_and_verifies() -> None:
    tx = _counter_tx([], fee(2_000_000, "0ugnot"))
    doc = sign_bytes("dev", 0, 0, tx.fee, tx.msgs, "")
    assert b'"fee":{"amount":[],"gas":"2000000"}' in doc
    legacy = sign_bytes("dev", 0, 0, tx.fee, tx.msgs, "", legacy=True)
    assert b'"fee":{"gas_fee":"","gas_wanted":"2000000"}' in legacy
    signature = tx.signature.signature
    assert crypto.verify(crypto.public_key(TEST1_KEY), doc, signature)
    assert b"\x12\x05\x08\x80\x92\xf4\x01\x1a" in encode_tx(tx)  # fee: gas only, no coin


def test_an_empty_fee_is_left_out_as_gnos_codec_does(go_amino: Any) -> None:
    tx = _counter_tx([""], fee(0, "0ugnot"))
    raw = encode_tx(tx)
    assert b"\x32\x00" in raw and b"\x12\x00" not in raw  # the empty arg is kept, the fee is not
    assert base64.b64encode(raw).decode() == go_amino.encode(tx.to_json(), "dev", 0, 0)["bytes"]


def test_session_messages_leave_empty_fields_out() -> None:
    pub = crypto.public_key(TEST1_KEY)
    bare = create_session_msg(TEST1, pub, 0, [], "", 0).to_json()
    assert list(bare) == ["@type", "creator", "session_key", "expires_at"]
    assert bare["expires_at"] == "0"
    full = create_session_msg(TEST1, pub, 5, ["*"], "1ugnot", 60).to_json()
    assert list(full)[-3:] == ["allow_paths", "spend_limit", "spend_period"]
    revoke = revoke_session_msg(TEST1, pub).to_json()
    assert revoke["session_key"] == {
        "@type": "/tm.PubKeySecp256k1",
        "value": base64.b64encode(pub).decode(),
    }
    assert revoke_all_sessions_msg(TEST1).to_json() == {
        "@type": "/auth.m_revoke_all_sessions",
        "creator": TEST1,
    }


# -- hypothesis: c4's bytes against gno's own encoders ---------------------------------

addresses = st.binary(min_size=20, max_size=20).map(encode_address)
texts = st.text(max_size=40)
amounts = st.integers(min_value=1, max_value=2**63 - 1)
coins = st.dictionaries(st.sampled_from(["ugnot", "atom", "foo"]), amounts, max_size=2).map(
    format_coins
)
identifiers = st.from_regex(r"[A-Z][A-Za-z0-9_]{0,15}", fullmatch=True)
pkg_paths = st.from_regex(r"gno\.land/r/[a-z][a-z0-9_]{0,10}(/[a-z0-9_]{1,8}){0,2}", fullmatch=True)
pub_keys = st.sampled_from([crypto.public_key(bytes([n]) * 32) for n in range(1, 4)])

calls = st.builds(
    call_msg,
    addresses,
    pkg_paths,
    identifiers,
    st.lists(texts, max_size=12),
    send=coins,
)
sends = st.builds(send_msg, addresses, addresses, coins)
sessions = st.one_of(
    st.builds(
        create_session_msg,
        addresses,
        pub_keys,
        st.integers(min_value=0, max_value=2**62),
        st.lists(st.from_regex(r"[a-z*/:.]{1,20}", fullmatch=True), max_size=8),
        coins,
        st.integers(min_value=0, max_value=2**40),
    ),
    st.builds(revoke_session_msg, addresses, pub_keys),
    st.builds(revoke_all_sessions_msg, addresses),
)


@st.composite
def txs(draw: st.DrawFn, messages: st.SearchStrategy[Msg], *, min_gas: int = 0) -> Tx:
    msgs = draw(st.lists(messages, min_size=1, max_size=3))
    gas_fee = draw(st.sampled_from(["0ugnot", "1ugnot", f"{draw(amounts)}ugnot"]))
    return signed_tx(
        msgs,
        fee(draw(st.integers(min_value=min_gas, max_value=2**60 - 1)), gas_fee),
        draw(st.text(max_size=80)),
        private_key=TEST1_KEY,
        chain_id="dev",
        account_number=draw(st.integers(min_value=0, max_value=2**40)),
        sequence=draw(st.integers(min_value=0, max_value=2**40)),
    )


ORACLE_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# With no gas and no fee coin the two gno encoders disagree: the JS client writes an
# empty fee ("12 00"), the node's Go codec leaves it out, and c4 follows the node.
@ORACLE_SETTINGS
@given(tx=txs(st.one_of(calls, sends), min_gas=1))
def test_bytes_match_gnos_js_client(js_client: Any, tx: Tx) -> None:
    expected = js_client.ask(json.dumps(tx.to_json(), ensure_ascii=False))
    assert base64.b64encode(encode_tx(tx)).decode() == expected


def _ordered(text: str) -> Any:
    return json.loads(text, object_pairs_hook=lambda pairs: pairs)


@ORACLE_SETTINGS
@given(
    tx=txs(st.one_of(calls, sends, sessions)),
    session=st.none() | addresses.filter(lambda a: a != ZERO_ADDRESS),
    numbers=st.tuples(st.integers(0, 2**40), st.integers(0, 2**40)),
)
def test_bytes_sign_bytes_and_json_match_gnos_amino(
    go_amino: Any, tx: Tx, session: str | None, numbers: tuple[int, int]
) -> None:
    if session is not None:
        tx = tx._replace(signatures=(tx.signature._replace(session_addr=session),))
    answer = go_amino.encode(tx.to_json(), "dev", *numbers)
    assert "error" not in answer, answer
    assert base64.b64encode(encode_tx(tx)).decode() == answer["bytes"]
    document = ("dev", *numbers, tx.fee, tx.msgs, tx.memo)
    assert sign_bytes(*document).decode() == answer["sign_bytes"]  # what gnokey signs
    assert sign_bytes(*document, legacy=True).decode() == answer["legacy_sign_bytes"]
    assert _ordered(json.dumps(tx.to_json())) == _ordered(answer["json"])
    assert Tx.from_json(json.loads(answer["json"])) == tx  # gno's JSON read back
    digest = hashlib.sha256(base64.b64decode(answer["bytes"])).digest()
    assert tx_hash(tx) == base64.b64encode(digest).decode()
    # Read back from gno's bytes: the same transaction, down to its bytes.
    decoded = decode_tx(base64.b64decode(answer["bytes"]))
    assert encode_tx(decoded) == base64.b64decode(answer["bytes"])
    assert decoded == tx
    assert _ordered(json.dumps(decoded.to_json())) == _ordered(answer["json"])


def test_cli_tx_binary_is_the_hashed_bytes(chain: Home, go_amino: Any) -> None:
    receipt = chain.json("send", "--to", "bob", "--amount", "1gnot", "--memo", "<é&>", "alice")
    raw = base64.b64decode(chain.ok("tx", "--binary", receipt["hash"]).stdout.strip())
    assert base64.b64encode(hashlib.sha256(raw).digest()).decode() == receipt["hash"]
    logged = chain.json("tx", receipt["hash"])
    answer = go_amino.encode(logged["tx"], "dev", 0, 0)
    assert base64.b64decode(answer["bytes"]) == raw


def test_a_call_receipt_is_gnokeys(chain: Home) -> None:
    out = chain.ok("offer", "--stake", "2gnot", "--passphrase", strong("p"), "alice").stdout
    hash_ = chain.json("log", "--from", "1")[0]["txs"][0]["hash"]
    # The VM's deliver data is "(1 int)\n\n"; gnokey prints it with Println.
    realm = package_address("gno.land/r/samcrew/connect4")
    moved = (
        f'[{{"from":"{chain.address("alice")}","to":"{realm}",'
        '"coins":[{"denom":"ugnot","amount":2000000}]}]'
    )
    assert out.startswith(
        "(1 int)\n\n\nOK!\nGAS WANTED: 2000000\nGAS USED:   0\nHEIGHT:     1\n"
        "TOTAL TX COST:  0ugnot\n"
        f"EVENTS:     {moved}\nINFO:       \nTX HASH:    {hash_}\n"
    )
    play = chain.json(
        "offer", "--stake", "2gnot", "--passphrase", strong("q"), "--gas-wanted", "7", "bob"
    )
    assert (play["gas_wanted"], play["gas_used"], play["info"]) == (7, 0, "")
    assert play["events"] == [
        {
            "@type": "/bank.TransferEvent",
            "from": chain.address("bob"),
            "to": realm,
            "coins": [{"denom": "ugnot", "amount": 2000000}],
        }
    ]
    assert (
        play["result"] == [2]
        and play["hash"] == chain.json("log", "--from", "2")[0]["txs"][0]["hash"]
    )


@pytest.mark.parametrize(
    "older",
    # c4 0.1 wrote no format; format 2 signed session transactions for the master's
    # account number, where gno.land gives a session a number of its own.
    [b"", b"format = 2\n"],
)
def test_a_log_from_an_older_c4_is_refused_with_one_line(chain: Home, older: bytes) -> None:
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    path = chain.path / "chain" / "blocks.toml"
    text = path.read_bytes()
    assert b"format = 3\n" in text
    path.write_bytes(text.replace(b"format = 3\n", older, 1))
    (chain.path / "chain" / "cache" / "state.sqlite").unlink()
    for args in (
        ("time",),
        ("log",),
        ("verify",),
        ("send", "--to", "bob", "--amount", "1ugnot", "alice"),
    ):
        result = chain.fails(3, *args)
        assert "written by an older c4" in result.stderr and "c4 init --force" in result.stderr


def test_a_recorded_tx_hash_that_does_not_match_its_bytes_is_caught(chain: Home) -> None:
    import tomllib

    from c4cli.local.genesis import block_hash
    from c4cli.local.log import render_block

    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    data = chain.log_bytes().decode()
    block = tomllib.loads(data)["block"][0]
    block["txs"][0]["hash"] = VECTOR_HASH  # a real hash, of another tx
    block["hash"] = block_hash(block)
    head = data[: data.index("\n[[block]]\n")]
    (chain.path / "chain" / "blocks.toml").write_bytes(head.encode() + render_block(block))
    result = chain.fails(3, "verify")
    assert "block 1, transaction 1 does not match its TX HASH" in result.stderr


def test_a_message_c4_does_not_send_is_shown_by_what_it_holds() -> None:
    """A node's transaction from another tool (here an addpkg): decoded as far as c4
    knows (its creator, its package's name and path), its message kept as bytes."""
    from c4cli.node.sending.lookup import node_tx
    from c4cli.wire.abci import ResponseDeliverTx
    from c4cli.wire.protowire import any_value, bytes_field

    package = bytes_field(1, b"hello") + bytes_field(2, b"gno.land/r/demo/hello")
    body = bytes_field(1, b"g1creator") + bytes_field(2, package + bytes_field(3, b"files"))
    raw = bytes_field(1, any_value("/vm.m_addpkg", body)) + bytes_field(4, b"hi")
    tx = decode_tx(raw)
    assert [msg.to_json() for msg in tx.msgs] == [
        {
            "@type": "/vm.m_addpkg",
            "creator": "g1creator",
            "package": {"name": "hello", "path": "gno.land/r/demo/hello"},
            "amino": base64.b64encode(body).decode(),
        }
    ]
    assert tx.memo == "hi" and tx.signatures == ()
    assert encode_tx(tx) == raw
    shown = node_tx("h", 3, "t", ResponseDeliverTx(), ([], [], ""), tx)
    assert (shown["func"], shown["signer"]) == ("addpkg", "g1creator")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.pop("fee"), "a tx needs msg, fee and signatures"),
        (lambda d: d.update(msg="x"), "a tx needs msg, fee and signatures"),
        (lambda d: d["msg"][0].pop("caller"), "/vm.m_call: missing field 'caller'"),
        (lambda d: d["msg"][0].update(func=7), "/vm.m_call: func: expected a string, got int"),
        (lambda d: d["msg"][0].update(args=[1]), "/vm.m_call: args: expected a list of strings"),
        (lambda d: d["msg"][0].update({"@type": "/vm.m_nope"}), "unknown message type"),
        (lambda d: d["fee"].update(gas_wanted=" 1"), "fee: gas_wanted: expected an int64"),
        (lambda d: d["fee"].update(gas_wanted=str(2**63)), "fee: 9223372036854775808 does not"),
        (lambda d: d["signatures"][0].update(signature="%%"), "signature: signature: expected"),
        (lambda d: d["signatures"][0].update(pub_key={"@type": "/x"}), "unknown public key"),
    ],
)
def test_a_transaction_that_is_not_one_is_refused_naming_what(change: Any, said: str) -> None:
    document = _counter_tx(["a"], fee(1, "1ugnot")).to_json()
    assert Tx.from_json(document).to_json() == document
    change(document)
    with pytest.raises(ValueError, match=re.escape(said)):
        Tx.from_json(document)


@given(st.lists(st.binary(max_size=8), min_size=1, max_size=40, unique=True), st.data())
def test_a_merkle_path_leads_each_item_to_the_root_and_no_other(
    items: list[bytes], data: st.DataObject
) -> None:
    """tm2's simple proof: an item's aunts lead it to the root; another item or index
    does not, nor a path of another length. (The count is not bound by the path: a
    block's is its header's num_txs, checked beside it.)"""
    index = data.draw(st.integers(0, len(items) - 1))
    path = aunts(items, index)
    root = merkle_root(items)
    assert root_from_aunts(items[index], index, len(items), path) == root
    assert root_from_aunts(items[index] + b"x", index, len(items), path) != root
    if len(items) > 1:
        assert root_from_aunts(items[index], (index + 1) % len(items), len(items), path) != root
    assert root_from_aunts(items[index], index, len(items), [*path, bytes(32)]) is None
