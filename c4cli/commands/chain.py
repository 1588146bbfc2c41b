"""c4 init, time, send, log, tx, verify: the chain itself."""

from __future__ import annotations

import time as wallclock
from pathlib import Path
from typing import Any

import click

from c4cli.chain import crypto
from c4cli.chain.blocks import DEFAULT_BLOCK_INTERVAL, DEFAULT_CHAIN_ID, DEFAULT_REALM_PATH, Genesis
from c4cli.chain.clock import format_time, parse_time
from c4cli.chain.keys import Keyring, check_name
from c4cli.chain.local import LocalChain
from c4cli.chain.state import ChainState
from c4cli.chain.tx import send_msg
from c4cli.coins import UGNOT, format_coins, gnot, parse_amount
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.text import call_text, names, parse_duration, who
from c4cli.commands.transact import acting_address, print_receipt, resolve, submit, tx_options
from c4cli.errors import BadInput

DEV_MNEMONIC = (
    "source bonus chronic canvas draft south burst lottery vacant surface solve popular "
    "case indicate oppose farm nothing bullet exhibit title speed wink action roast"
)
DEV_KEY = "test1"
PREMINE_UGNOT = 10_000_000 * 1_000_000


@click.command()
@click.option("--chain-id", default=DEFAULT_CHAIN_ID, show_default=True)
@click.option("--genesis-time", metavar="RFC3339", help="Default: now.")
@click.option("--clock", type=click.Choice(["wall", "manual"]), default="wall", show_default=True)
@click.option(
    "--block-interval",
    default=f"{DEFAULT_BLOCK_INTERVAL}s",
    show_default=True,
    help="Seconds between blocks on a manual clock.",
)
@click.option("--realm-path", default=DEFAULT_REALM_PATH, show_default=True)
@click.option("--deployer", default=DEV_KEY, show_default=True, help="Key that owns the realm.")
@click.option(
    "--premine",
    multiple=True,
    metavar="NAME_OR_ADDR=COINS",
    help="Add or override a genesis balance (repeatable).",
)
@click.option("--force", is_flag=True, help="Replace an existing chain in the home.")
@common_options
def init(
    chain_id: str,
    genesis_time: str | None,
    clock: str,
    block_interval: str,
    realm_path: str,
    deployer: str,
    premine: tuple[str, ...],
    force: bool,
    home: Path,
    as_json: bool,
) -> None:
    """Create a chain in the home, like gnodev: every local key gets 10,000,000 GNOT.

    The deployer (default test1, created from the public dev mnemonic if
    missing) owns the realm.

    \b
    Example:
      c4 init --clock manual --genesis-time 2026-01-01T00:00:00Z
    """
    chain = LocalChain(home)
    chain.refuse_existing(force=force)  # before the dev key is created
    keyring = Keyring(home)
    interval = parse_duration(block_interval, what="block interval")
    if interval < 1:
        raise BadInput("--block-interval must be at least 1s")
    start = parse_time(genesis_time) if genesis_time else int(wallclock.time())
    if not realm_path.startswith("gno.land/r/"):
        raise BadInput(f"invalid --realm-path {realm_path!r}: a realm path starts gno.land/r/")
    extra: list[tuple[str, dict[str, int]]] = []
    for entry in premine:
        target, sep, coins = entry.partition("=")
        if not sep:
            raise BadInput(f"invalid --premine {entry!r}: use NAME_OR_ADDR=COINS")
        extra.append((target, parse_amount(coins)))
    if deployer == DEV_KEY and not keyring.exists(DEV_KEY):
        keyring.add(DEV_KEY, crypto.derive_private_key(DEV_MNEMONIC), "")
    owner = keyring.resolve(check_name(deployer) if keyring.exists(deployer) else deployer)
    balances: dict[str, dict[str, int]] = {owner: {UGNOT: PREMINE_UGNOT}}
    for info in keyring.list():
        balances.setdefault(info.address, {UGNOT: PREMINE_UGNOT})
    for target, amounts in extra:
        balances[keyring.resolve(target)] = amounts
    balances = {a: c for a, c in balances.items() if format_coins(c)}
    genesis = Genesis(
        chain_id=chain_id,
        time=start,
        clock=clock,
        block_interval=interval,
        realm_path=realm_path,
        deployer=owner,
        balances=tuple((a, format_coins(c)) for a, c in balances.items()),
    )
    state = chain.init(genesis, force=force)
    if as_json:
        emit_json(
            {
                "chain_id": chain_id,
                "time": format_time(start),
                "clock": clock,
                "block_interval": interval,
                "realm_path": realm_path,
                "realm_address": state.realm_address,
                "owner": owner,
                "balances": {a: format_coins(c) for a, c in balances.items()},
            }
        )
        return
    click.echo(f"Chain {chain_id} created in {home} at {format_time(start)}")
    click.echo(f"clock: {clock}" + (f", {interval}s per block" if clock == "manual" else ""))
    click.echo(f"realm: {realm_path} ({state.realm_address}), owner {owner}")
    for address, held in balances.items():
        others = format_coins({d: a for d, a in held.items() if d != UGNOT})
        click.echo(f"  {address}  {gnot(held.get(UGNOT, 0))}" + (f" + {others}" if others else ""))


