"""An owner that is a multisig, on a real node, with gnokey v1.7.1 at every other step.

Keys move between the two tools in gnokey's armor (both ways, sealed and in clear);
a 2-of-3 multisig named in both has one address; the realm is handed over to it and
its fee set and its fees withdrawn by transactions passed from one tool to the other:
c4's unsigned file signed by gnokey and c4, combined by gnokey and sent by c4, then
combined by c4 and sent by gnokey; gnokey's unsigned file signed by both, combined and
sent by c4.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.gnonode import gnokey_with_test1
from real_gnoland.test_gnokey_sign import resigned_by_gnokey
from real_gnoland.test_remote import bound_home, staked_game, ugnot

from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/multisig/connect4"
CLEAR = {"C4_ARMOR_PASSWORD": ""}  # an armor in clear, as gnokey writes one then
FEE = ("--gas-wanted", "10000000", "--gas-fee", "500000ugnot")  # within the 1 GNOT fee cap


class Gnokey:
    """gnokey over one home of its own, every passphrase typed on stdin."""

    def __init__(self, binary: str, home: str, url: str) -> None:
        self.binary, self.home, self.url = binary, home, url

    def __call__(self, *args: str, stdin: str = "\n\n\n") -> str:
        done = subprocess.run(
            [self.binary, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout + done.stderr

    def keyed(self, command: str, *args: str, stdin: str = "\n\n\n") -> str:
        return self(command, "-home", self.home, "-insecure-password-stdin", *args, stdin=stdin)

    def sign_for(self, tx: Path, numbers: list[str], key: str, document: Path) -> None:
        """``key``'s signature of ``tx`` (a multisig member's) written to ``document``;
        ``numbers`` are gnokey's -chainid, -account-number and -account-sequence."""
        self.keyed("sign", "-tx-path", str(tx), *numbers, "-output-document", str(document), key)

    def address(self, name: str) -> str:
        listed = self("list", "-home", self.home)
        found = re.search(rf"\. {re.escape(name)} \(\w+\) - addr: (g1\w+)", listed)
        assert found, listed
        return found.group(1)


@pytest.fixture(scope="module")
def tools(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Home, Gnokey, Path]:
    folder = tmp_path_factory.mktemp("multisig")
    home = bound_home(gno_node, REALM_PATH, folder)
    binary, keys, _ = gnokey_with_test1(folder / "gnokey")
    return home, Gnokey(binary, keys, gno_node.url), folder


