"""The same c4 commands against a real gno.land node (the session's gnoland, realm deployed).

Nothing here stands in for the node: every command below sends its JSON-RPC to
gnoland on 127.0.0.1, which runs the Gno realm in `gno/` on the GnoVM.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from real_gnoland.gnonode import gnokey_with_test1, install_gno

from c4cli.home.keys import Keyring
from support import LISTED_TX_KEYS, Home, strong

pytestmark = pytest.mark.node

# A deployment of the realm of its own, so these games start at id 1 and never
# meet the differential test's.
REALM_PATH = "gno.land/r/c4cli/remote/connect4"
REALM_DIR = Path(__file__).resolve().parents[2] / "gno" / "r" / "c4cli" / "connect4"
KEYS = ("test1", "alice", "bob", "carol")


Patch = Callable[[str, str], str]  # (file name, its text) -> the text to deploy


def unchanged(name: str, text: str) -> str:
    return text


def deploy_copy(gno_node: Any, path: str, folder: Path, patch: Patch = unchanged) -> None:
    """Deploy the realm in `gno/` once more, at ``path`` (ending in /connect4), each
    source file passed through ``patch``."""
    from c4cli.home.keys import DEV_MNEMONIC

    package = folder / "connect4"
    package.mkdir(parents=True)
    for source in REALM_DIR.glob("*.gno"):
        if not source.name.endswith(("_test.gno", "_filetest.gno")):
            text = source.read_text()
            (package / source.name).write_text(patch(source.name, text))
    (package / "gnomod.toml").write_text(f'module = "{path}"\ngno = "0.9"\n')
    # A patched realm may start with many games: its storage deposit and gas bounded
    # above the chain's default (300 games in trees lock some 116 GNOT, and burn 232 M).
    gno_node.deploy(package, path, DEV_MNEMONIC, "1000000000ugnot", 600_000_000)


def home_with_keys(gno_node: Any, folder: Path) -> Home:
    home = Home(folder / "home")
    keyring = Keyring(home.path)
    for name in KEYS:
        keyring.add(name, gno_node.keys[name], "")
    return home


def bound_home(
    gno_node: Any,
    path: str,
    folder: Path,
    patch: Patch = unchanged,
) -> Home:
    """The realm deployed once more at ``path`` (its connect4.gno through ``patch``), and
    a home in ``folder`` bound to the node on it, holding the funded keys."""
    deploy_copy(gno_node, path, folder / "realm", patch)
    home = home_with_keys(gno_node, folder)
    home.ok("init", "--remote", gno_node.url, "--realm-path", path)
    return home


@pytest.fixture(scope="module")
def remote(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    """A home bound to the node, holding the keys the node's genesis funded."""
    return bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("remote"))


def ugnot(home: Home, name: str) -> int:
    return int(home.json("query", "balance", name)["ugnot"])


def costs(receipt: dict[str, Any]) -> int:
    """What a transaction cost its signer beyond what it sent: the gas fee and the
    storage deposits it locked, less any deposit it freed (from the receipt's events)."""
    total = int(receipt["gas_fee"].removesuffix("ugnot") or 0)
    for event in receipt["events"]:  # gnokey's fields (coins as objects), with tm2's @type
        assert str(event["@type"]).startswith("/"), event
        if event["@type"] == "/tm.StorageDepositEvent":
            total += int(event["fee_delta"]["amount"])
        elif "fee_refund" in event and not event["refund_withheld"]:
            total -= int(event["fee_refund"]["amount"])
    return total


def test_the_home_is_bound_to_the_node(remote: Home, gno_node: Any) -> None:
    config = (remote.path / "config.toml").read_text()
    assert gno_node.url in config and 'chain_id = "dev"' in config
    head = remote.json("time")
    assert head["height"] == gno_node.latest_height()
    for args, words in [
        (["time", "advance", "1s"], "`c4 time advance` has no meaning on a node"),
        (["time", "set", "2030-01-01T00:00:00Z"], "`c4 time set` has no meaning on a node"),
        (["verify"], "`c4 verify` has no meaning on a node"),
    ]:
        result = remote.run(*args)
        assert result.exit_code == 2 and words in result.stderr, (args, result.stderr)
    result = remote.run("init", "--remote", gno_node.url, "--premine", "alice=1gnot", "--force")
    assert result.exit_code == 2 and "--premine has no meaning on a node" in result.stderr


def test_remote_on_an_unbound_home_takes_a_realm_path(
    remote: Home, gno_node: Any, tmp_path: Path
) -> None:
    free = Home(tmp_path / "free")
    test1 = remote.address("test1")
    fees = free.run("--remote", gno_node.url, "--realm-path", REALM_PATH, "query", "fees", "--json")
    assert fees.exit_code == 0 and json.loads(fees.stdout)["owner"] == test1, fees.output
    by_env = free.run("--remote", gno_node.url, "lobby", env={"C4_REALM_PATH": REALM_PATH})
    assert by_env.exit_code == 0, by_env.output
    # Without it, the default realm path: not deployed on this node (the node says so).
    assert free.run("--remote", gno_node.url, "query", "fees").exit_code == 1
    # A bound home's realm is its own.
    other = remote.run("--realm-path", "gno.land/r/other/connect4", "lobby")
    assert other.exit_code == 2 and "this home is bound to the realm" in other.stderr


