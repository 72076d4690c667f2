"""Trut Deluxe: the special cards of the Robin Red edition, as options of Trut.

Rulings T23-T47 (``docs/games/trut-deluxe.md``). :mod:`.cards` is the card
table (T23, T24, T27); :mod:`.rules` the preparation, the deck, values in a trick,
capture, prizes and the Robin (T25-T32, T40, T43, T45); :mod:`.powers` the effects of
a card landing in a trick (T30, T34-T41, T44); :mod:`.falcon` the Falcon's step and
look (T33). Each is a mixin of :class:`~trutnet.games.trut.rules.state.TrutState`
that the classic code calls only when the ``deluxe`` option is on.
"""
