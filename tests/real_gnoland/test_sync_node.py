"""`c4 sync` and `c4 log --realm` on a real gnoland: the realm's history, every player's
transactions, kept only from blocks the validators signed; a forged block is caught
and nothing of it is kept; a second sync reads only the blocks made since."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.gnokey_game import Gnokey, play, start
from real_gnoland.gnonode import install_gno
from real_gnoland.proxy import proxy_for
from real_gnoland.test_remote import bound_home

from c4cli.commitment import commitment_of
from c4cli.gotext import parse_result
from c4cli.wire import crypto
from support import Home, start_game

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/synced/connect4"


@pytest.fixture(scope="module")
def player(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    """The realm deployed at its own path, and a home that played a whole game on it
    and left an offer open."""
    home = bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("player"))
    start_game(home, "4545454")
    home.ok("offer", "--stake", "2gnot", "bob")
    return home


def stranger(gno_node: Any, folder: Path) -> Home:
    """A home bound to the node and the realm, with no key: it took part in nothing."""
    home = Home(folder)
    home.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    return home


def sent(home: Home) -> list[dict[str, Any]]:
    """The transactions a home sent and saw land (its journal)."""
    return [tx for block in home.json("log") for tx in block["txs"] if tx["tx_status"] == "landed"]


def history_file(home: Home) -> Path:
    return home.path / "history" / "dev" / f"{REALM_PATH.replace('/', '_')}.sqlite"


def test_a_home_that_played_nothing_lists_every_players_transaction(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    home = stranger(gno_node, tmp_path)
    synced = home.json("sync")
    history = home.json("log", "--realm")
    mine = sent(player)
    assert synced["txs"] == len(history) == len(mine) + 1  # and the deployment
    assert history[0]["kind"] == "deploy" and synced["deployed"] == history[0]["height"]
    assert [tx["hash"] for tx in history[1:]] == [tx["hash"] for tx in mine]
    assert [tx["height"] for tx in history[1:]] == [tx["height"] for tx in mine]
    assert [tx["signer"] for tx in history[1:]] == [tx["signer"] for tx in mine]
    # The same kind of row in the same words as `c4 log --json` (issue 60).
    shared = ("hash", "height", "time", "tx_status", "ok", "signer", "func", "args", "send", "to")
    assert [{k: tx[k] for k in shared} for tx in history[1:]] == [
        {k: tx[k] for k in shared} for tx in mine
    ]
    funcs = [tx["calls"][0]["func"] for tx in history[1:]]
    assert funcs == ["Offer", "Accept", "Reveal", "RevealSeed", *["Play"] * 7, "Offer"]
    assert all(tx["ok"] and tx["kind"] == "call" for tx in history[1:])
    assert synced["height"] >= history[-1]["height"]
    assert synced["read"]["with_txs"] <= synced["read"]["blocks"]
    text = home.ok("log", "--realm").stdout
    assert "Offer(" in text and text.count("Play(") == 7, text
    # A second sync reads only what came since, and keeps what it kept.
    again = home.json("sync")
    assert again["read"]["from"] == synced["height"] + 1 and again["txs"] == synced["txs"]


def test_a_sync_carries_on_and_equals_a_fresh_one(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    early = stranger(gno_node, tmp_path / "early")
    first = early.json("sync")
    player.ok("offer", "--stake", "3gnot", "alice")
    later = early.json("sync")
    assert later["read"]["from"] == first["height"] + 1
    assert later["txs"] == first["txs"] + later["read"]["found"] and later["read"]["found"] >= 1
    fresh = stranger(gno_node, tmp_path / "fresh")
    fresh.ok("sync")
    assert early.json("log", "--realm") == fresh.json("log", "--realm")


Rule = Callable[[dict[str, Any], Callable[[], Any]], Any]


def at(height: int, change: Callable[[dict[str, Any]], None]) -> Rule:
    """A proxy rule: the node's answer, changed by ``change`` for block ``height``."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        if str((request.get("params") or {}).get("height")) == str(height):
            change(document["result"])
        return document

    return rule


def another_tx(result: dict[str, Any]) -> None:
    result["block"]["data"]["txs"].append(base64.b64encode(b"a transaction never sent").decode())


