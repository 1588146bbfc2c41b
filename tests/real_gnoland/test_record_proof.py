"""Issue 64 on a real gnoland: a game's record that carries its proof.

`c4 export GAME --proof FILE` writes the record as the realm committed it with what
proves it; `c4 verify-record FILE` checks it with no node at all: here, the only
way the home ever reached the node (a proxy) is gone before it checks. One changed
byte anywhere in the file is refused, naming what failed.
"""

from __future__ import annotations

import base64
import json
import urllib.request
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from real_gnoland.proxy import proxy_for
from real_gnoland.test_remote import deploy_copy, home_with_keys, staked_game

from c4cli.client.proofcheck import Anchor, check
from c4cli.client.proofdoc import read_proof
from c4cli.errors import Unverified
from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/recorded/connect4"


class Exported(NamedTuple):
    home: Home
    file: Path
    game: str
    first: str
    fingerprint: str


@pytest.fixture(scope="module")
def exported(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """A staked game played by a home that reaches the node through a proxy only, its
    record exported with its proof; then the proxy is stopped."""
    folder = tmp_path_factory.mktemp("recorded")
    deploy_copy(gno_node, REALM_PATH, folder / "realm")
    home = home_with_keys(gno_node, folder)
    file = folder / "game.proof.json"
    with proxy_for(gno_node.url) as proxy:
        home.ok("init", "--remote", proxy.url, "--realm-path", REALM_PATH)
        played = staked_game(home, 1_000_000)
        home.ok("export", played.id, "--proof", str(file))
        fingerprint = home.json("trust")["fingerprint"]
    return Exported(home, file, played.id, played.first, fingerprint)


def test_the_record_verifies_with_the_node_gone(exported: Exported, tmp_path: Path) -> None:
    home = exported.home
    gone = home.run("show", exported.game)
    assert gone.exit_code == 4 and "cannot reach" in gone.stderr, gone.output
    shown = home.ok("verify-record", str(exported.file)).stdout
    assert shown.startswith(f"verified: game {exported.game} of {REALM_PATH} on chain dev"), shown
    assert f"voting power of the validators {exported.fingerprint}" in shown
    assert "11 transactions in their blocks with their results, carrying 7 of its 7 moves" in shown
    assert '[Moves "4545454"]' in shown and '[Status "won"]' in shown
    assert f'[Winner "{home.address(exported.first)}"]' in shown
    # A user with no home at all, trusting the set by its fingerprint.
    stranger = Home(tmp_path / "none")
    found = stranger.json(
        "verify-record", str(exported.file), "--fingerprint", exported.fingerprint.lower()
    )
    assert found["verified"] is True and found["fingerprint"] == exported.fingerprint
    assert (found["game"], found["status"], found["move_count"]) == (int(exported.game), "won", 7)
    assert found["moves_carried"] == 7 and found["refused"] == 0
    assert found["signed_power"] == found["total_power"]
    assert found["signed_height"] == found["verified_height"] + 1
    assert [move["column"] for move in found["move_list"]] == [4, 5, 4, 5, 4, 5, 4]
    assert all(move["height"] > 0 and move["time"] for move in found["move_list"])


def test_a_trust_point_from_another_source(
    exported: Exported, gno_node: Any, tmp_path: Path
) -> None:
    """A block's hash as the node's RPC gives it (an explorer's, say) anchors the check."""
    blocks = json.loads(exported.file.read_text())["blocks"]
    height = int(blocks[0]["header"]["height"])
    with urllib.request.urlopen(f"{gno_node.url}/block?height={height}", timeout=10) as answer:
        block_hash = json.loads(answer.read())["result"]["block_meta"]["block_id"]["hash"]
    stranger = Home(tmp_path / "none")
    found = stranger.json("verify-record", str(exported.file), "--trust", f"{height}:{block_hash}")
    assert found["verified"] is True
    wrong = base64.b64encode(bytes(32)).decode()
    refused = stranger.run("verify-record", str(exported.file), "--trust", f"{height}:{wrong}")
    assert refused.exit_code == 4 and f"block {height} in the file has hash" in refused.stderr
    absent = stranger.run("verify-record", str(exported.file), "--trust", f"1:{block_hash}")
    assert absent.exit_code == 4 and "carries no block 1, the trust point's" in absent.stderr
    other = stranger.run("verify-record", str(exported.file), "--fingerprint", "AB" * 32)
    assert other.exit_code == 4 and "are not the set trusted" in other.stderr, other.output
    assert stranger.run("verify-record", str(exported.file)).exit_code == 2  # no trust at all


def _flip(value: str, at: int = 0) -> str:
    """``value`` (base64) with one bit of its byte ``at`` changed."""
    data = bytearray(base64.b64decode(value))
    data[at] ^= 0x01
    return base64.b64encode(bytes(data)).decode()


def _edits() -> list[tuple[str, Any, str]]:
    """One byte changed in each part of the file, and what the refusal names."""

    def record(d: dict[str, Any]) -> None:
        d["state"]["record"] = _flip(d["state"]["record"], 3)

    def proof(d: dict[str, Any]) -> None:
        op = d["state"]["record_proof"][0]
        op["data"] = _flip(op["data"], len(base64.b64decode(op["data"])) // 2)

    def header(d: dict[str, Any]) -> None:
        d["blocks"][1]["header"]["app_hash"] = _flip(d["blocks"][1]["header"]["app_hash"])

    def signature(d: dict[str, Any]) -> None:
        vote = d["blocks"][2]["commit"]["precommits"][0]
        vote["signature"] = _flip(vote["signature"], 10)

    def tx(d: dict[str, Any]) -> None:
        d["transactions"][4]["tx"] = _flip(d["transactions"][4]["tx"], 40)

    def result(d: dict[str, Any]) -> None:
        d["transactions"][5]["result"] = _flip(d["transactions"][5]["result"], 2)

    def validator(d: dict[str, Any]) -> None:
        key = d["validators"][0]["pub_key"]
        key["value"] = _flip(key["value"], 5)

    return [
        (record.__name__, record, "record is not the one the realm committed"),
        (proof.__name__, proof, "the proof of game"),
        (header.__name__, header, "its header does not hash to the block id signed"),
        (signature.__name__, signature, "precommit 0's signature is forged"),
        (tx.__name__, tx, "its bytes and path do not lead to block"),
        (result.__name__, result, "its result and path do not lead to block"),
        (validator.__name__, validator, "are not the set trusted"),
    ]


@pytest.mark.parametrize(("part", "edit", "named"), _edits(), ids=[e[0] for e in _edits()])
def test_one_changed_byte_is_refused_naming_what(
    exported: Exported, tmp_path: Path, part: str, edit: Any, named: str
) -> None:
    document = json.loads(exported.file.read_text())
    edit(document)
    changed = tmp_path / f"{part}.json"
    changed.write_text(json.dumps(document, indent=1) + "\n")
    refused = exported.home.run("verify-record", str(changed))
    assert refused.exit_code == 4, refused.output
    assert refused.stdout == "" and refused.stderr.count("\n") == 1
    assert named in refused.stderr, refused.stderr


def test_no_changed_byte_anywhere_verifies(exported: Exported) -> None:
    """Every 53rd byte of the file, one bit changed (the layout's bytes too): each file
    is refused; the file itself verifies."""
    data = exported.file.read_bytes()
    anchor = Anchor(fingerprint=exported.fingerprint)
    check(read_proof(data, "the file"), anchor)
    accepted = []
    for at in range(0, len(data), 53):
        changed = bytearray(data)
        changed[at] ^= 0x01
        try:
            check(read_proof(bytes(changed), "the file"), anchor)
        except Unverified:
            continue
        accepted.append(at)
    assert accepted == []
    tab = data.replace(b'\n "game"', b'\n\t"game"', 1)
    with pytest.raises(Unverified, match="not written as c4 writes a game proof"):
        read_proof(tab, "the file")


def test_export_proof_needs_the_validators(exported: Exported, gno_node: Any) -> None:
    home = exported.home
    trusting = home.run("--remote", gno_node.url, "--trust-node", "export", "1", "--proof", "x")
    assert trusting.exit_code == 2 and "takes the word of" in trusting.stderr, trusting.output
