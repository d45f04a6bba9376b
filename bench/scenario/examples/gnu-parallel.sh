#!/bin/bash
# A schedkit sweep with GNU parallel: N shards as local processes (add -S host1,host2 to the
# parallel command to spread them over machines with ssh), then the merged table.
#   bash bench/scenario/examples/gnu-parallel.sh SCENARIO N [PLAN FLAGS...]
set -euo pipefail
scenario=${1:?scenario}
n=${2:?number of shards}
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/sweep" ./bench/scenario/sweep
seq 0 $((n - 1)) | parallel --halt now,fail=1 \
	"$dir/sweep" -scenario "$scenario" "$@" -workers 1 -shard {}/"$n" '>' "$dir/shard-{}.jsonl"
"$dir/sweep" -scenario "$scenario" "$@" -merge "$dir"/shard-*.jsonl