def test_keys_move_both_ways_in_gnokeys_armor(tools: tuple[Home, Gnokey, Path]) -> None:
    home, gnokey, folder = tools
    # c4 -> gnokey: carol sealed, alice in clear.
    for name, passphrase in (("carol", "pw"), ("alice", "")):
        armor = folder / f"{name}.c4.armor"
        result = home.run(
            "keys", "export", name, "--output-path", str(armor),
            env={"C4_ARMOR_PASSWORD": passphrase},
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        gnokey.keyed("import", "-name", name, "-armor-path", str(armor),
                     stdin=f"{passphrase}\n\n\n")  # fmt: skip
        assert gnokey.address(name) == home.address(name)
    # gnokey -> c4: dave made by gnokey, exported sealed and in clear.
    gnokey.keyed("add", "dave")
    for passphrase, name in (("pw2", "dave"), ("", "dave-clear")):
        armor = folder / f"{name}.gnokey.armor"
        gnokey.keyed("export", "-key", "dave", "-output-path", str(armor),
                     stdin=f"\n{passphrase}\n{passphrase}\n")  # fmt: skip
        result = home.run("keys", "import", name, "--armor-path", str(armor),
                          env={"C4_ARMOR_PASSWORD": passphrase})  # fmt: skip
        assert result.exit_code == 0, result.output
        assert home.address(name) == gnokey.address("dave")
    wrong = home.run("keys", "import", "x", "--armor-path", str(folder / "dave.gnokey.armor"),
                     env={"C4_ARMOR_PASSWORD": "nope"})  # fmt: skip
    assert wrong.exit_code == 2 and "wrong armor passphrase" in wrong.stderr


def test_gnokey_signs_what_c4_sent_to_the_node(tools: tuple[Home, Gnokey, Path]) -> None:
    """A send and an offer c4 sent to the node, each signed again by gnokey holding the
    same key (imported above through the armor): the same signature and TX HASH."""
    home, gnokey, folder = tools
    if "dave" not in home.ok("keys", "list").stdout:
        test_keys_move_both_ways_in_gnokeys_armor(tools)
    keys = (Path(gnokey.binary), Path(gnokey.home))
    sent = home.json("send", "--to", "bob", "--amount", "1ugnot", "alice")
    resigned_by_gnokey(home, "alice", sent["hash"], keys, folder)
    offer = home.json("offer", "--stake", "1gnot", "alice")
    resigned_by_gnokey(home, "alice", offer["hash"], keys, folder)
    home.ok("cancel", str(offer["result"][0]), "alice")


def _numbers(gno_node: Any, address: str) -> list[str]:
    number, sequence = gno_node.account(address)
    return ["-chainid", "dev", "-account-number", str(number), "-account-sequence", str(sequence)]


def test_a_multisig_owner_with_gnokey_at_every_other_step(
    tools: tuple[Home, Gnokey, Path], gno_node: Any
) -> None:
    home, gnokey, folder = tools
    if "dave" not in home.ok("keys", "list").stdout:
        test_keys_move_both_ways_in_gnokeys_armor(tools)
    members = ("--multisig", "alice", "--multisig", "carol", "--multisig", "dave")
    home.ok("keys", "add", "owners", *members, "--threshold", "2")
    gnokey("add", "multisig", "-home", gnokey.home, "-multisig", "alice", "-multisig", "carol",
           "-multisig", "dave", "-threshold", "2", "owners")  # fmt: skip
    owners = home.address("owners")
    assert gnokey.address("owners") == owners  # the same key, sorted the same way
    home.ok("send", "--to", "owners", "--amount", "10gnot", "test1")
    home.ok("transfer-ownership", "owners", "test1")

    # c4 builds; gnokey (carol) and c4 (alice) sign; gnokey combines; c4 sends.
    tx = folder / "accept.json"
    # No gas given: estimated with the multisig's key in place of its signatures.
    tx.write_text(home.ok("accept-ownership", "owners", "--generate-only").stdout)
    assert int(json.loads(tx.read_text())["fee"]["gas_wanted"]) > 0
    numbers = _numbers(gno_node, owners)
    gnokey.sign_for(tx, numbers, "carol", folder / "carol.sig")
    home.ok("sign", str(tx), "alice", "--output-document", str(folder / "alice.sig"))
    ours = folder / "accept.c4.json"
    ours.write_bytes(tx.read_bytes())
    gnokey("multisign", "-home", gnokey.home, "-tx-path", str(tx),
           "-signature", str(folder / "carol.sig"), "-signature", str(folder / "alice.sig"),
           "owners")  # fmt: skip
    home.ok("multisign", str(ours), "owners", "--signature", str(folder / "carol.sig"),
            "--signature", str(folder / "alice.sig"))  # fmt: skip
    assert ours.read_bytes() == tx.read_bytes()  # gnokey's file, byte for byte
    receipt = json.loads(home.ok("broadcast", str(tx), "--json").stdout)
    assert receipt["ok"] and receipt["func"] == "AcceptOwnership"
    assert home.json("query", "fees")["owner"] == owners

    # c4 builds; c4 (dave) and gnokey (alice) sign; c4 combines; gnokey sends.
    tx = folder / "fee.json"
    tx.write_text(home.ok("set-fee", "0.1gnot", "owners", *FEE, "--generate-only").stdout)
    numbers = _numbers(gno_node, owners)
    home.ok("sign", str(tx), "dave", "--output-document", str(folder / "dave.sig"))
    gnokey.sign_for(tx, numbers, "alice", folder / "alice2.sig")
    home.ok("multisign", str(tx), "owners", "--signature", str(folder / "dave.sig"),
            "--signature", str(folder / "alice2.sig"))  # fmt: skip
    sent = gnokey("broadcast", "-remote", gnokey.url, str(tx))
    assert home.json("query", "fees")["fee_ugnot"] == 100_000
    tx_hash = re.search(r"TX HASH:\s+(\S+)", sent)
    assert tx_hash, sent
    shown = home.json("tx", tx_hash.group(1))
    assert shown["signer"] == owners and shown["func"] == "SetFee"
    assert shown["tx"]["signatures"][0]["pub_key"]["@type"] == "/tm.PubKeyMultisig"

    # A staked game pays the fee just set; gnokey builds the withdrawal, c4 (carol) and
    # gnokey (dave) sign, c4 combines and sends: the fee, to the ugnot, to a new key.
    staked_game(home, 1_000_000)
    assert home.json("query", "fees")["collected_ugnot"] == 100_000
    home.ok("keys", "add", "treasury")
    treasury = home.address("treasury")
    unsigned = gnokey("maketx", "call", "-home", gnokey.home, "-pkgpath", REALM_PATH,
                      "-func", "WithdrawFees", "-args", treasury, "-gas-wanted", "20000000",
                      "-gas-fee", FEE[3], "-broadcast=false", "owners")  # fmt: skip
    tx = folder / "withdraw.json"
    tx.write_text(unsigned)
    numbers = _numbers(gno_node, owners)
    home.ok("sign", str(tx), "carol", "--output-document", str(folder / "carol3.sig"))
    gnokey.sign_for(tx, numbers, "dave", folder / "dave3.sig")
    home.ok("multisign", str(tx), "owners", "--signature", str(folder / "carol3.sig"),
            "--signature", str(folder / "dave3.sig"))  # fmt: skip
    receipt = json.loads(home.ok("broadcast", str(tx), "--json").stdout)
    assert receipt["ok"] and receipt["func"] == "WithdrawFees", receipt  # ~11.6M gas
    assert receipt["transfers"] == [{"to": treasury, "amount": "100000ugnot"}]
    assert ugnot(home, "treasury") == 100_000
    assert home.json("query", "fees")["collected_ugnot"] == 0


def test_the_same_hand_to_hand_flow_on_the_local_chain(chain: Home, tmp_path: Path) -> None:
    """gnokey signs and combines for the local chain (offline: the numbers from c4),
    and c4 sends what gnokey made; gnokey cannot reach the local chain, so c4
    broadcasts every time. dave is named in gnokey by its public key alone."""
    binary, keys, _ = gnokey_with_test1(tmp_path / "gnokey")
    gnokey = Gnokey(binary, keys, "")
    chain.ok("keys", "add", "dave")
    for name in ("alice", "carol"):
        armor = tmp_path / f"{name}.armor"
        chain.ok("keys", "export", name, "--output-path", str(armor), env=CLEAR)
        gnokey.keyed("import", "-name", name, "-armor-path", str(armor))
    dave = chain.json("keys", "show", "dave")["pub_key_bech32"]
    gnokey("add", "bech32", "-home", keys, "-pubkey", dave, "dave")
    chain.ok("keys", "add", "owners", "--multisig", "alice", "--multisig", "carol",
             "--multisig", "dave", "--threshold", "2")  # fmt: skip
    gnokey("add", "multisig", "-home", keys, "-multisig", "alice", "-multisig", "carol",
           "-multisig", "dave", "-threshold", "2", "owners")  # fmt: skip
    owners = chain.address("owners")
    assert gnokey.address("owners") == owners
    chain.ok("send", "--to", "owners", "--amount", "10gnot", "test1")
    chain.ok("transfer-ownership", "owners", "test1")

    def numbers() -> list[str]:
        account = chain.json("query", "account", "owners")["BaseAccount"]
        return ["-chainid", "dev", "-account-number", account["account_number"],
                "-account-sequence", account["sequence"]]  # fmt: skip

    # c4's file: gnokey (carol) and c4 (alice) sign, gnokey combines, c4 sends.
    tx = tmp_path / "accept.json"
    fee = ("--gas-wanted", "2000000", "--gas-fee", "1000ugnot")  # gnokey signs no zero fee
    tx.write_text(chain.ok("accept-ownership", "owners", *fee, "--generate-only").stdout)
    gnokey.sign_for(tx, numbers(), "carol", tmp_path / "carol.sig")
    chain.ok("sign", str(tx), "alice", "--output-document", str(tmp_path / "alice.sig"))
    gnokey("multisign", "-home", keys, "-tx-path", str(tx), "-signature",
           str(tmp_path / "carol.sig"), "-signature", str(tmp_path / "alice.sig"),
           "owners")  # fmt: skip
    chain.ok("broadcast", str(tx))
    assert chain.json("query", "fees")["owner"] == owners

    # gnokey's file: c4 (dave) and gnokey (alice) sign, c4 combines and sends.
    realm = json.loads(tx.read_text())["msg"][0]["pkg_path"]
    tx = tmp_path / "fee.json"
    tx.write_text(gnokey("maketx", "call", "-home", keys, "-pkgpath", realm, "-func", "SetFee",
                         "-args", "150000", "-gas-wanted", "2000000", "-gas-fee", "1000ugnot",
                         "-broadcast=false", "owners"))  # fmt: skip
    chain.ok("sign", str(tx), "dave", "--output-document", str(tmp_path / "dave.sig"))
    gnokey.sign_for(tx, numbers(), "alice", tmp_path / "alice2.sig")
    chain.ok("multisign", str(tx), "owners", "--signature", str(tmp_path / "dave.sig"),
             "--signature", str(tmp_path / "alice2.sig"))  # fmt: skip
    receipt = json.loads(chain.ok("broadcast", str(tx), "--json").stdout)
    assert receipt["ok"] and receipt["func"] == "SetFee"
    assert chain.json("tx", receipt["hash"])["signer"] == owners
    assert chain.json("query", "fees")["fee_ugnot"] == 150_000
    assert chain.json("verify")["ok"] is True
