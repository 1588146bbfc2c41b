"""A node's answer held to the realm's history: what its signed blocks make the realm.

On a node home whose blocks are proven and that keeps the realm's history (`c4 sync`
began it), a view of a game is checked: the history is brought up to the node's
proven head (`c4 sync`, :mod:`c4cli.node.sync`), c4's mirror
of the realm runs its delivered calls again (:mod:`c4cli.client.replayed`), and the
game it makes must be the game the node shows, field by field. Equal, the view is
verified; different, exit 4 naming the game, the field and both values: a node that
lies, or c4's mirror and the GnoVM that differ, must be known at once, never shown as
the realm's state.

A node answers a query at its last block, and a history holds the blocks before
the head (a block's results are proven by the next header), so the two may stand a
block apart for a moment: a difference is believed only once a second look at both
finds the realm unchanged. What the history cannot make (a realm deployed in
genesis, code run once that reached it) is said, and the view is the node's word.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

from c4cli.chain.interface import ChainReader, GameCall
from c4cli.client.replayed import Computed, computed, game_calls
from c4cli.errors import Unverified
from c4cli.realm.accessors import game_object

LOOKS = 3  # looks at the node and the history before a moving realm is given up on


class GameCheck(NamedTuple):
    """A game held to the history: ``verified``, or why not (``unverified``); the block
    the history reaches; the calls of the game it holds (None when it cannot say)."""

    verified: bool
    unverified: str
    height: int
    calls: list[GameCall] | None


def check_game(
    chain: ChainReader,
    game_id: int,
    document: dict[str, Any] | None,
    ask: Callable[[], dict[str, Any] | None],
) -> GameCheck | None:
    """Game ``game_id`` as the node showed it (``document``, its GameJSON's game; None:
    no such game), held to the history; ``ask`` asks the node again. None where
    nothing is checked: the local chain, a node whose word the home takes, a home
    that keeps no history (a first sync of a long chain is `c4 sync`'s, with its
    progress bar, never a view's)."""
    history = chain.realm_history()
    if history is None or not history.begun():
        return None
    caught = history.catch_up()
    for _ in range(LOOKS):
        done = computed(history, caught.height)
        if done.state is None or done.unknown:
            return GameCheck(False, done.unknown, done.height, None)
        ours = _game(done, game_id)
        calls = game_calls(done, game_id)
        if ours == document and not caught.waiting:
            return GameCheck(True, "", done.height, calls)
        # The node may have moved on since the history was read, or since it answered.
        document = ask()
        again = history.catch_up()
        if not again.found and not again.waiting and again.height == caught.height:
            if ours == document:
                return GameCheck(True, "", done.height, calls)
            raise Unverified(_difference(game_id, document, ours, done.height))
        caught = again
    return GameCheck(
        False,
        "the realm changed while the node and its blocks were read"
        if not caught.waiting
        else f"block {caught.waiting} holds transactions no later block proves yet",
        caught.height,
        None,
    )


def _game(done: Computed, game_id: int) -> dict[str, Any] | None:
    assert done.state is not None
    game = done.state.games.get(game_id)
    if game is None:
        return None
    found: dict[str, Any] = json.loads(game_object(game))
    return found


def _difference(
    game_id: int, theirs: dict[str, Any] | None, ours: dict[str, Any] | None, height: int
) -> str:
    """The first field in which the node's game is not the history's, in one line."""
    signed = f"the blocks its validators signed (to block {height})"
    if theirs is None:
        return f"game {game_id}: the node shows no such game, and {signed} make one"
    if ours is None:
        return f"game {game_id}: the node shows a game {signed} make none of"
    for field in dict.fromkeys([*ours, *theirs]):
        if ours.get(field) != theirs.get(field):
            return (
                f"game {game_id}: the node says {field} is {json.dumps(theirs.get(field))}, "
                f"{signed} make it {json.dumps(ours.get(field))}"
            )
    return f"game {game_id}: the node's game is not the one {signed} make"
