"""Sending a transaction: the key that signs, the chain, the fee, the receipt.

Click-free, so the fast lane sends a move through the very same code (the options
that fill ``tx`` are declared in options.py).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from c4cli import outbox, settings
from c4cli.address import canonical
from c4cli.chain.clock import format_time
from c4cli.chain.controls import LocalControls
from c4cli.chain.interface import (
    DEFAULT_FEE_CAP,
    Build,
    Chain,
    Receipt,
    SendPolicy,
    Signer,
    ThenRead,
)
from c4cli.chain.listing import proof_fields, proof_line
from c4cli.client import connect
from c4cli.coins import format_coins, parse_amount, parse_ugnot, ugnot_in
from c4cli.commands.ending import echo, emit_json
from c4cli.commands.run import current
from c4cli.commands.text import key_names
from c4cli.commands.txopts import TxOptions
from c4cli.errors import BadInput, Refused, UnknownAccount
from c4cli.escape import printable
from c4cli.files import warn_if_exposed
from c4cli.gotext import go_json
from c4cli.home.config import read_fee_cap
from c4cli.jsonvalue import Document
from c4cli.wire import pubkeys, results
from c4cli.wire.paths import ACCOUNTS
from c4cli.wire.std import Fee, Tx
from c4cli.wire.tx import DEFAULT_GAS_WANTED, fee


def stdin_is_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def read_stdin_line() -> str:
    try:
        line = sys.stdin.readline() if sys.stdin is not None else ""
        line.encode()  # undecodable bytes arrive as lone surrogates
    except (UnicodeDecodeError, UnicodeEncodeError):
        raise BadInput("the line read from stdin is not valid UTF-8") from None
    return line.rstrip("\r\n")


def passphrase(
    *, password_stdin: bool, prompt: str, confirm: bool = False, variable: str = "C4_PASSWORD"
) -> str:
    """--password-stdin, else ``$variable`` (even empty), else a prompt on a terminal."""
    if password_stdin:
        return read_stdin_line()
    given = settings.current().passwords.get(variable)
    if given is not None:
        return given
    if not stdin_is_terminal():
        how = (
            f"set ${variable}"
            if variable != "C4_PASSWORD"
            else "pass --password-stdin or set $C4_PASSWORD"
        )
        raise BadInput(f"a passphrase is needed and there is no terminal to ask on: {how}")
    import click  # a prompt on a terminal only: the fast lane never loads click otherwise

    value: str = click.prompt(
        prompt, hide_input=True, confirmation_prompt=confirm, default="", show_default=False
    )
    return value


def signer_for(
    home: Path, key_name: str, *, password_stdin: bool, master: str | None = None
) -> Signer:
    """Load a key by name (asking for a passphrase only if it is encrypted).

    With ``master``, the key signs as a session key on behalf of that account. Under
    `c4 --impersonate ADDR`, no key: the address acts, where the chain allows it.
    """
    acting = current().impersonate
    if acting is not None:
        if master is not None or canonical(key_name) != acting:
            raise BadInput(f"--impersonate {acting} acts as that account: no key, no --master")
        return Signer(address=acting, private_key=b"", impersonated=True)
    warn_if_exposed(home)
    keys = current().keyring(home)
    info, private_key = keys.unlock(
        key_name,
        lambda: passphrase(password_stdin=password_stdin, prompt=f"Passphrase for {key_name}"),
    )
    if master is None:
        return Signer(address=info.address, private_key=private_key)
    return Signer(address=resolve(home, master), private_key=private_key, session_addr=info.address)


def acting_address(home: Path, key_name: str, master: str | None) -> str:
    """The account a command acts for: the master's with --master, else the key's own
    (an address in place of a key name is taken as it is: --generate-only signs nothing)."""
    if master:
        return resolve(home, master)
    address = canonical(key_name)
    return address if address is not None else current().keyring(home).info(key_name).address


def resolve(home: Path, name_or_address: str) -> str:
    """A key name's address, or an address as typed (bad input is exit 2)."""
    return current().keyring(home).resolve(name_or_address)


def tx_fee(gas_fee: str | None, gas_wanted: int | None, *, remote: bool = False) -> Fee:
    """The fee to sign. On a node, what is not given is left empty for the node client to
    fill in: the gas by simulation, the fee from the node's gas price."""
    coins = ""
    if gas_fee is not None:
        parsed = parse_amount(gas_fee)
        if len(parsed) != 1:
            raise BadInput(f"invalid --gas-fee {gas_fee!r}: give one coin, e.g. 0ugnot")
        coins = format_coins(parsed)
    if gas_wanted is not None and not 0 <= gas_wanted < 2**63:
        raise BadInput(f"invalid --gas-wanted {gas_wanted}: from 0 to {2**63 - 1} (an int64)")
    if remote and (gas_wanted is None or not coins):
        # What is not given, the node client fills in: the gas by simulation, the fee
        # from the node's gas price (for the gas given, if it was); no gas is 0.
        return Fee(gas_wanted or 0, coins)
    return fee(DEFAULT_GAS_WANTED if gas_wanted is None else gas_wanted, coins or "0ugnot")


