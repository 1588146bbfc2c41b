"""c4 keys: named secp256k1 keys, byte for byte the ones gnokey makes."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.chain import crypto
from c4cli.commands.options import emit_json, local_group_options, local_options
from c4cli.commands.transact import passphrase, read_stdin_line, stdin_is_terminal
from c4cli.errors import BadInput, HomeDamaged
from c4cli.home.keys import UNENCRYPTED_WARNING, KeyInfo, Keyring, check_name


@click.group()
@local_group_options
def keys() -> None:
    """Manage the local keys (as `gnokey add|list|delete`).

    \b
    Example:
      C4_PASSWORD= c4 keys add alice
      c4 keys list
    """


def _describe(info: KeyInfo) -> str:
    return f"{info.name}\t{info.address}\t{info.pub_key_bech32}"


@keys.command("add")
@click.argument("name")
@click.option("--recover", is_flag=True, help="Restore from a mnemonic instead of a new one.")
@click.option("--account", type=int, default=0, show_default=True, help="BIP44 account.")
@click.option("--index", type=int, default=0, show_default=True, help="BIP44 address index.")
@click.option("--password-stdin", is_flag=True, help="Read the passphrase from stdin.")
@local_options
def add(
    name: str,
    recover: bool,
    account: int,
    index: int,
    password_stdin: bool,
    home: Path,
    as_json: bool,
) -> None:
    """Create key NAME (24 new words, shown once) or --recover it from a mnemonic.

    The passphrase comes from --password-stdin, else $C4_PASSWORD, else a
    prompt. An empty passphrase stores the key unencrypted.

    \b
    Example:
      C4_PASSWORD= c4 keys add bob
      echo "$MNEMONIC" | C4_PASSWORD= c4 keys add test1 --recover
    """
    keyring = Keyring(home)
    check_name(name)
    if keyring.exists(name):
        raise BadInput(f"key {name!r} already exists (delete it first)")
    if recover:
        if stdin_is_terminal():
            words = click.prompt("Enter your mnemonic", hide_input=True)
        else:
            words = read_stdin_line()
        mnemonic = crypto.normalize_mnemonic(words)
    else:
        mnemonic = crypto.new_mnemonic()
    private_key = crypto.derive_private_key(mnemonic, account, index)
    secret = passphrase(
        password_stdin=password_stdin, prompt="Passphrase to encrypt the key", confirm=True
    )
    if not secret:
        click.echo(UNENCRYPTED_WARNING, err=True)
    info = keyring.add(name, private_key, secret)
    if as_json:
        document = info.to_json()
        if not recover:
            document["mnemonic"] = mnemonic
        emit_json(document)
        return
    click.echo(f"* {info.name} - addr: {info.address} pub: {info.pub_key_bech32}")
    if not recover:
        click.echo(
            "\n**Important** write this mnemonic phrase in a safe place. It is the only way "
            "to recover your account if you ever forget your password.\n\n" + mnemonic
        )


@keys.command("list")
@local_options
def list_keys(home: Path, as_json: bool) -> None:
    """List the local keys: name, address, public key.

    \b
    Example:
      c4 keys list --json
    """
    infos = Keyring(home).list()
    if as_json:
        emit_json([info.to_json() for info in infos])
        return
    for info in infos:
        click.echo(_describe(info))


@keys.command("show")
@click.argument("name")
@local_options
def show(name: str, home: Path, as_json: bool) -> None:
    """Show one key's address and public key.

    \b
    Example:
      c4 keys show test1
    """
    info = Keyring(home).info(name)
    if as_json:
        emit_json(info.to_json())
        return
    click.echo(_describe(info))


@keys.command("delete")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@local_options
def delete(name: str, yes: bool, home: Path, as_json: bool) -> None:
    """Delete a key file (the mnemonic is the only way back).

    \b
    Example:
      c4 keys delete bob --yes
    """
    keyring = Keyring(home)
    try:
        info: KeyInfo | None = keyring.info(name)
        shown = f"{name} ({info.address})" if info is not None else name
    except HomeDamaged as damaged:  # a damaged file can still be deleted
        info, shown = None, f"{name} (its file is unreadable: {damaged})"
    if not yes:
        if not stdin_is_terminal():
            raise BadInput("deleting a key needs --yes when there is no terminal to confirm on")
        click.confirm(f"Delete key {shown}?", abort=True)
    keyring.delete(name)
    if as_json:
        emit_json({"deleted": info.to_json() if info else {"name": name}})
    else:
        click.echo(f"Key {name} deleted.")
