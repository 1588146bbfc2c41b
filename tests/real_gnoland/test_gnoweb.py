"""gnoweb v1.7.1 on `c4 serve`: the realm's lobby, a game page and its `$help` form,
loaded in a real browser (Debian's headless Chromium), read as text, and a screenshot
whose pixels hold the board's discs.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import subprocess
import time
import urllib.request
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import oracles
import pytest
from oracles import missing
from real_gnoland.gnonode import install_gno, node_available
from real_gnoland.test_serve_node import Serving, c4, home_with_players

RED, YELLOW = (0xE2, 0x3B, 0x3B), (0xF5, 0xC5, 0x18)  # the realm's discs (its SVG board)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def chromium() -> str:
    return oracles.chromium()


@pytest.fixture
def web(c4_bin: str, tmp_path: Path) -> Iterator[tuple[Path, dict[str, str], str]]:
    """A home on `c4 serve` with a game three moves in and an open offer, and gnoweb on it."""
    reason = node_available()
    if reason is not None:
        missing("go", reason + " (scripts/install-gno.sh installs gnoweb)")
    home = tmp_path / "home"
    addresses = home_with_players(c4_bin, home)
    c4(c4_bin, home, "init", "--clock", "manual", "--genesis-time", "2026-01-01T00:00:00Z")
    game = c4(c4_bin, home, "offer", "--stake", "5gnot", "alice", "--json")["result"][0]
    c4(c4_bin, home, "accept", str(game), "bob")
    c4(c4_bin, home, "reveal", str(game), "alice")
    first = c4(c4_bin, home, "reveal", str(game), "bob", "--json")["game"]["turnPlayer"]
    order = ["alice", "bob"] if first == addresses["alice"] else ["bob", "alice"]
    for move, column in enumerate("454"):
        c4(c4_bin, home, "play", str(game), column, order[move % 2])
    c4(c4_bin, home, "offer", "--stake", "2gnot", "bob")
    serving = Serving(c4_bin, home)
    try:
        with gnoweb_on(serving.url, "/r/samcrew/connect4") as url:
            yield home, addresses, url
        assert serving.proc.poll() is None  # c4 serve outlived every page
    finally:
        assert "Traceback" not in serving.stop()


@contextlib.contextmanager
def gnoweb_on(rpc: str, page: str, chain_id: str = "dev") -> Iterator[str]:
    """gnoweb v1.7.1 on the node at ``rpc``, until ``page`` loads; its own URL."""
    gnoweb = install_gno()[0] / "gnoweb"
    port = free_port()
    remote = rpc.removeprefix("http://")
    proc = subprocess.Popen(
        [str(gnoweb), "-remote", remote, "-bind", f"127.0.0.1:{port}", "-chainid", chain_id],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url + page, timeout=5).read()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def browse(chromium: str, *args: str) -> subprocess.CompletedProcess[str]:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    run = subprocess.run(
        [chromium, *flags, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, HOME=os.environ.get("HOME", "/tmp")),
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run


def page_text(chromium: str, url: str) -> str:
    html = browse(chromium, "--dump-dom", url).stdout
    text = html
    while "<" in text and ">" in text:  # the DOM less its tags: what the reader sees
        start = text.index("<")
        end = text.index(">", start)
        text = text[:start] + " " + text[end + 1 :]
    return " ".join(text.split())


def test_gnoweb_shows_the_lobby_a_game_and_its_help(
    web: Any, chromium: str, tmp_path: Path
) -> None:
    _, addresses, url = web
    lobby = page_text(chromium, url + "/r/samcrew/connect4")
    assert "Connect 4" in lobby and "Open offers" in lobby and "Live games" in lobby
    assert "#1" in lobby and "10 GNOT" in lobby  # the live game's pot
    assert "#2" in lobby and "2 GNOT" in lobby  # the open offer

    game = page_text(chromium, url + "/r/samcrew/connect4:game/1")
    assert "Game #1 — playing" in game
    assert addresses["alice"] in game and addresses["bob"] in game
    assert "Stake: 5 GNOT each" in game

    shot = tmp_path / "game.png"
    browse(
        chromium,
        "--window-size=1000,800",
        f"--screenshot={shot}",
        url + "/r/samcrew/connect4:game/1",
    )
    pixels = read_png(shot.read_bytes())
    reds, yellows = (sum(1 for p in pixels if near(p, colour)) for colour in (RED, YELLOW))
    # Three discs on the board (two of the first mover's colour, one of the other's),
    # each a filled circle of some 1,300 pixels at this size.
    assert min(reds, yellows) > 800 and max(reds, yellows) > 1.5 * min(reds, yellows)

    helped = page_text(chromium, url + "/r/samcrew/connect4$help&func=Play&id=1&column=4&move=3")
    assert 'gnokey maketx call -pkgpath "gno.land/r/samcrew/connect4" -func "Play"' in helped
    assert "func Play(cur realm, id int, column int, move int)" in helped  # from vm/qdoc
    assert "Play drops the caller's disc in column (1-7)." in helped


EXPORTED = (
    "Accept AcceptOwnership ActiveJSON BooksRecord Cancel ClaimTimeout GameJSON GameRecord "
    "LeadersJSON LeadersRecord Offer Play Render Resign Reveal RevealSeed SetFee "
    "TransferOwnership WithdrawFees"
)
FILES = ("address.gno", "commit.gno", "connect4.gno", "gnomod.toml", "json.gno", "render.gno")


def tabs(chromium: str, url: str, realm: str) -> dict[str, str]:
    """What a reader sees on each tab of the realm's page: content, source, actions, state."""
    return {
        tab: page_text(chromium, url + realm + query)
        for tab, query in (
            ("content", ""),
            ("source", "$source"),
            ("actions", "$help"),
            ("state", "$state"),
        )
    }


