"""Keys are gnokey's own: same derivation, addresses, public keys; sealed on disk."""

from __future__ import annotations

import json
import stat

import pytest

from c4cli.errors import BadInput
from c4cli.home.keys import DEV_MNEMONIC, Keyring
from c4cli.wire import crypto
from support import Home


@pytest.mark.parametrize(
    ("account", "index", "address"),
    [
        (0, 0, "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"),
        (1, 0, "g18e22n23g462drp4pyszyl6e6mwxkaylthgeeq4"),
        (1, 1, "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"),
    ],
)
def test_derivation_vectors(account: int, index: int, address: str) -> None:
    key = crypto.derive_private_key(DEV_MNEMONIC, account, index)
    assert crypto.address_of(crypto.public_key(key)) == address


def test_recover_test1_from_the_shell(home) -> None:  # type: ignore[no-untyped-def]
    result = home.ok("keys", "add", "test1", "--recover", "--json", input=DEV_MNEMONIC + "\n")
    doc = json.loads(result.stdout)
    assert doc == {
        "name": "test1",
        "type": "local",
        "address": "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5",
        "pub_key": "A+FhNtsXHjLfSJk1lB8FbiL4mGPjc50Kt81J7EKDnJ2y",
        # As `gnokey add --recover test1` prints it.
        "pub_key_bech32": (
            "gpub1pgfj7ard9eg82cjtv4u4xetrwqer2dntxyfzxz3pq0skzdkmzu0r9h6gny6eg8c9dc303xrrudee6z4he4y7cs5rnjwmyf40yaj"
        ),
    }
    assert "WARNING" in result.stderr  # empty passphrase: stored in clear, as gnokey warns


def test_recover_account_and_index(home) -> None:  # type: ignore[no-untyped-def]
    result = home.ok(
        "keys",
        "add",
        "k11",
        "--recover",
        "--account",
        "1",
        "--index",
        "1",
        "--json",
        input=DEV_MNEMONIC + "\n",
    )
    assert json.loads(result.stdout)["address"] == "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"


def test_new_key_shows_24_words_once(home) -> None:  # type: ignore[no-untyped-def]
    doc = home.json("keys", "add", "alice")
    words = doc["mnemonic"].split()
    assert len(words) == 24
    again = crypto.derive_private_key(doc["mnemonic"])
    assert crypto.address_of(crypto.public_key(again)) == doc["address"]
    shown = home.json("keys", "show", "alice")
    assert "mnemonic" not in shown and shown["address"] == doc["address"]
    assert doc["mnemonic"] not in (home.path / "keys" / "alice.json").read_text()


def test_bad_mnemonic_is_refused(home) -> None:  # type: ignore[no-untyped-def]
    words = DEV_MNEMONIC.replace("roast", "toast")
    result = home.run("keys", "add", "x", "--recover", input=words + "\n")
    assert result.exit_code == 2
    assert "checksum" in result.stderr and not (home.path / "keys" / "x.json").exists()


def test_encrypted_key_needs_its_passphrase(home) -> None:  # type: ignore[no-untyped-def]
    home.ok("keys", "add", "sealed", "--password-stdin", input="hunter2 is weak\n")
    record = json.loads((home.path / "keys" / "sealed.json").read_text())
    assert "private_key" not in record and record["crypto"]["kdf"] == "scrypt"
    keyring = Keyring(home.path)
    with pytest.raises(BadInput, match="wrong passphrase"):
        keyring.private_key("sealed", "hunter3")
    key = keyring.private_key("sealed", "hunter2 is weak")
    assert crypto.address_of(crypto.public_key(key)) == record["address"]


def test_wrong_passphrase_from_the_shell_exits_2(home) -> None:  # type: ignore[no-untyped-def]
    home.ok("keys", "add", "sealed", "--password-stdin", input="right\n")
    home.ok("init", "--clock", "manual")
    result = home.run(
        "send", "--to", "test1", "--amount", "1ugnot", "sealed", env={"C4_PASSWORD": "wrong"}
    )
    assert result.exit_code == 2 and result.stderr == "Error: wrong passphrase for key 'sealed'\n"
    ok = home.run(
        "send", "--to", "test1", "--amount", "1ugnot", "sealed", env={"C4_PASSWORD": "right"}
    )
    assert ok.exit_code == 0


def test_no_passphrase_source_without_a_terminal(home) -> None:  # type: ignore[no-untyped-def]
    result = home.run("keys", "add", "x", env={"C4_PASSWORD": None})  # type: ignore[dict-item]
    assert result.exit_code == 2
    assert "--password-stdin" in result.stderr and "$C4_PASSWORD" in result.stderr


def test_files_are_private(home) -> None:  # type: ignore[no-untyped-def]
    home.ok("keys", "add", "alice")
    folder = home.path / "keys"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "alice.json").stat().st_mode) == 0o600


def test_key_readable_by_others_is_refused(home) -> None:  # type: ignore[no-untyped-def]
    home.ok("keys", "add", "alice")
    path = home.path / "keys" / "alice.json"
    path.chmod(0o644)
    result = home.run("keys", "show", "alice")
    assert result.exit_code == 3 and f"chmod 600 {path}" in result.stderr


@pytest.mark.parametrize("name", ["", "Alice", "a b", "x" * 65, "../up"])
def test_bad_key_names(home, name: str) -> None:  # type: ignore[no-untyped-def]
    result = home.run("keys", "add", name)
    assert result.exit_code == 2 and result.stderr.startswith("Error: invalid key name")


def test_list_and_delete(home) -> None:  # type: ignore[no-untyped-def]
    home.ok("keys", "add", "b")
    home.ok("keys", "add", "a")
    assert [k["name"] for k in home.json("keys", "list")] == ["a", "b"]
    assert home.run("keys", "delete", "a").exit_code == 2  # no terminal, no --yes
    home.ok("keys", "delete", "a", "--yes")
    assert [k["name"] for k in home.json("keys", "list")] == ["b"]
    assert home.run("keys", "show", "a").exit_code == 2


def test_undecodable_stdin_is_refused(home, c4_bin: str) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess

    env = dict(os.environ, C4_HOME=str(home.path))
    env.pop("C4_PASSWORD", None)
    proc = subprocess.run(
        [c4_bin, "keys", "add", "x", "--password-stdin"],
        input=b"\xff\xfe\n",
        env=env,
        capture_output=True,
    )
    assert proc.returncode == 2
    assert proc.stderr == b"Error: the line read from stdin is not valid UTF-8\n"
    assert not (home.path / "keys" / "x.json").exists()


def test_rotate_seals_the_same_key_under_a_new_passphrase(home: Home) -> None:
    home.ok("keys", "add", "k", "--password-stdin", input="old one\n")
    before = Keyring(home.path).info("k").address
    keyfile = home.path / "keys" / "k.json"
    sealed = keyfile.read_bytes()
    wrong = home.run("keys", "rotate", "k", env={"C4_PASSWORD": "nope", "C4_NEW_PASSWORD": "x"})
    assert wrong.exit_code == 2 and wrong.stderr == "Error: wrong passphrase for key 'k'\n"
    assert keyfile.read_bytes() == sealed  # nothing changed
    out = home.ok("keys", "rotate", "k", "--password-stdin", input="old one\nnew one\n")
    assert out.stdout == "Key k now has a new passphrase (sealed).\n"
    keyring = Keyring(home.path)
    with pytest.raises(BadInput, match="wrong passphrase"):
        keyring.private_key("k", "old one")
    key = keyring.private_key("k", "new one")
    assert crypto.address_of(crypto.public_key(key)) == before
    home.ok("keys", "rotate", "k", env={"C4_PASSWORD": "new one", "C4_NEW_PASSWORD": ""})
    assert "private_key" in json.loads(keyfile.read_text())  # in clear, as asked
    assert keyring.private_key("k", None) == key
    assert home.run("keys", "rotate", "nobody").exit_code == 2


def test_two_rotations_at_once_leave_the_key_opened_by_the_one_that_said_so(
    home: Home, c4_bin: str
) -> None:
    """Issue 47: two `keys rotate` of one key at once, to different passphrases. Each
    round, exactly one says the key has a new passphrase, and that passphrase opens
    it; the other is refused (or finds the old passphrase gone) and changes nothing."""
    import os
    import subprocess

    home.ok("keys", "add", "k", "--password-stdin", input="p0\n")
    current = "p0"
    for round_ in range(4):
        env = dict(os.environ, C4_HOME=str(home.path))
        procs = {
            new: subprocess.Popen(
                [c4_bin, "keys", "rotate", "k", "--password-stdin"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                text=True,
            )
            for new in (f"a{round_}", f"b{round_}")
        }
        for new, proc in procs.items():
            assert proc.stdin is not None
            proc.stdin.write(f"{current}\n{new}\n")
            proc.stdin.close()
        done = {new: (proc.wait(60), proc.stdout, proc.stderr) for new, proc in procs.items()}
        said = [new for new, (code, _, _) in done.items() if code == 0]
        assert len(said) == 1, {n: (c, e.read() if e else "") for n, (c, _, e) in done.items()}
        (current,) = said
        Keyring(home.path).private_key("k", current)  # the one that said so opens it
        for new, (_, _, err) in done.items():
            if new != current:
                assert err is not None and err.read().count("\n") == 1
                with pytest.raises(BadInput, match="wrong passphrase"):
                    Keyring(home.path).private_key("k", new)


def test_an_argument_that_is_an_address_is_that_address(chain: Home) -> None:
    """Issue 48: as gnokey, an address before a name. `keys add` and `keys import`
    refuse a name that is an address; a key an older c4 let through under bob's
    address never takes bob's place: send, offer --opponent and transfer-ownership
    act on bob, and the home says once why the key's name is passed over."""
    bob = chain.address("bob")
    words = f"invalid key name {bob!r}: it is an address; give the key a name"
    armor = chain.path.parent / "any.armor"
    armor.write_text("-----BEGIN TENDERMINT PRIVATE KEY-----\n")
    chain.fails(2, "keys", "add", bob, message=words)
    chain.fails(2, "keys", "import", bob, "--armor-path", str(armor), message=words)
    assert not (chain.path / "keys" / f"{bob}.json").exists()
    # An older c4 let it through: alice's key filed under bob's address.
    record = json.loads((chain.path / "keys" / "alice.json").read_text())
    named = chain.path / "keys" / f"{bob}.json"
    named.write_text(json.dumps({**record, "name": bob}))
    named.chmod(0o600)
    before = chain.balance("bob")
    sent = chain.ok("send", "--to", bob, "--amount", "5ugnot", "carol")
    assert chain.balance("bob") == before + 5
    assert sent.stderr.count(f"key {bob!r} is named like an address") == 1, sent.stderr
    game = chain.json("offer", "--stake", "1gnot", "--opponent", bob, "carol")
    assert chain.json("query", "game", str(game["result"][0]))["game"]["opponent"] == bob
    chain.ok("transfer-ownership", bob, "test1")
    assert chain.json("query", "fees")["pending_owner"] == bob
