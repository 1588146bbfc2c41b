"""Every command with --json, on one home, and its documents held to docs/c4.schema.json.

``walk`` plays what a CI script does on a home whose keys alice, bob and test1
hold coins (test1 owning the realm): a game won with a bot's last move, one
resigned, one cancelled, the owner's calls, a session key, a transaction signed
from hand to hand, the views, queries, the log, the keys, and some failures. A
home bound to a node skips what has no meaning there (the clock, verify).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from support import Home

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "c4.schema.json"


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


def commands() -> set[str]:
    """The commands the schema gives a document for."""
    return {
        name.removeprefix("command ") for name in schema()["$defs"] if name.startswith("command ")
    }


def validate(command: str, document: Any) -> None:
    """``document`` is what the schema says ``command`` prints (an error: $defs.error)."""
    whole = schema()
    name = (
        "error"
        if isinstance(document, dict) and document.get("ok") is False
        else f"command {command}"
    )
    assert name in whole["$defs"], f"the schema has no document for `c4 {command}`"
    validator = jsonschema.Draft202012Validator(
        {"$defs": whole["$defs"], "$ref": f"#/$defs/{name}"}
    )
    problems = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(document)
    ]
    assert not problems, f"`c4 {command} --json` printed {document}:\n" + "\n".join(problems)


# Commands that print one document a line.
LINES = ("watch", "bot", "cancel --expired", "node logs")


class Walk:
    """Runs commands with --json on ``home``, validates each document, and notes the command."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.seen: set[str] = set()

    def __call__(
        self,
        command: str,
        *args: str,
        code: int = 0,
        env: dict[str, str] | None = None,
        name: str | None = None,
    ) -> Any:
        """``command`` (words, split) with ``args``; its schema entry is ``name`` or ``command``."""
        result = self.home.run(*command.split(), *args, "--json", env=env)
        assert result.exit_code == code, (
            command,
            args,
            result.exit_code,
            result.stdout,
            result.stderr,
        )
        entry = name or command
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        documents = (
            [json.loads(line) for line in lines] if entry in LINES else [json.loads(result.stdout)]
        )
        for document in documents:
            validate(entry, document)
        self.seen.add(entry)
        return documents if entry in LINES else documents[0]


def first_and_second(game: dict[str, Any]) -> tuple[str, str]:
    keys, turn = game["keys"], game["game"]["turnPlayer"]
    first = keys[turn]
    return first, ("bob" if first == "alice" else "alice")


def started(c4: Walk) -> tuple[int, str, str]:
    """A 1 GNOT game, both secrets revealed: its id, the first mover and the other."""
    offer = c4("offer", "--stake", "1gnot", "alice")
    game = int(offer["result"][0])
    c4("accept", str(game), "bob")
    c4("reveal", str(game), "alice")
    first, second = first_and_second(c4("reveal", str(game), "bob"))
    return game, first, second


