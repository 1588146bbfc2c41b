"""c4 keys: named secp256k1 keys, byte for byte the ones gnokey makes."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.commands import complete
from c4cli.commands.options import emit_json, local_group_options, local_options
from c4cli.commands.transact import passphrase, read_stdin_line, stdin_is_terminal
from c4cli.errors import BadInput, HomeDamaged, notice
from c4cli.escape import printable
from c4cli.files import KIB, read_bounded, write_private
from c4cli.home import armor
from c4cli.home.keys import LOCAL, UNENCRYPTED_WARNING, KeyInfo, Keyring, new_name
from c4cli.wire import crypto, pubkeys
from c4cli.wire.pubkeys import PubKey


@click.group()
@local_group_options
def keys() -> None:
    """Manage the local keys (as `gnokey add|list|delete|export|import`).

    \b
    Example:
      C4_PASSWORD= c4 keys add alice
      c4 keys list
    """


def _describe(info: KeyInfo) -> str:
    """A key as gnokey's ``list`` and ``add`` write it: name, kind, address and public
    key (a multisig's: its members' in brackets); c4 derives no key on a Ledger path."""
    return (
        f"{info.name} ({info.kind}) - addr: {info.address} "
        f"pub: {pubkeys.describe(info.pub_key)}, path: <nil>"
    )


@keys.command("add")
@click.argument("name")
@click.option("--recover", is_flag=True, help="Restore from a mnemonic instead of a new one.")
@click.option("--account", type=int, default=0, show_default=True, help="BIP44 account.")
@click.option("--index", type=int, default=0, show_default=True, help="BIP44 address index.")
@click.option("--password-stdin", is_flag=True, help="Read the passphrase from stdin.")
@click.option(
    "--pubkey",
    metavar="GPUB",
    help="Name someone else's public key (gpub1…): it cannot sign (as gnokey add bech32).",
)
@click.option(
    "--multisig",
    metavar="KEY",
    multiple=True,
    help="A member of a multisig key (repeat; as gnokey add multisig).",
    shell_complete=complete.keys,
)
@click.option(
    "--threshold", type=int, default=1, show_default=True, help="K of the multisig's K-of-N."
)
@click.option("--nosort", is_flag=True, help="Keep the --multisig keys in the order given.")
@local_options
def add(
    name: str,
    recover: bool,
    account: int,
    index: int,
    password_stdin: bool,
    pubkey: str | None,
    multisig: tuple[str, ...],
    threshold: int,
    nosort: bool,
    home: Path,
    as_json: bool,
) -> None:
    """Create key NAME (24 new words, shown once) or --recover it from a mnemonic;
    or name a public key (--pubkey) or a multisig of named keys (--multisig).

    The passphrase comes from --password-stdin, else $C4_PASSWORD, else a
    prompt. An empty passphrase stores the key unencrypted. A multisig's members
    are sorted by address, as gnokey sorts them, unless --nosort.

    \b
    Example:
      C4_PASSWORD= c4 keys add bob
      echo "$MNEMONIC" | C4_PASSWORD= c4 keys add test1 --recover
      c4 keys add carol --pubkey gpub1pgfj7ard9eg82cjtv4u4xetrwqer2dntxyfzxz3pq…
      c4 keys add owners --multisig alice --multisig bob --multisig carol --threshold 2
    """
    keyring = Keyring(home)
    new_name(name)
    if keyring.exists(name):
        raise BadInput(f"key {name!r} already exists (delete it first)")
    if pubkey is not None or multisig:
        if recover or password_stdin or account or index or (pubkey and multisig):
            raise BadInput(
                "--pubkey and --multisig name a public key: give one of them, without "
                "--recover, --account, --index or --password-stdin"
            )
        if multisig:
            members = [keyring.info(member).pub_key for member in multisig]
            key: PubKey = pubkeys.new_multisig(threshold, members, sort=not nosort)
        else:
            key = pubkeys.from_bech32(str(pubkey))
        info = keyring.add_public(name, key)
        if as_json:
            emit_json(info.to_json())
        else:
            click.echo(f"* {info.name} ({info.kind}) - addr: {info.address}")
        return
    if recover:
        if stdin_is_terminal():
            words = click.prompt("Enter your mnemonic", hide_input=True)
        else:
            words = read_stdin_line()
        mnemonic = crypto.normalize_mnemonic(words)
    else:
        mnemonic = crypto.new_mnemonic()
    info = _store(
        keyring, name, crypto.derive_private_key(mnemonic, account, index), password_stdin
    )
    if as_json:
        document = info.to_json()
        if not recover:
            document["mnemonic"] = mnemonic
        emit_json(document)
        return
    click.echo(f"* {_describe(info)}")
    if not recover:
        click.echo(
            "\n**Important** write this mnemonic phrase in a safe place. It is the only way "
            "to recover your account if you ever forget your password.\n\n" + mnemonic
        )


@keys.command("list")
@local_options
def list_keys(home: Path, as_json: bool) -> None:
    """List the local keys as gnokey list does: name, kind, address, public key.

    \b
    Example:
      c4 keys list --json
    """
    if not home.is_dir():
        raise HomeDamaged(f"no home at {home}: `c4 keys add NAME` or `c4 init` makes one")
    infos = Keyring(home).list()
    if as_json:
        emit_json([info.to_json() for info in infos])
        return
    if not infos:
        click.echo(f"no keys in {home}: `c4 keys add NAME` makes one", err=True)
    for number, info in enumerate(infos):
        click.echo(f"{number}. {_describe(info)}")


@keys.command("show")
@click.argument("name", shell_complete=complete.keys)
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
@click.argument("name", shell_complete=complete.keys)
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


def _armor_passphrase(prompt: str, *, confirm: bool) -> str:
    """$C4_ARMOR_PASSWORD (even empty: an armor in clear), else a prompt on a terminal."""
    return passphrase(
        password_stdin=False, prompt=prompt, confirm=confirm, variable="C4_ARMOR_PASSWORD"
    )


def _store(keyring: Keyring, name: str, private_key: bytes, password_stdin: bool) -> KeyInfo:
    """A new local key under its own passphrase (asked, with gnokey's warning if empty)."""
    secret = _sealing_passphrase(password_stdin, "Passphrase to encrypt the key", "C4_PASSWORD")
    return keyring.add(name, private_key, secret)


def _sealing_passphrase(password_stdin: bool, prompt: str, variable: str) -> str:
    """The passphrase a key is sealed under (twice on a terminal), with gnokey's warning
    when it is empty: the key is then stored in clear."""
    secret = passphrase(
        password_stdin=password_stdin, prompt=prompt, confirm=True, variable=variable
    )
    if not secret:
        notice(UNENCRYPTED_WARNING)
    return secret


@keys.command("rotate")
@click.argument("name", shell_complete=complete.keys)
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the current passphrase, then the new one, from stdin (a line each).",
)
@local_options
def rotate(name: str, password_stdin: bool, home: Path, as_json: bool) -> None:
    """Seal key NAME under a new passphrase (as gnokey rotate): the same key and address.

    The current passphrase comes from --password-stdin, else $C4_PASSWORD, else a
    prompt; the new one from the next stdin line, else $C4_NEW_PASSWORD, else a
    prompt (twice). An empty new passphrase stores the key unencrypted.

    \b
    Example:
      c4 keys rotate alice
    """
    keyring = Keyring(home)
    info = keyring.info(name)
    if info.kind != LOCAL:
        raise BadInput(f"key {name!r} is {info.kind}: it holds no secret to seal")
    with keyring.held(name):
        _, private_key = keyring.unlock(
            name,
            lambda: passphrase(password_stdin=password_stdin, prompt=f"Passphrase for {name}"),
        )
        new = _sealing_passphrase(password_stdin, "New passphrase", "C4_NEW_PASSWORD")
        rotated = keyring.rotate(name, private_key, new)
    if as_json:
        emit_json(rotated.to_json())
    else:
        click.echo(f"Key {name} now has a new passphrase ({'sealed' if new else 'in clear'}).")


