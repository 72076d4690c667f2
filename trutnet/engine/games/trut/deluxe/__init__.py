"""Trut Deluxe: the special cards of the Robin Red edition, as options of Trut.

Rulings T23-T47 (``../shared/rulings/trut-deluxe.md``). :mod:`.cards` is the card
table (T23, T24, T27) and :mod:`.rules` the preparation, the values in a trick and the
powers (T25-T45), a mixin of :class:`~trutnet.engine.games.trut.state.TrutState`
that the classic code calls only when the ``deluxe`` option is on.
"""
