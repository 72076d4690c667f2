"""Trut's hidden-information description (trutnet/engine/hidden.py) asks a table for
exactly what the Trut-specific ``trutnet/protocol/table.py`` did, and the generic table
that replaced it (``trutnet/protocol/replica.py``, which runs any game from the
description alone) does just that.

:class:`TableToday` transcribes, crypto left out, the choices of the Trut-specific
table's ``_deal``, ``_start_shares``, ``_resume_game``, ``_on_act``, ``_on_play`` and
``_first_dealer_draw``: which positions each share round revealed, to whom, and when.
Many seeded games (2, 3, 4, 6 players, classic and Gâtinaise, from positions that
bring the Fortial [T15] and la Chanson [T19]) are played by a table that knows only
the description (tests/engine/hidden_table.py), and its rounds must be the transcription's,
round for round. A few whole games over the real table, with full crypto, tie the
transcription and the description to the code itself: the real table's own record of
what it showed to whom is both.
"""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.hidden_table import EVERYONE, GenericTable, Round
from tests.games.trut.trut_helpers import CONFIGS, playout, start_position
from trutnet.bots import make_bot
from trutnet.engine.api import CHANCE, Action, GameState
from trutnet.engine.errors import IllegalAction, NotationError
from trutnet.engine.hidden import (
    Deck,
    Disclose,
    JointRandom,
    Pos,
    Shuffle,
    Turn,
    pending_disclosures,
)
from trutnet.games.trut.rules import (
    CardRef,
    Deal,
    Draw,
    Keep,
    Play,
    SingCount,
    StartPosition,
    TrutConfig,
    TrutGame,
    TrutState,
    deck_for_hands,
)
from trutnet.games.trut.rules.actions import TRUT as TRUT_WORD
from trutnet.games.trut.rules.cards import FULL_DECK, Card
from trutnet.games.trut.rules.hidden import DECK, pos

# 2 seeds for each config and start (the first-dealer draw, or a position): 4 games a
# config, where 6 drew the start at random too
SETTINGS = settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


# ------------------------------------------------- table.py today, transcribed


class TableToday:
    """The share rounds the Trut-specific ``trutnet/protocol/table.py`` ran for a Trut
    game, from its public actions (the code before the generic table, crypto left out;
    a play is a public reveal, from its entry alone since protocol version 2)."""

    def __init__(self, game: TrutGame) -> None:
        self.state = game.new_initial_state()
        self.withheld: dict[int, list[int]] = {}
        self.rounds: list[Round] = []

    def follow(self, action: Action) -> None:
        state = self.state
        if isinstance(action, Deal):  # _deal
            state.apply(Deal(None))
            owners = {s: list(state.holdings[s]) for s in range(state.n)}
            self.withheld = {}
            if state.phase == "fortial":  # T15: the opponents' shares are withheld
                team = state.fortial_team
                self.withheld = {s: ps for s, ps in owners.items() if state.team_of[s] != team}
                owners = {s: ps for s, ps in owners.items() if state.team_of[s] == team}
            self._start_shares(owners)
        elif isinstance(action, Draw):  # _first_dealer_draw
            state.apply(action)
        elif isinstance(action, Play):  # _on_play and _finish_play: a public reveal
            assert action.ref.pos is not None
            self.rounds.append(Round(len(state.history()), {EVERYONE: (pos(action.ref.pos),)}))
            state.apply(action)
            self._resume_game()
        else:  # _on_act
            action = action.public() if isinstance(action, Keep) else action
            before = [list(h) for h in state.holdings]
            state.apply(action)
            if isinstance(action, SingCount):  # T19: new cards revealed to their owners
                new = {
                    s: [p for p in state.holdings[s] if p not in before[s]] for s in range(state.n)
                }
                self._start_shares(new)
            else:
                self._resume_game()

    def _start_shares(self, owners: dict[int, list[int]]) -> None:
        owners = {s: ps for s, ps in owners.items() if ps}
        waiting = [s for s in range(self.state.n) if any(o != s for o in owners)]
        if waiting:
            at = len(self.state.history())
            self.rounds.append(
                Round(at, {s: tuple(map(pos, sorted(ps))) for s, ps in owners.items()})
            )
        self._resume_game()

    def _resume_game(self) -> None:
        if self.withheld and self.state.phase not in ("fortial", "deal", "over"):
            withheld, self.withheld = self.withheld, {}
            self._start_shares(withheld)
            return
        if self.state.phase in ("deal", "over"):
            self.withheld = {}


