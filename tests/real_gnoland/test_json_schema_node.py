"""Every command's --json on a real gnoland reads as docs/c4.schema.json says: the
walk of tests/json_walk.py, on a home bound to the session's node."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from json_walk import Walk, commands, walk
from real_gnoland.test_remote import deploy_copy, home_with_keys

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/schema/connect4"
# What has no meaning on a node (exit 2 there), and what only the local chain prints.
# `c4 node …` acts on the home's own gnoland: tests/real_gnoland/test_node_command.py.
LOCAL_ONLY = {"time advance", "time set", "verify", "init", "demo", "node start", "node stop"}
LOCAL_ONLY |= {"node status", "node logs", "serve", "snapshot", "revert"}


def test_every_command_prints_what_the_schema_says_on_a_node(gno_node: Any, tmp_path: Path) -> None:
    deploy_copy(gno_node, REALM_PATH, tmp_path / "realm")
    c4 = Walk(home_with_keys(gno_node, tmp_path))
    c4("init", "--remote", gno_node.url, "--realm-path", REALM_PATH, name="init --remote")
    for _stage in walk(c4, REALM_PATH, local=False):
        pass
    missing = commands() - c4.seen - LOCAL_ONLY
    assert not missing, f"walked none of: {sorted(missing)}"
