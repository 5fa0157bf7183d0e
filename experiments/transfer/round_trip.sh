#!/bin/bash
# Issue 33: the memory file round trip on LoCoMo dev: ingest, export, import, export again (cmp), re-import,
# export without vectors and import it (re-embedded), and CLI searches on both files (cmp).
#   experiments/transfer/round_trip.sh [OUT]      # default /tmp/transfer; then same_hits.py OUT
set -x
cd "$(dirname "$0")/../.."
CB=".venv/bin/python -m cbmemory.cli"
D=${1:-/tmp/transfer}
rm -rf $D; mkdir -p $D
uptime
/usr/bin/time -f "ingest %e s" $CB ingest-dataset locomo ../shared/data/locomo/locomo-dev.json --db $D/a.db --quiet
uptime
/usr/bin/time -f "export %e s" $CB export --db $D/a.db --out $D/a.jsonl
/usr/bin/time -f "import %e s" $CB import $D/a.jsonl --db $D/b.db
/usr/bin/time -f "export2 %e s" $CB export --db $D/b.db --out $D/b.jsonl
cmp $D/a.jsonl $D/b.jsonl && echo BYTE-IDENTICAL
/usr/bin/time -f "reimport %e s" $CB import $D/a.jsonl --db $D/b.db
/usr/bin/time -f "export-novec %e s" $CB export --db $D/a.db --out $D/n.jsonl --no-vectors
/usr/bin/time -f "import-novec %e s" $CB import $D/n.jsonl --db $D/c.db
/usr/bin/time -f "export3 %e s" $CB export --db $D/c.db --out $D/c.jsonl --quiet
cmp $D/a.jsonl $D/c.jsonl && echo REEMBED-BYTE-IDENTICAL
ls -l $D
wc -l $D/a.jsonl $D/n.jsonl
for q in "When did Caroline go to the LGBTQ support group?" "What did Melanie paint recently?" "Where did Jon go on his trip?"; do
  for u in conv-26 conv-30; do
    $CB search "$q" --db $D/a.db --user $u --json > $D/sa.json 2>/dev/null
    $CB search "$q" --db $D/b.db --user $u --json > $D/sb.json 2>/dev/null
    cmp $D/sa.json $D/sb.json && echo "SEARCH-IDENTICAL $u $(python3 -c "import json;print(len(json.load(open('$D/sa.json'))))") hits"
  done
done
uptime
