"""c4 on a network of four gnoland validators, as `c4 node start --validators 4` starts it.

One network for the module, in a home that holds every player's key (funded at
genesis). Each test binds homes of its own to every validator's URL, its chosen
validator's first, and stops, kills (SIGKILL, as a crash) and restarts
validators with `c4 node stop|start --validator I`, as a user would. Blocks need
three of the four validators: one down, the chain goes on; two down, it halts.
Every test leaves the four running. Deselect with ``-m "not network"``.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from real_gnoland.gnokey_game import Gnokey, play, start
from real_gnoland.gnonode import install_gno
from real_gnoland.proxy import after_broadcast, answer, proxy_for
from real_gnoland.test_committed_node import (
    GNOKEY_KEYS,
    disc_moved,
    gk_address,
    proven_reads,
    qeval_rule,
    reach,
)
from real_gnoland.test_gateway import Gateway, without_now
from real_gnoland.test_remote import staked_game
from real_gnoland.tm2json import header_hash, validators_hash, verify_commit, vote_sign_bytes
from real_gnoland.twin import player_key

from c4cli.home.config import Remote, write_remote
from c4cli.home.keys import Keyring
from c4cli.local.genesis import DEFAULT_REALM_PATH
from c4cli.wire import crypto
from support import Home, start_game

pytestmark = [pytest.mark.node, pytest.mark.network]

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank")
VALIDATORS = 4
# What one command may take with a validator gone: its node's refusal or silence
# (C4_TIMEOUT, 10 s by default) and a block made without it.
FAILOVER_BOUND = 30.0


@dataclass
class Network:
    """The module's network: the home that started it, and its validators' URLs."""

    home: Path
    c4_bin: str
    env: dict[str, str]
    urls: list[str] = field(default_factory=list)

    def c4(self, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, C4_HOME=str(home or self.home), C4_PASSWORD="", **self.env)
        return subprocess.run(
            [self.c4_bin, *args], env=env, capture_output=True, text=True, timeout=300
        )

    def kill(self, index: int) -> None:
        done = self.c4("node", "stop", "--validator", str(index), "--kill")
        assert done.returncode == 0 and "killed gnoland validator" in done.stdout, done.stderr

    def restart(self, index: int) -> None:
        done = self.c4("node", "start", "--validator", str(index))
        assert done.returncode == 0, done.stderr

    def out_for_a_while(self, index: int) -> Callable[[int], None]:
        """What a game does between its moves: validator ``index`` killed after move 1,
        started again after move 4."""

        def between(move: int) -> None:
            if move == 1:
                self.kill(index)
            if move == 4:
                self.restart(index)

        return between

    def all_running(self) -> None:
        """Whatever a test left stopped, started again (a no-op when all run)."""
        self.c4("node", "start")

    def through(self, folder: Path, first: int) -> Home:
        """A home in ``folder`` with every player's key, bound to every validator,
        validator ``first``'s URL first."""
        home = Home(folder)
        keyring = Keyring(folder)
        for name in PLAYERS:
            keyring.add(name, player_key(name), "")
        urls = self.urls[first:] + self.urls[:first]
        write_remote(folder, Remote(",".join(urls), "dev", DEFAULT_REALM_PATH))
        # The validator set `c4 node start` trusted from its genesis, as a user copies it.
        shutil.copyfile(self.home / "trust.toml", folder / "trust.toml")
        return home


@pytest.fixture(scope="module")
def network(
    c4_bin: str, gno_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Network]:
    home = tmp_path_factory.mktemp("network") / "home"
    keyring = Keyring(home)
    for name in PLAYERS:
        keyring.add(name, player_key(name), "")
    net = Network(home, c4_bin, gno_env)
    try:
        started = net.c4("node", "start", "--validators", str(VALIDATORS), "--json")
        assert started.returncode == 0, started.stderr
        doc = json.loads(started.stdout)
        assert [v["validator"] for v in doc["validators"]] == list(range(VALIDATORS))
        net.urls = doc["url"].split(",")
        assert len(set(net.urls)) == VALIDATORS
        yield net
    finally:
        net.c4("node", "stop")


