"""Every command's --json on the local chain reads as docs/c4.schema.json says.

tests/node/test_json_schema_node.py walks the same commands on a node.
"""

from __future__ import annotations

from pathlib import Path

from json_walk import Walk, commands, validate, walk

from support import GENESIS, Home, leaf_commands

# Documents the walk does not print on the local chain; the node tests validate them
# (`c4 serve`'s first line: tests/node/test_serve_node.py, which runs it as a user does).
ON_A_NODE = {"node start", "init --remote", "serve"}


def test_every_command_prints_what_the_schema_says_on_the_local_chain(home: Home) -> None:
    c4 = Walk(home)
    c4("keys add", "alice")
    c4("keys add", "bob")
    c4("init", "--clock", "manual", "--genesis-time", GENESIS)
    for _stage in walk(c4, "gno.land/r/samcrew/connect4", local=True):
        pass
    missing = commands() - c4.seen - ON_A_NODE - {"demo"}
    assert not missing, f"walked none of: {sorted(missing)}"


def test_the_demo_prints_what_the_schema_says(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "c4cli", "demo", "--json", "--home", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    validate("demo", json.loads(proc.stdout))


def test_the_schema_names_every_command() -> None:
    named = leaf_commands()
    named.discard("query")  # its paths and named queries, each an entry of its own
    named.discard("completion")  # a shell's script, never JSON
    assert named <= commands(), sorted(named - commands())
    assert {"query game", "query PATH"} <= commands()
