"""c4 signs what gnokey v1.7.1 signs: for every message type c4 sends, `gnokey sign` of
c4's transaction body gives c4's signature and TX HASH, byte for byte.

gnokey signs offline (account number and sequence given), so no node runs here; the
binary is the one scripts/install-gno.sh builds at the pinned version. The same holds
of transactions c4 sent: a local chain's here, a node's in test_multisig_node.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.gnonode import gnokey_with_test1, node_available

from c4cli.home.keys import DEV_MNEMONIC
from c4cli.wire import crypto, pubkeys
from c4cli.wire.tx import (
    Tx,
    call_msg,
    create_session_msg,
    fee,
    revoke_all_sessions_msg,
    revoke_session_msg,
    send_msg,
    signed_tx,
    tx_hash,
)
from support import Home

pytestmark = pytest.mark.node

KEY = crypto.derive_private_key(DEV_MNEMONIC)
ME = crypto.address_of(crypto.public_key(KEY))
OTHER = "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"
SESSION = crypto.public_key(bytes([7]) * 32)
REALM = "gno.land/r/c4cli/connect4"
COMMITMENT = "ab" * 32

MESSAGES: dict[str, list[dict[str, Any]]] = {
    "send": [send_msg(ME, OTHER, "1000000ugnot")],
    "offer": [call_msg(ME, REALM, "Offer", ["", "15", COMMITMENT, "100000"], "10000000ugnot")],
    "play": [call_msg(ME, REALM, "Play", ["1", "4", "0"])],
    "owner": [call_msg(ME, REALM, "WithdrawFees", [OTHER])],
    "create session": [
        create_session_msg(ME, SESSION, 1_800_000_000, [f"vm/exec:{REALM}"], "5000000ugnot", 86400)
    ],
    "revoke session": [revoke_session_msg(ME, SESSION)],
    "revoke all": [revoke_all_sessions_msg(ME)],
}


@pytest.fixture(scope="module")
def gnokey(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """gnokey, and a gnokey home holding test1 (the dev mnemonic, no passphrase)."""
    reason = node_available()
    if reason is not None:
        from oracles import missing

        missing("go", reason + " (scripts/install-gno.sh installs gnokey)")
    binary, home, added = gnokey_with_test1(tmp_path_factory.mktemp("gnokey"))
    # gnokey names the key as c4 does: its address, and its public key as gpub1….
    public = crypto.public_key(KEY)
    assert f"addr: {ME} pub: {pubkeys.bech32(public)}," in added
    return Path(binary), Path(home)


# gnokey will not sign a zero fee ("insufficient fee"); how a zero fee is rendered is
# checked against gno's own GetSignBytes in tests/wire/test_wire.py.
@pytest.mark.parametrize("kind", sorted(MESSAGES))
def test_gnokey_signs_what_c4_signs(gnokey: tuple[Path, Path], tmp_path: Path, kind: str) -> None:
    ours = signed_tx(
        MESSAGES[kind],
        fee(2_000_000, "1000ugnot"),
        "c4 <&> é",
        private_key=KEY,
        chain_id="dev",
        account_number=7,
        sequence=42,
    )
    theirs = gnokey_sign(gnokey, "test1", ours.to_json(), 7, 42, tmp_path / "tx.json")
    assert theirs["signatures"] == ours.to_json()["signatures"]
    assert Tx.from_json(theirs) == ours and tx_hash(Tx.from_json(theirs)) == tx_hash(ours)


def gnokey_sign(
    gnokey: tuple[Path, Path], key: str, tx: dict[str, Any], number: int, sequence: int, body: Path
) -> dict[str, Any]:
    """``tx`` as ``gnokey sign`` signs its body (offline, chain "dev", these numbers)."""
    binary, home = gnokey
    body.write_text(json.dumps({**tx, "signatures": None}))
    sign = subprocess.run(
        [
            *(str(binary), "sign", "-tx-path", str(body), "-chainid", "dev", "-home", str(home)),
            *("-account-number", str(number), "-account-sequence", str(sequence)),
            *("-insecure-password-stdin", key),
        ],
        input="\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sign.returncode == 0, sign.stderr
    signed: dict[str, Any] = json.loads(body.read_text())
    return signed


def resigned_by_gnokey(home: Home, key: str, tx: str, gnokey: tuple[Path, Path], tmp: Path) -> None:
    """``gnokey sign`` of the body of transaction ``tx``, the last one ``key`` signed, with
    the account's number and that sequence, gives the signature and TX HASH c4 sent."""
    sent = home.json("tx", tx)["tx"]
    account = home.json("query", "account", key)["BaseAccount"]
    number, sequence = int(account["account_number"]), int(account["sequence"]) - 1
    theirs = gnokey_sign(gnokey, key, sent, number, sequence, tmp / f"{key}-body.json")
    assert theirs["signatures"] == sent["signatures"]
    assert tx_hash(Tx.from_json(theirs)) == tx


