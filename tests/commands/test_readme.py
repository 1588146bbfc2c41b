"""The README's CI recipe runs as written on the local chain."""

from __future__ import annotations

from pathlib import Path

from recipe import INIT_LINE, ci_recipe, run_recipe

from c4cli.chain import crypto


def address_of(mnemonic: str) -> str:
    return crypto.address_of(crypto.public_key(crypto.derive_private_key(mnemonic)))


def test_the_ci_recipe_plays_a_game_and_collects_the_fee(c4_bin: str, tmp_path: Path) -> None:
    script = ci_recipe()
    assert INIT_LINE in script  # the one line a node run changes
    secrets = {f"{name}_MNEMONIC": crypto.new_mnemonic() for name in ("ALICE", "BOB", "OWNER")}
    proc = run_recipe(script, c4_bin, secrets, tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    players = {address_of(secrets["ALICE_MNEMONIC"]), address_of(secrets["BOB_MNEMONIC"])}
    assert lines[0] in players  # the leader: whoever moved first won
    owner = address_of(secrets["OWNER_MNEMONIC"])
    assert lines[-1] == f"fees withdrawn: 0.1 GNOT to owner ({owner})"