def today(game: TrutGame, actions: list[Action]) -> list[Round]:
    table = TableToday(game)
    for action in actions:
        table.follow(action)
    return table.rounds


# --------------------------------------------------- playing from the description


def trut_chooser(seed: int, kinds: tuple[str, ...]):
    """Each seat's bot decides from its own replica's observation (as a peer does)."""
    bots = {}

    def choose(seat: int, replica: TrutState) -> Action:
        if seat not in bots:
            bots[seat] = make_bot("trut", kinds[seat % len(kinds)], random.Random(f"{seed}/{seat}"))
        return bots[seat].choose(replica.observation(seat))

    return choose


def _game(config: TrutConfig, seed: int, from_position: bool) -> TrutGame:
    if not from_position:
        return TrutGame(config)
    start = start_position(config, random.Random(seed ^ 0x5EED))
    return TrutGame(TrutConfig(config.players, config.variant, config.sum_on_patte, start))


def play_generic(game: TrutGame, seed: int, kinds=("random", "heuristic")) -> GenericTable:
    table = GenericTable(game, game.config.players, trut_chooser(seed, kinds), random.Random(seed))
    table.play()
    return table


@pytest.mark.parametrize("from_position", [False, True], ids=["draw", "position"])
@pytest.mark.parametrize("config", CONFIGS, ids=str)
@SETTINGS
@given(seed=seeds)
def test_description_asks_for_exactly_the_rounds_of_table_py(config, from_position, seed):
    """The same owners for the deal shares, the same withheld sets in the Fortial and
    when they are released, the same positions for sing's new cards, the same position
    revealed by each play; and every hidden replica agrees at every step."""
    game = _game(config, seed, from_position)
    table = play_generic(game, seed)
    assert table.full.is_terminal()
    assert table.rounds == today(game, table.full.history())


def test_special_hands_ask_for_the_rounds_of_table_py_too():
    """The same comparison on fixed seeds that meet the Fortial, passed and trutted
    [T15], and la Chanson with its draws and keeps [T19]."""
    seen = set()
    for config in CONFIGS:
        # seeds 2 and 4 meet the Fortial at every player count, 1 la Chanson (2 players)
        for seed in (1, 2, 4):
            game = _game(config, seed, True)
            table = play_generic(game, seed)
            assert table.rounds == today(game, table.full.history())
            phases = set()
            for action in table.full.history():
                if isinstance(action, SingCount):
                    phases.add("sing")
                if isinstance(action, Keep):
                    phases.add("keep")
            events = table.full.events
            kinds = {e["event"] for e in events}
            results = {e.get("result") for e in events}
            if "fortial" in kinds:
                phases.add("fortial")
            if "fortial_pass" in results:
                phases.add("fortial_pass")
            if any(e["event"] == "trut" and e["kind"] == "fortial" for e in events):
                phases.add("fortial_trut")
            seen |= phases
    assert seen >= {"sing", "keep", "fortial", "fortial_pass", "fortial_trut"}


# ------------------------------------------------------------ Trut, step by step


def fortial_game(players: int = 4, dealer: int = 1) -> TrutGame:
    # Team 0 au Fortial [T15]: 6 Longs and 2 Petits.
    teams = 2 if players != 3 else 3
    longs = (6,) + (0,) * (teams - 1)
    petits = (2,) + (0,) * (teams - 1)
    return TrutGame(TrutConfig(players, start=StartPosition(longs, petits, dealer)))