def local_chain(home: Path, what: str) -> LocalControls:
    """The home's local chain, for what only a chain in a folder has (exit 2 on a node)."""
    return connect.local_chain(home, what, url=current().remote)


def submit(
    home: Path,
    key_name: str,
    build: Build,
    tx: TxOptions,
    *,
    then_read: ThenRead | None = None,
    signer: Signer | None = None,
) -> Receipt:
    """Sign with KEY (a session key with --master) and submit: the path of every transaction.

    ``tx`` holds the values of :func:`tx_options`. On a node, the node client
    journals the transaction as pending before its bytes leave, and as landed once
    it is in a block; ``then_read`` names what the command reads once it landed.
    A command that sends several passes the ``signer`` it unlocked once.
    """
    # A missing chain is reported before any key is opened.
    chain = current().open_chain(home, chain_id=tx.chain_id)
    if tx.generate_only:
        generate_only(home, key_name, chain, build, tx)
    if signer is None:
        signer = signer_for(home, key_name, password_stdin=tx.password_stdin, master=tx.master)
    fee = tx_fee(tx.gas_fee, tx.gas_wanted, remote=chain.fills_in_fee)
    policy = SendPolicy(simulate=tx.simulate or "test", fee_cap=fee_cap(home, tx.fee_cap))
    outbox.transacting()
    try:
        return chain.submit(signer, build, fee, tx.memo, policy=policy, then_read=then_read)
    except UnknownAccount as refused:
        if refused.address != signer.address:
            raise
        # gno.land's words, and the step they leave out: an account is made by the
        # first coins it receives.
        raise Refused(
            f"{refused}: {key_name} holds no coins yet; fund it first, e.g. "
            f"c4 send --to {key_name} --amount 10gnot KEY_WITH_COINS",
            kind=refused.kind,
        ) from None


def generate_only(home: Path, key_name: str, chain: Chain, build: Build, tx: TxOptions) -> NoReturn:
    """Print the transaction unsigned, as gnokey's maketx -broadcast=false does, and stop.

    The messages are built from the chain as it is now, exactly as they would be
    sent. On a node, gas and fee left unsaid are estimated as for a transaction signed
    here (the simulation carries the signer's public key instead of a signature), and
    bounded by the fee cap. From the moment it is printed the transaction may reach
    the chain through another tool (gnokey sign, multisign, broadcast), so it counts
    as let go of: a secret whose commitment it carries is kept.
    """
    if tx.simulate == "only":
        raise BadInput("--generate-only sends nothing already: leave out --simulate only")
    if chain.fills_in_fee and tx.gas_wanted is not None and tx.gas_fee is None:
        raise BadInput("--generate-only on a node: give --gas-fee with --gas-wanted, or neither")
    msgs = build(chain)
    fee = tx_fee(tx.gas_fee, tx.gas_wanted, remote=chain.fills_in_fee)
    if chain.fills_in_fee and not fee.gas_wanted:
        policy = SendPolicy(fee_cap=fee_cap(home, tx.fee_cap))
        fee = chain.unsigned_fee(
            msgs, fee, tx.memo, _public_key(home, key_name, chain), policy=policy
        )
    unsigned = Tx(tuple(msgs), fee, (), tx.memo).to_json(unsigned_as_null=True)
    text = go_json(unsigned)
    outbox.sending("unsigned " + hashlib.sha256(text.encode()).hexdigest())
    echo(text)
    sys.exit(0)


def _public_key(home: Path, key_name: str, chain: Chain) -> pubkeys.PubKey:
    """The signer's public key for a simulation: a key of this home's (a
    multisig's, a public key only), else the one its account shows on the chain."""
    try:
        return current().keyring(home).find(key_name).pub_key
    except BadInput:
        address = canonical(key_name)
        if address is None:
            raise  # neither a key of this home nor an address
    try:
        account = results.tm2_account(json.loads(chain.query(ACCOUNTS + address).data))
        known = None if account is None else account.public_key
        if known:
            return pubkeys.from_json(known)
    except (ValueError, AttributeError, pubkeys.NotAKey):
        pass
    raise BadInput(
        f"{key_name} has no public key in this home or on the chain yet, so its gas cannot "
        "be simulated: give --gas-wanted and --gas-fee (or name its key: c4 keys add "
        "--pubkey or --multisig)"
    )


