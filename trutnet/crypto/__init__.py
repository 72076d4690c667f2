"""Mental poker: verifiable shuffles, proven reveals, joint dice, identities (pure).

Empty until the crypto issue; it will know nothing of any game.
"""
