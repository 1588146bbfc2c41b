"""c4 query: the realm's JSON verbatim, and gnokey's raw paths in gnokey's format."""

from __future__ import annotations

import json

import pytest

from support import GENESIS_UNIX, Home

REALM_PATH = "gno.land/r/samcrew/connect4"


def test_game_active_leaders_are_the_realm_json(chain: Home) -> None:
    chain.ok("offer", "--stake", "2gnot", "alice")
    game = chain.ok("query", "game", "1").stdout
    assert game == chain.ok("query", "game", "1", "--json").stdout  # JSON either way
    assert game.startswith(f'{{"now":{GENESIS_UNIX + 5},"game":{{"id":1,"creator":')
    assert chain.ok("query", "game", "7").stdout == f'{{"now":{GENESIS_UNIX + 5},"game":null}}\n'
    active = json.loads(chain.ok("query", "active", "--offset", "0", "--limit", "5").stdout)
    assert active["fee"] == 100000 and [g["id"] for g in active["games"]] == [1]
    assert chain.ok("query", "leaders").stdout == '{"wins":[],"gnot":[]}\n'


def test_qeval_and_qrender_in_gnokey_format(chain: Home) -> None:
    chain.ok("offer", "--stake", "2gnot", "alice")
    out = chain.ok("query", "vm/qeval", "--data", f"{REALM_PATH}.GameJSON(1)").stdout
    assert out.startswith('height: 1\ndata: ("{\\"now\\":')
    assert out.endswith('}" string)\n')
    out = chain.ok("query", "vm/qeval", "--data", f'{REALM_PATH}.Render("")').stdout
    assert out.startswith('height: 1\ndata: ("# Connect 4\\n')
    out = chain.ok("query", "vm/qrender", "--data", f"{REALM_PATH}:game/1").stdout
    assert out.startswith("height: 1\ndata: # Game #1 — open\n")
    assert chain.ok("query", "render", "nope").stdout == "# Not found\n"
    chain.fails(
        1,
        "query",
        "vm/qeval",
        "--data",
        "gno.land/r/other.Foo()",
        message="package not found: gno.land/r/other",
    )
    chain.fails(2, "query", "vm/qeval", "--data", "no expression here")
    chain.fails(
        1,
        "query",
        "vm/qeval",
        "--data",
        f"{REALM_PATH}.Offer()",
        message="function Offer is crossing: call it in a transaction",
    )


def test_fees_and_balances(chain: Home) -> None:
    assert chain.json("query", "fees") == {
        "fee_ugnot": 100000,
        "collected_ugnot": 0,
        "owner": chain.address("test1"),
        "pending_owner": None,
    }
    assert chain.ok("query", "balance", "alice").stdout == "10000000000000ugnot\n"
    chain.fails(
        2, "query", "balance", "nobody", message="'nobody' is neither a local key nor a g1 address"
    )
    chain.fails(2, "query", "whatever", message="unknown query 'whatever': see `c4 query --help`")


def test_the_realms_source_is_answered_on_the_local_chain_as_c4_serve_answers_it(
    chain: Home,
) -> None:
    """Issue 48: vm/qfile, vm/qdoc and vm/qpaths read the Gno that ships with c4, as
    `c4 serve` answers them from the same home; what only a node that prices gas
    answers is still refused."""
    files = chain.ok("query", "vm/qfile", "--data", REALM_PATH).stdout
    assert files.startswith("height: 0\ndata: address.gno\n") and "\nconnect4.gno\n" in files
    text = chain.ok("query", "vm/qfile", "--data", f"{REALM_PATH}/gnomod.toml").stdout
    assert f'module = "{REALM_PATH}"' in text
    doc = json.loads(chain.json("query", "vm/qdoc", "--data", REALM_PATH)["data"])
    assert any(f["name"] == "Offer" for f in doc["funcs"])
    chain.fails(1, "query", "vm/qfile", "--data", "gno.land/r/nope",
                message="package not found: gno.land/r/nope")  # fmt: skip
    chain.fails(2, "query", "vm/qfile", message="query vm/qfile needs --data")
    chain.fails(
        2,
        "query",
        "auth/gasprice",
        message="auth/gasprice has no meaning on the local chain: it runs the realm's Python "
        "mirror, not the GnoVM, and prices no gas (ask a node with --remote)",
    )
    # gnoweb's State tab asks for the GnoVM's stored objects: refused, saying why.
    for path in ("vm/qpkg_json", "vm/qobject_json", "vm/qstorage"):
        chain.fails(
            2,
            "query",
            path,
            "--data",
            REALM_PATH,
            message=f"{path} reads the GnoVM's stored objects, which the local chain does "
            "not keep: it holds the realm's state in its Python mirror (gnoland, as c4 node "
            "start runs it, answers it) (ask a node with --remote)",
        )


def test_a_query_at_a_past_height(chain: Home) -> None:
    """--height reads after that block, as gnokey's -height: the local chain replays its
    log up to it (checked as it goes). Height 0 is the last block, as on a node."""
    chain.ok("time", "advance", "5s")  # block 1: the send below is block 2
    before = chain.json("query", "balance", "alice")["ugnot"]
    sent = chain.json("send", "--to", "bob", "--amount", "1gnot", "alice")
    assert chain.json("query", "balance", "alice")["ugnot"] == before - 1_000_000
    then = chain.json("query", "balance", "alice", "--height", str(sent["height"] - 1))
    assert then["ugnot"] == before
    raw = chain.json("query", f"bank/balances/{chain.address('alice')}", "--height", "0")
    assert raw["data"] == f"{before - 1_000_000}ugnot" and raw["height"] == sent["height"]
    chain.fails(2, "query", "balance", "alice", "--height", "99")
    chain.fails(2, "query", "fees", "--height", "1")


@pytest.mark.parametrize(
    "expression",
    [
        "GameJSON(99999999999999999999)",
        "GameJSON(" + "9" * 5000 + ")",
        "ActiveJSON(0, 99999999999999999999999)",
        "ActiveJSON(" + "9" * 5000 + ", 1)",
    ],
)
def test_qeval_of_a_number_beyond_int64_is_the_vms_refusal(chain: Home, expression: str) -> None:
    """Issue 47: an argument beyond int64 (or of 5,000 digits) is refused as the VM
    refuses it, in one line, never a traceback."""
    chain.ok("offer", "--stake", "2gnot", "alice")
    result = chain.run("query", "vm/qeval", "--data", f"{REALM_PATH}.{expression}")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr[:300]
    assert result.stderr.startswith('Error: error parsing int "9')
    assert result.stderr.endswith(": value out of range\n")
