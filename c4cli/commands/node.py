"""c4 node start|stop: a real gnoland for this home, to try c4 on gno's own GnoVM."""

from __future__ import annotations

import shutil
import time as wallclock
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from c4cli.chain import crypto
from c4cli.chain.blocks import DEFAULT_REALM_PATH
from c4cli.chain.interface import Reader
from c4cli.chain.tx import Msg, call_msg
from c4cli.client import connect
from c4cli.commands.chain import PREMINE_UGNOT
from c4cli.commands.options import emit_json, local_options
from c4cli.commands.transact import resolve, submit
from c4cli.errors import BadInput, Refused
from c4cli.home.config import Remote, read_remote, write_remote
from c4cli.home.journal import JOURNAL
from c4cli.home.keys import DEV_KEY, DEV_MNEMONIC, Keyring, check_name


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
    "--force",
    is_flag=True,
    help="Bind a home that already has a chain (its journal is kept aside).",
)
@local_options
def start(realm_path: str, deployer: str, force: bool, home: Path, as_json: bool) -> None:
    """Start gnoland for this home and bind the home to it.

    A new node gets a genesis that gives every key of the home 10,000,000 GNOT
    (test1, the public dev key, is added if missing), and the realm in gno/ and
    its rules package, deployed with gnokey by test1; with --deployer NAME, test1
    then hands the realm over (TransferOwnership, AcceptOwnership signed by NAME).
    A node stopped with `c4 node stop` starts again on its own chain, from where
    it was. gnoland runs in the background, its data and log in HOME/node.

    \b
    Example:
      c4 node start
      c4 node start --deployer owner --json
    """
    folder = home / _devnode().NODE_DIR
    pid = _devnode().running_pid(folder)
    if pid is not None:
        raise BadInput(f"a node already runs for {home} (pid {pid}): c4 node stop first")
    bin_dir, gnoroot = _devnode().find_gno()
    sources = _devnode().gno_sources()
    running = _devnode().DevNode(folder, bin_dir, gnoroot)
    bound = read_remote(home)
    if running.started_before:
        if bound is not None:
            realm_path = bound.realm_path
        running.launch(detach=True)
        fresh = False
    else:
        if not realm_path.startswith("gno.land/r/"):
            raise BadInput(f"invalid --realm-path {realm_path!r}: a realm path starts gno.land/r/")
        if connect.has_chain(home) and not force:
            raise BadInput(
                f"a chain already exists in {home}: pass --force to bind it to a new node"
            )
        keyring = Keyring(home)
        if deployer != DEV_KEY and not keyring.exists(check_name(deployer)):
            raise BadInput(f"--deployer {deployer!r}: no such key in {home}")
        if not keyring.exists(DEV_KEY):
            keyring.add(DEV_KEY, crypto.derive_private_key(DEV_MNEMONIC), "")
        balances = {info.address: PREMINE_UGNOT for info in keyring.list()}
        try:
            running.create(balances, empty_blocks=True)
            running.launch(detach=True)
            running.deploy_package(
                sources / "p" / "c4cli" / "gno4", _devnode().RULES_PATH, DEV_MNEMONIC
            )
            running.deploy_package(sources / "r" / "c4cli" / "connect4", realm_path, DEV_MNEMONIC)
        except BaseException:
            # A chain that never got its realm holds nothing of anyone's: gone, so that
            # the next start makes a whole one instead of running this one again.
            running.stop()
            shutil.rmtree(folder, ignore_errors=True)
            raise
        _set_aside_journal(home)
        fresh = True
    write_remote(home, Remote(running.url, _devnode().CHAIN_ID, realm_path))
    owner = DEV_KEY
    if fresh and deployer != DEV_KEY:
        _hand_over(home, deployer)
        owner = deployer
    height = running.latest_height()
    pid = running.proc.pid if running.proc is not None else 0
    if as_json:
        emit_json(
            {
                "url": running.url,
                "chain_id": _devnode().CHAIN_ID,
                "realm_path": realm_path,
                "pid": pid,
                "height": height,
                "new": fresh,
                "log": str(folder / "gnoland.log"),
            }
        )
        return
    what = "a new chain" if fresh else f"its chain again (height {height})"
    click.echo(
        f"gnoland {_devnode().GNO_VERSION} runs {what} at {running.url} "
        f"(chain {_devnode().CHAIN_ID}, pid {pid})"
    )
    click.echo(f"realm: {realm_path}" + (f", owned by {owner}" if fresh else ""))
    click.echo(f"{home} now uses it; stop it with: c4 node stop --home {home}")


def _hand_over(home: Path, deployer: str) -> None:
    """The realm passed from test1 (who deployed it) to ``deployer``, in its two steps."""
    target = resolve(home, deployer)
    opts: dict[str, Any] = {"password_stdin": False, "gas_fee": None, "gas_wanted": None}
    opts["memo"] = ""
    steps = [(DEV_KEY, "TransferOwnership", [target]), (deployer, "AcceptOwnership", [])]
    for key, func, args in steps:
        signer = resolve(home, key)

        def build(reader: Reader, a: str = signer, f: str = func, v: list[str] = args) -> list[Msg]:
            return [call_msg(a, reader.realm_path, f, v)]

        submit(home, key, build, opts)


def _set_aside_journal(home: Path) -> None:
    """A journal of another chain would name heights and pending transactions this one
    never had: it is renamed, never deleted (a pending entry may still land there)."""
    journal = home / JOURNAL
    if journal.exists():
        aside = home / f"journal-{int(wallclock.time())}.jsonl"
        journal.rename(aside)
        click.echo(f"note: the journal of the previous chain is kept as {aside}", err=True)


@node.command()
@local_options
def stop(home: Path, as_json: bool) -> None:
    """Stop this home's gnoland; its chain stays in HOME/node for the next start.

    \b
    Example:
      c4 node stop
    """
    folder = home / _devnode().NODE_DIR
    pid = _devnode().running_pid(folder)
    if pid is None:
        raise Refused(f"no node runs for {home} (c4 node start starts one)")
    _devnode().stop_pid(folder, pid)
    if as_json:
        emit_json({"stopped": pid})
        return
    click.echo(f"stopped gnoland (pid {pid}); its chain stays in {folder}")


def _devnode() -> ModuleType:
    """Gno's node (subprocess, urllib): loaded by `c4 node`, not by `c4 --help`, which
    loads this module."""
    from c4cli.chain import devnode

    return devnode