def test_gnokey_signs_what_c4_sent_to_the_local_chain(
    gnokey: tuple[Path, Path], chain: Home, tmp_path: Path
) -> None:
    """An offer, its acceptance and a move as c4 appended them (a fee given: gnokey signs
    no zero fee), each signed again by gnokey holding the same keys."""
    binary, keys = gnokey
    for name in ("alice", "bob"):
        armor = tmp_path / f"{name}.armor"
        chain.ok("keys", "export", name, "--output-path", str(armor), env={"C4_ARMOR_PASSWORD": ""})
        gnokey_import = [str(binary), "import", "-home", str(keys), "-name", name]
        subprocess.run(
            [*gnokey_import, "-armor-path", str(armor), "-insecure-password-stdin"],
            input="\n\n\n",
            text=True,
            check=True,
            capture_output=True,
            timeout=60,
        )
    fee = ("--gas-wanted", "3000000", "--gas-fee", "3000ugnot")
    offer = chain.json("offer", "--stake", "1gnot", *fee, "alice")
    resigned_by_gnokey(chain, "alice", offer["hash"], gnokey, tmp_path)
    game = str(offer["result"][0])
    resigned_by_gnokey(
        chain, "bob", chain.json("accept", game, *fee, "bob")["hash"], gnokey, tmp_path
    )
    chain.ok("reveal", game, *fee, "alice")
    turn = chain.json("reveal", game, *fee, "bob")["game"]["turn"]
    first = "alice" if turn == 1 else "bob"
    move = chain.json("play", game, "4", *fee, first)
    resigned_by_gnokey(chain, first, move["hash"], gnokey, tmp_path)


def test_keys_list_is_gnokeys_list_line_for_line(gnokey: tuple[Path, Path], tmp_path: Path) -> None:
    """The same keys in a gnokey home and in a c4 home: a local key from the dev
    mnemonic, one at another account and index, a public key alone, a multisig."""
    binary, _ = gnokey
    keybase = tmp_path / "gnokey"  # its own: the module's keybase gains keys in other tests
    gnokey_with_test1(keybase)
    offline = pubkeys.bech32(crypto.public_key(bytes([9]) * 32))

    def run_gnokey(*args: str, given: str = "") -> str:
        done = subprocess.run(
            [str(binary), *args, "--home", str(keybase)],
            input=given,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    derived = ["k2", "--recover", "--account", "1", "--index", "1"]  # the same words, flags
    run_gnokey("add", *derived, "--insecure-password-stdin", given=f"{DEV_MNEMONIC}\n\n\n")
    run_gnokey("add", "bech32", "pub", "--pubkey", offline)
    run_gnokey(
        "add", "multisig", "ms", "--multisig", "test1", "--multisig", "k2", "--threshold", "1"
    )
    home = Home(tmp_path / "c4")
    added = home.ok("keys", "add", "test1", "--recover", input=DEV_MNEMONIC + "\n").stdout
    public = pubkeys.bech32(crypto.public_key(KEY))
    assert added == f"* test1 (local) - addr: {ME} pub: {public}, path: <nil>\n"  # as gnokey
    home.ok("keys", "add", *derived, input=DEV_MNEMONIC + "\n")
    home.ok("keys", "add", "pub", "--pubkey", offline)
    home.ok("keys", "add", "ms", "--multisig", "test1", "--multisig", "k2", "--threshold", "1")
    theirs = [line for line in run_gnokey("list").splitlines() if line.strip()]
    assert home.ok("keys", "list").stdout.splitlines() == theirs
