"""A home bound anew (issue 48): `c4 init --remote URL --force` to another chain, or
`c4 init --force` to a chain of its own, sets the journal of the chain it leaves
aside and never while a transaction sent there is pending; `c4 trust` says what the
home is bound to and trusts."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serving import Served

from support import Home


@pytest.fixture
def two_chains(chain: Home, tmp_path: Path) -> Iterator[tuple[Served, Served]]:
    """The `chain` fixture's home (chain dev) and another (chain other), each served."""
    other = Home(tmp_path / "other")
    shutil.copytree(chain.path / "keys", other.path / "keys")
    other.ok("init", "--clock", "manual", "--chain-id", "other")
    first, second = Served(chain.path), Served(other.path)
    yield first, second
    first.server.stop()
    second.server.stop()


def test_a_home_leaves_its_chain_only_with_nothing_pending_there(
    chain: Home, two_chains: tuple[Served, Served], tmp_path: Path
) -> None:
    dev, other = two_chains
    client = Home(tmp_path / "client")
    shutil.copytree(chain.path / "keys", client.path / "keys")
    client.ok("--trust-node", "init", "--remote", dev.url)
    # A send that lands on chain dev, its landing never journaled: pending.
    stuck = client.run(
        "send", "--to", "bob", "--amount", "1ugnot", "alice",
        env={"C4_FAULT": "journal-landed:ENOSPC"},
    )  # fmt: skip
    assert stuck.exit_code == 3, stuck.output
    lines = [json.loads(line) for line in (client.path / "journal.jsonl").read_text().splitlines()]
    assert [line["status"] for line in lines] == ["pending"]  # the file: `c4 log` would settle it
    pending = lines[0]
    config = (client.path / "config.toml").read_bytes()
    journal = (client.path / "journal.jsonl").read_bytes()

    bad = client.run("init", "--force", "--premine", "nonsense")  # bad input: nothing moves
    assert bad.exit_code == 2 and "invalid --premine 'nonsense'" in bad.stderr
    assert (client.path / "config.toml").read_bytes() == config
    assert (client.path / "journal.jsonl").read_bytes() == journal
    for args in (("--trust-node", "init", "--remote", other.url, "--force"), ("init", "--force")):
        refused = client.run(*args)
        assert refused.exit_code == 2, refused.output
        assert refused.stderr == (
            f"Error: 1 transaction sent to chain 'dev' is pending (TX HASH {pending['hash']}): "
            "only that chain's blocks can settle them (c4 log looks them up), so the home "
            "stays bound to it and nothing was changed; to leave anyway, move "
            f"{client.path / 'journal.jsonl'} aside yourself and keep it\n"
        )
        assert (client.path / "config.toml").read_bytes() == config
        assert (client.path / "journal.jsonl").read_bytes() == journal
        assert not (client.path / "chain").exists() and not (client.path / "journals").exists()

    # Settled by its own chain's block, the home may go; what it sent goes with it, aside.
    assert [tx["tx_status"] for tx in client.sent()] == ["landed"]
    journal = (client.path / "journal.jsonl").read_bytes()
    moved = client.ok("--trust-node", "init", "--remote", other.url, "--force")
    (kept,) = (client.path / "journals").glob("dev-*.jsonl")
    assert kept.read_bytes() == journal and not (client.path / "journal.jsonl").exists()
    assert f"note: the journal of chain 'dev' is kept as {kept}" in moved.stderr
    assert client.json("log") == [] and client.json("time")["height"] == 0
    assert client.json("trust") == {
        "url": other.url,
        "chain_id": "other",
        "realm_path": "gno.land/r/samcrew/connect4",
        "trust_node": True,
        "fingerprint": None,
        "height": None,
        "block_hash": None,
        "source": None,
        "validators": [],
    }
    # Back to a chain of its own: the binding goes, nothing else.
    client.ok("init", "--force", "--clock", "manual")
    client.fails(
        2,
        "trust",
        message=f"{client.path} runs its own chain, bound to no node: there is no validator "
        "set to trust (c4 init --remote URL binds it to one)",
    )
    assert kept.read_bytes() == journal


def test_a_bound_home_says_how_to_bind_anew(
    chain: Home, two_chains: tuple[Served, Served], tmp_path: Path
) -> None:
    dev, other = two_chains
    client = Home(tmp_path / "client")
    client.ok("--trust-node", "init", "--remote", dev.url)
    client.fails(
        2,
        "--trust-node",
        "init",
        "--remote",
        other.url,
        message=f"{client.path} is bound to {dev.url} (chain dev): pass --force to bind it "
        "anew (what it sent stays in its journal)",
    )
    shown = client.ok("trust").stdout
    assert shown.splitlines() == [
        f"home {client.path} is bound to {dev.url}: chain dev",
        "trusts no validator set: every command takes the node's word (bound with --trust-node)",
    ]
