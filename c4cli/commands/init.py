"""c4 init: a chain in the home (from nothing, from a dumped state, or forked from a
node's realm), or the home bound to a node."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import click

from c4cli.address import package_address
from c4cli.chain.clock import format_time, parse_time
from c4cli.client import connect, genesis
from c4cli.client import fork as forks
from c4cli.coins import UGNOT, format_coins, gnot, parse_amount
from c4cli.commands.cheat import plural, read_state
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.run import Invocation, current, takes_run
from c4cli.commands.sync import progress_bar
from c4cli.commands.text import names, parse_duration, who
from c4cli.errors import BadInput
from c4cli.home.keys import DEV_KEY
from c4cli.jsonvalue import Document
from c4cli.local.genesis import DEFAULT_BLOCK_INTERVAL, DEFAULT_CHAIN_ID, DEFAULT_REALM_PATH


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
    "--fork",
    "fork",
    metavar="URL[@HEIGHT]",
    help="Begin from a node's realm at a block (default its last proven), as its signed "
    "blocks make it (anvil's --fork-url).",
)
@click.option(
    "--impersonation",
    is_flag=True,
    help="Let any address act without its key here (c4 --impersonate ADDR); a fork always does.",
)
@click.option(
    "--trust",
    metavar="HEIGHT:HASH",
    help="With --remote: trust the validators that signed this block (its hash, in hex or "
    "base64, from a source you trust), not the node's set on first use.",
)
@common_options
@takes_run
def init(
    run: Invocation,
    chain_id: str,
    genesis_time: str | None,
    clock: str,
    block_interval: str,
    realm_path: str,
    deployer: str,
    premine: tuple[str, ...],
    force: bool,
    load: str | None,
    fork: str | None,
    impersonation: bool,
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
    hold funded. With --fork URL[@HEIGHT], from the realm on that node at that
    block: computed from the blocks its validators signed (trusted on first use, or
    at the block --trust names), the accounts it names as the node had them; the
    chain id is the node's with -fork, so nothing signed here is valid there.

    \b
    Example:
      c4 init --clock manual --genesis-time 2026-01-01T00:00:00Z
      c4 init --remote https://rpc.gno.land:443 --trust HEIGHT:HASH
      c4 init --load state.json
      c4 init --fork https://rpc.gno.land:443@1234567
    """
    url = run.remote
    if url is not None:
        if load is not None or fork is not None or impersonation:
            raise BadInput(
                "--load, --fork and --impersonation make a local chain: not with --remote"
            )
        _init_remote(home, url, chain_id, realm_path, premine, force, trust, as_json)
        return
    document, lines = init_local(
        home,
        LocalInit(
            chain_id, genesis_time, clock, block_interval, realm_path, deployer, premine,
            force, load, fork, impersonation, trust,
        ),
        chain_id_given=click.get_current_context().get_parameter_source("chain_id")
        is not click.core.ParameterSource.DEFAULT,
        as_json=as_json,
    )  # fmt: skip
    if as_json:
        emit_json(document)
    else:
        for line in lines:
            click.echo(line)


class LocalInit(NamedTuple):
    """What `c4 init` is told about a local chain to make."""

    chain_id: str
    genesis_time: str | None
    clock: str
    block_interval: str
    realm_path: str
    deployer: str
    premine: tuple[str, ...]
    force: bool
    load: str | None
    fork: str | None
    impersonation: bool
    trust: str | None


