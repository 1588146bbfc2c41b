"""The views on a real terminal: a pseudo-terminal with colour on, as a person sees them.

Piped output is plain text and has its own tests; here `c4` runs on a pty with
TERM set and no NO_COLOR, so rich draws the board in colour, which is where a
view that only ever ran piped used to break.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess

import pytest

from support import Home, game_of, start_game

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def on_terminal(
    c4_bin: str, home: Home, *args: str, coloured: bool = True, escapes: bool = False
) -> tuple[int, str]:
    """Run c4 on a pty with colour; its exit code and what it wrote, escapes removed
    (kept with ``escapes``)."""
    leader, follower = pty.openpty()
    env = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    env["COLUMNS"] = "100"
    proc = subprocess.Popen(
        [c4_bin, *args], env=env, stdin=follower, stdout=follower, stderr=follower
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the pty closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    code = proc.wait(timeout=30)
    os.close(leader)
    raw = b"".join(chunks).decode("utf-8", "replace")
    if coloured:
        assert "\x1b[" in raw, "no colour: not a terminal view"
    text = raw if escapes else ANSI.sub("", raw)
    return code, text.replace("\r\n", "\n")


# Each game ends with the first mover's four: (moves, the four's cells as (row from
# the bottom, column 1-7)).
FOURS = {
    "horizontal, left end": ("1122334", [(0, 1), (0, 2), (0, 3), (0, 4)]),
    "horizontal, right end": ("4455667", [(0, 4), (0, 5), (0, 6), (0, 7)]),
    "vertical, column 1": ("1212121", [(0, 1), (1, 1), (2, 1), (3, 1)]),
    "vertical, column 7": ("7676767", [(0, 7), (1, 7), (2, 7), (3, 7)]),
    "rising diagonal": ("34133234244", [(0, 1), (1, 2), (2, 3), (3, 4)]),
    "falling diagonal": ("64657454554", [(0, 7), (1, 6), (2, 5), (3, 4)]),
}


@pytest.mark.parametrize("case", sorted(FOURS))
def test_show_marks_the_winning_four_on_a_colour_terminal(
    chain: Home, c4_bin: str, case: str
) -> None:
    moves, four = FOURS[case]
    gid = game_of(chain, moves)
    assert chain.game(int(gid))["status"] == "won"
    code, text = on_terminal(c4_bin, chain, "show", gid)
    assert code == 0, text
    assert "Error" not in text
    # Piped, the same game names the four in lower case: exactly its four cells.
    board = chain.ok("show", gid).stdout.splitlines()
    rows = [line for line in board if len(line) == 7 and set(line) <= set("RYry.")]
    marked = {
        (5 - top, col + 1)
        for top, line in enumerate(rows)
        for col, char in enumerate(line)
        if char in "ry"
    }
    assert marked == set(four), (case, rows)


def test_lobby_leaders_and_board_on_a_colour_terminal(chain: Home, c4_bin: str) -> None:
    game_of(chain, "1122334")
    chain.ok("offer", "--stake", "2gnot", "bob")
    for args in (("lobby",), ("leaders",), ("board", "1"), ("show", "2")):
        code, text = on_terminal(c4_bin, chain, *args, coloured=args[0] != "board")
        assert code == 0 and "Error" not in text, (args, text)


def test_watch_draws_the_board_and_its_four_in_colour(chain: Home, c4_bin: str) -> None:
    gid = game_of(chain, "4455667")
    code, raw = on_terminal(c4_bin, chain, "watch", gid, escapes=True)
    assert code == 0, raw
    text = ANSI.sub("", raw)
    assert "Error" not in text and f"game {gid}: won by " in text
    assert text.count("●") == 7  # every disc drawn
    # The four discs in reverse video (SGR 7), and only those.
    reversed_discs = re.findall(r"\x1b\[[0-9;]*\b7\b[0-9;]*m●", raw)
    assert len(reversed_discs) == 4, raw


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_show_on_a_terminal_without_colour_tells_the_discs_apart(
    chain: Home, c4_bin: str, env: dict[str, str]
) -> None:
    gid = start_game(chain, "45").id
    primary, secondary = pty.openpty()
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full.update(C4_HOME=str(chain.path), COLUMNS="100", TERM="xterm-256color")
    full.update(env)  # a terminal that would show colour, but for this
    proc = subprocess.run([c4_bin, "show", gid], stdout=secondary, stderr=secondary, env=full)
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(primary)
    assert proc.returncode == 0
    text = out.decode()
    assert "\x1b[" not in text  # no colour codes at all
    assert "...RY..\r\n1234567" in text or "...YR..\r\n1234567" in text, text
