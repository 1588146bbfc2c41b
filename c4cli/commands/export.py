"""c4 export: a game's record, as players and tools keep one."""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.chain.interface import Chain, GameCall
from c4cli.client.gamerecord import recorded
from c4cli.client.proofcheck import Anchor, check, summary, verdict
from c4cli.client.proofdoc import read_proof
from c4cli.client.proofmake import gather
from c4cli.client.realm_client import history
from c4cli.commands import complete
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.text import names
from c4cli.commands.views import checked, game_calls, load_game
from c4cli.escape import printable
from c4cli.files import write_private


@click.command("export")
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "moves"]),
    default="text",
    show_default=True,
    help="text: tags, then each move with its height and time; moves: the move string.",
)
@click.option(
    "--proof",
    "proof_path",
    metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="On a node: write the game's record with what proves it to FILE (- for stdout), "
    "for `c4 verify-record` to check with no node.",
)
@common_options
@takes_run
def export(
    run: Invocation, game_id: str, fmt: str, proof_path: str | None, home: Path, as_json: bool
) -> None:
    """A game's record: its tags and moves, or its move string.

    The text record gives tags (realm, chain, players, stakes, fee, first mover,
    result, how it ended, start and end), then each move with its height and time;
    --format moves, the move string (columns 1-7, as Pascal Pons' solver reads it).
    c4 board --moves, c4 solve and c4 review --moves take either back (digits, a
    file, or - for stdin). On a node, every game's moves are known where `c4 sync`
    keeps the realm's history, else those this home sent: the record says which
    (its Known tag).

    \b
    With --proof FILE, on a node, the record goes with its proof instead: the game's
    record as the realm committed it, the store proof of its digest and of the
    realm's code, the headers and commits that sign them, and each of the game's
    transactions known here with its place in its block and its result. Everything
    is proven before it is written; `c4 verify-record FILE` checks it with no node.

    \b
    Example:
      c4 export 1 > game1.c4
      c4 export 1 --format moves | c4 solve -
      c4 export 1 --proof game1.proof.json
    """
    game = load_game(home, game_id)
    check = checked(home, game)
    calls = game_calls(home, game, check)
    chain = run.open_chain(home)
    if proof_path is not None:
        _export_proof(chain, game.id, calls, proof_path, as_json)
        return
    record = recorded(
        game,
        history(calls, game.id).order(game.moves),
        calls,
        realm_path=chain.realm_path,
        chain_id=chain.chain_id,
        known=names(home),
    )
    if as_json:
        emit_json(
            {
                "moves": record.move_string if record.moves or not game.moves else None,
                "tags": record.tags,
                "move_list": [move._asdict() for move in record.moves],
                "text": record.text(),
            }
        )
    elif fmt == "moves":
        click.echo(record.move_string)
    else:
        for line in record.text().splitlines():  # what the chain wrote, escaped
            click.echo(printable(line))


def _export_proof(
    chain: Chain, game_id: int, calls: list[GameCall], path: str, as_json: bool
) -> None:
    """The game's record and its proof, written to ``path`` once it checks as
    `c4 verify-record` checks it against the home's trusted set."""
    proof = gather(chain, game_id, calls)
    data = proof.to_bytes()
    checked = check(read_proof(data, "the proof gathered"), Anchor(proof.fingerprint))
    if path == "-":
        click.echo(data.decode(), nl=False)
        return
    write_private(Path(path), data, consequence="nothing was written")
    if as_json:
        emit_json({"file": path, "bytes": len(data), **summary(checked)})
        return
    for line in verdict(checked, f"wrote {printable(path)}"):
        click.echo(line)
