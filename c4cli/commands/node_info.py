"""c4 node status|logs: what the home's gnoland is doing, as gnodev and anvil show it."""

from __future__ import annotations

import os
import re
import time as wallclock
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import click

from c4cli.commands.ending import echo, emit_json
from c4cli.commands.options import local_options
from c4cli.errors import BadInput, Unreachable
from c4cli.escape import printable
from c4cli.home.config import read_remote

LOG = "gnoland.log"
FOLLOW_EVERY = 0.2  # seconds between two looks at a followed log


class Gnoland(NamedTuple):
    """gno's processes: where its binaries are and their version, one node, a network
    of validators. Loaded (subprocess, urllib, json, shutil) by `c4 node`, not by `c4
    --help`, which loads the node commands."""

    binaries: ModuleType
    devnode: ModuleType
    network: ModuleType


def gnoland() -> Gnoland:
    from c4cli.gnoland import binaries, devnode, network

    return Gnoland(binaries, devnode, network)


def _validators(home: Path) -> list[tuple[int | None, Any]]:
    """The home's gnoland(s): (validator index or None for a lone node, its DevNode)."""
    devnode = gnoland().devnode
    folder = home / devnode.NODE_DIR
    none = Path()  # status and logs run no binary of gno's
    net = gnoland().network.Network(folder, none, none)
    if net.exists:
        return list(enumerate(net.nodes))
    lone = devnode.DevNode(folder, none, none)
    return [(None, lone)] if lone.started_before else []


@click.command()
@local_options
def status(home: Path, as_json: bool) -> None:
    """Whether this home's gnoland runs: each validator's URL, pid, height and log.

    \b
    Example:
      c4 node status
      c4 node status --json | jq .running
    """
    devnode = gnoland().devnode
    rows = []
    for index, node in _validators(home):
        pid = devnode.running_pid(node.dir)
        height = None
        if pid is not None:
            try:
                height = node.latest_height(timeout=2)
            except Unreachable:
                height = None  # starting, or stuck: the pid says it runs
        rows.append(
            {
                "validator": index or 0,
                "url": node.url,
                "pid": pid,
                "height": height,
                "log": str(node.dir / LOG),
            }
        )
    bound = read_remote(home)
    document = {
        "home": str(home),
        "chain_id": devnode.CHAIN_ID if rows else None,
        "realm_path": bound.realm_path if rows and bound is not None else None,
        "running": sum(1 for row in rows if row["pid"] is not None),
        "validators": rows,
    }
    if as_json:
        emit_json(document)
        return
    if not rows:
        echo(f"no node for {home}: c4 node start makes one")
        return
    echo(
        f"gnoland for {home}: {document['running']} of {len(rows)} running, "
        f"chain {document['chain_id']}, realm {document['realm_path']}"
    )
    for row in rows:
        state = (
            f"pid {row['pid']}, height {row['height'] if row['height'] is not None else '?'}"
            if row["pid"] is not None
            else "stopped"
        )
        echo(f"  validator {row['validator']}  {row['url']}  {state}  log {row['log']}")


@click.command()
@click.option("-f", "--follow", is_flag=True, help="Keep printing what gnoland writes.")
@click.option(
    "--validator",
    "only",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Which validator's log, in a network.",
)
@local_options
def logs(follow: bool, only: int, home: Path, as_json: bool) -> None:
    """Print gnoland's log for this home (control characters escaped); -f follows it.

    \b
    Example:
      c4 node logs | tail -20
      c4 node logs -f --validator 1
    """
    found = dict(_validators(home))
    if not found:
        raise BadInput(f"no node for {home}: c4 node start makes one")
    if None in found and only:
        raise BadInput(f"--validator {only}: the node of {home} is not a network of validators")
    node = found.get(None if None in found else only)
    if node is None:
        raise BadInput(
            f"--validator {only}: the network of {home} has validators 0-{len(found) - 1}"
        )
    path = node.dir / LOG
    try:
        log = path.open("rb")
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror}") from None
    with log:
        _print(log.read(), as_json)
        while follow:
            wallclock.sleep(FOLLOW_EVERY)
            if os.fstat(log.fileno()).st_size < log.tell():
                log.seek(0)  # the log was cut (a new chain): from its start again
            _print(log.read(), as_json)


# gnoland colours its levels (ERROR in red) with SGR sequences: dropped, as gnoland's own
# words; any other control character in a line (chain text may be logged) is escaped.
_COLOUR = re.compile("\x1b\\[[0-9;]*m")


def _print(data: bytes, as_json: bool) -> None:
    for line in data.decode("utf-8", "replace").splitlines():
        line = _COLOUR.sub("", line)
        if as_json:
            emit_json({"line": line})
        else:
            echo(printable(line, lines=True))  # tabs kept; no line holds a newline
