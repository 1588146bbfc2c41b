"""What a new user tripped over on a first try of c4 (issue 9's numbered list), one test each."""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path

import pytest

from support import Home


def started(chain: Home) -> str:
    """A game in play with one move by each side."""
    gid = str(chain.json("offer", "--stake", "1gnot", "alice")["result"][0])
    chain.ok("accept", gid, "bob")
    chain.ok("reveal", gid, "alice")
    chain.ok("reveal", gid, "bob")
    for column in ("4", "5"):
        mover = "alice" if chain.game(int(gid))["turn"] == 1 else "bob"
        chain.ok("play", gid, column, mover)
    return gid


# 1. Options given to a group were dropped.
def test_options_given_to_the_time_group_reach_its_commands(chain: Home, tmp_path: Path) -> None:
    elsewhere = {"C4_HOME": str(tmp_path / "elsewhere")}  # no chain there
    before = chain.json("time")["unix"]
    moved = chain.run("time", "--home", str(chain.path), "advance", "1h", env=elsewhere)
    assert moved.exit_code == 0, moved.output
    assert chain.json("time")["unix"] == before + 3600
    shown = chain.ok("time", "--json", "advance", "1s").stdout
    assert json.loads(shown)["unix"] == before + 3601


# 2. --home and --json before the subcommand.
def test_home_and_json_before_the_subcommand(chain: Home, tmp_path: Path) -> None:
    elsewhere = {"C4_HOME": str(tmp_path / "elsewhere")}
    gid = started(chain)
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


# 3. Bare `c4`, `c4 keys`, `c4 session`: the help, as help.
@pytest.mark.parametrize("args", [[], ["keys"], ["session"]])
def test_a_group_alone_shows_its_help(home: Home, args: list[str]) -> None:
    result = home.run(*args)
    assert result.exit_code == 0
    assert result.stdout == home.run(*args, "--help").stdout
    first = result.stdout.split("\n")[0]
    assert first.startswith("Usage: ") and first.endswith(" [OPTIONS] COMMAND [ARGS]...")
    assert "\nCommands:\n" in result.stdout and not result.stderr


# 4. Without colour, the two players' discs must still differ.
@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_show_on_a_terminal_without_colour_tells_the_discs_apart(
    chain: Home, c4_bin: str, env: dict[str, str]
) -> None:
    gid = started(chain)
    primary, secondary = pty.openpty()
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full.update(C4_HOME=str(chain.path), COLUMNS="100", TERM="xterm-256color")
    full.update(env)  # a terminal that would show colour, but for this
    proc = subprocess.run([c4_bin, "show", gid], stdout=secondary, stderr=secondary, env=full)
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(primary)
    assert proc.returncode == 0
    text = out.decode()
    assert "\x1b[" not in text  # no colour codes at all
    assert "...RY..\r\n1234567" in text or "...YR..\r\n1234567" in text, text


# 5. --valid-for and durations: one story, told the same way.
def test_valid_for_messages_agree_and_say_what_a_bare_number_is(chain: Home) -> None:
    why = "whole minutes, e.g. 15m or 1h (a bare number is minutes)"
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
        chain.json("offer", "--stake", "1gnot", "--valid-for", "20", "alice")["result"][0]
    )
    assert game["expiresAt"] == chain.json("time")["unix"] + 20 * 60
    chain.fails(
        2,
        "time",
        "advance",
        "1y",
        message="invalid duration '1y': use e.g. 90s, 15m, 1h (a bare number is seconds)",
    )


# 6. Stakes: an empty one is bad input, and a bad part is named within the whole.
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


# 7. A blank line after the last block is not a block cut short.
def test_blank_lines_after_the_last_block_are_harmless(chain: Home) -> None:
    log = chain.path / "chain" / "blocks.toml"
    chain.ok("time", "advance", "5s")
    with log.open("a") as handle:
        handle.write("\n")
    assert chain.json("time")["height"] == 1
    chain.ok("send", "--to", "bob", "--amount", "1ugnot", "alice")  # appends after it
    with log.open("a") as handle:
        handle.write("\n  \n")
    assert chain.json("verify")["height"] == 2
    # Text that is not blank still is damage.
    with log.open("a") as handle:
        handle.write("x\n")
    chain.fails(3, "time")