def test_fortial_withholds_the_opponents_cards_until_the_decision_is_over():
    state = fortial_game().new_initial_state()
    assert state.next_step() == Shuffle("french32", Deal(None))
    state.apply(state.sample_chance(random.Random(1)))
    assert state.phase == "fortial"
    requests = state.table_requests()
    # Only the Fortial team (seats 0 and 2) is shown its cards; seat 1 decides first.
    assert requests == (
        Disclose(tuple(map(pos, sorted(state.holdings[0]))), 0),
        Disclose(tuple(map(pos, sorted(state.holdings[2]))), 2),
        Turn(state.to_act),
    )
    shown = {0: set(requests[0].positions), 2: set(requests[1].positions)}
    state.apply("pass")  # the first Fortial seat passes: still nothing for 1 and 3
    assert state.table_requests(shown) == (Turn(state.to_act),)
    state.apply("trut")  # decision over: the opponents see their cards before answering
    assert state.phase == "answer"
    assert state.table_requests(shown) == (
        Disclose(tuple(map(pos, sorted(state.holdings[1]))), 1),
        Disclose(tuple(map(pos, sorted(state.holdings[3]))), 3),
        Turn(state.to_act),
    )


def _shown(requests) -> dict[int, set[Pos]]:
    return {d.to: set(d.positions) for d in requests if isinstance(d, Disclose)}


def test_fortial_passed_by_all_never_shows_the_opponents_cards():
    state = fortial_game().new_initial_state()
    state.apply(state.sample_chance(random.Random(2)))
    shown = _shown(state.table_requests())
    assert set(shown) == {0, 2}
    state.apply("pass")
    state.apply("pass")
    assert state.phase == "deal"  # the hand ended without play (D4)
    assert state.table_requests(shown) == (Shuffle("french32", Deal(None)),)
    assert state.holders() == {} and all(not ps for ps in state.sight().values())


def test_a_fold_that_ends_the_game_after_a_fortial_shows_nothing_more():
    state = fortial_game(2, 0).new_initial_state()
    state.apply(state.sample_chance(random.Random(3)))
    shown = _shown(state.table_requests())
    assert set(shown) == {0}
    state.apply("trut")
    shown |= _shown(state.table_requests(shown))
    assert set(shown) == {0, 1}  # shown before the answer (T15)
    state.apply("fold")  # T11: the Fortial team's Petit makes its 7th Long
    assert state.is_terminal()
    assert state.table_requests(shown) == () and state.sight() == {} and state.next_step() is None


def chanson_state(seed: int = 4) -> TrutState:
    game = TrutGame(TrutConfig(4, "gatinaise", start=StartPosition((1, 1), (2, 2), 0)))
    state = game.new_initial_state()
    state.apply(state.sample_chance(random.Random(seed)))
    assert state.phase == "sing_ask"
    return state


def test_sing_shows_each_seat_its_new_positions_and_keep_shows_nothing():
    state = chanson_state()
    shown = {s: set(map(pos, state.holdings[s])) for s in range(4)}
    assert state.table_requests(shown) == (Turn(1),)
    for word in ("sing", "agree", "agree", "agree"):
        state.apply(word)
    state.apply("sing 2")  # T19: two each, one at a time from the singer, in deal order
    requests = state.table_requests(shown)
    expected = {1: (12, 16), 2: (13, 17), 3: (14, 18), 0: (15, 19)}
    assert requests[:-1] == tuple(Disclose(tuple(map(pos, expected[s])), s) for s in range(4))
    for d in requests[:-1]:
        shown[d.to] |= set(d.positions)
    state.apply("pass")  # no more singing: each keeps 3
    while state.phase == "keep":
        seat = state.to_act
        kept = state.holdings[seat][:3]
        keep = Keep(tuple(CardRef(state.known[p]) for p in kept))
        written = state.conceal(seat, keep)
        assert written == Keep(tuple(CardRef(None, p) for p in kept))  # positions only
        assert state.reveals(seat, written) == ()
        state.apply(written)
        assert state.table_requests(shown) == (state.next_step(),)
    assert len(state.holders()["discard"]) == 4 * 2  # never revealed (T19)


