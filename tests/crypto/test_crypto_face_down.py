"""A card placed face down from a menu, shown to chosen keys, and drawn on
(``trutnet/crypto/face_down.py``): completeness, that only the shown key opens it, that
two seats shown one card see the same card, soundness by tampering and forging, that a
draw is unique and unforeseeable, and strict encodings."""

from __future__ import annotations

import dataclasses

import pytest

from trutnet.crypto import Context, CryptoError, DecodeError, KeyPair, ProofError, SeededRandom
from trutnet.crypto.cards import deck_points
from trutnet.crypto.face_down import (
    MAX_MENU,
    Draw,
    FaceDown,
    H,
    Shown,
    draw,
    draw_below,
    open_shown,
    place,
    show,
    verify_draw,
    verify_face_down,
    verify_shown,
)
from trutnet.crypto.group import ORDER, base_mul

CTX = Context(2, b"table-1", 3, "sign/1/0")
MENU = deck_points("menu-test", 10)


@pytest.fixture(scope="module")
def keys():
    rng = SeededRandom(7)
    return [KeyPair.generate(rng) for _ in range(4)]


def test_every_menu_card_placed_face_down_verifies_and_opens_to_each_shown_seat(keys):
    rng = SeededRandom(1)
    for index in range(len(MENU)):
        card, r = place(index, MENU, 1, CTX, rng)
        verify_face_down(card, MENU, 1, CTX)
        assert FaceDown.from_bytes(card.to_bytes()) == card
        for to in (0, 3):
            shown = show(card, r, MENU[index], to, keys[to].public, 1, CTX, rng)
            verify_shown(shown, card, keys[to].public, 1, CTX)
            assert Shown.from_bytes(shown.to_bytes()) == shown
            assert open_shown(shown, keys[to], MENU) == index
            with pytest.raises(ProofError):  # a key it was not shown to reads nothing
                open_shown(shown, keys[2], MENU)


def test_a_card_off_the_menu_or_a_menu_proof_moved_elsewhere_is_refused():
    rng = SeededRandom(2)
    card, _ = place(4, MENU, 1, CTX, rng)
    with pytest.raises(ProofError):  # another menu
        verify_face_down(card, deck_points("menu-other", 10), 1, CTX)
    with pytest.raises(ProofError):  # another seat, another step
        verify_face_down(card, MENU, 2, CTX)
    with pytest.raises(ProofError):
        verify_face_down(card, MENU, 1, CTX.with_step("sign/2/0"))
    with pytest.raises(ProofError):  # the card itself changed
        verify_face_down(dataclasses.replace(card, e_point=card.e_point + MENU[0]), MENU, 1, CTX)
    with pytest.raises(ProofError):  # a menu of another size
        verify_face_down(card, MENU[:9], 1, CTX)


def test_an_off_menu_card_cannot_pass_with_a_forged_or_simulated_proof():
    """A seat that encrypts a point off the menu (here another deck's card) and copies the
    shape of a real proof: every simulated branch is consistent, the sum of challenges is
    not."""
    rng = SeededRandom(3)
    honest, _ = place(0, MENU, 1, CTX, rng)
    off_menu = deck_points("menu-other", 1)[0]
    r = 12345
    forged = dataclasses.replace(honest, r_point=base_mul(r), e_point=off_menu + H * r)
    with pytest.raises(ProofError):
        verify_face_down(forged, MENU, 1, CTX)
    shifted = dataclasses.replace(
        honest, challenges=(honest.challenges[0] + 1, *honest.challenges[1:])
    )
    with pytest.raises(ProofError):
        verify_face_down(shifted, MENU, 1, CTX)


def test_a_seat_cannot_show_one_seat_another_card_than_the_one_face_down(keys):
    rng = SeededRandom(4)
    card, r = place(2, MENU, 1, CTX, rng)
    with pytest.raises(CryptoError):  # the honest code refuses to lie
        show(card, r, MENU[5], 0, keys[0].public, 1, CTX, rng)
    other, r_other = place(5, MENU, 1, CTX, rng)
    lie = show(other, r_other, MENU[5], 0, keys[0].public, 1, CTX, rng)
    with pytest.raises(ProofError):  # a proof made for another card of the same seat
        verify_shown(lie, card, keys[0].public, 1, CTX)
    honest = show(card, r, MENU[2], 0, keys[0].public, 1, CTX, rng)
    with pytest.raises(ProofError):  # shown to seat 0, presented as shown to seat 3
        verify_shown(honest, card, keys[3].public, 1, CTX)
    swapped = dataclasses.replace(honest, e_point=lie.e_point)
    with pytest.raises(ProofError):
        verify_shown(swapped, card, keys[0].public, 1, CTX)
    with pytest.raises(ProofError):
        verify_shown(dataclasses.replace(honest, to=3), card, keys[0].public, 1, CTX)


def test_a_draw_is_the_one_value_of_a_key_on_a_card_and_falls_at_the_chance_asked(keys):
    rng = SeededRandom(5)
    card, _ = place(1, MENU, 1, CTX, rng)
    first, again = draw(card, keys[2], 2, CTX, rng), draw(card, keys[2], 2, CTX, rng)
    verify_draw(first, card, keys[2].public, CTX)
    assert first.value == again.value and first.challenge != again.challenge
    assert Draw.from_bytes(first.to_bytes()) == first
    with pytest.raises(ProofError):  # another key's value, or another card's
        verify_draw(
            dataclasses.replace(first, value=first.value + MENU[0]), card, keys[2].public, CTX
        )
    with pytest.raises(ProofError):
        verify_draw(first, card, keys[3].public, CTX)
    other, _ = place(1, MENU, 1, CTX, rng)
    with pytest.raises(ProofError):
        verify_draw(first, other, keys[2].public, CTX)
    caught = 0
    for _ in range(400):
        card, _ = place(0, MENU, 1, CTX, rng)
        caught += draw_below(draw(card, keys[3], 3, CTX, rng), 1, 4)
    assert 70 <= caught <= 130  # 1/4 of 400, within 3.5 standard deviations
    assert not draw_below(first, 0, 4) and draw_below(first, 4, 4)
    with pytest.raises(CryptoError):
        draw_below(first, 5, 4)


def test_encodings_are_strict():
    rng = SeededRandom(6)
    card, _ = place(0, MENU, 1, CTX, rng)
    data = card.to_bytes()
    for bad in (data[:-1], data + b"\0", data[:66] + bytes([0]) + data[67:]):
        with pytest.raises(DecodeError):
            FaceDown.from_bytes(bad)
    too_big = data[:66] + bytes([MAX_MENU + 1]) + bytes(64 * (MAX_MENU + 1))
    with pytest.raises(DecodeError):
        FaceDown.from_bytes(too_big)
    non_canonical = data[:67] + ORDER.to_bytes(32, "big") + data[99:]
    with pytest.raises(DecodeError):
        FaceDown.from_bytes(non_canonical)
    with pytest.raises(CryptoError):
        place(10, MENU, 1, CTX, rng)
