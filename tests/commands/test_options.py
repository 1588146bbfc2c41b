"""Options and their messages: where they may be given, what a bad one says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import Home, start_game


def test_options_given_to_the_time_group_reach_its_commands(chain: Home, tmp_path: Path) -> None:
    elsewhere = {"C4_HOME": str(tmp_path / "elsewhere")}  # no chain there
    before = chain.json("time")["unix"]
    moved = chain.run("time", "--home", str(chain.path), "advance", "1h", env=elsewhere)
    assert moved.exit_code == 0, moved.output
    assert chain.json("time")["unix"] == before + 3600
    shown = chain.ok("time", "--json", "advance", "1s").stdout
    assert json.loads(shown)["unix"] == before + 3601


def test_home_and_json_before_the_subcommand(chain: Home, tmp_path: Path) -> None:
    elsewhere = {"C4_HOME": str(tmp_path / "elsewhere")}
    gid = start_game(chain, "45").id
    result = chain.run("--home", str(chain.path), "--json", "query", "game", gid, env=elsewhere)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["game"]["id"] == int(gid)
    keys = chain.run("--home", str(chain.path), "keys", "list", "--json", env=elsewhere)
    assert {k["name"] for k in json.loads(keys.stdout)} >= {"alice", "bob"}
    # The option nearest the command wins.
    inner = chain.run("--home", str(tmp_path / "nowhere"), "time", "--home", str(chain.path))
    assert inner.exit_code == 0, inner.output
    # And a failure under a group-level --json is one JSON document.
    missing = chain.run("--json", "--home", str(tmp_path / "nowhere"), "time")
    assert missing.exit_code == 3 and json.loads(missing.stdout)["ok"] is False


@pytest.mark.parametrize("args", [[], ["keys"], ["session"]])
def test_a_group_alone_shows_its_help(home: Home, args: list[str]) -> None:
    result = home.run(*args)
    assert result.exit_code == 0
    assert result.stdout == home.run(*args, "--help").stdout
    first = result.stdout.split("\n")[0]
    assert first.startswith("Usage: ") and first.endswith(" [OPTIONS] COMMAND [ARGS]...")
    # c4's own commands come in sections (issue 48); a group's, as click lists them.
    heading = "\nPlay a game:\n" if not args else "\nCommands:\n"
    assert heading in result.stdout and not result.stderr


def test_valid_for_messages_agree_and_say_what_a_bare_number_is(chain: Home) -> None:
    why = "whole minutes, e.g. 15m or 1h"
    for text in ("1y", "90s", "", "1.5m"):
        chain.fails(
            2,
            "offer",
            "--stake",
            "1gnot",
            "--valid-for",
            text,
            "alice",
            message=f"invalid --valid-for {text!r}: {why}",
        )
    game = chain.game(
        chain.json("offer", "--stake", "1gnot", "--valid-for", "20m", "alice")["result"][0]
    )
    assert game["expiresAt"] == chain.json("time")["unix"] + 20 * 60
    chain.fails(
        2,
        "time",
        "advance",
        "1y",
        message="invalid duration '1y': use e.g. 90s, 15m, 1h (a bare number is seconds)",
    )


def test_stake_text_errors(chain: Home) -> None:
    chain.fails(
        2,
        "offer",
        "--stake",
        "",
        "alice",
        message="invalid amount '': expected e.g. 10gnot or 1000000ugnot",
    )
    chain.fails(
        2,
        "offer",
        "--stake",
        "1,5gnot",
        "alice",
        message="invalid amount '1,5gnot': '1' has no denomination (e.g. 10gnot, 1000000ugnot)",
    )
    chain.fails(
        2,
        "send",
        "--to",
        "bob",
        "--amount",
        "5gnot,",
        "alice",
        message="invalid amount '5gnot,': expected e.g. 10gnot or 1000000ugnot",
    )


def test_generate_only_prints_the_unsigned_transaction_and_sends_nothing(chain: Home) -> None:
    before = chain.log_bytes()
    alice = chain.address("alice")
    result = chain.run("send", "--to", "bob", "--amount", "5ugnot", alice, "--generate-only")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "msg": [
            {
                "@type": "/bank.MsgSend",
                "from_address": alice,
                "to_address": chain.address("bob"),
                "amount": "5ugnot",
            }
        ],
        "fee": {"gas_wanted": "2000000", "gas_fee": ""},
        "signatures": None,
        "memo": "",
    }
    # An offer's secret is kept: the printed transaction may reach the chain elsewhere.
    secrets = chain.path / "secrets"
    kept = len([p for p in secrets.rglob("*") if p.is_file()])
    offered = chain.run("offer", "--stake", "1gnot", "alice", "--generate-only")
    assert offered.exit_code == 0 and '"func":"Offer"' in offered.stdout
    assert len([p for p in secrets.rglob("*") if p.is_file()]) == kept + 1
    assert chain.log_bytes() == before
    chain.fails(
        2,
        "send",
        "--to",
        "bob",
        "--amount",
        "1ugnot",
        "alice",
        "--generate-only",
        "--simulate",
        "only",
        message="--generate-only sends nothing already: leave out --simulate only",
    )


@pytest.mark.parametrize("number", ["\u0661\u0660", "1_0", "9223372036854775808", "-1", "1e3"])
def test_a_whole_number_option_is_ascii_digits_within_int64(chain: Home, number: str) -> None:
    """--move and --gas-wanted take what gnokey and the realm take: nothing Python's int()
    would also read (other scripts' digits, underscores) and nothing past int64, refused
    before anything is signed."""
    gid = start_game(chain, "4").id
    send = ("send", "--to", "bob", "--amount", "1ugnot", "alice")
    for args in (("play", gid, "4", "bob", "--move", number), (*send, "--gas-wanted", number)):
        result = chain.fails(2, *args)
        assert f"{number!r} is not a whole number from 0 to 9223372036854775807" in result.stderr


def test_an_amount_in_scientific_notation_is_refused_not_a_new_coin(chain: Home) -> None:
    chain.fails(2, "send", "--to", "bob", "--amount", "1e3gnot", "alice",
                message="invalid amount '1e3gnot': write the number out (e.g. 1000gnot), "
                "not 1e3")  # fmt: skip


@pytest.mark.parametrize(
    "how",
    [("keys", "add", "zed", "--quiet"), ("--quiet", "keys", "add", "zed"), ("keys", "add", "zed")],
)
def test_quiet_drops_notices_that_are_not_about_money(home: Home, how: tuple[str, ...]) -> None:
    """--quiet (on the command or the group) or $C4_QUIET=1 drops the warning that a key
    is kept without a passphrase; without either it is said."""
    env = {"C4_QUIET": "1"} if "--quiet" not in how else {"C4_QUIET": ""}
    result = home.run(*how, env=env)
    assert result.exit_code == 0 and result.stderr == ""
    loud = home.run("keys", "add", "zed-loud", env={"C4_QUIET": ""})
    assert loud.stderr.startswith("WARNING: the key is stored unencrypted")


def test_quiet_never_silences_what_is_said_about_money(capsys: pytest.CaptureFixture[str]) -> None:
    from c4cli import errors
    from c4cli.commands.run import Invocation

    Invocation([]).begin().set_quiet(True)
    errors.notice("a notice")
    errors.warn_once("note: transaction X, sent earlier, landed at height 3")
    assert capsys.readouterr().err == "note: transaction X, sent earlier, landed at height 3\n"


def test_issue_47s_smaller_cases(chain: Home, tmp_path: Path) -> None:
    """`cancel --expired --simulate only` says nothing was sent (no TX HASH of a block);
    sign's numbers take ASCII digits only, as every whole-number option; a typo of a
    denomination is unknown, not insufficient funds."""
    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.ok("time", "advance", "2h")
    log = chain.log_bytes()
    rehearsed = chain.ok("cancel", "--expired", "--simulate", "only", "alice").stdout
    assert "TX HASH" not in rehearsed and "game 1 cancelled" not in rehearsed, rehearsed
    assert "game 1 would be cancelled: 1 GNOT back to alice" in rehearsed
    assert "(simulated only: nothing was sent)" in rehearsed
    assert chain.log_bytes() == log

    tx = tmp_path / "send.json"
    tx.write_text(chain.ok("send", "--to", "bob", "--amount", "5ugnot", "alice",
                           "--generate-only").stdout)  # fmt: skip
    unsigned = tx.read_bytes()
    for number, sequence in (("\u0661", "1"), ("1", "1_0"), ("1", "9" * 5000)):
        numbers = ("--account-number", number, "--account-sequence", sequence)
        result = chain.run("sign", str(tx), "alice", "--chain-id", "dev", *numbers,
                           "--send-cap", "1gnot")  # fmt: skip
        assert result.exit_code == 2 and "is not a whole number from 0 to" in result.stderr
    assert tx.read_bytes() == unsigned

    chain.fails(2, "send", "--to", "bob", "--amount", "5ugno", "alice",
                message=f"invalid --amount '5ugno': unknown denomination 'ugno' "
                f"({chain.address('alice')} holds none of it); GNOT is written 5gnot or "
                "5000000ugnot")  # fmt: skip
    assert chain.log_bytes() == log


def test_without_gnoland_node_start_says_how_to_build_it_from_anywhere(
    home: Home, tmp_path: Path
) -> None:
    """Issue 48: a wheel has no scripts/install-gno.sh; the error says what a wheel user
    runs (Go's own install of the pinned gnoland and gnokey)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"GNO_BIN": str(empty), "XDG_CACHE_HOME": str(empty), "PATH": str(empty)}
    result = home.run("node", "start", env=env)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert "gnoland and gnokey not found: build them with Go >= 1.25.9: GOBIN=" in result.stderr
    assert "go install github.com/gnolang/gno/gno.land/cmd/gnoland@v1.7.1 " in result.stderr
    assert "(from a checkout of c4: scripts/install-gno.sh), or set GNO_BIN" in result.stderr


def test_the_gnoland_version_is_read_from_the_binary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 48: `c4 node start` says the version Go recorded in the binary it runs (not
    a constant), and notes once one that is not the pinned version."""
    from c4cli.commands.run import Invocation
    from c4cli.gnoland.binaries import GNO_VERSION, checked_version, gno_version

    folder = tmp_path / "bin"
    folder.mkdir()
    binary = folder / "gnoland"
    record = b"path\tgithub.com/gnolang/gno/gno.land/cmd/gnoland\n"
    binary.write_bytes(b"\x00ELF" + record + b"mod\tgithub.com/gnolang/gno\tv1.6.2\th1:x=\n")
    assert gno_version(binary) == "v1.6.2"
    Invocation([]).begin()
    assert checked_version(folder) == "v1.6.2"
    said = capsys.readouterr().err
    assert said.count("\n") == 1
    assert f"is gnoland v1.6.2, not the {GNO_VERSION} c4 is tested with" in said
    binary.write_bytes(b"\x00ELF" + record + b"mod\tgithub.com/gnolang/gno\t(devel)\t\n")
    assert gno_version(binary) == "(devel)"
    binary.write_bytes(b"no build record")
    assert gno_version(binary) == "unknown"


def test_issue_48s_smaller_words(chain: Home) -> None:
    """A made-up snapshot id matches no block (no history guessed); scientific notation
    is written out in the denomination typed."""
    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.fails(2, "revert", "1:0000000000000000", message="snapshot 1:0000000000000000 "
                "matches no block of this chain: its block 1 is "
                f"{chain.json('snapshot')['id']}")  # fmt: skip
    chain.fails(2, "revert", "99:0000000000000000",
                message="snapshot 99:0000000000000000 matches no block of this chain: its last "
                "block is 1")  # fmt: skip
    chain.fails(2, "offer", "--stake", "1e3ugnot", "alice",
                message="invalid amount '1e3ugnot': write the number out (e.g. 1000ugnot), "
                "not 1e3")  # fmt: skip


def test_a_duration_without_a_unit_is_seconds_or_refused(chain: Home) -> None:
    """Issue 48: one rule. A bare number is seconds (`c4 time advance 5`); --valid-for,
    which the realm counts in minutes, refuses one and says how to write it."""
    before = chain.json("time")["unix"]
    assert chain.json("time", "advance", "5")["unix"] == before + 5
    chain.fails(2, "offer", "--stake", "1gnot", "--valid-for", "5", "alice",
                message="invalid --valid-for '5': give its unit, e.g. 5m (a duration without "
                "a unit is seconds in c4, and an offer lives whole minutes)")  # fmt: skip
