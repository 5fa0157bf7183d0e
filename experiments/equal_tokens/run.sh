#!/usr/bin/env bash
# Recall at equal tokens (issue 25 item 1): every product recipe, the study's default_v1, the bm25 / oracle /
# full-context rows and the four LangChain / LlamaIndex peers on LoCoMo dev at haystack x1 and x10, each row
# scored at k=10 and at 512 / 1,024 / 2,048 tokens of what the reader gets. Retrieval only: no LLM, no key.
#
#   experiments/equal_tokens/run.sh                       # the full run (hours on 2 cores; resumable)
#   experiments/equal_tokens/run.sh --conversations 1     # one conversation, to check the set-up
#
# Extra arguments go to `cbmemory eval locomo`. OUT (default /tmp/eqwork/out) holds questions/*.jsonl,
# summary.json and matrix.md (its "at equal tokens" table; `table.py OUT` prints the tables that README.md
# "How it compares (at equal tokens)" and docs/study.md show); CACHE (default /tmp/eqwork/stores) the ingested memories, shared between runs so a re-run after the
# retrieval changes skips ingest. A killed run goes on where it stopped; after a code change start over with
# --fresh (the stores are kept). `--ks ...,100` makes the deep list the equal-token list (100 hits), so each
# row searches twice per question, not three times (recall@20-50 are then prefixes of the 100-hit search).
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${DATA:-../shared/data/locomo/locomo-dev.json}
OUT=${OUT:-/tmp/eqwork/out}
CACHE=${CACHE:-/tmp/eqwork/stores}
RECIPES=default,default_sparse,default_no_window,default_v1,vector,bm25,hybrid,recency
CBMEMORY=${CBMEMORY:-.venv/bin/cbmemory}
echo "$(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo "${COMMIT:-?}") nproc $(nproc)" \
     "load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$CBMEMORY" eval locomo --data "$DATA" --out "$OUT" --cache-dir "$CACHE" --recipes "$RECIPES" --peers all \
    --baselines bm25,oracle,full_context --k 10 --ks 1,3,5,10,20,30,50,100 --scale 1,10 "$@"
echo "$(date -u +%FT%TZ) done; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
