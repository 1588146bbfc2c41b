"""Issue 64 on a real gnoland: the realm's reads proven by the state it committed.

The realm writes the sha256 of each game's record and of its own where the app hash
covers them (gno/r/c4cli/connect4/commit.gno). A home that never synced holds every
read to those digests, proven against a header the trusted validators signed: a
game, the lobby (whole), the leaderboards and the books are `"verified": true`, by
proof, at the proof's block. Through the hostile proxy, an answer that is not the
proven state (a disc moved, an open offer left out, a leader or the books forged, a
record that is not the one committed) is exit 4, one line naming what.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from real_gnoland.gnokey_game import Gnokey, Played, play
from real_gnoland.gnonode import install_gno
from real_gnoland.proxy import proxy_for
from real_gnoland.test_remote import bound_home, home_with_keys, staked_game

from c4cli.address import package_address
from c4cli.commitment import commitment_of
from c4cli.gotext import parse_result, quote
from c4cli.home.keys import DEV_MNEMONIC
from c4cli.wire import crypto
from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/committed/connect4"
Rule = Callable[[dict[str, Any], Callable[[], Any]], Any]


@pytest.fixture(scope="module")
def played(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Game 1 won by c4's players, game 2 an open offer by carol; the games' ids."""
    home = bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("committed"))
    won = staked_game(home, 2_000_000)
    offer = home.json("offer", "--stake", "3gnot", "--valid-for", "60m", "carol")
    return {"won": won.id, "open": str(offer["result"][0])}


def fresh(gno_node: Any, folder: Path, path: str = REALM_PATH) -> Home:
    """A home bound to the node that never synced: no history of the realm at all."""
    home = home_with_keys(gno_node, folder)
    home.ok("init", "--remote", gno_node.url, "--realm-path", path)
    return home


def proven(document: dict[str, Any]) -> int:
    assert document["verified"] is True and document["verified_by"] == "proof", document
    assert document["verified_height"] >= 2, document
    return int(document["verified_height"])


def test_a_fresh_home_proves_every_read(
    played: dict[str, str], gno_node: Any, tmp_path: Path
) -> None:
    home = fresh(gno_node, tmp_path)
    shown = home.json("show", played["won"])
    proven(shown)
    assert shown["game"]["status"] == "won"
    lobby = home.json("lobby")
    proven(lobby)
    assert [game["id"] for game in lobby["games"]] == [int(played["open"])]
    leaders = home.json("leaders")
    proven(leaders)
    assert leaders["wins"][0]["score"] == 1
    games = home.json("games", "alice")
    proven(games)
    assert {game["id"] for game in games["games"]} >= {int(played["won"])}
    fees = home.json("query", "fees")
    proven(fees)
    assert fees["collected_ugnot"] == 100_000
    text = home.ok("show", played["won"]).stdout
    assert re.search(
        r"^ *verified: proven at block \d+ by its validators' signatures "
        r"\(the state the realm committed\)$",
        text,
        re.M,
    ), text
    game = home.ok("query", "game", played["won"])
    assert json.loads(game.stdout)["game"]["id"] == int(played["won"])
    assert "proven at block" in game.stderr, game.stderr


