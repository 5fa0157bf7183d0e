"""``python -m cbmemory.cli``: the ``cbmemory`` command."""

import sys

from .app import main

sys.exit(main())