@pytest.fixture
def net(network: Network) -> Iterator[Network]:
    """The network, with every validator running again after the test."""
    yield network
    network.all_running()


def test_a_staked_game_goes_on_while_a_validator_is_killed_and_restarted(
    net: Network, tmp_path: Path
) -> None:
    home = net.through(tmp_path / "home", 0)

    game = staked_game(home, 3_000_000, net.out_for_a_while(3)).id
    # The restarted validator has caught up: it answers with the game's end.
    again = home.json("--remote", net.urls[3], "query", "game", game)
    assert again["game"]["status"] == "won"


def test_the_bound_node_killed_mid_game_commands_go_to_the_others(
    net: Network, tmp_path: Path
) -> None:
    home = net.through(tmp_path / "home", 1)
    started = start_game(home, "45")
    net.kill(1)
    players = [started.first, started.second]
    for move, column in enumerate("45454"):
        began = time.monotonic()
        played = home.json("play", started.id, column, players[move % 2])
        assert time.monotonic() - began < FAILOVER_BOUND
    assert played["game"]["status"] == "won"
    began = time.monotonic()
    shown = home.ok("show", started.id).stdout
    assert "won, 7 moves" in shown and time.monotonic() - began < FAILOVER_BOUND


def test_without_a_quorum_sends_are_pending_and_land_when_it_is_back(
    net: Network, tmp_path: Path
) -> None:
    home = net.through(tmp_path / "home", 0)
    started = start_game(home, "4")  # the second player's turn
    mover = started.second
    short = {"C4_BLOCK_TIMEOUT": "4", "C4_TIMEOUT": "4"}
    net.kill(2)
    net.kill(3)  # two of four: no block until one is back
    sent = {}
    for who, args in (("carol", ["offer", "--stake", "2gnot"]), (mover, ["play", started.id, "3"])):
        began = time.monotonic()
        result = home.run(*args, who, env=short)
        assert time.monotonic() - began < FAILOVER_BOUND
        assert result.exit_code == 4, (args, result.output)
        assert result.stderr.count("\n") == 1 and "is pending, not yet seen in a block" in (
            result.stderr
        )
        sent[who] = [tx["hash"] for tx in home.sent() if tx["tx_status"] == "pending"][-1]
        # Sent again: the same bytes at most, nothing new signed.
        retry = home.run(*args, who, env=short)
        assert retry.exit_code == 4 and retry.stderr.count("\n") == 1, retry.output
    pending = [tx for tx in home.sent() if tx["tx_status"] == "pending"]
    assert sorted(tx["hash"] for tx in pending) == sorted(sent.values())
    net.restart(2)  # three of four: blocks again, and both land
    listed = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        listed = {tx["hash"]: tx["tx_status"] for tx in home.sent()}
        if all(listed[h] == "landed" for h in sent.values()):
            break
        time.sleep(1)
    assert all(listed[h] == "landed" for h in sent.values()), listed  # `c4 log` settled them
    shown = home.ok("log").stdout
    assert all(h in shown for h in sent.values())
    game = home.game(int(started.id))
    assert game["moves"] == 2  # the move, once
    # The offer landed once, and its kept secret reveals it.
    offers = [tx for tx in home.sent() if tx["func"] == "Offer" and tx["signer_key"] == "carol"]
    assert len(offers) == 1, offers
    offered = str(offers[0]["result"][0])
    home.ok("accept", offered, "dave")
    home.ok("reveal", offered, "carol")
    assert home.json("reveal", offered, "dave")["game"]["status"] == "playing"


