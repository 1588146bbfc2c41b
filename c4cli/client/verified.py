"""A node's answers held to the realm's history: what its signed blocks make the realm.

On a node home whose blocks are proven and that keeps the realm's history (`c4 sync`
began it), every value read of the realm (:class:`~c4cli.client.realm_client.
RealmClient`'s GameJSON, ActiveJSON, LeadersJSON, fee, collected, owner and
pendingOwner) is checked: the history is brought up to the node's proven head (only
the blocks made since), c4's mirror of the realm runs its delivered calls again
(:mod:`c4cli.client.replayed`, once a run while the history does not grow), and the
value the mirror makes is the one shown. The node's answer only checks it: it must be
the mirror's, byte for byte, at the block time it gives (a time between the last block
that changed the realm and the proven head's; else the head's). Different is exit 4 naming
what and both values: a node that lies, or c4's mirror and the GnoVM that differ, must
be known at once, never shown as the realm's state.

A node answers a query at its last block, and a history holds the blocks before the
head (a block's results are proven by the next header), so the two may stand a block
apart for a moment: a difference is believed only once a second look at both finds
the realm unchanged. A node whose head stays a block the history cannot reach (one
that froze its head on a block holding a transaction) is not believed either: what
the history makes is shown, as of its last block, and said so. What the history
cannot make (a realm deployed in genesis, code run once that reached it) is said, and
the value is the node's word.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from typing import NamedTuple

from c4cli.chain.interface import GameCall
from c4cli.chain.trust import Caught, CheckpointDamaged, RealmHistory
from c4cli.client.proven import ACCESSORS, EXPRESSION, NotCommitted, Prover, difference
from c4cli.client.replayed import Computed, computed, forget, game_calls
from c4cli.errors import Unverified
from c4cli.realm import abi

HISTORY = "history"  # verified by the realm's history, replayed (the Checker)
PROOF = "proof"  # verified by the state the realm committed, proven (client/proven.py)
LOOKS = 3  # looks at the node and the history before a moving realm is left unchecked


class GameCheck(NamedTuple):
    """A game held to the history: ``verified``, or why not (``unverified``); the block
    the history reaches; the calls of the game it holds (None when it cannot say);
    ``behind``: why what is shown is the state as of ``height`` and not the node's
    answer, which was for a later block no signed block proves yet ("": it was held)."""

    verified: bool
    unverified: str
    height: int
    calls: list[GameCall] | None
    behind: str = ""
    by: str = HISTORY

    def verification(self) -> Verification:
        return Verification(self.verified, self.unverified, self.height, self.behind, self.by)


class Verification(NamedTuple):
    """How the realm's values a run read stand: ``verified`` (the state the blocks its
    validators signed make, through block ``height``), or the node's word, for the
    reason ``unverified`` says; ``behind`` as :class:`GameCheck` has it."""

    verified: bool
    unverified: str
    height: int
    behind: str = ""
    by: str = HISTORY

    def json(self) -> dict[str, object]:
        """The marks a view's JSON carries."""
        if not self.verified:
            return {"verified": False, "unverified": self.unverified}
        marks: dict[str, object] = {
            "verified": True,
            "verified_height": self.height,
            "verified_by": self.by,
        }
        if self.behind:
            marks["behind"] = self.behind
        return marks

    def text(self) -> str:
        """The line a view ends with."""
        if not self.verified:
            return f"verified: no, the node's word ({self.unverified})"
        if self.by == PROOF:
            return (
                f"verified: proven at block {self.height} by its validators' signatures "
                "(the state the realm committed)"
            )
        if self.behind:
            return (
                f"verified: as of block {self.height}, the last its validators' signed blocks "
                f"prove; the node's newer answer is not shown ({self.behind})"
            )
        return f"verified: the blocks its validators signed make it so (to block {self.height})"


NO_HISTORY = "this home keeps no history of the realm: `c4 sync` begins it"


