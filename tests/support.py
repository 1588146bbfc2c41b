"""Test support: constants and a ``c4`` runner bound to one home."""

from __future__ import annotations

import hashlib
import json
import os
import socketserver
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from click.testing import CliRunner, Result

from c4cli.commands.main import cli

GENESIS = "2026-01-01T00:00:00Z"
GENESIS_UNIX = 1767225600
PREMINE = 10_000_000 * 1_000_000
TEST1 = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"
REALM = "g1k6gkjudkl2tls7mfzhctrgre2ltjlxtgp635n0"


# The keys of a transaction as `c4 log --json` and `c4 tx --json` list it, on every
# backend (c4cli/chain/listing.py); `c4 tx` adds the signed "tx".
LISTED_TX_KEYS = {
    "hash",
    "height",
    "time",
    "tx_status",
    "ok",
    "error",
    "signer",
    "signer_key",
    "func",
    "args",
    "send",
    "to",
    "result",
    "transfers",
    "gas_wanted",
    "gas_used",
    "gas_fee",
}


@dataclass
class Home:
    """A home folder and a CliRunner-backed ``c4`` that runs in it."""

    path: Path

    def run(
        self, *args: str, input: str | None = None, env: dict[str, str] | None = None
    ) -> Result:
        full_env = {"C4_PASSWORD": "", "C4_HOME": str(self.path)}
        full_env.update(env or {})
        return CliRunner().invoke(cli, list(args), input=input, env=full_env)

    def ok(self, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        result = self.run(*args, input=input, env=env)
        assert result.exit_code == 0, (args, result.output, result.stderr)
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self.ok(*args, "--json").stdout)

    def fails(self, code: int, *args: str, message: str | None = None) -> Result:
        """Run a command that must fail with ``code``, one line, and leave the log untouched."""
        before = self.log_bytes()
        result = self.run(*args)
        assert result.exit_code == code, (args, result.exit_code, result.output)
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
        if message is not None:
            assert result.stderr == f"Error: {message}\n", result.stderr
        assert self.log_bytes() == before
        return result

    def log_bytes(self) -> bytes:
        path = self.path / "chain" / "blocks.toml"
        return path.read_bytes() if path.exists() else b""

    def sent(self) -> list[dict[str, Any]]:
        """Every transaction `c4 log --json` lists, oldest first (its blocks flattened)."""
        return [tx for block in self.json("log") for tx in block["txs"]]

    def address(self, name: str) -> str:
        return str(self.json("keys", "show", name)["address"])

    def balance(self, name: str) -> int:
        return int(self.json("query", "balance", name)["ugnot"])

    def game(self, game_id: int) -> dict[str, Any]:
        doc = json.loads(self.ok("query", "game", str(game_id)).stdout)
        return dict(doc["game"])

    def realm_balance(self) -> int:
        return int(self.json("query", "balance", REALM)["ugnot"])


class Started(NamedTuple):
    """A game started by :func:`start_game`: its id, who moved first and second (key
    names), and its GameJSON once the reveals and the given moves are in."""

    id: str
    first: str
    second: str
    game: dict[str, Any]


def strong(label: str) -> str:
    """A secret for ``label`` that c4 takes (64 hex digits), the same on every run:
    for tests that need to know who the draw picks."""
    return hashlib.sha256(label.encode()).hexdigest()


def start_game(
    chain: Home,
    moves: str = "",
    *,
    stake: str = "1gnot",
    creator: str = "alice",
    acceptor: str = "bob",
    passphrase: str | None = None,
    seed: str | None = None,
) -> Started:
    """The one way the tests start a game: ``creator`` offers ``stake``, ``acceptor``
    accepts, both reveal, then ``moves`` (columns, first mover first) are played."""
    offer = ["offer", "--stake", stake, *(["--passphrase", passphrase] if passphrase else [])]
    gid = str(chain.json(*offer, creator)["result"][0])
    chain.ok("accept", gid, *(["--seed", seed] if seed else []), acceptor)
    chain.ok("reveal", gid, creator)
    game = chain.json("reveal", gid, acceptor)["game"]
    first, second = (creator, acceptor) if game["turn"] == 1 else (acceptor, creator)
    for number, column in enumerate(moves):
        game = chain.json("play", gid, column, first if number % 2 == 0 else second)["game"]
    return Started(gid, first, second, game)


def game_of(chain: Home, moves: str) -> str:
    """A 1 GNOT game between alice (creator) and bob whose moves are ``moves``; its id."""
    return start_game(chain, moves).id


def all_commands() -> list[tuple[str, Any]]:
    """Every command as `c4 --help` and its groups list them: (``keys add``, its click
    command), each group after its subcommands."""
    import click

    from c4cli.commands.main import cli

    found: list[tuple[str, Any]] = []
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command)
            found += [
                (f"{name} {sub}", command.get_command(sub_ctx, sub))
                for sub in command.list_commands(sub_ctx)
            ]
        found.append((name, command))
    return found


def leaf_commands() -> set[str]:
    """Every command a command line can run (``keys add``, and ``time``: a group that
    runs alone counts too)."""
    import click

    return {
        name
        for name, command in all_commands()
        if not isinstance(command, click.Group) or command.invoke_without_command
    }


@contextmanager
def running(server: socketserver.BaseServer) -> Iterator[None]:
    """A test's server answering from a thread of its own, shut down and closed after."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def two_bots(chain: Home, c4_bin: str, gid: str, *args: str, **env: str) -> list[tuple[str, str]]:
    """alice's and bob's `c4 bot GAME KEY --until-end ARGS`, run at once to the end:
    each one's output, once both exited 0 with nothing on stderr."""
    environment = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="", **env)
    bots = [
        subprocess.Popen(
            [c4_bin, "bot", gid, key, "--until-end", *args],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for key in ("alice", "bob")
    ]
    outputs = [bot.communicate(timeout=300) for bot in bots]
    for bot, (_, err) in zip(bots, outputs, strict=True):
        assert bot.returncode == 0 and err == "", err
    return outputs
