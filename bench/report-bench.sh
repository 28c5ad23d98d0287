#!/bin/sh
# Times `pego report` over 1,000 report files of a realistic size (the target in
# docs/benchmarks.md: about one second). The reports come from tests/mkreport
# --synthetic: each is one process that parsed 50 inputs with a JSON grammar of
# 24 rules, with its call graph (72 edges) and calling-context tree (150
# paths), about 11 KB compressed. Prints the best of three runs.
#
# Usage: bench/report-bench.sh [BUILDDIR] [COUNT]   (BUILDDIR defaults to .)
set -eu
build=${1:-.}
count=${2:-1000}
pego=$build/pego
mkreport=$build/tests/mkreport
for p in "$pego" "$mkreport"; do
    if [ ! -x "$p" ]; then
        echo "report-bench: $p is missing (build it with make first)" >&2
        exit 1
    fi
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/pego-report-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
"$mkreport" --synthetic "$count" "$dir/reports"
size=$(du -sk "$dir/reports" | cut -f1)
echo "report-bench: $count reports, ${size} KB in all"

best=
for run in 1 2 3; do
    start=$(date +%s%N)
    "$pego" report "$dir/reports" > "$dir/out.txt"
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
done
head -n 1 "$dir/out.txt"
printf 'report-bench: pego report over %s reports: %d.%03d s (best of 3)\n' "$count" $((best / 1000)) $((best % 1000))
