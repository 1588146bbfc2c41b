"""Every command, given bad input, says so in one line with the exit code of the
README's table (2: caught before anything was signed; 3: the home; 4: the chain)
and changes nothing: the log is the same bytes, and no key or file appears."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import Home, leaf_commands

UNREACHABLE = "http://127.0.0.1:9"  # the discard port: nothing answers there

# command -> [(its arguments, the exit code)]; game 1 is alice's open offer.
CASES: dict[str, list[tuple[list[str], int]]] = {
    "offer": [(["--stake", "x", "alice"], 2), (["--stake", "1gnot", "nobody"], 2)],
    "accept": [(["one", "bob"], 2), (["1", "nobody"], 2)],
    "reveal": [(["-- -1", "alice"], 2), (["1", "--secret", "", "nobody"], 2)],
    "play": [
        (["1", "x", "alice"], 2),
        (["1", "-1", "alice"], 2),
        (["1", "4", "--move", "y", "alice"], 2),
    ],
    "claim-timeout": [
        (["x", "alice"], 2),
        (["1", "--wait", "soon", "alice"], 2),
        (["1", "--wait", "2h", "alice"], 2),
    ],
    "cancel": [(["1.5", "alice"], 2), (["--expired"], 2), (["--expired", "1", "alice"], 2)],
    "games": [(["nobody"], 2), (["alice", "--status", "gone"], 2)],
    "resign": [(["", "alice"], 2)],
    "call": [(["Play", "1", "--send", "5", "alice"], 2)],
    "send": [
        (["--to", "nobody", "--amount", "1gnot", "alice"], 2),
        (["--to", "bob", "--amount", "1e3gnot", "alice"], 2),
    ],
    "set-fee": [(["-1gnot", "test1"], 2), (["lots", "test1"], 2)],
    "withdraw-fees": [(["--to", "g1notanaddress", "test1"], 2)],
    "transfer-ownership": [(["nobody", "test1"], 2)],
    "accept-ownership": [(["nobody"], 2)],
    "show": [(["0"], 2), (["x"], 2)],
    "board": [(["--moves", "8"], 2), (["1", "--format", "png"], 2)],
    "watch": [(["x"], 2)],
    "lobby": [(["--remote", UNREACHABLE], 4)],
    "leaders": [(["--home", "{missing}"], 3)],
    "hint": [
        (["x"], 2),
        ([], 2),
        (["--moves", "4444444"], 2),
        (["--moves", "44", "--think", "2x"], 2),
    ],
    "bot": [(["1", "nobody"], 2), (["1", "alice", "--think", "never"], 2)],
    "solve": [(["4444444"], 2), (["9"], 2)],
    "review": [([], 2), (["x"], 2), (["--moves", "8"], 2), (["1", "--moves", "44"], 2)],
    "export": [(["x"], 2), (["1", "--format", "pgn"], 2), (["1", "--proof", "{folder}/p"], 2)],
    "verify-record": [
        (["{folder}/none.json", "--fingerprint", "ab" * 32], 2),
        (["{folder}/none.json"], 2),
        (["{folder}/none.json", "--trust", "1:zz"], 2),
    ],
    "time": [(["--remote", UNREACHABLE], 4), (["--home", "{missing}"], 3)],
    "time advance": [(["-5s"], 2), (["soon"], 2)],
    "time set": [(["yesterday"], 2), (["10000-01-01T00:00:00Z"], 2)],
    "cheat mine": [(["0"], 2), (["many"], 2)],
    "cheat set-balance": [(["nobody", "1gnot"], 2), (["bob", "lots"], 2)],
    "cheat next-time": [(["2000-01-01T00:00:00Z"], 2), (["soon"], 2)],
    "cheat dump": [(["{missing}/x/state.json"], 3), (["--remote", UNREACHABLE, "-"], 2)],
    "query": [(["game", "x"], 2), (["balance", "nobody"], 2), (["nosuch/path"], 2)],
    "log": [(["--from", "x"], 2), (["--forget-above", "-3"], 2), (["--realm"], 2)],
    "tx": [(["notbase64!!"], 2)],
    "verify": [(["--home", "{missing}"], 3)],
    "serve": [
        (["--listen", "nowhere"], 2),
        (["--block-time", "soon"], 2),
        (["--home", "{missing}"], 3),
        (["--strict"], 2),  # the gateway's
        (["--upstream", UNREACHABLE], 2),  # a home bound to no network: no set to trust
        (["--upstream", UNREACHABLE, "--block-time", "1s"], 2),
    ],
    "snapshot": [(["--remote", UNREACHABLE], 2), (["--home", "{missing}"], 3)],
    "revert": [(["12"], 2), (["1:0000000000000000"], 2), (["999:0000000000000000"], 2)],
    "init": [
        (["--clock", "sundial"], 2),
        (["--genesis-time", "noon"], 2),
        (["--force", "--load", "{missing}/state.json"], 2),
        (["--force", "--fork", "http://127.0.0.1:9@0"], 2),
        (["--force", "--fork", "http://127.0.0.1:26657@abc"], 2),  # a height, not credentials
        (["--force", "--fork", "http://127.0.0.1:9", "--load", "x.json"], 2),
    ],
    "keys add": [(["bad/name"], 2), (["alice"], 2)],
    "keys list": [
        (["--home", "{missing}", "--remote", UNREACHABLE], 2),
        (["--home", "{missing}"], 3),
    ],
    "keys show": [(["nobody"], 2)],
    "keys rotate": [(["nobody"], 2), (["bad/name"], 2)],
    "keys delete": [(["nobody", "--yes"], 2)],
    "keys export": [(["nobody", "--output-path", "{folder}/x.armor"], 2)],
    "keys import": [(["k", "--armor-path", "{folder}/none.armor"], 2)],
    "session create": [
        (["--session-key", "nobody", "--expires", "1h", "alice"], 2),
        (["--session-key", "bob", "--expires", "later", "alice"], 2),
    ],
    "session list": [(["nobody"], 2)],
    "session revoke": [(["--session-key", "nobody", "alice"], 2)],
    "sign": [(["{folder}/none.json", "alice"], 2)],
    "multisign": [(["{folder}/none.json", "alice", "--signature", "{folder}/none.sig"], 2)],
    "broadcast": [(["{folder}/none.json"], 2)],
    "node start": [(["--validators", "0"], 2), (["--validators", "abc"], 2)],
    "node stop": [(["--validator", "x"], 2)],
    "node status": [(["--remote", UNREACHABLE], 2)],
    # A local chain: no set to trust; no chain at all: a home to make first.
    "trust": [([], 2), (["--remote", UNREACHABLE], 2), (["--home", "{missing}"], 3)],
    "sync": [([], 2), (["--from", "0"], 2), (["--remote", UNREACHABLE], 2)],
    "audit": [(["extra"], 2)],  # a local chain: its log holds every block
    "node logs": [([], 2), (["--validator", "-1"], 2)],
    "demo": [(["--home", "{folder}/home"], 2)],
    "completion": [(["tcsh"], 2), ([], 2)],
}


def files(folder: Path) -> list[Path]:
    """The files of a test's folder, less the cache (SQLite's own -wal, -shm come and go)."""
    return sorted(
        p.relative_to(folder)
        for p in folder.rglob("*")
        if "cache" not in p.relative_to(folder).parts
    )


def test_every_command_has_bad_inputs_here() -> None:
    assert leaf_commands() <= set(CASES), sorted(leaf_commands() - set(CASES))


@pytest.mark.parametrize(
    ("command", "args", "code"),
    [(command, args, code) for command, cases in CASES.items() for args, code in cases],
    ids=lambda v: v if isinstance(v, str) else " ".join(v) if isinstance(v, list) else str(v),
)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_bad_input_is_one_line_an_exit_code_and_no_change(
    chain: Home, command: str, args: list[str], code: int, as_json: bool
) -> None:
    chain.ok("offer", "--stake", "1gnot", "alice")
    folder = chain.path.parent
    filled = [arg.format(folder=folder, missing=folder / "missing") for arg in args]
    argv = [*command.split(), *(a for arg in filled for a in arg.split(" ") if a)]
    before = files(folder)
    log = chain.log_bytes()
    result = chain.run(*argv, *(["--json"] if as_json else []))
    assert result.exit_code == code, (argv, result.exit_code, result.stdout, result.stderr)
    if as_json:
        import json

        assert json.loads(result.stdout)["ok"] is False and result.stderr == "", result.output
    else:
        assert result.stdout == "", result.stdout
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    assert chain.log_bytes() == log
    assert files(folder) == before
