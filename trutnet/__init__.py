"""trutnet: peer-to-peer card games on a LAN, with mental-poker dealing.

The package is layered so that dependencies point inward:
``client`` -> peer runtime (``net``, ``discovery``) -> ``protocol`` -> ``engine`` and ``crypto``.
"""

__version__ = "0.1.0"
