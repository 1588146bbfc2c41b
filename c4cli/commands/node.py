"""c4 node start|stop: a real gnoland for this home, to try c4 on gno's own GnoVM."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import click

from c4cli.chain.interface import Reader
from c4cli.client import connect, genesis
from c4cli.commands import node_info
from c4cli.commands.node_info import gnoland
from c4cli.commands.options import emit_json, local_options
from c4cli.commands.params import Count
from c4cli.commands.run import Invocation, current, takes_run
from c4cli.commands.transact import resolve, submit
from c4cli.commands.txopts import TxOptions
from c4cli.errors import BadInput
from c4cli.home.config import Remote, read_remote, write_remote
from c4cli.home.keys import DEV_KEY, DEV_MNEMONIC, Keyring, check_name
from c4cli.jsonvalue import Document
from c4cli.local.genesis import DEFAULT_REALM_PATH
from c4cli.wire.tx import Msg, call_msg

MAX_VALIDATORS = 10  # each gnoland takes some 400 MB


@click.group()
def node() -> None:
    """Run gno's own node (gnoland) for this home, on 127.0.0.1.

    \b
    Example:
      c4 node start          # prints the URL; the home now uses the node
      c4 lobby               # ... every command acts on the node's GnoVM
      c4 node stop
    """


@node.command()
@click.option(
    "--realm-path",
    default=DEFAULT_REALM_PATH,
    show_default=True,
    help="Where to deploy the realm (a new node only).",
)
@click.option(
    "--deployer",
    default="test1",
    show_default=True,
    help="Key that owns the realm (a new node only).",
)
@click.option(
    "--validators",
    type=Count(1, MAX_VALIDATORS),
    default=None,
    help=f"A new chain of N validators (1-{MAX_VALIDATORS}), one gnoland each.",
)
@click.option(
    "--validator",
    "only",
    type=Count(0),
    default=None,
    help="Start this validator of the home's network only (0 is the first).",
)
@click.option(
    "--in-genesis",
    is_flag=True,
    help="Put the realm and its rules in the chain's genesis (a new node only).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Bind a home that already has a chain (its journal is kept aside).",
)
@local_options
@takes_run
def start(
    run: Invocation,
    realm_path: str,
    deployer: str,
    validators: int | None,
    only: int | None,
    in_genesis: bool,
    force: bool,
    home: Path,
    as_json: bool,
) -> None:
    """Start gnoland for this home and bind the home to it.

    A new node gets a genesis that gives every key of the home 10,000,000 GNOT
    (test1, the public dev key, is added if missing), and the realm in gno/ and
    its rules package, deployed with gnokey by test1 (with --in-genesis, in the
    genesis itself, deployed by test1 as gno's own packages are); with --deployer
    NAME, test1 then hands the realm over (TransferOwnership, AcceptOwnership
    signed by NAME).
    A node stopped with `c4 node stop` starts again on its own chain, from where
    it was. gnoland runs in the background, its data and log in HOME/node.

    With --validators N (2 or more), the chain is a network of N validators, each
    its own gnoland with its own RPC URL, all bound to the home (reads and
    transactions go to the first that serves). Blocks need more than two thirds of
    the validators: 4 go on with one stopped, 3 halt. --validator I starts one
    validator again (after `c4 node stop --validator I`).

    \b
    Example:
      c4 node start
      c4 node start --deployer owner --json
      c4 node start --validators 4
      c4 node stop --validator 2 --kill && c4 node start --validator 2
    """
    folder = home / gnoland().devnode.NODE_DIR
    bin_dir, gnoroot = gnoland().binaries.find_gno()
    network = gnoland().network.Network(folder, bin_dir, gnoroot)
    if network.exists:
        _start_network_again(home, network, validators, only, as_json)
        return
    if only is not None:
        raise BadInput(f"--validator {only}: the node of {home} is not a network of validators")
    pid = gnoland().devnode.running_pid(folder)
    if pid is not None:
        raise BadInput(f"a node already runs for {home} (pid {pid}): c4 node stop first")
    running = gnoland().devnode.DevNode(folder, bin_dir, gnoroot)
    count = validators or 1
    if running.started_before:
        if count > 1:
            raise BadInput(
                f"--validators {count}: the chain of {home} has one validator (it stays so)"
            )
        bound = read_remote(home)
        if bound is not None:
            realm_path = bound.realm_path
        running.launch(detach=True)  # on its RPC port of before: a saved URL still serves
        write_remote(home, Remote(running.url, gnoland().devnode.CHAIN_ID, realm_path))
        connect.trust_own_node(home, running.genesis_validators(), run.settings.deadlines())
        _report(home, realm_path, [running], fresh=False, owner=DEV_KEY, as_json=as_json)
        return
    if not realm_path.startswith("gno.land/r/"):
        raise BadInput(f"invalid --realm-path {realm_path!r}: a realm path starts gno.land/r/")
    if connect.has_chain(home) and not force:
        raise BadInput(f"a chain already exists in {home}: pass --force to bind it to a new node")
    previous = read_remote(home)
    if previous is not None:
        connect.leave(home, previous.chain_id, now=False)  # before a node is made
    keyring = Keyring(home)
    if deployer != DEV_KEY and not keyring.exists(check_name(deployer)):
        raise BadInput(f"--deployer {deployer!r}: no such key in {home}")
    balances = genesis.node_balances(keyring)
    nodes = [running]
    packages = [
        (sources_of("p", "gno4"), gnoland().devnode.RULES_PATH),
        (sources_of("r", "connect4"), realm_path),
    ]
    in_it = packages if in_genesis else []
    creator = genesis.dev_private_key()  # test1's: deploys them, and owns the realm
    try:
        if count == 1:
            running.create(balances, empty_blocks=True, packages=in_it, creator_key=creator)
            running.launch(detach=True)
        else:
            network.create(count, balances, in_it, creator)
            network.start(list(range(count)), detach=True)
            nodes = network.nodes
        for source, path in [] if in_genesis else packages:
            nodes[0].deploy_package(source, path, DEV_MNEMONIC)
        # tm2 proves no state before block 2, which block 3 proves: a home's first
        # command signs for numbers it proves (the deployments above took that long).
        nodes[0].wait(3)
    except BaseException:
        # A chain that never got its realm holds nothing of anyone's: gone, so that
        # the next start makes a whole one instead of running this one again.
        for index in range(len(network.nodes)):
            network.stop(index)
        running.stop()
        shutil.rmtree(folder, ignore_errors=True)
        raise
    left = previous.chain_id if previous else "unbound"
    connect.leave(home, left, now=True)
    write_remote(
        home, Remote(",".join(n.url for n in nodes), gnoland().devnode.CHAIN_ID, realm_path)
    )
    connect.trust_own_node(home, nodes[0].genesis_validators(), run.settings.deadlines())
    owner = DEV_KEY
    if deployer != DEV_KEY:
        _hand_over(home, deployer)
        owner = deployer
    _report(home, realm_path, nodes, fresh=True, owner=owner, as_json=as_json)


def sources_of(kind: str, name: str) -> Path:
    """A package of the Gno sources installed with c4 (``p/c4cli/gno4``, ``r/…``)."""
    folder: Path = gnoland().devnode.gno_sources() / kind / "c4cli" / name
    return folder


def _start_network_again(
    home: Path, network: Any, validators: int | None, only: int | None, as_json: bool
) -> None:
    """The validators of the home's network that are not running, started again (all,
    or ``only``) on their chain, and the home bound to every one's URL."""
    count = len(network.nodes)
    if validators is not None and validators != count:
        raise BadInput(f"--validators {validators}: the network of {home} has {count}")
    if only is not None and only >= count:
        raise BadInput(f"--validator {only}: the network of {home} has validators 0-{count - 1}")
    wanted = list(range(count)) if only is None else [only]
    already = [i for i in wanted if network.running(i) is not None]
    if already == wanted:
        which = "the validators" if only is None else f"validator {only}"
        raise BadInput(f"{which} of {home} already run: c4 node stop first")
    network.start(wanted, detach=True)
    bound = read_remote(home)
    realm_path = bound.realm_path if bound is not None else DEFAULT_REALM_PATH
    write_remote(home, Remote(",".join(network.urls), gnoland().devnode.CHAIN_ID, realm_path))
    connect.trust_own_node(
        home, network.nodes[0].genesis_validators(), current().settings.deadlines()
    )
    started = [network.nodes[i] for i in wanted if i not in already]
    _report(home, realm_path, started, fresh=False, owner=DEV_KEY, as_json=as_json, network=network)


