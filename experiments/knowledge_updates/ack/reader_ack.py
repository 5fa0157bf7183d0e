"""The local reader (``reader_guide.py``) on the drawn `test` questions whose context the acknowledgement changed
(README, "The assistant's acknowledgement: a place of its own"), with ``ACK_PLACES`` patched (0: the product before).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/ack/reader_ack.py PLACES -- WORK OUT.jsonl \
        --family test --conditions default --first 12
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import reader_guide  # noqa: E402  (this folder's parent)

from cbmemory.retrieval import acknowledged  # noqa: E402  (ACK_PLACES: current_value's until 7 December)

# the first 12 of the draw whose context the acknowledgement changed (cases-test-x1.jsonl before and after)
CHANGED = {"conv-26:job_title", "conv-41:commute", "conv-41:household", "conv-41:trip", "conv-42:employer",
           "conv-42:pet"}

if __name__ == "__main__":
    acknowledged.ACK_PLACES = int(sys.argv[1])
    drawn = reader_guide.drawn
    reader_guide.drawn = lambda args: [c for c in drawn(args) if c.case_id in CHANGED]
    sys.argv = ["reader_guide.py", *sys.argv[3:]]
    reader_guide.main()
