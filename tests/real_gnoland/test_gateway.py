"""Issue 65 on a real gnoland: `c4 serve --upstream URL`, a verifying gateway.

gnokey v1.7.1 through the gateway gets the node's own answers (queries, a whole
staked game by `maketx call`), each proven by the validators the home trusts, as do
gno's JS client and gnoweb (in headless Chromium); what no proof reaches is passed
on marked (an ``X-C4-Unproven`` header, a line on the gateway's stderr) or, with
--strict, refused. Behind the test proxy, a forged balance, game, commit, header or
transaction result is a JSON-RPC error naming it (gnokey prints it), logged by the
gateway, and the next honest request is answered; with two upstream URLs, the
honest one answers. tests/real_gnoland/test_network.py runs gnokey's game through a
gateway to four validators.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import oracles
import pytest
from oracles import js_clients
from real_gnoland.gnokey_game import Gnokey, play, start
from real_gnoland.gnonode import install_gno
from real_gnoland.proxy import abci_answer, abci_path, proxy_for
from real_gnoland.test_committed_node import GNOKEY_KEYS, gk_address, qeval_rule
from real_gnoland.test_gnoweb import gnoweb_on, page_text
from real_gnoland.test_remote import deploy_copy, home_with_keys

from c4cli.address import decode_address
from c4cli.gotext import parse_result
from c4cli.home.keys import DEV_MNEMONIC
from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/gateway/connect4"


class Gateway:
    """`c4 serve --upstream` run as a user runs it (the installed c4)."""

    def __init__(self, c4_bin: str, home: Path, upstream: str, *extra: str) -> None:
        given = [upstream] if upstream else []  # none: the nodes the home is bound to
        self.proc = subprocess.Popen(
            [c4_bin, "serve", "--upstream", *given, "--listen", "127.0.0.1:0", "--json", *extra],
            env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD=""),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read() if self.proc.stderr else ""
        self.url: str = json.loads(line)["url"]

    def stop(self) -> str:
        """Its stderr, once stopped."""
        self.proc.send_signal(2)
        _, err = self.proc.communicate(timeout=30)
        return err

    def post(
        self, method: str, params: dict[str, Any], token: str = ""
    ) -> tuple[dict[str, Any], dict[str, str]]:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        asked = urllib.request.Request(self.url, body.encode(), headers)
        with urllib.request.urlopen(asked, timeout=30) as answer:
            return json.loads(answer.read()), dict(answer.headers)


@pytest.fixture(scope="module")
def bound(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Home, Gnokey]:
    """A home bound to the node on c4's realm, and gnokey's keys funded by its alice."""
    folder = tmp_path_factory.mktemp("gateway")
    deploy_copy(gno_node, REALM_PATH, folder / "realm")
    home = home_with_keys(gno_node, folder)
    home.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    gk = Gnokey(str(install_gno()[0] / "gnokey"), folder / "gnokey", gno_node.url, realm=REALM_PATH)
    for name, words in GNOKEY_KEYS.items():
        gk.add(name, words)
        home.ok("send", "--to", gk_address(name), "--amount", "50gnot", "alice")
    gk.add("owner", DEV_MNEMONIC)
    return home, gk


@pytest.fixture
def gateway(c4_bin: str, bound: tuple[Home, Gnokey], gno_node: Any) -> Iterator[Gateway]:
    served = Gateway(c4_bin, bound[0].path, gno_node.url)
    try:
        yield served
    finally:
        if served.proc.poll() is None:
            served.stop()


def without_now(answer: str) -> Any:
    """A GameJSON answer without its block time (two reads may be a block apart)."""
    document = json.loads(json.loads(answer.split("(", 1)[1].rsplit(" string)", 1)[0]))
    document.pop("now", None)
    return document


def test_gnokey_through_the_gateway_gets_the_nodes_answers(
    bound: tuple[Home, Gnokey], gateway: Gateway, gno_node: Any
) -> None:
    _, direct = bound
    through = Gnokey(direct.binary, direct.home, gateway.url, realm=REALM_PATH)
    played = start(through, "gk-a", "gk-b", "a gateway's secret", "a gateway's seed")
    play(through, played, "4545454")
    game = through.game(played.game_id)
    assert game["status"] == "won" and game["moves"] == 7
    for name in ("gk-a", "gk-b"):
        address = gk_address(name)
        assert through.query(f"auth/accounts/{address}") == direct.query(f"auth/accounts/{address}")
        assert through.balance(address) == direct.balance(address)
    expression = f"{REALM_PATH}.GameJSON({played.game_id})"
    assert without_now(through.query("vm/qeval", expression)) == without_now(
        direct.query("vm/qeval", expression)
    )
    for page in ("", f"game/{played.game_id}"):  # a page with no clock: the same bytes
        shown = through.query("vm/qrender", f"{REALM_PATH}:{page}")
        assert shown == direct.query("vm/qrender", f"{REALM_PATH}:{page}"), page
    assert through.query("auth/gasprice") == direct.query("auth/gasprice")
    for path, data in (
        ("vm/qfuncs", REALM_PATH),
        ("vm/qfile", REALM_PATH),
        ("vm/qfile", f"{REALM_PATH}/render.gno"),
    ):
        assert through.query(path, data) == direct.query(path, data), (path, data)
    log = gateway.stop()
    assert "refused" not in log, log
    for path in ("vm/qeval", "vm/qrender", "vm/qfuncs", "vm/qfile"):
        assert path not in log, log  # proven: not passed on marked


def test_what_no_proof_reaches_is_marked_or_refused_with_strict(
    c4_bin: str, bound: tuple[Home, Gnokey], gateway: Gateway, gno_node: Any
) -> None:
    info, headers = gateway.post("net_info", {})
    assert "result" in info and "net_info" in headers.get("X-C4-Unproven", ""), headers
    status, headers = gateway.post("status", {})
    assert "X-C4-Unproven" not in headers
    head = int(status["result"]["sync_info"]["latest_block_height"])
    signed, _ = gateway.post("commit", {"height": str(head)})
    assert signed["result"]["signed_header"]["header"]["height"] == str(head)
    decoded = decode_address(gk_address("gk-a"))
    assert decoded is not None
    key = base64.b64encode(b"/a/" + decoded[0]).decode()
    store = {"path": ".store/main/key", "data": key, "height": str(head - 1), "prove": True}
    proven, headers = gateway.post("abci_query", store)
    assert proven["result"]["response"]["Value"] and "X-C4-Unproven" not in headers, proven
    cheat, _ = gateway.post("c4_mine", {"blocks": 1})
    assert "needs the token" in cheat["error"]["data"], cheat  # the token rule stays
    token = (bound[0].path / "serve.token").read_text().strip()
    cheat, _ = gateway.post("c4_mine", {"blocks": 1}, token)
    assert "is the local chain's" in cheat["error"]["data"], cheat
    strict = Gateway(c4_bin, bound[0].path, "", "--strict")  # --upstream alone: the home's
    try:
        refused, _ = strict.post("net_info", {})
        assert refused["error"]["data"].startswith("--strict: net_info is not proven"), refused
        proven, _ = strict.post("block", {"height": str(head)})
        assert proven["result"]["block"]["header"]["height"] == str(head)
    finally:
        strict.stop()


def test_a_forged_balance_is_an_error_and_the_next_request_is_served(
    c4_bin: str, bound: tuple[Home, Gnokey], gno_node: Any
) -> None:
    home, direct = bound
    address = gk_address("gk-a")

    def forged(request: dict[str, Any], forward: Any) -> Any:
        if abci_path(request) == f"bank/balances/{address}":
            return abci_answer(request, b'"1000000000000ugnot"')
        return forward()

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = forged
        served = Gateway(c4_bin, home.path, proxy.url)
        try:
            argv = [direct.binary, "query", f"bank/balances/{address}", "-remote", served.url]
            lied = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            assert lied.returncode != 0 and "c4 refused the node's answer" in lied.stderr, lied
            through = Gnokey(direct.binary, direct.home, served.url, realm=REALM_PATH)
            assert through.query(f"auth/accounts/{address}") == direct.query(
                f"auth/accounts/{address}"
            )
        finally:
            log = served.stop()
    assert f"refused abci_query from {proxy.url}: the node says the account {address}" in log


def _signature_forged(request: dict[str, Any], forward: Any) -> Any:
    document = forward()
    vote = document["result"]["signed_header"]["commit"]["precommits"][0]
    signature = bytearray(base64.b64decode(vote["signature"]))
    signature[3] ^= 1
    vote["signature"] = base64.b64encode(bytes(signature)).decode()
    return document


def _stake_raised(text: str) -> str:
    document = json.loads(text)
    document["game"]["stake"] += 1
    return json.dumps(document, separators=(",", ":"))


def _header_forged(request: dict[str, Any], forward: Any) -> Any:
    document = forward()
    header = document["result"]["block"]["header"]
    header["app_hash"] = base64.b64encode(bytes(32)).decode()
    return document


def test_a_forged_game_or_commit_is_an_error_naming_it(
    c4_bin: str, bound: tuple[Home, Gnokey], gno_node: Any
) -> None:
    """Behind the proxy: a GameJSON with its stake raised, a commit whose signature was
    changed, a block whose header was: each an error that names it, logged; honest
    requests between them served."""
    home, direct = bound
    game = int(home.json("offer", "--stake", "1gnot", "bob")["result"][0])
    with proxy_for(gno_node.url) as proxy:
        served = Gateway(c4_bin, home.path, proxy.url)
        try:
            proxy.rules["abci_query"] = qeval_rule(f"GameJSON({game})", _stake_raised)
            argv = [direct.binary, "query", "vm/qeval", "-data", f"{REALM_PATH}.GameJSON({game})"]
            lied = subprocess.run([*argv, "-remote", served.url], capture_output=True, text=True)
            assert lied.returncode != 0 and "the node says stake is" in lied.stderr, lied.stderr
            del proxy.rules["abci_query"]
            through = Gnokey(direct.binary, direct.home, served.url, realm=REALM_PATH)
            assert through.game(game)["id"] == game
            proxy.rules["commit"] = _signature_forged
            forged, _ = served.post("commit", {})
            assert "precommit 0's signature is forged" in forged["error"]["data"], forged
            del proxy.rules["commit"]
            proxy.rules["block"] = _header_forged
            forged, _ = served.post("block", {"height": "3"})
            assert "its header does not hash to the block id" in forged["error"]["data"], forged
            del proxy.rules["block"]
            honest, _ = served.post("status", {})
            assert int(honest["result"]["sync_info"]["latest_block_height"]) > 1
        finally:
            log = served.stop()
    assert f"refused abci_query from {proxy.url}: game {game}: the node says stake is" in log
    assert f"refused commit from {proxy.url}: block" in log and "signature is forged" in log
    assert f"refused block from {proxy.url}: block 3: its header does not hash" in log, log


def test_a_lying_upstream_is_left_for_the_next(
    c4_bin: str, bound: tuple[Home, Gnokey], gno_node: Any
) -> None:
    """--upstream LIAR,HONEST: the forged balance is refused and asked of the next node,
    whose answer gnokey gets; the gateway says which node it left."""
    home, direct = bound
    address = gk_address("gk-b")

    def forged(request: dict[str, Any], forward: Any) -> Any:
        if abci_path(request) == f"bank/balances/{address}":
            return abci_answer(request, b'"1ugnot"')
        return forward()

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = forged
        served = Gateway(c4_bin, home.path, f"{proxy.url},{gno_node.url}")
        try:
            through = Gnokey(direct.binary, direct.home, served.url, realm=REALM_PATH)
            assert through.balance(address) == direct.balance(address) > 1
        finally:
            log = served.stop()
    assert f"refused abci_query from {proxy.url}" in log and "asking" in log, log


def test_gnos_js_client_reads_and_moves_through_the_gateway(
    bound: tuple[Home, Gnokey], gateway: Gateway
) -> None:
    """gno's JS client (status, a balance, an account, GameJSON, the lobby's page, and a
    Play by broadcast_tx_commit) through the gateway: every answer proven."""
    _, direct = bound
    through = Gnokey(direct.binary, direct.home, gateway.url, realm=REALM_PATH)
    played = start(through, "gk-a", "gk-b", "a JS client's secret", "a JS client's seed")
    run = subprocess.run(
        ["node", "serve_client.js", gateway.url, REALM_PATH, str(played.game_id), "4", "0"],
        cwd=js_clients(),
        input=GNOKEY_KEYS[played.first],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    address = gk_address(played.first)
    assert (seen["chain_id"], seen["address"]) == ("dev", address)
    value, kind = parse_result(seen["game"])
    assert kind == "string" and json.loads(value)["game"]["turnPlayer"] == address
    assert f"[#{played.game_id}](" in seen["lobby"], seen["lobby"]
    assert int(seen["moved"]["height"]) > 0
    assert direct.game(played.game_id)["moves"] == 1
    log = gateway.stop()
    assert "refused" not in log and "vm/q" not in log, log


def _result_forged(request: dict[str, Any], forward: Any) -> Any:
    document = forward()
    base = document["result"]["deliver_tx"]["ResponseBase"]
    base["Data"] = base64.b64encode(b"(7 int)\n\n").decode()  # not the result it had
    return document


def test_a_forged_transaction_result_is_an_error_gnokey_prints(
    c4_bin: str, bound: tuple[Home, Gnokey], gno_node: Any
) -> None:
    """A broadcast_tx_commit whose result the node changed: the transaction landed (its
    block holds it), but the result is not the one the next header commits: gnokey
    prints an error, not a success, and the gateway says what was forged."""
    home, direct = bound
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = _result_forged
        served = Gateway(c4_bin, home.path, proxy.url)
        try:
            argv = [direct.binary, "maketx", "call", "-pkgpath", REALM_PATH, "-func", "SetFee"]
            argv += ["-args", "100000", "-gas-fee", "1000000ugnot", "-gas-wanted", "50000000"]
            argv += ["-broadcast", "-chainid", "dev", "-remote", served.url]
            argv += ["-insecure-password-stdin", "-home", str(direct.home), "owner"]
            sent = subprocess.run(argv, input="\n", capture_output=True, text=True, timeout=120)
            assert sent.returncode != 0 and "OK!" not in sent.stdout, sent.stdout
            assert "result is not the one committed" in sent.stderr, sent.stderr
        finally:
            log = served.stop()
    assert "refused broadcast_tx_commit" in log, log


@pytest.fixture(scope="module")
def chromium() -> str:
    return oracles.chromium()


def test_gnoweb_renders_the_lobby_and_a_game_through_the_gateway(
    bound: tuple[Home, Gnokey], gateway: Gateway, chromium: str
) -> None:
    """gnoweb v1.7.1 with -remote at the gateway, in headless Chromium: the lobby (an
    open offer in it) and a game's page, each page's Render proven."""
    home, _ = bound
    offer = home.json("offer", "--stake", "2gnot", "--valid-for", "60m", "alice")
    game = int(offer["result"][0])
    page = "/r/c4cli/gateway/connect4"
    with gnoweb_on(gateway.url, page) as url:
        lobby = page_text(chromium, url + page)
        game_page = page_text(chromium, f"{url}{page}:game/{game}")
    assert "Connect 4" in lobby and "Open offers" in lobby and f"#{game}" in lobby, lobby
    assert f"Game #{game}" in game_page and home.address("alice") in game_page, game_page
    log = gateway.stop()
    assert "refused" not in log and "vm/qrender" not in log, log
