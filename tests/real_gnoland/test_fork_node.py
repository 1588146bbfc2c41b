"""`c4 init --fork URL[@HEIGHT]` on a real gnoland: a local chain whose genesis is the
node's realm as its signed blocks make it (every GameJSON, the fee, the owner, the
leaders) and the accounts the realm names as the node had them; a game live on the
node is played to its end on the fork with exact books while the node stays as it
was; a second fork at the same height is found by its block's hash."""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import oracles
import pytest
from json_walk import validate
from real_gnoland.gnokey_game import Gnokey
from real_gnoland.gnonode import install_gno
from real_gnoland.proxy import proxy_for
from real_gnoland.test_gnoweb import gnoweb_on, page_text
from real_gnoland.test_remote import bound_home

from c4cli.address import package_address
from c4cli.gotext import parse_result
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
    """A read without the chain's time, and without the marks a node home gives it (a
    fork is a local chain: it has none)."""
    dropped = ("now", "verified", "unverified", "verified_height", "verified_by", "behind")
    return {k: v for k, v in read.items() if k not in dropped} if isinstance(read, dict) else read


def test_a_fork_is_the_nodes_realm_and_plays_on_while_the_node_stays(
    origin: Origin, gno_node: Any, tmp_path: Path
) -> None:
    home = origin.home
    fork, made = forked(origin, tmp_path / "fork", gno_node.url)
    said = made["origin"]
    assert said["chain_id"] == "dev" and made["chain_id"] == "dev-fork"  # nothing replays
    assert said["url"] == gno_node.url and len(said["block_hash"]) == 64
    # Every account copied is proven from the main store at the fork's height.
    assert said["accounts"] == (
        f"proven at block {said['height']} by the trusted validators' signatures "
        "(the main store's proofs)"
    ), said
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