def a_tx_removed(result: dict[str, Any]) -> None:
    result["block"]["data"]["txs"].pop()


def refused(result: dict[str, Any]) -> None:
    base = result["results"]["deliver_tx"][0]["ResponseBase"]
    base["Error"] = {"@type": "/std.UnauthorizedError"}
    base["Log"], base["Events"] = "forged refusal", None


def meta_moved_in_time(height: int) -> Rule:
    """A ``blockchain`` rule: block ``height``'s header, wherever it is listed, dated 2020."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        for meta in document["result"]["block_metas"]:
            if meta["header"]["height"] == str(height):
                meta["header"]["time"] = "2020-01-01T00:00:00Z"
        return document

    return rule


CASES: dict[str, tuple[str, Callable[[int], Rule], str]] = {
    "a transaction added": ("block", lambda h: at(h, another_tx), "do not hash to its data hash"),
    "a transaction removed": ("block", lambda h: at(h, a_tx_removed), "do not hash"),
    "a delivery turned into a refusal": (
        "block_results",
        lambda h: at(h, refused),
        "last_results_hash",
    ),
    "a header moved in time": ("blockchain", meta_moved_in_time, "its header is not the one"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_forged_block_is_caught_and_nothing_of_it_is_kept(
    player: Home, gno_node: Any, tmp_path: Path, case: str
) -> None:
    method, make, words = CASES[case]
    offer_height = sent(player)[0]["height"]
    home = stranger(gno_node, tmp_path)
    with proxy_for(gno_node.url) as proxy:
        proxy.rules[method] = make(offer_height)
        result = home.run("--remote", proxy.url, "sync")
    assert result.exit_code == 4, (result.output, result.stderr)
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    # Nothing from the forged chunk is kept: the file on disk stops below the forged block.
    index = history_file(home)
    if index.exists():
        with sqlite3.connect(index) as db:
            reached = dict(db.execute("SELECT key, value FROM meta").fetchall()).get("height")
            query = "SELECT COUNT(*) FROM txs WHERE height >= ?"
            above = db.execute(query, (offer_height,)).fetchone()[0]
        assert reached is None or (int(reached) < offer_height and above == 0)
    # The honest node's blocks make the same history as a home that never met the forger.
    honest = home.json("log", "--realm")
    fresh = stranger(gno_node, tmp_path / "fresh")
    assert honest == fresh.json("log", "--realm")
    assert json.dumps(honest).count('"Offer"') >= 2


def first_game(player: Home) -> str:
    return str(sent(player)[0]["result"][0])


def test_a_game_shown_on_a_node_is_the_one_its_signed_blocks_make(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """A home that played nothing shows another home's game verified: by the state the
    realm committed, proven, before it keeps a history (issue 64), then by the history,
    with its whole move list (from the realm's history, not its own journal);
    --trust-node checks nothing and says nothing of it."""
    home = stranger(gno_node, tmp_path)
    game = first_game(player)
    mine = player.json("show", game)
    unsynced = home.json("show", game)  # no history kept: proven, its moves unknown
    assert unsynced["verified_by"] == "proof" and unsynced["moves"] is None, unsynced
    assert "verified: proven at block" in home.ok("show", game).stdout
    home.ok("sync")
    shown = home.json("show", game)
    assert shown["verified"] is True and "unverified" not in shown
    assert shown["verified_by"] == "history", shown
    assert shown["game"] == mine["game"] and shown["game"]["status"] == "won"
    assert shown["moves"] == mine["moves"] == "4545454"
    assert shown["ending"] == mine["ending"]
    text = home.ok("show", game).stdout
    assert "verified: the blocks its validators signed make it so" in text, text
    watched = home.ok("watch", game, "--json").stdout.splitlines()
    assert json.loads(watched[-1])["moves"] == "4545454", watched  # from move 1
    trusting = home.json("--trust-node", "show", game)
    assert "verified" not in trusting and trusting["game"] == shown["game"]
    offer = home.json("show", str(int(game) + 1))  # the offer left open: verified too
    assert offer["verified"] is True and offer["game"]["status"] == "open"


def forged_game(change: Callable[[str], str], accessor: str = "GameJSON") -> Rule:
    """An ``abci_query`` rule: an ``accessor`` answer, its text changed by ``change``."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        params = request.get("params") or {}
        asked = base64.b64decode(str(params.get("data") or "")).decode("utf-8", "replace")
        response = document["result"]["response"]["ResponseBase"]
        if params.get("path") == "vm/qeval" and accessor in asked and response["Data"]:
            text = base64.b64decode(response["Data"]).decode()
            response["Data"] = base64.b64encode(change(text).encode()).decode()
        return document

    return rule


def another_winner(text: str) -> str:
    head, _, tail = text.partition('\\"winner\\":\\"')
    address, _, rest = tail.partition('\\"')
    forged = "g1" + ("q" if address[2] != "q" else "p") + address[3:]
    return f'{head}\\"winner\\":\\"{forged}\\"{rest}'


def a_moved_disc(text: str) -> str:
    head, _, tail = text.partition('\\"board\\":\\"')
    cells, _, rest = tail.partition('\\"')
    moved = cells[:18] + cells[24:30] + cells[18:24] + cells[30:]  # columns 4 and 5 swapped
    return f'{head}\\"board\\":\\"{moved}\\"{rest}'


@pytest.mark.parametrize(
    ("forge", "field"),
    [(another_winner, "winner"), (a_moved_disc, "board")],
    ids=["winner", "disc"],
)
def test_a_forged_game_is_caught_naming_the_game_and_the_field(
    player: Home, gno_node: Any, tmp_path: Path, forge: Callable[[str], str], field: str
) -> None:
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    game = first_game(player)
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = forged_game(forge)
        result = home.run("--remote", proxy.url, "show", game)
    assert result.exit_code == 4, (result.output, result.stderr)
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"game {game}: the node says {field} is" in result.stderr, result.stderr
    assert "the blocks its validators signed" in result.stderr, result.stderr


READS = {
    "the lobby": ("ActiveJSON", "lobby", '\\"stake\\":2000000', '\\"stake\\":2000001'),
    "the leaderboard": ("LeadersJSON", "leaders", '\\"score\\":1', '\\"score\\":2'),
    "the fee": ("fee", "query fees", "(100000 int64)", "(1 int64)"),
}


@pytest.mark.parametrize("read", list(READS))
def test_every_read_of_the_realm_is_held_to_its_history(
    player: Home, gno_node: Any, tmp_path: Path, read: str
) -> None:
    accessor, command, honest, forged = READS[read]
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    home.ok(*command.split())  # through the honest node: held, and equal
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = forged_game(
            lambda text: text.replace(honest, forged, 1), accessor
        )
        result = home.run("--remote", proxy.url, *command.split())
    assert result.exit_code == 4, (result.output, result.stderr)
    assert result.stderr.count("\n") == 1, result.stderr
    assert "the blocks its validators signed" in result.stderr, result.stderr


def test_the_books_balance_on_the_node_and_a_forged_balance_is_not_believed(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    home = stranger(gno_node, tmp_path)
    books = home.json("audit")  # synced first, as c4 sync does
    assert books["discrepancies"] == [] and books["balance_source"].startswith("proven at block")
    # The books and the balance at one height: the balance after the block they run to.
    at = books["height"]
    assert books["balance_source"].startswith(f"proven at block {at} "), books
    assert books["books_source"].startswith(f"the realm's history through block {at}, "), books
    assert books["paid_ugnot"] == 2 * 1_000_000 - 100_000  # the won game's payout
    owed = books["held_ugnot"] + books["pending_fees_ugnot"]
    assert owed == books["left_ugnot"] == books["balance_ugnot"]  # the node's bank agrees
    address = books["address"]

    def richer(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        params = request.get("params") or {}
        if params.get("path") == f"bank/balances/{address}":
            base = document["result"]["response"]["ResponseBase"]
            coins = f'"{books["balance_ugnot"] + 1}ugnot"'
            base["Data"] = base64.b64encode(coins.encode()).decode()
        return document

    # The realm's balance is proven (issue 63): a node that says 1 ugnot more is not
    # believed, exit 4 naming the account, rather than taken as a discrepancy.
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = richer
        result = home.run("--remote", proxy.url, "audit", "--json")
    assert result.exit_code == 4, (result.output, result.stderr)
    assert address in result.stdout and "holds" in result.stdout, result.stdout


def test_an_interrupted_sync_keeps_what_it_proved_and_carries_on(
    player: Home, gno_node: Any, tmp_path: Path, c4_bin: str
) -> None:
    """Ctrl-C while a block's results are on their way: exit 130 in one line, the
    history whole at the last chunk it kept (or not begun), and the next sync makes
    the same history as a home that was never interrupted."""
    home = stranger(gno_node, tmp_path)

    def late(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        time.sleep(20)
        return forward()

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["block_results"] = late
        proc = subprocess.Popen(
            [c4_bin, "--remote", proxy.url, "sync"],
            env=dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD=""),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while "block_results" not in proxy.seen and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.count("\n") == 1, err
    index = history_file(home)
    if index.exists():  # a chunk before the interrupted one: whole
        with sqlite3.connect(index) as db:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            kept = db.execute("SELECT MAX(height) FROM txs").fetchone()[0]
        assert kept is None or int(meta["height"]) >= kept
    home.ok("sync")
    fresh = stranger(gno_node, tmp_path / "fresh")
    assert home.json("log", "--realm") == fresh.json("log", "--realm")


def test_a_forged_game_is_caught_on_a_chain_that_makes_empty_blocks(
    c4_bin: str, gno_env: dict[str, str], tmp_path: Path
) -> None:
    """`c4 node start`'s gnoland makes a block every second, transactions or not: the
    height moves between two looks, the realm does not, and a forgery still stands
    out (exit 4), while the honest node's game is verified."""
    from real_gnoland.test_node_command import c4

    home = tmp_path / "home"
    for name in ("alice", "bob"):
        assert c4(c4_bin, home, gno_env, "keys", "add", name).returncode == 0
    started = c4(c4_bin, home, gno_env, "node", "start", "--json")
    assert started.returncode == 0, started.stderr
    try:
        url = json.loads(started.stdout)["url"]
        offered = c4(c4_bin, home, gno_env, "offer", "--stake", "1gnot", "alice", "--json")
        assert offered.returncode == 0, offered.stderr
        assert c4(c4_bin, home, gno_env, "sync").returncode == 0
        time.sleep(2.5)  # empty blocks on top of the history
        shown = c4(c4_bin, home, gno_env, "show", "1", "--json")
        assert shown.returncode == 0 and json.loads(shown.stdout)["verified"] is True
        stake = '\\"stake\\":1000000'
        with proxy_for(url) as proxy:
            forge = forged_game(lambda text: text.replace(stake, '\\"stake\\":1', 1))
            proxy.rules["abci_query"] = forge
            result = c4(c4_bin, home, gno_env, "--remote", proxy.url, "show", "1")
        assert result.returncode == 4, (result.stdout, result.stderr)
        assert "game 1: the node says stake is 1" in result.stderr, result.stderr
    finally:
        c4(c4_bin, home, gno_env, "node", "stop")


def test_a_view_on_a_synced_home_asks_one_request_more(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """A view on a home that keeps the history brings it up to the head and holds the
    node's answer to it at the price of one request: the blocks made since its last
    read ride with the head's commit (a realm transaction among them costs one more);
    on a home that keeps none, the state the realm committed is proven at the price of
    one request too."""
    game = first_game(player)
    synced, plain = stranger(gno_node, tmp_path / "synced"), stranger(gno_node, tmp_path / "plain")
    synced.ok("sync")
    player.ok("time")  # a block or more made since the sync, none of the realm's
    asked: dict[str, list[list[str]]] = {}
    for name, home in (("synced", synced), ("plain", plain)):
        home.ok("time")  # the light client's head proven once before: both start alike
        with proxy_for(gno_node.url) as proxy:
            shown = home.run("--remote", proxy.url, "show", game, "--json")
            assert shown.exit_code == 0, shown.stderr
            asked[name] = proxy.requests
    assert json.loads(shown.stdout)["verified_by"] == "proof"  # the plain home: proven
    assert len(asked["synced"]) == len(asked["plain"]), asked
    extra = [methods for methods in asked["synced"] if "commit" in methods]
    assert extra and any("blockchain" in methods for methods in extra), asked


# -- what an attacker and a newcomer found (issue 60) ------------------------------------


def frozen_at(proxy: Any, height: int) -> dict[str, Rule]:
    """Proxy rules of a node that froze its head at block ``height``: it shows that block
    (real, signed) as its last and never a later one, whatever the node made since."""

    def error(request: dict[str, Any]) -> dict[str, Any]:
        message = f"height {height + 1} must be less than or equal to the current height {height}"
        return {
            "jsonrpc": "2.0",
            "id": request["id"],
            "error": {"code": -32603, "message": message},
        }

    def asked_at(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        params = request.get("params") or {}
        if not params.get("height"):
            request = {**request, "params": {**params, "height": str(height)}}
            return proxy.forward(json.dumps(request).encode())
        return error(request) if int(params["height"]) > height else forward()

    def listed(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        params = dict(request.get("params") or {})
        if int(params.get("minHeight") or 1) > height:
            return error(request)
        params["maxHeight"] = str(min(int(params.get("maxHeight") or height), height))
        document = proxy.forward(json.dumps({**request, "params": params}).encode())
        if "result" in document:
            document["result"]["last_height"] = str(height)
        return document

    def status(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        info = document["result"]["sync_info"]
        meta = proxy.forward(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "blockchain",
                    "params": {"minHeight": str(height), "maxHeight": str(height)},
                }
            ).encode()
        )["result"]["block_metas"][0]
        info["latest_block_height"] = str(height)
        info["latest_block_hash"] = meta["block_id"]["hash"]
        info["latest_block_time"] = meta["header"]["time"]
        return document

    return {
        "commit": asked_at,
        "block": asked_at,
        "block_results": asked_at,
        "validators": asked_at,
        "blockchain": listed,
        "status": status,
    }  # fmt: skip


def test_a_node_that_freezes_its_head_shows_no_lie(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """A node shows as its head a real signed block that holds a transaction (a 1 ugnot
    send), never the block that proves its results, and answers the realm's reads
    with lies: no forged value is shown. Every view is the state the blocks its
    validators signed make as of the last block they prove, said with that block."""
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    game = first_game(player)
    honest = home.json("show", game)
    lobby, leaders, books = home.json("lobby"), home.json("leaders"), home.json("audit")
    sent_to = crypto.address_of(crypto.public_key(crypto.derive_private_key("zoo " * 23 + "vote")))
    receipt = player.json("send", "--to", sent_to, "--amount", "1ugnot", "alice")
    frozen = int(receipt["height"])

    def lies(text: str) -> str:
        text = another_winner(text) if '\\"winner\\":\\"g1' in text else text
        text = text.replace('\\"score\\":1', '\\"score\\":99')  # a 99-win leader
        return text.replace('\\"status\\":\\"open\\"', '\\"status\\":\\"cancelled\\"')

    with proxy_for(gno_node.url) as proxy:
        proxy.rules.update(frozen_at(proxy, frozen))
        proxy.rules["abci_query"] = forged_game(lies, "")
        shown = home.run("--remote", proxy.url, "show", game, "--json")
        assert shown.exit_code in (0, 4), (shown.stdout, shown.stderr)
        if shown.exit_code == 0:
            document = json.loads(shown.stdout)
            assert document["game"] == {**honest["game"], "deadline": document["game"]["deadline"]}
            assert document["verified"] is True and document["verified_height"] < frozen
            assert f"block {frozen}" in document["behind"], document
        text = home.run("--remote", proxy.url, "show", game)
        assert text.exit_code in (0, 4) and f"as of block {frozen - 1}" in text.stdout, text.stdout
        seen = home.run("--remote", proxy.url, "lobby", "--json")
        assert seen.exit_code == 0, seen.stderr
        assert json.loads(seen.stdout)["games"] == lobby["games"]  # the open offer, not hidden
        best = home.run("--remote", proxy.url, "leaders", "--json")
        assert best.exit_code == 0, best.stderr
        board = json.loads(best.stdout)
        assert board["wins"] == leaders["wins"] and board["verified"] is True
        assert "behind" in board and board["verified_height"] == frozen - 1
        audited = home.run("--remote", proxy.url, "audit", "--json")
        assert audited.exit_code == 0, (audited.stdout, audited.stderr)
        assert json.loads(audited.stdout)["held_ugnot"] == books["held_ugnot"]


def test_a_node_that_forges_its_time_is_caught(player: Home, gno_node: Any, tmp_path: Path) -> None:
    """GameJSON's `now` forged to 2001 is not shown under "verified": the block time a
    node answers at is held to the blocks its validators signed."""
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    game = first_game(player)
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = forged_game(
            lambda text: re.sub(r'\\"now\\":\d+', '\\\\"now\\\\":978307200', text)
        )
        result = home.run("--remote", proxy.url, "show", game)
    assert result.exit_code == 4, (result.stdout, result.stderr)
    assert "978307200" in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_a_node_answering_after_its_proven_head_is_shown_as_of_that_head(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """A `now` later than the last block the validators' signatures prove (a node a
    block ahead of them, on a chain that makes a block every 20 ms; or a forged one)
    is never shown: the game as of the proven head is, and said so (issue 61's bench
    met it as an exit 4 of `c4 audit`)."""
    home = stranger(gno_node, tmp_path)
    home.ok("sync")
    game = first_game(player)
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = forged_game(
            lambda text: re.sub(r'\\"now\\":\d+', '\\\\"now\\\\":4102444800', text)
        )
        result = home.run("--remote", proxy.url, "show", game, "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    shown = json.loads(result.stdout)
    assert shown["verified"] is True and "later than the last block" in shown["behind"]
    assert "4102444800" not in result.stdout and shown["game"]["status"] == "won"


def test_a_history_begun_at_a_later_block_follows_an_honest_node(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """`c4 sync --from H` on an honest node: its first chunk follows no block this home
    holds, and every later one follows it."""
    home = stranger(gno_node, tmp_path)
    begin = sent(player)[0]["height"]
    synced = home.json("sync", "--from", str(begin))
    assert synced["read"]["from"] == begin, synced
    player.ok("time")
    again = home.json("sync")
    assert again["read"]["from"] == synced["height"] + 1
    full = stranger(gno_node, tmp_path / "full")
    full.ok("sync")
    assert home.json("log", "--realm") == full.json("log", "--realm")[1:]  # all but the deploy


def test_coins_sent_to_the_realm_are_a_surplus_not_a_shortfall(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    home = stranger(gno_node, tmp_path)
    before = home.json("audit")
    address = before["address"]
    player.ok("send", "--to", address, "--amount", "1ugnot", "alice")
    result = home.run("audit", "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    books = json.loads(result.stdout)
    assert books["discrepancies"] == [] and books["surplus_ugnot"] == before["surplus_ugnot"] + 1
    assert "beyond what it owes" in home.ok("audit").stdout
    # The realm's balance, proven from the app hash (issue 63): said, beside the amount.
    balance = home.run("query", "balance", address)
    assert balance.stdout.strip() == f"{books['balance_ugnot']}ugnot", balance.stdout
    assert "proven at block" in balance.stderr, balance.stderr
    said = json.loads(home.run("query", "balance", address, "--json").stdout)
    assert said["proven"] is True and said["ugnot"] == books["balance_ugnot"], said


# Two keys gnokey holds (BIP39 of fixed entropy); c4 never holds them.
GNOKEY_KEYS = {"gk-a": "abandon " * 23 + "art", "gk-b": "zoo " * 23 + "vote"}


def test_a_game_by_gnokey_alone_is_shown_verified_by_a_home_that_played_nothing(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """A whole staked game signed and sent by gnokey v1.7.1 alone: a fresh home bound
    to the node syncs, then `c4 show`, `c4 games ADDR` and `c4 log --realm` list
    every move of it; its GameJSON, computed from the signed blocks, is the node's
    (the check holds them byte for byte) and shows `"verified": true`."""
    gk = Gnokey(str(install_gno()[0] / "gnokey"), tmp_path / "gnokey", gno_node.url)
    gk.realm = REALM_PATH
    addresses = {}
    for name, mnemonic in GNOKEY_KEYS.items():
        gk.add(name, mnemonic)
        key = crypto.derive_private_key(mnemonic.strip())
        addresses[name] = crypto.address_of(crypto.public_key(key))
        player.ok("send", "--to", addresses[name], "--amount", "50gnot", "alice")
    played = start(gk, "gk-a", "gk-b")
    play(gk, played, "4545454")  # the first mover's four in column 4
    raw, _ = parse_result(gk.query("vm/qeval", f"{REALM_PATH}.GameJSON({played.game_id})"))
    home = stranger(gno_node, tmp_path / "stranger")
    home.ok("sync")
    game = str(played.game_id)
    shown = home.json("show", game)
    assert shown["verified"] is True and shown["moves"] == "4545454"
    assert shown["game"] == json.loads(raw)["game"] and shown["game"]["status"] == "won"
    assert shown["game"]["winner"] == addresses[played.first]
    listed = home.json("games", addresses[played.second])
    assert game in json.dumps(listed), listed
    hashes = {row["hash"] for row in home.json("log", "--realm")}
    assert {receipt.hash for receipt in gk.receipts} <= hashes
    # Its record, from the signed blocks, is the local chain's record of the same moves.
    record = home.json("export", game)
    local = Home(tmp_path / "local")
    for name in ("alice", "bob"):
        local.ok("keys", "add", name)
    local.ok("init", "--clock", "manual")
    mine = local.json("export", start_game(local, "4545454", stake="5gnot").id)
    for tag in ("Moves", "Status", "Result", "Ending", "Known", "Stake", "Fee"):
        assert record["tags"][tag] == mine["tags"][tag], tag
    heights = {r.height for r in gk.receipts if r.func == "Play"}
    assert {move["height"] for move in record["move_list"]} == heights
    assert all(move["time"] for move in record["move_list"])


def test_code_run_once_that_reached_the_realm_is_kept_and_its_state_proven(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """A `gnokey maketx run` script that cancels an offer reaches the realm in a way
    c4's mirror does not replay: the history keeps it (found by its events) and lists
    it as code run once, and from its block on the history cannot make the realm's
    state; the state the realm committed proves it all the same (issue 64)."""
    gk = Gnokey(str(install_gno()[0] / "gnokey"), tmp_path / "gnokey", gno_node.url)
    gk.realm = REALM_PATH
    gk.add("gk-a", GNOKEY_KEYS["gk-a"])
    key = crypto.derive_private_key(GNOKEY_KEYS["gk-a"])
    player.ok(
        "send", "--to", crypto.address_of(crypto.public_key(key)), "--amount", "20gnot", "alice"
    )
    secret = "9" * 64
    offered = gk.call("gk-a", "Offer", "", "30", commitment_of(secret), "100000", send=5_000_000)
    game = parse_result(offered.data.strip())[0]
    script = tmp_path / "cancel.gno"
    script.write_text(
        f'package main\n\nimport "{REALM_PATH}"\n\n'
        f"func main(cur realm) {{\n\tconnect4.Cancel(cross(cur), {game})\n}}\n"
    )
    argv = [gk.binary, "maketx", "run", "-gas-fee", "1000000ugnot", "-gas-wanted", "50000000"]
    argv += ["-broadcast", "-chainid", "dev", "-remote", gno_node.url]
    argv += ["-insecure-password-stdin", "-home", str(gk.home), "gk-a", str(script)]
    ran = subprocess.run(argv, input="\n", capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[:1500]
    home = stranger(gno_node, tmp_path / "stranger")
    home.ok("sync")
    (row,) = [r for r in home.json("log", "--realm") if r["kind"] == "run"]
    assert row["ok"] and row["calls"][0]["type"] == "/vm.m_run", row
    shown = home.json("show", game)
    assert shown["game"]["status"] == "cancelled"
    assert shown["verified"] is True and shown["verified_by"] == "proof", shown
    assert shown["verified_height"] >= row["height"], shown


def test_a_realm_whose_code_is_not_c4s_is_the_nodes_word_said(
    gno_node: Any, tmp_path: Path
) -> None:
    """A realm deployed with other code (here one line added by hand: an older version
    or a changed one alike) is not held to c4's mirror, which runs c4's code: its
    games are shown as the node's word, naming the block and the file that differs,
    never a difference of c4 from the GnoVM (exit 4)."""
    path = "gno.land/r/c4cli/changed/connect4"

    def by_hand(name: str, text: str) -> str:
        return text + "\n// changed by hand\n" if name == "render.gno" else text

    home = bound_home(gno_node, path, tmp_path / "player", by_hand)
    offer = home.json("offer", "--stake", "1gnot", "alice")
    home.ok("sync")
    shown = home.json("show", str(offer["result"][0]))
    assert shown["game"]["status"] == "open" and shown["verified"] is False
    assert "render.gno differs" in shown["unverified"] and "node's word" in shown["unverified"]


def test_a_script_that_reaches_the_realm_with_no_event_ends_its_history(
    player: Home, gno_node: Any, tmp_path: Path
) -> None:
    """`gnokey maketx run` of a script that calls SetFee with a value of the same size:
    no storage change, no coins, no event. The history keeps it (its code imports the
    realm), and from its block the history cannot make the realm: no home calls the
    honest node a liar, the fee is proven by the state the realm committed, and a fork
    of it (made from the history) is refused rather than built wrong. (The realm's
    first change re-saves it, an event; the next SetFee leaves none.)"""
    from c4cli.home.keys import DEV_MNEMONIC

    path = "gno.land/r/c4cli/scripted/connect4"  # a realm of its own: it ends verification
    owner = bound_home(gno_node, path, tmp_path / "owner")
    owner.ok("offer", "--stake", "1gnot", "alice")
    home = Home(tmp_path / "stranger")
    home.ok("init", "--remote", gno_node.url, "--realm-path", path)
    home.ok("sync")
    assert home.json("query", "fees")["verified"] is True
    gk = Gnokey(str(install_gno()[0] / "gnokey"), tmp_path / "gnokey", gno_node.url)
    gk.realm = path
    gk.add("owner", DEV_MNEMONIC)  # the realm's owner: it deployed it
    fee = int(home.json("query", "fees")["fee_ugnot"])
    quiet = ""  # the TX HASH of a run that reached the realm and said nothing of it
    for step in range(1, 4):  # the first re-saves the realm (a storage event); later ones not
        script = tmp_path / f"fee{step}.gno"
        script.write_text(
            f'package main\n\nimport c4 "{path}"\n\n'
            f"func main(cur realm) {{\n\tc4.SetFee(cross(cur), {fee + step})\n}}\n"
        )
        argv = [gk.binary, "maketx", "run", "-gas-fee", "1000000ugnot"]
        argv += ["-gas-wanted", "50000000", "-broadcast", "-chainid", "dev"]
        argv += ["-remote", gno_node.url, "-insecure-password-stdin", "-home", str(gk.home)]
        ran = subprocess.run(
            [*argv, "owner", str(script)], input="\n", capture_output=True, text=True, timeout=120
        )
        assert ran.returncode == 0, ran.stderr[:1500]
        if re.search(r"EVENTS:\s*\[\]", ran.stdout):
            quiet = ran.stdout.split("TX HASH:")[1].split()[0]
            break
    assert quiet, "no run of SetFee left the realm without an event"
    home.ok("sync")
    runs = [r for r in home.json("log", "--realm") if r["kind"] == "run"]
    assert quiet in [r["hash"] for r in runs] and len(runs) == step, runs
    fees = home.run("query", "fees", "--json")
    assert fees.exit_code == 0, fees.stderr  # not a liar
    document = json.loads(fees.stdout)
    assert document["fee_ugnot"] == fee + step and document["verified"] is True
    assert document["verified_by"] == "proof", document
    assert home.run("lobby", "--json").exit_code == 0
    fork = Home(tmp_path / "fork").run(
        "init", "--fork", gno_node.url, "--realm-path", path,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )  # fmt: skip
    assert fork.exit_code != 0 and "node's word" in fork.stderr, fork.stderr
