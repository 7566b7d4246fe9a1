#!/usr/bin/env bash
# Measures the page geometry citelens stores (docstore.SpanRects) against
# poppler's pdftotext -bbox-layout: 200 sentences sampled from three R
# manuals and the two-column and table test PDFs, the share whose
# rectangles have IoU >= 0.5 with pdftotext's placement of the same text,
# and the geometry's size in the library (bench/cmd/geomiou). Then the
# cost of adding fullrefman.pdf: wall and CPU time against pdftotext in
# one hyperfine run, and peak RSS (GNU time), for this build and, when
# given, an older citelens binary (say, one built from main).
#
# usage: bench/geometry.sh [OLD_CITELENS] [RUNS]
# needs: poppler-utils, hyperfine, time, r-doc-pdf (Debian packages)
set -euo pipefail
old=${1:-}
runs=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
manual=/usr/share/R/doc/manual
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in hyperfine pdftotext /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install hyperfine poppler-utils time" >&2; exit 1; }
done
[ -f "$manual/fullrefman.pdf" ] || { echo "missing the R manuals: apt-get install r-doc-pdf" >&2; exit 1; }
(cd "$here/.." && go build -o "$tmp/geomiou" ./bench/cmd/geomiou && go build -o "$tmp/citelens" ./cmd/citelens)

echo "== geometry against pdftotext -bbox-layout"
"$tmp/geomiou" -n 200 "$manual/R-intro.pdf" "$manual/R-exts.pdf" "$manual/fullrefman.pdf" \
	"$here/../testdata/pdf/two-column.pdf" "$here/../testdata/pdf/tables.pdf"

echo "== adding fullrefman.pdf"
bins=("$tmp/citelens")
[ -n "$old" ] && bins=("$old" "${bins[@]}")
args=()
for b in "${bins[@]}"; do
	n=$([ "$b" = "$old" ] && echo old || echo new)
	args+=(-n "$n" --prepare "rm -f $tmp/$n.db" "$b --db $tmp/$n.db add $manual/fullrefman.pdf")
done
hyperfine --warmup 1 --runs "$runs" --export-json "$tmp/h.json" "${args[@]}" \
	-n pdftotext --prepare true "pdftotext $manual/fullrefman.pdf $tmp/ref.txt"
python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ref = r["pdftotext"]
for name, x in r.items():
    print(f"{name:10} mean {x['mean']:.2f} s  median {x['median']:.2f} s  user {x['user']:.2f} s  ÷ pdftotext: mean {x['mean']/ref['mean']:.2f}  median {x['median']/ref['median']:.2f}  user {x['user']/ref['user']:.2f}")
PY
for b in "${bins[@]}"; do
	n=$([ "$b" = "$old" ] && echo old || echo new)
	for i in 1 2 3; do
		rm -f "$tmp/$n.db"
		/usr/bin/time -f "$n: peak RSS %M KB, %e s, %U s user" "$b" --db "$tmp/$n.db" add "$manual/fullrefman.pdf" 2>&1 >/dev/null | tail -1
	done
done
