#!/bin/sh
# The cost table: every registered strategy over HotpotQA's 53 questions
# against llmtestd's scripted model; writes bench/costs/costs.md. Extra
# arguments go to the Go program (bench/costs/main.go), for example
#   bench/costs/run.sh -strategies okra,longcite -limit 10
# DATA names another data set (default testdata/hotpotqa53).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/citelens" ./cmd/citelens
go build -o "$bin/llmtestd" ./llm/llmtest/cmd/llmtestd
go run ./bench/costs -citelens "$bin/citelens" -llmtestd "$bin/llmtestd" \
	-data "${DATA:-$root/testdata/hotpotqa53}" -out bench/costs/costs.md "$@"