def _report(
    home: Path,
    realm_path: str,
    nodes: list[Any],
    *,
    fresh: bool,
    owner: str,
    as_json: bool,
    network: Any = None,
) -> None:
    """What `c4 node start` started: each gnoland's URL, pid and height."""
    chain_id = gnoland().devnode.CHAIN_ID
    rows = [
        {
            "url": n.url,
            "pid": n.proc.pid if n.proc is not None else 0,
            "height": n.latest_height(),
            "log": str(n.dir / "gnoland.log"),
        }
        for n in nodes
    ]
    if network is not None:
        for row, n in zip(rows, nodes, strict=True):
            row["validator"] = network.nodes.index(n)
    elif len(nodes) > 1:
        for index, row in enumerate(rows):
            row["validator"] = index
    version = gnoland().binaries.checked_version(nodes[0].bin)  # said on stderr when not pinned
    if as_json:
        document: Document = {"chain_id": chain_id, "realm_path": realm_path, "new": fresh}
        document.update(rows[0] if len(rows) == 1 and "validator" not in rows[0] else {})
        if "validator" in rows[0]:
            urls = network.urls if network is not None else [r["url"] for r in rows]
            document["url"] = ",".join(urls)  # the home's, every validator's
            document["validators"] = rows
        emit_json(document)
        return
    for row in rows:
        what = "a new chain" if fresh else f"its chain again (height {row['height']})"
        who = f"validator {row['validator']} " if "validator" in row else ""
        click.echo(
            f"gnoland {version} {who}runs {what} at {row['url']} "
            f"(chain {chain_id}, pid {row['pid']})"
        )
    if fresh or network is None:
        click.echo(f"realm: {realm_path}" + (f", owned by {owner}" if fresh else ""))
    click.echo(f"{home} now uses it; stop it with: c4 node stop --home {home}")