def init_local(
    home: Path,
    options: LocalInit,
    *,
    chain_id_given: bool,
    as_json: bool,
) -> tuple[Document, list[str]]:
    """A local chain in the home (from nothing, from a dumped state, or forked): the
    document `c4 init --json` prints, and its lines of text. `c4 serve --fork` makes
    one so too."""
    (chain_id, genesis_time, clock, block_interval, realm_path, deployer, premine, force,
     load, fork, impersonation, trust) = options  # fmt: skip
    if trust is not None and fork is None:
        raise BadInput("--trust names a node's block: it goes with --remote URL or --fork URL")
    if load is not None and fork is not None:
        raise BadInput("--load and --fork each give the state to begin from: give one")
    origin: Document | None = None
    data = b""
    if fork is not None:
        origin, data = _forked(fork, realm_path, trust, as_json)
        load = f"the fork of {origin['url']} at block {origin['height']}"
        if not chain_id_given:
            chain_id = f"{origin['chain_id']}-fork"
        elif chain_id == origin["chain_id"]:
            raise BadInput(
                f"--chain-id {chain_id} is the node's: a fork signs for another chain, so "
                "nothing signed on it is valid there"
            )
    begun = None
    if load is not None:
        begun = genesis.loaded(data if fork is not None else read_state(load), load)
        if realm_path not in (DEFAULT_REALM_PATH, begun.realm_path) or deployer != DEV_KEY:
            raise BadInput(
                f"{load} holds the realm {begun.realm_path} and its owner: --realm-path "
                "and --deployer do not go with --load"
            )
    if begun is None and not realm_path.startswith("gno.land/r/"):
        raise BadInput(f"invalid --realm-path {realm_path!r}: a realm path starts gno.land/r/")
    # The input first: a bad one leaves the home as it was (its binding, its journal).
    interval = parse_duration(block_interval, what="block interval")
    if interval < 1:
        raise BadInput("--block-interval must be at least 1s")
    extra: list[tuple[str, dict[str, int]]] = []
    for entry in premine:
        target, sep, coins = entry.partition("=")
        if not sep:
            raise BadInput(f"invalid --premine {entry!r}: use NAME_OR_ADDR=COINS")
        extra.append((target, parse_amount(coins)))
    plan = genesis.LocalPlan(
        chain_id, chain_id_given, parse_time(genesis_time) if genesis_time else None, clock,
        interval, realm_path, deployer, extra, begun, fork is not None, impersonation,
    )  # fmt: skip
    _, made, owner, balances = genesis.make_local(home, plan, force=force)
    chain_id, start, realm_path = made.chain_id, made.time, made.realm_path
    realm_address = package_address(realm_path)
    document: Document = {
        "chain_id": chain_id,
        "time": format_time(start),
        "clock": clock,
        "block_interval": interval,
        "realm_path": realm_path,
        "realm_address": realm_address,
        "owner": owner,
        "balances": {a: format_coins(c) for a, c in balances.items()},
        "state": None if begun is None else begun.digest,
        "origin": origin,
        "impersonation": made.impersonation,
    }
    lines = [
        f"Chain {chain_id} created in {home} at {format_time(start)}",
        f"clock: {clock}" + (f", {interval}s per block" if clock == "manual" else ""),
        f"realm: {realm_path} ({realm_address}), owner {owner}",
    ]
    if made.impersonation:
        lines.append("impersonation allowed: c4 --impersonate ADDR acts as ADDR, without its key")
    if begun is not None:
        accounts = plural(len(begun.accounts), "account")
        if origin is not None:
            lines.append(
                f"forked from {origin['url']} (chain {origin['chain_id']}) at block "
                f"{origin['height']} ({origin['block_hash']}): {accounts} as the node had them"
            )
        else:
            lines.append(f"begun from {load}: {accounts} (sha256 {begun.digest})")
    known = names(home)
    for address, held in balances.items():
        others = format_coins({d: a for d, a in held.items() if d != UGNOT})
        funded = f"  {gnot(held.get(UGNOT, 0))}" + (f" + {others}" if others else "")
        lines.append(f"  {who(address, known)}{funded}")
    return document, lines


def _forked(fork: str, realm_path: str, trust: str | None, as_json: bool) -> tuple[Document, bytes]:
    """`c4 init --fork`: the realm's state on the node at the block named, as a state
    document, and where it came from (a progress bar on a terminal for a long read)."""
    if current().trust_node:
        raise BadInput(
            "a fork is computed from blocks the validators signed: not with --trust-node"
        )
    url, height = forks.parse_origin(fork)
    with progress_bar(as_json) as progress:
        made = forks.forked(url, height, realm_path, trust=trust, progress=progress)
    return made.origin, made.data


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
        deadlines=current().settings.deadlines(),
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
