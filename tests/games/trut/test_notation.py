"""Cards and Trut actions: notation that parses and prints back unchanged (D1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trutnet.engine.errors import NotationError
from trutnet.games.trut.rules.actions import (
    WORDS,
    CardRef,
    Deal,
    Draw,
    Keep,
    Play,
    SingCount,
    Word,
    parse_action,
)
from trutnet.games.trut.rules.cards import (
    FULL_DECK,
    RANKS,
    SUITS,
    Card,
    card_from_index,
    parse_card,
)

cards = st.sampled_from(FULL_DECK)
positions = st.integers(0, 255)
refs = st.builds(CardRef, st.none() | cards, positions) | st.builds(CardRef, cards, st.none())
actions = st.one_of(
    st.builds(Draw, cards),
    st.just(Deal(None)),
    st.permutations(FULL_DECK).map(lambda d: Deal(tuple(d))),
    st.builds(Play, refs),
    st.lists(refs, min_size=1, max_size=5).map(lambda r: Keep(tuple(r))),
    st.builds(SingCount, st.integers(1, 3)),
    st.sampled_from([Word(w) for w in WORDS]),
)


def test_every_card_round_trips_and_indexes():
    assert len(FULL_DECK) == 32 == len(set(FULL_DECK))
    for index, card in enumerate(FULL_DECK):
        assert parse_card(str(card)) == card
        assert card.index == index
        assert card_from_index(index) is card
    assert [str(Card(r, "h")) for r in RANKS] == ["7h", "8h", "9h", "10h", "Jh", "Qh", "Kh", "Ah"]
    assert set(SUITS) == {"c", "d", "h", "s"}


@pytest.mark.parametrize("text", ["", "1h", "Th", "7H", "h7", "10", "7hh", " 7h", "7x", "11s"])
def test_bad_cards_are_refused(text):
    with pytest.raises(NotationError):
        parse_card(text)


@given(actions)
def test_actions_print_back_unchanged(action):
    text = str(action)
    assert parse_action(text) == action
    assert str(parse_action(text)) == text


def test_readable_examples():
    for text in [
        "play 7h",
        "play 10s@12",
        "play @3",
        "trut",
        "accept",
        "fold",
        "pass",
        "sing",
        "sing 2",
        "agree",
        "refuse",
        "keep 7h 8d As",
        "keep @3 @7 @12",
        "void",
        "draw Kc",
        "deal",
    ]:
        assert str(parse_action(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "play",
        "play 7h 8d",
        "play 7h@",
        "play 7h@01",
        "play 7h@-1",
        "play 7h@256",
        "play @",
        "Trut",
        "trut now",
        "sing 4",
        "sing 0",
        "keep",
        "draw",
        "draw 7h 8h",
        "deal 7h x",
        "play  7h",
        " trut",
        "trut ",
        "accept\n",
        "fold\t",
    ],
)
def test_bad_actions_are_refused(text):
    with pytest.raises(NotationError):
        parse_action(text)


def test_non_string_notation_is_refused():
    with pytest.raises(NotationError):
        parse_action(None)  # type: ignore[arg-type]


def test_public_form_hides_identities_of_kept_cards_and_the_deck():
    keep = parse_action("keep 7h@3 8d@7 As@12")
    assert str(keep.public()) == "keep @3 @7 @12"
    deal = Deal(tuple(FULL_DECK))
    assert str(deal.public()) == "deal"
    assert parse_action("play 7h@3").public() == parse_action("play 7h@3")
