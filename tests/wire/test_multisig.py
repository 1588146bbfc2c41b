"""Multisig keys and transactions signed from hand to hand, on the local chain.

The vectors were made by gnokey v1.7.1 (`gnokey add multisig`, `sign
-output-document`, `multisign`) with three throwaway keys; tests/real_gnoland runs the same
flows against gnokey and a node.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from c4cli.errors import BadInput
from c4cli.wire import crypto, pubkeys
from c4cli.wire.msgs import Msg
from c4cli.wire.pubkeys import Multisig
from c4cli.wire.std import Fee, Tx, decode_tx, encode_tx
from c4cli.wire.tx import sign_bytes
from support import Home, start_game

# gnokey's keys a, b, c as `gnokey list` printed them, and their 2-of-3 `ms`.
SECP_PREFIX = "gpub1pgfj7ard9eg82cjtv4u4xetrwqer2dntxyfzxz3pq"  # the amino Any of a secp256k1 key
GPUB_A = SECP_PREFIX + "29we7rcpmp6u4q7hsug9nx46m4y2mz2293zgxxzndleyf46vmqdcstgd62"
GPUB_B = SECP_PREFIX + "28un7t6upjduccp06sdlhwut0vpfx4mgj9j0eaxnchxlfv67cypzajc6ae"
GPUB_C = SECP_PREFIX + "de2qy4dlggqv0kty48e5glc9f2aca9v399xy9ac3ghn5qq8kqpsqlz9fdc"
MS_ADDRESS = "g1tvshge8qysfhqrnmkf770fq8fsh9dkxq2u4hll"
# `gnokey multisign` of a's and b's signatures (chain dev, account 5, sequence 0).
MULTISIGNED_JSON = json.loads(
    '{"msg":[{"@type":"/vm.m_call","caller":"g1tvshge8qysfhqrnmkf770fq8fsh9dkxq2u4hll","send":"",'
    '"max_deposit":"","pkg_path":"gno.land/r/demo/connect4","func":"SetFee","args":["100"]}],'
    '"fee":{"gas_wanted":"2000000","gas_fee":"1000ugnot"},"signatures":[{"pub_key":{"@type":'
    '"/tm.PubKeyMultisig","threshold":"2","pubkeys":[{"@type":"/tm.PubKeySecp256k1","value":'
    '"A3KgEq36EAY+yyVPmiP4KlXcdKyJSmIXuIovOgAHsAMA"},{"@type":"/tm.PubKeySecp256k1","value":'
    '"Ao/J+XrgZN5jAX6g393cW9gUmrtEiyfnpp4ub6Wa9ggR"},{"@type":"/tm.PubKeySecp256k1","value":'
    '"Aors+HgOw65UHrw4gszV1upFbEpRYiQYwpt/kia6ZsDc"}]},"signature":"CgUIAxIBYBJAlRkm8u35xLdcUw18x'
    "PBwWUOMzooY3uDMEdB/u7RebCgOmrBP0kkR533ya29RlrY3lYYzOOjd/+FroiBWtM2OgBJA75tYE/5ryqfCxLJqfYvU3g"
    '7DJHb6sZXvHlFqNuhiVFtYkhbr8GkdpLY9cIA8uEP4BR7GsFZyI67KA094Cn2D7A=="}],"memo":""}'
)
MULTISIGNED = Tx.from_json(MULTISIGNED_JSON)


def _members() -> list[pubkeys.PubKey]:
    return [pubkeys.from_bech32(text) for text in (GPUB_A, GPUB_B, GPUB_C)]


def test_a_multisig_is_gnokeys_key_address_and_signature() -> None:
    key = pubkeys.new_multisig(2, _members())  # sorted by address, as gnokey sorts
    entry = MULTISIGNED.signature
    assert entry.pub_key == key
    assert pubkeys.to_json(key) == MULTISIGNED_JSON["signatures"][0]["pub_key"]
    assert pubkeys.address(key) == MS_ADDRESS
    assert pubkeys.from_bech32(pubkeys.bech32(key)) == key  # longer than BIP173's 90
    assert len(pubkeys.bech32(key)) > 90
    doc = sign_bytes("dev", 5, 0, MULTISIGNED.fee, MULTISIGNED.msgs, "")
    raw = entry.signature
    assert pubkeys.verify(key, doc, raw)
    assert not pubkeys.verify(key, sign_bytes("dev", 5, 1, *_rest()), raw)  # another sequence
    # The members' signatures, taken out and put back: gnokey's bytes again.
    members = pubkeys.signed_members(3, raw)
    assert members is not None and [index for index, _ in members] == [1, 2]
    assert pubkeys.multisignature(3, dict(members)) == raw
    assert pubkeys.verify(key, doc, pubkeys.multisignature(3, dict(members[:1]))) is False
    assert encode_tx(decode_tx(encode_tx(MULTISIGNED))) == encode_tx(MULTISIGNED)
    assert decode_tx(encode_tx(MULTISIGNED)) == MULTISIGNED
    assert MULTISIGNED.to_json() == MULTISIGNED_JSON


def _rest() -> tuple[Fee, tuple[Msg, ...], str]:
    return MULTISIGNED.fee, MULTISIGNED.msgs, ""


@pytest.mark.parametrize(
    ("threshold", "members", "reason"),
    [
        (0, 3, "the threshold must be at least 1"),
        (4, 3, "a threshold of 4 needs at least as many keys"),
        (2, -1, "a key is listed twice"),
    ],
)
def test_tm2_refuses_these_multisigs(threshold: int, members: int, reason: str) -> None:
    keys = _members()
    chosen = keys[:members] if members > 0 else [keys[0], keys[0]]
    with pytest.raises(BadInput, match=reason):
        pubkeys.new_multisig(threshold, chosen)


def test_nesting_and_size_are_bounded_as_tm2_bounds_them() -> None:
    leaf = _members()[0]
    key: pubkeys.PubKey = leaf
    for _ in range(6):
        key = Multisig(1, (key,))
    pubkeys.check(key)  # six levels: allowed
    with pytest.raises(pubkeys.NotAKey, match="nested more than 6"):
        pubkeys.check(Multisig(1, (key,)))
    many = tuple(crypto.public_key(bytes([i + 1]) * 32) for i in range(14))
    with pytest.raises(pubkeys.NotAKey, match="more than 14 keys"):
        pubkeys.check(Multisig(1, many))


@given(st.integers(1, 20).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, n - 1)))))
def test_a_multisignature_reads_back_as_written(sized: tuple[int, set[int]]) -> None:
    size, chosen = sized
    signatures = {index: bytes([index]) * 64 for index in chosen}
    raw = pubkeys.multisignature(size, signatures)
    assert pubkeys.signed_members(size, raw) == sorted(signatures.items())
    if size > 1:
        assert pubkeys.signed_members(size - 1, raw) is None  # another size: refused


# -- the commands, on the local chain -------------------------------------------------


def _generate(home: Home, tmp: Path, *args: str) -> Path:
    path = tmp / "tx.json"
    path.write_text(home.ok(*args, "--generate-only").stdout.strip())
    return path


def _multisigned(home: Home, tmp: Path, signers: tuple[str, ...], *args: str) -> Path:
    tx = _generate(home, tmp, *args)
    documents = []
    for name in signers:
        document = tmp / f"{name}.sig"
        home.ok("sign", str(tx), name, "--output-document", str(document))
        documents += ["--signature", str(document)]
    home.ok("multisign", str(tx), "owners", *documents)
    return tx


def test_a_two_of_three_takes_over_the_realm_sets_the_fee_and_withdraws(
    chain: Home, tmp_path: Path
) -> None:
    chain.ok("keys", "add", "owners", "--multisig", "alice", "--multisig", "bob",
             "--multisig", "carol", "--threshold", "2")  # fmt: skip
    info = chain.json("keys", "show", "owners")
    assert info["type"] == "multi" and info["pub_key"]["threshold"] == "2"
    chain.ok("send", "--to", "owners", "--amount", "5gnot", "test1")
    chain.ok("transfer-ownership", "owners", "test1")
    tx = _multisigned(chain, tmp_path, ("carol", "alice"), "accept-ownership", "owners")
    receipt = json.loads(chain.ok("broadcast", str(tx), "--json").stdout)
    assert receipt["ok"] and receipt["func"] == "AcceptOwnership"
    assert chain.json("query", "fees")["owner"] == info["address"]
    tx = _multisigned(chain, tmp_path, ("bob", "carol"), "set-fee", "0.1gnot", "owners")
    chain.ok("broadcast", str(tx))
    assert chain.json("query", "fees")["fee_ugnot"] == 100_000
    # A game ends under the fee just set; the 2-of-3 withdraws it to dave, who is none
    # of its members.
    chain.ok("keys", "add", "dave")
    start_game(chain, "4545454")
    collected = chain.json("query", "fees")["collected_ugnot"]
    assert collected == 100_000
    tx = _multisigned(chain, tmp_path, ("alice", "bob"), "withdraw-fees", "--to", "dave", "owners")
    withdrawn = json.loads(chain.ok("broadcast", str(tx), "--json").stdout)
    assert withdrawn["ok"] and withdrawn["func"] == "WithdrawFees"
    assert chain.balance("dave") == collected
    assert chain.json("query", "fees")["collected_ugnot"] == 0
    # The log holds the multisig's signature, and a replay from genesis checks it.
    assert chain.json("verify")["ok"] is True
    signed = chain.json("tx", receipt["hash"])["tx"]["signatures"][0]
    assert signed["pub_key"]["@type"] == "/tm.PubKeyMultisig"
    # The same file again: its sequence is spent, refused in one line, nothing appended.
    chain.fails(1, "broadcast", str(tx), message=(
        "signature verification failed; verify correct account, sequence, and chain-id: "
        "the file was signed for sequence 2, which the account has used already (broadcast "
        "before?); sign it again for its current sequence"
    ))  # fmt: skip


def test_what_cannot_be_sent_is_refused_before_anything_leaves(chain: Home, tmp_path: Path) -> None:
    chain.ok("keys", "add", "owners", "--multisig", "alice", "--multisig", "bob",
             "--multisig", "carol", "--threshold", "2")  # fmt: skip
    chain.ok("send", "--to", "owners", "--amount", "5gnot", "test1")
    tx = _generate(chain, tmp_path, "send", "--to", "alice", "--amount", "1gnot", "owners")
    chain.fails(
        2, "broadcast", str(tx), message=f"{tx} is not signed: c4 sign (or c4 multisign) it first"
    )
    cap = ("--send-cap", "1gnot")  # each member bounds what the multisig's account sends
    chain.fails(2, "sign", str(tx), "alice", "--output-document", str(tmp_path / "a.sig"))
    chain.ok("sign", str(tx), "alice", "--output-document", str(tmp_path / "a.sig"), *cap)
    chain.fails(2, "multisign", str(tx), "owners", "--signature", str(tmp_path / "a.sig"),
                message="1 member(s) signed; this multisig needs 2 of 3")  # fmt: skip
    chain.fails(2, "sign", str(tx), "bob")  # bob is not the signer: a document is needed
    chain.fails(2, "sign", str(tx), "owners", "--output-document", str(tmp_path / "x.sig"))
    chain.ok("keys", "add", "dave")
    chain.ok("sign", str(tx), "dave", "--output-document", str(tmp_path / "d.sig"), *cap)
    chain.fails(2, "multisign", str(tx), "owners", "--signature", str(tmp_path / "a.sig"),
                "--signature", str(tmp_path / "d.sig"))  # fmt: skip
    # A member's signature over other numbers: refused before it is combined.
    chain.ok("sign", str(tx), "bob", "--output-document", str(tmp_path / "b.sig"),
             "--account-number", "0", "--account-sequence", "0", *cap)  # fmt: skip
    signatures = ("--signature", str(tmp_path / "a.sig"), "--signature", str(tmp_path / "b.sig"))
    refused = chain.fails(2, "multisign", str(tx), "owners", *signatures)
    assert f"{tmp_path / 'b.sig'} is not a signature of this transaction" in refused.stderr
    chain.fails(2, "broadcast", str(tx))  # still unsigned
    assert chain.balance("owners") == 5_000_000


def test_a_fee_above_the_cap_is_not_sent_unless_raised(chain: Home, tmp_path: Path) -> None:
    tx = tmp_path / "tx.json"
    tx.write_text(chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice",
                           "--gas-fee", "20gnot", "--generate-only").stdout)  # fmt: skip
    refused = chain.fails(2, "sign", str(tx), "alice", "--send-cap", "1gnot")
    assert "above the 1 GNOT c4 signs for without being told; nothing was signed" in refused.stderr
    chain.ok("sign", str(tx), "alice", "--send-cap", "1gnot", "--fee-cap", "20gnot")
    chain.fails(2, "broadcast", str(tx))
    chain.ok("broadcast", str(tx), "--fee-cap", "20gnot")
    assert chain.balance("bob") == 10_000_000 * 1_000_000 + 1_000_000


def test_sign_works_offline_with_every_number_given(home: Home, tmp_path: Path) -> None:
    """No chain in the home: the chain id and both numbers given, as gnokey signs."""
    home.ok("keys", "add", "ms-a", "--pubkey", GPUB_A)
    assert home.json("keys", "show", "ms-a")["type"] == "offline"
    home.fails(2, "keys", "add", "bad", "--pubkey", "gpub1qqqq")
    home.ok("keys", "add", "alice")
    alice = home.address("alice")
    tx = tmp_path / "tx.json"
    body = {"msg": [{"@type": "/bank.MsgSend", "from_address": alice, "to_address": alice,
                     "amount": "1ugnot"}],
            "fee": {"gas_wanted": "100000", "gas_fee": "1000ugnot"}, "signatures": None,
            "memo": ""}  # fmt: skip
    tx.write_text(json.dumps(body))
    home.fails(3, "sign", str(tx), "alice")  # no chain to read the numbers from
    home.ok("sign", str(tx), "alice", "--chain-id", "dev", "--account-number", "3",
            "--account-sequence", "9", "--send-cap", "1ugnot")  # fmt: skip
    signed = json.loads(tx.read_text())
    key = pubkeys.from_json(signed["signatures"][0]["pub_key"])
    parsed = Tx.from_json(signed)
    doc = sign_bytes("dev", 3, 9, parsed.fee, parsed.msgs, "")
    assert pubkeys.verify(key, doc, base64.b64decode(signed["signatures"][0]["signature"]))
    assert tx.read_text() == tx.read_text().strip()  # gnokey's file: no newline at the end


def test_a_session_key_signs_a_file_for_its_master(chain: Home, tmp_path: Path) -> None:
    """As gnokey sign -session: the session's own numbers, its address in the signature."""
    chain.ok("session", "create", "--session-key", "alice-s", "--allow-paths", "bank/send",
             "--spend-limit", "1gnot", "alice")  # fmt: skip
    tx = _generate(chain, tmp_path, "send", "--to", "bob", "--amount", "5ugnot", "alice")
    chain.ok("sign", str(tx), "alice-s", "--session", "--send-cap", "5ugnot")
    entry = json.loads(tx.read_text())["signatures"][0]
    assert entry["session_addr"] == chain.address("alice-s")
    before = chain.balance("bob")
    chain.ok("broadcast", str(tx))
    assert chain.balance("bob") == before + 5


