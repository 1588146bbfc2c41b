"""The fast lanes answer a node exactly as click's `c4 query` and `c4 play` do,
without loading click.

Each command line runs twice against the session's gnoland: as a shell user runs
it (the installed console script, which takes the lane) and through click's group
in this process (CliRunner, which never does). Reads are pinned to a block
(``--height``) where they can be, so the two see the same chain; a move is made
in two games that stand alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from lanes import alike_games, both, lane_run, masked, new_game, refusals_read_alike
from real_gnoland.proxy import interrupted_while_held, proxy_for
from real_gnoland.test_remote import bound_home
from real_gnoland.twin import REALM_PATH

from c4cli.home.journal import entries as journal_entries
from support import TEST1, Home

pytestmark = pytest.mark.node


@pytest.fixture(scope="module")
def bound(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home(tmp_path_factory.mktemp("lane") / "home")
    home.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    return home


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
        ["query", "leaders"],  # the realm's named queries, at the last block
        ["query", "fees", "--json"],
        ["query", "balance", TEST1, *at],
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
        if "--height" not in argv and lane != clicked:
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


def test_a_query_of_a_node_loads_no_click_and_nothing_that_signs(bound: Home, c4_bin: str) -> None:
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
    assert "c4cli.node.reader" in loaded  # the measurement works
    assert not [name for name in loaded if name.split(".")[0] in ("click", "rich")]
    # A query opens the node's reader (connect.open_reader): the sending half, the
    # signing and the keyring stay unloaded.
    signing = (
        "c4cli.node.sending.sender",
        "c4cli.node.sending.delivery",
        "c4cli.wire.tx",
        "c4cli.wire.crypto",
    )
    signing += ("c4cli.home.keys",)
    # Nor the light client: a query proves no block (its ed25519 is a send's, a view's).
    signing += ("c4cli.node.light.verify", "c4cli.node.light.headers")
    assert not [name for name in loaded if name in signing or name.startswith("coincurve")]


PLAY_PATH = "gno.land/r/c4cli/lane/connect4"  # games of its own, apart from the differential's


@pytest.fixture(scope="module")
def players(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    return bound_home(gno_node, PLAY_PATH, tmp_path_factory.mktemp("lane-play"))


def test_a_move_through_the_lane_reads_as_clicks(players: Home, c4_bin: str) -> None:
    (a, first, second), b = alike_games(players)
    # Refusals, simulated and so never sent: the same game both ways, the same lines.
    refusals_read_alike(players, c4_bin, a, first, second)
    # A move each way, in two games that stand alike: the same receipt but for the numbers.
    lane = lane_run(players, c4_bin, ["play", a, "4", first, "--json"])
    clicked = players.run("play", b, "4", first, "--json")
    assert lane[0] == clicked.exit_code == 0, lane
    mine, theirs = json.loads(lane[1]), json.loads(clicked.stdout)
    assert sorted(mine) == sorted(theirs) and mine["func"] == "Play"
    assert mine["game"]["moves"] == theirs["game"]["moves"] == 1
    assert mine["keys"] == theirs["keys"]
    lane = lane_run(players, c4_bin, ["play", a, "3", "--move", "1", second])
    clicked = players.run("play", b, "3", "--move", "1", second)
    assert lane[0] == clicked.exit_code == 0, lane
    assert masked(lane[1]) == masked(clicked.stdout)
    assert "move 2, " in lane[1] and lane[2] == clicked.stderr == ""


def test_a_move_is_three_requests_as_gnokeys_and_reads_its_game_back_with_its_block(
    gno_node: Any, players: Home, c4_bin: str
) -> None:
    """A move on a node: its first read (the game's move count, the account's numbers
    and the gas price, with the status that checks the chain), the simulation (of a
    placeholder, with the proof of the account's numbers and the commit of the block
    that proves them riding: nothing is signed before), and the broadcast with the
    last block and the game read back riding after it in one request, as gnokey's
    three; the game shown is the chain's after the move."""
    game, first, second = new_game(players)
    with proxy_for(gno_node.url) as proxy:
        env = {"C4_REMOTE": proxy.url}
        code, out, err = lane_run(players, c4_bin, ["play", game, "4", first, "--json"], env)
        assert code == 0, err
        played = json.loads(out)
        assert played["game"] == players.game(int(game)) and played["game"]["moves"] == 1
        # The block's commit (its validators' signatures) rides in the broadcast's batch:
        # the proof that the move landed costs no request of its own.
        assert proxy.requests == [
            ["status", "abci_query", "abci_query", "abci_query"],
            ["abci_query", "commit", "abci_query"],
            ["broadcast_tx_commit", "block", "commit", "abci_query"],
        ], proxy.requests
        assert played["verified"] is True and played["proof"]["height"] == played["height"]
        assert 2 <= played["numbers_proven_at"] < played["height"], played  # before it
        # Through click, the same (--move: the first read is the account's and the price).
        proxy.requests.clear()
        clicked = players.run("--remote", proxy.url, "play", game, "3", "--move", "1", second)
        assert clicked.exit_code == 0 and len(proxy.requests) == 3, proxy.requests
    assert "move 2, " in clicked.stdout and players.game(int(game))["moves"] == 2