def test_every_tab_of_the_realm_page_on_c4_serve_and_on_gnoland(
    web: Any, gno_node: Any, chromium: str
) -> None:
    """The realm's four tabs through gnoweb, on c4 serve and on a real gnoland side by
    side: content, source and actions read the same; the state tab needs the GnoVM's
    stored objects, which gnoland shows and c4 serve refuses (gnoweb's error page, and
    c4 serve answers on)."""
    _, _, url = web
    ours = tabs(chromium, url, "/r/samcrew/connect4")
    with gnoweb_on(gno_node.url, "/r/c4cli/connect4") as theirs_url:
        theirs = tabs(chromium, theirs_url, "/r/c4cli/connect4")
    for side in (ours, theirs):
        assert "Connect 4" in side["content"] and "Open offers" in side["content"]
        assert EXPORTED in side["source"] and all(name in side["source"] for name in FILES)
        assert "Package connect4 is staked Connect Four" in side["source"]
        assert "Play(id, column, move)" in side["actions"]
        assert "func Play(cur realm, id int, column int, move int)" in side["actions"]
    # gnoland's state tab lists the realm's package variables; c4 serve's is gnoweb's
    # error page, and the pages after it still load (c4 serve is checked alive on exit).
    assert "collected" in theirs["state"] and "pendingOwner" in theirs["state"]
    assert "internal error" in ours["state"] and "pendingOwner" not in ours["state"]
    assert "Open offers" in page_text(chromium, url + "/r/samcrew/connect4")


def near(pixel: tuple[int, int, int], colour: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(pixel, colour, strict=True))


def read_png(data: bytes) -> list[tuple[int, int, int]]:
    """The RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, header = 8, b"", b""
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour_type in (2, 6) and interlace == 0
    size = 4 if colour_type == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * size
    previous = bytearray(stride)
    pixels: list[tuple[int, int, int]] = []
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - size] if i >= size else 0
            up = previous[i]
            corner = previous[i - size] if i >= size else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + best) & 0xFF
        pixels.extend((line[i], line[i + 1], line[i + 2]) for i in range(0, stride, size))
        previous = line
    return pixels
