"""Shell completion through click's protocol, as bash drives it: key names, the game
ids that fit each command, columns; and a completion writes nothing in the home."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from realm_node import ADDRESS, game, realm_node

from support import Home, start_game


def complete(c4_bin: str, home: Home, line: str) -> list[str]:
    """What `c4` offers for the last word of ``line`` (bash: COMP_WORDS, COMP_CWORD)."""
    words = line.split(" ")
    env = {
        **os.environ,
        "C4_HOME": str(home.path),
        "COMP_WORDS": line,
        "COMP_CWORD": str(len(words) - 1),
        "_C4_COMPLETE": "bash_complete",
    }
    proc = subprocess.run([c4_bin], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return [entry.split(",", 1)[1] for entry in proc.stdout.splitlines() if entry]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file() and not p.name.endswith(("-shm", "-wal"))  # SQLite's own, on a read
    }


@pytest.fixture
def games(chain: Home) -> dict[str, int]:
    """An open offer of alice's (1), a game being played (2), carol's open offer (3)."""
    offered = int(chain.json("offer", "--stake", "1gnot", "alice")["result"][0])
    played = int(start_game(chain, "4").id)
    carol = int(chain.json("offer", "--stake", "2gnot", "carol")["result"][0])
    return {"offered": offered, "played": played, "carol": carol}


def test_games_complete_as_each_command_takes_them(
    c4_bin: str, chain: Home, games: dict[str, int]
) -> None:
    before = snapshot(chain.path)
    offered, played, carol = games["offered"], games["played"], games["carol"]
    assert complete(c4_bin, chain, "c4 accept ") == [str(offered), str(carol)]
    assert complete(c4_bin, chain, "c4 play ") == [str(played)]
    assert complete(c4_bin, chain, "c4 show ") == [str(offered), str(played), str(carol)]
    assert complete(c4_bin, chain, "c4 cancel ") == [str(offered), str(carol)]
    assert complete(c4_bin, chain, f"c4 play {played} ") == [*"1234567", "best"]
    assert complete(c4_bin, chain, f"c4 play {played} b") == ["best"]
    assert snapshot(chain.path) == before  # read, and nothing written


def test_key_names_complete_wherever_a_key_goes(c4_bin: str, chain: Home) -> None:
    names = ["alice", "bob", "carol", "test1"]
    assert complete(c4_bin, chain, "c4 offer --stake 1gnot ") == names
    assert complete(c4_bin, chain, "c4 offer --stake 1gnot --opponent b") == ["bob"]
    assert complete(c4_bin, chain, "c4 send --to ") == names
    assert complete(c4_bin, chain, "c4 keys show c") == ["carol"]
    other = chain.path.parent / "other"
    Home(other).ok("keys", "add", "zed")
    assert complete(c4_bin, chain, f"c4 --home {other} keys show ") == ["zed"]


def test_a_stale_cache_completes_no_game_and_is_not_rebuilt(
    c4_bin: str, chain: Home, games: dict[str, int]
) -> None:
    """A replay would write the cache: completion offers no game rather than write."""
    shutil.rmtree(chain.path / "chain" / "cache")
    before = snapshot(chain.path)
    assert complete(c4_bin, chain, "c4 show ") == []
    assert complete(c4_bin, chain, "c4 resign 1 ") == ["alice", "bob", "carol", "test1"]
    assert snapshot(chain.path) == before and not (chain.path / "chain" / "cache").exists()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_script_for_each_shell(chain: Home, shell: str) -> None:
    script = chain.ok("completion", shell).stdout
    assert "_C4_COMPLETE" in script and f"{shell}_complete" in script


HOSTILE = "\x1b]52;c;aGVsbG8=\x07\x1b[2J\x1b]0;owned\x07\nplain,666"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_nodes_text_never_reaches_the_completion_protocol_raw(
    c4_bin: str, home: Home, shell: str
) -> None:
    """Issue 47: a node's game whose creator (and turn player) is a clipboard write, a
    clear-screen, a title and a newline that would add a candidate: completion shows
    no control character, and text that is no address as "?"."""
    games = [
        game(1, creator=HOSTILE),
        game(2, creator=ADDRESS, status="playing", turnPlayer=HOSTILE, acceptor=ADDRESS),
    ]
    with realm_node(games) as node:
        words = "c4 show "
        env = {
            **os.environ,
            "C4_HOME": str(home.path),
            "C4_REMOTE": node.url,
            "COMP_WORDS": words,
            "COMP_CWORD": "" if shell == "fish" else "2",  # fish: the word, not its index
            "_C4_COMPLETE": f"{shell}_complete",
        }
        proc = subprocess.run([c4_bin], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    out = proc.stdout
    protocol = "\n\t" if shell == "fish" else "\n"  # fish parts value and help with a tab
    assert not any((ord(c) < 0x20 and c not in protocol) or 0x7F <= ord(c) < 0xA0 for c in out)
    lines = [line for line in out.split("\n") if line]
    assert len(lines) == {"bash": 2, "zsh": 6, "fish": 2}[shell], lines  # two games, no more
    assert "666" not in out
    if shell != "bash":  # bash shows no help
        assert "1 GNOT offered by ?" in out and "1 GNOT each, ? to move" in out


def test_query_completes_what_it_reads_and_then_its_argument(
    c4_bin: str, chain: Home, games: dict[str, int]
) -> None:
    """Issue 48: `c4 query <TAB>` offers what it reads; then a game, or a key."""
    offered = complete(c4_bin, chain, "c4 query ")
    assert offered[:3] == ["game", "active", "leaders"] and "vm/qeval" in offered
    assert complete(c4_bin, chain, "c4 query ba") == ["balance", "bank/balances/"]
    assert complete(c4_bin, chain, "c4 query game ") == [str(g) for g in sorted(games.values())]
    assert complete(c4_bin, chain, "c4 query balance c") == ["carol"]


def test_a_signer_is_a_key_that_can_sign_and_the_player_on_turn_comes_first(
    c4_bin: str, chain: Home, games: dict[str, int]
) -> None:
    """Issue 48: where a signer is wanted, a public key or a multisig is not offered;
    for a move, the key on turn in that game comes first."""
    pub = chain.json("keys", "show", "bob")["pub_key_bech32"]
    chain.ok("keys", "add", "bob-pub", "--pubkey", pub)
    chain.ok("keys", "add", "pair", "--multisig", "alice", "--multisig", "bob")
    played = games["played"]
    on_turn = chain.json("show", str(played))["keys"][chain.json("show", str(played))[
        "game"]["turnPlayer"]]  # fmt: skip
    offered = complete(c4_bin, chain, f"c4 play {played} 4 ")
    assert offered[0] == on_turn and sorted(offered) == ["alice", "bob", "carol", "test1"]
    assert "bob-pub" not in complete(c4_bin, chain, "c4 offer --stake 1gnot ")
    assert "pair" in complete(c4_bin, chain, "c4 keys show ")  # any key where any key goes
