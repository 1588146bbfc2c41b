"""An owner that is a multisig, on a real node, with gnokey v1.7.1 at every other step.

Keys move between the two tools in gnokey's armor (both ways, sealed and in clear);
a 2-of-3 multisig named in both has one address; the realm is handed over to it and
its fee set by transactions passed from one tool to the other: c4's unsigned file
signed by gnokey and c4, combined by gnokey and sent by c4, then combined by c4 and
sent by gnokey.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from node.gnonode import gnokey_with_test1
from node.test_remote import bound_home

from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/multisig/connect4"
FEE = ("--gas-wanted", "5000000", "--gas-fee", "2500000ugnot")


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


def _numbers(gno_node: Any, address: str) -> tuple[str, str]:
    number, sequence = gno_node.account(address)
    return str(number), str(sequence)


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
    tx.write_text(home.ok("accept-ownership", "owners", *FEE, "--generate-only").stdout)
    number, sequence = _numbers(gno_node, owners)
    gnokey.keyed("sign", "-tx-path", str(tx), "-chainid", "dev", "-account-number", number,
                 "-account-sequence", sequence, "-output-document",
                 str(folder / "carol.sig"), "carol")  # fmt: skip
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
    number, sequence = _numbers(gno_node, owners)
    home.ok("sign", str(tx), "dave", "--output-document", str(folder / "dave.sig"))
    gnokey.keyed("sign", "-tx-path", str(tx), "-chainid", "dev", "-account-number", number,
                 "-account-sequence", sequence, "-output-document",
                 str(folder / "alice2.sig"), "alice")  # fmt: skip
    home.ok("multisign", str(tx), "owners", "--signature", str(folder / "dave.sig"),
            "--signature", str(folder / "alice2.sig"))  # fmt: skip
    sent = gnokey("broadcast", "-remote", gnokey.url, str(tx))
    assert home.json("query", "fees")["fee"] == 100_000
    tx_hash = re.search(r"TX HASH:\s+(\S+)", sent)
    assert tx_hash, sent
    shown = home.json("tx", tx_hash.group(1))
    assert shown["signer"] == owners and shown["func"] == "SetFee"
    assert shown["tx"]["signatures"][0]["pub_key"]["@type"] == "/tm.PubKeyMultisig"