@keys.command("export")
@click.argument("name", shell_complete=complete.keys)
@click.option(
    "--output-path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the armor (refused if the file exists).",
)
@click.option("--password-stdin", is_flag=True, help="Read the key's passphrase from stdin.")
@local_options
def export(name: str, output_path: Path, password_stdin: bool, home: Path, as_json: bool) -> None:
    """Write key NAME's private key in gnokey's armor (as gnokey export).

    The armor's passphrase comes from $C4_ARMOR_PASSWORD, else a prompt (twice);
    an empty one writes the key unencrypted, as gnokey does.

    \b
    Example:
      C4_ARMOR_PASSWORD=s3cret c4 keys export alice --output-path alice.armor
    """
    info, private_key = Keyring(home).unlock(
        name, lambda: passphrase(password_stdin=password_stdin, prompt=f"Passphrase for {name}")
    )
    secret = _armor_passphrase("Passphrase to encrypt the armor", confirm=True)
    if not secret:
        notice("WARNING: the armor holds the key unencrypted (empty passphrase).")
    text = armor.export_key(private_key, secret)
    try:
        write_private(
            output_path, text.encode(), consequence="nothing was exported", exclusive=True
        )
    except FileExistsError:
        raise BadInput(f"{output_path} exists: choose another --output-path") from None
    if as_json:
        emit_json({**info.to_json(), "armor": str(output_path), "encrypted": bool(secret)})
    else:
        click.echo(f"Key armor successfully saved to {printable(str(output_path))}")


@keys.command("import")
@click.argument("name")
@click.option(
    "--armor-path",
    required=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The armor to read (from gnokey export or c4 keys export).",
)
@click.option("--password-stdin", is_flag=True, help="Read the new key's passphrase from stdin.")
@local_options
def import_(name: str, armor_path: Path, password_stdin: bool, home: Path, as_json: bool) -> None:
    """Add key NAME from an armored private key (as gnokey import).

    The armor's passphrase comes from $C4_ARMOR_PASSWORD, else a prompt; the key is
    then stored under its own passphrase, as `keys add` stores one.

    \b
    Example:
      C4_ARMOR_PASSWORD=s3cret C4_PASSWORD= c4 keys import alice --armor-path alice.armor
    """
    keyring = Keyring(home)
    new_name(name)
    if keyring.exists(name):
        raise BadInput(f"key {name!r} already exists (delete it first)")
    try:  # an armored key is some 500 bytes: a file past 64 KiB is none
        text = read_bounded(str(armor_path), 64 * KIB, "--armor-path").decode("ascii")
    except UnicodeDecodeError as exc:
        raise BadInput(f"cannot read {armor_path}: {exc}") from None
    private_key = armor.import_key(
        text, lambda: _armor_passphrase("Passphrase of the armor", confirm=False), str(armor_path)
    )
    info = _store(keyring, name, private_key, password_stdin)
    if as_json:
        emit_json(info.to_json())
    else:
        click.echo(f"* {_describe(info)}")
