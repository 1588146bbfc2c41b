"""`c4 snapshot` and `c4 revert`: a game's ending undone and played otherwise, with
nothing deleted (the cut blocks kept beside the log, the secrets kept)."""

from __future__ import annotations

from pathlib import Path

from support import Home, start_game, strong


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_finished_game_reverted_and_ended_otherwise(chain: Home) -> None:
    started = start_game(chain, "454545", passphrase=strong("x"), seed=strong("y"))
    snap = chain.ok("snapshot").stdout.strip()
    height = len(chain.json("log"))
    assert snap.startswith(f"{height}:") and len(snap.split(":")[1]) == 16
    winner = chain.json("play", started.id, "4", started.first)  # four in a row
    assert winner["ending"] == "four in a row"
    before_revert = chain.log_bytes()
    secrets = _files(chain.path / "secrets")

    reverted = chain.json("revert", snap)
    assert (reverted["id"], reverted["height"], reverted["blocks_cut"]) == (snap, height, 1)
    kept = Path(reverted["kept"])
    assert kept == chain.path / "chain" / "reverted.toml"
    assert before_revert.startswith(chain.log_bytes())  # the log that stays is a prefix
    assert kept.read_bytes().endswith(before_revert[len(chain.log_bytes()) :])
    assert chain.json("show", started.id)["game"]["status"] == "playing"
    assert _files(chain.path / "secrets") == secrets

    resigned = chain.json("resign", started.id, started.first)  # another ending
    assert resigned["ending"] == "resignation"
    assert chain.json("verify")["ok"] is True
    # The snapshot's block is still there: reverting again is allowed, a stale id is not.
    again = chain.json("revert", snap)
    assert again["blocks_cut"] == 1
    assert kept.read_bytes().count(b"# c4 revert to " + snap.encode()) == 2
    chain.ok("resign", started.id, started.second)
    later = f"{height + 1}:{'0' * 16}"
    refused = chain.fails(2, "revert", later)
    assert f"snapshot {later} matches no block of this chain: its block {height + 1} is" in (
        refused.stderr
    )


def test_revert_to_where_the_chain_ends_cuts_nothing(chain: Home) -> None:
    snap = chain.json("snapshot")
    assert snap["height"] == 0
    before = chain.log_bytes()
    assert chain.ok("revert", snap["id"]).stdout.startswith("the chain already ends at")
    assert chain.log_bytes() == before
    assert not (chain.path / "chain" / "reverted.toml").exists()