def test_a_play_reveals_its_position_and_only_a_card_of_the_players_hand():
    game = TrutGame(TrutConfig(2, start=StartPosition((0, 0), (0, 0), 0)))
    state = game.new_initial_state()
    deck = deck_for_hands(2, 0, {0: "7h 8d As", 1: "9c 10c Jc"})
    state.apply(Deal(deck))
    assert state.next_step() == Turn(0)
    seat = 0
    hand = state.holdings[seat]
    written = state.conceal(seat, Play(CardRef(Card.parse("8d"))))
    assert written == Play(CardRef(None, next(p for p in hand if str(state.known[p]) == "8d")))
    (revealed,) = state.reveals(seat, written)
    assert revealed == pos(written.ref.pos)
    played = state.identify(written, {revealed: "8d"})
    assert played == Play(CardRef(Card.parse("8d"), written.ref.pos))
    other = state.holdings[1][0]
    with pytest.raises(IllegalAction, match=r"\[T5\]"):
        state.reveals(seat, Play(CardRef(None, other)))  # never reveal another's card
    with pytest.raises(IllegalAction, match=r"\[T5\]"):
        state.reveals(1, Play(CardRef(None, other)))  # not seat 1's turn
    with pytest.raises(NotationError):
        state.reveals(seat, Play(CardRef(Card.parse("8d"))))  # no position
    with pytest.raises(IllegalAction, match=r"\[T5\]"):
        state.conceal(seat, Play(CardRef(Card.parse("9c"))))  # not in the hand
    with pytest.raises(IllegalAction, match=r"\[T5\]"):
        state.conceal(seat, Play(CardRef(Card.parse("7h"), other)))
    assert state.reveals(seat, state.legal_actions()[-1]) == ()  # trut reveals nothing
    state.apply(played)
    assert pos(written.ref.pos) in state.holders()["table"]


def test_first_donneur_draws_are_joint_draws_among_the_cards_not_drawn_in_index_order():
    state = TrutGame(TrutConfig(3)).new_initial_state()
    rng = random.Random(5)
    while state.phase == "draw":
        step = state.next_step()
        assert isinstance(step, JointRandom) and step.label == "first-donneur"
        assert step.outcomes == tuple(Draw(c) for c in FULL_DECK if c not in state.draw_used)
        sampled = state.sample_chance(rng)
        assert sampled in step.outcomes
        state.apply(sampled)
    assert state.next_step() == Shuffle("french32", Deal(None))


def test_holders_partition_the_deck_and_sight_is_the_seats_own_cards():
    def check(state: TrutState) -> None:
        held = state.holders()
        if state.phase in ("draw", "deal"):
            assert held == {}
            return
        every = [p for ps in held.values() for p in ps]
        assert sorted(every) == [pos(i) for i in range(32)]
        assert set(held) == {*range(state.n), "stock", "discard", "table"}
        sight = state.sight()
        if state.phase == "over":
            assert sight == {}
            return
        for seat in range(state.n):
            mine = set(held[seat])
            assert sight[seat] == (set() if state.hidden_from_owner(seat) else mine)

    for config in CONFIGS:
        for seed in range(3):
            state = _game(config, seed, seed > 0).new_initial_state()
            playout(state, random.Random(seed), check)


def test_decks_and_positions_have_a_notation_that_round_trips():
    (deck,) = TrutGame(TrutConfig(4)).decks()
    assert deck == DECK and deck.name == "french32" and len(deck) == 32
    assert [deck.cards[c.index] for c in FULL_DECK] == [str(c) for c in FULL_DECK]
    assert deck.index("As") == Card.parse("As").index == 31
    assert str(deck) == "french32[32]"
    for text in ("french32@0", "french32@31", "deck-1@4095", "hand/0@7"):
        assert str(Pos.parse(text)) == text
        assert eval(repr(Pos.parse(text))) == Pos.parse(text)
    for bad in (
        "french32",
        "@3",
        "french32@",
        "french32@03",
        "french32@-1",
        "x@4096",
        "a b@1",
        "french32@1.0",
        "french32@٣",
    ):
        with pytest.raises(NotationError):
            Pos.parse(bad)
    with pytest.raises(NotationError):
        Deck("twice", ("a", "a"))
    with pytest.raises(NotationError):
        deck.index("1e")
    assert str(Disclose((pos(3), pos(7)), 2)) == "disclose french32@3 french32@7 to seat 2"
    assert str(Shuffle("french32", Deal(None))) == "shuffle french32, then deal"


