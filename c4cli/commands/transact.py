"""Sending a transaction: the key that signs, the tx options, the chain, the receipt."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from c4cli.chain.clock import format_time
from c4cli.chain.interface import Build, Chain, Receipt, Signer
from c4cli.chain.local import LocalChain
from c4cli.chain.tx import DEFAULT_GAS_WANTED, fee
from c4cli.coins import format_coins, parse_amount
from c4cli.commands.options import emit_json, remote_url
from c4cli.commands.text import key_names
from c4cli.errors import BadInput

if TYPE_CHECKING:
    from c4cli.chain.remote import NodeChain

F = TypeVar("F", bound=Callable[..., Any])


def stdin_is_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def read_stdin_line() -> str:
    try:
        line = sys.stdin.readline() if sys.stdin is not None else ""
        line.encode()  # undecodable bytes arrive as lone surrogates
    except (UnicodeDecodeError, UnicodeEncodeError):
        raise BadInput("the line read from stdin is not valid UTF-8") from None
    return line.rstrip("\r\n")


def passphrase(*, password_stdin: bool, prompt: str, confirm: bool = False) -> str:
    """--password-stdin, else $C4_PASSWORD (even empty), else a prompt on a terminal."""
    if password_stdin:
        return read_stdin_line()
    env = os.environ.get("C4_PASSWORD")
    if env is not None:
        return env
    if not stdin_is_terminal():
        raise BadInput(
            "a passphrase is needed and there is no terminal to ask on: "
            "pass --password-stdin or set $C4_PASSWORD"
        )
    value: str = click.prompt(
        prompt, hide_input=True, confirmation_prompt=confirm, default="", show_default=False
    )
    return value


def signer_for(
    home: Path, key_name: str, *, password_stdin: bool, master: str | None = None
) -> Signer:
    """Load a key by name (asking for a passphrase only if it is encrypted).

    With ``master``, the key signs as a session key on behalf of that account.
    """
    from c4cli.chain.keys import Keyring

    info, private_key = Keyring(home).unlock(
        key_name,
        lambda: passphrase(password_stdin=password_stdin, prompt=f"Passphrase for {key_name}"),
    )
    if master is None:
        return Signer(address=info.address, private_key=private_key)
    return Signer(address=resolve(home, master), private_key=private_key, session_addr=info.address)


def acting_address(home: Path, key_name: str, master: str | None) -> str:
    """The account a command acts for: the master's with --master, else the key's own."""
    from c4cli.chain.keys import Keyring

    return resolve(home, master) if master else Keyring(home).info(key_name).address


def resolve(home: Path, name_or_address: str) -> str:
    """A key name's address, or an address as typed (bad input is exit 2)."""
    from c4cli.chain.keys import Keyring

    return Keyring(home).resolve(name_or_address)


def tx_options(func: F) -> F:
    """The options every transaction command takes, as gnokey's maketx."""
    for option in reversed(
        [
            click.option(
                "--gas-fee",
                metavar="COINS",
                show_default="0ugnot; on a node, what its gas price asks for the gas wanted",
                help="The fee paid for gas, as gnokey's -gas-fee.",
            ),
            click.option(
                "--gas-wanted",
                type=int,
                metavar="GAS",
                show_default=f"{DEFAULT_GAS_WANTED}; on a node, the simulated gas plus a margin",
                help="The most gas the transaction may use, as gnokey's -gas-wanted.",
            ),
            click.option("--memo", default="", help="A note carried in the transaction."),
            click.option(
                "--master",
                metavar="NAME_OR_ADDR",
                help="Sign with session key KEY on behalf of this master account.",
            ),
            click.option(
                "--password-stdin",
                is_flag=True,
                help="Read the key's passphrase from the first line of stdin.",
            ),
        ]
    ):
        func = option(func)
    return func


def tx_fee(gas_fee: str | None, gas_wanted: int | None, *, remote: bool = False) -> dict[str, str]:
    """The fee to sign. On a node, what is not given is left empty for the node client to
    fill in: the gas by simulation, the fee from the node's gas price."""
    coins = ""
    if gas_fee is not None:
        parsed = parse_amount(gas_fee)
        if len(parsed) != 1:
            raise BadInput(f"invalid --gas-fee {gas_fee!r}: give one coin, e.g. 0ugnot")
        coins = format_coins(parsed)
    if gas_wanted is not None and gas_wanted < 0:
        raise BadInput("--gas-wanted must not be negative")
    if remote and gas_wanted is None:
        return {"gas_wanted": "", "gas_fee": coins}
    return fee(DEFAULT_GAS_WANTED if gas_wanted is None else gas_wanted, coins or "0ugnot")