def test_sign_shows_what_it_signs_and_bounds_what_leaves(chain: Home, tmp_path: Path) -> None:
    """`c4 sign` says on stderr what it signs (chain, signer, numbers, each message, the
    fee, the memo escaped), refuses a fee above the fee cap and what takes more out of
    the signer's account than the send cap (exit 2, the file untouched), and --json
    carries the same."""
    tx = _generate(chain, tmp_path, "send", "--to", "bob", "--amount", "2gnot", "alice",
                   "--memo", "all fine \x1b[2J", "--gas-fee", "1000ugnot")  # fmt: skip
    unsigned = tx.read_bytes()
    chain.fails(2, "sign", str(tx), "alice", message="the transaction takes up to 2 GNOT out of "
                "the signer's account; nothing was signed: pass --send-cap (or $C4_SEND_CAP) "
                "with at least that, or sign on a terminal")  # fmt: skip
    chain.fails(2, "sign", str(tx), "alice", "--send-cap", "1.5gnot")
    chain.fails(2, "sign", str(tx), "alice", "--send-cap", "2gnot", "--fee-cap", "999ugnot")
    assert tx.read_bytes() == unsigned
    result = chain.ok("sign", str(tx), "alice", "--send-cap", "2gnot", "--json")
    alice, bob = chain.address("alice"), chain.address("bob")
    document = json.loads(result.stdout)
    fee = json.loads(unsigned)["fee"]
    assert result.stderr == (
        f"signing on chain dev for {alice} (account number {document['account_number']}, "
        f"sequence {document['sequence']}):\n"
        f"  send 2000000ugnot to {bob}\n"
        f"  fee: {fee['gas_fee']} for {fee['gas_wanted']} gas\n"
        "  memo: all fine \\x1b[2J\n"
    )
    assert (document["messages"], document["sends_out"], document["gas_fee"]) == (
        [f"send 2000000ugnot to {bob}"],
        "2000000ugnot",
        fee["gas_fee"],
    )
    assert json.loads(tx.read_text())["signatures"]