def test_pending_disclosures_are_what_sight_adds_in_seat_order():
    sight = {2: frozenset({pos(5), pos(1)}), 0: frozenset({pos(9)}), 1: frozenset()}
    assert pending_disclosures(sight, {}) == (
        Disclose((pos(9),), 0),
        Disclose((pos(1), pos(5)), 2),
    )
    assert pending_disclosures(sight, {2: {pos(1)}, 0: {pos(9)}}) == (Disclose((pos(5),), 2),)


def test_the_description_reads_no_hidden_card():
    """Replicas that know different cards ask for the same thing (public state only)."""
    for config in CONFIGS[::2]:
        full = _game(config, 9, True).new_initial_state()
        rng = random.Random(9)
        blind = full.game.new_initial_state()
        while not full.is_terminal():
            action = (
                full.sample_chance(rng)
                if full.current_seat() == CHANCE
                else (rng.choice(full.legal_actions()))
            )
            full.apply(action)
            done = full.history()[-1]  # normalised: a play names its position
            blind.apply(done if isinstance(done, Play) else done.public())
            assert blind.next_step() == full.next_step()
            assert blind.sight() == full.sight()
            assert blind.holders() == full.holders()


# ------------------------------------------------------- the real table, full crypto


def _round_kind(state: TrutState) -> str:
    """Which of Trut's share rounds a private round is, from the action before it."""
    last = state.history()[-1]
    if isinstance(last, Deal):
        return "deal"  # T4
    return "sing" if isinstance(last, SingCount) else "deal-withheld"  # T19, T15


def _real_rounds(memory_table) -> tuple[list[Round], list[tuple[bytes, bytes]], set[str]]:
    """Every round of positions the real table showed, to their owners or to everyone
    (a play: from its entry and the shares already in the log, 7.4), as the table itself
    records it (``on_round``) while a replica replays the log; and the commit-reveal
    pairs of the joint draws."""
    from trutnet.protocol.envelope import parse_entry
    from trutnet.protocol.table import TableReplica

    # the proofs and signatures the seats' replicas found checked (tests/tables.py)
    peers = memory_table.peers[0].replica
    recorder = TableReplica(peers.table_id, peers.checked)
    rounds: list[Round] = []
    steps: set[str] = set()

    def record(replica, owners) -> None:
        rounds.append(Round(len(replica.state.history()), dict(owners)))
        if EVERYONE not in owners:
            steps.add(_round_kind(replica.state))

    recorder.on_round = record
    commits, values = [], []
    for wire in memory_table.log:
        entry = recorder.receive(wire)
        assert entry is not None
        if entry.type == "commit":
            commits.append(parse_entry(wire).body["commit"])
        if entry.type == "reveal":
            values.append(parse_entry(wire).body["value"])
    return rounds, list(zip(commits, values, strict=True)), steps


def description_rounds(game: TrutGame, actions: list[Action]) -> list[Round]:
    """The rounds the description asks for, replaying public actions only."""
    state = game.new_initial_state()
    shown: dict[int, set[Pos]] = {s: set() for s in range(state.n)}
    rounds: list[Round] = []
    for action in actions:
        step = state.next_step()
        if isinstance(step, Turn):
            revealed = state.reveals(step.seat, action)
            if revealed:
                rounds.append(Round(len(state.history()), {EVERYONE: revealed}))
        state.apply(action.public() if isinstance(action, Deal | Keep) else action)
        if isinstance(step, Shuffle):
            shown = {s: set() for s in shown}
        disclosures = [r for r in state.table_requests(shown) if isinstance(r, Disclose)]
        if disclosures:
            rounds.append(Round(len(state.history()), {d.to: d.positions for d in disclosures}))
            for d in disclosures:
                shown[d.to] |= set(d.positions)
    return rounds