def open_chain(home: Path) -> Chain:
    """The chain this command line uses: the node --remote (or $C4_REMOTE, or the home's
    config) names, else the home's own log; a home with neither is exit 3."""
    remote = node_for(home)
    if remote is not None:
        return remote
    chain = LocalChain(home)
    chain.log.require()
    return chain


def node_for(home: Path) -> NodeChain | None:
    """The node this command line talks to, or None for the home's local chain."""
    from c4cli.chain.config import read_remote

    url = remote_url()
    config = read_remote(home)
    if url is None and config is None:
        return None
    from c4cli.chain.blocks import DEFAULT_REALM_PATH
    from c4cli.chain.remote import NodeChain

    if config is not None and url in (None, config.url):
        return NodeChain(config.url, realm_path=config.realm_path, chain_id=config.chain_id)
    return NodeChain(str(url), realm_path=DEFAULT_REALM_PATH)


def local_chain(home: Path, what: str) -> LocalChain:
    """The home's local chain, for what only a chain in a folder has (exit 2 on a node)."""
    if node_for(home) is not None:
        raise BadInput(f"{what} has no meaning on a node: it works on the local chain only")
    chain = LocalChain(home)
    chain.log.require()
    return chain


def submit(home: Path, key_name: str, build: Build, opts: dict[str, Any]) -> Receipt:
    """Sign with KEY (a session key with --master) and submit: the path of every transaction.

    ``opts`` holds the values of :func:`tx_options`.
    """
    chain = open_chain(home)  # a missing chain is reported before any key is opened
    signer = signer_for(
        home, key_name, password_stdin=opts["password_stdin"], master=opts.get("master")
    )
    fee = tx_fee(opts["gas_fee"], opts["gas_wanted"], remote=not isinstance(chain, LocalChain))
    receipt = chain.submit(signer, build, fee, opts["memo"])
    if not isinstance(chain, LocalChain):
        from c4cli.chain import journal

        journal.record(home, receipt)
    return receipt


def gas_wanted(receipt: Receipt) -> int:
    """The gas the transaction asked for, as it was signed."""
    return int(receipt.result.tx["fee"]["gas_wanted"])


def gnokey_receipt(receipt: Receipt) -> str:
    """What gnokey prints for a delivered transaction, line for line.

    gnokey prints the deliver data with Println, so a call's ``(1 int)`` and the
    VM's ``\n\n`` after it are followed by one more newline before ``OK!``;
    the labels are padded and joined to their values by Println's space.
    """
    return (
        f"{receipt.result.data}\nOK!\n"
        f"GAS WANTED: {gas_wanted(receipt)}\n"
        f"GAS USED:   {receipt.gas_used}\n"
        f"HEIGHT:     {receipt.height}\n"
        f"EVENTS:     {receipt.events}\n"
        f"INFO:       {receipt.info}\n"
        f"TX HASH:    {receipt.result.hash}"
    )


def receipt_json(
    receipt: Receipt,
    game: Any = None,
    *,
    known: dict[str, str] | None = None,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "ok": True,
        "height": receipt.height,
        "time": format_time(receipt.time),
        "hash": receipt.result.hash,
        "func": ",".join(receipt.result.funcs),
        "result": [int(v) if kind == "int" else v for v, kind in receipt.result.values],
        "transfers": [
            {"to": to, "amount": f"{amount}ugnot"} for to, amount in receipt.result.transfers
        ],
        "gas_wanted": gas_wanted(receipt),
        "gas_fee": receipt.result.tx["fee"]["gas_fee"],
        "gas_used": receipt.gas_used,
        "events": json.loads(receipt.events),
        "info": receipt.info,
    }
    if game is not None:
        document["game"] = game
    if known is not None:
        named = [receipt.result.signer, *(to for to, _ in receipt.result.transfers)]
        document["keys"] = key_names(named, game, known)
    return document


def print_receipt(
    receipt: Receipt,
    *,
    as_json: bool,
    human: str = "",
    game: Any = None,
    known: dict[str, str] | None = None,
) -> None:
    if as_json:
        emit_json(receipt_json(receipt, game, known=known))
        return
    click.echo(gnokey_receipt(receipt))
    if human:
        click.echo(human)
