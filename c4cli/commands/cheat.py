"""c4 cheat: what a chain in a folder lets its user do that no node does (anvil's cheats)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from c4cli.chain.clock import format_time, parse_time
from c4cli.chain.interface import Head
from c4cli.coins import UGNOT, format_coins, gnot, parse_amount
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.text import names, who
from c4cli.commands.transact import local_chain, resolve
from c4cli.errors import disk_error
from c4cli.files import MIB, read_bounded


@click.group("cheat")
def cheat() -> None:
    """Change the local chain as no node lets anyone: anvil's cheats.

    Each change is a block of the log (a replay and `c4 verify` make it again),
    except next-time, which dates the next block whatever makes it. On a home bound
    to a node each is refused.

    \b
    Example:
      c4 cheat set-balance bob 5000gnot
      c4 cheat mine 10
      c4 cheat next-time 2026-01-01T00:00:00Z
      c4 cheat dump state.json && c4 init --load state.json --home copy
    """


def _print_head(head: Head, as_json: bool, said: str) -> None:
    if as_json:
        emit_json({"height": head.height, "time": format_time(head.time), "unix": head.time})
    else:
        click.echo(f"{said}: height {head.height}, time {format_time(head.time)}")


@cheat.command("mine")
@click.argument("count", type=int, metavar="N")
@common_options
def mine(count: int, home: Path, as_json: bool) -> None:
    """Mine N empty blocks, each dated as the next block would be (anvil_mine).

    \b
    Example:
      c4 cheat mine 10
    """
    head = local_chain(home, "`c4 cheat mine`").mine(count)
    _print_head(head, as_json, f"mined {count} empty block{'s' if count != 1 else ''}")


@cheat.command("set-balance")
@click.argument("target", metavar="KEY_OR_ADDRESS")
@click.argument("amount")
@common_options
def set_balance(target: str, amount: str, home: Path, as_json: bool) -> None:
    """Set an account's coins to exactly AMOUNT (anvil_setBalance), in a block.

    AMOUNT is coins as `c4 send` takes them (5000gnot, 10ugnot,3foo); 0gnot
    empties the account. Its number, sequence and keys stay as they are.

    \b
    Example:
      c4 cheat set-balance bob 5000gnot
      c4 cheat set-balance g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5 0gnot
    """
    chain = local_chain(home, "`c4 cheat set-balance`")
    address = resolve(home, target)
    coins = {denom: n for denom, n in parse_amount(amount).items() if n}
    head = chain.set_balance(address, coins)
    if as_json:
        emit_json(
            {"address": address, "balance": format_coins(coins), "height": head.height,
             "time": format_time(head.time)}
        )  # fmt: skip
        return
    held = gnot(coins.get(UGNOT, 0))
    others = format_coins({d: n for d, n in coins.items() if d != UGNOT})
    click.echo(f"{who(address, names(home))} now holds {held}" + (f" + {others}" if others else ""))
    click.echo(f"  in block {head.height}, {format_time(head.time)}")


@cheat.command("next-time")
@click.argument("when", metavar="RFC3339")
@common_options
def next_time(when: str, home: Path, as_json: bool) -> None:
    """Date the next block, whatever makes it (evm_setNextBlockTimestamp).

    Nothing is mined: the next transaction's block (or `c4 cheat mine`'s first)
    takes this time, which must be after the last block's.

    \b
    Example:
      c4 cheat next-time 2026-01-01T00:00:00Z
    """
    unix = local_chain(home, "`c4 cheat next-time`").set_next_time(parse_time(when))
    if as_json:
        emit_json({"next_time": format_time(unix), "unix": unix})
    else:
        click.echo(f"the next block is dated {format_time(unix)}")


@cheat.command("dump")
@click.argument("file", metavar="FILE")
@common_options
def dump(file: str, home: Path, as_json: bool) -> None:
    """Write the chain's whole state to FILE ("-": stdout) (anvil_dumpState).

    Every account (number, sequence, coins, keys, sessions) and the realm (every
    game, the records, the fee, the owner, the commitments used), as at the last
    block. `c4 init --load FILE` begins a new chain from it: a fixture a CI job
    can commit.

    \b
    Example:
      c4 cheat dump state.json
      c4 init --load state.json --home copy
    """
    data = local_chain(home, "`c4 cheat dump`").dump()
    if file == "-":
        sys.stdout.buffer.write(data)
        return
    try:
        Path(file).write_bytes(data)
    except OSError as exc:
        raise disk_error(Path(file), exc, "no state was written") from None
    if as_json:
        emit_json({"file": file, "bytes": len(data)})
        return
    document = json.loads(data)
    accounts, games = len(document["accounts"]), len(document["realm"]["games"])
    click.echo(f"state written to {file}: {plural(accounts, 'account')}, {plural(games, 'game')}")


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


STATE_BYTES = 256 * MIB  # a state document: some 200,000 games


def read_state(file: str) -> bytes:
    """The bytes of a state document `c4 init --load` names ("-": stdin), bounded."""
    return read_bounded(file, STATE_BYTES, "--load")
