"""Shared values of the Couchbase builder tests (not a test module): instants, a query vector, the full set
of filters and hostile strings that must only ever travel as values."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from cbmemory.models import SearchFilters

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW_S = "2024-01-01T00:00:00.000000Z"
V = np.array([0.6, 0.8, 0.0], dtype=np.float32)
V_JSON = [float(np.float32(0.6)), float(np.float32(0.8)), 0.0]

FULL = SearchFilters(session_ids=("s1", "s2", "s1"), kinds=("turn",), occurred_after=T0,
                     occurred_before=T0 + timedelta(days=1), ingested_before=NOW,
                     annotations={"topic": "work", "lang": "fr"})

HOSTILE = [
    "'", '"', "`", "``", "'; DROP INDEX `cbm_memory_user` ON `memory`; --", "$user_id", "$1",
    "a' OR '1'='1", '" OR ""="', "`memory` WHERE 1=1 --", "SELECT * FROM `users`", "DELETE FROM memory",
    "UNION SELECT RAW META().id", "NULL", "MISSING", "/* */", "+must -not", "field:value",
    'index_text:"a phrase"', "wild*card?", "fuzzy~2", "boost^10", "(a OR b) AND NOT c", "\\", "/regex.*/",
    '{"match_all": {}}', "}]}", "\u2028 line sep", "émoji 🎉 ünïcode", "%_", "a\nb\tc",
]
