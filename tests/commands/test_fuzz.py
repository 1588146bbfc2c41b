"""Careless input never crashes c4 and, when refused, changes nothing.

Hypothesis fills every argument slot of every command with wrong types, huge
and negative numbers, unicode, empty and over-long strings, non-canonical and
malformed addresses, unknown games and keys, mixed with valid values so that
refusals come from every layer. Each run must end with exit 0, 1 or 2, never a
traceback; a refused one prints one line and leaves the log, the keys and the
kept secrets exactly as they were.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import Home

EXAMPLES = int(os.environ.get("C4_FUZZ_EXAMPLES", "60"))
RUNS: Counter[str] = Counter()

ALICE_UPPER = "G1JG8MTUTU9KHHFWC4NXMUHCPFTF0PAJDHFVSQF5"
BECH32M = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfrg7hq3"  # bech32m spelling, not canonical

junk = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="0123456789-+.eE_", max_size=25),
    st.integers().map(str),
    st.integers(min_value=2**63 - 2, max_value=2**70).map(str),
    st.sampled_from(
        [
            "",
            " ",
            "x" * 5000,
            "-5ugnot",
            "0ugnot",
            "1.0000001gnot",
            "99999999999999999999999ugnot",
            "5foo,5foo",
            "1gnot,",
            "g1",
            "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf6",
            ALICE_UPPER,
            BECH32M,
            "nobody",
            "../keys/alice",
            "999",
            "0",
            "-1",
            "4",
            "alice",
            "bob",
            "test1",
            "1",
            "15m",
            "90s",
            "2026-01-01T00:00:00Z",
            "vm/exec:gno.land/r/samcrew/connect4",
            "gno.land/r/samcrew/connect4.GameJSON(1)",
            "gno.land/r/samcrew/connect4:game/1",
            "🔴",
            "\x00",
            "a\nb",
        ]
    ),
)

J = "<junk>"
TEMPLATES = {
    "send": ["send", "--to", J, "--amount", J, J],
    "offer": ["offer", "--stake", J, "--valid-for", J, "--opponent", J, "--max-fee", J, J],
    "offer-passphrase": ["offer", "--stake", J, "--passphrase", J, J],
    "accept": ["accept", J, "--send", J, J],
    "accept-seed": ["accept", J, "--seed", J, J],
    "reveal": ["reveal", J, "--secret", J, J],
    "play": ["play", J, J, "--move", J, J],
    "claim-timeout": ["claim-timeout", J, J],
    "cancel": ["cancel", J, J],
    "resign": ["resign", J, J],
    "set-fee": ["set-fee", J, J],
    "withdraw-fees": ["withdraw-fees", "--to", J, J],
    "transfer-ownership": ["transfer-ownership", J, J],
    "accept-ownership": ["accept-ownership", J],
    "call": ["call", J, J, J, "--send", J, J],
    "tx-options": ["send", "--to", "bob", "--amount", "1ugnot", "--gas-fee", J, "--memo", J, J],
    "master": ["play", "1", J, "--master", J, J],
    "session-create": [
        "session",
        "create",
        "--session-key",
        J,
        "--expires",
        J,
        "--allow-paths",
        J,
        "--spend-limit",
        J,
        "--spend-period",
        J,
        J,
    ],
    "session-revoke": ["session", "revoke", "--session-key", J, J],
    "session-list": ["session", "list", J],
    "query": ["query", J, J],
    "query-game": ["query", "game", J],
    "query-balance": ["query", "balance", J],
    "query-active": ["query", "active", "--offset", J, "--limit", J],
    "query-qeval": ["query", "vm/qeval", "--data", J],
    "query-qrender": ["query", "vm/qrender", "--data", J],
    "board": ["board", J, "--format", J],
    "board-moves": ["board", "--moves", J],
    "show": ["show", J],
    "tx": ["tx", J],
    "log": ["log", "--from", J, "--to", J],
    "time-advance": ["time", "advance", J],
    "time-set": ["time", "set", J],
    "keys-add": ["keys", "add", J, "--account", J],
    "keys-show": ["keys", "show", J],
    "keys-delete": ["keys", "delete", J],
    "init": ["init", "--genesis-time", J, "--block-interval", J, "--premine", J, "--deployer", J],
}


def snapshot(home: Path) -> dict[str, bytes]:
    files = {}
    for folder in ("chain/blocks.toml", "keys", "secrets"):
        root = home / folder
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in paths:
            files[str(path.relative_to(home))] = path.read_bytes()
    return files


@pytest.fixture(scope="module")
def fuzz_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    home = Home(tmp_path_factory.mktemp("fuzz") / "home")
    for name in ("alice", "bob"):
        home.ok("keys", "add", name)
    home.ok("init", "--clock", "manual", "--genesis-time", "2026-01-01T00:00:00Z")
    game = str(home.json("offer", "--stake", "1gnot", "alice")["result"][0])
    home.ok("accept", game, "bob")
    home.ok("reveal", game, "alice")
    home.ok("reveal", game, "bob")
    return home


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_fuzzed_arguments(fuzz_home: Home, name: str) -> None:
    template = TEMPLATES[name]
    slots = template.count(J)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.lists(junk, min_size=slots, max_size=slots))
    def run(values: list[str]) -> None:
        filled = iter(values)
        argv = [next(filled) if part == J else part for part in template]
        for as_json in (False, True):
            args = [*argv, "--json"] if as_json else argv
            before = snapshot(fuzz_home.path)
            result = fuzz_home.run(*args)
            RUNS[name] += 1
            assert "Traceback" not in result.output
            assert "internal error" not in result.output, (args, result.output)
            assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output)
            if result.exit_code != 0:
                if as_json:
                    assert result.stdout.startswith('{"ok": false, "error": ')
                    assert result.stdout.count("\n") == 1
                else:
                    assert result.stderr.startswith("Error: ")
                    assert result.stderr.count("\n") == 1, (args, result.stderr)
                assert snapshot(fuzz_home.path) == before, args

    run()
    assert RUNS[name] >= 2


def test_undecodable_arguments_are_refused(fuzz_home: Home) -> None:
    # What the shell gives Python for bytes that are not UTF-8: lone surrogates.
    for args in (
        ["send", "--to", "bob", "--amount", "1ugnot", "--memo", "\udcff", "alice"],
        ["keys", "add", "\udcffname"],
        ["offer", "--stake", "1gnot", "--passphrase", "a\udc80b", "alice"],
    ):
        before = snapshot(fuzz_home.path)
        result = fuzz_home.run(*args)
        assert result.exit_code == 2 and "is not valid UTF-8" in result.stderr
        assert snapshot(fuzz_home.path) == before