def qeval_rule(expression: str, change: Callable[[str], str]) -> Rule:
    """Answers to ``vm/qeval`` of ``expression`` (at any block) with their value passed
    through ``change``; every other request passes."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        params = request["params"]
        data = base64.b64decode(params.get("data") or "").decode()
        if params.get("path") == "vm/qeval" and data.endswith(f".{expression}"):
            base = document["result"]["response"]["ResponseBase"]
            value, kind = parse_result(base64.b64decode(base["Data"]).decode())
            forged = (
                f"({quote(change(value))} {kind})"
                if kind == "string"
                else (f"({change(value)} {kind})")
            )
            base["Data"] = base64.b64encode(forged.encode()).decode()
        return document

    return rule


def disc_moved(text: str) -> str:
    document = json.loads(text)
    board = document["game"]["board"]
    document["game"]["board"] = board[1:] + board[0]
    return json.dumps(document, separators=(",", ":"))


def _offer_left_out(text: str) -> str:
    document = json.loads(text)
    document["games"] = []
    return json.dumps(document, separators=(",", ":"))


def _leader_forged(text: str) -> str:
    document = json.loads(text)
    document["wins"][0]["score"] += 1
    return json.dumps(document, separators=(",", ":"))


def _byte_changed(text: str) -> str:
    return text.replace("3:won", "3:wan")


FORGED: dict[str, tuple[list[str], str, Callable[[str], str], str]] = {
    "a disc moved": (["show", "{won}"], "GameJSON({won})", disc_moved, "board"),
    "an open offer left out": (["lobby"], "ActiveJSON(0, 100)", _offer_left_out, "lobby"),
    "a leader's score": (["leaders"], "LeadersJSON()", _leader_forged, "LeadersJSON"),
    "the fees collected": (["query", "fees"], "collected", lambda v: str(int(v) + 1), "collected"),
    "a game's record": (["show", "{won}"], "GameRecord({won})", _byte_changed, "sha256"),
}


@pytest.mark.parametrize("forgery", sorted(FORGED))
def test_an_answer_that_is_not_the_committed_state_is_exit_4(
    played: dict[str, str], gno_node: Any, tmp_path: Path, forgery: str
) -> None:
    home = fresh(gno_node, tmp_path)
    args, expression, change, named = FORGED[forgery]
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = qeval_rule(expression.format(**played), change)
        refused = home.run("--remote", proxy.url, *(a.format(**played) for a in args))
    assert refused.exit_code == 4, refused.output
    assert refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and named in refused.stderr, refused.stderr


def test_a_realm_of_other_code_is_not_read_as_c4s(gno_node: Any, tmp_path: Path) -> None:
    """Digests mean what c4 reads them as only in c4's code: a realm that commits but
    whose code was changed (a comment in render.gno) is proven to be other code, and
    its reads are the node's word, said (no history here), never `verified`."""
    path = "gno.land/r/c4cli/othercode/connect4"
    home = bound_home(
        gno_node,
        path,
        tmp_path,
        lambda name, text: text + "\n// changed by hand\n" if name == "render.gno" else text,
    )
    home.ok("offer", "--stake", "2gnot", "alice")
    shown = home.json("show", "1")
    assert shown["verified"] is False, shown
    assert "render.gno differs" in shown["unverified"], shown
    assert "is not c4's" in shown["unverified"] and "`c4 sync` begins it" in shown["unverified"]


