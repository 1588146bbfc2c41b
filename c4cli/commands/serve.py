"""c4 serve, snapshot, revert: the local chain for gno.land's own tools, anvil-style."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from c4cli.client.connect import shown_url, trusted_set
from c4cli.commands.init import LocalInit, init_local
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.text import parse_duration
from c4cli.commands.transact import local_chain
from c4cli.errors import BadInput
from c4cli.escape import printable
from c4cli.gateway.methods import open_gateway
from c4cli.home.keys import DEV_KEY
from c4cli.interrupts import Interrupted
from c4cli.jsonvalue import Document
from c4cli.local.genesis import DEFAULT_BLOCK_INTERVAL, DEFAULT_CHAIN_ID, DEFAULT_REALM_PATH
from c4cli.serve.server import Server, loopback
from c4cli.serve.server import run as run_server

DEFAULT_LISTEN = "127.0.0.1:26657"


def parse_listen(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise BadInput(f"--listen {text!r}: use HOST:PORT, such as 127.0.0.1:26657 (port 0: any)")
    return host.strip("[]") or "127.0.0.1", int(port)


@click.command()
@click.option(
    "--listen",
    default=DEFAULT_LISTEN,
    show_default=True,
    metavar="HOST:PORT",
    help="Where to answer (0.0.0.0 to be reached from other machines; port 0: any free).",
)
@click.option(
    "--block-time",
    default="0",
    show_default=True,
    metavar="DURATION",
    help="Make a block of what arrived every DURATION (1s, 5s); 0: each transaction "
    "is a block of its own at once.",
)
@click.option(
    "--fork",
    metavar="URL[@HEIGHT]",
    help="First make the home's chain a fork of a node's realm (as c4 init --fork), then serve it.",
)
@click.option(
    "--upstream",
    metavar="[URL[,URL…]]",
    is_flag=False,
    flag_value="",
    help="Serve a node's chain instead (alone: the nodes the home is bound to), each answer "
    "proven by the validators this home trusts, or marked as the node's word: a verifying "
    "gateway.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="With --upstream: refuse what cannot be proven, instead of passing it on marked.",
)
@common_options
@takes_run
def serve(
    run: Invocation,
    listen: str,
    block_time: str,
    fork: str | None,
    upstream: str | None,
    strict: bool,
    home: Path,
    as_json: bool,
) -> None:
    """Answer gno.land's RPC (tm2's JSON-RPC, as gnoland v1.7.1) on the home's local
    chain, for gnokey, gnoweb and gno's JS client, until Ctrl-C.

    Transactions they sign are checked as c4's own, and each lands in a block of its
    own at once (with --block-time, all that arrived in one block each tick); c4
    commands on the same home go on working meanwhile. The first line says the URL;
    with --json it is one JSON document. Ctrl-C (or SIGTERM) lets the requests in
    flight finish and exits 0. Beside tm2's methods, anvil's as c4 names them:
    c4_snapshot, c4_revert (id), c4_advanceTime (seconds), c4_setBalance (address,
    amount), c4_mine (blocks), c4_setNextBlockTimestamp (time), c4_dumpState,
    c4_loadState (state), c4_impersonate and c4_stopImpersonating (address).

    With --fork URL[@HEIGHT], the home (which must hold no chain yet) first becomes
    a fork of the realm on that node, as `c4 init --fork` makes one: gnokey, gnoweb
    and gno's JS client then see the live realm's games, locally.

    With --upstream [URL[,URL…]], on a home bound to that network (alone: to the
    nodes the home is bound to), it serves the node's chain instead, as a verifying
    gateway: each answer proven by the validators the home trusts (headers, blocks,
    results, accounts, balances, c4's realm) or, where no proof reaches, passed on
    marked (an X-C4-Unproven header and a line on stderr; refused with --strict). A
    forged answer is a JSON-RPC error naming it, and the next URL is asked. No
    cheats there.

    Any page may read the chain. What changes it (broadcasts and the cheats) must
    be POSTed and is refused to a browser's page of another origin; the cheats also
    need the token printed at start (Authorization: Bearer TOKEN), kept while the
    server runs in HOME/serve.token, which only you can read.

    \b
    Example:
      c4 serve --listen 127.0.0.1:26657 &
      gnokey maketx call -pkgpath gno.land/r/samcrew/connect4 -func Offer ... \\
        -remote 127.0.0.1:26657 -chainid dev -broadcast test1
      c4 serve --fork https://rpc.gno.land:443 --home rehearsal
      c4 --home gw serve --upstream https://rpc.gno.land:443
    """
    if upstream is not None:
        if fork is not None or block_time.strip() not in ("0", "0s"):
            raise BadInput("--upstream serves a node's chain: not with --fork or --block-time")
        _gateway(home, upstream, strict, listen, as_json)
        return
    if strict:
        raise BadInput("--strict is the gateway's (--upstream URL)")
    origin: Document | None = None
    if fork is not None:
        if run.remote is not None:
            raise BadInput("--fork makes a local chain of a node's realm: not with --remote")
        made, _ = init_local(
            home,
            LocalInit(
                DEFAULT_CHAIN_ID, None, "wall", f"{DEFAULT_BLOCK_INTERVAL}s",
                run.realm_path or DEFAULT_REALM_PATH, DEV_KEY, (), False, None, fork,
                True, None,
            ),
            chain_id_given=False,
            as_json=as_json,
        )  # fmt: skip
        origin = made["origin"] if isinstance(made["origin"], dict) else None
    chain = local_chain(home, "`c4 serve`")
    head, chain_id = chain.head(), chain.chain_id
    host, port = parse_listen(listen)
    interval = (
        0 if block_time.strip() in ("0", "0s") else parse_duration(block_time, what="--block-time")
    )

    def ready(server: Server) -> None:
        if as_json:
            document = {"url": server.url, "chain_id": chain_id, "height": head.height}
            if origin is not None:
                document["origin"] = origin
            emit_json({**document, "token": server.token})
        else:
            if origin is not None:
                click.echo(
                    f"c4 serve: a fork of {origin['url']} (chain {origin['chain_id']}) at "
                    f"block {origin['height']}, impersonation allowed"
                )
            click.echo(
                f"c4 serve: the chain of {home} (chain {chain_id}, height {head.height}) "
                f"on {shown_url(server.url)}; Ctrl-C stops it"
            )
            click.echo(
                f"c4 serve: cheats need the header: Authorization: Bearer {server.token} "
                f"(also in {server.token_file}, which only you can read)"
            )
        if not loopback(host):
            click.echo(
                f"c4 serve: listening on {host}: any machine that reaches it may read this "
                "chain and broadcast signed transactions to it; the cheats (c4_revert, c4_mine, "
                "c4_impersonate, …) need the token",
                err=True,
            )
        sys.stdout.flush()

    _serve(lambda: Server((host, port), home, interval), listen, ready, as_json)


def _serve(
    made: Callable[[], Server], listen: str, ready: Callable[[Server], None], as_json: bool
) -> None:
    """The server ``made`` makes, run until stopped."""
    try:
        server = made()
    except OSError as exc:
        raise BadInput(f"cannot listen on {listen}: {exc.strerror or exc}") from None
    try:
        run_server(server, ready)
    except Interrupted as stop:
        # The way a server is stopped: every request in flight was answered first.
        if not as_json:
            click.echo(f"c4 serve: stopped ({stop.name})", err=True)


def _gateway(home: Path, upstream: str, strict: bool, listen: str, as_json: bool) -> None:
    """`c4 serve --upstream`: the node's chain, proven, until stopped."""

    def say(line: str) -> None:
        click.echo(printable(line), err=True)

    gateway = open_gateway(home, upstream, strict=strict, say=say)
    head, chain_id = gateway.verifier.latest(), gateway.reader.chain_id
    fingerprint = trusted_set(home)
    host, port = parse_listen(listen)

    def ready(server: Server) -> None:
        if as_json:
            emit_json({"url": server.url, "chain_id": chain_id, "height": head.height})
        else:
            print_ = fingerprint[1] if fingerprint is not None else "?"
            click.echo(
                f"c4 serve: a gateway to {gateway.reader.redacted} (chain {chain_id}, block "
                f"{head.height}) on {shown_url(server.url)}, each answer proven by the "
                f"validators {print_}{' (--strict)' if strict else ''}; Ctrl-C stops it"
            )
        sys.stdout.flush()

    _serve(lambda: Server((host, port), home, methods=lambda _: gateway), listen, ready, as_json)


@click.command()
@common_options
def snapshot(home: Path, as_json: bool) -> None:
    """Print an id for the chain as it stands (HEIGHT:HASH), for `c4 revert`.

    \b
    Example:
      id=$(c4 snapshot) && c4 play 1 4 alice && c4 revert "$id"
    """
    snap = local_chain(home, "`c4 snapshot`").snapshot()
    if as_json:
        emit_json({"id": snap.id, "height": snap.height, "hash": snap.hash})
    else:
        click.echo(snap.id)


@click.command()
@click.argument("snapshot_id", metavar="ID")
@common_options
def revert(snapshot_id: str, home: Path, as_json: bool) -> None:
    """Cut the chain back to snapshot ID; the blocks cut off are kept, byte for byte, in
    chain/reverted.toml (nothing is deleted, and kept secrets stay kept).

    \b
    Example:
      c4 revert 12:3f9a0c1d2e4b5a69
    """
    done = local_chain(home, "`c4 revert`").revert(snapshot_id)
    if as_json:
        emit_json(
            {
                "id": done.snapshot.id,
                "height": done.snapshot.height,
                "blocks_cut": done.blocks,
                "kept": str(done.kept),
            }
        )
    elif done.blocks:
        click.echo(
            f"reverted to height {done.snapshot.height}: {done.blocks} block(s) cut, "
            f"kept in {done.kept}"
        )
    else:
        click.echo(f"the chain already ends at {done.snapshot.id}: nothing to cut")