def test_a_move_through_one_node_is_shown_through_another_at_once(
    net: Network, tmp_path: Path
) -> None:
    home = net.through(tmp_path / "home", 0)
    started = start_game(home)
    players = [started.first, started.second]
    for move, column in enumerate("1234"):
        home.ok("play", started.id, column, players[move % 2])
        shown = home.run("--remote", net.urls[2], "show", started.id)
        if shown.exit_code == 0:
            assert f"playing, {move + 1} move" in shown.stdout, shown.stdout
        else:  # not there within a moment: said, never the old game shown as current
            assert shown.exit_code == 4 and "the node is behind" in shown.stderr, shown.output


def test_coins_and_numbers_are_proven_through_any_of_four_validators(
    net: Network, tmp_path: Path
) -> None:
    """Issue 63 on four validators: a send signed for numbers proven first, then the
    coins it moved proven from the app hash through two other validators (the state
    after its block at least), an account, the realm's books and balance at one
    height, a player's games (verified by the history), a session listed, and a fork's
    accounts: each says so."""
    home = net.through(tmp_path / "home", 1)
    sent = home.json("send", "--to", "bob", "--amount", "7ugnot", "alice")
    assert sent["verified"] is True, sent
    for index in (2, 3):
        shown = home.json("--remote", net.urls[index], "query", "balance", "bob")
        assert shown["proven"] is True and shown["height"] >= sent["height"], shown
    account = home.run("query", "account", "alice")  # the document, its proof on stderr
    assert json.loads(account.stdout)["BaseAccount"]["address"] == home.address("alice")
    assert account.stderr.startswith("proven at block "), account.stderr
    books = home.json("audit")
    assert books["discrepancies"] == [], books
    assert books["balance_source"].startswith(f"proven at block {books['height']} "), books
    games = home.json("games", "alice")  # the history audit synced: its stakes verified
    assert games["verified"] is True, games
    home.ok("session", "create", "alice", "--session-key", "alice-s", "--expires", "1h",
            "--allow-paths", f"vm/exec:{DEFAULT_REALM_PATH}")  # fmt: skip
    (session,) = home.json("--remote", net.urls[3], "session", "list", "alice")
    assert session["proven_at"] >= 2, session
    fork = Home(tmp_path / "fork")
    forked = fork.ok("init", "--fork", net.urls[2], "--realm-path", DEFAULT_REALM_PATH,
                     "--json", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})  # fmt: skip
    origin = json.loads(forked.stdout)["origin"]
    assert origin["accounts"].startswith("proven at block "), origin


