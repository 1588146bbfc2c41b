"""After the bytes leave, only proof: no second payment on a slow, rate-limited or lying node.

Each test sends real transactions to the session's gnoland through the proxy of
:mod:`node.proxy`, which makes the node's answers go wrong the way hosted RPCs and
attackers do: the broadcast's answer lost and the look-up by hash rate-limited (429),
unavailable (503), too slow or not found; a refusal that names the transaction
while the node took it, now or three seconds later; a refusal naming another hash.
Each ends with what the node itself says: the recipient paid exactly once, and the
user told what happened (landed, with its hash, or pending), the journal agreeing.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.proxy import answer, proxy_for, tx_hash_of
from real_gnoland.test_remote import bound_home

from c4cli.wire import crypto
from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/proof/connect4"
ROUNDS = 20  # the two double-payment cases, each this many times
AMOUNT = 1000


@pytest.fixture(scope="module")
def bound(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    return bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("proof"))


def status_of(home: Home, tx_hash: str) -> str:
    """What the home's journal says of one transaction (`c4 log --json`)."""
    return str({entry["hash"]: entry["tx_status"] for entry in home.sent()}[tx_hash])


def stranger() -> str:
    """An address no one has used: what it holds is what was sent to it."""
    return crypto.address_of(crypto.public_key(os.urandom(31) + b"\x01"))


def lose_the_answer(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
    forward()  # the node has the transaction, and commits it
    return None  # the connection closes without an answer


def lookup_failure(kind: str) -> Callable[[dict[str, Any], Callable[[], Any]], Any]:
    """How the look-up by hash goes wrong: rate-limited, unavailable, slow, or a node
    whose index has not reached the transaction yet."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        if kind == "429":
            return 429
        if kind == "503":
            return 503
        if kind == "slow":
            time.sleep(3)  # past C4_TIMEOUT
            return forward()
        error = {"code": -32603, "message": "Internal error", "data": "tx not found"}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}

    return rule


def refusal(request: dict[str, Any], log: str, tx_hash: str | None = None) -> dict[str, Any]:
    """A CheckTx refusal as tm2 words and types it (c4 acts on the type, issue 38), naming
    ``tx_hash`` (the request's own by default)."""
    kind = "/std.UnauthorizedError" if log.startswith("unauthorized") else ""
    kind = kind or "/std.InsufficientFundsError"
    base = {"Error": {"@type": kind, "value": {}}, "Log": log}
    named = tx_hash_of(request) if tx_hash is None else tx_hash
    result = {"check_tx": {"ResponseBase": base}, "deliver_tx": {}, "hash": named, "height": "0"}
    return answer(request, result)


def test_a_lost_answer_and_a_failed_look_up_never_pay_twice(bound: Home, gno_node: Any) -> None:
    """The broadcast's answer is lost, then every look-up by hash fails (429, 503, past
    the timeout, "not found" from a lagging index): the account's sequence has moved,
    and the blocks since the send hold the transaction. It landed, once, and the user
    is told so with its hash; nothing is signed again."""
    carol = bound.address("carol")
    kinds = ("429", "503", "not found", "slow")
    for round_number in range(ROUNDS):
        kind = kinds[round_number % len(kinds)]
        to = stranger()
        _, sequence = gno_node.account(carol)
        with proxy_for(gno_node.url) as proxy:
            proxy.rules["broadcast_tx_commit"] = lose_the_answer
            proxy.rules["tx"] = lookup_failure(kind)
            result = bound.run(
                *("--remote", proxy.url, "--json", "send", "--to", to),
                *("--amount", f"{AMOUNT}ugnot", "carol"),
                env={"C4_TIMEOUT": "2"},
            )
            broadcasts = proxy.seen.count("broadcast_tx_commit")
        assert (gno_node.balance(to), broadcasts) == (AMOUNT, 1), (kind, result.output)
        assert gno_node.account(carol)[1] == sequence + 1
        assert result.exit_code == 0, (kind, result.output)
        assert status_of(bound, json.loads(result.stdout)["hash"]) == "landed"


def test_a_refusal_of_bytes_the_node_took_never_pays_twice(bound: Home, gno_node: Any) -> None:
    """A proxy forwards the broadcast and answers a refusal naming its hash ("signature
    verification failed" that once made c4 sign the legacy payload, then a third
    transaction): the account's sequence moved, so the refusal is not believed; the
    transaction is found in its block and reported as landed."""
    for round_number in range(ROUNDS):
        log = (
            "unauthorized error: signature verification failed; verify correct account"
            if round_number % 2 == 0
            else "insufficient funds error: insufficient coins"
        )
        to = stranger()

        def lies(request: dict[str, Any], forward: Callable[[], Any], log: str = log) -> Any:
            forward()
            return refusal(request, log)

        with proxy_for(gno_node.url) as proxy:
            proxy.rules["broadcast_tx_commit"] = lies
            result = bound.run(
                *("--remote", proxy.url, "--json", "send", "--to", to),
                *("--amount", f"{AMOUNT}ugnot", "carol"),
            )
            broadcasts = proxy.seen.count("broadcast_tx_commit")
        assert (gno_node.balance(to), broadcasts) == (AMOUNT, 1), result.output
        assert result.exit_code == 0, result.output
        assert status_of(bound, json.loads(result.stdout)["hash"]) == "landed"


def test_a_refusal_naming_another_hash_is_no_evidence(bound: Home, gno_node: Any) -> None:
    """ "insufficient funds" for another transaction's hash, while the node took ours: c4
    looks its own up and reports it landed, exit 0."""
    to = stranger()

    def elsewhere(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        forward()
        return refusal(request, "insufficient funds error: x", base64.b64encode(b"o" * 32).decode())

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = elsewhere
        result = bound.run(
            "--remote", proxy.url, "--json", "send", "--to", to, "--amount", "7ugnot", "carol"
        )
    assert result.exit_code == 0, result.output
    assert gno_node.balance(to) == 7
    assert status_of(bound, json.loads(result.stdout)["hash"]) == "landed"


def test_a_refusal_before_the_bytes_arrive_is_settled_by_the_blocks(
    bound: Home, gno_node: Any
) -> None:
    """The proxy answers "insufficient funds" at once, naming the hash, and forwards the
    bytes three seconds later: believed then (the sequence had not moved: exit 1, the
    node's words), but kept open. The next command of the account finds it landed after
    all, says so with its hash and signs nothing (exit 4); the one after goes ahead.
    The recipient is paid once for the one send the user asked for."""
    to = stranger()
    forwarded = threading.Event()

    def later(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        def send() -> None:
            time.sleep(3)
            forward()
            forwarded.set()

        threading.Thread(target=send, daemon=True).start()
        return refusal(request, "insufficient funds error: insufficient coins")

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = later
        first = bound.run(
            "--remote", proxy.url, "send", "--to", to, "--amount", f"{AMOUNT}ugnot", "carol"
        )
        assert first.exit_code == 1, first.output
        assert first.stderr == "Error: insufficient funds error: insufficient coins\n"
        assert forwarded.wait(30)
    (refused,) = [entry for entry in bound.sent() if entry.get("to") == [to]]
    refused_hash = refused["hash"]
    deadline = time.monotonic() + 30
    while gno_node.balance(to) < AMOUNT and time.monotonic() < deadline:
        time.sleep(0.2)
    again = bound.run("send", "--to", to, "--amount", f"{AMOUNT}ugnot", "carol")
    assert again.exit_code == 4, again.output
    assert f"transaction {refused_hash}, which a node said it refused" in again.stderr
    assert "landed at height" in again.stderr and "nothing new was signed" in again.stderr
    assert gno_node.balance(to) == AMOUNT
    status = {entry["hash"]: entry["tx_status"] for entry in bound.sent()}
    assert status[refused_hash] == "landed"
    bound.ok("send", "--to", to, "--amount", f"{AMOUNT}ugnot", "carol")
    assert gno_node.balance(to) == 2 * AMOUNT


def run_at_once(commands: list[tuple[Path, list[str]]]) -> list[subprocess.CompletedProcess[str]]:
    c4 = str(Path(sys.executable).with_name("c4"))
    procs = [
        subprocess.Popen(
            [c4, *argv],
            env={**os.environ, "C4_HOME": str(home), "C4_PASSWORD": ""},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for home, argv in commands
    ]
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def hash_of(out: str) -> str:
    return next(line.split()[-1] for line in out.splitlines() if line.startswith("TX HASH:"))


@pytest.mark.slow
def test_identical_sends_at_once_from_one_home_each_land_their_own(
    bound: Home, gno_node: Any
) -> None:
    """20 identical `c4 send` at once from one home: the home's lock on the account has
    them sign one after another, each for its own sequence, so 20 distinct transactions
    land and each reports its own (none the same bytes as another's)."""
    to = stranger()
    argv = ["send", "--to", to, "--amount", f"{AMOUNT}ugnot", "bob"]
    done = run_at_once([(bound.path, argv)] * 20)
    assert [proc.returncode for proc in done] == [0] * 20, [p.stderr for p in done]
    hashes = [hash_of(proc.stdout) for proc in done]
    assert len(set(hashes)) == 20
    assert gno_node.balance(to) == 20 * AMOUNT


@pytest.mark.slow
def test_two_homes_of_one_key_never_claim_each_others_transaction(
    bound: Home, gno_node: Any, tmp_path: Path
) -> None:
    """Two homes of one key send identical transactions at once: identical bytes, one
    TX HASH. The node takes it once; a command whose copy it did not take says so
    (non-zero), and every command that reports success reports a transaction of its
    own: the recipient holds exactly what the successes say."""
    other = Home(tmp_path / "other")
    other.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    from c4cli.home.keys import Keyring

    Keyring(other.path).add("bob", gno_node.keys["bob"], "")
    to = stranger()
    argv = ["send", "--to", to, "--amount", f"{AMOUNT}ugnot", "bob"]
    done = run_at_once([(bound.path, argv), (other.path, argv)] * 4)
    succeeded = [proc for proc in done if proc.returncode == 0]
    hashes = [hash_of(proc.stdout) for proc in succeeded]
    assert len(set(hashes)) == len(hashes)
    assert gno_node.balance(to) == AMOUNT * len(succeeded)
    for proc in done:
        if proc.returncode != 0:
            assert proc.stderr.splitlines()[-1].startswith("Error: "), proc.stderr


FAR = 999_999_999


@pytest.mark.parametrize("trust_node", [False, True], ids=["verified", "trust-node"])
def test_a_forged_block_far_ahead_never_raises_the_seen_height(
    bound: Home, gno_node: Any, trust_node: bool
) -> None:
    """A proxy forges the broadcast's success and the block that holds it at height
    999999999 (never forwarding the bytes). Verified, the block's transactions do not
    hash to its header's data hash (nor its header to what the validators signed);
    with --trust-node, the node's own status is far below. Either way the landing is
    not believed: the transaction stays pending, the home's seen height is unchanged,
    and an honest node still serves every command."""
    to = stranger()

    def forged(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        deliver = {"ResponseBase": {"Error": None, "Data": ""}, "GasUsed": "1"}
        result = {
            **{"check_tx": {"ResponseBase": {"Error": None}}, "deliver_tx": deliver},
            **{"hash": tx_hash_of(request), "height": str(FAR)},
        }
        forged_block[0] = request["params"]["tx"]
        return answer(request, result)

    forged_block = [""]

    def far_block(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        if forged_block[0]:
            header = document["result"]["block"]["header"]
            header["height"] = str(FAR)
            document["result"]["block"]["data"]["txs"] = [forged_block[0]]
        return document

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = forged
        proxy.rules["block"] = far_block
        result = bound.run(
            "--remote",
            proxy.url,
            *(["--trust-node"] if trust_node else []),
            "send",
            "--to",
            to,
            "--amount",
            "5ugnot",
            "carol",
            env={"C4_TIMEOUT": "2"},
        )
    assert result.exit_code == 4, result.output
    if trust_node:
        said = f"said the transaction is in block {FAR}, but its own status is at"
    else:
        said = f"block {FAR}: its transactions do not hash to its data hash: not believed"
    assert said in result.stderr and result.stderr.count("\n") == 1
    assert "is pending" in result.stderr
    pending = re.search(r"TX HASH (\S+)\)", result.stderr)
    assert pending is not None and status_of(bound, pending.group(1)) == "pending"
    bound.ok("query", "balance", "carol")  # not "below height 999999999"
    bound.ok("send", "--to", to, "--amount", "5ugnot", "carol")  # settles it, then its own
    assert gno_node.balance(to) == 5 + 5


def test_a_home_that_saw_a_height_out_of_reach_is_told_so_in_one_command(
    bound: Home, gno_node: Any
) -> None:
    """A journal that believed a landing at 999999999 (an older c4, a forgery) refuses
    every honest node; `c4 log --forget-above HEIGHT` (reading no node) drops what it
    says landed above, and the home serves again."""
    line = {
        "status": "landed",
        "height": FAR,
        "time": "2026-01-01T00:00:00Z",
        "hash": base64.b64encode(b"f" * 32).decode(),
        "signer": bound.address("carol"),
    }
    with (bound.path / "journal.jsonl").open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    refused = bound.run("query", "balance", "carol")
    assert refused.exit_code == 4 and f"below height {FAR}" in refused.stderr
    height = gno_node.latest_height()
    forgot = bound.json("log", "--forget-above", str(height))
    assert forgot == {"forgotten": [line["hash"]], "seen_height": forgot["seen_height"]}
    assert forgot["seen_height"] <= height
    bound.ok("query", "balance", "carol")
    status = {entry["hash"]: entry["tx_status"] for entry in bound.sent()}
    assert status[line["hash"]] == "dropped"


def test_another_games_json_is_not_drawn_as_the_game_asked_for(bound: Home, gno_node: Any) -> None:
    """A proxy that answers GameJSON(N) with another game's JSON: caught (exit 4), never
    shown as game N."""
    first = int(bound.json("offer", "--stake", "1gnot", "alice")["result"][0])
    bound.ok("offer", "--stake", "1gnot", "alice")

    with proxy_for(gno_node.url) as proxy:

        def other_game(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
            params = request.get("params", {})
            data = base64.b64decode(params.get("data") or "").decode()
            if f"GameJSON({first})" not in data:
                return forward()
            swapped = data.replace(f"GameJSON({first})", f"GameJSON({first + 1})")
            changed = {
                **request,
                "params": {**params, "data": base64.b64encode(swapped.encode()).decode()},
            }
            return proxy.forward(json.dumps(changed).encode())

        proxy.rules["abci_query"] = other_game
        for args in (("show", str(first)), ("query", "game", str(first))):
            result = bound.run("--remote", proxy.url, *args)
            assert result.exit_code == 4, result.output
            # Held to the game the realm committed (issue 64), the answer's id differs.
            assert result.stderr.startswith(
                f"Error: game {first}: the node says id is {first + 1}, the state the realm "
                "committed, proven at block "
            ), result.stderr
            assert result.stderr.endswith(f" makes it {first}\n"), result.stderr


def test_a_stdout_that_cannot_be_written_after_a_send_on_a_node(bound: Home, gno_node: Any) -> None:
    """`c4 send … > /dev/full` on a node: the transaction landed, so the exit is 141 (the
    transaction stands), stderr names its height and hash, and the journal has it."""
    to = stranger()
    c4 = str(Path(sys.executable).with_name("c4"))
    env = {**os.environ, "C4_HOME": str(bound.path), "C4_PASSWORD": ""}
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [c4, "send", "--to", to, "--amount", "3ugnot", "carol"],
            env=env,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    (last,) = [entry for entry in bound.sent() if entry.get("to") == [to]]
    assert gno_node.balance(to) == 3 and last["tx_status"] == "landed"
    assert (proc.returncode, proc.stderr) == (
        141,
        "c4: stdout could not be written (No space left on device); the transaction was "
        f"recorded (height {last['height']}, TX HASH {last['hash']})\n",
    )


def test_init_never_prints_the_credentials_of_a_url(
    bound: Home, gno_node: Any, tmp_path: Path
) -> None:
    """`c4 init --remote http://user:s3cret@host`: the credentials are sent (basic auth),
    never printed, in text or in --json's url."""
    url = gno_node.url.replace("://", "://user:s3cret@")
    text = Home(tmp_path / "text").ok("init", "--remote", url, "--realm-path", REALM_PATH)
    assert f"uses the node at {gno_node.url}: chain dev" in text.stdout
    document = Home(tmp_path / "json").json("init", "--remote", url, "--realm-path", REALM_PATH)
    assert document["url"] == gno_node.url
    for output in (text.output, json.dumps(document)):
        assert "s3cret" not in output
