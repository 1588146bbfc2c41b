"""Arrows point one way: commands → client → home → chain → realm → engine → base.

The rooms (docs/contributing.md walks them): ``wire`` is tm2's and gno.land's bytes
(amino, protobuf, keys, signatures, transactions, messages, Merkle roots, query paths,
result shapes) and knows no backend; ``chain`` is the interface every backend
implements and the values it speaks in, alone; ``local`` is the local backend (the log,
replay, the checkpoint, the executor); ``node`` is a node's client.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "c4cli"
BASE = {
    "jsonvalue",
    "address",
    "coins",
    "commitment",
    "errors",
    "escape",
    "gotext",
    "movetext",
    "records",
    "faults",
    "files",
    "interrupts",
    "outbox",
    "settings",
}
# What each layer may import of ours, besides the base and itself. The home (keys,
# secrets, config, the journal) stands beside the chain: it uses the chain's value
# types and signing, and no chain code uses it (a node client is handed its journal).
#
# The node client (``node``) and the local chain (``local``) are the two backends of
# the chain interface, each in a room of its own: they use the interface's value types
# and the wire, and only the door (client/connect.py) opens them. gnoland's processes
# (``gnoland``) are `c4 node`'s only. `c4 serve`'s RPC server (``serve``) stands on the
# local chain, and only its command opens it; `c4 serve --upstream`'s gateway
# (``gateway``) puts the same server before a node, proven by the client's light client
# and proofs (and the realm's sources the local room ships). Commands read one module of
# the local room: ``local.genesis``, for a new chain's genesis and its defaults.
ALLOWED = {
    "engine": set(),
    "realm": {"engine"},
    "wire": set(),
    "chain": {"wire"},
    "local": {"chain", "wire", "realm", "engine"},
    "node": {"chain", "wire"},
    "gnoland": {"wire"},
    "serve": {"chain", "local", "wire"},
    "gateway": {"serve", "client", "home", "node", "chain", "wire", "local"},
    "home": {"chain", "wire"},
    "client": {"home", "chain", "wire", "local", "node", "realm", "engine"},
    "commands": {
        "client",
        "home",
        "chain",
        "wire",
        "local",
        "gnoland",
        "serve",
        "gateway",
        "engine",
    },
    "cli": {"commands", "client", "home", "chain", "wire", "node"},
}
COMMANDS_READ_OF_LOCAL = {"c4cli.local.genesis"}
# Named by the interface for types only (under TYPE_CHECKING): a new local chain's
# genesis (``Chain.init``), and the realm's records a history's checkpoint keeps
# (``Saved``, ``ReplayKeep``).
TYPES_ONLY = {
    ("chain", "c4cli.local.genesis"),
    ("chain", "c4cli.realm.memory"),
    ("node", "c4cli.realm.memory"),  # the checkpoint keeps those records
}


def _dotted(path: Path) -> str:
    """A module's dotted name (a package's own: its folder's)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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


MODULE_LINES = 450  # the renovation's bound: a module over it is two modules