class Checker:
    """The realm's values as a node gave them, held to what its history makes them.

    A light client shows what it proved: the value a read returns is the one the
    history makes. The node's answer is a check of it: equal, it is held; different
    for a block the history reaches, exit 4; different for a later block the history
    cannot reach yet (a head whose results no later block proves: a node that froze
    its head, or one a block ahead), never shown: the state as of the history's block
    is, said so (``behind``)."""

    def __init__(self, history: RealmHistory) -> None:
        self.history = history
        self.held: set[str] = set()  # expressions whose answers equalled the mirror's
        self.unchecked: dict[str, str] = {}  # expression: why it is the node's word
        self.behind: dict[str, str] = {}  # expression: why the history's value was shown
        self._done: Computed | None = None
        self._caught = Caught(0, 0, 0)

    def computed(self) -> Computed:
        """The state the history makes, brought up to the node's head once a run (and
        again whenever a difference sends it back to the node)."""
        if self._done is None:
            self._caught = self.history.catch_up()
            self._done = computed(self.history, self._caught.height)
        return self._done

    def _ours(self, expression: str, value: str) -> str | None:
        """The mirror's answer to ``expression`` (see :func:`_mirror`); a checkpoint
        found damaged on the way is forgotten, and the state made from the first row."""
        try:
            return _mirror(self.computed(), expression, value, self._caught)
        except CheckpointDamaged:
            self._forget()
            return _mirror(self.computed(), expression, value, self._caught)

    def _forget(self) -> None:
        forget(self.history)
        self._done = None

    def check(self, expression: str, value: str, again: Callable[[], str]) -> str:
        """The value of ``expression`` to show: the mirror's, with ``value``, the node's
        answer, held to it (``again`` asks the node once more); the node's own only
        where the history cannot make it (said in :attr:`unchecked`)."""
        waited_on = -1  # the unproven head a look found already waited for
        for _ in range(LOOKS):
            done = self.computed()
            if done.state is None or done.unknown:
                self.unchecked[expression] = done.unknown
                return value
            ours = self._ours(expression, value)
            if ours is None:
                self.unchecked[expression] = f"c4's mirror does not make {expression}"
                return value
            if ours == value:
                return self._held(expression, value)
            waited_on = waited_on if waited_on >= 0 else self._caught.waiting or -1
            value = again()  # the node may have moved on since the history was read
            caught = self._caught = self.history.catch_up()
            if not caught.found and not caught.waiting:
                # No transaction of the realm since: its state stands (blocks without
                # one, empty or not, change nothing of it), and the node's must be it.
                ours = self._ours(expression, value)
                if ours == value:
                    return self._held(expression, value)
                if ours is not None and _ahead(value, ours, caught.head_time):
                    # The same state, at a block later than the last one proven (a
                    # node a block ahead of its own signatures): the proven one's shown.
                    self.behind[expression] = (
                        "the node answered at a block time later than the last block its "
                        "validators' signatures prove"
                    )
                    return ours
                raise Unverified(_difference(expression, value, str(ours), caught.height))
            if caught.found:
                self._done = None  # the history grew: the state again, from it
            elif caught.waiting == waited_on:
                break  # a head no later block proves, again: waiting more proves nothing
            waited_on = caught.waiting
        ours = self._ours(expression, value)
        done = self.computed()
        if ours is None or done.unknown:  # the history grew past what c4 can make
            self.unchecked[expression] = done.unknown or f"c4's mirror does not make {expression}"
            return value
        waiting = self._caught.waiting
        self.behind[expression] = (
            f"the node answered for block {waiting}, whose results no later block proves yet"
            if waiting
            else "the realm changed while the node and its blocks were read"
        )
        return ours

    def _held(self, expression: str, value: str) -> str:
        self.held.add(expression)
        self.unchecked.pop(expression, None)
        self.behind.pop(expression, None)
        return value

    def verification(self, *expressions: str) -> Verification:
        """How the values of ``expressions`` (every one read in this run, by default)
        stand: verified only when each was held or shown from the history."""
        done = self.computed()
        read = expressions or (*self.held, *self.unchecked, *self.behind)
        unknown = next((self.unchecked[e] for e in read if e in self.unchecked), "")
        if done.state is None or done.unknown or unknown:
            return Verification(False, unknown or done.unknown, done.height)
        missing = next((e for e in read if e not in self.held and e not in self.behind), None)
        if missing is not None:
            return Verification(False, f"{missing} was not held to the history", done.height)
        behind = next((self.behind[e] for e in read if e in self.behind), "")
        return Verification(True, "", done.height, behind)

    def game(self, game_id: int) -> GameCheck:
        """How game ``game_id``, read through this checker, stands: verified only once
        its GameJSON was held to the mirror's, or shown from it."""
        verification = self.verification(f"GameJSON({game_id})")
        if not verification.verified:
            return GameCheck(False, verification.unverified, verification.height, None)
        try:
            calls = game_calls(self.computed(), game_id)
        except CheckpointDamaged:
            self._forget()
            calls = game_calls(self.computed(), game_id)
        return GameCheck(True, "", verification.height, calls, verification.behind)


class Witnessed:
    """A run's reads of the realm on a node home whose blocks are proven: held to the
    realm's history where the home keeps one and it makes the value (the Checker),
    else to the state the realm committed, where it commits it (client/proven.py: a
    fresh home, a realm deployed in the genesis, one reached by code the history
    cannot replay); with neither, the node's word, said so."""

    def __init__(self, prover: Prover, history: Checker | None) -> None:
        self.prover = prover
        self.history = history
        self.unchecked: dict[str, str] = {}  # read with neither witness: why

    def check(self, expression: str, value: str, again: Callable[[], str]) -> str:
        history = self.history
        if history is not None:
            shown = history.check(expression, value, again)
            if expression in history.held or expression in history.behind:
                return shown
        if self.prover.commits is not False:
            with contextlib.suppress(NotCommitted):  # or a read the records do not make
                return self.prover.check(expression, value, again)
        if history is None:
            why = self.prover.why_not
            self.unchecked[expression] = f"{why}; {NO_HISTORY}" if why else NO_HISTORY
        return value

    def verification(self, *expressions: str) -> Verification:
        history, prover = self.history, self.prover
        by_history = () if history is None else (*history.held, *history.behind)
        read = expressions or tuple(
            dict.fromkeys(
                [
                    *by_history,
                    *(() if history is None else history.unchecked),
                    *prover.held,
                    *self.unchecked,
                ]
            )
        )
        made = [e for e in read if e in by_history]
        proven = [e for e in read if e not in made and e in prover.held]
        if history is not None and (not proven or len(made) + len(proven) < len(read)):
            return history.verification(*read)  # its own, or why neither holds the rest
        if read and len(proven) == len(read):
            return Verification(True, "", prover.height(*proven), "", PROOF)
        if read and history is not None:  # some made by the history, the others proven
            height = min(prover.height(*proven), history.verification(*made).height)
            return Verification(True, "", height, "", PROOF)
        missing = next((e for e in read if e not in proven), "")
        return Verification(False, self.unchecked.get(missing, prover.why_not or NO_HISTORY), 0)

    def prove_games(self, ids: Sequence[int]) -> None:
        """Games ``ids`` proven ahead of their reads where no history makes them."""
        if self.history is None:
            self.prover.prove_games(ids)

    def game(self, game_id: int) -> GameCheck:
        shown = self.verification(f"GameJSON({game_id})")
        if self.history is not None and (shown.by == HISTORY or not shown.verified):
            return self.history.game(game_id)
        if not shown.verified:
            return GameCheck(False, shown.unverified, 0, None)
        return GameCheck(True, "", shown.height, None, shown.behind, PROOF)


def history_checker_of(reader: object) -> Checker | None:
    """The checker of a chain whose reads are held to a history: one a home keeps (`c4
    sync` began it) on a node whose blocks are proven; None for anything else."""
    opener = getattr(reader, "realm_history", None)
    history: RealmHistory | None = opener() if callable(opener) else None
    if history is None or not history.begun():
        return None
    memo = history.memo  # one checker a history, for the run
    found = memo.get("checker")
    if not isinstance(found, Checker):
        found = memo["checker"] = Checker(history)
    return found


def checker_of(reader: object) -> Witnessed | Checker | None:
    """What holds the realm's values read through ``reader``: on a node home whose
    blocks are proven, its proofs and its history (:class:`Witnessed`, one a run); a
    history alone where proofs cannot be asked; None for anything else (the local
    chain, a state in hand, a node whose word is taken)."""
    checker = history_checker_of(reader)
    memo: object = getattr(reader, "memo", None)
    if not getattr(reader, "proves", False) or not isinstance(memo, dict):
        return checker
    witnessed = memo.get("witnessed")
    if not isinstance(witnessed, Witnessed):
        witnessed = memo["witnessed"] = Witnessed(Prover(reader), checker)
    return witnessed


def verification_of(reader: object, *expressions: str) -> Verification | None:
    """How the realm's values read through ``reader`` stand: None on the local chain
    and where the node's word is taken by choice (``--trust-node``); not verified on
    a node home where neither proofs nor a history hold them (said why)."""
    checker = checker_of(reader)
    if checker is not None:
        return checker.verification(*expressions)
    if getattr(reader, "proves", False):  # a node home that keeps no history of it
        return Verification(False, NO_HISTORY, 0)
    return None


def game_check_of(reader: object, game_id: int) -> GameCheck | None:
    """How game ``game_id``, read through ``reader``, stands, as :func:`verification_of`
    says it of any value, with the game's calls where the history holds them."""
    checker = checker_of(reader)
    if checker is not None:
        return checker.game(game_id)
    if getattr(reader, "proves", False):
        return GameCheck(False, NO_HISTORY, 0, None)
    return None


def marks_of(reader: object) -> dict[str, object]:
    """The "verified" marks a view's JSON carries of what it read through ``reader``
    (none on the local chain, nor with --trust-node)."""
    verification = verification_of(reader)
    return {} if verification is None else verification.json()


def _mirror(done: Computed, expression: str, value: str, caught: Caught) -> str | None:
    """What the mirror answers ``expression`` with; None for an expression it does not
    make (or a state the history cannot make). An accessor's JSON carries the block
    time it was read at: the one ``value`` (the node's answer) gives, when it falls
    between the last block that held a transaction about the realm (the state stands
    from there) and the proven head; else the proven head's, and a forged time differs."""
    state = done.state
    if state is None:
        return None
    variables = state.variables()
    if expression in variables:
        return str(variables[expression])
    found = EXPRESSION.match(expression)
    if found is None or found[1] not in ACCESSORS:
        return None
    args = [arg.strip() for arg in found[2].split(",") if arg.strip()]
    now = caught.head_time
    try:
        said = json.loads(value).get("now")
        if type(said) is int and done.changed <= said <= caught.head_time:
            now = said
    except (ValueError, AttributeError, TypeError, RecursionError):
        pass  # not JSON: the mirror's answer will differ, and say so
    try:
        return abi.read(state, now, found[1], args)[0]
    except abi.ArgumentError:
        return None


def _ahead(theirs: str, ours: str, head_time: int) -> bool:
    """Whether the node's answer is the mirror's but for a ``now`` after the proven
    head's time: an answer from a block the light client has not proven yet, not a
    lie (a time before the realm's last change, or any other field, is one)."""
    try:
        node, mine = json.loads(theirs), json.loads(ours)
    except ValueError:
        return False
    if not isinstance(node, dict) or not isinstance(mine, dict):
        return False
    said = node.pop("now", None)
    mine.pop("now", None)
    return type(said) is int and said > head_time and node == mine


def _difference(expression: str, theirs: str, ours: str, height: int) -> str:
    """Where the node's answer is not the history's, in one line."""
    signed = f"the blocks its validators signed (to block {height})"
    return difference(expression, theirs, ours, signed, "make")
