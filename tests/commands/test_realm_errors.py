"""A refusal of the realm on the command line: exit 1, the realm's words in one line,
nothing appended, and each command's options reaching the realm as its arguments.

Every refusal's words are tested on the realm itself (tests/realm/test_refusals.py);
here, one per command, what the command line adds: the options that become the
call's arguments (a key name for an address, --valid-for, --max-fee, --send,
--move) and the path from the realm's panic to the user's terminal.
"""

from __future__ import annotations

import pytest

from support import Home, strong

PASS = strong("creator passphrase")
SEED = strong("acceptor seed")


def offer(chain: Home, key: str = "alice", *extra: str, passphrase: str = PASS) -> str:
    doc = chain.json("offer", "--stake", "10gnot", "--passphrase", passphrase, *extra, key)
    return str(doc["result"][0])


def test_the_offers_options_reach_the_realm(chain: Home) -> None:
    def refused(words: str, *options: str) -> None:
        chain.fails(1, "offer", "--stake", "10gnot", *options, "alice", message=words)

    refused("cannot challenge yourself", "--opponent", "alice")  # a key name, as its address
    refused(
        "invalid opponent address (use the lower-case g1… form)",
        *("--opponent", chain.address("bob").upper()),
    )
    refused("validFor must be between 1 and 60 minutes", "--valid-for", "61m")
    refused("house fee is 0.1 GNOT, above your maxFee of 0.05 GNOT", "--max-fee", "0.05gnot")
    chain.fails(1, "offer", "--stake", "0.5gnot", "alice", message="stake below minimum of 1 GNOT")
    offer(chain)
    refused("commitment already used: generate a fresh secret", "--passphrase", PASS)


def test_each_game_command_passes_the_realms_refusal_on(chain: Home) -> None:
    gid = offer(chain, "alice", "--opponent", "bob")
    chain.fails(1, "accept", gid, "alice", message="cannot accept your own offer")
    chain.fails(
        1, "accept", gid, "--send", "9gnot", "bob", message="must send exactly 10000000ugnot"
    )
    chain.fails(1, "cancel", gid, "bob", message="only the creator can cancel an unexpired offer")
    chain.fails(1, "cancel", "99", "alice", message="game not found")
    chain.ok("accept", gid, "--seed", SEED, "bob")
    chain.fails(
        1,
        "reveal",
        gid,
        "--secret",
        "wrong",
        "alice",
        message="passphrase does not match the commitment",
    )
    chain.fails(1, "play", gid, "4", "alice", message="waiting for the creator to reveal")
    chain.ok("reveal", gid, "alice")
    chain.ok("reveal", gid, "bob")
    game = chain.game(int(gid))
    mover, other = (
        ("alice", "bob") if game["turnPlayer"] == chain.address("alice") else ("bob", "alice")
    )
    chain.fails(1, "play", gid, "4", other, message="not your turn")
    chain.fails(
        1, "play", gid, "4", "--move", "3", mover, message="stale move: the game is at move 0"
    )
    chain.fails(1, "claim-timeout", gid, "carol", message="move clock has not run out")
    chain.fails(1, "resign", gid, "carol", message="not a player in this game")


def test_the_owners_commands_pass_the_realms_refusal_on(chain: Home) -> None:
    chain.fails(1, "set-fee", "0.2gnot", "alice", message="ownable: caller is not owner")
    chain.fails(1, "set-fee", "0.6gnot", "test1", message="fee must be between 0 and 0.5 GNOT")
    chain.fails(1, "withdraw-fees", "alice", message="ownable: caller is not owner")
    chain.fails(1, "transfer-ownership", "bob", "alice", message="ownable: caller is not owner")
    chain.fails(
        1, "accept-ownership", "bob", message="no ownership transfer pending for this address"
    )


def test_a_call_sends_exactly_what_it_is_given(chain: Home) -> None:
    """`c4 call` passes its arguments and coins untouched: the realm judges them."""
    chain.ok("init", "--force", "--clock", "manual", "--premine", "alice=100000gnot,5foo")
    gid = offer(chain)
    chain.fails(
        1,
        "call",
        "Offer",
        *("", "15", "ab" * 32, "100000"),
        *("--send", "1000000ugnot,5foo"),
        "alice",
        message="send exactly one ugnot coin",
    )
    chain.fails(
        1,
        "call",
        "Cancel",
        gid,
        "--send",
        "1ugnot",
        "alice",
        message="this function does not accept coins",
    )
    chain.fails(
        1, "call", "SetFee", "--", "-1", "test1", message="fee must be between 0 and 0.5 GNOT"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["Play", "1", "x", "0"],
            'error parsing int "x": strconv.ParseInt: parsing "x": invalid syntax',
        ),
        (["Play", "1", "4"], "wrong number of arguments in call to Play: want 4 got 3"),
        (
            ["AcceptOwnership", "1"],
            "wrong number of arguments in call to AcceptOwnership: want 1 got 2",
        ),
        (
            ["Cancel", "99999999999999999999"],
            'error parsing int "99999999999999999999": strconv.ParseInt: '
            'parsing "99999999999999999999": value out of range',
        ),
        (["Cancel", "+1"], "numbers cannot start with +"),
        (
            ["Cancel", " 1"],
            'error parsing int " 1": strconv.ParseInt: parsing " 1": invalid syntax',
        ),
        (["Cancel", ""], 'error parsing int "": strconv.ParseInt: parsing "": invalid syntax'),
        (
            ["Cancel", "1_0"],
            'error parsing int "1_0": strconv.ParseInt: parsing "1_0": invalid syntax',
        ),
        (
            ["Cancel", "\u0661"],
            'error parsing int "\u0661": strconv.ParseInt: parsing "\u0661": invalid syntax',
        ),
        (["Nope"], "name Nope not declared"),
        (["bad-name"], "func must be a Go identifier"),
        (
            ["GameJSON", "1"],
            "function GameJSON is non-crossing and cannot be called with MsgCall; "
            "query with vm/qeval or use MsgRun",
        ),
    ],
)
def test_arguments_are_parsed_before_the_realm_runs(
    chain: Home, args: list[str], message: str
) -> None:
    chain.fails(1, "call", *args, "alice", message=message)
