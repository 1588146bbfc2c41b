"""Key files as a user may leave them: damaged, linked, raced for, in an open home."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from support import Home


@pytest.mark.slow
def test_two_keys_add_at_once_exactly_one_wins(home: Home, c4_bin: str) -> None:
    """Of two `c4 keys add NAME` at once, one adds the key and prints its mnemonic, the
    other is refused (exit 2) and prints none: no key is silently replaced."""
    env = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="")
    for round_ in range(30):
        name = f"carol{round_}"
        procs = [
            subprocess.Popen(
                [c4_bin, "keys", "add", name, "--json"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        results = [(p.wait(timeout=60), p.communicate()) for p in procs]
        codes = sorted(code for code, _ in results)
        assert codes == [0, 2], results
        winner = next(out for code, (out, _) in results if code == 0)
        loser_out = next(out for code, (out, _) in results if code == 2)
        assert "mnemonic" in winner and "mnemonic" not in loser_out
        assert "already exists" in loser_out  # --json: the error is the JSON document


def test_a_damaged_key_file_is_one_line_and_deletable(chain: Home) -> None:
    path = chain.path / "keys" / "alice.json"
    path.write_text('{"name": "alice", "address": 5, "pub_key": "!!", "private_key": "zz"}')
    chain.fails(3, "send", "--to", "bob", "--amount", "1ugnot", "alice")
    chain.fails(3, "keys", "show", "alice")
    result = chain.ok("keys", "delete", "alice", "--yes")
    assert result.stdout == "Key alice deleted.\n" and not path.exists()


def test_a_symlinked_key_file_is_refused_naming_its_target(chain: Home, tmp_path: Path) -> None:
    """The advice is never to chmod the file a link points at (a test once changed
    /etc/passwd that way): a link is refused, naming both."""
    target = tmp_path / "elsewhere.json"
    key = chain.path / "keys" / "alice.json"
    target.write_bytes(key.read_bytes())
    target.chmod(0o644)
    key.unlink()
    key.symlink_to(target)
    result = chain.fails(3, "send", "--to", "bob", "--amount", "1ugnot", "alice")
    assert "is a symbolic link (to " in result.stderr and "chmod" not in result.stderr
    assert target.stat().st_mode & 0o044  # untouched


def test_a_world_writable_home_is_said(chain: Home) -> None:
    chain.path.chmod(0o777)
    try:
        result = chain.ok("send", "--to", "bob", "--amount", "1ugnot", "alice")
        assert "is writable by every user" in result.stderr
    finally:
        chain.path.chmod(0o700)
