"""The block log file as it is read: what it may hold besides blocks."""

from __future__ import annotations

from support import Home


def test_blank_lines_after_the_last_block_are_harmless(chain: Home) -> None:
    log = chain.path / "chain" / "blocks.toml"
    chain.ok("time", "advance", "5s")
    with log.open("a") as handle:
        handle.write("\n")
    assert chain.json("time")["height"] == 1
    chain.ok("send", "--to", "bob", "--amount", "1ugnot", "alice")  # appends after it
    with log.open("a") as handle:
        handle.write("\n  \n")
    assert chain.json("verify")["height"] == 2
    # Text that is not blank still is damage.
    with log.open("a") as handle:
        handle.write("x\n")
    chain.fails(3, "time")