@pytest.mark.parametrize("answer", ["an error", "another block"])
def test_a_last_block_that_is_not_the_moves_is_asked_for_again(
    gno_node: Any, players: Home, c4_bin: str, answer: str
) -> None:
    """The block that rides after the broadcast is believed only if it is the one the
    broadcast names: an error in its place, or an earlier block (a proxy's), and the
    move's block is asked for by its height, the game read with it; the move stands."""
    from real_gnoland.proxy import answer as answered

    def latest(request: dict[str, Any], forward: Any) -> Any:
        document = forward()
        if request["params"].get("height"):
            return document  # the block asked for by height: the node's own
        if answer == "an error":
            return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -1, "message": "x"}}
        document["result"]["block"]["header"]["height"] = "1"
        return answered(request, document["result"])

    game, first, _ = new_game(players)
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["block"] = latest
        env = {"C4_REMOTE": proxy.url}
        code, out, err = lane_run(players, c4_bin, ["play", game, "4", first, "--json"], env)
    assert code == 0 and err == "", err
    # The move's block, and the game read again with it (it came with a block not seen).
    assert proxy.requests[2:] == [
        ["broadcast_tx_commit", "block", "commit", "abci_query"],
        ["block", "commit", "abci_query"],
    ]
    played = json.loads(out)
    assert played["game"]["moves"] == 1 and played["height"] > 1
    assert played["game"] == players.game(int(game))


def test_a_move_through_the_lane_loads_no_click(players: Home, c4_bin: str) -> None:
    game, first, _ = new_game(players)
    python = os.path.join(os.path.dirname(c4_bin), "python")
    env = dict(os.environ, C4_HOME=str(players.path), C4_PASSWORD="")
    proc = subprocess.run(
        [python, "-X", "importtime", c4_bin, "play", game, "4", first],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0 and "OK!" in proc.stdout, proc.stderr[-2000:]
    loaded = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()]
    assert "c4cli.commands.calls" in loaded  # the measurement works
    assert not [name for name in loaded if name.split(".")[0] in ("click", "rich")]


def test_a_signal_while_a_lanes_move_waits_for_its_block_says_sent(
    gno_node: Any, players: Home, c4_bin: str
) -> None:
    """Ctrl-C after the lane's move left for the node ($C4_REMOTE names a proxy that
    holds the node's answer): "sent", with its TX HASH, never "nothing was recorded";
    the journal holds it as pending, and the move lands."""

    game, first, _ = new_game(players)
    code, err = interrupted_while_held(
        gno_node.url,
        lambda url: (
            [c4_bin, "play", game, "4", first],
            dict(os.environ, C4_HOME=str(players.path), C4_PASSWORD="", C4_REMOTE=url),
        ),
    )
    assert code == 130, err
    assert err.startswith("Error: interrupted: the transaction was sent (TX HASH "), err
    tx_hash = err.split("TX HASH ")[1].split(")")[0]
    entry = next(e for e in journal_entries(players.path) if e.hash == tx_hash)
    assert entry.status == "pending" and entry.func == "Play"
    time.sleep(1.5)  # its block
    assert players.game(int(game))["moves"] == 1


def test_a_move_is_one_connection_and_a_watch_keeps_its_own(
    gno_node: Any, players: Home, c4_bin: str, tmp_path: Path
) -> None:
    """Issue 38: every request of a command goes over one kept-alive connection (gnokey's
    Go client keeps one too): a move is one connection and three requests; a watch keeps
    its connection across its polls. Counted by the link of the WAN bench, at 0 ms."""
    import signal

    from real_gnoland.wan import Link

    game, first, _ = new_game(players)
    port = int(gno_node.url.rsplit(":", 1)[1])
    link = Link(port, rtt_ms=0, tls=False, folder=tmp_path)
    code, _, err = lane_run(players, c4_bin, ["play", game, "4", first], {"C4_REMOTE": link.url})
    assert code == 0, err
    assert link.counts()[:2] == (1, 3)
    env = dict(os.environ, C4_HOME=str(players.path), C4_REMOTE=link.url)
    watch = subprocess.Popen(
        [c4_bin, "watch", game], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60  # five polls and more, a second apart (a slow
    while link.counts()[1] - 3 < 5 and time.monotonic() < deadline:  # machine: later)
        time.sleep(0.2)
    watch.send_signal(signal.SIGINT)
    watch.communicate(timeout=10)
    connections, requests, _, _ = link.counts()
    assert connections - 1 == 1 and requests - 3 >= 5, (connections, requests)
