#!/usr/bin/env bash
# Compares pdftext (through bench/cmd/pdfextract) and the whole
# `citelens add` (extraction, segmentation, indexing, bbolt commit into a
# fresh library) with poppler's pdftotext on the same PDF in the same
# hyperfine run, prints the wall-time ratios, and the peak RSS of each (GNU
# time).
#
# usage: bench/pdf_vs_pdftotext.sh [FILE.pdf] [RUNS]
# needs: hyperfine, poppler-utils, time (Debian packages); default FILE is
# fullrefman.pdf from r-doc-pdf.
set -euo pipefail
pdf=${1:-/usr/share/R/doc/manual/fullrefman.pdf}
runs=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in hyperfine pdftotext /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install hyperfine poppler-utils time" >&2; exit 1; }
done
(cd "$here/.." && go build -o "$tmp/pdfextract" ./bench/cmd/pdfextract && go build -o "$tmp/citelens" ./cmd/citelens)

hyperfine --warmup 1 --runs "$runs" --export-json "$tmp/h.json" \
	-n pdftext "$tmp/pdfextract $pdf $tmp/ours.txt" \
	-n "citelens add" --prepare "rm -f $tmp/lib.db" "$tmp/citelens --db $tmp/lib.db add $pdf" \
	-n pdftotext "pdftotext $pdf $tmp/ref.txt"

python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ref = r["pdftotext"]
for name in ("pdftext", "citelens add", "pdftotext"):
    x = r[name]
    print(f"{name:13} mean {x['mean']:.3f} s  median {x['median']:.3f} s  user {x['user']:.3f} s")
for name in ("pdftext", "citelens add"):
    x = r[name]
    print(f"ratio {name}/pdftotext: mean {x['mean']/ref['mean']:.2f}  median {x['median']/ref['median']:.2f}  user cpu {x['user']/ref['user']:.2f}")
PY

rm -f "$tmp/lib.db"
for cmd in "$tmp/pdfextract $pdf $tmp/ours.txt" "$tmp/citelens --db $tmp/lib.db add $pdf" "pdftotext $pdf $tmp/ref.txt"; do
	/usr/bin/time -f "peak RSS %M KB  $(basename "${cmd%% *}")" $cmd 2>&1 >/dev/null | tail -1
done
echo "word F1 against pdftotext: $( (cd "$here/.." && go run ./bench/cmd/wordf1 "$tmp/ours.txt" "$tmp/ref.txt") | tail -1)"
