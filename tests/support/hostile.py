"""Hostile strings shared by the reliability tests: query syntax of FTS5, SQL, SQL++ and Couchbase Search,
JSON that could break a request body, Unicode edge cases, and sizes at the limits."""

from __future__ import annotations

FTS5 = [
    '"', '""', '"unterminated', "*", "x*", "^start", "NEAR", "a NEAR/3 b", "NEAR(a b, 2)", "a AND b", "OR",
    "NOT x", "AND AND", "* OR *", "-", "+", "a + b", ":", "col:val", "index_text:secret", "{index_text}: x",
    "{index_text user_id}: secret", "(", ")", "((a OR b)", "records_fts MATCH 'x'", "rank", "bm25",
]
SQL = [
    "'", "' OR '1'='1", "'; DROP TABLE records; --", "1=1", "NULL", "%", "_", "%_", "\\", "/* */", ";",
    "x') OR ('1'='1", "' UNION SELECT text FROM records --", "\"; DELETE FROM records; --",
    "' OR user_id != '", "?", ":user_id", "@p", "$1",
]
SQLPP = [
    "`", "``", "$user_id", "`memory` WHERE 1=1 --", "MISSING", "UNION SELECT RAW META().id",
    "'; DROP INDEX `cbm_memory_user` ON `memory`; --", "m.`user_id` IS VALUED",
]
SEARCH = [
    "+must -not", "field:value", "user_id:bob", "+user_id:bob", 'index_text:"a phrase"', "wild*card?",
    "fuzzy~2", "boost^10", "/regex.*/", "*:*", "(a OR b) AND NOT c", '{"match_all": {}}', "}]}",
    '"}], "knn": [{"field": "vector"}]}',
]
UNICODE = [
    "\u202e reversed", "\u200b", "\ufeff", "e\u0301", "🎉", "👩‍👩‍👧", "ünïcode", "用户 记忆", "\u2028 line sep",
    "a\nb\tc", "\t\n", "   ", "",
]
SIZES = ["a" * 5000, "word " * 2000, " ".join(f"w{i}" for i in range(600))]

HOSTILE: list[str] = list(dict.fromkeys(FTS5 + SQL + SQLPP + SEARCH + UNICODE + SIZES))

assert len(HOSTILE) >= 50, len(HOSTILE)
