#!/usr/bin/env bash
# Compares pdftext (through bench/cmd/pdfextract) with poppler's pdftotext on
# the same PDF in the same hyperfine run, prints the wall-time ratio, and the
# peak RSS of each (GNU time).
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
(cd "$here/.." && go build -o "$tmp/pdfextract" ./bench/cmd/pdfextract)

hyperfine --warmup 1 --runs "$runs" -N --export-json "$tmp/h.json" \
	-n pdftext "$tmp/pdfextract $pdf $tmp/ours.txt" \
	-n pdftotext "pdftotext $pdf $tmp/ref.txt"

python3 - "$tmp/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ours, ref = r["pdftext"], r["pdftotext"]
print(f"pdftext   mean {ours['mean']:.3f} s  median {ours['median']:.3f} s  user {ours['user']:.3f} s")
print(f"pdftotext mean {ref['mean']:.3f} s  median {ref['median']:.3f} s  user {ref['user']:.3f} s")
print(f"ratio pdftext/pdftotext: mean {ours['mean']/ref['mean']:.2f}  median {ours['median']/ref['median']:.2f}  cpu {ours['user']/ref['user']:.2f}")
PY

for cmd in "$tmp/pdfextract $pdf $tmp/ours.txt" "pdftotext $pdf $tmp/ref.txt"; do
	/usr/bin/time -f "peak RSS %M KB  ${cmd%% *}" $cmd 2>&1 >/dev/null | tail -1
done
if [ -f /work/shared/tools/wordf1.py ] || [ -f "$here/../../shared/tools/wordf1.py" ]; then
	f1=$(ls /work/shared/tools/wordf1.py "$here/../../shared/tools/wordf1.py" 2>/dev/null | head -1)
	echo "word F1 against pdftotext: $(python3 "$f1" "$tmp/ours.txt" "$tmp/ref.txt" | tail -1)"
fi
