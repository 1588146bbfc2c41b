"""The fast lane answers a node exactly as click's `c4 query` does, without loading click.

Each command line runs twice against the session's gnoland: as a shell user runs
it (the installed console script, which takes the lane) and through click's group
in this process (CliRunner, which never does). Reads are pinned to a block
(``--height``) where they can be, so the two see the same chain.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from node.twin import REALM_PATH

from support import TEST1, Home

pytestmark = pytest.mark.node


@pytest.fixture(scope="module")
def bound(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home(tmp_path_factory.mktemp("lane") / "home")
    home.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    return home


def both(home: Home, c4_bin: str, argv: list[str], env: dict[str, str] | None = None) -> Any:
    """The lane's run and click's run of ``argv``: (exit code, stdout, stderr) each."""
    full = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="", **(env or {}))
    shell = subprocess.run([c4_bin, *argv], capture_output=True, text=True, env=full, timeout=60)
    clicked = home.run(*argv, env=env)
    return (shell.returncode, shell.stdout, shell.stderr), (
        clicked.exit_code,
        clicked.stdout,
        clicked.stderr,
    )


def cases(height: int) -> list[list[str]]:
    at = ["--height", str(height)]
    return [
        ["query", "vm/qrender", "--data", f"{REALM_PATH}:", *at],
        ["query", "vm/qrender", f"--data={REALM_PATH}:", *at, "--json"],
        ["query", "vm/qeval", "--data", f"{REALM_PATH}.ActiveJSON(0, 5)", *at],
        ["query", "--json", "vm/qfuncs", "--data", REALM_PATH, *at],
        ["query", f"bank/balances/{TEST1}", *at, "--json"],
        ["query", f"auth/accounts/{TEST1}", *at],
        ["query", "auth/gasprice", "--json"],
        # The node's refusals, worded by the same code both ways.
        ["query", "vm/qeval", "--data", f"{REALM_PATH}.NoSuchFunc()", *at],
        ["query", "vm/qeval", "--data", f"{REALM_PATH}.NoSuchFunc()", *at, "--json"],
        ["query", "vm/qrender", "--data", f"{REALM_PATH}:", "--height", "999999999"],
        ["query", "vm/qfile", "--data", "gno.land/r/nobody/here", *at],
    ]


def test_the_lane_answers_as_click_does(gno_node: Any, bound: Home, c4_bin: str) -> None:
    height = int(gno_node.rpc("status")["sync_info"]["latest_block_height"]) - 1
    for argv in cases(height):
        lane, clicked = both(bound, c4_bin, argv)
        if argv[1] == "auth/gasprice" and lane != clicked:
            lane, clicked = both(bound, c4_bin, argv)  # a block between the two reads
        assert lane == clicked, argv


def test_a_node_that_does_not_answer_reads_the_same_both_ways(
    bound: Home, c4_bin: str, tmp_path: Path
) -> None:
    argv = ["query", "vm/qrender", "--data", f"{REALM_PATH}:"]
    dead = {"C4_REMOTE": "http://127.0.0.1:9"}
    lane, clicked = both(bound, c4_bin, argv, dead)
    assert lane == clicked and lane[0] == 4 and lane[2].startswith("Error: ")
    lane, clicked = both(bound, c4_bin, [*argv, "--json"], dead)
    assert lane == clicked and lane[0] == 4 and lane[1].startswith('{"ok": false')
    unbound = Home(tmp_path / "nothing")  # no chain here, no node named
    lane, clicked = both(unbound, c4_bin, argv)
    assert lane == clicked and lane[0] == 3


def test_a_query_of_a_node_loads_no_click(bound: Home, c4_bin: str) -> None:
    env = dict(os.environ, C4_HOME=str(bound.path), C4_PASSWORD="")
    python = os.path.join(os.path.dirname(c4_bin), "python")
    query = ["query", "vm/qrender", "--data", f"{REALM_PATH}:"]
    proc = subprocess.run(
        [python, "-X", "importtime", c4_bin, *query],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("height: ")
    loaded = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()]
    assert "c4cli.chain.remote" in loaded  # the measurement works
    assert not [name for name in loaded if name.split(".")[0] in ("click", "rich")]