def walk(c4: Walk, realm_path: str, *, local: bool) -> Iterator[str]:
    """Every command; yields a word after each stage (for a test's progress)."""
    alice = c4("keys show", "alice")["address"]
    c4("keys list")
    c4("time")
    game, first, second = started(c4)
    for number, column in enumerate("454545"):
        c4("play", str(game), column, first if number % 2 == 0 else second)
    c4("hint", str(game))
    (*moves, last) = c4("bot", str(game), first, "--until-end")
    assert moves and last["over"] is True and last["winner_key"] == first, last
    (*_, ended) = c4("watch", str(game))
    assert ended["four"] and ended["status"] == "won", ended
    (*_, judged_live) = c4("watch", str(game), "--review")
    assert [v["number"] for v in judged_live["verdicts"]] == list(range(1, 8)), judged_live
    board = c4("board", str(game))
    assert board["over"] and len(board["four"]) == 4 and board["winner"] == ended["winner"]
    shown = c4("show", str(game))
    assert shown["ending"] == "four in a row" and shown["moves"] == "4545454"
    judged = c4("review", str(game))
    assert judged["moves"] == "4545454" and judged["result"] == "first", judged
    c4("review", "--moves", "4455")
    assert c4("hint", "--moves", "4455")["best"] == [3, 6]
    record = c4("export", str(game))
    assert record["moves"] == "4545454" and record["tags"]["Known"] == "all", record
    c4("board", "--moves", "4433")
    c4("solve", "4433", "--all")
    yield "a game won"
    game, first, second = started(c4)
    c4("lobby")
    c4("query active", "--offset", "0", "--limit", "20")
    resigned = c4("resign", str(game), first)
    assert resigned["ending"] == "resignation" and resigned["transfers"], resigned
    cancel = c4("offer", "--stake", "1gnot", "alice")
    c4("cancel", str(cancel["result"][0]), "alice")
    c4("call", "Cancel", str(cancel["result"][0]), "alice", code=1)  # the realm's refusal
    c4("claim-timeout", str(game), "bob", code=1)
    lines = c4("cancel", "--expired", "alice", name="cancel --expired")
    assert lines[-1] == {"cancelled": [], "taken_back_ugnot": 0}, lines
    c4("leaders")
    c4("games", "alice")
    c4("query", "player", "alice", name="query player")
    c4("query leaders")
    c4("query game", str(game))
    c4("query balance", "alice")
    c4("query account", "alice")
    c4("query", f"bank/balances/{alice}", name="query PATH")
    yield "a game resigned"
    c4("send", "--to", "bob", "--amount", "1gnot", "alice")
    c4("set-fee", "0.2gnot", "test1")
    c4("query fees")
    c4("withdraw-fees", "--to", "test1", "test1")
    c4("transfer-ownership", "bob", "test1")
    c4("accept-ownership", "bob")
    c4("transfer-ownership", "test1", "bob")
    c4("accept-ownership", "test1")
    yield "the owner's calls"
    path = f"vm/exec:{realm_path}"
    c4(
        "session create",
        "--session-key",
        "walk-s",
        "--expires",
        "1h",
        "--allow-paths",
        path,
        "alice",
    )
    c4("session list", "alice")
    c4("session revoke", "--session-key", "walk-s", "alice")
    c4("keys delete", "walk-s", "--yes")
    yield "a session key"
    folder = c4.home.path
    generated = c4.home.ok("offer", "--stake", "1gnot", "alice", "--generate-only").stdout
    (folder / "walk.json").write_text(generated)
    c4("sign", str(folder / "walk.json"), "alice", "--send-cap", "1gnot")
    landed = c4("broadcast", str(folder / "walk.json"))
    c4("tx", landed["hash"])
    c4("log")
    c4("keys add", "walk-k")
    c4(
        "keys export",
        "walk-k",
        "--output-path",
        str(folder / "walk.armor"),
        env={"C4_ARMOR_PASSWORD": "x"},
    )
    c4("keys delete", "walk-k", "--yes")
    c4(
        "keys import",
        "walk-k",
        "--armor-path",
        str(folder / "walk.armor"),
        env={"C4_ARMOR_PASSWORD": "x"},
    )
    c4("keys rotate", "walk-k", env={"C4_NEW_PASSWORD": ""})
    c4("keys add", "walk-m", "--multisig", "alice", "--multisig", "bob", "--threshold", "1")
    c4("send", "--to", "walk-m", "--amount", "1gnot", "test1")
    generated = c4.home.ok(
        "send", "--to", "test1", "--amount", "1ugnot", "walk-m", "--generate-only"
    )
    (folder / "walk-m.json").write_text(generated.stdout)
    signature = str(folder / "walk-m.sig")
    c4(
        "sign",
        str(folder / "walk-m.json"),
        "bob",
        "--output-document",
        signature,
        "--send-cap",
        "1gnot",
    )
    c4("multisign", str(folder / "walk-m.json"), "walk-m", "--signature", signature)
    c4("broadcast", str(folder / "walk-m.json"))
    c4("show", "999999", code=1)
    c4("play", "1", "x", "alice", code=2)
    yield "signed by hand, the log, keys and failures"
    if local:
        snap = c4("snapshot")
        c4("time advance", "91s")
        c4("time set", "2027-01-01T00:00:00Z")
        c4("revert", snap["id"])
        c4("cheat mine", "2")
        c4("cheat set-balance", "bob", "5gnot")
        c4("cheat next-time", "2030-01-01T00:00:00Z")
        c4("cheat dump", str(folder / "walk-state.json"))
        c4("verify")
        c4("node stop")
        c4("node status")
        c4("node logs", code=2)  # no node for this home
        c4("trust", code=2)  # bound to no node: no validator set to trust
        c4("sync", code=2)  # its own log holds every block: nothing to sync
        assert c4("audit")["discrepancies"] == []
        c4("log", "--realm", code=2, name="log --realm")
        yield "the local chain's own"
    else:
        c4("trust")
        proof = str(folder / "walk.proof.json")
        c4("export", str(game), "--proof", proof, name="export --proof")
        checked = c4("verify-record", proof)
        assert checked["verified"] is True and checked["game"] == game, checked
        for cheat in ("mine 1", "set-balance bob 1gnot", "next-time 2030-01-01T00:00:00Z"):
            c4(f"cheat {cheat.split()[0]}", *cheat.split()[1:], code=2)  # a node has none
        c4("cheat dump", str(folder / "walk-state.json"), code=2)
        synced = c4("sync")
        assert synced["txs"] > 0 and synced["deployed"] is not None, synced
        history = c4("log", "--realm", name="log --realm")
        assert c4("audit")["discrepancies"] == []
        assert len(history) == synced["txs"] and history[0]["kind"] == "deploy", history[0]
