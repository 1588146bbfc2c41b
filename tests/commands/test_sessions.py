"""Session keys may move and reveal for their master, never touch stakes or own the realm."""

from __future__ import annotations

import tomllib

import pytest

from support import REALM, Home

REALM_PATH = "vm/exec:gno.land/r/samcrew/connect4"


def session(chain: Home, master: str, name: str, *extra: str) -> None:
    chain.ok(
        "session",
        "create",
        "--session-key",
        name,
        "--allow-paths",
        REALM_PATH,
        "--spend-limit",
        "100gnot",
        *extra,
        master,
    )


def test_session_plays_and_reveals_but_never_stakes(chain: Home) -> None:
    session(chain, "alice", "alice-s")
    session(chain, "bob", "bob-s")
    session(chain, "test1", "owner-s")
    chain.fails(
        1,
        "offer",
        "--stake",
        "10gnot",
        "--master",
        "alice",
        "alice-s",
        message="Offer needs the account's own key, not a session key",
    )
    game_id = chain.json("offer", "--stake", "10gnot", "alice")["result"][0]
    gid = str(game_id)
    chain.fails(
        1,
        "accept",
        gid,
        "--master",
        "bob",
        "bob-s",
        message="Accept needs the account's own key, not a session key",
    )
    chain.ok("accept", gid, "bob")
    chain.ok("reveal", gid, "--master", "alice", "alice-s")  # Reveal by session
    chain.ok("reveal", gid, "--master", "bob", "bob-s")  # RevealSeed by session
    game = chain.game(int(gid))
    mover = "alice" if game["turnPlayer"] == chain.address("alice") else "bob"
    chain.ok("play", gid, "4", "--master", mover, f"{mover}-s")
    assert chain.game(int(gid))["moves"] == 1
    chain.fails(
        1,
        "resign",
        gid,
        "--master",
        mover,
        f"{mover}-s",
        message="Resign needs the account's own key, not a session key",
    )
    for args in (
        ["set-fee", "0.2gnot"],
        ["withdraw-fees"],
        ["transfer-ownership", "bob"],
    ):
        func = {
            "set-fee": "SetFee",
            "withdraw-fees": "WithdrawFees",
            "transfer-ownership": "TransferOwnership",
        }[args[0]]
        chain.fails(
            1,
            *args,
            "--master",
            "test1",
            "owner-s",
            message=f"{func} needs the account's own key, not a session key",
        )
    chain.ok("transfer-ownership", "carol", "test1")
    session(chain, "carol", "carol-s")
    chain.fails(
        1,
        "accept-ownership",
        "--master",
        "carol",
        "carol-s",
        message="AcceptOwnership needs the account's own key, not a session key",
    )
    # The session's own transactions did not move the master's sequence.
    assert chain.json("query", "account", "alice")["BaseAccount"]["sequence"] == "2"


def test_session_chain_checks(chain: Home) -> None:
    chain.ok(
        "session",
        "create",
        "--session-key",
        "s1",
        "--allow-paths",
        "vm/exec:gno.land/r/samcrew",
        "--expires",
        "30s",
        "alice",
    )
    # vm/exec:<path> covers its sub-paths (the call reaches the realm) ...
    chain.fails(1, "call", "Cancel", "1", "--master", "alice", "s1", message="game not found")
    # ... but never a longer name.
    chain.ok(
        "session",
        "create",
        "--session-key",
        "s2",
        "--allow-paths",
        "vm/exec:gno.land/r/samcrew/connect",
        "alice",
    )
    chain.fails(
        1,
        "call",
        "Cancel",
        "1",
        "--master",
        "alice",
        "s2",
        message=f"session {chain.address('s2')} is not allowed to use "
        "vm/exec:gno.land/r/samcrew/connect4",
    )
    chain.ok(
        "session",
        "create",
        "--session-key",
        "s3",
        "--allow-paths",
        "*",
        "--spend-limit",
        "2gnot",
        "--expires",
        "1m",
        "alice",
    )
    s3 = chain.address("s3")
    chain.ok("send", "--to", "bob", "--amount", "1.5gnot", "--master", "alice", "s3")
    chain.fails(
        1,
        "send",
        "--to",
        "bob",
        "--amount",
        "0.6gnot",
        "--master",
        "alice",
        "s3",
        message=f"session {s3} spend limit exceeded: 2000000ugnot allowed",
    )
    chain.fails(
        1,
        "send",
        "--to",
        "bob",
        "--amount",
        "0.4gnot",
        "--gas-fee",
        "200000ugnot",
        "--master",
        "alice",
        "s3",
        message=f"session {s3} spend limit exceeded: 2000000ugnot allowed",
    )
    chain.ok("send", "--to", "bob", "--amount", "0.5gnot", "--master", "alice", "s3")
    chain.ok("time", "advance", "61s")
    chain.fails(
        1,
        "send",
        "--to",
        "bob",
        "--amount",
        "1ugnot",
        "--master",
        "alice",
        "s3",
        message=f"session {s3} has expired",
    )
    chain.ok("session", "revoke", "--session-key", "s2", "alice")
    chain.fails(
        1,
        "call",
        "Cancel",
        "1",
        "--master",
        "alice",
        "s2",
        message=f"session {chain.address('s2')} not found for account {chain.address('alice')}",
    )
    assert {s["address"] for s in chain.json("session", "list", "alice")} == {
        chain.address("s1"),
        s3,
    }