def fee_cap(home: Path, given: str | None) -> int:
    """--fee-cap, else $C4_FEE_CAP, else the home's config.toml, else the default."""
    text = given if given is not None else settings.current().fee_cap
    where = "--fee-cap" if given is not None else "$C4_FEE_CAP"
    if text is None:
        text, where = read_fee_cap(home), "config.toml's fee_cap"
    if text is None:
        return DEFAULT_FEE_CAP
    try:
        return parse_ugnot(text)
    except BadInput:
        raise BadInput(f"invalid {where} {text!r}: give an amount, e.g. 10gnot") from None


def typed_events(receipt: Receipt) -> list[Any]:
    """The receipt's events as gnokey prints them, each with tm2's ``@type`` first (a
    transfer and a storage deposit told apart by their type, not their keys)."""
    events = json.loads(receipt.events)
    if len(events) != len(receipt.event_types):
        return list(events)
    return [
        {"@type": kind, **event} if isinstance(event, dict) else event
        for kind, event in zip(receipt.event_types, events, strict=True)
    ]


def gas_wanted(receipt: Receipt) -> int:
    """The gas the transaction asked for, as it was signed."""
    return receipt.result.tx.fee.gas_wanted


def gas_fee_ugnot(receipt: Receipt) -> int:
    """The gas fee the transaction was signed with, in ugnot."""
    return ugnot_in(receipt.result.tx.fee.gas_fee)


def total_cost(receipt: Receipt) -> int:
    """What the transaction cost its signer beyond the coins it sent: the gas fee and
    the storage deposits it locked, less those it freed."""
    return gas_fee_ugnot(receipt) + (receipt.storage[1] if receipt.storage else 0)


def gnokey_receipt(receipt: Receipt) -> str:
    """What gnokey prints for a delivered transaction, line for line.

    gnokey prints the deliver data with Println, so a call's ``(1 int)`` and the
    VM's ``\n\n`` after it are followed by one more newline before ``OK!``;
    the labels are padded and joined to their values by Println's space. gnokey
    prints the storage lines and ``TOTAL TX COST`` only when storage moved; c4
    always prints the cost, so no one pays without seeing it.
    """
    lines = [
        f"{printable(receipt.result.data, lines=True)}\nOK!",
        f"GAS WANTED: {gas_wanted(receipt)}",
        f"GAS USED:   {receipt.gas_used}",
        f"HEIGHT:     {receipt.height}",
    ]
    moved = receipt.storage
    if moved is not None:
        lines.append(f"STORAGE DELTA:  {moved[0]} bytes")
        if moved[1] >= 0:
            lines.append(f"STORAGE FEE:    {moved[1]}ugnot")
        else:
            lines.append(f"STORAGE REFUND: {-moved[1]}ugnot")
    lines += [
        f"TOTAL TX COST:  {total_cost(receipt)}ugnot",
        f"EVENTS:     {printable(receipt.events)}",
        f"INFO:       {printable(receipt.info)}",
        f"TX HASH:    {receipt.result.hash}",
    ]
    proof = proof_line(receipt.proven, receipt.unproven)
    return "\n".join([*lines, proof] if proof else lines)


def receipt_json(
    receipt: Receipt,
    game: Any = None,
    *,
    known: dict[str, str] | None = None,
) -> dict[str, object]:
    document: dict[str, object] = {
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
        "gas_fee": receipt.result.tx.fee.gas_fee or "0ugnot",  # "" is how 0 is signed
        "gas_used": receipt.gas_used,
        "total_cost_ugnot": total_cost(receipt),
        "events": typed_events(receipt),
        "info": receipt.info,
    }
    document.update(proof_fields(receipt.proven, receipt.unproven))
    if receipt.numbers_proven_at is not None:
        document["numbers_proven_at"] = receipt.numbers_proven_at
    if receipt.simulated:
        document["simulated"] = True
    if receipt.result.impersonated:
        document["impersonated"] = True  # no key signed it: c4 --impersonate
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
    extra: Document | None = None,
) -> None:
    if as_json:
        emit_json({**receipt_json(receipt, game, known=known), **(extra or {})})
        return
    echo(gnokey_receipt(receipt))
    if receipt.result.impersonated:
        echo(f"IMPERSONATED: {receipt.result.signer} acted without its key (c4 --impersonate)")
    if receipt.simulated:
        echo("simulated only (--simulate only): nothing was sent")
    elif human:
        echo(human)