@pytest.mark.parametrize("answer", ["y", "n"])
def test_sign_on_a_terminal_asks_before_it_signs_a_send(
    chain: Home, tmp_path: Path, c4_bin: str, answer: str
) -> None:
    """No send cap given, on a terminal: the summary, then a question; only yes signs."""
    import os
    import pty
    import subprocess

    tx = _generate(chain, tmp_path, "send", "--to", "bob", "--amount", "3gnot", "alice")
    leader, follower = pty.openpty()
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    env.pop("C4_SEND_CAP", None)
    proc = subprocess.Popen([c4_bin, "sign", str(tx), "alice"], env=env, stdin=follower,
                            stdout=follower, stderr=follower)  # fmt: skip
    os.close(follower)
    seen = b""
    while b"[y/N]" not in seen:
        seen += os.read(leader, 4096)
    os.write(leader, f"{answer}\n".encode())
    code = proc.wait(timeout=30)
    os.close(leader)
    assert b"send 3000000ugnot to" in seen
    assert b"sign it, taking up to 3 GNOT out of the signer's account?" in seen
    assert code == (0 if answer == "y" else 2)
    assert bool(json.loads(tx.read_text())["signatures"]) == (answer == "y")


def test_a_file_broadcast_twice_says_its_sequence_was_used(chain: Home, tmp_path: Path) -> None:
    """The chain's words, then the step they leave out: the file's sequence is spent."""
    tx = _generate(chain, tmp_path, "send", "--to", "bob", "--amount", "1ugnot", "alice")
    chain.ok("sign", str(tx), "alice", "--send-cap", "1ugnot")
    chain.ok("broadcast", str(tx))
    again = chain.fails(1, "broadcast", str(tx))
    assert again.stderr.startswith("Error: signature verification failed")
    assert again.stderr.endswith(
        ": the file was signed for sequence 0, which the account has used already (broadcast "
        "before?); sign it again for its current sequence\n"
    )