def test_a_realm_in_the_genesis_is_proven(
    c4_bin: str, gno_env: dict[str, str], tmp_path: Path
) -> None:
    """`c4 node start --in-genesis`: the realm deployed in the genesis, which no history
    can replay, is read with one proof each all the same."""
    home = tmp_path / "home"
    env = dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", **gno_env)

    def c4(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([c4_bin, *args], env=env, capture_output=True, text=True, timeout=300)

    assert c4("keys", "add", "alice").returncode == 0
    started = c4("node", "start", "--in-genesis", "--json")
    try:
        assert started.returncode == 0, started.stderr
        assert json.loads(started.stdout)["height"] >= 1
        offer = c4("offer", "--stake", "2gnot", "alice", "--json")
        assert offer.returncode == 0, offer.stderr
        game = json.loads(offer.stdout)["result"][0]
        for args in (["show", str(game)], ["lobby"], ["leaders"], ["query", "fees"]):
            shown = c4(*args, "--json")
            assert shown.returncode == 0, shown.stderr
            proven(json.loads(shown.stdout))
        exported = c4("export", str(game), "--proof", str(tmp_path / "game.proof.json"))
        assert exported.returncode == 0, exported.stderr
    finally:
        c4("node", "stop")
    # The node stopped: the record and its proof check all the same.
    checked = c4("verify-record", str(tmp_path / "game.proof.json"), "--json")
    assert checked.returncode == 0, checked.stderr
    document = json.loads(checked.stdout)
    assert (document["game"], document["status"], document["transactions"]) == (game, "open", 1)
    assert c4("show", str(game)).returncode == 4  # the node is gone indeed


GNOKEY_KEYS = {"gk-a": "abandon " * 23 + "art", "gk-b": "zoo " * 23 + "vote"}  # gnokey's


def gnokey_run(gk: Gnokey, key: str, script: str, folder: Path) -> None:
    """`gnokey maketx run` of ``script`` (a main package) signed by ``key``."""
    path = folder / "script.gno"
    path.write_text(script)
    argv = [gk.binary, "maketx", "run", "-gas-fee", "1000000ugnot", "-gas-wanted", "50000000"]
    argv += ["-broadcast", "-chainid", "dev", "-remote", gk.remote]
    argv += ["-insecure-password-stdin", "-home", str(gk.home), key, str(path)]
    ran = subprocess.run(argv, input="\n", capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[:1500]


class Reached(NamedTuple):
    game: int  # played by gnokey alone, its first reveal by a script
    winner: str  # its winner's address
    heir: str  # the realm that took the ownership, through its own call


def reach(funder: Home, url: str, path: str, heir: str, folder: Path) -> Reached:
    """On the realm at ``path`` of the node at ``url``: a game played by gnokey alone
    (its keys funded by ``funder``'s alice), the creator's reveal made by `gnokey
    maketx run`; then the realm at ``heir``, which imports c4's, deployed by gnokey and
    handed the ownership (test1, the deployer, transfers it; the heir's own call
    accepts it). Neither the script nor the heir's call is what a history replays."""
    gk = Gnokey(str(install_gno()[0] / "gnokey"), folder / "gnokey", url, realm=path)
    for name, words in GNOKEY_KEYS.items():
        gk.add(name, words)
        funder.ok("send", "--to", gk_address(name), "--amount", "50gnot", "alice")
    gk.add("owner", DEV_MNEMONIC)  # test1 deployed the realm: its owner
    passphrase, seed = "a secret of gk-a", "a seed of gk-b"
    offered = gk.call("gk-a", "Offer", "", "30", commitment_of(passphrase), "100000",
                      send=5_000_000)  # fmt: skip
    game = int(parse_result(offered.data.strip())[0])
    gk.call("gk-b", "Accept", str(game), commitment_of(seed), send=5_000_000)
    gnokey_run(gk, "gk-a", f'package main\n\nimport c4 "{path}"\n\nfunc main(cur realm) '
               f'{{\n\tc4.Reveal(cross(cur), {game}, "{passphrase}")\n}}\n', folder)  # fmt: skip
    gk.call("gk-b", "RevealSeed", str(game), seed)
    first = "gk-a" if gk.game(game)["turn"] == 1 else "gk-b"
    play(gk, Played(game, first, "gk-b" if first == "gk-a" else "gk-a"), "4545454")
    package = folder / "heir"
    package.mkdir()
    (package / "gnomod.toml").write_text(f'module = "{heir}"\ngno = "0.9"\n')
    (package / "heir.gno").write_text(  # a package is named as its path ends
        f'package {heir.rsplit("/", 1)[1]}\n\nimport c4 "{path}"\n\n'
        "// Accept takes the ownership of c4's realm handed to this realm.\n"
        "func Accept(cur realm) { c4.AcceptOwnership(cross(cur)) }\n"
    )
    argv = [gk.binary, "maketx", "addpkg", "-pkgpath", heir, "-pkgdir", str(package)]
    argv += ["-gas-fee", "10000000ugnot", "-gas-wanted", "200000000", "-broadcast"]
    argv += ["-chainid", "dev", "-remote", url, "-insecure-password-stdin", "-home", str(gk.home)]
    added = subprocess.run([*argv, "gk-a"], input="\n", capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr[:1500]
    gk.call("owner", "TransferOwnership", package_address(heir))
    gk.realm = heir
    gk.call("gk-b", "Accept")
    return Reached(game, gk_address(first), package_address(heir))


def proven_reads(home: Home, reached: Reached, open_offers: list[int]) -> None:
    """What a home that never synced shows of ``reached``: each read verified by proof,
    the lobby's games ``open_offers``."""
    shown = home.json("show", str(reached.game))
    at = proven(shown)
    assert shown["game"]["status"] == "won" and shown["game"]["winner"] == reached.winner
    lobby = home.json("lobby")
    assert proven(lobby) >= at and [g["id"] for g in lobby["games"]] == open_offers, lobby
    leaders = home.json("leaders")
    proven(leaders)
    assert reached.winner in [entry["addr"] for entry in leaders["wins"]], leaders
    fees = home.json("query", "fees")
    proven(fees)
    assert fees["owner"] == reached.heir, fees


def test_a_realm_reached_by_gnokey_a_script_and_another_realm_is_proven(
    gno_node: Any, tmp_path: Path
) -> None:
    """The acceptance of issue 64 on one node: a game played by gnokey alone, its first
    reveal made by `gnokey maketx run`, and the ownership taken by a realm that imports
    c4's realm: a fresh home shows the game, the lobby, the leaderboards and the books
    verified by proof, at the proof's block (a history could replay neither)."""
    path = "gno.land/r/c4cli/reached/connect4"
    owner = bound_home(gno_node, path, tmp_path / "owner")
    reached = reach(owner, gno_node.url, path, "gno.land/r/c4cli/heir", tmp_path)
    offer = owner.json("offer", "--stake", "2gnot", "alice")  # the lobby holds one
    proven_reads(fresh(gno_node, tmp_path / "fresh", path), reached, offer["result"])


def gk_address(name: str) -> str:
    return crypto.address_of(crypto.public_key(crypto.derive_private_key(GNOKEY_KEYS[name])))
