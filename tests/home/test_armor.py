"""Private keys in gnokey's armor: gnokey's own exports read, ours as gnokey writes them.

The two armors below are `gnokey export` (v1.7.1) of one throwaway key, with the
passphrase "pw" and with none; tests/real_gnoland has gnokey import what c4 exports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from c4cli.errors import BadInput
from c4cli.home import armor
from c4cli.wire import crypto
from support import Home

ADDRESS = "g1axhqjsytn9xnpnzft3qu6sn2gcf22qtsqupec4"
SEALED = """-----BEGIN TENDERMINT PRIVATE KEY-----
kdf: bcrypt
salt: 3B45FE4F33392039DE07762F048E8006

dTfk83gMsucwBWAJOc/l2qlFqG1wukm88xzHFL9t89r5AMPaFmjMhrZGEdDv1FHb
seQUjCbOR0zQUv7NXaUdK24zveNCC4YoIHNljwG+WfePO/LkSaC8jGl5PEANqb80
Bes=
=tKOO
-----END TENDERMINT PRIVATE KEY-----"""
CLEAR = """-----BEGIN TENDERMINT PRIVATE KEY-----

ChQvdG0uUHJpdktleVNlY3AyNTZrMRIiCiAXZXN6yleAtyOR8pBgDKRM7X/tSvGT
i+h33NMmjQMEoA==
=8ukO
-----END TENDERMINT PRIVATE KEY-----"""


def _address(private_key: bytes) -> str:
    return crypto.address_of(crypto.public_key(private_key))


def test_gnokeys_armors_are_read() -> None:
    assert _address(armor.import_key(SEALED, lambda: "pw", "a.armor")) == ADDRESS
    assert _address(armor.import_key(CLEAR, lambda: pytest.fail("not asked"), "a")) == ADDRESS
    with pytest.raises(BadInput, match=r"wrong armor passphrase for a\.armor"):
        armor.import_key(SEALED, lambda: "wrong", "a.armor")


def test_an_armor_is_written_as_gnokey_writes_it() -> None:
    key = armor.import_key(CLEAR, lambda: "", "a")
    assert armor.export_key(key, "") == CLEAR  # byte for byte
    sealed = armor.export_key(key, "s3cret")
    assert sealed.splitlines()[1] == "kdf: bcrypt" and sealed.splitlines()[2].startswith("salt: ")
    assert sealed != armor.export_key(key, "s3cret")  # a fresh salt and nonce each time
    assert armor.import_key(sealed, lambda: "s3cret", "x") == key


def test_a_damaged_armor_is_one_line() -> None:
    flipped = CLEAR.replace("ChQvdG0u", "ChQvdG1u")
    with pytest.raises(BadInput, match="checksum does not match"):
        armor.import_key(flipped, lambda: "", "a")
    with pytest.raises(BadInput, match="is not a private key armor"):
        armor.import_key("hello", lambda: "", "a")


def test_keys_export_and_import(home: Home, tmp_path: Path) -> None:
    home.ok("keys", "add", "alice")
    alice = home.address("alice")
    path = tmp_path / "alice.armor"
    sealed = {"C4_ARMOR_PASSWORD": "s3cret"}
    result = home.run("keys", "export", "alice", "--output-path", str(path), env=sealed)
    assert result.exit_code == 0 and path.read_text().startswith("-----BEGIN TENDERMINT")
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    again = home.run("keys", "export", "alice", "--output-path", str(path), env=sealed)
    assert again.exit_code == 2 and "exists" in again.stderr  # never overwritten
    wrong = home.run("keys", "import", "a2", "--armor-path", str(path),
                     env={"C4_ARMOR_PASSWORD": "nope"})  # fmt: skip
    assert wrong.exit_code == 2
    assert wrong.stderr == f"Error: wrong armor passphrase for {path}: nothing was imported\n"
    assert home.run("keys", "show", "a2").exit_code == 2
    done = home.run("keys", "import", "a2", "--armor-path", str(path), "--json", env=sealed)
    assert done.exit_code == 0, done.output
    assert f'"address": "{alice}"' in done.stdout
    (tmp_path / "gnokey.armor").write_text(SEALED)
    result = home.run("keys", "import", "g", "--armor-path", str(tmp_path / "gnokey.armor"),
                      env={"C4_ARMOR_PASSWORD": "pw"})  # fmt: skip
    assert result.exit_code == 0 and home.address("g") == ADDRESS
    # No passphrase anywhere and no terminal: one line, exit 2, nothing written.
    missing = home.run("keys", "export", "alice", "--output-path", str(tmp_path / "x"))
    assert missing.exit_code == 2 and not (tmp_path / "x").exists()


@pytest.mark.parametrize("scalar", [0, armor.SECP256K1_ORDER, 2**256 - 1])
def test_an_armor_of_no_private_key_is_one_line(scalar: int) -> None:
    """32 bytes that are 0 or not below the curve's order are no key: refused in one line
    (sealed or not), never an internal error."""
    for passphrase in ("", "pw"):
        text = armor.export_key(scalar.to_bytes(32, "big"), passphrase)
        with pytest.raises(BadInput, match="holds 32 bytes that are no secp256k1 private key"):
            armor.import_key(text, lambda passphrase=passphrase: passphrase, "x.armor")
