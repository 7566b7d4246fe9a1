#!/bin/sh
# library-qa: the baseline figures the README records. Runs the extractive
# strategy over the set at k = 3 and 5, asked of the whole library and
# scoped (each question asked of its own document only), each in a fresh
# library, and prints eval's summary and the answered-in-first-three
# figure (answered_first3.py) for each run.
#
#   CITELENS=/tmp/citelens sh run_eval.sh [OUTDIR]
#
# OUTDIR (default: a temporary folder) keeps each run's --out records.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${CITELENS:-/tmp/citelens}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
[ -d "$here/docs" ] || { echo "no documents: run fetch_docs.sh first" >&2; exit 1; }

# The scoped copy of the set: the same documents (linked) and questions,
# each question's docs narrowed to the document its evidence is in.
scoped="$out/scoped"
mkdir -p "$scoped"
rm -f "$scoped/docs"
ln -s "$here/docs" "$scoped/docs"
cp "$here/questions_meta.jsonl" "$scoped/"
python3 - "$here/questions.jsonl" "$scoped/questions.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as w:
    for line in f:
        q = json.loads(line)
        q["docs"] = sorted({e["doc"] for e in q["evidence"]})
        w.write(json.dumps(q, ensure_ascii=False) + "\n")
PY

for scope in library scoped; do
  data=$here
  [ "$scope" = scoped ] && data=$scoped
  for k in 3 5; do
    db=$(mktemp -d)/l.db
    echo "== $scope k=$k"
    "$bin" --db "$db" eval --data "$data" --k "$k" --out "$out/$scope-k$k.jsonl" 2>/dev/null | tail -1
    python3 "$here/answered_first3.py" --data "$data" "$out/$scope-k$k.jsonl"
    rm -rf "$(dirname "$db")"
  done
done
echo "records in $out" >&2