class StakedGame(NamedTuple):
    id: str
    first: str  # key names
    second: str
    last: dict[str, Any]  # the winning move's receipt


def staked_game(home: Home, stake: int, between: Callable[[int], None] | None = None) -> StakedGame:
    """alice offers ``stake`` ugnot, bob accepts, both reveal, and the first mover wins
    with four in column 4 (``between(move)`` runs before each of the 7 moves). Checked
    to the ugnot: the payout's bank transfer, and both balances (the stake out, the
    payout in, and what each transaction cost)."""
    start = {name: ugnot(home, name) for name in ("alice", "bob")}
    spent = {"alice": 0, "bob": 0}

    def send(who: str, *args: str) -> dict[str, Any]:
        receipt: dict[str, Any] = home.json(*args, who)
        spent[who] += costs(receipt)
        return receipt

    offer = send("alice", "offer", "--stake", f"{stake}ugnot")
    game = str(offer["result"][0])
    assert offer["game"]["stake"] == stake and offer["keys"]
    send("bob", "accept", game)
    send("alice", "reveal", game)
    turn = send("bob", "reveal", game)["game"]["turnPlayer"]
    first = "alice" if turn == home.address("alice") else "bob"
    second = "bob" if first == "alice" else "alice"
    for move in range(7):
        if between is not None:
            between(move)
        who, column = (first, "4") if move % 2 == 0 else (second, "5")
        last = send(who, "play", game, column)
    assert last["game"]["status"] == "won" and last["game"]["winner"] == home.address(first)
    fee = int(last["game"]["fee"])
    # The payout, as the local chain reports it, from the node's bank transfer event.
    paid = f"{2 * stake - fee}ugnot"
    assert last["transfers"] == [{"to": home.address(first), "amount": paid}]
    won = {first: 2 * stake - fee - stake, second: -stake}
    for name in ("alice", "bob"):
        assert ugnot(home, name) == start[name] + won[name] - spent[name], name
    return StakedGame(game, first, second, last)


def test_a_staked_game_on_the_node(remote: Home) -> None:
    game, first, _, last = staked_game(remote, 5_000_000)
    shown = remote.ok("show", str(game)).stdout
    assert f"Game {game}: won, 7 moves" in shown and "by four in a row" in shown
    assert remote.json("query", "game", str(game))["game"]["status"] == "won"
    leaders = remote.json("leaders")
    assert any(entry["addr"] == remote.address(first) for entry in leaders["wins"])
    sent = remote.sent()
    assert [entry["func"] for entry in sent[-11:]] == (
        ["Offer", "Accept", "Reveal", "RevealSeed"] + ["Play"] * 7
    )
    found = remote.json("tx", sent[-1]["hash"])
    assert found["height"] == last["height"] and found["ok"] and found["func"] == "Play"


def test_refusals_are_the_realms_words(remote: Home) -> None:
    result = remote.run("play", "999999", "4", "alice")
    assert result.exit_code == 1 and result.stderr == "Error: game not found\n"
    result = remote.run("offer", "--stake", "0.5gnot", "alice")
    assert result.exit_code == 1 and result.stderr == "Error: stake below minimum of 1 GNOT\n"


def test_the_owner_sets_the_fee_and_withdraws_it(remote: Home) -> None:
    out = remote.ok("set-fee", "0.2gnot", "test1").stdout
    assert out.splitlines()[-1] == "house fee for new offers set to 0.2 GNOT"
    assert remote.json("query", "fees")["fee_ugnot"] == 200_000
    collected = remote.json("query", "fees")["collected_ugnot"]
    before = ugnot(remote, "carol")
    receipt = remote.json("withdraw-fees", "--to", "carol", "test1")
    assert ugnot(remote, "carol") == before + collected
    assert receipt["ok"] and remote.json("query", "fees")["collected_ugnot"] == 0
    remote.ok("set-fee", "0.1gnot", "test1")


def test_session_keys_on_the_node(remote: Home) -> None:
    remote.ok(
        "session",
        "create",
        "--session-key",
        "alice-s",
        "--expires",
        "1h",
        "--allow-paths",
        f"vm/exec:{REALM_PATH}",
        "--spend-limit",
        "5gnot",
        "alice",
    )
    listed = remote.json("session", "list", "alice")
    session = remote.address("alice-s")
    assert [entry["address"] for entry in listed] == [session]
    assert listed[0]["allow_paths"] == [f"vm/exec:{REALM_PATH}"]  # beside, not inside
    assert f"paths vm/exec:{REALM_PATH}  " in remote.ok("session", "list", "alice").stdout
    game = str(remote.json("offer", "--stake", "1gnot", "alice")["result"][0])
    remote.ok("accept", game, "bob")
    remote.ok("reveal", game, "alice")
    turn = remote.json("reveal", game, "bob")["game"]["turnPlayer"]
    if turn != remote.address("alice"):
        remote.ok("play", game, "1", "bob")
    played = remote.json("play", game, "4", "--master", "alice", "alice-s")
    assert played["game"]["lastCol"] == 3 and played["keys"][remote.address("alice")] == "alice"
    assert played["numbers_proven_at"] >= 2  # the session's own numbers, from its store key
    result = remote.run("offer", "--stake", "1gnot", "--master", "alice", "alice-s")
    assert result.exit_code == 1
    assert result.stderr == "Error: Offer needs the account's own key, not a session key\n"
    result = remote.run("resign", game, "--master", "alice", "alice-s")
    assert result.exit_code == 1 and "session key" in result.stderr
    remote.ok("session", "revoke", "--session-key", "alice-s", "alice")
    assert remote.json("session", "list", "alice") == []
    result = remote.run("play", game, "4", "--master", "alice", "alice-s")
    assert result.exit_code == 1, result.output
    remote.ok("resign", game, "alice")


