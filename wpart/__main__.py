"""``python -m wpart``: the command line (see :mod:`wpart.cli`)."""

from .cli import main

raise SystemExit(main())
