"""The fast lane takes only the plain forms of `c4 query PATH` and leaves the rest to click.

What it answers is compared with click's answers on a real node in
tests/node/test_lane_node.py; here, what it takes and what it declines.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from c4cli.commands import lane
from support import Home

QRENDER = ["query", "vm/qrender", "--data", "gno.land/r/samcrew/connect4:"]


@pytest.mark.parametrize(
    "argv",
    [
        QRENDER,
        ["query", "vm/qrender", "--data=gno.land/r/samcrew/connect4:"],
        ["query", "--json", "vm/qeval", "--data", "gno.land/r/x.F()"],
        ["query", "vm/qfuncs", "--data", "gno.land/r/x", "--height", "12", "--home", "h"],
        ["query", "auth/gasprice"],
        ["query", "bank/balances/g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5", "--height=0"],
        ["query", "auth/accounts/g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5", "--json"],
    ],
)
def test_the_lane_takes_the_plain_forms(argv: list[str]) -> None:
    options = lane._parse(argv)
    assert options is not None and options["what"] == argv[1 + (argv[1] == "--json")]


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["query"],
        ["--home", "h", *QRENDER],  # a group option: click's
        ["play", "1", "4", "alice"],
        ["query", "game", "1"],  # the realm's named queries: click's
        ["query", "balance", "alice"],
        ["query", "vm/qrender"],  # no --data: click words the refusal
        ["query", "vm/qrender", "--data"],
        ["query", "vm/qrender", "--data", ""],
        ["query", "vm/qrender", "--data", "--json"],  # a value like an option
        [*QRENDER, "--help"],
        [*QRENDER, "-h"],
        [*QRENDER, "--json", "--json"],  # an option twice
        [*QRENDER, "--data", "other"],
        [*QRENDER, "--height", "-1"],
        [*QRENDER, "--height", "+1"],  # click's int reads it; the lane leaves it
        [*QRENDER, "--height", "1e3"],
        [*QRENDER, "--offset", "1"],  # click's option, not the lane's
        [*QRENDER, "--remote", "http://127.0.0.1:1"],
        [*QRENDER, "extra"],  # a second argument
        [*QRENDER, "--"],
        ["query", "vm/qrender", "--data", "gno.land/r/\udcff"],  # not UTF-8
    ],
)
def test_the_lane_declines_the_rest(argv: list[str]) -> None:
    assert lane._parse(argv) is None


def test_a_home_with_a_local_chain_is_left_to_click(home: Home) -> None:
    home.ok("init")
    assert lane.run([*QRENDER, "--home", str(home.path)]) is None


def test_a_home_that_is_a_file_is_left_to_click(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert lane.run([*QRENDER, "--home", str(tmp_path / "file")]) is None


def test_the_lane_loads_no_click() -> None:
    """What the lane imports, a query of a node imports: click is not among it."""
    code = (
        "import sys\n"
        "from c4cli.commands import ending, lane\n"
        "from c4cli.client import connect\n"
        "connect._node_chain('http://127.0.0.1:9', realm_path='gno.land/r/x', chain_id=None)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'rich')))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.strip() == "[]"
