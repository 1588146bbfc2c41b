"""Every command's --json on the local chain reads as docs/c4.schema.json says.

tests/real_gnoland/test_json_schema_node.py walks the same commands on a node.
"""

from __future__ import annotations

from pathlib import Path

from json_walk import Walk, commands, validate, walk

from support import GENESIS, Home, leaf_commands

# Documents the walk does not print on the local chain; the node tests validate them
# (`c4 serve`'s first line: tests/real_gnoland/test_serve_node.py, which runs it as a user does).
ON_A_NODE = {"node start", "init --remote", "serve", "export --proof", "verify-record"}


def test_every_command_prints_what_the_schema_says_on_the_local_chain(home: Home) -> None:
    c4 = Walk(home)
    c4("keys add", "alice")
    c4("keys add", "bob")
    c4("init", "--clock", "manual", "--genesis-time", GENESIS)
    for _stage in walk(c4, "gno.land/r/samcrew/connect4", local=True):
        pass
    missing = commands() - c4.seen - ON_A_NODE - {"demo"}
    assert not missing, f"walked none of: {sorted(missing)}"


def test_the_demo_prints_what_the_schema_says(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "c4cli", "demo", "--json", "--home", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    validate("demo", json.loads(proc.stdout))


def test_the_schema_names_every_command() -> None:
    named = leaf_commands()
    named.discard("query")  # its paths and named queries, each an entry of its own
    named.discard("completion")  # a shell's script, never JSON
    assert named <= commands(), sorted(named - commands())
    assert {"query game", "query PATH"} <= commands()


REALMS_OWN = {"GameJSON", "ActiveJSON", "LeadersJSON", "leader"}  # the realm's words, kept


def test_c4s_own_documents_keep_one_word_one_meaning() -> None:
    """Issue 48: the naming rule of the README's "JSON, for scripts", held over every
    document of c4's own in docs/c4.schema.json (the realm's documents keep its words):
    `status` only ever a game's status, an integer amount of ugnot named for it, no
    address given as ""."""
    import json

    from json_walk import SCHEMA

    defs = json.loads(SCHEMA.read_text())["$defs"]
    bare_amounts = {"stake", "fee", "collected", "net", "won", "total_cost", "balance"}
    found: list[str] = []

    def visit(node: object, where: str) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item, where)
        if not isinstance(node, dict):
            return
        if node.get("$ref") in (f"#/$defs/{name}" for name in REALMS_OWN):
            return  # a realm's document embedded: its words
        if node.get("$ref") == "#/$defs/address_or_empty":
            found.append(f'{where}: "" for no address')
        for key, value in (node.get("properties") or {}).items():
            if key == "status" and value != {"$ref": "#/$defs/status"}:
                found.append(f"{where}.status: not a game's status")
            kinds = value.get("type") if isinstance(value, dict) else None
            if key in bare_amounts and kinds in ("integer", ["integer", "null"]):
                found.append(f"{where}.{key}: an amount of ugnot not named for it")
            visit(value, f"{where}.{key}")
        for key in ("items", "oneOf", "anyOf", "allOf", "additionalProperties"):
            if key in node:
                visit(node[key], where)

    for name, definition in defs.items():
        if name not in REALMS_OWN and name != "address_or_empty":
            visit(definition, name)
    assert found == []
