"""`c4 init --fork URL[@HEIGHT]` on a real gnoland: a local chain whose genesis is the
node's realm as its signed blocks make it (every GameJSON, the fee, the owner, the
leaders) and the accounts the realm names as the node had them; a game live on the
node is played to its end on the fork with exact books while the node stays as it
was; a second fork at the same height needs no node."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from json_walk import validate
from node.proxy import proxy_for
from node.test_remote import bound_home

from c4cli.address import package_address
from support import Home, Started, start_game

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/forked/connect4"


class Origin(NamedTuple):
    home: Home
    finished: Started
    live: Started
    offer: str
    owners: str  # the multisig the ownership was transferred to (pending its acceptance)


@pytest.fixture(scope="module")
def origin(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Origin:
    """The realm deployed at its own path: a finished game (its fee collected), a live
    one (two moves in), an open offer, a fee the owner (test1, who deployed it) set,
    and the ownership transferred to a 2-of-3 multisig, which has not accepted yet."""
    home = bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("origin"))
    finished = start_game(home, "4545454")
    live = start_game(home, "33", stake="2gnot", creator="carol", acceptor="alice")
    offer = str(home.json("offer", "--stake", "3gnot", "bob")["result"][0])
    home.ok("set-fee", "0.2gnot", "test1")
    members = [arg for name in ("alice", "bob", "carol") for arg in ("--multisig", name)]
    owners = home.json("keys", "add", "owners", *members, "--threshold", "2")["address"]
    home.ok("transfer-ownership", owners, "test1")
    return Origin(home, finished, live, offer, owners)


def forked(origin: Origin, folder: Path, target: str, *extra: str) -> tuple[Home, Any]:
    """A home in ``folder`` with the origin's keys, initialised as a fork of ``target``."""
    fork = Home(folder)
    shutil.copytree(origin.home.path / "keys", fork.path / "keys")
    cache = {"XDG_CACHE_HOME": str(folder.parent / "cache")}
    args = ("init", "--fork", target, "--realm-path", REALM_PATH, "--clock", "manual", *extra)
    made = json.loads(fork.ok(*args, "--json", env=cache).stdout)
    validate("init", made)
    return fork, made


def realm_reads(home: Home, origin: Origin) -> list[Any]:
    """What a client reads of the realm: each game's GameJSON, the lobby, the leaders,
    the fee and fees collected, the owner (each without the chain's `now`)."""
    games = [origin.finished.id, origin.live.id, origin.offer]
    reads: list[Any] = [home.json("query", "game", game)["game"] for game in games]
    reads.append(home.json("query", "active"))
    reads.append(home.json("query", "leaders"))
    reads.append(home.json("query", "fees"))
    return [_without_now(read) for read in reads]


def _without_now(read: Any) -> Any:
    return {k: v for k, v in read.items() if k != "now"} if isinstance(read, dict) else read


def test_a_fork_is_the_nodes_realm_and_plays_on_while_the_node_stays(
    origin: Origin, gno_node: Any, tmp_path: Path
) -> None:
    home = origin.home
    fork, made = forked(origin, tmp_path / "fork", gno_node.url)
    said = made["origin"]
    assert said["chain_id"] == "dev" and made["chain_id"] == "dev-fork"  # nothing replays
    assert said["url"] == gno_node.url and len(said["block_hash"]) == 64
    # Every key of the home is an account the realm names, with the node's coins, but
    # the multisig: no account on the node (it never held a coin), funded as c4 init funds.
    assert list(made["balances"]) == [origin.owners]
    assert realm_reads(fork, origin) == realm_reads(home, origin)
    realm = package_address(REALM_PATH)
    for who in ("alice", "bob", "carol", "test1", realm):
        mine = home.json("query", "balance", who)["ugnot"]
        assert fork.json("query", "balance", who)["ugnot"] == mine, who
    assert fork.json("verify")["ok"] is True
    assert fork.json("audit")["discrepancies"] == []

    # The live game, played to its end on the fork: four in column 4 for the first mover.
    live = origin.live
    for number, column in enumerate("4545454"):
        fork.ok("play", live.id, column, live.first if number % 2 == 0 else live.second)
    ended = fork.json("show", live.id)["game"]
    assert ended["status"] == "won" and ended["winner"] == home.address(live.first)
    assert fork.json("audit")["discrepancies"] == []  # the books hold, payout and fee
    assert home.json("query", "game", live.id)["game"]["moves"] == 2  # the node: as it was

    refused = Home(tmp_path / "same-id").run(
        "init", "--fork", gno_node.url, "--realm-path", REALM_PATH, "--chain-id", "dev",
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )  # fmt: skip
    assert refused.exit_code == 2 and "is the node's" in refused.stderr, refused.output


def test_a_second_fork_at_the_same_height_needs_no_node(
    origin: Origin, gno_node: Any, tmp_path: Path
) -> None:
    with proxy_for(gno_node.url) as proxy:
        url = proxy.url
        first, made = forked(origin, tmp_path / "first", url)
    height = made["origin"]["height"]
    # The proxy is gone: nothing answers at its URL.
    second, again = forked(origin, tmp_path / "second", f"{url}@{height}")
    assert again["state"] == made["state"] and again["origin"] == made["origin"]
    assert realm_reads(second, origin) == realm_reads(first, origin)
    unknown = Home(tmp_path / "unknown").run(
        "init", "--fork", f"{url}@{height - 1}", "--realm-path", REALM_PATH,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )  # fmt: skip
    assert unknown.exit_code == 4 and unknown.stderr.count("\n") == 1, unknown.output


def test_the_operators_rehearsal_on_a_fork(origin: Origin, gno_node: Any, tmp_path: Path) -> None:
    """docs/operators.md's rehearsal: fork, act as the multisig owner without any of its
    keys (it accepts the ownership, then withdraws the fees to an address), and see
    exactly what moves: the fees collected, to that address, nothing else."""
    home = origin.home
    fork, made = forked(origin, tmp_path / "fork", gno_node.url)
    assert made["impersonation"] is True  # a fork always allows it
    assert fork.json("query", "fees")["pending_owner"] == origin.owners
    collected = fork.json("query", "fees")["collected_ugnot"]
    assert collected > 0
    treasury = fork.address("bob")
    before = fork.json("query", "balance", "bob")["ugnot"]
    accepted = fork.json("--impersonate", origin.owners, "accept-ownership")
    assert accepted["impersonated"] is True
    withdrawn = fork.json("--impersonate", origin.owners, "withdraw-fees", "--to", treasury)
    assert withdrawn["transfers"] == [{"to": treasury, "amount": f"{collected}ugnot"}]
    assert fork.json("query", "balance", "bob")["ugnot"] == before + collected
    assert fork.json("query", "fees")["collected_ugnot"] == 0
    assert fork.json("audit")["discrepancies"] == []
    assert fork.json("verify")["ok"] is True
    # The node: its owner still pending, its fees still there.
    assert home.json("query", "fees")["pending_owner"] == origin.owners
    assert home.json("query", "fees")["collected_ugnot"] == collected
