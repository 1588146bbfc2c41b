"""The fast lanes take only the plain forms of `c4 query PATH` and `c4 play` and leave
the rest to click.

What they answer is compared with click's answers on a real node in
tests/real_gnoland/test_lane_node.py; here, what they take and what they decline.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lanes import alike_games, both, lane_run, masked, new_game, refusals_read_alike

from c4cli.cli import lanes
from c4cli.commands.game import play
from c4cli.commands.query import query
from c4cli.commands.txopts import TxOptions
from support import Home

QRENDER = ["query", "vm/qrender", "--data", "gno.land/r/samcrew/connect4:"]
PLAY = ["play", "1", "4", "alice"]


@pytest.mark.parametrize(
    ("argv", "args", "options"),
    [
        (QRENDER, ["vm/qrender"], {"--data": "gno.land/r/samcrew/connect4:"}),
        (["query", "vm/qrender", "--data=x:"], ["vm/qrender"], {"--data": "x:"}),
        (
            ["query", "--json", "vm/qeval", "--data", "gno.land/r/x.F()"],
            ["vm/qeval"],
            {"--json": "", "--data": "gno.land/r/x.F()"},
        ),
        (
            ["query", "vm/qfuncs", "--data", "r", "--height", "12", "--home", "h"],
            ["vm/qfuncs"],
            {"--data": "r", "--height": "12", "--home": "h"},
        ),
        (["query", "auth/gasprice"], ["auth/gasprice"], {}),
        (PLAY, ["1", "4", "alice"], {}),
        (["play", "--move", "3", "1", "4", "alice", "--json"], ["1", "4", "alice"], {}),
        (["play", "1", "4", "--move=0", "alice"], ["1", "4", "alice"], {}),
    ],
)
def test_a_plain_form_is_read_as_click_reads_it(
    argv: list[str], args: list[str], options: dict[str, str]
) -> None:
    nargs = range(1, 3) if argv[0] == "query" else range(3, 4)
    form = lanes.plain(argv, argv[0], nargs, ("--data", "--height", "--home", "--move"))
    assert form is not None and form.args == args
    assert {k: v for k, v in form.options.items() if k != "--move" and k != "--json"} == {
        k: v for k, v in options.items() if k != "--json"
    }


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["query"],
        ["--home", "h", *QRENDER],  # a group option: click's
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
        [*QRENDER, "--offset", "-1"],
        [*QRENDER, "--limit", " 5"],
        [*QRENDER, "--remote", "http://127.0.0.1:1"],
        [*QRENDER, "a", "b"],  # a third argument
        [*QRENDER, "--"],
        ["query", "vm/qrender", "--data", "gno.land/r/\udcff"],  # not UTF-8
    ],
)
def test_the_query_lane_declines_the_rest(argv: list[str]) -> None:
    assert lanes.query(argv) is None


def test_the_query_lane_reads_what_click_would_by_default() -> None:
    with query.make_context("query", ["active"]) as ctx:
        given = dict(ctx.params)
    assert {f"--{name}": str(given[name]) for name in ("height", "offset", "limit")} == (
        lanes.NUMBERS
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "1", "4"],  # no key: click words it
        [*PLAY, "extra"],
        ["play", "1", "best", "alice"],  # the solver: click's
        [*PLAY, "--move", "-1"],
        [*PLAY, "--move", "x"],
        [*PLAY, "--gas-fee", "1ugnot"],  # every transaction option: click's
        [*PLAY, "--fee-cap", "1gnot"],
        [*PLAY, "--simulate", "only"],
        [*PLAY, "--generate-only"],
        [*PLAY, "--master", "bob"],
        [*PLAY, "--password-stdin"],
        [*PLAY, "--remote", "http://127.0.0.1:1"],
        [*PLAY, "--help"],
        ["play", "-1", "4", "alice"],
        ["play", "1", "4", "\udcff"],
    ],
)
def test_the_play_lane_declines_the_rest(argv: list[str]) -> None:
    assert lanes.play(argv) is None


def test_the_play_lane_sends_what_click_would_by_default() -> None:
    """Every option a plain `c4 play` leaves out is passed as click's command passes it."""
    with play.make_context("play", ["1", "4", "alice"]) as ctx:
        given = dict(ctx.params)
    # One set of defaults (TxOptions'), which click's options take theirs from.
    assert TxOptions.taken_from(given) == TxOptions()
    assert sorted(given) == ["column", "game_id", "home", "key", "move"]


