"""``python -m scir`` is the ``scir`` command."""

import sys

from scir.cli import main

sys.exit(main())
