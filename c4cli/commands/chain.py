"""c4 init, time, send, log, tx, verify: the chain itself."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from c4cli.address import package_address
from c4cli.chain.clock import check_settable, format_time, parse_time
from c4cli.chain.interface import Head, Reader
from c4cli.cli.invocation import current
from c4cli.client import connect, genesis
from c4cli.coins import UGNOT, Coins, format_coins, gnot, parse_amount, parse_coins
from c4cli.commands import complete
from c4cli.commands.cheat import plural, read_state
from c4cli.commands.options import TxCommand, common_options, emit_json, tx_options
from c4cli.commands.text import names, parse_duration, who
from c4cli.commands.transact import acting_address, local_chain, print_receipt, resolve, submit
from c4cli.commands.txopts import TxOptions
from c4cli.errors import BadInput
from c4cli.home.keys import DEV_KEY, Keyring, check_name
from c4cli.local.blocks import DEFAULT_BLOCK_INTERVAL, DEFAULT_CHAIN_ID, DEFAULT_REALM_PATH
from c4cli.wire.msgs import Msg
from c4cli.wire.paths import BALANCES
from c4cli.wire.tx import send_msg


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
@click.option(
    "--load",
    "load",
    metavar="FILE",
    help="Begin from the state `c4 cheat dump` wrote (anvil's loadState); - reads stdin.",
)
@click.option(
    "--trust",
    metavar="HEIGHT:HASH",
    help="With --remote: trust the validators that signed this block (its hash, in hex or "
    "base64, from a source you trust), not the node's set on first use.",
)
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
    load: str | None,
    trust: str | None,
    home: Path,
    as_json: bool,
) -> None:
    """Create a chain in the home, like gnodev: every local key gets 10,000,000 GNOT.

    The deployer (default test1, created from the public dev mnemonic if
    missing) owns the realm. With --remote URL, the home is bound to that node
    instead, trusting its validator set (its fingerprint printed) or the set that
    signed the block --trust names. With --load FILE, the chain begins from the
    state `c4 cheat dump` wrote: its accounts, its realm and its owner, its clock at
    the dump's time (unless --genesis-time), and only the home's keys it does not
    hold funded.

    \b
    Example:
      c4 init --clock manual --genesis-time 2026-01-01T00:00:00Z
      c4 init --remote https://rpc.gno.land:443 --trust HEIGHT:HASH
      c4 init --load state.json
    """
    url = current().remote
    if url is not None:
        if load is not None:
            raise BadInput("--load begins a local chain: it does not go with --remote")
        _init_remote(home, url, chain_id, realm_path, premine, force, trust, as_json)
        return
    if trust is not None:
        raise BadInput("--trust names a node's block: it goes with --remote URL")
    begun = None if load is None else genesis.loaded(read_state(load), load)
    if begun is not None:
        if realm_path not in (DEFAULT_REALM_PATH, begun.realm_path) or deployer != DEV_KEY:
            raise BadInput(
                f"{load} holds the realm {begun.realm_path} and its owner: --realm-path "
                "and --deployer do not go with --load"
            )
        realm_path = begun.realm_path
    # The input first: a bad one leaves the home as it was (its binding, its journal).
    interval = parse_duration(block_interval, what="block interval")
    if interval < 1:
        raise BadInput("--block-interval must be at least 1s")
    start = parse_time(genesis_time) if genesis_time else int(time.time())
    if begun is not None and not genesis_time:
        start = begun.time
    check_settable(start)
    if not realm_path.startswith("gno.land/r/"):
        raise BadInput(f"invalid --realm-path {realm_path!r}: a realm path starts gno.land/r/")
    extra: list[tuple[str, dict[str, int]]] = []
    for entry in premine:
        target, sep, coins = entry.partition("=")
        if not sep:
            raise BadInput(f"invalid --premine {entry!r}: use NAME_OR_ADDR=COINS")
        extra.append((target, parse_amount(coins)))
    chain = connect.new_local_chain(home, force=force)  # before the dev key is created
    keyring = Keyring(home)
    if deployer == DEV_KEY:
        genesis.with_dev_key(keyring)
    owner = keyring.resolve(check_name(deployer) if keyring.exists(deployer) else deployer)
    balances = genesis.balances(keyring, owner=owner, given=extra)
    if begun is not None:
        owner = begun.owner
        balances = genesis.beside(begun, balances, [keyring.resolve(t) for t, _ in extra])
    made = genesis.local_genesis(
        balances,
        owner=owner,
        chain_id=chain_id,
        time=start,
        clock=clock,
        block_interval=interval,
        realm_path=realm_path,
    )
    if begun is None:
        chain.init(made, force=force)
    else:
        chain.init(made._replace(state=begun.digest), force=force, begun=begun.data)
    realm_address = package_address(realm_path)
    if as_json:
        emit_json(
            {
                "chain_id": chain_id,
                "time": format_time(start),
                "clock": clock,
                "block_interval": interval,
                "realm_path": realm_path,
                "realm_address": realm_address,
                "owner": owner,
                "balances": {a: format_coins(c) for a, c in balances.items()},
                "state": None if begun is None else begun.digest,
            }
        )
        return
    click.echo(f"Chain {chain_id} created in {home} at {format_time(start)}")
    click.echo(f"clock: {clock}" + (f", {interval}s per block" if clock == "manual" else ""))
    click.echo(f"realm: {realm_path} ({realm_address}), owner {owner}")
    if begun is not None:
        held = plural(len(begun.accounts), "account")
        click.echo(f"begun from {load}: {held} (sha256 {begun.digest})")
    known = names(home)
    for address, held in balances.items():
        others = format_coins({d: a for d, a in held.items() if d != UGNOT})
        funded = f"  {gnot(held.get(UGNOT, 0))}" + (f" + {others}" if others else "")
        click.echo(f"  {who(address, known)}{funded}")


def _init_remote(
    home: Path,
    url: str,
    chain_id: str,
    realm_path: str,
    premine: tuple[str, ...],
    force: bool,
    trust: str | None,
    as_json: bool,
) -> None:
    """`c4 init --remote URL`: bind the home to a node and trust its validator set; no
    log, no genesis of our own."""
    if premine:
        raise BadInput("--premine has no meaning on a node: its genesis is the node's own")
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("chain_id") is not click.core.ParameterSource.DEFAULT
    taking = current().trust_node
    if trust is not None and taking:
        raise BadInput("--trust names the validators to trust: --trust-node trusts none")
    bound = connect.bind(
        home,
        url,
        realm_path,
        chain_id=chain_id if given else None,
        force=force,
        trust=trust,
        trust_node=taking,
    )
    remote, head, trusted = bound.remote, bound.head, bound.trusted
    shown = connect.shown_url(remote.url)
    if as_json:
        document = {**remote._asdict(), "url": shown}
        trust_doc = None
        if trusted is not None:
            trust_doc = {
                "height": trusted.height,
                "block_hash": trusted.block_hash,
                "validators": len(trusted.validators),
                "fingerprint": bound.fingerprint,
                "source": trusted.source,
            }
        emit_json(
            {**document, "height": head.height, "time": format_time(head.time), "trust": trust_doc}
        )
        return
    click.echo(
        f"home {home} uses the node at {shown}: chain {remote.chain_id}, height {head.height}"
    )
    click.echo(f"realm: {realm_path}")
    if trusted is None:
        click.echo(
            "trusts no validator set (--trust-node, kept with the binding): every command "
            "of this home takes the node's word, and says so"
        )
        return
    click.echo(
        f"trusts {len(trusted.validators)} validator(s), as block {trusted.height} shows them "
        f"({trusted.source}): fingerprint {bound.fingerprint}"
    )
    if trust is None:
        click.echo(
            "  compare it with a source you trust; `c4 init --remote URL --trust HEIGHT:HASH "
            "--force` trusts the set that signed a block you name instead"
        )


def _print_time(head: Head, as_json: bool) -> None:
    if as_json:
        emit_json({"height": head.height, "time": format_time(head.time), "unix": head.time})
    else:
        click.echo(f"height {head.height}, time {format_time(head.time)}")


@click.group("time", invoke_without_command=True)
@common_options
@click.pass_context
def time_group(ctx: click.Context, home: Path, as_json: bool) -> None:
    """Show the last block's height and time, or move the chain's clock.

    \b
    Example:
      c4 time
      c4 time advance 91s
      c4 time set 2026-01-01T01:00:00Z
    """
    if ctx.invoked_subcommand is None:
        _print_time(current().open_chain(home).head(), as_json)


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
@click.argument("key", shell_complete=complete.signers)
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
