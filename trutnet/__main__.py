"""``python -m trutnet``: the same entry point as the ``trutnet`` console script."""

from trutnet.cli import main

raise SystemExit(main())
