"""`c4 node start|stop`: gno's own node for a home, run as a user runs it.

Each test starts its own gnoland through the installed `c4` (a block a second,
as on gno.land), and stops it however the test ends.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from json_walk import validate

from c4cli.escape import printable
from c4cli.wire import crypto


def c4(
    c4_bin: str, home: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [c4_bin, *args],
        env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def stopper(c4_bin: str, gno_env: dict[str, str]) -> Iterator[list[Path]]:
    """Homes whose node is stopped at the end of the test, whatever happened."""
    homes: list[Path] = []
    yield homes
    for home in homes:
        c4(c4_bin, home, gno_env, "node", "stop")


def _rpc(url: str, method: str, **params: str) -> Any:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    with urllib.request.urlopen(f"{url}/{method}?{query}", timeout=10) as answer:
        return json.loads(answer.read())["result"]


def test_node_start_binds_the_home_and_stop_keeps_the_chain(
    c4_bin: str, gno_env: dict[str, str], tmp_path: Path, stopper: list[Path]
) -> None:
    home = tmp_path / "home"
    assert c4(c4_bin, home, gno_env, "keys", "add", "alice").returncode == 0
    stopper.append(home)
    started = c4(c4_bin, home, gno_env, "node", "start", "--json")
    assert started.returncode == 0, started.stderr
    doc = json.loads(started.stdout)
    validate("node start", doc)  # docs/c4.schema.json
    assert doc["new"] and doc["realm_path"] == "gno.land/r/samcrew/connect4"
    assert doc["url"].startswith("http://127.0.0.1:")
    config = (home / "config.toml").read_text()
    assert doc["url"] in config  # the home is bound to it
    again = c4(c4_bin, home, gno_env, "node", "start")
    assert again.returncode == 2 and "a node already runs for" in again.stderr
    # alice and test1 were funded at genesis; test1 owns the realm it deployed.
    fees = json.loads(c4(c4_bin, home, gno_env, "query", "fees", "--json").stdout)
    test1 = json.loads(c4(c4_bin, home, gno_env, "keys", "show", "test1", "--json").stdout)
    assert fees["owner"] == test1["address"]
    offer = c4(c4_bin, home, gno_env, "offer", "--stake", "2gnot", "alice", "--json")
    assert offer.returncode == 0, offer.stderr
    # c4 trust: the set the home trusts, its fingerprint the validators hash every
    # header it signs names (compared with the node's own header here).
    trusted = json.loads(c4(c4_bin, home, gno_env, "trust", "--json").stdout)
    validate("trust", trusted)
    height = json.loads(offer.stdout)["height"]
    header = _rpc(doc["url"], "block", height=str(height))["block"]["header"]
    assert trusted["fingerprint"] == base64.b64decode(header["validators_hash"]).hex().upper()
    assert trusted["source"] == "c4 node start" and trusted["height"] >= 1
    assert [v["power"] for v in trusted["validators"]] == [10]
    stopped = c4(c4_bin, home, gno_env, "node", "stop")
    assert stopped.returncode == 0 and stopped.stdout.startswith("stopped gnoland (pid ")
    down = c4(c4_bin, home, gno_env, "lobby")
    assert down.returncode == 4 and down.stderr.count("\n") == 1
    assert down.stderr.endswith("; this home's node is not running: `c4 node start` starts it\n")
    none = c4(c4_bin, home, gno_env, "node", "stop")  # stopping what is stopped: done
    assert (none.returncode, none.stdout) == (0, f"no node runs for {home}: nothing to stop\n")
    status = json.loads(c4(c4_bin, home, gno_env, "node", "status", "--json").stdout)
    validate("node status", status)
    assert status["running"] == 0 and status["validators"][0]["url"] == doc["url"]
    port = int(doc["url"].rsplit(":", 1)[1])
    with socket.socket() as squatter:  # another process on the node's port meanwhile
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        taken = c4(c4_bin, home, gno_env, "node", "start")
    assert taken.returncode == 4 and taken.stderr == (
        f"Error: port {port} of 127.0.0.1 is taken by another process: the node keeps its "
        f"URL {doc['url']} across a restart, so free the port and run c4 node start again\n"
    )
    # Started again: the same chain, where it was (the offer is still there), at the
    # same URL, so a script that kept it goes on.
    restarted = json.loads(c4(c4_bin, home, gno_env, "node", "start", "--json").stdout)
    assert not restarted["new"] and restarted["height"] >= json.loads(offer.stdout)["height"]
    assert restarted["url"] == doc["url"]
    status = json.loads(c4(c4_bin, home, gno_env, "node", "status", "--json").stdout)
    (row,) = status["validators"]
    assert status["running"] == 1 and row["pid"] == restarted["pid"] and row["height"] >= 1
    text = c4(c4_bin, home, gno_env, "node", "status").stdout.splitlines()
    assert text[0] == (
        f"gnoland for {home}: 1 of 1 running, chain dev, realm gno.land/r/samcrew/connect4"
    )
    log = home / "node" / "gnoland.log"
    with log.open("a") as handle:  # gnoland's red ERROR, and a control character of its line
        handle.write("2026-12-04T00:00:00Z\t\x1b[31mERROR\x1b[0m\tsaid \x1b]0;title\x07\n")
    logged = c4(c4_bin, home, gno_env, "node", "logs")
    text = re.sub("\x1b\\[[0-9;]*m", "", log.read_text(errors="replace"))
    assert logged.returncode == 0
    assert logged.stdout == printable(text, lines=True).rstrip("\n") + "\n"
    assert "\tERROR\tsaid \\x1b]0;title\\x07\n" in logged.stdout  # issue 48: no colour codes
    shown = c4(c4_bin, home, gno_env, "show", "1")
    assert shown.returncode == 0 and shown.stdout.startswith("Game 1: open, 0 moves\n")


def test_node_start_leaves_a_local_chain_alone_without_force(
    c4_bin: str, gno_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    assert c4(c4_bin, home, gno_env, "init").returncode == 0
    refused = c4(c4_bin, home, gno_env, "node", "start")
    assert refused.returncode == 2 and "pass --force" in refused.stderr
    assert not (home / "node").exists() and not (home / "config.toml").exists()


def test_the_ci_recipe_on_a_node_started_by_c4(
    c4_bin: str, gno_env: dict[str, str], tmp_path: Path, stopper: list[Path]
) -> None:
    """The README's CI recipe with its init line made `c4 node start --deployer owner`:
    the four endings and their payouts on gno's own GnoVM, the timeout in real time."""
    from recipe import INIT_LINE, ci_recipe, run_recipe

    script = ci_recipe().replace(INIT_LINE, "c4 node start --deployer owner >/dev/null")
    secrets = {f"{name}_MNEMONIC": crypto.new_mnemonic() for name in ("ALICE", "BOB", "OWNER")}
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    try:
        # mktemp -d makes the script's home under TMPDIR, where the node is found to stop.
        proc = run_recipe(script, c4_bin, {**secrets, **gno_env, "TMPDIR": str(scratch)}, tmp_path)
    finally:
        stopper.extend(scratch.iterdir())
    assert proc.returncode == 0, proc.stderr
    owner = crypto.address_of(
        crypto.public_key(crypto.derive_private_key(secrets["OWNER_MNEMONIC"]))
    )
    lines = proc.stdout.splitlines()
    assert lines[0] == "ClaimTimeout" and "OK!" in lines
    assert lines[-1] == f"fees withdrawn: 0.3 GNOT to owner ({owner})"


def test_node_stop_never_signals_a_process_that_is_not_the_node(
    c4_bin: str, tmp_path: Path
) -> None:
    """A pid file left behind names a pid the system may have given to another
    process since: that process is left alone."""
    home = tmp_path / "home"
    (home / "node").mkdir(parents=True)
    (home / "node" / "gnoland.pid").write_text(f"{os.getpid()}\n")  # this test's own pid
    result = c4(c4_bin, home, {}, "node", "stop")
    assert result.returncode == 0 and "no node runs for" in result.stdout
