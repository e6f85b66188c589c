"""``python -m solvers.gies``: see :mod:`solvers.gies.cli`."""

from solvers.gies.cli import main

raise SystemExit(main())
