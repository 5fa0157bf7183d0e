"""The product's CLI with the acknowledgement's constants patched (README, "The assistant's acknowledgement"):
the first version's grid patched ``ACK_FLOOR`` and a rank bonus; the second's, kept here, ``ACK_FLOOR`` and
``ACK_PLACES``. Run from a worktree of the product, its path first on ``PYTHONPATH``.

    lever_run.py FLOOR PLACES -- eval locomo-updates ...
"""

import sys

from cbmemory.cli import main
from cbmemory.retrieval import acknowledged  # ACK_FLOOR, ACK_PLACES (current_value's until 7 December)

if __name__ == "__main__":
    acknowledged.ACK_FLOOR, acknowledged.ACK_PLACES = float(sys.argv[1]), int(sys.argv[2])
    sys.argv = ["cbmemory", *sys.argv[4:]]
    sys.exit(main())
