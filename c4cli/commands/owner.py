"""The owner's commands: the house fee, the collected fees, and handing the realm over."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.client import workflow
from c4cli.coins import gnot, parse_ugnot
from c4cli.commands import complete
from c4cli.commands.calls import Human, run_call
from c4cli.commands.game import address_arg
from c4cli.commands.options import TxCommand, common_options, key_argument, tx_options
from c4cli.commands.text import names, who
from c4cli.commands.transact import acting_address
from c4cli.commands.txopts import TxOptions


def _owner_line(text: str) -> Human:
    """The human line of an owner command: what changed, in one line."""
    return lambda game, receipt, known: (
        text
        + "".join(
            f"; paid {gnot(amount)} to {who(to, known)}" for to, amount in receipt.result.transfers
        )
    )


@click.command("set-fee", cls=TxCommand)
@click.argument("amount", metavar="COINS")
@key_argument(keys_only=True)
@tx_options
@common_options
def set_fee(amount: str, key: str, home: Path, tx: TxOptions) -> None:
    """Set the house fee for new offers (SetFee, owner only).

    \b
    Example:
      c4 set-fee 0.2gnot test1
    """
    ugnot = parse_ugnot(amount)
    run_call(
        home,
        key,
        workflow.given(workflow.Call("SetFee", [str(ugnot)])),
        tx=tx,
        human=_owner_line(f"house fee for new offers set to {gnot(ugnot)}"),
    )


@click.command("withdraw-fees", cls=TxCommand)
@click.option(
    "--to", "to", metavar="ADDR_OR_NAME", help="Default: the signer.", shell_complete=complete.keys
)
@key_argument(keys_only=True)
@tx_options
@common_options
def withdraw_fees(to: str | None, key: str, home: Path, tx: TxOptions) -> None:
    """Send the collected fees, never stakes, to an address (WithdrawFees, owner only).

    \b
    Example:
      c4 withdraw-fees --to treasury test1
    """
    target = address_arg(home, to) if to else acting_address(home, key, tx.master)
    run_call(
        home,
        key,
        workflow.given(workflow.Call("WithdrawFees", [target])),
        tx=tx,
        human=lambda game, receipt, known: (
            "; ".join(
                f"fees withdrawn: {gnot(amount)} to {who(to, known)}"
                for to, amount in receipt.result.transfers
            )
            or "fees withdrawn: nothing was collected"
        ),
    )


@click.command("transfer-ownership", cls=TxCommand)
@click.argument("new_owner", metavar="ADDR_OR_NAME", shell_complete=complete.keys)
@key_argument(keys_only=True)
@tx_options
@common_options
def transfer_ownership(new_owner: str, key: str, home: Path, tx: TxOptions) -> None:
    """Name a new owner (TransferOwnership); it takes over once it accepts.

    \b
    Example:
      c4 transfer-ownership carol test1
    """
    target = address_arg(home, new_owner)
    line = f"ownership offered to {who(target, names(home))}; it takes over once it accepts"
    run_call(
        home,
        key,
        workflow.given(workflow.Call("TransferOwnership", [target])),
        tx=tx,
        human=_owner_line(line),
    )


@click.command("accept-ownership", cls=TxCommand)
@key_argument(keys_only=True)
@tx_options
@common_options
def accept_ownership(key: str, home: Path, tx: TxOptions) -> None:
    """Become the owner you were named as (AcceptOwnership).

    \b
    Example:
      c4 accept-ownership carol
    """
    line = f"{key} now owns the realm"
    run_call(
        home,
        key,
        workflow.given(workflow.Call("AcceptOwnership", [])),
        tx=tx,
        human=_owner_line(line),
    )