def test_sign_counts_what_a_session_key_may_spend_over_its_life(
    chain: Home, tmp_path: Path
) -> None:
    """Issue 47: a session key whose 1 GNOT limit renews every 2 s for a year may take
    about 15.8 million GNOT, not 1: refused under a 1 GNOT send cap, and shown whole
    (its key, expiry, paths and renewing limit) when the cap holds it. One that renews
    without expiry, or a send of another denomination, no ugnot cap bounds."""
    draining = _generate(chain, tmp_path, "session", "create", "--session-key", "alice-d",
                         "--expires", "8760h", "--allow-paths", "bank/send",
                         "--spend-limit", "1gnot", "--spend-period", "2", "alice")  # fmt: skip
    unsigned = draining.read_bytes()
    refused = chain.fails(2, "sign", str(draining), "alice", "--send-cap", "1gnot")
    # 15,768,000 periods of 2 s in 8,760 h, give or take the seconds the chain's clock
    # moved since the file was made.
    found = re.search(r"takes up to (\d+) GNOT out of the signer's account, above the send "
                      r"cap of 1 GNOT; nothing was signed", refused.stderr)  # fmt: skip
    assert found is not None and 15_767_000 < int(found.group(1)) <= 15_768_100, refused.stderr
    assert draining.read_bytes() == unsigned
    shown = chain.ok("sign", str(draining), "alice", "--send-cap", "16000000gnot", "--json")
    session = chain.address("alice-d")
    assert (
        f"  create session key {session}, expiring 2" in shown.stderr
        and ", allowed paths bank/send, spending up to 1000000ugnot every 2s, renewed until "
        "it expires\n"
        in shown.stderr
    ), shown.stderr
    document = json.loads(shown.stdout)
    assert int(document["sends_out"].removesuffix("ugnot")) == int(found.group(1)) * 10**6
    assert (document["sends_out_other"], document["sends_out_unbounded"]) == ("", "")

    forever = _generate(chain, tmp_path, "session", "create", "--session-key", "alice-f",
                        "--expires", "none", "--allow-paths", "bank/send",
                        "--spend-limit", "1gnot", "--spend-period", "60", "alice")  # fmt: skip
    chain.fails(2, "sign", str(forever), "alice", "--send-cap", "1000000000gnot",
                message="the transaction takes without bound (a session key whose "
                "1000000ugnot limit renews forever) out of the signer's account; nothing "
                "was signed: no send cap bounds that, sign it on a terminal to take "
                "that on")  # fmt: skip
    lifetime = _generate(chain, tmp_path, "session", "create", "--session-key", "alice-l",
                         "--expires", "none", "--allow-paths", "bank/send",
                         "--spend-limit", "1gnot", "alice")  # fmt: skip
    once = json.loads(chain.ok("sign", str(lifetime), "alice", "--send-cap", "1gnot",
                               "--json").stdout)  # fmt: skip
    assert once["sends_out"] == "1000000ugnot"

    other = _generate(chain, tmp_path, "send", "--to", "bob", "--amount", "5ugnot", "alice")
    document = json.loads(other.read_text())
    document["msg"][0]["amount"] = "5ugnot,7foo"
    other.write_text(json.dumps(document))
    refused = chain.fails(2, "sign", str(other), "alice", "--send-cap", "1gnot")
    assert "takes without bound" not in refused.stderr
    assert refused.stderr == (
        "Error: the transaction takes up to 0.000005 GNOT and 7foo out of the signer's "
        "account; nothing was signed: a send cap in ugnot does not bound 7foo, sign it on a "
        "terminal to take that on\n"
    )
