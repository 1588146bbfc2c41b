"""A node's answers held to the realm's history: what its signed blocks make the realm.

On a node home whose blocks are proven and that keeps the realm's history (`c4 sync`
began it), every value read of the realm (:class:`~c4cli.client.realm_client.
RealmClient`'s GameJSON, ActiveJSON, LeadersJSON, fee, collected, owner and
pendingOwner) is checked: the history is brought up to the node's proven head (only
the blocks made since), c4's mirror of the realm runs its delivered calls again
(:mod:`c4cli.client.replayed`, once a run while the history does not grow), and the
value the mirror makes, at the block time the node's answer gives, must be the
node's, byte for byte. Different is exit 4 naming what and both values: a node that
lies, or c4's mirror and the GnoVM that differ, must be known at once, never shown as
the realm's state.

A node answers a query at its last block, and a history holds the blocks before the
head (a block's results are proven by the next header), so the two may stand a block
apart for a moment: a difference is believed only once a second look at both finds
the realm unchanged. What the history cannot make (a realm deployed in genesis, code
run once that reached it) is said, and the value is the node's word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import NamedTuple

from c4cli.chain.interface import GameCall
from c4cli.chain.trust import RealmHistory
from c4cli.client.replayed import Computed, computed, game_calls
from c4cli.errors import Unverified
from c4cli.realm import abi
from c4cli.realm.memory import RealmState

LOOKS = 3  # looks at the node and the history before a moving realm is left unchecked
_EXPRESSION = re.compile(r"^([A-Za-z]+)\(([-0-9, ]*)\)$")
# The realm's variables a client reads, and where the mirror keeps each.
VARIABLES: dict[str, Callable[[RealmState], str]] = {
    "fee": lambda state: str(state.fee),
    "collected": lambda state: str(state.collected),
    "owner": lambda state: state.owner,
    "pendingOwner": lambda state: state.pending_owner,
}


class GameCheck(NamedTuple):
    """A game held to the history: ``verified``, or why not (``unverified``); the block
    the history reaches; the calls of the game it holds (None when it cannot say)."""

    verified: bool
    unverified: str
    height: int
    calls: list[GameCall] | None


class Checker:
    """The realm's values as a node gave them, held to what its history makes them."""

    def __init__(self, history: RealmHistory) -> None:
        self.history = history
        self.held: set[str] = set()  # expressions whose answers equalled the mirror's
        self.unchecked: dict[str, str] = {}  # expression: why it is the node's word
        self._done: Computed | None = None

    def computed(self) -> Computed:
        """The state the history makes, brought up to the node's head once a run (and
        again whenever a difference sends it back to the node)."""
        if self._done is None:
            caught = self.history.catch_up()
            self._done = computed(self.history, caught.height)
        return self._done

    def check(self, expression: str, value: str, again: Callable[[], str]) -> None:
        """Hold ``value``, the node's answer of ``expression``, to the mirror's; ``again``
        asks the node once more. Unverified when they differ and the realm stood still."""
        for _ in range(LOOKS):
            done = self.computed()
            if done.state is None or done.unknown:
                self.unchecked[expression] = done.unknown
                return
            ours = _mirror(done.state, expression, value)
            if ours is None:
                return  # an expression the mirror does not make: the node's word
            if ours == value:
                self.held.add(expression)
                self.unchecked.pop(expression, None)
                return
            value = again()  # the node may have moved on since the history was read
            caught = self.history.catch_up()
            if not caught.found and not caught.waiting:
                # No transaction of the realm since: its state stands (blocks without
                # one, empty or not, change nothing of it), and the node's must be it.
                if ours == value:
                    self.held.add(expression)
                    return
                raise Unverified(_difference(expression, value, ours, caught.height))
            self._done = None  # the history grew: the state again, from it
        self.unchecked[expression] = "the realm changed while the node and its blocks were read"

    def game(self, game_id: int) -> GameCheck:
        """How game ``game_id``, read through this checker, stands: verified only once
        its GameJSON was held to the mirror's."""
        done = self.computed()
        expression = f"GameJSON({game_id})"
        if done.state is None or expression not in self.held:
            why = self.unchecked.get(expression) or done.unknown or "not held to the history"
            return GameCheck(False, why, done.height, None)
        return GameCheck(True, "", done.height, game_calls(done, game_id))


def checker_of(reader: object) -> Checker | None:
    """The checker of a chain whose reads are held to a history: one a home keeps (`c4
    sync` began it) on a node whose blocks are proven; None for anything else (the
    local chain, a state in hand, a node whose word is taken)."""
    opener = getattr(reader, "realm_history", None)
    history: RealmHistory | None = opener() if callable(opener) else None
    if history is None or not history.begun():
        return None
    memo = history.memo  # one checker a history, for the run
    if "checker" not in memo:
        memo["checker"] = Checker(history)
    found: Checker = memo["checker"]
    return found


def _mirror(state: RealmState, expression: str, value: str) -> str | None:
    """What the mirror answers ``expression`` with, at the block time ``value`` (the
    node's answer) gives; None for an expression it does not make."""
    if expression in VARIABLES:
        return VARIABLES[expression](state)
    found = _EXPRESSION.match(expression)
    if found is None or found[1] not in ("GameJSON", "ActiveJSON", "LeadersJSON"):
        return None
    args = [arg.strip() for arg in found[2].split(",") if arg.strip()]
    try:
        now = int(json.loads(value).get("now", 0))
    except (ValueError, AttributeError, TypeError):
        now = 0  # not JSON: the mirror's answer will differ, and say so
    try:
        return abi.read(state, now, found[1], args)[0]
    except abi.ArgumentError:
        return None


def _difference(expression: str, theirs: str, ours: str, height: int) -> str:
    """Where the node's answer is not the history's, in one line: a game's first field
    that differs, else the two values."""
    signed = f"the blocks its validators signed (to block {height})"
    try:
        mine, node = json.loads(ours), json.loads(theirs)
    except ValueError:
        return f"{expression}: the node says {theirs!r}, {signed} make it {ours!r}"
    if isinstance(mine, dict) and isinstance(node, dict) and "game" in mine:
        mine_game, node_game = mine.get("game"), node.get("game")
        game_id = (mine_game or node_game or {}).get("id")
        if node_game is None:
            return f"game {game_id}: the node shows no such game, and {signed} make one"
        if mine_game is None:
            return f"game {game_id}: the node shows a game {signed} make none of"
        for field in dict.fromkeys([*mine_game, *node_game]):
            if mine_game.get(field) != node_game.get(field):
                return (
                    f"game {game_id}: the node says {field} is "
                    f"{json.dumps(node_game.get(field))}, {signed} make it "
                    f"{json.dumps(mine_game.get(field))}"
                )
    return (
        f"{expression}: the node's answer is not the one {signed} make: "
        f"{theirs[:200]!r} against {ours[:200]!r}"
    )