# 9. The demo keeps the chain it talks about.
def test_demo_keeps_its_chain_and_says_where(home: Home) -> None:
    text = home.ok("demo").stdout
    last = text.rstrip("\n").split("\n")[-1]
    assert last.startswith("  c4 verify --home ")
    kept = Path(last.removeprefix("  c4 verify --home "))
    assert kept.is_dir() and f"kept in {kept}" in text
    assert json.loads(home.ok("verify", "--json", "--home", str(kept)).stdout)["height"] == 11
    summary = json.loads(home.ok("demo", "--json").stdout)
    assert Path(summary["home"]).is_dir()
    # Given before the command, --home and --json reach the demo too.
    chosen = home.path.parent / "chosen"
    given = json.loads(home.ok("--home", str(chosen), "--json", "demo").stdout)
    assert given["home"] == str(chosen) and (chosen / "chain" / "blocks.toml").is_file()
    for folder in (kept, Path(summary["home"])):
        import shutil

        shutil.rmtree(folder)


# 10. A drawn board's JSON says it is drawn, not won by "empty".
def test_board_json_of_a_drawn_game(home: Home) -> None:
    drawn = "315117645176335765636674142222472457245331"  # engine.md's 42-move draw
    doc = json.loads(home.ok("board", "--moves", drawn, "--json").stdout)
    assert doc["winner"] is None and doc["draw"] is True and doc["over"] is True
    assert doc["turn"] is None and doc["line"] == []
    going = json.loads(home.ok("board", "--moves", "44", "--json").stdout)
    assert going["winner"] is None and going["draw"] is False and going["turn"] == "red"


# 12. The README's operator commands run as written.
# What a user expected of `c4 log`: key names, a send's amount and recipient,
# calls written as everywhere else, --tail, and a negative --from refused.
def test_log_names_keys_and_shows_sends_and_calls(chain: Home) -> None:
    alice, bob = chain.address("alice"), chain.address("bob")
    chain.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    started(chain)  # offer, accept, two reveals, two moves: heights 2-7
    text = chain.ok("log", "--from", "1", "--to", "1").stdout.split("\n")[1]
    assert text.split("  ")[4:6] == [
        f"alice ({alice})",
        f"send 1000000ugnot to bob ({bob})",
    ]
    tail = chain.json("log", "--tail", "2")
    assert [b["height"] for b in tail] == [6, 7]
    assert tail[-1]["txs"][0]["signer_key"] in ("alice", "bob")
    last = chain.ok("log", "--tail", "1").stdout
    assert "  Play(1, 5, 1)  " in last
    assert [b["height"] for b in chain.json("log", "--tail", "3", "--to", "4")] == [2, 3, 4]
    chain.fails(
        2, "log", "--from", "-1", message="Invalid value for '--from': -1 is not in the range x>=1."
    )
    chain.fails(2, "log", "--tail", "0")


def test_owner_commands_say_what_changed(chain: Home) -> None:
    out = chain.ok("set-fee", "0.2gnot", "test1").stdout
    assert out.splitlines()[-1] == "house fee for new offers set to 0.2 GNOT"
    chain.ok("keys", "add", "treasury")
    out = chain.ok("withdraw-fees", "--to", "treasury", "test1").stdout
    assert out.splitlines()[-1] == "fees withdrawn: nothing was collected"
    out = chain.ok("transfer-ownership", "carol", "test1").stdout
    assert out.splitlines()[-1] == (
        f"ownership offered to carol ({chain.address('carol')}); it takes over once it accepts"
    )
    assert (
        chain.ok("accept-ownership", "carol").stdout.splitlines()[-1] == "carol now owns the realm"
    )


def test_a_node_url_that_is_not_one(chain: Home) -> None:
    for url in ("notaurl::", "http://x:99999", "ftp://node"):
        chain.fails(
            2,
            "--remote",
            url,
            "lobby",
            message=f"invalid node URL {url!r}: use http://HOST:PORT or https://HOST",
        )
