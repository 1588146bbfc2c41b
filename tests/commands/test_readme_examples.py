"""Every console example of the README and docs/ runs as written and prints what it shows.

See tests/readme_examples.py for how a block is run and compared. Where a
section starts from a state its text describes (the walkthrough's game played,
a game at a given position), the test makes that state first with c4 itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from readme_examples import DOCS, README, blocks, check, pages, run, section
from recipe import jq_folder

from c4cli.home.keys import DEV_MNEMONIC

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def user_env(c4_bin: str) -> dict[str, str]:
    """A shell user's environment: c4 and jq on PATH, keys unencrypted, no C4_* set."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("C4_")}
    environment["PATH"] = os.pathsep.join(
        [os.path.dirname(c4_bin), jq_folder(), os.environ.get("PATH", "")]
    )
    environment["C4_PASSWORD"] = ""
    environment.pop("NO_COLOR", None)
    return environment


@pytest.fixture
def env(user_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    return {**user_env, "TMPDIR": str(tmp_path)}


@pytest.fixture(scope="module")
def walked(user_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder where the walkthrough ran as written, for the sections that follow it."""
    folder = tmp_path_factory.mktemp("walked")
    walkthrough(folder, user_env)
    return folder


def after_walkthrough(walked: Path, folder: Path) -> None:
    shutil.copytree(walked / "state", folder / "state")


def printed_by(printed: list[str], start: str) -> str:
    """What the walkthrough's command that starts with ``start`` printed."""
    (block,) = section("A game between two keys")
    index = next(i for i, c in enumerate(block.commands) if c.line.startswith(start))
    return printed[index]


def drew(printed: list[str]) -> str:
    """Who the walkthrough's draw picked, from what `c4 reveal 1 bob` printed."""
    return printed_by(printed, "c4 reveal 1 bob").split("move 0, ", 1)[1].split(" ", 1)[0]


def walkthrough(folder: Path, env: dict[str, str]) -> None:
    """ "A game between two keys", as written: the README shows a run whose draw
    picked bob (the pages that go on from it show his moves), so a run that drew
    alice is started again."""
    (block,) = section("A game between two keys")
    for _ in range(30):
        shutil.rmtree(folder / "state", ignore_errors=True)
        printed = run(block, folder, env, compare=False)
        if drew(printed) == "bob":
            check(block, printed)
            return
    raise AssertionError("the secrets did not draw bob in 30 runs")


def test_the_walkthrough_runs_whoever_the_draw_picks(tmp_path: Path, env: dict[str, str]) -> None:
    """Its commands name the players by the draw: a run that drew alice ends with her win."""
    (block,) = section("A game between two keys")
    for _ in range(30):
        shutil.rmtree(tmp_path / "state", ignore_errors=True)
        printed = run(block, tmp_path, env, compare=False)
        if drew(printed) == "alice":
            won = printed_by(printed, 'c4 play 1 4 "$first" |')
            assert won.startswith("game 1: won, winner alice ("), won
            return
    raise AssertionError("the secrets did not draw alice in 30 runs")


def test_the_demo(tmp_path: Path, env: dict[str, str]) -> None:
    """The README shows a run whose secrets drew alice: a run drawing bob is made again."""
    (block,) = section("The demo")
    for _ in range(20):
        try:
            run(block, tmp_path, env)
            return
        except AssertionError as differs:
            if "bob moves first" not in str(differs).split("the page shows:")[0]:
                raise
    raise AssertionError("the secrets drew bob 20 times in a row")


@pytest.mark.slow
def test_the_operators_and_a_multisig_owner(
    tmp_path: Path, env: dict[str, str], walked: Path
) -> None:
    after_walkthrough(walked, tmp_path)
    # In reading order (issue 48): "Your games and stakes" comes first.
    (games,) = section("Your games and stakes", DOCS / "playing.md")
    run(games, tmp_path, env)
    for block in blocks(DOCS / "operators.md"):
        run(block, tmp_path, env)


def test_your_games_and_stakes(tmp_path: Path, env: dict[str, str], walked: Path) -> None:
    after_walkthrough(walked, tmp_path)
    (block,) = section("Your games and stakes", DOCS / "playing.md")
    run(block, tmp_path, env)


def test_your_tools_on_the_local_chain(tmp_path: Path, env: dict[str, str], walked: Path) -> None:
    after_walkthrough(walked, tmp_path)
    for block in blocks(DOCS / "tools.md"):
        run(block, tmp_path, env)
    kept = (tmp_path / "state" / "chain" / "reverted.toml").read_text()
    assert "Offer" in kept and kept.rstrip().endswith("# end of block 12")


def test_session_keys(tmp_path: Path, env: dict[str, str], walked: Path) -> None:
    after_walkthrough(walked, tmp_path)
    (sessions,) = section("Session keys", DOCS / "playing.md")
    run(sessions, tmp_path, env)


def test_session_keys_in_reading_order(tmp_path: Path, env: dict[str, str], walked: Path) -> None:
    """Issue 48: the page followed after the README's sections (game 2 made and
    cancelled there): it plays whichever game its offer made. Its outputs differ only
    by the times and heights the README's own steps moved on."""
    after_walkthrough(walked, tmp_path)
    (games,) = section("Your games and stakes", DOCS / "playing.md")
    run(games, tmp_path, env)
    (sessions,) = section("Session keys", DOCS / "playing.md")
    run(sessions, tmp_path, env, compare=False)


@pytest.mark.slow
def test_the_local_chain(tmp_path: Path, env: dict[str, str], walked: Path) -> None:
    """The page in reading order, on the chain of the README's walkthrough (as it says)."""
    after_walkthrough(walked, tmp_path)
    for block in blocks(DOCS / "chain.md"):
        run(block, tmp_path, env, stdin=DEV_MNEMONIC + "\n")  # for keys add --recover


def test_reviewing_a_game(tmp_path: Path, env: dict[str, str]) -> None:
    """A move string's review, from an empty folder: no chain is needed."""
    for block in section("Reviewing a game", DOCS / "playing.md"):
        run(block, tmp_path, env)


@pytest.mark.slow
def test_solving_a_position(tmp_path: Path, env: dict[str, str]) -> None:
    """The page in reading order, from an empty folder: it builds its own game (issue 48:
    no game set up behind the reader's back)."""
    for block in blocks(DOCS / "solving.md"):
        run(block, tmp_path, env)


# Every (page, section) with a console block, and so a test above that runs it.
RUN = {
    ("README.md", "The demo"),
    ("README.md", "A game between two keys"),
    ("playing.md", "Your games and stakes"),
    ("operators.md", "The fee and the ownership"),
    ("nodes.md", "A node of your own"),
    ("tools.md", "Snapshots"),
    ("operators.md", "An owner that is a multisig"),
    ("playing.md", "Session keys"),
    ("playing.md", "Reviewing a game"),
    ("solving.md", ""),
    ("gno.md", ""),
    ("nodes.md", "A network of validators"),
    *(
        ("chain.md", name)
        for name in (
            "Keys",
            "The genesis",
            "Blocks and the clock",
            "Cheats, and a chain from a dump",
            "Auditing",
            "Queries",
        )
    ),
}


def test_every_console_block_of_every_page_is_run_by_a_test() -> None:
    found = {(page.name, block.section) for page in pages() for block in blocks(page)}
    assert found == RUN


README_LINES = 350  # what a newcomer reads in ten minutes (issue 60); the rest is in docs/


def test_the_readme_is_read_in_ten_minutes() -> None:
    assert len(README.read_text().splitlines()) <= README_LINES


@pytest.fixture
def gno_env(env: dict[str, str]) -> dict[str, str]:
    from oracles import missing
    from real_gnoland.gnonode import install_gno, node_available

    reason = node_available()
    if reason is not None:
        missing("go", reason + " (scripts/install-gno.sh installs gnoland, gnokey and gno)")
    install_gno()  # builds what the README's commands find
    return env


def test_the_realm_in_gno(gno_env: dict[str, str]) -> None:
    (block,) = blocks(DOCS / "gno.md")
    run(block, ROOT, gno_env)


@pytest.fixture
def node_home(tmp_path: Path, gno_env: dict[str, str]) -> Iterator[Path]:
    yield tmp_path
    subprocess.run(["c4", "node", "stop"], cwd=tmp_path, env=gno_env, capture_output=True)


def test_a_node_of_your_own(node_home: Path, gno_env: dict[str, str]) -> None:
    (one,) = section("A node of your own", DOCS / "nodes.md")
    (network,) = section("A network of validators", DOCS / "nodes.md")
    run(one, node_home, gno_env)
    try:
        run(network, node_home, gno_env)
    finally:  # a network left running by a failed step
        subprocess.run(
            ["c4", "--home", "net", "node", "stop"], cwd=node_home, env=gno_env, capture_output=True
        )