def test_one_key_from_two_homes_through_two_nodes_at_once(net: Network, tmp_path: Path) -> None:
    """Both sign the same sequence: one lands; the other is signed again once with the
    next sequence and lands too, or is refused in one line; none is pending or paid twice."""
    homes = [net.through(tmp_path / "a", 0), net.through(tmp_path / "b", 3)]
    for _ in range(3):
        procs = [
            subprocess.Popen(
                [net.c4_bin, "offer", "--stake", "1gnot", "erin"],
                env=dict(os.environ, C4_HOME=str(h.path), C4_PASSWORD="", **net.env),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for h in homes
        ]
        done = [(p.wait(timeout=120), *p.communicate()) for p in procs]
        codes = sorted(code for code, _, _ in done)
        assert codes[0] == 0, done
        for code, _, err in done:
            assert code == 0 or (code in (1, 4) and err.count("\n") == 1), done
            assert "pending" not in err, done
    offers = [
        tx
        for h in homes
        for tx in h.sent()
        if tx["func"] == "Offer" and tx["tx_status"] == "landed"
    ]
    assert len({tx["hash"] for tx in offers}) == len(offers)  # none paid twice
    statuses = {tx["tx_status"] for h in homes for tx in h.sent()}
    assert statuses <= {"landed", "dropped"}, statuses
    ids = sorted(int(tx["result"][0]) for tx in offers)
    lobby = homes[0].json("lobby")
    erin = homes[0].address("erin")
    assert ids == sorted(g["id"] for g in lobby["games"] if g["creator"] == erin)


def test_three_games_by_six_bots_while_a_validator_is_killed_and_restarted(
    net: Network, tmp_path: Path
) -> None:
    """Each player in a home of its own, bound to the validators from a different
    first one; validator 1 (the first URL of two players) goes down mid-game."""
    homes = {name: net.through(tmp_path / name, i % VALIDATORS) for i, name in enumerate(PLAYERS)}
    games = []
    for creator, acceptor in zip(PLAYERS[::2], PLAYERS[1::2], strict=True):
        game = str(homes[creator].json("offer", "--stake", "1gnot", creator)["result"][0])
        homes[acceptor].ok("accept", game, acceptor)
        homes[creator].ok("reveal", game, creator)
        homes[acceptor].ok("reveal", game, acceptor)
        games += [(game, creator), (game, acceptor)]
    bots = [
        subprocess.Popen(
            [net.c4_bin, "bot", game, name, "--until-end", "--think", "5"],
            env=dict(os.environ, C4_HOME=str(homes[name].path), C4_PASSWORD="", **net.env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for game, name in games
    ]
    try:
        time.sleep(8)
        net.kill(1)
        time.sleep(8)
        net.restart(1)
        deadline = time.monotonic() + 600
        while any(bot.poll() is None for bot in bots) and time.monotonic() < deadline:
            # A bot that ends early with an error says so now, not after its opponent's
            # wait for a move that will never come.
            if any(bot.poll() not in (None, 0) for bot in bots):
                break
            time.sleep(0.5)
    finally:
        for bot in bots:
            bot.kill()
    ended = [(bot.wait(), *bot.communicate()) for bot in bots]
    # The bot that ended with an error is named first, before the ones killed after it.
    failed = [
        (game, name, code, out, err)
        for (game, name), (code, out, err) in zip(games, ended, strict=True)
        if code != 0
    ]
    failed.sort(key=lambda row: row[2] == -9)
    assert failed == [], failed
    for game, _ in games[::2]:
        shown = homes["alice"].ok("show", game).stdout
        assert "by four in a row" in shown or "draw" in shown, shown
        assert "timeout" not in shown.lower(), shown


def test_node_commands_refuse_what_the_network_is_not(net: Network) -> None:
    """Each one line, exit 2 (bad input) or 1 (refused), and every validator still runs."""
    for args, code, words in [
        (["node", "stop", "--validator", "4"], 2, "has validators 0-3"),
        (["node", "start", "--validator", "9"], 2, "has validators 0-3"),
        (["node", "start", "--validators", "3"], 2, "the network of"),
        (["node", "start"], 2, "already run: c4 node stop first"),
        (["node", "start", "--validator", "2"], 2, "validator 2 of"),
    ]:
        done = net.c4(*args)
        assert done.returncode == code and done.stderr.count("\n") == 1, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
    heights = [json.loads(net.c4("--remote", url, "time", "--json").stdout) for url in net.urls]
    assert all(h["height"] > 0 for h in heights)


def test_every_block_of_a_game_is_signed_by_more_than_two_thirds(
    net: Network, tmp_path: Path
) -> None:
    """The light client's check (c4cli/node/light/headers.py) on four validators, one of them
    killed for part of a game: each block the game's moves landed in is signed by more
    than two thirds of the set, the killed validator's precommit missing or not."""
    home = net.through(tmp_path / "home", 0)

    staked_game(home, 2_000_000, net.out_for_a_while(2))
    # c4's own light client proved every one of them, through whichever node served.
    landed = [tx for block in home.json("log") for tx in block["txs"]]
    assert landed and all(tx["tx_status"] == "landed" for tx in landed)
    for tx in landed:
        shown = home.json("tx", tx["hash"])
        assert shown["verified"] is True and shown["proof"]["height"] == tx["height"]
        assert shown["proof"]["total_power"] == VALIDATORS
        assert 3 * shown["proof"]["signed_power"] > 2 * VALIDATORS
    url = net.urls[1]
    heights = sorted({block["height"] for block in home.json("log") if block.get("txs")})
    assert heights
    absent = 0
    for height in heights:
        signed = rpc(url, "commit", height=str(height))["signed_header"]
        validators = rpc(url, "validators", height=str(height))["validators"]
        assert len(validators) == VALIDATORS
        power = verify_commit("dev", signed["header"], signed["commit"], validators)
        total = sum(int(v["voting_power"]) for v in validators)
        assert 3 * power > 2 * total
        absent += power < total
    assert absent, "no block was signed without the killed validator"


def rpc(url: str, method: str, **params: str) -> Any:
    """One JSON-RPC call's result."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    request = urllib.request.Request(url, body.encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["result"]


class StolenKey:
    """Validator 0's key, read from its node's secrets as a thief with its disk would,
    and what one key can forge: a set that lists it ``times`` times, each slot's
    precommit signed by it."""

    def __init__(self, net: Network) -> None:
        path = net.home / "node" / "v0" / "data" / "secrets" / "priv_validator_key.json"
        key = json.loads(path.read_text())
        seed = base64.b64decode(key["priv_key"]["value"])[:32]
        self.private = Ed25519PrivateKey.from_private_bytes(seed)
        row = {"address": key["address"], "pub_key": key["pub_key"], "voting_power": "1"}
        self.rows = [{**row, "proposer_priority": "0"}] * 3

    def header(self, header: dict[str, Any], height: int = 0) -> None:
        """``header`` (named ``height`` when given), its validators the forged set."""
        if height:
            header["height"] = str(height)
        forged = base64.b64encode(validators_hash(self.rows) or b"").decode()
        header["validators_hash"] = header["next_validators_hash"] = forged

    def sign(self, signed: dict[str, Any], height: int = 0) -> None:
        header, commit = signed["header"], signed["commit"]
        self.header(header, height)
        block_hash = base64.b64encode(header_hash(header) or b"").decode()
        template = next(v for v in commit["precommits"] if v)
        commit["block_id"]["hash"] = block_hash
        commit["precommits"] = []
        for index, row in enumerate(self.rows):
            vote = copy.deepcopy(template)
            vote["height"], vote["block_id"]["hash"] = header["height"], block_hash
            vote["validator_address"], vote["validator_index"] = row["address"], str(index)
            vote["signature"] = base64.b64encode(
                self.private.sign(vote_sign_bytes("dev", vote))
            ).decode()
            commit["precommits"].append(vote)

    def rule(self, url: str, lift: int) -> Any:
        """A proxy rule that signs whatever is asked with the forged set: a block the node
        has as it is (its header naming that set), any other height (and the last, named
        ``lift`` blocks higher) as the node's last block relabelled; the validators
        asked for, the forged set."""

        def forge(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
            if request["method"] == "validators":
                return answer(request, {"block_height": "1", "validators": self.rows})
            document = forward()
            result = document.get("result")
            if request["method"] == "block" and result:
                self.header(result["block"]["header"])
            if request["method"] != "commit":
                return document
            asked = int(request.get("params", {}).get("height") or 0)
            if result and asked:
                self.sign(result["signed_header"])
                return document
            last = rpc(url, "commit")
            height = asked or int(last["signed_header"]["header"]["height"]) + lift
            self.sign(last["signed_header"], height)
            return answer(request, last)

        return forge


def test_one_stolen_key_of_four_forges_nothing(net: Network, tmp_path: Path) -> None:
    """Issue 47: a thief with validator 0's key (a quarter of the power) behind a proxy
    names a set that lists that key three times, its vote in each slot. Neither a far
    head nor a transaction's block signed so is believed, and the set is never saved;
    the honest nodes serve the home as before."""
    home = net.through(tmp_path / "home", 1)
    before = home.json("time")["height"]
    trusted = (home.path / "trust.toml").read_bytes()
    thief = StolenKey(net)
    with proxy_for(net.urls[1]) as proxy:
        for method in ("commit", "block", "validators"):
            proxy.rules[method] = thief.rule(net.urls[1], 1000)
        far = home.run("--remote", proxy.url, "time")
        for method in ("commit", "block", "validators"):  # the landing's proof, forged
            proxy.rules[method] = after_broadcast(proxy, thief.rule(net.urls[1], 1000))
        sent = home.run("--remote", proxy.url, "send", "--to", "bob", "--amount", "5ugnot", "alice")
    for result in (far, sent):
        assert result.exit_code == 4 and result.stderr.count("\n") == 1, result.output
        assert "not followed" in result.stderr or "twice" in result.stderr, result.stderr
    assert "is pending" in sent.stderr and "not believed" in sent.stderr
    assert (home.path / "trust.toml").read_bytes() == trusted  # nothing of the thief's
    honest = home.json("time")["height"]
    assert before <= honest < before + 1000
    # The send did land (the proxy passed it on): the honest nodes prove it, once.
    (landed,) = [tx for block in home.json("log") for tx in block["txs"]]
    assert landed["tx_status"] == "landed"


def test_the_realms_history_from_four_validators_one_killed_during_the_sync(
    net: Network, tmp_path: Path
) -> None:
    """A home that played nothing syncs the realm's history through the validators it
    is bound to; the first of them is killed while the sync reads its blocks (behind
    a proxy that kills it when the first block is asked, and never answers): the
    read is asked again of the next validator, each block still held to the signed
    headers, and the history equals one read through another validator; the game
    shows verified, with its whole move list."""
    player = net.through(tmp_path / "player", 0)
    started = start_game(player, "4545454")
    # A whole game by gnokey alone, through another validator.
    gk = Gnokey(str(install_gno()[0] / "gnokey"), tmp_path / "gnokey", net.urls[3])
    gk.realm = DEFAULT_REALM_PATH
    for name, mnemonic in GNOKEY_KEYS.items():
        gk.add(name, mnemonic)
        key = crypto.derive_private_key(mnemonic.strip())
        player.ok(
            "send", "--to", crypto.address_of(crypto.public_key(key)), "--amount", "50gnot", "alice"
        )
    by_gnokey = start(gk, "gk-a", "gk-b")
    play(gk, by_gnokey, "3232323")
    reader = net.through(tmp_path / "reader", 1)
    killed: list[str] = []

    def killed_mid_sync(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        if request["method"] == "block" and not killed:
            net.kill(1)
            killed.append(str(request["params"]["height"]))
        return None if killed else forward()  # dead: the connection closes unanswered

    with proxy_for(net.urls[1]) as proxy:
        proxy.rules["block"] = proxy.rules["block_results"] = killed_mid_sync
        urls = [proxy.url, *net.urls[2:], net.urls[0]]
        write_remote(reader.path, Remote(",".join(urls), "dev", DEFAULT_REALM_PATH))
        synced = reader.json("sync")
        assert killed and proxy.seen.index("blockchain") < proxy.seen.index("block")
    assert synced["deployed"] is not None and synced["txs"] >= 11
    history = reader.json("log", "--realm")
    other = net.through(tmp_path / "other", 2)
    assert other.json("log", "--realm") == history
    shown = reader.json("show", started.id)
    assert shown["verified"] is True and shown["moves"] == "4545454"
    theirs = reader.json("show", str(by_gnokey.game_id))
    assert theirs["verified"] is True and theirs["moves"] == "3232323"
    assert theirs["game"] == gk.game(by_gnokey.game_id)
    assert {receipt.hash for receipt in gk.receipts} <= {row["hash"] for row in history}


SIMULATION = {
    "c4 serve: consensus_params passed on unproven: the consensus parameters are the node's word",
    "c4 serve: abci_query passed on unproven: .app/simulate: a simulation is the node's own "
    "run of a transaction: no block holds it",
}


def test_gnokey_through_a_gateway_to_four_validators(
    net: Network, c4_bin: str, tmp_path: Path
) -> None:
    """Issue 65 on four validators: `c4 serve --upstream` to all four (validator 2's URL
    first); gnokey plays a whole staked game through it, and its queries answer as the
    nodes' own do, each proven: nothing refused, and nothing passed on marked but what
    no block proves (a transaction's simulation, the consensus parameters gnokey asks
    before it)."""
    home = net.through(tmp_path / "gateway", 2)
    direct = Gnokey(
        str(install_gno()[0] / "gnokey"), tmp_path / "gnokey", net.urls[0], realm=DEFAULT_REALM_PATH
    )
    for name, words in GNOKEY_KEYS.items():
        direct.add(name, words)
        home.ok("send", "--to", gk_address(name), "--amount", "50gnot", "alice")
    served = Gateway(c4_bin, home.path, ",".join(net.urls[2:] + net.urls[:2]))
    try:
        through = Gnokey(direct.binary, direct.home, served.url, realm=DEFAULT_REALM_PATH)
        played = start(through, "gk-a", "gk-b", "four validators' secret", "four's seed")
        play(through, played, "4545454")
        address = gk_address(played.first)
        for path in (f"auth/accounts/{address}", f"bank/balances/{address}"):
            assert through.query(path) == direct.query(path), path
        page = f"{DEFAULT_REALM_PATH}:game/{played.game_id}"
        assert through.query("vm/qrender", page) == direct.query("vm/qrender", page)
        expression = f"{DEFAULT_REALM_PATH}.GameJSON({played.game_id})"
        game = without_now(through.query("vm/qeval", expression))
        assert game == without_now(direct.query("vm/qeval", expression))
        assert game["game"]["status"] == "won"
    finally:
        log = served.stop()
    marked = {line for line in log.splitlines() if "passed on unproven" in line}
    assert "refused" not in log and marked <= SIMULATION, log


def test_a_fresh_home_proves_the_realm_reached_by_gnokey_a_script_and_a_realm(
    net: Network, tmp_path: Path
) -> None:
    """Issue 64 on four validators: a game by gnokey alone through validator 3, its
    first reveal by `gnokey maketx run`, the ownership taken by a realm that imports
    c4's (last in the module: the realm keeps that owner); a home that never synced,
    bound to validator 1 first, proves the game, the lobby, the leaderboards and the
    books, and one bound to validator 2 behind a proxy that moves a disc is exit 4."""
    player = net.through(tmp_path / "player", 3)
    heir = "gno.land/r/c4cli/netheir"
    reached = reach(player, net.urls[3], DEFAULT_REALM_PATH, heir, tmp_path)
    fresh = net.through(tmp_path / "fresh", 1)
    listed = [game["id"] for game in fresh.json("--trust-node", "lobby")["games"]]
    proven_reads(fresh, reached, listed)
    # The game's record with its proof, checked by one who has no home and no node.
    file = tmp_path / "game.proof.json"
    fresh.ok("export", str(reached.game), "--proof", str(file))
    fingerprint = fresh.json("trust")["fingerprint"]
    checked = Home(tmp_path / "stranger").json(
        "verify-record", str(file), "--fingerprint", fingerprint
    )
    assert checked["status"] == "won" and checked["transactions"] == 0, checked
    assert 3 * checked["signed_power"] > 2 * checked["total_power"], checked
    assert len(json.loads(file.read_text())["validators"]) == 4
    with proxy_for(net.urls[2]) as proxy:
        proxy.rules["abci_query"] = qeval_rule(f"GameJSON({reached.game})", disc_moved)
        refused = fresh.run("--remote", proxy.url, "show", str(reached.game))
    assert refused.exit_code == 4 and "the node says board is" in refused.stderr, refused.output