def test_no_module_outgrows_its_bound() -> None:
    sizes = {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text().splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert sizes, "no module found"
    over = {name: lines for name, lines in sizes.items() if lines > MODULE_LINES}
    assert not over, f"modules over {MODULE_LINES} lines: {over}"


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below(layer: str) -> None:
    wrong = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for module in sorted(imports(path)):
            parts = module.split(".")
            if len(parts) < 2 or parts[1] in BASE or parts[1] in (layer, "__version__"):
                continue
            if parts[1] not in ALLOWED[layer] and (layer, module) not in TYPES_ONLY:
                wrong.append(f"{path.name} imports {module}")
    assert wrong == []


def test_commands_read_of_the_local_room_only_its_genesis() -> None:
    found = {
        f"{path.name} imports {module}"
        for path in sorted((PACKAGE / "commands").glob("*.py"))
        for module in imports(path)
        if module.startswith("c4cli.local") and module not in COMMANDS_READ_OF_LOCAL
    }
    assert found == set()


def test_the_wire_knows_no_backend() -> None:
    """tm2's bytes are the same for every backend: nothing in the wire room imports a
    backend, the interface, or anything above them, even for types."""
    found = {
        f"{path.name} imports {module}"
        for path in sorted((PACKAGE / "wire").glob("*.py"))
        for module in imports(path)
        if module.split(".")[1] not in BASE | {"wire"}
    }
    assert found == set()


def test_chain_holds_the_interface_alone() -> None:
    """chain/ is the interface and the values it speaks in: no module of it imports a
    backend at run time (the local chain's Genesis and log entries are named for types
    only), and each module is the interface's (no executor, no log, no client)."""
    assert sorted(p.name for p in (PACKAGE / "chain").glob("*.py")) == [
        "__init__.py",
        "clock.py",
        "controls.py",
        "interface.py",
        "listing.py",
        "trust.py",
    ]
    found = set()
    for path in sorted((PACKAGE / "chain").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:  # top-level imports only: TYPE_CHECKING blocks are nested
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("c4cli."):
                room = (node.module or "").split(".")[1]
                if room not in BASE | {"chain", "wire"}:
                    found.add(f"{path.name} imports {node.module}")
    assert found == set()


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


BACKEND_MODULES = (
    {f"c4cli.local.{path.stem}" for path in (PACKAGE / "local").glob("*.py")}
    - COMMANDS_READ_OF_LOCAL
    | {_dotted(path) for path in (PACKAGE / "node").rglob("*.py")}
    | {"c4cli.node"}
)


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
    # chain/trust.py is the interface's part about proofs (types only), kept apart for size.
    allowed = {"c4cli.wire.tx", "c4cli.chain.trust", "c4cli.errors"}
    allowed.add("c4cli.jsonvalue")  # a listed transaction's amino JSON
    allowed.add("c4cli.wire.pubkeys")  # the public key a transaction's simulation carries
    assert imports(PACKAGE / "chain" / "interface.py") <= allowed
    # Its validators and a kept result are the wire's (tm2's own values), the state a
    # history's checkpoint keeps the realm's records (types only): nothing else.
    named = {"c4cli.wire.blocks", "c4cli.wire.abci", "c4cli.realm.memory"}
    assert imports(PACKAGE / "chain" / "trust.py") <= named


# The imports made inside functions, each because it was measured to cost start-up
# (python -X importtime; figures on one idle core) that the commands not needing it
# should not pay, or because it must come after something (console.py). Everything
# else is imported at the top of its module.
LAZY = {
    ("commands/history.py", "c4cli.commands.sync"): "the node's client and the realm's "
    "history: `c4 log --realm` only, never the local chain's log",
    ("local/cache.py", "c4cli.local.state"): "the executor and the realm (~60 ms): not for a read",
    ("wire/crypto.py", "coincurve"): "libsecp256k1 (10-25 ms): signing and verifying only",
    ("wire/crypto.py", "mnemonic"): "BIP39 wordlists (~20 ms): mnemonics only",
    ("local/chain.py", "c4cli.local.state"): "the executor and the realm: a new chain only",
    ("local/reader.py", "c4cli.local.state_reader"): (
        "the realm's code: when the cache cannot answer"
    ),
    ("local/loading.py", "c4cli.local.replay"): (
        "blocks executed (the transactions' types, signatures, the executor): a log the "
        "checkpoint does not describe, never a query the checkpoint answers"
    ),
    ("local/log.py", "rtoml"): "the TOML parser: only when blocks are read, not from the cache",
    ("local/replay.py", "c4cli.local.state"): "the executor and the realm: replay only",
    ("node/net/early.py", "ssl"): "TLS (~15 ms): an https node only",
    ("local/replay.py", "multiprocessing"): "worker processes (~20 ms): `c4 verify` only",
    ("wire/canonical.py", "orjson"): "fast JSON (~10 ms of shared library): verify's workers only",
    ("client/connect.py", "c4cli.local"): (
        "the local chain when a home uses it: its SQLite, TOML and replay"
    ),
    ("client/connect.py", "c4cli.home"): (
        "the journal (~15 ms: its entries, the listing) and the trusted validator set after "
        "the node is dialled, so their import overlaps the connection's round trips"
    ),
    ("client/connect.py", "c4cli.node.light"): "the light client: a block, a height or a "
    "time to prove (not a query), or trust to place",
    ("client/connect.py", "c4cli.node.history"): "the realm's history: a home that keeps one",
    ("client/connect.py", "c4cli.node.net"): "the connection dialled while the client loads",
    ("client/connect.py", "c4cli.node"): (
        "a node's client when a home uses one: its HTTP stack (and, to send, signing and "
        "delivery: not for a query)"
    ),
    ("commands/node_info.py", "c4cli.gnoland"): (
        "devnode (subprocess, urllib): `c4 --help` loads it"
    ),
    ("commands/views.py", "rich.console"): "rich (~40-150 ms): a terminal's console only",
    ("commands/tables.py", "rich"): "rich's tables and text: the lobby's table on a terminal",
    ("cli/ahead.py", "c4cli.node.net"): (
        "the dial's socket and thread (~4 ms): a home bound to a node, not the local chain"
    ),
    ("cli/console.py", "c4cli.commands.main"): "after the signal handlers that cover start-up",
    ("cli/console.py", "c4cli.commands"): "the ending and a fast lane: after the handlers too",
    ("cli/console.py", "c4cli.cli"): (
        "the node dialled ahead (cli/ahead.py) and the fast lanes (cli/lanes.py): after "
        "the handlers, and only for query and play"
    ),
    ("commands/query_paths.py", "c4cli.commands"): "the realm client, the keyring: named queries",
    ("cli/lanes.py", "c4cli.commands"): "a lane's body: a query's or a move's (signing), not both",
    ("commands/run.py", "c4cli.home.keys"): "the keyring: a run that reads a key, not a path",
    ("commands/run.py", "c4cli.client"): (
        "the door to a chain: a run that opens one (not `c4 keys`, not a failure's line)"
    ),
    ("commands/transact.py", "click"): "a passphrase prompt on a terminal: the fast lanes",
    ("engine/board.py", "c4cli.engine"): "the SVG drawing, which imports board.py itself",
    ("engine/solver.py", "c4cli.engine"): "the native solver: a shared library, solving only",
    ("home/config.py", "rtoml"): "a TOML reader: only for a home that has a config",
    ("home/keys.py", "c4cli.home"): "the cryptography package (60-130 ms): sealed keys only",
    ("home/secrets.py", "zxcvbn"): "a secret's strength (~60 ms of word lists): a chosen one only",
    ("realm/abi.py", "c4cli.realm.render"): "Render and its SVGs: pages only",
    ("wire/pubkeys.py", "c4cli.wire"): (
        "the signing module (and, through it, libsecp256k1): a signature checked, never a "
        "key or a transaction read (a query of a node loads nothing that signs)"
    ),
}


def _imports_inside_functions() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for func in ast.walk(ast.parse(path.read_text())):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                else:
                    continue
                found.update((str(path.relative_to(PACKAGE)), name) for name in names)
    return found


def _lazy_statements() -> int:
    """How many import statements sit inside functions (one inside a nested function
    counted once)."""
    seen: set[tuple[str, int]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for func in ast.walk(ast.parse(path.read_text())):
            if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                seen.update(
                    (str(path), node.lineno)
                    for node in ast.walk(func)
                    if isinstance(node, ast.Import | ast.ImportFrom)
                )
    return len(seen)


def test_only_measured_imports_are_lazy() -> None:
    """Issue 23: at most 30 imports inside functions, each listed here with its reason;
    issue 37's secret-strength estimator (zxcvbn, ~50 ms, only for a secret the user
    chose) is the 31st; issue 38 moved the node client out of ``chain/`` into a room of
    its own, so the door opens two rooms lazily where it opened one (the 32nd), and
    imports the journal after it has dialled the node (the 33rd); the console dials a
    fast lane's node before the lane loads (the 34th). Issue 49 gave the run its own
    type, which opens the door to a chain only for a run that reads one (the 35th),
    and the lanes their own room, which loads a lane's body only for that lane (the
    36th), and the run's keyring only for a run that reads a key (the 37th); the
    tables left views.py with their own rich.console (the 38th). Issue 50's realm
    history (the node's client, the light client, rich's progress bar: ~190 ms) loads
    only for `c4 log --realm`, never for the local chain's `c4 log` (the 39th). Issue
    62 typed a transaction's messages, whose session keys are public keys: reading
    one loads the keys' codec, not the signing module (the 40th).

    Issue 62 also asked for at most 45 import statements inside functions (55 then):
    a node's URLs are read by a module of their own (c4cli/node/net/urls.py, no HTTP
    stack), a trusted set's fingerprint by the home's trust file, gno's processes come
    in one import, a chain's journal is left in one place, the run opens its chain in
    one place, rich's console is made in one place, and what was imported lazily but
    loaded anyway (tomli_w by the log, the engine by the realm's rules) is imported at
    the top. Then the solver, which `c4 --help` loads through `c4 review` anyway, came
    to the top of the four commands that solve, and a query of the local chain stopped
    paying for the transaction's types (bench/side_by_side.py): the door opens the
    local chain's reading half for a query, which loads the replay only for a log the
    checkpoint does not describe, and the console dials a node only for a home bound
    to one (three statements for four)."""
    assert _imports_inside_functions() == set(LAZY)
    assert len(LAZY) <= 40
    assert _lazy_statements() <= 45


def test_json_that_c4_writes_is_typed() -> None:
    """Issue 62: tm2's values are typed in the wire, and what c4 writes as JSON is a
    ``Document`` (JSON's own values, checked by mypy) or a TypedDict of its shape; a
    ``dict[str, Any]`` is left only where a stored document or a click command's
    parameters are read back in, at most 40 outside ``serve/`` and ``gateway/`` (gnoland's
    RPC answers as it writes them), and no alias hides ``Any`` under another name."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in ("serve", "gateway")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "dict[str, Any]" in line
    ]
    assert len(found) <= 12, found  # the issue allowed 40; 11 were left
    assert not [name for name in found if name.startswith("wire/")]  # the wire: typed
    aliases = re.compile(r"^\w+(: TypeAlias)? = (dict|Mapping)\[str, Any\]", re.MULTILINE)
    assert [p.name for p in PACKAGE.rglob("*.py") if aliases.search(p.read_text())] == []
    typed = (PACKAGE / "jsonvalue.py").read_text()
    assert "Any" not in typed.split('"""')[2]  # below its docstring: JSON's values only


def test_the_node_clients_parts_are_composed_not_stacked() -> None:
    """Issue 38: no class of the node client inherits another of its classes (each part
    holds the one below: the sender its reader, the reader its transport). Its errors
    aside: a kind of a node's error (an unknown transaction) is one of its errors."""
    ours: set[str] = set()
    bases: list[tuple[str, str, str]] = []
    errors = {"Unreachable", "Unverified", "Refused", "Exception", "ValueError"}
    for path in sorted((PACKAGE / "node").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                ours.add(node.name)
                for base in node.bases:
                    name = base.id if isinstance(base, ast.Name) else ast.unparse(base)
                    bases.append((path.name, node.name, name))
    grown = True
    while grown:  # the error classes, and what derives from them
        found = {cls for _, cls, base in bases if base in errors}
        grown, errors = not found <= errors, errors | found
    assert len(ours - errors) >= 8, "the node client's classes were not found"
    stacked = [f"{file}: {cls}({base})" for file, cls, base in bases if base in ours - errors]
    assert stacked == []


def test_the_node_client_and_gnolands_processes_have_rooms_of_their_own() -> None:
    chain = {path.stem for path in (PACKAGE / "chain").glob("*.py")}
    assert not chain & {"rpc", "remote", "delivery", "node_reads", "devnode", "network"}
    # The node client folded as a reader expects it (issue 62): the chain and its reader
    # at the top, then the network, the light client, sending, and the realm's history.
    assert {
        path.relative_to(PACKAGE / "node").as_posix() for path in (PACKAGE / "node").rglob("*.py")
    } >= {
        "chain.py", "reader.py", "spec.py", "net/transport.py", "net/rpc.py",
        "light/verify.py", "sending/sender.py", "sending/delivery.py", "history/sync.py",
    }  # fmt: skip
    assert {p.name for p in (PACKAGE / "node").iterdir() if p.is_dir() and p.name[0] != "_"} == {
        "net", "light", "sending", "history",
    }  # fmt: skip
    assert {"devnode", "network"} <= {path.stem for path in (PACKAGE / "gnoland").glob("*.py")}


def test_a_homes_genesis_is_made_in_one_place() -> None:
    """Issue 38: `c4 init`, `c4 node start` and `c4 demo` take a home's genesis (the dev
    key, who holds what, the realm's owner) from client/genesis.py alone."""
    makers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        name = path.relative_to(PACKAGE).as_posix()
        if "Genesis(" in text.replace("class Genesis(", "") or "derive_private_key(DEV_" in text:
            makers.append(name)
        if re.search(r"^PREMINE\w* = ", text, re.MULTILINE):
            makers.append(name)
    assert sorted(set(makers)) == ["client/genesis.py"]


def test_backends_name_no_option() -> None:
    """Issue 38: the chains and the node client say what happened; which option to pass
    is the command layer's to add (commands/ending.py ``worded``). A whole command they
    recommend, in backquotes (`c4 verify --repair`), is not an option."""
    flag = re.compile(r"--[a-z][a-z-]+")
    found = []
    for room in ("chain", "wire", "local", "node", "client", "home"):
        for path in sorted((PACKAGE / room).rglob("*.py")):
            tree = ast.parse(path.read_text())
            docs = {
                id(node.body[0].value)
                for node in ast.walk(tree)
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                and node.body
                and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)
            }
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if id(node) in docs:
                        continue
                    text = re.sub(r"`[^`]*`", "", node.value)
                    found += [f"{path.name}:{node.lineno} {m}" for m in flag.findall(text)]
    # Not messages: words that are kept as data, in files and receipts: how a trust came
    # (trust.toml), why the journal dropped a transaction, and a receipt's `unverified`.
    kept = {
        "connect.py --trust-node",
        "connect.py --trust",
        "journal.py --forget-above",
    }
    said = {f.split(":")[0] + " " + f.split(" ")[1] for f in found}
    assert sorted(said - kept) == []
    assert kept <= said  # each allowance still stands for something


def _words_of(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` is an exception's words: ``str(exc)``, ``exc.args…`` or an
    f-string of them, for ``exc`` one of ``names``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str":
        return any(isinstance(arg, ast.Name) and arg.id in names for arg in node.args)
    if isinstance(node, ast.Subscript):
        node = node.value
    return (
        isinstance(node, ast.Attribute)
        and node.attr in ("args", "message", "strerror")
        and isinstance(node.value, ast.Name)
        and node.value.id in names
    )


def test_no_refusal_is_told_apart_by_its_words() -> None:
    """c4 acts on a refusal's type or code (errors.py reads the few that have neither,
    once, as they are made): no handler compares, searches or matches the words of the
    exception it caught."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for handler in ast.walk(tree):
            if not isinstance(handler, ast.ExceptHandler) or handler.name is None:
                continue
            names = {handler.name}
            for node in ast.walk(ast.Module(body=handler.body, type_ignores=[])):
                read = []
                if isinstance(node, ast.Compare):
                    read = [node.left, *node.comparators]
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    if node.func.attr in ("startswith", "endswith", "find", "count"):
                        read = [node.func.value]
                    elif node.func.attr in ("search", "match", "fullmatch", "findall"):
                        read = list(node.args)
                if any(_words_of(operand, names) for operand in read):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def test_nothing_below_the_front_imports_it() -> None:
    """Issue 62: the front (``cli/``: the console script, the lanes, the node dialled
    ahead) stands above the commands; the run (``commands/run.py``) and the failure's
    wording (``commands/ending.py``) are below it, so no import of cli/ comes from
    anywhere else, not even for types."""
    found = {
        f"{path.relative_to(PACKAGE)} imports {module}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.parent.name != "cli"
        for module in imports(path)
        if module.split(".")[1:2] == ["cli"] and path.name != "__main__.py"
    }
    assert found == set()


# The two front ends, each of which builds the run once: click's group and the lanes.
BUILDERS = {"commands/main.py", "cli/lanes.py", "commands/run.py"}


def test_one_invocation_built_by_the_front_ends_alone() -> None:
    """One type says what a run of c4 is (commands/run.py), and only the front ends
    build it (run.py's own, for a command body called outside any run)."""
    classes = [
        f"{path.relative_to(PACKAGE)}:{node.name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef) and node.name == "Invocation"
    ]
    assert classes == ["commands/run.py:Invocation"]
    builders = {
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Invocation"
    }
    assert builders == BUILDERS


# Module-level state that lives as long as the process, the same for every run: a
# cache of what was computed once, or the signals noted before c4 has loaded.
PROCESS_STATE = {
    "engine/solver.py": "the native solver's handle and its opening book, loaded once",
    "wire/canonical.py": "the JSON encoder, chosen once (orjson in verify's workers)",
    "node/net/early.py": "the connections dialled as the process starts, each taken once",
}


def test_no_per_run_state_outside_the_run() -> None:
    """What one run of c4 owns (its outbox, its notes, the chains it opened) is the
    invocation's: no module outside the run and the front rebinds a global or fills a module-level
    container (a context variable, which the invocation sets, is how a backend reaches
    the run's outbox and notes)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith("cli/") or name == "commands/run.py" or name in PROCESS_STATE:
            continue
        tree = ast.parse(path.read_text())
        containers = {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(node.value, ast.List | ast.Dict | ast.Set | ast.Call)
            and not (
                isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
            )
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.append(f"{name}:{node.lineno} global {', '.join(node.names)}")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "add", "clear", "update", "pop", "extend")
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in containers
            ):
                found.append(f"{name}:{node.lineno} {node.func.value.id}.{node.func.attr}")
            elif isinstance(node, ast.Assign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if (
                        isinstance(target, ast.Subscript)
                        and isinstance(target.value, ast.Name)
                        and target.value.id in containers
                    ):
                        found.append(f"{name}:{node.lineno} {target.value.id}[…] =")
    assert found == []


def test_the_raw_command_line_is_read_by_the_front_alone() -> None:
    """Whether a run wants JSON is the run's (``Invocation.json``): nothing below the
    front reads ``--json`` from argv."""
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.relative_to(PACKAGE).as_posix().startswith("cli/")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Constant)
        and node.left.value == "--json"
    ]
    assert found == []


def test_command_bodies_take_the_run() -> None:
    """Issue 62: a command's body is handed its run (``commands.run.takes_run``) rather
    than reaching for it: no click command calls ``current()`` itself."""
    reaching = []
    for path in sorted((PACKAGE / "commands").glob("*.py")):
        for func in ast.walk(ast.parse(path.read_text())):
            if not isinstance(func, ast.FunctionDef):
                continue
            decorators = [ast.unparse(d) for d in func.decorator_list]
            if not any("command" in d or "group" in d for d in decorators):
                continue
            calls = [  # in its body (an option's default may read the run being built)
                node
                for statement in func.body
                for node in ast.walk(statement)
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "current"
            ]
            if calls:
                reaching.append(f"{path.name}: {func.name}")
            if any(ast.unparse(arg.annotation or arg) == "Invocation" for arg in func.args.args):
                assert "takes_run" in decorators, f"{path.name}: {func.name}"
    assert reaching == []


def test_one_name_one_type() -> None:
    """Issue 49: a type's name says one thing in the whole package (a realm call and a
    JSON-RPC call, a tx's signature and a function's parameters, are not one word)."""
    seen: dict[str, str] = {}
    twice = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                where = f"{path.relative_to(PACKAGE)}"
                if node.name in seen:
                    twice.append(f"{node.name}: {seen[node.name]} and {where}")
                seen.setdefault(node.name, where)
    assert twice == []


def test_the_environment_is_read_in_one_place() -> None:
    """Issue 62: every $C4_* variable (and every path c4 takes from the environment) is
    read by c4cli/settings.py alone, once a run; its parts are handed what they need."""
    readers = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "settings.py" and re.search(r"os\.environ|getenv\(", path.read_text())
    )
    assert readers == []


def _methods() -> set[str]:
    from c4cli.wire.rpc import Method

    return {method.value for method in Method}


def _called(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def test_no_rpc_method_is_named_as_a_string_outside_the_wire() -> None:
    """Issue 62: tm2's methods are named once (c4cli/wire/rpc.py's Method): no call of
    the package passes one as a string (the node client asks through c4cli/node/net/rpc.py,
    c4 serve answers what the wire names)."""
    methods = _methods()
    named = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix() == "wire/rpc.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and _called(node) in ("RpcCall", "Ask", "call", "rpc")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in methods
            ):
                named.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.args[0].value}")
    assert named == []


def keys_read(path: Path) -> list[tuple[int, object]]:
    """Every constant key a module reads by subscript or ``.get``: (line, key)."""
    found: list[tuple[int, object]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            found.append((node.lineno, node.slice.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def test_the_node_client_reads_no_rpc_answer_by_its_keys() -> None:
    """Issue 62: a node's answers are read once, into the wire's values: no module of the
    node client reads a tm2 answer's field by its JSON name."""
    fields = {
        "sync_info", "node_info", "signed_header", "block_metas", "block_meta", "header",
        "last_block_id", "precommits", "deliver_tx", "check_tx", "tx_result", "ResponseBase",
        "Data", "Events", "Error", "Log", "GasUsed", "GasWanted", "response", "Height",
        "validators", "voting_power", "num_txs", "data_hash", "txs", "latest_block_height",
    }  # fmt: skip
    found = []
    for path in sorted((PACKAGE / "node").rglob("*.py")):
        found += [f"{path.name}:{line} {key}" for line, key in keys_read(path) if key in fields]
    assert found == []


def test_one_any_one_result_encoder() -> None:
    """Issue 62: an amino Any is written by c4cli/wire/protowire.py's any_value alone, and
    a transaction's result by c4cli/wire/abci.py alone (c4 serve and the light client
    write and hash the same value)."""
    anys, encoders = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in ("any", "any_value"):
                anys.append(path.relative_to(PACKAGE).as_posix())
            if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in (
                "result_bytes", "deliver_binary", "results_hash", "event", "error", "event_binary"
            ):  # fmt: skip
                encoders.append(f"{path.relative_to(PACKAGE).as_posix()} {node.name}")
    assert anys == ["wire/protowire.py"]
    assert sorted(encoders) == ["wire/abci.py result_bytes", "wire/abci.py results_hash"]


def test_a_transaction_is_read_by_its_fields_not_its_json_keys() -> None:
    """Issue 62: tm2's messages and transactions are typed values (c4cli/wire/msgs.py,
    c4cli/wire/std.py): outside the wire no module reads one by its amino JSON keys."""
    keys = {
        "msg", "signatures", "memo", "caller", "max_deposit", "from_address", "to_address",
        "session_key", "session_addr",
    }  # fmt: skip
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where.startswith("wire/"):
            continue
        found += [f"{where}:{line} {key}" for line, key in keys_read(path) if key in keys]
    assert found == []


def test_no_module_imports_dataclasses() -> None:
    """Every command loads the wire's values and the run's settings: ``dataclasses`` (and
    the inspect, ast and dis it brings) cost each command some 5-10 ms, and defining a
    frozen dataclass about half a millisecond more (c4cli/records.py). Values are
    NamedTuples or Records."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if any(name.split(".")[0] == "dataclasses" for name in names):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []
