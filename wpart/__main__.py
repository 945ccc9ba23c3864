"""``python -m wpart``: the command line (see :mod:`wpart.cli`)."""

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: one line, not a traceback
    import sys

    print("wpart: interrupted (SIGINT)", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