REAL = [  # (configuration, seed, bots, share rounds of table.py the game must run)
    # A Fortial released [T15]. (Seeds pick games: protocol version 2 draws fewer random
    # bytes per hand, so "hidden-2" deals other hands now and meets no Fortial.)
    (TrutConfig(2), "hidden-2d", "random", {"deal-withheld"}),
    (
        TrutConfig(4, start=StartPosition((6, 3), (2, 0), 1)),
        "hidden-4",
        "random",
        {"deal-withheld"},
    ),
    (TrutConfig(3, start=StartPosition((4, 6, 1), (0, 2, 0), 2)), "hidden-3", "random", set()),
    (
        TrutConfig(3, "gatinaise", start=StartPosition((2, 2, 2), (2, 2, 2), 0)),
        "chanson-3",
        "random",
        {"sing"},
    ),
    (
        TrutConfig(4, "gatinaise", start=StartPosition((3, 3), (2, 2), 1)),
        "chanson-10",
        "heuristic",
        {"sing"},
    ),
    (
        TrutConfig(6, "gatinaise", start=StartPosition((2, 2), (2, 2), 4)),
        "chanson-8",
        "heuristic",
        {"sing"},
    ),
]


@pytest.mark.parametrize(
    ("config", "seed", "bots", "special"),
    REAL,
    ids=[f"{c.players}p-{c.variant}-{seed}" for c, seed, _, _ in REAL],
)
@pytest.mark.timeout(600)
def test_the_real_table_runs_the_rounds_the_description_asks_for(config, seed, bots, special):
    from tests.tables import play_memory_game
    from trutnet.crypto import Context
    from trutnet.crypto.randomness import draw
    from trutnet.protocol.envelope import PROTOCOL_VERSION

    memory = play_memory_game(TrutGame(config), seed, [bots] * config.players)
    state = memory.peers[0].replica.state
    assert state.is_terminal()
    game, actions = state.game, state.history()
    real, values, steps = _real_rounds(memory)
    assert special <= steps
    assert real == today(game, actions)
    assert real == description_rounds(game, actions)
    # T3: the table's joint draws are the description's outcomes, in its order: one
    # commit-reveal (8.9, context step draw/first-donneur) serves every draw in a row.
    draws = [a for a in actions if isinstance(a, Draw)]
    assert bool(draws) == (config.start is None)
    assert len(values) == (config.players if draws else 0)
    if draws:
        table_id = memory.peers[0].replica.table_id
        context = Context(PROTOCOL_VERSION, table_id, 0, "draw/first-donneur").encode()
        for seat, (commit, value) in enumerate(values):
            digest = b"trutnet/v1/commit" + context + seat.to_bytes(2, "big") + value
            assert hashlib.sha256(digest).digest() == commit
        seed = hashlib.sha256(b"trutnet/v1/draw" + b"".join(v for _, v in values)).digest()
        replay = game.new_initial_state()
        for k, expected in enumerate(draws):
            step = replay.next_step()
            assert isinstance(step, JointRandom)
            pick = draw(hashlib.sha256(seed + k.to_bytes(4, "big")).digest(), len(step.outcomes))
            assert step.outcomes[pick[0]] == expected
            replay.apply(expected)


class _Countdown(GameState):
    """A game with no hidden card and no chance: the defaults describe it."""

    def __init__(self, left: int = 2) -> None:
        self.left, self.done = left, []

    game = None  # type: ignore[assignment]

    def current_seat(self):
        return None if self.left == 0 else self.left % 2

    def is_terminal(self):
        return self.left == 0

    def legal_actions(self, seat=None):
        return []

    def apply(self, action):
        self.left -= 1
        return []

    def sample_chance(self, rng):
        raise AssertionError

    def parse_action(self, text):
        raise NotationError(text)

    def returns(self):
        return [0.0, 0.0]

    def observation(self, seat):
        return self.left

    def public_state(self):
        return {"left": self.left}

    def history(self):
        return []

    def clone(self):
        return _Countdown(self.left)


def test_a_game_with_nothing_hidden_needs_no_description():
    state = _Countdown()
    assert state.table_requests() == (Turn(0),)
    assert state.sight() == {} and state.holders() == {}
    assert state.reveals(0, Play(CardRef(None, 1))) == ()
    assert state.identify(TRUT_WORD, {}) is TRUT_WORD
    assert state.conceal(0, TRUT_WORD) is TRUT_WORD
    assert state.identity_of(pos(0)) is None
    with pytest.raises(IllegalAction):
        state.see(pos(0), "7h")
    state.apply(None)
    assert state.table_requests() == (Turn(1),)
    state.apply(None)
    assert state.table_requests() == () and state.next_step() is None
