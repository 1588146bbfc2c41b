"""`c4 cheat`: anvil's cheats on the local chain (mine, set-balance, next-time, dump)
and `c4 init --load`, a chain that begins from a dumped state. Each change is a block
the log keeps, so `c4 verify` makes it again; a dump loaded elsewhere reads alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from support import Home, start_game


def test_mine_makes_empty_blocks_at_the_clocks_times(chain: Home) -> None:
    mined = chain.json("cheat", "mine", "3")
    assert (mined["height"], mined["time"]) == (3, "2026-01-01T00:00:15Z")  # 5 s a block
    assert [len(block["txs"]) for block in chain.json("log")] == [0, 0, 0]
    assert chain.json("verify")["ok"] is True
    before = chain.log_bytes()
    for bad in ("0", "-1", "100001", "x"):
        refused = chain.fails(2, "cheat", "mine", bad)
        assert refused.stderr.count("\n") == 1, refused.stderr
    assert chain.log_bytes() == before


def test_set_balance_is_a_block_that_sets_exactly(chain: Home) -> None:
    stranger = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"  # test1: a home key here too
    done = chain.json("cheat", "set-balance", "bob", "12.5gnot")
    assert done["balance"] == "12500000ugnot" and done["height"] == 1
    assert chain.balance("bob") == 12_500_000
    chain.ok("cheat", "set-balance", "bob", "0gnot")
    assert chain.balance("bob") == 0
    chain.ok("cheat", "set-balance", stranger, "3ugnot,7foo")
    assert chain.json("query", "balance", stranger)["ugnot"] == 3
    new = "g1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"[:-6] + "qqqqqq"
    chain.fails(2, "cheat", "set-balance", new, "1gnot")  # not an address (checksum)
    # The log keeps each as a block of its own; a replay makes the same balances.
    (last,) = [b for b in chain.json("log") if b["height"] == 3]
    assert last["txs"] == []
    assert chain.json("verify")["ok"] is True
    assert chain.balance("bob") == 0
    before = chain.log_bytes()
    past = chain.fails(1, "cheat", "set-balance", "bob", "9223372036854775807ugnot")
    assert "sum past int64" in past.stderr and past.stderr.count("\n") == 1
    chain.fails(2, "cheat", "set-balance", "bob", "lots")
    chain.fails(2, "cheat", "set-balance", "nobody", "1gnot")
    assert chain.log_bytes() == before


def test_next_time_dates_the_next_block_whatever_makes_it(chain: Home) -> None:
    set_to = chain.json("cheat", "next-time", "2026-03-01T00:00:00Z")
    assert set_to == {"next_time": "2026-03-01T00:00:00Z", "unix": 1772323200}
    assert chain.json("log") == []  # nothing mined
    offer = chain.json("offer", "--stake", "1gnot", "alice")
    assert offer["time"] == "2026-03-01T00:00:00Z"
    assert chain.json("cheat", "mine", "1")["time"] == "2026-03-01T00:00:05Z"  # taken once
    refused = chain.fails(2, "cheat", "next-time", "2026-03-01T00:00:05Z")
    assert "is not after the last block" in refused.stderr
    assert chain.json("verify")["ok"] is True


def test_a_dumped_state_loaded_in_another_home_reads_alike_and_plays_on(
    chain: Home, tmp_path: Path
) -> None:
    """A finished game, a live one, an open offer, a fee set and a balance cheated:
    the dump begins another chain whose every read is the first's, and the live
    game goes on there with the same keys, numbers and sequences."""
    finished = start_game(chain, "4545454")
    live = start_game(chain, "33", stake="2gnot", creator="carol", acceptor="alice")
    open_offer = chain.json("offer", "--stake", "3gnot", "bob")["result"][0]
    chain.ok("set-fee", "0.25gnot", "test1")
    chain.ok("cheat", "set-balance", "carol", "4321gnot")
    dumped = tmp_path / "state.json"
    chain.ok("cheat", "dump", str(dumped))
    document = json.loads(dumped.read_text())
    assert document["c4_state"] == 1 and len(document["realm"]["games"]) == 3

    copy = Home(tmp_path / "copy")
    shutil.copytree(chain.path / "keys", copy.path / "keys")
    shutil.copytree(chain.path / "secrets", copy.path / "secrets")
    made = copy.json("init", "--load", str(dumped), "--clock", "manual")
    assert made["state"] and made["time"] == document["time"]
    assert made["balances"] == {}  # every home key is an account of the state
    for args in (("query", "fees"), ("leaders",), ("lobby",), ("query", "active")):
        assert chain.json(*args) == copy.json(*args), args
    for game in (finished.id, live.id, str(open_offer)):
        assert chain.json("query", "game", game) == copy.json("query", "game", game), game
        # The realm's GameJSON alike, and the moves made before the chain began: the
        # state's move string, the record of block 0 (issue 60: they were lost).
        shown, theirs = copy.json("show", game), chain.json("show", game)
        assert shown["game"] == theirs["game"] and shown["moves"] == theirs["moves"]
    record = copy.json("export", finished.id)
    assert record["tags"]["Known"] == chain.json("export", finished.id)["tags"]["Known"]
    assert [move["height"] for move in record["move_list"]] == [0] * 7
    assert copy.run("review", finished.id).exit_code == 0
    for name in ("alice", "bob", "carol", "test1"):
        assert copy.balance(name) == chain.balance(name), name
    assert copy.json("verify")["ok"] is True

    # The live game goes on: the same accounts sign for the same sequences.
    moved = copy.json("play", live.id, "4", live.first)
    assert moved["height"] == 1 and moved["game"]["moves"] == 3
    assert chain.json("show", live.id)["game"]["moves"] == 2  # the first chain is unchanged


def test_an_altered_state_file_is_damage_and_a_bad_one_is_refused(
    chain: Home, tmp_path: Path
) -> None:
    dumped = tmp_path / "state.json"
    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.ok("cheat", "dump", str(dumped))
    copy = Home(tmp_path / "copy")
    copy.ok("init", "--load", str(dumped))
    kept = copy.path / "chain" / "genesis-state.json"
    kept.write_bytes(kept.read_bytes().replace(b'"fee":100000', b'"fee":100001'))
    damaged = copy.fails(3, "verify")
    assert "genesis-state.json: it is not the state the genesis names" in damaged.stderr

    for name, text in (
        ("not-json", "{"),
        ("other", json.dumps({"c4_state": 2})),
        ("broken", dumped.read_text().replace('"active":[1]', '"active":[]')),
    ):
        bad = tmp_path / f"{name}.json"
        bad.write_text(text)
        other = Home(tmp_path / name)
        refused = other.fails(2, "init", "--load", str(bad))
        assert refused.stderr.count("\n") == 1 and str(bad) in refused.stderr, refused.stderr
        assert not (other.path / "chain" / "blocks.toml").exists()
    keyed = Home(tmp_path / "keyed")
    shutil.copytree(chain.path / "keys", keyed.path / "keys")
    refused = keyed.fails(2, "init", "--load", str(dumped), "--premine", "alice=1gnot")
    assert f"the state loaded holds {keyed.address('alice')}, with its coins" in refused.stderr


CHEATS = [["mine", "1"], ["set-balance", "alice", "1gnot"], ["next-time", "2030-01-01T00:00:00Z"],
          ["dump", "-"]]  # fmt: skip


@pytest.mark.parametrize("cheat", CHEATS)
def test_cheats_are_refused_on_a_home_bound_to_a_node(home: Home, cheat: list[str]) -> None:
    refused = home.fails(2, "--remote", "http://127.0.0.1:9", "cheat", *cheat)
    assert refused.stderr.count("\n") == 1 and "c4 cheat" in refused.stderr, refused.stderr


def _edited(document: dict[str, object], change: str) -> dict[str, object]:
    """The dumped ``document`` with one thing in it that does not add up."""
    doc = json.loads(json.dumps(document))
    realm, games = doc["realm"], doc["realm"]["games"]
    live = next(g for g in games if g["status"] == "playing")
    account = doc["accounts"][0]
    match change:
        case "a full column":
            live["moves"] = "3333333"
        case "column 9":
            live["moves"] = "39"
        case "a million moves":
            live["moves"] = "34" * 500_000
        case "a fee of 10^30":
            realm["fee"] = 10**30
        case "a fee of -1":
            realm["fee"] = -1
        case "a fee above the cap":
            realm["fee"] = 500_001
        case "collected -7":
            realm["collected"] = -7
        case "a stake of -1 GNOT":
            next(g for g in games if g["status"] == "open")["stake"] = -1_000_000
        case "negative stats":
            realm["stats"][next(iter(realm["stats"]))] = [1, 0, 0, -5]
        case "a negative sequence":
            account["sequence"] = -1
        case "a realm that holds less than it owes":
            live["stake"] = live["stake"] * 1000
        case "a won board still playing":
            live["moves"] = "3434343"
    return doc


STATE_LIES = [
    "a full column", "column 9", "a million moves", "a fee of 10^30", "a fee of -1",
    "a fee above the cap", "collected -7", "a stake of -1 GNOT", "negative stats",
    "a negative sequence", "a realm that holds less than it owes", "a won board still playing",
]  # fmt: skip


def test_a_state_that_does_not_add_up_is_refused_before_anything_is_written(
    chain: Home, tmp_path: Path
) -> None:
    """Every game played again from its moves, every number held to the realm's bounds,
    the realm's coins to what it owes: a lie is one line, exit 2, and no chain."""
    start_game(chain, "4545454")
    start_game(chain, "33", stake="2gnot", creator="carol", acceptor="alice")
    chain.ok("offer", "--stake", "3gnot", "bob")
    dumped = tmp_path / "state.json"
    chain.ok("cheat", "dump", str(dumped))
    document = json.loads(dumped.read_text())
    for number, change in enumerate(STATE_LIES):
        bad = tmp_path / f"lie-{number}.json"
        bad.write_text(json.dumps(_edited(document, change)))
        other = Home(tmp_path / f"home-{number}")
        refused = other.fails(2, "init", "--load", str(bad))
        assert refused.stderr.count("\n") == 1, (change, refused.stderr)
        assert len(refused.stderr) < 400, (change, refused.stderr[:400])
        assert not (other.path / "chain" / "blocks.toml").exists(), change


def test_a_file_that_never_ends_is_refused_in_one_line(chain: Home, tmp_path: Path) -> None:
    """/dev/zero as a move record, a transaction, a state: refused at a bound, at once."""
    for args in (
        ("board", "--moves", "/dev/zero"),
        ("solve", "/dev/zero"),
        ("review", "--moves", "/dev/zero"),
        ("broadcast", "/dev/zero"),
        ("sign", "/dev/zero", "alice"),
        ("init", "--load", "/dev/zero"),
    ):
        refused = chain.run(*args)
        assert refused.exit_code == 2, (args, refused.output, refused.stderr)
        assert refused.stderr.count("\n") == 1 and "larger than" in refused.stderr, refused.stderr
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for args in (("init", "--load", str(deep)), ("broadcast", str(deep))):
        refused = Home(tmp_path / "deep").run(*args)
        assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr
    long = chain.run("board", "--moves", "1" * 1_000_000)
    assert long.exit_code == 2 and len(long.stderr) < 300, long.stderr[:300]
    record = tmp_path / "record.txt"
    record.write_text('[Game "1"]\n' + "9" * 5000 + ". 4  height " + "9" * 5000 + "\n")
    refused = chain.run("board", "--moves", str(record))
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr
