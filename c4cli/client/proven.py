"""The realm's values proven by what it committed: one proof each, on any history.

A realm that commits (gno/r/c4cli/connect4/commit.gno, the same bytes in
:mod:`c4cli.realm.commitments`) keeps the sha256 of each game's record, of its
books' and of its leaderboards' in its parameters, which gno.land keeps in the main
store under the app hash. A read of such a realm is held there, in one request: the
digests proven after the freshest block a header the trusted validators signed
proves, the records the node gives for them (``BooksRecord()``, ``LeadersRecord()``,
``GameRecord(id)``) and its answer to the read itself (an accessor, a variable, or
a page of ``Render``, :data:`PAGE_OF`; see below for the block they are read at). A
record whose sha256 is not the digest proven, or a node's answer that is not the one
c4's mirror makes from the proven records, is exit 4, one line naming what. What is
shown is the mirror's answer, dated the block whose header proves it.

The lobby is proven complete, not only each row true: the realm's books count its
open and playing games, each game the node lists is proven open or playing by its
own digest, and as many listed as counted is all of them.

Where the node's last block changed the realm, its records are not the ones the
block before committed; the state after that block is proven once the next block is
made (a few seconds at most), and a record no later state holds is exit 4. (gno
v1.7.1 answers a realm's ``vm/qeval`` from the realm's latest state whatever height
is asked: the records are read at the node's last block.) A realm that commits
nothing (the version deployed on gno.land) is held to its history where a home keeps
one (client/verified.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from c4cli.chain.interface import Answer
from c4cli.errors import Refused, Unreachable, Unverified
from c4cli.gotext import parse_result
from c4cli.local import sources
from c4cli.realm import abi, commitments
from c4cli.realm.commitments import CommittedBooks, Leaders, RecordError
from c4cli.realm.memory import PLAYING, VARIABLES, Game, GameBook, RealmState
from c4cli.realm.render import atoi, render
from c4cli.realm.rules import Status
from c4cli.wire import stored
from c4cli.wire.paths import QEVAL, QRENDER
from c4cli.wire.protowire import DecodeError
from c4cli.wire.storeproof import package_key

if TYPE_CHECKING:
    from c4cli.chain.trust import Stored
    from c4cli.node.reader import ProvenReads

LOOKS = 3  # proofs a read is given to catch up with a realm that moves
PROOFS = 50  # game digests proven in one request
PAGE = 100  # games an ActiveJSON page lists at most
# A call of one of the realm's read accessors (its name, its integer arguments).
EXPRESSION = re.compile(r"^([A-Za-z]+)\(([-0-9, ]*)\)$")
ACCESSORS = ("GameJSON", "ActiveJSON", "LeadersJSON")  # the reads c4's mirror makes
PAGE_OF = "Render:"  # what a page of the realm is checked as: PAGE_OF + its path


class Committed(NamedTuple):
    """The realm after block ``height``, as far as it was proven: its books, its
    leaderboards, the games proven (by id), the open and playing games' ids when the
    lobby was proven whole (None: not asked), and ``time``, the block after's, which
    dates the answers."""

    height: int
    time: int
    books: CommittedBooks
    leaders: Leaders
    games: dict[int, Game]
    live: list[int] | None = None

    def state(self, path: str) -> RealmState:
        """A realm state holding what was proven, for the mirror's accessors."""
        books = self.books
        state = RealmState(path, books.owner)
        state.pending_owner, state.fee, state.collected = (
            books.pending_owner,
            books.fee,
            books.collected,
        )
        state.games = GameBook.known(self.games, books.last_id)
        state.active = dict.fromkeys(self.live or [])
        state.wins_board, state.gnot_board = list(self.leaders.wins), list(self.leaders.gnot)
        return state


class StateMoved(Unverified):
    """A record the node gave that is not the one committed by the block proven: the
    node answers from its last block, so the realm may have changed in it (the state
    after it is proven once the next block comes), or the node lies (then no later
    state holds it either: the message says which record)."""

    def __init__(self, message: str, height: int) -> None:
        super().__init__(message)
        self.height = height


class NotCommitted(Exception):
    """The realm commits nothing: its reads are not this module's to prove."""


class Prover:
    """The realm's values as a node gave them, held to what the realm committed."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.path: str = reader.realm_path
        self.held: dict[str, int] = {}  # expression: the block whose state proved it
        self.commits: bool | None = None  # None until a first proof says
        self.code_held = False  # the realm's code proven c4's in this run
        self.why_not = ""  # why its proofs say nothing (it commits nothing, other code)
        self._known: Committed | None = None  # games proven ahead (prove_games)

    # -- one read --------------------------------------------------------------------------

    def check(self, expression: str, value: str, again: Callable[[], str]) -> str:
        """The value of ``expression`` to show: the mirror's, from the records proven
        (the node's last block's, held to the digests proven after the block before it,
        or, where it changed the realm, after it, once the next block proves that), with
        the node's answer there held to it; ``value``, the node's answer read before,
        names the games a lobby lists. (``again`` is the Checker's: the node's answer
        rides with the proofs here.) NotCommitted where the realm commits nothing."""
        known = self._ahead(expression)
        if known is not None:
            ours = self._ours(known, expression)
            if same_answer(value, ours):  # proven ahead with others (prove_games)
                self.held[expression] = known.height
                return ours
        height, moved = 0, None
        for _ in range(LOOKS):
            try:
                snapshot, said = self._proven(expression, value, height)
            except StateMoved as found:
                moved, height = found, found.height + 1
                continue
            except Unverified:
                if moved is None:
                    raise
                raise Unverified(str(moved)) from None  # no later state proves otherwise
            ours = self._ours(snapshot, expression)
            if not same_answer(said, ours):
                proven = f"the state the realm committed, proven at block {snapshot.height}"
                raise Unverified(difference(expression, said, ours, proven, "makes"))
            self.held[expression] = snapshot.height
            return ours
        assert moved is not None, "only a realm that moved is looked at again"
        raise Unverified(str(moved))

    def prove_games(self, ids: Sequence[int]) -> None:
        """Games ``ids`` proven ahead, ``PROOFS`` a request, for the reads of their
        GameJSON that follow (a page of `c4 games`): one proof request a page, not one a
        game. A realm that commits nothing is left to :meth:`check` to say so."""
        if self.commits is False:
            return
        for part in range(0, len(ids), PROOFS):
            try:
                found, _ = self._read(0, ids[part : part + PROOFS], [])
            except (NotCommitted, StateMoved):
                return  # each read proves itself (check)
            known = self._known
            if known is not None and known.height == found.height:
                found = found._replace(games={**known.games, **found.games})
            self._known = found

    def _ahead(self, expression: str) -> Committed | None:
        """The state :meth:`prove_games` proved, if it holds what ``expression`` reads."""
        found, known = EXPRESSION.match(expression), self._known
        if found is None or found[1] != "GameJSON" or known is None:
            return None
        ids = _ints(found[2])
        if len(ids) != 1 or (ids[0] not in known.games and 1 <= ids[0] <= known.books.last_id):
            return None
        return known

    def _proven(self, expression: str, value: str, height: int) -> tuple[Committed, str]:
        """The realm after block ``height`` (0: the freshest proven) with what
        ``expression`` needs of it, and the node's answer to it there."""
        if expression.startswith(PAGE_OF):  # a page of the realm (vm/qrender)
            return self._page(expression.removeprefix(PAGE_OF), height)
        found = EXPRESSION.match(expression)
        func, args = (found[1], _ints(found[2])) if found else (expression, [])
        if func not in ACCESSORS and func not in VARIABLES:
            raise NotCommitted(expression)  # not a read the records make
        ids = args[:1] if func == "GameJSON" else []
        if func == "ActiveJSON":  # the games the node listed: proven in the same request
            ids = _listed(value)[:PROOFS]
        snapshot, answers = self._read(height, ids, [(QEVAL, f"{self.path}.{expression}")])
        said = _value(answers[0], expression, snapshot.height, self.reader.redacted)
        if func == "ActiveJSON":
            whole = len(args) == 2 and args[0] <= 0 and snapshot.books.live <= max(args[1], 1)
            snapshot = self._lobby(snapshot, _listed(said) if whole else None)
        return snapshot, said

    def _page(self, route: str, height: int) -> tuple[Committed, str]:
        """The realm after block ``height`` with what page ``route`` shows (the lobby's
        games whole, or one game), and the node's page there."""
        page = route.partition("?")[0]
        number = atoi(page.removeprefix("game/")) if page.startswith("game/") else None
        ids = [number] if number is not None else []
        snapshot, answers = self._read(height, ids, [(QRENDER, f"{self.path}:{route}")])
        answer = answers[0]
        if isinstance(answer, Refused):
            raise Unverified(f"{self.reader.redacted} would not render {route!r}: {answer}")
        return (self._lobby(snapshot, None) if page == "" else snapshot), answer.data

    def _ours(self, snapshot: Committed, expression: str) -> str:
        state = snapshot.state(self.path)
        if expression.startswith(PAGE_OF):
            return render(state, snapshot.time, expression.removeprefix(PAGE_OF))
        if expression in VARIABLES:
            return str(state.variables()[expression])
        found = EXPRESSION.match(expression)
        assert found is not None, "only the accessors and variables are proven"
        return abi.read(state, snapshot.time, found[1], [a.strip() for a in _args(found[2])])[0]

    # -- the proofs ------------------------------------------------------------------------

    def _read(
        self, height: int, ids: Sequence[int], extra: Sequence[tuple[str, str]]
    ) -> tuple[Committed, list[Answer | Refused]]:
        """The realm's books, leaderboards and games ``ids`` proven after block
        ``height``, with the node's answers to ``extra`` there, in one request."""
        key = commitments.store_key
        keys = [
            (key(self.path, commitments.BOOKS_KEY), "the realm's books"),
            (key(self.path, commitments.LEADERS_KEY), "the realm's leaderboards"),
            *((key(self.path, commitments.game_key(i)), f"game {i}") for i in ids),
        ]
        code = not self.code_held  # the realm's code, proven once a run: c4's, or no proof
        if code:
            keys.append((package_key(self.path), "the realm's code"))
        queries = [
            (QEVAL, f"{self.path}.BooksRecord()"),
            (QEVAL, f"{self.path}.LeadersRecord()"),
            *((QEVAL, f"{self.path}.GameRecord({i})") for i in ids),
        ]
        found: ProvenReads | None = self.reader.proven_reads(keys, [*queries, *extra], height)
        if found is None:
            raise NotCommitted("the node's word is taken")
        values = list(found.stored)
        if code:
            self._code(values.pop())
        (books_digest, leaders_digest, *game_digests), answers = values, found.answers
        at = books_digest.height
        if books_digest.value is None or leaders_digest.value is None:
            self._commits_nothing(f"the realm at {self.path} commits none of its state")
        self.commits = True
        what = "the realm's books"
        books = commitments.parse_books
        parsed = _parsed(books, self._record(books_digest.value, answers[0], what, at), what, at)
        what = "the realm's leaderboards"
        record = self._record(leaders_digest.value, answers[1], what, at)
        leaders = _parsed(commitments.parse_leaders, record, what, at)
        games: dict[int, Game] = {}
        for number, digest, answer in zip(ids, game_digests, answers[2:], strict=False):
            if digest.value is None:
                if 1 <= number <= parsed.last_id:
                    raise StateMoved(
                        f"game {number}: the realm committed no record of it by block {at}, "
                        f"though its books say it gave ids up to {parsed.last_id}",
                        at,
                    )
                continue  # proven never made
            what = f"game {number}'s record"
            record = self._record(digest.value, answer, what, at)
            game = _parsed(commitments.parse_game, record, what, at)
            if game.id != number:
                raise Unverified(f"{what} as committed at block {at} is game {game.id}'s")
            games[number] = game
        committed = Committed(at, found.time, parsed, leaders, games)
        return committed, list(answers[2 + len(ids) :])

    def _commits_nothing(self, why: str) -> NoReturn:
        self.commits, self.why_not = False, why
        raise NotCommitted(why)

    def _code(self, found: Stored) -> None:
        """Whether the realm's code, proven, is c4's (its Gno files, tests aside, byte for
        byte, and no file more): only then do its digests say what c4 reads them as."""
        differs = code_differs(found.value, self.path)
        if differs:
            self._commits_nothing(
                f"the realm's code proven at block {found.height} is not c4's ({differs}): "
                "what it commits is not read as c4's"
            )
        self.code_held = True

    def _record(self, digest: bytes, answer: Answer | Refused, what: str, at: int) -> bytes:
        node = self.reader.redacted
        if isinstance(answer, Refused):
            raise Unverified(f"{node} would not give {what} at block {at}: {answer}")
        try:
            text, _ = parse_result(answer.data)
        except ValueError:
            raise Unverified(f"{node} answered {what} at block {at} with garbage") from None
        record = text.encode("utf-8", "surrogateescape")
        if commitments.digest(record) != digest:
            raise StateMoved(
                f"{what} as {node} gave it is not the one the realm committed by block {at} "
                "(its sha256 is not the digest proven), nor by a later block",
                at,
            )
        return record

    def _lobby(self, snapshot: Committed, listed: list[int] | None) -> Committed:
        """``snapshot`` with every open and playing game proven: ``listed`` (the node's
        listing of them all at the same block; None: its pages are asked), each proven
        live by its digest, as many as the realm's books count (pages and proofs asked
        a request at a time)."""
        count, at = snapshot.books.live, snapshot.height
        if listed is None:
            pages = [
                (QEVAL, f"{self.path}.ActiveJSON({offset}, {PAGE})")
                for offset in range(0, count, PAGE)
            ]
            listed = []
            if pages:
                _, answers = self._read(at, [], pages)
                for answer in answers:
                    listed += _listed(_value(answer, "ActiveJSON", at, self.reader.redacted))
        games = dict(snapshot.games)
        missing = [number for number in listed if number not in games]
        for part in range(0, len(missing), PROOFS):
            more, _ = self._read(at, missing[part : part + PROOFS], [])
            games.update(more.games)
        live = [n for n in listed if n in games and games[n].status in (Status.OPEN, PLAYING)]
        if len(live) != count or len(set(listed)) != len(listed) or live != sorted(live):
            raise Unverified(
                f"the lobby the node lists at block {at} is not the realm's: it lists "
                f"{len(listed)} games of which {len(live)} are proven open or playing, and the "
                f"realm's committed books count {count}"
            )
        return snapshot._replace(games=games, live=live)

    # -- what a run read -------------------------------------------------------------------

    def height(self, *expressions: str) -> int:
        read = expressions or tuple(self.held)
        heights = [self.held[e] for e in read if e in self.held]
        return min(heights) if heights else 0


def code_differs(package: bytes | None, path: str) -> str:
    """What makes ``package`` (the store's value at ``pkg:<path>``) other than c4's
    realm at ``path``: "" when its Gno files are c4's byte for byte (gnomod.toml, which
    the chain stamps, aside)."""
    if package is None:
        return "no package"
    try:
        _, files = stored.package(package)
    except (DecodeError, UnicodeDecodeError):
        return "a package c4 cannot read"
    mine = [name for name in sources.source_files() if name != sources.GNOMOD]
    extra = sorted(name for name in files if name not in mine and name != sources.GNOMOD)
    if extra:
        return f"{extra[0]} is not c4's"
    differs = [name for name in mine if files.get(name) != sources.file_text(name, path)]
    return f"{differs[0]} differs" if differs else ""


def _parsed(parse: Callable[[bytes], Any], record: bytes, what: str, at: int) -> Any:
    try:
        return parse(record)
    except RecordError as exc:
        raise Unverified(f"{what} the realm committed at block {at} does not read: {exc}") from None


def _value(answer: Answer | Refused, expression: str, at: int, node: str) -> str:
    """The node's answer to ``expression`` at block ``at``, where the proof is."""
    if isinstance(answer, Refused):
        raise Unverified(f"{node} would not answer {expression} at block {at}: {answer}")
    try:
        return parse_result(answer.data)[0]
    except ValueError:
        raise Unreachable(f"the chain answered {expression} with garbage") from None


def _args(text: str) -> list[str]:
    return [arg for arg in text.split(",") if arg.strip()]


def _ints(text: str) -> list[int]:
    try:
        return [int(arg) for arg in _args(text)]
    except ValueError:
        return []


def _listed(text: str) -> list[int]:
    """The ids an ActiveJSON answer lists (none for what is not one)."""
    try:
        games = json.loads(text).get("games")
        return [int(game["id"]) for game in games][:PAGE]
    except (ValueError, AttributeError, TypeError, KeyError):
        return []


def same_answer(theirs: str, ours: str) -> bool:
    """Whether the node's answer is the mirror's, but for the block time it was read at."""
    if theirs == ours:
        return True
    try:
        node, mine = json.loads(theirs), json.loads(ours)
    except ValueError:
        return False
    if not isinstance(node, dict) or not isinstance(mine, dict) or "now" not in mine:
        return False
    node.pop("now", None)
    mine.pop("now")
    return bool(node == mine)


def difference(expression: str, theirs: str, ours: str, source: str, verb: str) -> str:
    """Where the node's answer to ``expression`` is not ``ours``, what ``source`` (the
    proven state, or the blocks a history replayed) ``verb`` it, in one line: a game's
    first field that differs, else the two values."""
    try:
        mine, node = json.loads(ours), json.loads(theirs)
    except ValueError:
        return f"{expression}: the node says {theirs[:200]!r}, {source} {verb} it {ours[:200]!r}"
    if isinstance(mine, dict) and isinstance(node, dict) and "game" in mine:
        mine_game, node_game = mine.get("game"), node.get("game")
        game_id = (mine_game or node_game or {}).get("id")
        if node_game is None:
            return f"game {game_id}: the node shows no such game, and {source} {verb} one"
        if mine_game is None:
            return f"game {game_id}: the node shows a game {source} {verb} none of"
        for field in dict.fromkeys([*mine_game, *node_game]):
            if mine_game.get(field) != node_game.get(field):
                return (
                    f"game {game_id}: the node says {field} is "
                    f"{json.dumps(node_game.get(field))}, {source} {verb} it "
                    f"{json.dumps(mine_game.get(field))}"
                )
    return (
        f"{expression}: the node's answer is not the one {source} {verb}: "
        f"{theirs[:200]!r} against {ours[:200]!r}"
    )
