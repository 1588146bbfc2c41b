"""Arrows point one way: commands → client → home → chain → realm → engine → base."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "c4cli"
BASE = {
    "address",
    "coins",
    "commitment",
    "errors",
    "escape",
    "gotext",
    "records",
    "faults",
    "files",
    "interrupts",
    "outbox",
}
# What each layer may import of ours, besides the base and itself. The home (keys,
# secrets, config, the journal) stands beside the chain: it uses the chain's value
# types and signing, and no chain code uses it (a node client is handed its journal).
ALLOWED = {
    "engine": set(),
    "realm": {"engine"},
    "chain": {"realm", "engine"},
    "home": {"chain"},
    "client": {"home", "chain", "realm", "engine"},
    "commands": {"client", "home", "chain", "engine"},
}


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "c4cli":
            found.update(f"c4cli.{alias.name}" for alias in node.names)  # from c4cli import realm
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("c4cli"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("c4cli"))
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below(layer: str) -> None:
    wrong = []
    for path in sorted((PACKAGE / layer).glob("*.py")):
        for module in sorted(imports(path)):
            parts = module.split(".")
            if len(parts) < 2 or parts[1] in BASE or parts[1] in (layer, "__version__"):
                continue
            if parts[1] not in ALLOWED[layer]:
                wrong.append(f"{path.name} imports {module}")
    assert wrong == []


def test_no_command_reads_the_realms_memory() -> None:
    """Commands see the realm only through the chain's answers (its JSON and Render)."""
    memory = re.compile(r"\.realm\b(?!_)")  # state.realm…, not state.realm_address
    readers = [
        path.name
        for path in (PACKAGE / "commands").glob("*.py")
        if memory.search(path.read_text().replace("c4cli.realm", ""))
    ]
    assert readers == []


BACKENDS = {"LocalChain", "NodeChain", "StateReader"}


def test_commands_never_ask_which_backend_they_have() -> None:
    """A command asks the Chain interface what it needs (its clock, its poll interval,
    whether it fills in the fee), never isinstance of a backend: the same command
    works on any chain the interface describes."""
    for path in sorted((PACKAGE / "commands").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "isinstance"
                and len(node.args) == 2
            ):
                named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                assert not named & BACKENDS, f"{path.name}:{node.lineno} tests the backend"


BACKEND_MODULES = {
    f"c4cli.chain.{name}" for name in ("local", "remote", "node_reads", "rpc", "state", "cache")
}


def test_commands_open_a_chain_only_through_the_door() -> None:
    """Commands get a chain from c4cli.client.connect, typed by the interface: no
    backend module, no backend class by name."""
    found = []
    for path in sorted((PACKAGE / "commands").glob("*.py")):
        found += [f"{path.name} imports {m}" for m in sorted(imports(path) & BACKEND_MODULES)]
        names = {n.id for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Name)}
        found += [f"{path.name} names {name}" for name in sorted(names & BACKENDS)]
    assert found == []


def test_the_interface_stands_above_its_implementations() -> None:
    assert imports(PACKAGE / "chain" / "interface.py") <= {"c4cli.chain.blocks", "c4cli.chain.tx"}