def test_a_lost_broadcast_answer_is_looked_up_not_sent_again(remote: Home, gno_node: Any) -> None:
    """A proxy that loses the answer to every broadcast after the node has it."""
    from real_gnoland.proxy import proxy_for

    dropped = []

    def drop(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> None:
        forward()  # the node committed it; the answer never arrives
        dropped.append(request["id"])

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = drop
        _, sequence = gno_node.account(remote.address("carol"))
        balance = ugnot(remote, "bob")
        args = ("send", "--to", "bob", "--amount", "7ugnot", "carol")
        result = remote.run("--remote", proxy.url, *args)
        assert result.exit_code == 0, result.output
        assert len(dropped) == 1
        assert "TX HASH:" in result.stdout
        assert gno_node.account(remote.address("carol"))[1] == sequence + 1  # sent once
        assert ugnot(remote, "bob") == balance + 7
        assert remote.sent()[-1]["func"] == "send"


def test_the_views_are_the_same_on_both_backends(gno_node: Any, tmp_path: Path) -> None:
    """One game played step for step on the node and on a local chain whose clock follows
    the node's blocks: every view of it reads the same on both."""
    import time
    from datetime import UTC, datetime

    ISO = "%Y-%m-%dT%H:%M:%SZ"

    path = "gno.land/r/c4cli/views/connect4"
    deploy_copy(gno_node, path, tmp_path / "realm")
    node = home_with_keys(gno_node, tmp_path / "node")
    node.ok("init", "--remote", gno_node.url, "--realm-path", path)
    local = home_with_keys(gno_node, tmp_path / "local")
    start = node.json("time")["unix"]
    genesis = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    local.ok(
        "init",
        "--clock",
        "manual",
        "--block-interval",
        "1s",
        "--genesis-time",
        genesis,
        "--realm-path",
        path,
        "--deployer",
        "test1",
    )

    def both(*args: str) -> dict[str, Any]:
        on_node: dict[str, Any] = node.json(*args)
        at = datetime.fromisoformat(on_node["time"].replace("Z", "+00:00")).timestamp()
        if local.json("time")["unix"] < at - 1:
            local.ok(
                "time", "set", datetime.fromtimestamp(at - 1, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            )
        on_local: dict[str, Any] = local.json(*args)
        assert on_local["time"] == on_node["time"] and on_local["result"] == on_node["result"]
        return on_node

    both("offer", "--stake", "3gnot", "--passphrase", strong("views p"), "alice")
    both("accept", "1", "--seed", strong("views s"), "bob")
    both("reveal", "1", "alice")
    turn = both("reveal", "1", "bob")["game"]["turnPlayer"]
    first = "alice" if turn == node.address("alice") else "bob"
    second = "bob" if first == "alice" else "alice"
    for move in range(7):
        both("play", "1", "4" if move % 2 == 0 else "5", first if move % 2 == 0 else second)
    both(
        "offer", "--stake", "2gnot", "--passphrase", strong("views q"), "--opponent", "bob", "carol"
    )
    for view in [
        ["show", "1"],
        ["show", "1", "--json"],
        ["show", "2"],
        ["board", "1"],
        ["board", "1", "--format", "svg"],
        ["lobby"],
        ["lobby", "--json"],
        ["leaders"],
        ["query", "game", "1"],
        ["query", "active"],
        ["query", "leaders"],
        ["query", "render", "game/1"],
    ]:
        for _ in range(3):
            on_node, on_local = unmarked(node.ok(*view).stdout), local.ok(*view).stdout
            if on_node == on_local:
                break
            # On a busy machine the proof block after the last transaction can come
            # between two reads: the local clock follows the node's latest block, and
            # the view is read again (a real difference stays one).
            time.sleep(1.5)
            latest = gno_node.block_time(gno_node.latest_height())
            if local.json("time")["unix"] < latest:
                local.ok("time", "set", datetime.fromtimestamp(latest, UTC).strftime(ISO))
        assert on_node == on_local, view


def unmarked(view: str) -> str:
    """A node home's view without what says how far it was checked (its `verified` line,
    its JSON marks): the local chain's log is the realm's history, and says none."""
    marks = ("verified", "unverified", "verified_height", "verified_by", "behind")
    if view.startswith("{") and '"verified": ' in view:
        document = json.loads(view)
        shown = {k: v for k, v in document.items() if k not in marks}
        return json.dumps(shown, ensure_ascii=False) + "\n"
    kept = [line for line in view.split("\n") if not line.strip().startswith("verified: ")]
    return "\n".join(kept)


def as_deployed_on_gno_land(name: str, text: str) -> str:
    """The realm in `gno/` made into the version deployed on gno.land as the samcrew
    realm (samouraiworld/gnoland-packages at ae5eb87e) publishes it: no maxFee in
    Offer, no "fee" in ActiveJSON, the fees in `feesCollected`, the owner a
    `*ownable.Ownable`, no state committed (no GameRecord, BooksRecord or LeadersRecord)."""
    if name == "json.gno":
        return text.replace('`,"fee":` + jsonInt(fee) + ', "")
    if name == "commit.gno":  # that realm commits nothing where the app hash covers it
        return (
            "package connect4\n\nfunc commitGame(g *Game) {}\n\nfunc commitBooks() {}\n\n"
            "func commitLeaders() {}\n"
        )
    if name != "connect4.gno":
        return text
    text = text.replace(", maxFee int) int {", ") int {")
    start = text.index("\tcase fee > int64(maxFee):")
    end = text.index("\n", text.index("panic(", start)) + 1
    text = text[:start] + text[end:]
    text = re.sub(r"\bcollected\b", "feesCollected", text)
    text = text.replace("\towner         address", "\towner         *ownable.Ownable")
    text = text.replace(
        "owner = unsafe.OriginCaller()", "owner = ownable.NewWithAddress(unsafe.OriginCaller())"
    )
    text = text.replace("caller(cur) != owner {", "caller(cur) != owner.Owner() {")
    text = text.replace("\towner = me\n", "\towner = ownable.NewWithAddress(me)\n")
    gno4 = '\t"gno.land/p/c4cli/gno4"'
    return text.replace(gno4, f'{gno4}\n\t"{OWNABLE}"')


OWNABLE = "gno.land/p/nt/ownable/v0"


def deploy_ownable(gno_node: Any, folder: Path) -> None:
    """gno's own ownable package, from gno's examples (the test node's genesis loads none)."""
    import shutil

    from c4cli.home.keys import DEV_MNEMONIC

    source = Path(gno_node.gnoroot) / "examples" / OWNABLE
    folder.mkdir(parents=True)
    for item in source.iterdir():
        if item.name == "gnomod.toml" or (
            item.suffix == ".gno" and not item.name.endswith("_test.gno")
        ):
            shutil.copy(item, folder / item.name)
    gno_node.deploy(folder, OWNABLE, DEV_MNEMONIC)


def test_the_realm_as_deployed_on_gno_land(gno_node: Any, tmp_path: Path) -> None:
    """c4 reads the realm's functions and variables as each version declares them:
    the Offer without maxFee, the lobby's fee from `fee`, `feesCollected`, an
    ownable owner."""
    path = "gno.land/r/c4cli/deployed/connect4"
    deploy_ownable(gno_node, tmp_path / "ownable")
    home = bound_home(gno_node, path, tmp_path, as_deployed_on_gno_land)
    funcs = json.loads(home.ok("query", "vm/qfuncs", "--data", path, "--json").stdout)["data"]
    offer = next(f for f in json.loads(funcs) if f["FuncName"] == "Offer")
    assert [p["Name"] for p in offer["Params"]] == ["cur", "opponent", "validFor", "commitment"]
    assert "fee" not in home.json("query", "active")  # ActiveJSON as that realm has it
    receipt = home.json("offer", "--stake", "2gnot", "alice")
    assert receipt["result"] == [1] and receipt["game"]["stake"] == 2_000_000
    result = home.run("offer", "--stake", "2gnot", "--max-fee", "0.1gnot", "alice")
    assert result.exit_code == 2
    assert result.stderr == f"Error: --max-fee: the realm at {path} takes no maxFee\n"
    lobby = home.ok("lobby").stdout
    assert "Open offers (new offers pay a fee of 0.1 GNOT):" in lobby
    assert home.json("lobby")["fee"] == 100_000
    # A game won, then the owner's calls, read back through the ownable owner.
    home.ok("accept", "1", "bob")
    home.ok("reveal", "1", "alice")
    home.ok("reveal", "1", "bob")
    home.ok("resign", "1", "bob")
    fees = home.json("query", "fees")
    owner = home.address("test1")
    assert (fees["fee_ugnot"], fees["collected_ugnot"], fees["owner"]) == (100_000, 100_000, owner)
    home.ok("set-fee", "0.2gnot", "test1")
    home.ok("transfer-ownership", "carol", "test1")
    assert home.json("query", "fees")["pending_owner"] == home.address("carol")
    home.ok("accept-ownership", "carol")
    fees = home.json("query", "fees")
    carol = home.address("carol")
    assert (fees["fee_ugnot"], fees["owner"], fees["pending_owner"]) == (200_000, carol, None)
    withdrawn = home.ok("withdraw-fees", "--to", "carol", "carol").stdout
    assert withdrawn.splitlines()[-1].startswith("fees withdrawn: 0.1 GNOT to carol")
    assert home.json("query", "fees")["collected_ugnot"] == 0


def test_a_sequence_taken_by_another_client_is_fetched_again(remote: Home, gno_node: Any) -> None:
    """Another client sends from the same account between c4's read of the sequence and
    its broadcast: the node refuses c4's, which signs again with the new sequence, once."""
    from c4cli.chain.interface import Signer
    from c4cli.node.chain import open_node
    from c4cli.node.spec import NodeSpec
    from c4cli.wire.tx import fee, send_msg

    key = gno_node.keys["carol"]
    carol, bob = remote.address("carol"), remote.address("bob")
    signer = Signer(carol, key)
    other = open_node(NodeSpec(gno_node.url, REALM_PATH))
    fee_ = fee(2_000_000, "2000ugnot")
    chain = open_node(NodeSpec(gno_node.url, REALM_PATH))
    delivery = chain.sender.delivery
    deliver = delivery.broadcast
    raced = []

    def broadcast(signer: Signer, tx: dict[str, Any], sequence: int, submission: Any) -> Any:
        if not raced:  # the other client's transaction lands first
            raced.append(other.submit(signer, lambda r: [send_msg(carol, bob, "1ugnot")], fee_, ""))
        return deliver(signer, tx, sequence, submission)

    delivery.broadcast = broadcast  # type: ignore[method-assign]
    _, before = gno_node.account(carol)
    receipt = chain.submit(signer, lambda r: [send_msg(carol, bob, "2ugnot")], fee_, "")
    assert receipt.height > 0 and len(raced) == 1
    assert gno_node.account(carol)[1] == before + 2  # both landed, each once


def test_the_chains_refusals_in_one_line(remote: Home) -> None:
    """Refusals before the realm runs (funds) come back as the node's message, one line."""
    result = remote.run("send", "--to", "bob", "--amount", "999999999gnot", "carol")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "insufficient" in result.stderr and "--= Error =--" not in result.stderr


def test_a_bot_and_a_hint_on_the_node(remote: Home) -> None:
    game = str(remote.json("offer", "--stake", "1gnot", "alice")["result"][0])
    remote.ok("accept", game, "bob")
    remote.ok("reveal", game, "alice")
    turn = remote.json("reveal", game, "bob")["game"]["turnPlayer"]
    mover = "alice" if turn == remote.address("alice") else "bob"
    hint = remote.json("hint", game)
    assert hint["key"] == mover and hint["best"] == [4]  # the centre, on an empty board
    moved = json.loads(remote.ok("bot", game, mover, "--json").stdout)
    assert (moved["move"], moved["column"]) == (0, 4)
    assert remote.json("query", "game", game)["game"]["lastCol"] == 3
    remote.ok("resign", game, mover)


def test_tx_asks_the_node(remote: Home) -> None:
    sent = remote.json("send", "--to", "bob", "--amount", "3ugnot", "carol")
    text = remote.ok("tx", sent["hash"]).stdout
    assert f"height:   {sent['height']}" in text
    assert f"call:     send 3ugnot to bob ({remote.address('bob')})" in text
    unknown = "A" * 43 + "="
    result = remote.run("tx", unknown)
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: no transaction with hash {unknown!r} on this chain\n"


def test_log_tx_and_a_games_history_on_the_node(
    remote: Home, gno_node: Any, tmp_path: Path
) -> None:
    """`c4 log` and `c4 tx` in the local chain's shape; the moves this home sent in the
    order played; another home, which sent none of them, says it does not know it."""
    game = str(remote.json("offer", "--stake", "1gnot", "alice")["result"][0])
    remote.ok("accept", game, "bob")
    remote.ok("reveal", game, "alice")
    turn = remote.json("reveal", game, "bob")["game"]["turnPlayer"]
    first, second = ("alice", "bob") if turn == remote.address("alice") else ("bob", "alice")
    remote.ok("play", game, "4", first)
    remote.ok("play", game, "3", second)
    resigned = remote.json("resign", game, first)
    blocks = remote.json("log")
    last = blocks[-1]["txs"][-1]
    assert set(blocks[-1]) == {"height", "time", "hash", "txs"}
    assert set(last) == LISTED_TX_KEYS and last["hash"] == resigned["hash"]
    assert (last["tx_status"], last["func"], last["signer_key"]) == ("landed", "Resign", first)
    assert last["gas_used"] > 0 and last["gas_wanted"] >= last["gas_used"]
    paid = {"to": remote.address(second), "amount": "1900000ugnot"}
    assert last["transfers"] == [paid]
    shown = remote.json("tx", resigned["hash"])
    assert set(shown) == LISTED_TX_KEYS | {"tx", "verified", "proof"}
    assert shown["transfers"] == [paid] and shown["verified"] is True
    # Its block is proven by the set the home trusts since `c4 init --remote`.
    assert shown["proof"]["height"] == shown["height"]
    assert shown["proof"]["signed_power"] * 3 > shown["proof"]["total_power"] * 2
    assert f"paid:     1900000ugnot to {second} (" in remote.ok("tx", resigned["hash"]).stdout
    # This home sent every move: the order is known, and how the game ended.
    assert remote.json("board", game)["moves"] == "43"
    assert remote.json("show", game)["ending"] == "resignation"
    watched = remote.ok("watch", game).stdout.splitlines()
    assert watched[:2] == [f"game {game}, move 0: column 4", f"game {game}, move 1: column 3"]
    assert f"game {game}: won by {second} (resignation)" in watched
    # A home bound to the same node that sent nothing of it: the position, no order.
    other = home_with_keys(gno_node, tmp_path)
    other.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    board = other.json("board", game)
    assert board["moves"] is None and board["position"] in ("43", "34")
    assert other.json("show", game)["ending"] == "resignation or timeout"
    watched = other.ok("watch", game).stdout.splitlines()
    assert watched[0] == (
        f"game {game}: 2 moves made before this watch began "
        "(a node does not list another client's moves)"
    )
    assert not any(": column " in line for line in watched)
    # Another home's transaction: read from its bytes, as the sender's own home lists it.
    foreign = other.json("tx", resigned["hash"])
    own = remote.json("tx", resigned["hash"])
    assert set(foreign) == LISTED_TX_KEYS | {"tx", "verified", "proof"}
    assert foreign["func"] == "Resign" and foreign["verified"] is True
    assert foreign["signer"] == own["signer"] and foreign["args"] == own["args"]
    assert foreign["tx"]["signatures"] == own["tx"]["signatures"]
    assert foreign["transfers"] == [paid] and other.json("log") == []


def test_the_node_stopped_mid_game(remote: Home, gno_node: Any) -> None:
    """Commands fail in one line while the node is down; restarted, the game goes on and
    the journal lists exactly what landed. (Last in this file: it restarts the node.)"""
    game = str(remote.json("offer", "--stake", "1gnot", "alice")["result"][0])
    remote.ok("accept", game, "bob")
    remote.ok("reveal", game, "alice")
    turn = remote.json("reveal", game, "bob")["game"]["turnPlayer"]
    mover = "alice" if turn == remote.address("alice") else "bob"
    sent = len(remote.sent())
    gno_node.stop()
    try:
        for args in (["play", game, "4", mover], ["show", game], ["time"]):
            result = remote.run(*args)
            assert result.exit_code == 4, (args, result.output)
            assert result.stderr.count("\n") == 1 and gno_node.url in result.stderr
    finally:
        gno_node.restart()
    assert len(remote.sent()) == sent  # nothing recorded while it was down
    played = remote.json("play", game, "4", mover)
    assert played["game"]["moves"] == 1 and played["game"]["status"] == "playing"
    log = remote.sent()
    assert len(log) == sent + 1 and log[-1]["hash"] == played["hash"]


def test_a_node_that_knows_only_the_legacy_sign_payload(remote: Home, gno_node: Any) -> None:
    """A node older than v1.7.1 refuses a signature over the current payload: c4 signs the
    legacy one instead, once, says so, and the node gets exactly that transaction. (Its
    first simulation is of a placeholder, signed by no one, while the account's numbers
    are proven: such a node refuses that too, and the signed one follows.)"""
    import base64

    from real_gnoland.proxy import proxy_for

    from c4cli.wire.std import encode_tx
    from c4cli.wire.tx import fee, send_msg, signed_tx

    refused, sent = [], []

    def old_node(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        if request["params"].get("path") != ".app/simulate" or len(refused) == 2:
            return forward()
        refused.append(request["params"]["data"])  # as a node before v1.7.1 answers it
        log = "unauthorized error: signature verification failed; verify correct account"
        base = {"Error": {"@type": "/std.UnauthorizedError", "value": {}}, "Log": log}
        return {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"response": {"ResponseBase": base}},
        }

    def keep(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        sent.append(base64.b64decode(request["params"]["tx"]))
        return forward()

    carol, bob = remote.address("carol"), remote.address("bob")
    number, sequence = gno_node.account(carol)
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = old_node
        proxy.rules["broadcast_tx_commit"] = keep
        result = remote.run(
            *("--remote", proxy.url, "send", "--to", "bob", "--amount", "3ugnot"),
            *("--gas-wanted", "2000000", "--gas-fee", "2000ugnot", "carol"),
        )
    assert result.exit_code == 0, result.output
    assert "legacy one (a node older than gno.land v1.7.1)" in result.stderr
    assert len(refused) == 2
    from c4cli.wire.std import decode_tx

    placeholder, current = (decode_tx(base64.b64decode(data)) for data in refused)
    assert placeholder.signatures[0].signature == bytes(64)
    assert current.signatures[0].signature != bytes(64)
    legacy = signed_tx(
        [send_msg(carol, bob, "3ugnot")],
        fee(2_000_000, "2000ugnot"),
        "",
        private_key=gno_node.keys["carol"],
        chain_id="dev",
        account_number=number,
        sequence=sequence,
        legacy=True,
    )
    assert sent == [encode_tx(legacy)]  # and a v1.7.1 node took it too
    assert gno_node.account(carol)[1] == sequence + 1


def test_an_old_node_that_refuses_the_signature_only_at_checktx(
    remote: Home, gno_node: Any
) -> None:
    """A node's simulation of a call checks no signature (tm2 skips it for calls, old
    releases and v1.7.1 alike), so an old node refuses the current payload in the
    broadcast's CheckTx: nothing was recorded, and c4 sends the legacy-signed
    transaction once, says so, and it lands."""
    import base64

    from real_gnoland.proxy import proxy_for, tx_hash_of

    from c4cli.home.journal import entries as journal_entries
    from c4cli.wire import crypto
    from c4cli.wire.std import decode_tx, tx_hash
    from c4cli.wire.tx import sign_bytes

    sent: list[bytes] = []

    def old_node(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        sent.append(base64.b64decode(request["params"]["tx"]))
        if len(sent) > 1:
            return forward()
        log = "unauthorized error: signature verification failed; verify correct account"
        base = {"Error": {"@type": "/std.UnauthorizedError", "value": {}}, "Log": log}
        # As tm2 answers a CheckTx refusal: the transaction's own hash, height 0.
        named = tx_hash_of(request)
        refusal = {
            "check_tx": {"ResponseBase": base},
            "deliver_tx": {},
            "hash": named,
            "height": "0",
        }
        return {"jsonrpc": "2.0", "id": request["id"], "result": refusal}

    carol = remote.address("carol")
    number, sequence = gno_node.account(carol)
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = old_node
        result = remote.run(
            *("--remote", proxy.url, "send", "--to", "bob", "--amount", "3ugnot"),
            *("--gas-wanted", "2000000", "--gas-fee", "2000ugnot", "carol"),
        )
    assert result.exit_code == 0, result.output
    assert "legacy one (a node older than gno.land v1.7.1)" in result.stderr
    first, second = (decode_tx(raw) for raw in sent)
    assert first.msgs == second.msgs and first.fee == second.fee
    args = ("dev", number, sequence, first.fee, first.msgs, first.memo)
    for tx, legacy in ((first, False), (second, True)):
        key = crypto.public_key(gno_node.keys["carol"])
        signature = tx.signature.signature
        assert crypto.verify(key, sign_bytes(*args, legacy=legacy), signature)
    assert gno_node.account(carol)[1] == sequence + 1
    journaled = {entry.hash: entry.status for entry in journal_entries(remote.path)}
    assert [journaled[tx_hash(tx)] for tx in (first, second)] == ["dropped", "landed"]


def test_a_receipt_has_gnokeys_lines(remote: Home, gno_node: Any, tmp_path: Path) -> None:
    """gnokey sends a call and prints its receipt; c4 reads the same transaction from the
    node and renders its events and storage lines: they are gnokey's, byte for byte."""
    import subprocess

    from c4cli.node.reader import open_reader
    from c4cli.node.sending import lookup
    from c4cli.node.spec import NodeSpec
    from c4cli.wire.events import gnokey_events, storage_moved

    gnokey, keys, _ = gnokey_with_test1(tmp_path / "gnokey")
    call = subprocess.run(
        [
            *(gnokey, "maketx", "call", "-pkgpath", REALM_PATH, "-func", "Offer"),
            *("-args", "", "-args", "15", "-args", "cd" * 32, "-args", "500000"),
            *("-send", "1000000ugnot", "-gas-fee", "1000000ugnot", "-gas-wanted", "20000000"),
            *("-broadcast", "-chainid", "dev", "-remote", gno_node.url),
            *("-insecure-password-stdin", "-home", keys, "test1"),
        ],
        input="\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert call.returncode == 0, call.stdout + call.stderr
    printed = dict(
        line.split(":", 1)
        for line in call.stdout.splitlines()
        if line[:1].isupper() and ":" in line
    )
    node = open_reader(NodeSpec(gno_node.url, REALM_PATH))
    found = lookup.transaction(node, printed["TX HASH"].strip())
    assert found is not None
    events = found.tx_result.events
    assert gnokey_events(events) == printed["EVENTS"].strip(), printed
    assert "fee_delta" in printed["EVENTS"]  # a deposit, in Go's JSON of the event
    moved = storage_moved(events)
    assert moved is not None
    assert printed["STORAGE DELTA"].strip() == f"{moved[0]} bytes"
    assert printed["STORAGE FEE"].strip() == f"{moved[1]}ugnot"
    assert printed["TOTAL TX COST"].strip() == f"{moved[1] + 1_000_000}ugnot"


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("vm/qfile", REALM_PATH),
        ("vm/qfile", f"{REALM_PATH}/json.gno"),
        ("vm/qdoc", REALM_PATH),
        ("auth/gasprice", ""),
        ("vm/qpaths", "gno.land/r/"),  # any path the node answers, passed as it is
        ("vm/qstorage", REALM_PATH),
        (".app/version", ""),
        ("params/vm:p:sysnames_pkgpath", ""),
    ],
)
def test_the_node_only_queries_answer_as_gnokeys(
    remote: Home, gno_node: Any, path: str, data: str
) -> None:
    import subprocess

    gnokey = str(install_gno()[0] / "gnokey")
    theirs = subprocess.run(
        [gnokey, "query", path, "-data", data, "-remote", gno_node.url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert theirs.returncode == 0, theirs.stderr
    ours = remote.json("query", path, *(["--data", data] if data else []))
    assert theirs.stdout.split("data: ", 1)[1] == ours["data"] + "\n"  # gnokey's Println
    text = remote.ok("query", path, *(["--data", data] if data else [])).stdout
    assert text.split("\n", 1)[1] == theirs.stdout.split("\n", 1)[1]  # data: …, as gnokey


def test_a_query_at_a_past_height_on_the_node(remote: Home, gno_node: Any) -> None:
    import subprocess

    before = ugnot(remote, "carol")
    at = gno_node.latest_height()
    remote.ok("send", "--to", "bob", "--amount", "5ugnot", "carol")
    path = f"bank/balances/{remote.address('carol')}"
    ours = remote.json("query", path, "--height", str(at))
    shown = remote.ok("query", path, "--height", str(at)).stdout
    gnokey = str(install_gno()[0] / "gnokey")
    theirs = subprocess.run(
        [gnokey, "query", path, "-height", str(at), "-remote", gno_node.url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert theirs.returncode == 0, theirs.stderr
    assert theirs.stdout == shown  # gnokey's two lines, byte for byte
    assert ours["data"] == f"{before}ugnot"
    assert remote.json("query", "balance", "carol", "--height", str(at))["ugnot"] == before


def test_generate_only_is_gnokeys_maketx_and_gnokey_signs_and_sends_it(
    remote: Home, gno_node: Any, tmp_path: Path
) -> None:
    """c4 --generate-only prints what gnokey maketx -broadcast=false prints, byte for
    byte; gnokey signs c4's transaction and broadcasts it, and it lands."""
    import subprocess

    gnokey, keys, _ = gnokey_with_test1(tmp_path / "gnokey")
    test1, bob = remote.address("test1"), remote.address("bob")
    fee = ("--gas-wanted", "2000000", "--gas-fee", "1000000ugnot")
    ours = remote.ok("send", "--to", "bob", "--amount", "7ugnot", test1, *fee, "--generate-only")
    theirs = subprocess.run(
        [
            *(gnokey, "maketx", "send", "-broadcast=false", "-to", bob, "-send", "7ugnot"),
            *("-gas-wanted", "2000000", "-gas-fee", "1000000ugnot", "-home", keys, test1),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout
    body = tmp_path / "tx.json"
    body.write_text(ours.stdout)
    number, sequence = gno_node.account(test1)
    for command in (
        [
            *("sign", "-tx-path", str(body), "-chainid", "dev"),
            *("-account-number", str(number), "-account-sequence", str(sequence)),
            *("-insecure-password-stdin", "-home", keys, "test1"),
        ],
        ["broadcast", "-remote", gno_node.url, str(body)],
    ):
        done = subprocess.run(
            [gnokey, *command], input="\n", capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert gno_node.account(test1)[1] == sequence + 1


def test_generate_only_on_a_node_estimates_what_is_not_given(remote: Home, gno_node: Any) -> None:
    """Without --gas-wanted and --gas-fee the unsigned transaction gets the gas a
    simulation used plus the margin, at the node's gas price, as a signed one would: for
    a key of the home, and for an address whose account shows its key on the chain. An
    address with no key anywhere, or a gas without its fee: one line, exit 2."""
    import json as json_module

    from c4cli.address import encode_address

    def generated(*args: str) -> dict[str, str]:
        out = remote.ok("send", "--to", "bob", "--amount", "5ugnot", *args, "--generate-only")
        fee: dict[str, str] = json_module.loads(out.stdout)["fee"]
        return fee

    by_name = generated("carol")
    assert int(by_name["gas_wanted"]) > 0 and by_name["gas_fee"].endswith("ugnot")
    assert int(by_name["gas_fee"].removesuffix("ugnot")) > 0
    test1 = remote.address("test1")  # its account has signed: its key is on the chain
    Keyring(remote.path).delete("test1")
    try:
        by_address = generated(test1)
        assert int(by_address["gas_wanted"]) > 0 and by_address["gas_fee"].endswith("ugnot")
        given = generated(test1, "--gas-fee", "777ugnot")
        assert given["gas_fee"] == "777ugnot" and int(given["gas_wanted"]) > 0
    finally:
        Keyring(remote.path).add("test1", gno_node.keys["test1"], "")
    nobody = encode_address(bytes(range(20)))  # an account nobody has a key to
    result = remote.run("send", "--to", "bob", "--amount", "5ugnot", nobody, "--generate-only")
    assert result.exit_code == 2 and "has no public key" in result.stderr
    assert result.stderr.count("\n") == 1
    result = remote.run("send", "--to", "bob", "--amount", "5ugnot", "carol",
                        "--gas-wanted", "100000", "--generate-only")  # fmt: skip
    assert result.exit_code == 2 and "give --gas-fee with --gas-wanted" in result.stderr


def test_gas_wanted_without_a_fee_is_priced_or_refused_before_sending(remote: Home) -> None:
    """Issue 48: --gas-wanted given, --gas-fee not: the gas given is priced at the node's
    gas price; too little for what the simulation used is refused before anything is
    sent (exit 2, naming the gas and the fee that would do), nothing journaled."""
    before = len(remote.sent())
    to = remote.address("alice")
    refused = remote.run("send", "--to", to, "--amount", "5ugnot", "--gas-wanted", "100", "carol")
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.output
    found = re.search(
        r"--gas-wanted 100 is less than the (\d+) gas the simulation used; nothing was sent: "
        r"give at least (\d+) \(a fee of (\d+)ugnot at the node's gas price\)",
        refused.stderr,
    )
    assert found is not None, refused.stderr
    assert len(remote.sent()) == before
    enough = found.group(2)
    sent = remote.json("send", "--to", to, "--amount", "5ugnot", "--gas-wanted", enough, "carol")
    assert sent["gas_wanted"] == int(enough) and sent["gas_fee"] == f"{found.group(3)}ugnot"
