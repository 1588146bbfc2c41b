"""c4 time, send, verify: the chain itself (c4 init has a module of its own)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from c4cli.chain.clock import format_time, parse_time
from c4cli.chain.interface import Head, Reader
from c4cli.coins import UGNOT, Coins, format_coins, gnot, parse_amount, parse_coins
from c4cli.commands import complete
from c4cli.commands.options import TxCommand, common_options, emit_json, key_argument, tx_options
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.text import names, parse_duration, who
from c4cli.commands.transact import acting_address, local_chain, print_receipt, resolve, submit
from c4cli.commands.txopts import TxOptions
from c4cli.errors import BadInput
from c4cli.wire.msgs import Msg
from c4cli.wire.paths import BALANCES
from c4cli.wire.tx import send_msg


def _print_time(head: Head, as_json: bool) -> None:
    if as_json:
        emit_json({"height": head.height, "time": format_time(head.time), "unix": head.time})
    else:
        click.echo(f"height {head.height}, time {format_time(head.time)}")


@click.group("time", invoke_without_command=True)
@common_options
@click.pass_context
@takes_run
def time_group(run: Invocation, ctx: click.Context, home: Path, as_json: bool) -> None:
    """Show the last block's height and time, or move the chain's clock.

    \b
    Example:
      c4 time
      c4 time advance 91s
      c4 time set 2026-01-01T01:00:00Z
    """
    if ctx.invoked_subcommand is None:
        _print_time(run.open_chain(home).head(), as_json)


@time_group.command("advance")
@click.argument("duration")
@common_options
def advance(duration: str, home: Path, as_json: bool) -> None:
    """Mine an empty block DURATION after the last one (90s, 15m, 1h).

    \b
    Example:
      c4 time advance 91s
    """
    chain = local_chain(home, "`c4 time advance`")
    _print_time(chain.advance(parse_duration(duration)), as_json)


@time_group.command("set")
@click.argument("when", metavar="RFC3339")
@common_options
def set_time(when: str, home: Path, as_json: bool) -> None:
    """Mine an empty block at exactly this time (later than the last block).

    \b
    Example:
      c4 time set 2026-01-01T01:00:00Z
    """
    chain = local_chain(home, "`c4 time set`")
    _print_time(chain.set_time(parse_time(when)), as_json)


@click.command(cls=TxCommand)
@click.option("--to", "to", required=True, metavar="ADDR_OR_NAME", shell_complete=complete.keys)
@click.option("--amount", required=True, metavar="COINS", help="e.g. 5gnot or 5000000ugnot.")
@key_argument()
@tx_options
@common_options
def send(to: str, amount: str, key: str, home: Path, tx: TxOptions) -> None:
    """Send coins from KEY to another account (a bank transfer).

    \b
    Example:
      c4 send --to bob --amount 5gnot test1
    """
    target = resolve(home, to)
    coins = parse_amount(amount)
    if not coins or any(v <= 0 for v in coins.values()):
        raise BadInput(f"invalid --amount {amount!r}: send a positive amount")
    sender = acting_address(home, key, tx.master)

    def msgs(reader: Reader) -> list[Msg]:
        _denominations_held(reader, sender, coins, amount)
        return [send_msg(sender, target, format_coins(coins))]

    receipt = submit(home, key, msgs, tx)
    print_receipt(
        receipt,
        as_json=tx.as_json,
        human=f"sent {format_coins(coins)} ({gnot(coins.get(UGNOT, 0))}) to "
        f"{who(target, names(home))}",
    )


def _denominations_held(reader: Reader, sender: str, coins: Coins, amount: str) -> None:
    """A denomination other than ugnot that the sender holds none of is a typo (5ugno)
    far more often than a wish to be told of insufficient funds: refused as unknown."""
    others = sorted(set(coins) - {UGNOT})
    if not others:
        return
    balance = reader.query(BALANCES + sender).data
    try:
        held = parse_coins(json.loads(balance) or "")
    except (ValueError, TypeError, BadInput):
        return  # the chain's own check answers for an account it shows oddly
    unknown = [denom for denom in others if denom not in held]
    if unknown:
        raise BadInput(
            f"invalid --amount {amount!r}: unknown denomination {unknown[0]!r} ({sender} "
            "holds none of it); GNOT is written 5gnot or 5000000ugnot"
        )


@click.command()
@click.option("--repair", is_flag=True, help="Cut a torn final block off the log.")
@common_options
def verify(repair: bool, home: Path, as_json: bool) -> None:
    """Replay the whole log from genesis with every check, ignoring the cache.

    Checks the hash chain, every signature and sequence, and re-executes every
    transaction. Exit 3 names the first bad block.

    \b
    Example:
      c4 verify
    """
    chain = local_chain(home, "`c4 verify`")
    repaired = chain.repair() if repair else None
    timings: dict[str, float] = {}
    started = time.perf_counter()
    state = chain.verify(timings)
    elapsed = time.perf_counter() - started
    txs = state.transactions
    if as_json:
        emit_json(
            {
                "ok": True,
                "height": state.height,
                "transactions": txs,
                "last_hash": state.last_hash,
                "repaired_to": repaired,
                "seconds": round(elapsed, 3),
                "timings": {k: round(v, 3) for k, v in timings.items()},
            }
        )
        return
    if repaired is not None:
        click.echo(f"repaired: cut a torn final block; the log now ends at height {repaired}")
    split = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in timings.items())
    click.echo(
        f"ok: {state.height} blocks, {txs} transactions; hash chain, signatures, sequences "
        f"and execution checked; last hash {state.last_hash}"
    )
    click.echo(f"{elapsed:.2f} s ({split})")