def _time_doc(state: ChainState) -> dict[str, Any]:
    return {"height": state.height, "time": format_time(state.time), "unix": state.time}


def _print_time(state: ChainState, as_json: bool) -> None:
    if as_json:
        emit_json(_time_doc(state))
    else:
        click.echo(f"height {state.height}, time {format_time(state.time)}")


@click.group(invoke_without_command=True)
@common_options
@click.pass_context
def time(ctx: click.Context, home: Path, as_json: bool) -> None:
    """Show the last block's height and time, or move the chain's clock.

    \b
    Example:
      c4 time
      c4 time advance 91s
      c4 time set 2026-01-01T01:00:00Z
    """
    if ctx.invoked_subcommand is None:
        _print_time(LocalChain(home).state(), as_json)


@time.command("advance")
@click.argument("duration")
@common_options
def advance(duration: str, home: Path, as_json: bool) -> None:
    """Mine an empty block DURATION after the last one (90s, 15m, 1h).

    \b
    Example:
      c4 time advance 91s
    """
    _print_time(LocalChain(home).advance(parse_duration(duration)), as_json)


@time.command("set")
@click.argument("when", metavar="RFC3339")
@common_options
def set_time(when: str, home: Path, as_json: bool) -> None:
    """Mine an empty block at exactly this time (later than the last block).

    \b
    Example:
      c4 time set 2026-01-01T01:00:00Z
    """
    _print_time(LocalChain(home).set_time(parse_time(when)), as_json)


@click.command()
@click.option("--to", "to", required=True, metavar="ADDR_OR_NAME")
@click.option("--amount", required=True, metavar="COINS", help="e.g. 5gnot or 5000000ugnot.")
@click.argument("key")
@tx_options
@common_options
def send(to: str, amount: str, key: str, home: Path, **opts: Any) -> None:
    """Send coins from KEY to another account (a bank transfer).

    \b
    Example:
      c4 send --to bob --amount 5gnot test1
    """
    target = resolve(home, to)
    coins = parse_amount(amount)
    if not coins or any(v <= 0 for v in coins.values()):
        raise BadInput(f"invalid --amount {amount!r}: send a positive amount")
    sender = acting_address(home, key, opts["master"])
    receipt = submit(home, key, lambda state: [send_msg(sender, target, format_coins(coins))], opts)
    print_receipt(
        receipt,
        as_json=opts["as_json"],
        gas_wanted=opts["gas_wanted"],
        human=f"sent {format_coins(coins)} ({gnot(coins.get(UGNOT, 0))}) to {target}",
    )


def _tx_summary(
    entry: dict[str, Any], outcome: dict[str, Any], known: dict[str, str]
) -> dict[str, Any]:
    msgs = entry["tx"]["msg"]
    return {
        "hash": entry["hash"],
        "signer": outcome["signer"],
        "signer_key": known.get(outcome["signer"]),
        "func": outcome["func"],
        "args": [list(m.get("args", [])) for m in msgs],
        "send": [m.get("send") or m.get("amount") or "" for m in msgs],
        "to": [m.get("to_address") for m in msgs],
        "result": outcome["result"],
        "transfers": outcome["transfers"],
    }