def test_spend_period_resets(chain: Home) -> None:
    chain.ok(
        "session",
        "create",
        "--session-key",
        "s",
        "--allow-paths",
        "bank/send",
        "--spend-limit",
        "1gnot",
        "--spend-period",
        "60",
        "--expires",
        "none",
        "alice",
    )
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "--master", "alice", "s")
    chain.fails(1, "send", "--to", "bob", "--amount", "1ugnot", "--master", "alice", "s")
    chain.ok("time", "advance", "60s")
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "--master", "alice", "s")


@pytest.mark.parametrize("revoke_all", [False, True])
def test_session_cannot_send_auth_messages(chain: Home, revoke_all: bool) -> None:
    chain.ok("session", "create", "--session-key", "s", "--allow-paths", "*", "alice")
    from c4cli.chain.interface import Signer
    from c4cli.errors import Refused
    from c4cli.home.keys import Keyring
    from c4cli.local.chain import LocalChain
    from c4cli.wire.tx import fee, revoke_all_sessions_msg, revoke_session_msg

    keyring = Keyring(chain.path)
    alice = keyring.info("alice").address
    session = keyring.info("s")
    signer = Signer(alice, keyring.private_key("s", None), session_addr=session.address)
    msg = (
        revoke_all_sessions_msg(alice) if revoke_all else revoke_session_msg(alice, session.pub_key)
    )
    before = chain.log_bytes()
    with pytest.raises(Refused, match="a session key cannot send auth messages"):
        LocalChain(chain.path).submit(signer, lambda st: [msg], fee(1, "0ugnot"), "")
    assert chain.log_bytes() == before


@pytest.mark.parametrize(
    "paths",
    [[], ["vm/exec:"], ["bank/everything"], [f"vm/exec:gno.land/r/x{i}" for i in range(9)]],
)
def test_bad_allow_paths(chain: Home, paths: list[str]) -> None:
    args = [a for p in paths for a in ("--allow-paths", p)]
    code = 2 if not paths else 1
    chain.fails(code, "session", "create", "--session-key", "s", *args, "alice")


def test_a_session_is_an_account_with_a_number_of_its_own(chain: Home) -> None:
    """As on gno.land: a new session takes the next account number, and its
    signatures cover that number and the session's own sequence."""
    numbers = {
        int(chain.json("query", "account", name)["BaseAccount"]["account_number"])
        for name in ("test1", "alice", "bob", "carol")
    }
    assert numbers == {0, 1, 2, 3}
    session(chain, "alice", "alice-s")
    (listed,) = chain.json("session", "list", "alice")
    assert listed["account_number"] == 4
    game_id = chain.json("offer", "--stake", "1gnot", "alice")["result"][0]
    chain.ok("accept", str(game_id), "bob")
    chain.ok("reveal", str(game_id), "--master", "alice", "alice-s")
    blocks = tomllib.loads((chain.path / "chain" / "blocks.toml").read_text())["block"]
    entry = blocks[-1]["txs"][0]
    assert (entry["account_number"], entry["sequence"]) == (4, 0)
    # Numbers go on counting after the session's: the realm's address became
    # account 5 with the first stake, the next new account is 6.
    assert chain.json("query", "account", REALM)["BaseAccount"]["account_number"] == "5"
    dave = chain.json("keys", "add", "dave")["address"]
    chain.ok("send", "--to", dave, "--amount", "1gnot", "alice")
    assert chain.json("query", "account", dave)["BaseAccount"]["account_number"] == "6"


def test_the_session_query_paths_answer_as_a_node_does(chain: Home) -> None:
    """auth/accounts/ADDR/sessions and …/session/S: gno.land's paths and shapes (the
    differential test holds them equal to a node's); `session list` reads them."""
    alice, bob = chain.address("alice"), chain.address("bob")
    assert chain.json("query", f"auth/accounts/{alice}/sessions")["data"] is None
    session(chain, "alice", "bob")
    listed = chain.json("query", f"auth/accounts/{alice}/sessions")["data"]
    assert [item["@type"] for item in listed] == ["/gno.SessionAccount"]
    one = chain.json("query", f"auth/accounts/{alice}/session/{bob}")["data"]
    assert one["BaseSessionAccount"]["master_address"] == alice
    assert one["BaseSessionAccount"]["BaseAccount"]["address"] == bob
    assert one["allow_paths"] == listed[0]["allow_paths"]
    chain.fails(1, "query", f"auth/accounts/{alice}/session/{alice}", message="session not found")
    assert [entry["address"] for entry in chain.json("session", "list", "alice")] == [bob]
