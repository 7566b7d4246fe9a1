#!/bin/sh
# Issue 24's table, before and after in one run: two citelens binaries,
# each with libraries of its own (their schemas differ), measured as whole
# processes: hyperfine for the quick commands, /usr/bin/time -v for the
# adds (one run each: minutes) and for every peak memory.
#
#   bench/scale/before_after.sh OLD_BINARY NEW_BINARY BIG_TEXT DOCS_DIR OUT_DIR
#
# BIG_TEXT is a large text file (go run ./bench/scale -genbig FILE -big
# 500M), DOCS_DIR a folder of small text files (go run ./bench/scale -gen
# 10000 -dir DIR). fullrefman.pdf is R's reference manual (Debian's
# r-doc-pdf). The results (hyperfine's JSON and Markdown, time's reports)
# go to OUT_DIR.
set -eu
old=$1 new=$2 big=$3 docs=$4 out=$5
refman=${REFMAN:-/usr/share/R/doc/manual/fullrefman.pdf}
mkdir -p "$out"
export CITELENS_CONFIG="$out/no-config.toml"
bigq='What is the sulvaing rixblairwiment crockment flingfrosted?'
docsq='What is the polal goaly kemly tejond?'
refq='How do I read a CSV file into a data frame?'

peak() { # peak NAME BINARY ARGS...: one run under /usr/bin/time -v
	name=$1
	shift
	/usr/bin/time -v "$@" >"$out/$name.stdout" 2>"$out/$name.time" || {
		echo "$name failed" >&2
		tail -5 "$out/$name.time" >&2
		return 1
	}
	printf '%s\t%s\t%s\n' "$name" \
		"$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/$name.time")" \
		"$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/$name.time")" | tee -a "$out/peaks.tsv"
}

: >"$out/peaks.tsv"
for who in old new; do
	eval bin=\$$who
	rm -f "$out/$who-big.db" "$out/$who-docs.db" "$out/$who-refman.db"
	peak "$who-add-big" "$bin" --db "$out/$who-big.db" add "$big"
	peak "$who-add-docs" "$bin" --db "$out/$who-docs.db" add "$docs"/*.txt
	peak "$who-add-refman" "$bin" --db "$out/$who-refman.db" add "$refman"
	peak "$who-ask-big" "$bin" --db "$out/$who-big.db" ask --no-save --strategy extractive "$bigq"
	peak "$who-ask-docs" "$bin" --db "$out/$who-docs.db" ask --no-save --strategy extractive "$docsq"
	peak "$who-ask-refman" "$bin" --db "$out/$who-refman.db" ask --no-save --strategy extractive "$refq"
	peak "$who-ls-docs" "$bin" --db "$out/$who-docs.db" ls
done
ls -l "$out"/*.db >"$out/sizes.txt"

hf() { # hf NAME COMMAND-TEMPLATE: the template's {bin} and {db} for each binary
	name=$1 tmpl=$2
	hyperfine -N --warmup 2 --runs "${RUNS:-15}" --export-json "$out/$name.json" --export-markdown "$out/$name.md" \
		-n old "$(printf '%s' "$tmpl" | sed "s|{bin}|$old|; s|{who}|old|")" \
		-n new "$(printf '%s' "$tmpl" | sed "s|{bin}|$new|; s|{who}|new|")"
}
hf ask-big "{bin} --db $out/{who}-big.db ask --no-save --strategy extractive '$bigq'"
hf ask-docs "{bin} --db $out/{who}-docs.db ask --no-save --strategy extractive '$docsq'"
hf ls-docs "{bin} --db $out/{who}-docs.db ls"
hf ask-refman "{bin} --db $out/{who}-refman.db ask --no-save --strategy extractive '$refq'"
hyperfine -N --warmup 2 --runs "${RUNS:-15}" --export-json "$out/ls-page.json" -n "new ls --page 1" "$new --db $out/new-docs.db ls --page 1"
