"""Sign bytes and signatures are tm2's, byte for byte; forgeries and replays are refused."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from c4cli.errors import Refused
from c4cli.local.chain import LocalChain
from c4cli.wire import crypto
from c4cli.wire.tx import Tx, call_msg, fee, send_msg, sign_bytes, signed_tx

# gnokey's dev mnemonic, spelled out here as the test vector (the constant in
# c4cli.home.keys is checked against it).
DEV = (
    "source bonus chronic canvas draft south burst lottery vacant surface solve popular "
    "case indicate oppose farm nothing bullet exhibit title speed wink action roast"
)
TEST1 = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"
ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
# gno's own vector of the sign document as releases before v1.7.1 signed it (the fee
# as the transaction carries it), and its signature by the dev key.
VECTOR_BYTES = (
    '{"account_number":"0","chain_id":"dev","fee":{"gas_fee":"1000000ugnot",'
    '"gas_wanted":"2000000"},"memo":"","msgs":[{"@type":"/vm.m_call",'
    '"caller":"g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5","func":"Increment",'
    '"max_deposit":"","pkg_path":"gno.land/r/demo/counter","send":""}],"sequence":"0"}'
)
VECTOR_SIG = (
    "BAb4/Q/ye5wdKMB5MmMhyue6ONa5wTW4cEailxT/+acUmlj5ttOisKZto8rliJ2jHFlM1isyYmCqp42QcrmtOw=="
)


# The same call as gnokey v1.7.1 signs it (`gnokey sign -chainid dev
# -account-number 0 -account-sequence 0 test1` of the unsigned transaction): the
# current payload, the fee restated as the Ledger Cosmos app reads one.
GNOKEY_BYTES = (
    '{"account_number":"0","chain_id":"dev","fee":{"amount":[{"amount":"1000000",'
    '"denom":"ugnot"}],"gas":"2000000"},"memo":"","msgs":[{"@type":"/vm.m_call",'
    '"caller":"g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5","func":"Increment",'
    '"max_deposit":"","pkg_path":"gno.land/r/demo/counter","send":""}],"sequence":"0"}'
)
GNOKEY_SIG = (
    "wj+abu7fEdiNSmZ4+sN+GFTf0yCcr5uAlnLtcbgIG9FI7Iyb8+deld+uTI4UAgrPxoloi5i8kcmYHkEG2I1/SA=="
)


def test_sign_bytes_and_signature_vectors() -> None:
    msg = call_msg(TEST1, "gno.land/r/demo/counter", "Increment", [])
    assert "args" not in msg.to_json()
    key = crypto.derive_private_key(DEV)
    document = ("dev", 0, 0, fee(2_000_000, "1000000ugnot"), [msg], "")
    for legacy, expected, signature in (
        (False, GNOKEY_BYTES, GNOKEY_SIG),
        (True, VECTOR_BYTES, VECTOR_SIG),
    ):
        doc = sign_bytes(*document, legacy=legacy)
        assert doc.decode() == expected
        assert base64.b64encode(crypto.sign(key, doc)).decode() == signature
        assert crypto.verify(crypto.public_key(key), doc, base64.b64decode(signature))
    signed = signed_tx(
        [msg], document[3], "", private_key=key, chain_id="dev", account_number=0, sequence=0
    )
    assert base64.b64encode(signed.signature.signature).decode() == GNOKEY_SIG  # gnokey's


def test_sign_bytes_escape_html_and_keep_utf8() -> None:
    msg = send_msg(TEST1, TEST1, "1ugnot")
    doc = sign_bytes("dev", 0, 0, fee(1, "0ugnot"), [msg], "<a&b> é")
    assert b'"memo":"\\u003ca\\u0026b\\u003e \xc3\xa9"' in doc


def high_s(signature: bytes) -> bytes:
    s = int.from_bytes(signature[32:], "big")
    return signature[:32] + (ORDER - s).to_bytes(32, "big")


def test_verify_refuses_high_s_and_wrong_lengths() -> None:
    key = crypto.derive_private_key(DEV)
    pub = crypto.public_key(key)
    sig = crypto.sign(key, b"doc")
    assert crypto.verify(pub, b"doc", sig)
    assert not crypto.verify(pub, b"doc", high_s(sig))
    assert not crypto.verify(pub, b"doc", sig + b"\x01")
    assert not crypto.verify(pub, b"doc", sig[:63])
    assert not crypto.verify(pub, b"other doc", sig)


def _tx(chain: LocalChain, sequence: int, amount: str = "1ugnot") -> Tx:
    key = crypto.derive_private_key(DEV)
    state = chain.state()
    return signed_tx(
        [send_msg(TEST1, state.realm_address, amount)],
        fee(2_000_000, "0ugnot"),
        "",
        private_key=key,
        chain_id="dev",
        account_number=0,
        sequence=sequence,
    )


def test_chain_refuses_high_s_65_bytes_and_replays(chain) -> None:  # type: ignore[no-untyped-def]
    local = LocalChain(chain.path)
    tx = _tx(local, 0)
    sig = tx.signature.signature
    before = chain.log_bytes()
    for bad in (high_s(sig), sig + b"\x00"):
        forged = tx._replace(signatures=(tx.signature._replace(signature=bad),))
        with pytest.raises(Refused, match="signature verification failed"):
            local.broadcast(forged)
    assert chain.log_bytes() == before
    receipt = local.broadcast(tx)
    assert receipt.height == 1
    after = chain.log_bytes()
    with pytest.raises(Refused) as refused:
        local.broadcast(tx)  # the same transaction again: its sequence is spent
    assert str(refused.value) == (
        "signature verification failed; verify correct account, sequence, and chain-id"
    )
    assert chain.log_bytes() == after
    with pytest.raises(Refused, match="signature verification failed"):
        local.broadcast(_tx(local, 5))  # a sequence from the future
    wrong_chain = _tx(local, 1)._replace(memo="edited after signing")
    with pytest.raises(Refused, match="signature verification failed"):
        local.broadcast(wrong_chain)
    assert chain.log_bytes() == after


@given(st.recursive(st.text(), lambda inner: st.dictionaries(st.text(), inner, max_size=3)))
def test_canonical_json_is_go_json(value: object) -> None:
    from c4cli.wire.canonical import canonical_json

    raw = canonical_json(value).decode()
    assert json.loads(raw) == value  # the same document
    for banned in ("<", ">", "&", "\u2028", "\u2029", "\b", "\f"):
        assert banned not in raw
    # Go >= 1.22 (gno's node, checked by tests/wire/test_wire.py against gno's own
    # codec) writes U+0008 and U+000C as \b and \f, never as \u0008 and \u000c.
    unescaped = raw.replace("\\\\", "")  # an escaped backslash is not an escape
    assert "\\u0008" not in unescaped and "\\u000c" not in unescaped


@given(
    st.recursive(
        st.text() | st.integers(-(2**63), 2**63 - 1),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    )
)
def test_fast_and_standard_encoders_agree(value: object) -> None:
    """The encoder `use_fast_json` installs (not a copy of it) writes the standard bytes."""
    from c4cli.wire import canonical

    standard = canonical._json_encode(value)
    installed = canonical._encode
    try:
        canonical.use_fast_json()
        assert canonical._encode is not canonical._json_encode
        assert canonical._encode(value) == standard
    finally:
        canonical._encode = installed


def test_the_dev_key_is_gnokeys() -> None:
    from c4cli.home.keys import DEV_KEY, DEV_MNEMONIC

    assert (DEV_KEY, DEV_MNEMONIC) == ("test1", DEV)
    assert crypto.address_of(crypto.public_key(crypto.derive_private_key(DEV))) == TEST1


def test_a_genesis_package_transaction_is_signed_again_by_its_creator() -> None:
    """`c4 node start --in-genesis`: gnoland's lazy genesis signs every package with the
    validator's key; a transaction whose messages are all test1's is signed again by
    test1's key over the genesis sign document (account number and sequence 0), and
    one of another creator is left as it is."""
    from c4cli.home.keys import DEV_MNEMONIC
    from c4cli.wire.canonical import canonical_json
    from c4cli.wire.tx import Fee, payload_fee, resigned_genesis_tx

    key = crypto.derive_private_key(DEV_MNEMONIC)
    creator = crypto.address_of(crypto.public_key(key))
    msg = {"@type": "/vm.m_addpkg", "creator": creator, "package": {"name": "p"}, "send": ""}
    tx = {"msg": [msg], "fee": {"gas_wanted": "50000", "gas_fee": "1ugnot"}, "signatures": []}
    signed = resigned_genesis_tx(tx, key, "dev")
    assert signed is not None and signed["msg"] == [msg]
    (signature,) = signed["signatures"]
    assert signature["pub_key"]["@type"] == "/tm.PubKeySecp256k1"
    document = {
        "chain_id": "dev", "account_number": "0", "sequence": "0",
        "fee": payload_fee(Fee.from_json(tx["fee"])), "msgs": [msg], "memo": "",
    }  # fmt: skip
    assert crypto.verify(
        crypto.public_key(key), canonical_json(document), base64.b64decode(signature["signature"])
    )
    assert resigned_genesis_tx(tx, key, "other") != signed  # the chain id is signed
    other = {**tx, "msg": [{**msg, "creator": "g1validator"}]}
    assert resigned_genesis_tx(other, key, "dev") is None
