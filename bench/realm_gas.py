"""The realm's gas and storage per call against the games it has had, on a real gnoland.

    python bench/realm_gas.py [--at 10,100,1000] [--rev REV]

Starts a gnoland v1.7.1 (gno's binaries from scripts/install-gno.sh) that makes a
block as soon as it can, deploys gno4 and the realm of this checkout (or, with
``--rev``, the realm as it was at that git revision, beside it at another path),
fills each with whole games (bench/fill.py, ten games a transaction) and, when a
realm has had ``--at`` games, plays one more game, each call its own transaction
sent with ``broadcast_tx_commit``: the gas each call used and the storage it added
(bytes, from the block's storage deposit events), as gnokey shows them.

Issue 61's targets: ``Offer`` and ``Accept`` at game 1,000 within 1.35x of game 100,
``Play`` at game 1,000 within 1.1x of game 10.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from fill import GNO, STAKE, Filler, fast_node  # noqa: E402
from real_gnoland.gnonode import GnoNode  # noqa: E402

from c4cli.client import workflow  # noqa: E402
from c4cli.commitment import commitment_of  # noqa: E402
from c4cli.home.keys import DEV_MNEMONIC  # noqa: E402
from c4cli.realm.memory import first_mover  # noqa: E402
from c4cli.realm.rules import CREATOR  # noqa: E402
from c4cli.wire.events import event_from_json, storage_moved  # noqa: E402

STEPS = ("Offer", "Accept", "Reveal", "RevealSeed", "Play", "Play (win)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", default="10,100,1000", help="Games made before each probe.")
    parser.add_argument("--rev", default="", help="A git revision whose realm to measure too.")
    options = parser.parse_args()
    marks = sorted({int(n) for n in options.at.split(",")})
    folder = Path(tempfile.mkdtemp(prefix="c4-realm-gas-"))
    node = fast_node(folder)
    try:
        realms = {"this checkout": ("gno.land/r/c4cli/connect4", GNO / "r" / "c4cli" / "connect4")}
        if options.rev:
            realms[options.rev] = (
                "gno.land/r/c4cli/before/connect4",
                realm_at(options.rev, folder),
            )
        for name, (path, source) in realms.items():
            node.deploy_package(source, path, DEV_MNEMONIC)
            # The realm's last id: ``gameCount`` since the trees; a slice's length before.
            declared = "gameCount " in (source / "connect4.gno").read_text()
            counter = "gameCount" if declared else "len(games)"
            print(f"{name} ({path}):")
            print(f"  {'games':>6}  " + "  ".join(f"{step:>16}" for step in STEPS))
            filler = Filler(node, path, counter=counter)
            for mark in marks:
                filler.games(mark - filler.made, per_tx=10)
                cells = probe(node, filler)
                print(f"  {mark:>6}  " + "  ".join(f"{c:>16}" for c in cells), flush=True)
    finally:
        node.stop()


def realm_at(rev: str, folder: Path) -> Path:
    """The realm's Gno files (tests aside) as git revision ``rev`` had them."""
    into = folder / "realm-before"
    into.mkdir()
    listing = subprocess.run(
        ["git", "ls-tree", "--name-only", rev, "gno/r/c4cli/connect4/"],
        capture_output=True, text=True, check=True, cwd=HERE.parent,
    ).stdout.split()  # fmt: skip
    for name in listing:
        if name.endswith("_test.gno") or name.endswith("_filetest.gno"):
            continue
        body = subprocess.run(
            ["git", "show", f"{rev}:{name}"], capture_output=True, check=True, cwd=HERE.parent
        ).stdout
        (into / Path(name).name).write_bytes(body)
    return into


def probe(node: GnoNode, filler: Filler) -> list[str]:
    """One more whole game between players 0 and 1, a call a transaction, each sent
    with broadcast_tx_commit: "gas M / +bytes" for each step."""
    game = filler.made + 1
    filler.made += 1
    a, b = 0, 1
    passphrase, seed = f"probe-{game}", f"probe-seed-{game}"
    first = first_mover(passphrase, seed, game, filler.players[a], filler.players[b])
    movers = (a, b) if first == CREATOR else (b, a)
    steps = [
        (a, workflow.offer_call(STAKE, commitment_of(passphrase), valid_for=60, max_fee=500_000)),
        (b, workflow.accept_call(game, commitment_of(seed), STAKE)),
        (a, workflow.reveal_call(game, passphrase, acceptor=False)),
        (b, workflow.reveal_call(game, seed, acceptor=True)),
    ] + [(movers[n % 2], workflow.play_call(game, col, n)) for n, col in enumerate("4545454")]
    cells: dict[str, str] = {}
    for number, (player, call) in enumerate(steps):
        result = commit(node, filler, player, call)
        gas = int(result["deliver_tx"]["GasUsed"])
        events = result["deliver_tx"]["ResponseBase"].get("Events") or []
        moved = storage_moved([event_from_json(event) for event in events])
        text = f"{gas / 1e6:.2f} M / {moved[0] if moved else 0:+d} B"
        name = call.func if number < len(steps) - 1 else "Play (win)"
        if name == "Play" and number != 4 + 2:
            continue  # the third move stands for them all
        cells[name] = text
    return [cells[step] for step in STEPS]


def commit(node: GnoNode, filler: Filler, player: int, call: workflow.Call) -> Any:
    result = node.rpc("broadcast_tx_commit", tx=filler.signed(player, [call], 2_000_000_000))
    base = result["deliver_tx"]["ResponseBase"]
    if base.get("Error") or result["check_tx"]["ResponseBase"].get("Error"):
        raise RuntimeError(f"{call.func} failed: {base.get('Log') or result['check_tx']}")
    return result


if __name__ == "__main__":
    main()