def _calls_text(tx: dict[str, Any], known: dict[str, str]) -> str:
    """Each message of a listed tx: ``Play(1, 4, 0)``, ``send 1ugnot to bob (g1…)``."""
    shown = []
    for args, sent, to in zip(tx["args"], tx["send"], tx["to"], strict=True):
        if to is not None:
            shown.append(f"send {sent} to {who(to, known)}")
        else:
            shown.append(call_text(tx["func"], args) + (f" sending {sent}" if sent else ""))
    return "; ".join(shown)


@click.command()
@click.option(
    "--from", "from_height", type=click.IntRange(min=1), default=1, help="First height to list."
)
@click.option("--to", "to_height", type=click.IntRange(min=1), help="Last height to list.")
@click.option(
    "--tail", type=click.IntRange(min=1), metavar="N", help="Only the last N blocks (of those)."
)
@common_options
def log(
    from_height: int, to_height: int | None, tail: int | None, home: Path, as_json: bool
) -> None:
    """List blocks and their transactions (height, time, signer, call, TX HASH).

    \b
    Example:
      c4 log --from 1 --to 10
      c4 log --tail 5
    """
    chain = LocalChain(home)
    if tail is not None:
        last = to_height if to_height is not None else chain.state().height
        from_height = max(from_height, last - tail + 1)
    known = names(home)
    shown = []
    for block in chain.blocks(from_height, to_height):
        record = block.record
        txs = [
            _tx_summary(entry, outcome, known)
            for entry, outcome in zip(record.get("txs", []), block.outcomes, strict=True)
        ]
        shown.append(
            {"height": record["height"], "time": record["time"], "hash": record["hash"], "txs": txs}
        )
    if as_json:
        emit_json(shown)
        return
    for block_doc in shown:
        click.echo(f"{block_doc['height']:>6}  {block_doc['time']}  {block_doc['hash'][:16]}")
        if not block_doc["txs"]:
            click.echo("        (empty block)")
        for tx in block_doc["txs"]:
            signer = who(tx["signer"], known)
            click.echo(f"        {signer}  {_calls_text(tx, known)}  {tx['hash']}")


@click.command("tx")
@click.argument("hash_", metavar="HASH")
@click.option(
    "--binary",
    is_flag=True,
    help="Print the tx's amino bytes in base64, as a node receives them (for gnokey broadcast).",
)
@common_options
def tx_cmd(hash_: str, binary: bool, home: Path, as_json: bool) -> None:
    """Show one transaction, its block and its result, by its TX HASH.

    \b
    Example:
      c4 tx 'o1GD1jms6GgRE6xq4hOR9I1GUBGK+F9RV61cbwjODUU='
      c4 tx --binary 'o1GD1jms6GgRE6xq4hOR9I1GUBGK+F9RV61cbwjODUU=' | base64 -d > tx.bin
    """
    found = LocalChain(home).find_tx(hash_)
    if found is None:
        raise BadInput(f"no transaction with hash {hash_!r} in the log")
    record, index, outcome = found
    entry = record["txs"][index]
    doc = {"height": record["height"], "time": record["time"]}
    known = names(home)
    doc.update(_tx_summary(entry, outcome, known))
    doc["tx"] = entry["tx"]
    if binary:
        import base64

        from c4cli.chain.amino import encode_tx

        encoded = base64.b64encode(encode_tx(entry["tx"])).decode()
        if as_json:
            emit_json({"hash": doc["hash"], "tx": encoded})
        else:
            click.echo(encoded)
        return
    if as_json:
        emit_json(doc)
        return
    for key in ("height", "time", "hash"):
        click.echo(f"{key + ':':<10}{doc[key]}")
    click.echo(f"{'signer:':<10}{who(doc['signer'], known)}")
    click.echo(f"{'call:':<10}{_calls_text(doc, known)}")
    click.echo(f"{'result:':<10}{', '.join(str(v) for v in doc['result']) or '-'}")
    for transfer in doc["transfers"]:
        click.echo(f"paid:     {transfer['amount']} to {who(transfer['to'], known)}")


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
    chain = LocalChain(home)
    repaired = chain.repair() if repair else None
    timings: dict[str, float] = {}
    started = wallclock.perf_counter()
    state = chain.verify(timings)
    elapsed = wallclock.perf_counter() - started
    txs = sum(
        a.sequence + sum(s.sequence for s in a.sessions.values()) for a in state.accounts.values()
    )
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