def test_a_home_that_is_a_file_is_left_to_click(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert lanes.query([*QRENDER, "--home", str(tmp_path / "file")]) is None


@pytest.mark.parametrize(
    "lane",
    ["cli import lanes", "commands import query_paths, realm_query", "commands import calls"],
)
def test_a_lane_loads_no_click(lane: str) -> None:
    """What a lane imports, its command imports: click and rich are not among it."""
    code = (
        "import sys\n"
        f"from c4cli.{lane}\n"
        "from c4cli.client import connect\n"
        "from c4cli.node.spec import NodeSpec\n"
        "connect._sender()(NodeSpec('http://127.0.0.1:9', 'gno.land/r/x'))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'rich')))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.strip() == "[]"


def test_the_query_lane_answers_a_local_chain_as_click_does(chain: Home, c4_bin: str) -> None:
    game, first, _ = new_game(chain)
    chain.ok("play", game, "4", first)
    realm = "gno.land/r/samcrew/connect4"
    for argv in (
        ["query", "game", game],
        ["query", "game", game, "--json"],
        ["query", "active"],  # the defaults of --offset and --limit
        ["query", "active", "--offset", "0", "--limit", "1"],
        ["query", "leaders"],
        ["query", "render", f"{game}"],
        ["query", "render", "--json"],
        ["query", "fees", "--json"],
        ["query", "balance", "alice"],
        ["query", "balance", "bob", "--json"],
        ["query", "account", "carol"],
        ["query", "vm/qeval", "--data", f"{realm}.GameJSON({game})"],
        ["query", "vm/qrender", f"--data={realm}:", "--json"],
        ["query", "bank/balances/g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5", "--height", "2"],
        # Refusals, worded by the same code both ways.
        ["query", "game"],
        ["query", "game", "x1"],
        ["query", "game", "1", "--height", "1"],
        ["query", "balance", "nobody"],
        ["query", "vm/qeval"],
        ["query", "vm/qeval", "--data", f"{realm}.NoSuchFunc()", "--json"],
        ["query", "vm/qfile", "--data", realm],
        ["query", "bank/balances/g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5", "--height", "999"],
        ["query", "nothing"],
    ):
        lane, clicked = both(chain, c4_bin, argv)
        assert lane == clicked, argv


def test_a_query_of_a_home_without_a_chain_fails_alike(home: Home, c4_bin: str) -> None:
    lane, clicked = both(home, c4_bin, ["query", "game", "1"])
    assert lane == clicked and lane[0] == 3


def test_the_play_lane_moves_on_a_local_chain_as_click_does(chain: Home, c4_bin: str) -> None:
    (a, first, second), b = alike_games(chain)
    before = chain.log_bytes()
    refusals_read_alike(chain, c4_bin, a, first, second)
    assert chain.log_bytes() == before  # refused: nothing appended either way
    for argv in (["play", "{}", "4", first, "--json"], ["play", "{}", "3", "--move", "1", second]):
        lane = lane_run(chain, c4_bin, [arg.format(a) for arg in argv])
        clicked = chain.run(*[arg.format(b) for arg in argv])
        assert lane[0] == clicked.exit_code == 0, lane
        assert masked(lane[1]) == masked(clicked.stdout) and lane[2] == clicked.stderr == ""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_lanes_append_says_the_move_was_recorded(
    chain: Home, c4_bin: str, signum: int
) -> None:
    """The lane ends a signal as click's group does: the append finishes, then one line
    says the move is recorded (never "nothing was recorded")."""
    game, first, _ = new_game(chain)
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="", C4_FAULT="pause-mid-append")
    log = chain.path / "chain" / "blocks.toml"
    size = log.stat().st_size
    proc = subprocess.Popen(
        [c4_bin, "play", game, "4", first],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while log.stat().st_size == size and time.monotonic() < deadline:
        time.sleep(0.01)  # half the block is written: the append is under way
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    name = "interrupted" if signum == signal.SIGINT else "terminated"
    assert proc.returncode == 128 + signum, err
    assert err.startswith(f"Error: {name}: the transaction was recorded (height "), err
    assert chain.game(int(game))["moves"] == 1