def _hand_over(home: Path, deployer: str) -> None:
    """The realm passed from test1 (who deployed it) to ``deployer``, in its two steps."""
    target = resolve(home, deployer)
    tx = TxOptions()
    steps = [(DEV_KEY, "TransferOwnership", [target]), (deployer, "AcceptOwnership", [])]
    for key, func, args in steps:
        signer = resolve(home, key)

        def build(reader: Reader, a: str = signer, f: str = func, v: list[str] = args) -> list[Msg]:
            return [call_msg(a, reader.realm_path, f, v)]

        submit(home, key, build, tx)


@node.command()
@click.option(
    "--validator",
    "only",
    type=click.IntRange(0),
    default=None,
    help="Stop this validator of the home's network only (0 is the first).",
)
@click.option("--kill", is_flag=True, help="SIGKILL, as a crash, instead of SIGTERM.")
@local_options
def stop(only: int | None, kill: bool, home: Path, as_json: bool) -> None:
    """Stop this home's gnoland; its chain stays in HOME/node for the next start.

    Nothing running is nothing to stop: a line saying so, exit 0.

    \b
    Example:
      c4 node stop
      c4 node stop --validator 1 --kill     # one validator of a network, as a crash
    """
    folder = home / gnoland().devnode.NODE_DIR
    bin_dir, gnoroot = gnoland().binaries.find_gno()
    network = gnoland().network.Network(folder, bin_dir, gnoroot)
    how = "killed" if kill else "stopped"
    if network.exists:
        count = len(network.nodes)
        if only is not None and only >= count:
            raise BadInput(
                f"--validator {only}: the network of {home} has validators 0-{count - 1}"
            )
        wanted = list(range(count)) if only is None else [only]
        stopped = {i: network.stop(i, kill=kill) for i in wanted}
        gone = {i: pid for i, pid in stopped.items() if pid is not None}
        if not gone and not as_json:
            which = "no validator runs" if only is None else f"validator {only} does not run"
            click.echo(f"{which} for {home}: nothing to stop")
            return
        if as_json:
            emit_json({how: [{"validator": i, "pid": pid} for i, pid in gone.items()]})
            return
        for i, pid in gone.items():
            click.echo(f"{how} gnoland validator {i} (pid {pid}); its chain stays in {folder}")
        return
    if only is not None:
        raise BadInput(f"--validator {only}: the node of {home} is not a network of validators")
    pid = gnoland().devnode.running_pid(folder)
    if pid is None:
        # Stopping what is stopped is done already (as systemctl and docker stop say):
        # a clean-up trap after a failed script must not fail too.
        if as_json:
            emit_json({how: None})
        else:
            click.echo(f"no node runs for {home}: nothing to stop")
        return
    gnoland().devnode.stop_pid(folder, pid, kill=kill)
    if as_json:
        emit_json({"stopped": pid})
        return
    click.echo(f"{how} gnoland (pid {pid}); its chain stays in {folder}")


node.add_command(node_info.status)
node.add_command(node_info.logs)
