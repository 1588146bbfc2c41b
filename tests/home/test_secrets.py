"""Keys and kept secrets: private files, never printed, never logged."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from c4cli.home.keys import Keyring
from support import Home, strong

KEY_PASSPHRASE = "correct horse battery staple"
OFFER_SECRET = strong("my offer passphrase")


def modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in root.rglob("*")}


def test_kept_secrets_are_private_and_found_again(chain: Home) -> None:
    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.ok("accept", "1", "bob")
    for path, mode in modes(chain.path / "secrets").items():
        expected = 0o700 if (chain.path / "secrets" / path).is_dir() else 0o600
        assert mode == expected, path
    assert stat.S_IMODE((chain.path / "secrets").stat().st_mode) == 0o700
    assert stat.S_IMODE((chain.path / "keys").stat().st_mode) == 0o700
    chain.ok("reveal", "1", "alice")  # found by its commitment
    chain.ok("reveal", "1", "bob")


def test_a_secret_readable_by_others_is_refused(chain: Home) -> None:
    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.ok("accept", "1", "bob")
    (secret,) = [
        p
        for p in (chain.path / "secrets").rglob("*")
        if p.is_file() and chain.address("alice") in str(p)
    ]
    secret.chmod(0o644)
    result = chain.fails(3, "reveal", "1", "alice")
    assert f"chmod 600 {secret}" in result.stderr


@pytest.mark.parametrize("damage", [b"\xff\xfe not UTF-8", b"", b"another secret"])
def test_a_kept_secret_that_does_not_open_its_commitment_is_damage(
    chain: Home, damage: bytes
) -> None:
    """A secret file that does not hash to its commitment (not UTF-8, emptied, replaced)
    is exit 3 naming the file, before anything is signed; --secret still reveals."""
    chain.ok("offer", "--stake", "1gnot", "--passphrase", OFFER_SECRET, "alice")
    chain.ok("accept", "1", "bob")
    (secret,) = [
        p
        for p in (chain.path / "secrets").rglob("*")
        if p.is_file() and chain.address("alice") in str(p)
    ]
    secret.write_bytes(damage)
    result = chain.fails(3, "reveal", "1", "alice")
    assert result.stderr == (
        f"Error: {secret} does not hold the secret of commitment {secret.name} (damaged?): "
        "if you have the secret elsewhere, reveal with --secret\n"
    )
    chain.ok("reveal", "1", "alice", "--secret", OFFER_SECRET)
    assert chain.game(1)["status"] == "playing"


def test_no_secret_ever_reaches_an_output_or_the_log(home: Home) -> None:
    outputs: list[str] = []

    def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> None:
        result = home.run(*args, input=input, env=env)
        outputs.append(result.stdout + result.stderr)

    sealed = {"C4_PASSWORD": KEY_PASSPHRASE}
    added = home.run("keys", "add", "alice", "--json", env=sealed)
    mnemonic = added.stdout.split('"mnemonic": "')[1].split('"')[0]  # shown once, by design
    private_key = Keyring(home.path).private_key("alice", KEY_PASSPHRASE).hex()
    run("keys", "add", "bob")
    run("keys", "list")
    run("keys", "show", "alice", "--json")
    run("init", "--clock", "manual")
    run("offer", "--stake", "1gnot", "--passphrase", OFFER_SECRET, "alice", env=sealed)
    run("offer", "--stake", "1gnot", "alice", env={"C4_PASSWORD": "hunter2-typo"})
    run("accept", "1", "bob")
    run("show", "1")
    run("query", "game", "1")
    run("log")
    run("verify")
    run("send", "--to", "bob", "--amount", "1ugnot", "alice", env=sealed)
    run("send", "--to", "bob", "--amount", "1ugnot", "--password-stdin", "alice", input="n0t-1t\n")
    logged = (home.path / "chain" / "blocks.toml").read_text()
    everything = "\n".join(outputs)
    for secret in (KEY_PASSPHRASE, "hunter2-typo", "n0t-1t", mnemonic, private_key):
        assert secret not in everything
        assert secret not in logged
    assert OFFER_SECRET not in everything and OFFER_SECRET not in logged  # not revealed yet
    assert "wrong passphrase for key 'alice'" in everything
    run("reveal", "1", "alice", env=sealed)
    assert OFFER_SECRET in (home.path / "chain" / "blocks.toml").read_text()  # public once revealed
    key_file = (home.path / "keys" / "alice.json").read_text()
    assert private_key not in key_file and mnemonic not in key_file


def test_a_fifo_in_place_of_a_secret_or_a_key_is_damage_not_a_hang(
    chain: Home, c4_bin: str
) -> None:
    """A FIFO where a kept secret or a key file should be would block a plain read for
    ever: c4 refuses it in one line, exit 3, at once."""
    import os
    import subprocess

    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.ok("accept", "1", "bob")
    (secret,) = [
        p
        for p in (chain.path / "secrets").rglob("*")
        if p.is_file() and chain.address("alice") in str(p)
    ]
    secret.unlink()
    os.mkfifo(secret, 0o600)
    key = chain.path / "keys" / "bob.json"
    key.unlink()
    os.mkfifo(key, 0o600)
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    for args, path in ((["reveal", "1", "alice"], secret), (["keys", "show", "bob"], key)):
        proc = subprocess.run([c4_bin, *args], env=env, capture_output=True, text=True, timeout=20)
        assert (proc.returncode, proc.stderr) == (
            3,
            f"Error: {path} is not a plain file (a FIFO, a device or a folder): c4 reads "
            "only plain files here\n",
        )


def test_a_secret_that_guessing_could_find_is_refused_before_anything_is_signed(
    chain: Home,
) -> None:
    """Its hash is public: the other player could grind guesses and pick the first mover."""
    weak = (
        "--passphrase is too easy to guess (about 3 bits by zxcvbn's estimate, 80 needed): "
        "the other player could try guesses against its hash and pick the first mover; "
        "leave --passphrase out for 32 random bytes, or use six random words or 32 random "
        "hex digits"
    )
    chain.fails(2, "offer", "--stake", "1gnot", "--passphrase", "1234", "alice", message=weak)
    chain.fails(
        2, "offer", "--stake", "1gnot", "--passphrase", "correct horse battery staple", "alice"
    )
    assert not (chain.path / "secrets").exists() or not any((chain.path / "secrets").rglob("*?"))
    words = "fall fortune matrix peanut crane attend"  # six BIP39 words
    gid = str(chain.json("offer", "--stake", "1gnot", "--passphrase", words, "alice")["result"][0])
    seed = chain.fails(2, "accept", gid, "--seed", "password1", "bob")
    assert "--seed is too easy to guess" in seed.stderr
    chain.ok("accept", gid, "--seed", "2db13841a885e743fcbd821e2dac261c", "bob")  # 32 hex digits
    chain.ok("reveal", gid, "alice")
    assert chain.json("reveal", gid, "bob")["game"]["status"] == "playing"


def test_outside_a_run_a_secret_is_kept_whatever_fails(tmp_path: Path) -> None:
    """A secret's store asks the run's outbox whether its commitment may have left; with
    no run to ask (a thread or a caller outside one), it keeps the secret: fail closed."""
    import contextvars

    from c4cli import outbox
    from c4cli.home.secrets import SecretStore

    def fail_inside() -> None:
        store = SecretStore(tmp_path)
        with pytest.raises(RuntimeError), store.kept("g1" + "q" * 38, "ab" * 32):
            raise RuntimeError("the command failed after the secret was written")

    context = contextvars.Context()  # a fresh context: no run, no outbox
    context.run(fail_inside)
    assert context.run(outbox.CURRENT.get) is None
    kept = [path for path in (tmp_path / "secrets").rglob("*") if path.is_file()]
    assert len(kept) == 1, "the secret was deleted"
