"""`c4 export`: a game's record (its move string, or tags and moves with their
heights and times), read back by `c4 board --moves`, `c4 solve` and `c4 review`."""

from __future__ import annotations

import json
from pathlib import Path

from c4cli.movetext import parsed
from support import Home, start_game


def test_a_record_reads_back_to_the_same_game(chain: Home, tmp_path: Path) -> None:
    started = start_game(chain, "4545454")
    exported = chain.json("export", started.id)
    tags = exported["tags"]
    assert exported["moves"] == "4545454" == tags["Moves"]
    assert tags["Result"] == "1-0" and tags["Ending"] == "four in a row"
    assert tags["Winner"] == chain.address(started.first) and tags["Known"] == "all"
    assert tags[f"{'Creator' if started.first == 'alice' else 'Acceptor'}Key"] == started.first
    assert [move["height"] for move in exported["move_list"]] == list(range(5, 12))
    assert exported["move_list"][0]["time"] == "2026-01-01T00:00:25Z"
    # The text record parses back to the same tags and moves.
    text = chain.ok("export", started.id).stdout
    assert text == exported["text"]
    again = parsed(text)
    assert again.tags == tags and again.move_string == "4545454"
    record = tmp_path / "game.c4"
    record.write_text(text)
    board = chain.json("board", "--moves", str(record))
    assert board["position"] == chain.json("board", started.id)["position"]
    assert chain.ok("export", started.id, "--format", "moves").stdout == "4545454\n"
    assert chain.json("review", "--moves", str(record))["result"] == "first"
    partial = tmp_path / "partial.c4"
    partial.write_text(text.replace('[Moves "4545454"]', '[Moves "4545"]').split("\n5. ")[0])
    hinted = chain.json("hint", "--moves", str(partial))
    assert hinted["moves"] == "4545" and hinted["best"] == chain.json("solve", "4545")["best"]
    solved = chain.run("solve", "-", input="4545\n")
    assert solved.exit_code == 0 and solved.stdout.startswith("4545: red to move"), solved.output


def test_a_record_that_is_not_one_is_refused(chain: Home, tmp_path: Path) -> None:
    started = start_game(chain, "45")
    text = chain.ok("export", started.id).stdout
    wrong = tmp_path / "wrong.c4"
    wrong.write_text(text.replace('[Moves "45"]', '[Moves "44"]'))
    refused = chain.fails(2, "board", "--moves", str(wrong))
    assert "its Moves tag is not its moves" in refused.stderr
    garbled = tmp_path / "garbled.c4"
    garbled.write_text("[Game 1]\n")
    assert "line 1: neither a [Tag" in chain.fails(2, "solve", str(garbled)).stderr
    missing = chain.fails(2, "review", "--moves", str(tmp_path / "nowhere.c4"))
    assert "neither digits 1-7 nor a record file" in missing.stderr
    open_offer = chain.json("offer", "--stake", "1gnot", "alice")["result"][0]
    offered = chain.json("export", str(open_offer))
    assert offered["moves"] == "" and offered["tags"]["Result"] == "*"
    assert "FirstMover" not in offered["tags"] and json.dumps(offered)


def test_a_record_draws_its_game_in_the_games_colours(chain: Home, tmp_path: Path) -> None:
    """The creator's discs are red in a game's drawing whoever moved first: a record
    whose FirstMover is the acceptor is drawn so too (issue 60: colours swapped)."""
    for _ in range(20):  # the draw picks the acceptor half the time
        started = start_game(chain, "4545454")
        if started.first == "bob":
            break
    assert started.first == "bob", "the draw never picked the acceptor"
    record = tmp_path / "game.c4"
    record.write_text(chain.ok("export", started.id).stdout)
    drawn, game = chain.json("board", "--moves", str(record)), chain.json("board", started.id)
    assert drawn["board"] == game["board"] and drawn["winner_color"] == game["winner_color"]
    assert drawn["winner_color"] == "yellow"  # bob, the acceptor, won with yellow discs


def test_a_proof_needs_a_nodes_validators(chain: Home, tmp_path: Path) -> None:
    """The local chain signs no block: it has no record with a proof to give."""
    started = start_game(chain, "4545454")
    file = tmp_path / "game.proof.json"
    refused = chain.run("export", started.id, "--proof", str(file))
    assert refused.exit_code == 2 and "the local chain has none" in refused.stderr, refused.output
    assert not file.exists()


def test_verify_record_refuses_what_it_cannot_trust_or_read(chain: Home, tmp_path: Path) -> None:
    """verify-record reads the file alone: no trust named is exit 2 on a home that trusts
    no set, as is a fingerprint that is none; a file that is no game proof is exit 4."""
    file = tmp_path / "f.json"
    file.write_text('{"format": "c4 game proof 1"}\n')
    untrusting = chain.run("verify-record", str(file))
    assert untrusting.exit_code == 2 and "trusts no validator set" in untrusting.stderr
    short = chain.run("verify-record", str(file), "--fingerprint", "12ab")
    assert short.exit_code == 2 and "is not a fingerprint" in short.stderr
    both = chain.run("verify-record", str(file), "--fingerprint", "ab" * 32, "--trust", "5:x")
    assert both.exit_code == 2 and "give one" in both.stderr
    point = chain.run("verify-record", str(file), "--trust", "5:nothex")
    assert point.exit_code == 2 and "HEIGHT:HASH" in point.stderr
    for text, named in (
        ("not json", "it is not JSON"),
        ('{"format": "other"}', "its format is not 'c4 game proof 1'"),
        ('{"format": "c4 game proof 1"}', "its state does not read"),
        ("[1]", "its format is not"),
    ):
        file.write_text(text)
        refused = chain.run("verify-record", str(file), "--fingerprint", "ab" * 32)
        assert refused.exit_code == 4 and refused.stdout == "", refused.output
        assert named in refused.stderr and refused.stderr.count("\n") == 1, refused.stderr
    missing = chain.run("verify-record", str(tmp_path / "none.json"), "--fingerprint", "ab" * 32)
    assert missing.exit_code == 2 and "cannot read the game proof" in missing.stderr
