"""The README's CI recipe runs as written on the local chain."""

from __future__ import annotations

from pathlib import Path

import pytest
from recipe import INIT_LINE, ci_recipe, run_recipe

from c4cli.wire import crypto


def address_of(mnemonic: str) -> str:
    return crypto.address_of(crypto.public_key(crypto.derive_private_key(mnemonic)))


@pytest.mark.slow
def test_the_ci_recipe_plays_the_four_endings_and_collects_the_fees(
    c4_bin: str, tmp_path: Path
) -> None:
    script = ci_recipe()
    assert INIT_LINE in script  # the one line a node run changes
    secrets = {f"{name}_MNEMONIC": crypto.new_mnemonic() for name in ("ALICE", "BOB", "OWNER")}
    proc = run_recipe(script, c4_bin, secrets, tmp_path)
    assert proc.returncode == 0, proc.stderr
    owner = address_of(secrets["OWNER_MNEMONIC"])
    lines = proc.stdout.splitlines()  # the log's last call, then the receipt of the withdrawal
    assert lines[0] == "ClaimTimeout" and "OK!" in lines
    assert lines[-1] == f"fees withdrawn: 0.3 GNOT to owner ({owner})"


@pytest.mark.slow
def test_the_ci_recipe_fails_when_a_payout_is_not_what_it_checks(
    c4_bin: str, tmp_path: Path
) -> None:
    """The recipe's checks can fail: a payout it does not expect stops it (jq -e)."""
    win = '\'.ending == "four in a row" and .transfers == [{"to": $to, "amount": "9900000'
    script = ci_recipe().replace(win, win.replace("9900000", "9900001"))
    assert script != ci_recipe()
    secrets = {f"{name}_MNEMONIC": crypto.new_mnemonic() for name in ("ALICE", "BOB", "OWNER")}
    proc = run_recipe(script, c4_bin, secrets, tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