def test_a_second_fork_at_the_same_height_is_found_by_its_block(
    origin: Origin, gno_node: Any, tmp_path: Path
) -> None:
    """The kept document is found by the chain's id and the proven block's hash, never
    by a URL (which names no chain): with the node up, one look at the block finds it,
    no sync; with the node gone, a --trust HEIGHT:HASH vouches for the block and finds
    it with no request; a --trust that names another block is never taken for it."""
    with proxy_for(gno_node.url) as proxy:
        url = proxy.url
        first, made = forked(origin, tmp_path / "first", url)
        height, block_hash = made["origin"]["height"], made["origin"]["block_hash"]
        proxy.seen.clear()
        second, again = forked(origin, tmp_path / "second", f"{url}@{height}")
        assert "block_results" not in proxy.seen and "blockchain" not in proxy.seen, proxy.seen
        assert again["state"] == made["state"] and again["origin"] == made["origin"]
        forged = Home(tmp_path / "forged").run(
            "init", "--fork", f"{url}@{height}", "--realm-path", REALM_PATH,
            "--trust", f"{height}:{'AB' * 32}", env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
        )  # fmt: skip
        assert forged.exit_code in (2, 4) and forged.stderr.count("\n") == 1, forged.output
    assert realm_reads(second, origin) == realm_reads(first, origin)
    # The proxy is gone: nothing answers at its URL.
    trusted = f"{height}:{block_hash}"
    _, kept = forked(origin, tmp_path / "third", f"{url}@{height}", "--trust", trusted)
    assert kept["state"] == made["state"]
    unknown = Home(tmp_path / "unknown").run(
        "init", "--fork", f"{url}@{height}", "--realm-path", REALM_PATH,
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


def test_serve_fork_takes_gnokeys_unsigned_move_of_an_impersonated_player_and_gnoweb_shows_it(
    origin: Origin, gno_node: Any, tmp_path: Path, c4_bin: str
) -> None:
    """`c4 serve --fork`: the node's realm behind gno.land's RPC; gnokey, holding only
    the public key of the player whose move it is, makes that move and broadcasts it
    unsigned after c4_impersonate; gnoweb then shows the forked game with the move,
    in Chromium."""
    chromium = oracles.chromium()
    home = tmp_path / "served"
    env = dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", XDG_CACHE_HOME=str(tmp_path / "c"))
    proc = subprocess.Popen(
        [c4_bin, "--realm-path", REALM_PATH, "serve", "--fork", gno_node.url,
         "--listen", "127.0.0.1:0", "--json"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert "url" in first, first
        validate("serve", first)
        url, said = first["url"], first["origin"]
        assert said["chain_id"] == "dev" and first["chain_id"] == "dev-fork"
        live = origin.live
        mover = origin.home.json("keys", "show", live.first)
        rpc(url, "c4_impersonate", first["token"], address=mover["address"])
        gk = Gnokey(str(install_gno()[0] / "gnokey"), tmp_path / "gnokey", url)
        added = subprocess.run(  # its public key only: gnokey holds no private key of it
            [gk.binary, "add", "bech32", "-pubkey", mover["pub_key_bech32"], "-home",
             str(gk.home), "-insecure-password-stdin", "mover"],
            input="\n\n", capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        unsigned = tmp_path / "play.json"
        made = subprocess.run(
            [gk.binary, "maketx", "call", "-pkgpath", REALM_PATH, "-func", "Play",
             "-args", live.id, "-args", "4", "-args", "2", "-gas-fee", "1000000ugnot",
             "-gas-wanted", "50000000", "-broadcast=false", "-home", str(gk.home), "mover"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        unsigned.write_text(made.stdout)
        sent = subprocess.run(
            [gk.binary, "broadcast", str(unsigned), "-remote", url, "-home", str(gk.home)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert sent.returncode == 0 and "OK!" in sent.stdout, (sent.stdout, sent.stderr)
        game = json.loads(rpc_query(url, f"{REALM_PATH}.GameJSON({live.id})"))["game"]
        assert game["moves"] == 3 and game["lastCol"] == 3  # column 4, counted from 0
        log = (home / "chain" / "blocks.toml").read_text()
        assert log.count("impersonated = true") == 1
        with gnoweb_on(url, "/r/c4cli/forked/connect4", chain_id="dev-fork") as web:
            page = page_text(chromium, web + f"/r/c4cli/forked/connect4:game/{live.id}")
        assert f"Game #{live.id} — playing" in page, page[:2000]
        assert "Stake: 2 GNOT each" in page
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert "Traceback" not in err, err


def rpc(url: str, method: str, token: str = "", **params: Any) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    request = urllib.request.Request(url, body.encode(), headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        document = json.loads(answer.read())
    assert "error" not in document, document
    return document["result"]


def rpc_query(url: str, expression: str) -> str:
    """A vm/qeval's string answer (the GameJSON)."""
    data = base64.b64encode(expression.encode()).decode()
    result = rpc(url, "abci_query", path="vm/qeval", data=data)
    text = base64.b64decode(result["response"]["ResponseBase"]["Data"]).decode()
    value, kind = parse_result(text)
    assert kind == "string"
    return value


def test_a_fork_through_a_node_that_forges_an_account_is_refused(
    origin: Origin, gno_node: Any, tmp_path: Path
) -> None:
    """An account's coins raised in the main store's answer (its proof then ends in
    another app hash): exit 4 naming the account, and no fork is made."""
    from c4cli.wire.storeproof import STORE_KEY

    def raised(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        response = document.get("result", {}).get("response", {})
        if request["params"].get("path") == STORE_KEY and response.get("Value"):
            value = bytearray(base64.b64decode(response["Value"]))
            at = value.index(b"ugnot") - 1
            value[at] = value[at] + 1 if value[at] < ord("9") else ord("0")
            response["Value"] = base64.b64encode(bytes(value)).decode()
        return document

    fork = Home(tmp_path / "forged")
    shutil.copytree(origin.home.path / "keys", fork.path / "keys")
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = raised
        refused = fork.run(
            "init", "--fork", proxy.url, "--realm-path", REALM_PATH, "--chain-id", "dev-forged",
            env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
        )  # fmt: skip
    assert refused.exit_code == 4, refused.output
    assert refused.stderr.count("\n") == 1 and "the account g1" in refused.stderr, refused.stderr
    assert not list(fork.path.glob("**/blocks.toml"))  # no chain begun
