#!/usr/bin/env bash
# bench/smoke.sh: the smoke test of the benchmark harness (run by make check; no
# benchmark figure is judged here). Runs the whole pipeline of bench/run on ~10 kB
# inputs with one repetition and no callgrind, checks what it produced (the profile-
# accuracy tables and the gate of identical profiled runs included), and checks that
# the harness stops when a parser accepts corrupted input. Prints one line per check and
# a closing line "smoke: N passed, N failed, N skipped"; exit status 0 when none failed.
#
# The build tree is the one make check runs in (found from $PEGO), or the source tree.
# Peers that are missing are installed by bench/run when this runs as root, and skipped
# otherwise.
set -euo pipefail

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -n "${PEGO:-}" ]; then
    builddir=$(cd "$(dirname "$PEGO")" && pwd)
else
    builddir=$srcdir
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pego-bench-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT

passed=0 failed=0 skipped=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }
skip() { echo "SKIP: $1"; skipped=$((skipped + 1)); }
check() {   # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

opts=(--quick --builddir "$builddir")
# Under make check the library is built already: no nested make in the same tree.
if [ -f "$builddir/.libs/libpego.a" ] && [ -x "$builddir/bench/gen-json" ]; then opts+=(--no-build); fi
[ "$(id -u)" = 0 ] || opts+=(--no-install)

# 1. The whole pipeline.
out=$work/out
if "$srcdir/bench/run" "${opts[@]}" --out "$out" >"$work/run.log" 2>&1; then
    pass "bench/run --quick exits 0"
else
    fail "bench/run --quick exits 0"
    tail -n 30 "$work/run.log"
fi

# 2. The report: the table and its targets.
check "results.md has the main table" grep -q '^| grammar | input | peer | mode | MB/s | × pego | instr/byte |$' "$out/results.md"
check "results.md has the typed-tree table" grep -q '^| input | pego MB/s | LPeg MB/s | pego ÷ LPeg | target | status | pego instr/byte | LPeg instr/byte |$' "$out/results.md"
check "results.md has the overheads table with the hooks row" grep -q '^| untraced ÷ hooks compiled out |' "$out/results.md"
check "results.md has the memory table" grep -q '^| peer | mode | input | peak RSS | × input | parse.s own |$' "$out/results.md"
check "results.md has the targets" grep -q '^| target | measured | status |$' "$out/results.md"
check "bench/run reports its checks" grep -q '^- Checks: [1-9][0-9]* passed, 0 failed' "$out/results.md"
check "results.md has the profile-accuracy table" grep -q '^| grammar | mode | rule | true share | instructions | reference program | --profile | difference | --profile-detail | difference |$' "$out/results.md"
check "results.md has the worst differences" grep -q '^| grammar | mode | worst difference, --profile | worst difference, --profile-detail | round spread | parts ÷ whole | profiled ÷ unprofiled | status |$' "$out/results.md"
# --profile samples its time: a quick run's 10 kB parses may get no sample (n/a);
# tests/profile.test checks that a longer parse gets samples
check "results.md has the accuracy target of --profile" grep -q '^| --profile time shares within 10 points of the true shares | worst \([0-9.]* points .*\|n/a\) | \(met\|MISSED\|n/a\) |$' "$out/results.md"
check "results.md has the accuracy target of --profile-detail" grep -q '^| --profile-detail time shares within 10 points of the true shares | worst [0-9.]* points .* | \(met\|MISSED\) |$' "$out/results.md"
check "results.md has the time of a syntax error at 90%" grep -q '^| a syntax error at 90% ≤ 1.5× the valid input.s instructions and time | instructions n/a× (recognize), n/a× (tree); time [0-9.]*× (recognize), [0-9.]*× (tree) side by side | \(met\|MISSED\) |$' "$out/results.md"
check "results.md has the time of a parse with its statistics" grep -q '^| a parse with its statistics (-stats) ≤ 1.05× one without, in instructions and time | instructions n/a× (recognize), n/a× (tree); time [0-9.]*× (recognize), [0-9.]*× (tree) side by side | \(met\|MISSED\) |$' "$out/results.md"
check "results.md has the speed target of stream parses" grep -q '^| a stream parse ≥ 0.80× the speed of an ordinary parse (CSV, trees, 10 kB) | [0-9.]*× side by side (timing: [0-9.]* MB/s against [0-9.]* MB/s) | \(met\|MISSED\) |$' "$out/results.md"
for g in json csv; do
    check "results.md has the evaluations target of documents ($g)" grep -q "^| a one-character edit in 1 MB of $g: ≥ 20× fewer evaluations than a fresh parse | [0-9.]*× ([0-9]* against [0-9]*; time [0-9.]* ms against [0-9.]* ms fresh) | \\(met\\|MISSED\\) |\$" "$out/results.md"
done
check "results.md has the memory target of stream parses, at two sizes" grep -q '^| a stream parse.s peak RSS under 64 MiB whatever the input.s size | [0-9.]* MiB for 10 kB, [0-9.]* MiB for 100 kB | \(met\|MISSED\) |$' "$out/results.md"
check "results.md says whether the gate of identical profiled runs passed" grep -q "^Gate on times: .*--fail 'self>+20%'.*\*\*\(passed\|failed\)\*\*" "$out/results.md"

# 3. A row with a positive speed for every parser, grammar and mode.
row_ok() {   # row_ok GRAMMAR PEER MODE
    awk -F'\t' -v g="$1" -v p="$2" -v m="$3" \
        '$1 == g && $3 == p && $4 == m && $5 + 0 > 0 { found = 1 } END { exit !found }' "$out/results.tsv"
}
for row in "json pego" "json lpeg" "json leg" "json-typed pego" "json-typed lpeg" "csv pego" "csv-stream pego" "arith pego"; do
    read -r g peer <<<"$row"
    modes=(recognize tree)
    case $g in json-typed|csv-stream) modes=(tree) ;; esac   # json-typed's recognition is json's; streams build trees
    for mode in "${modes[@]}"; do
        name="the $g row of $peer $mode has a positive MB/s"
        if [ "$peer" != pego ] && ! grep -q "^| $g | [^|]* | $peer |" "$out/results.md" 2>/dev/null; then
            skip "$name ($peer not installed)"
        else
            check "$name" row_ok "$g" "$peer" "$mode"
        fi
    done
done

# 3b. A row of the accuracy table for every grammar, mode and part, with shares (true,
# reference program, --profile and --profile-detail) that are numbers, or n/a where
# every part measured nothing (a tiny input parsed once, on a slow build such as the
# sanitizers': the figures of a quick run mean nothing, their form does), and that
# add up to 100 where they are numbers.
acc_rows_ok() {   # acc_rows_ok GRAMMAR PARTS
    local mode part
    for mode in recognize tree; do
        for part in $2; do
            awk -F'\t' -v g="$1" -v m="$mode" -v p="$part" '$1 == g && $2 == m && $3 == p {
                    for (i = 4; i <= 8; i++) if (i != 5 && $i !~ /^([0-9]+(\.[0-9])?|n\/a)$/) exit 1
                    found = 1 }
                END { exit !found }' "$out/accuracy.tsv" || return 1
        done
        for col in 4 7; do
            awk -F'\t' -v g="$1" -v m="$mode" -v c="$col" '$1 == g && $2 == m { if ($c == "n/a") na = 1; t += $c }
                END { exit !(na || (t > 99.5 && t < 100.5)) }' "$out/accuracy.tsv" || return 1
        done
    done
}
check "accuracy.tsv has the rows of the mixed grammar" acc_rows_ok mixed "runs words items backtrack"
check "accuracy.tsv has the rows of the calls grammar" acc_rows_ok calls "text list"

# 4. The inputs and their corrupted copies, checked with pego's driver directly.
drv=$out/bin/pego-bench
accepts() { "$drv" --mode tree --once "$1" "$2" >/dev/null 2>&1; }
rejects() {   # rejects GRAMMAR INPUT [MODE]: exit status 1 exactly, a syntax error, not a crash
    local rc=0
    "$drv" --mode "${3:-recognize}" --once "$1" "$2" >/dev/null 2>&1 || rc=$?
    [ $rc -eq 1 ]
}
size_ok() { [ -n "$1" ] && [ "$(stat -c %s "$1")" -ge 10000 ] && [ "$(stat -c %s "$1")" -lt 20000 ]; }
# json-typed parses the JSON inputs, in tree mode: its actions run.
for spec in "json json json recognize" "json-typed json json tree" "csv csv csv recognize" "arith arith txt recognize"; do
    read -r g kind ext mode <<<"$spec"
    grammar=$srcdir/fixtures/$( [ "$g" = arith ] && echo arith_lr || echo "$g" ).pego
    input=$(ls "$out"/inputs/"$kind"-*."$ext" 2>/dev/null | grep -v -e '\.stray\.' -e '\.trunc\.' -e '\.err90\.' | sed -n 1p || true)
    check "the $g input exists and is about 10 kB" size_ok "$input"
    check "pego accepts the $g input" accepts "$grammar" "${input:-/nonexistent}"
    for bad in "$out"/inputs/"$kind"-*.stray."$ext" "$out"/inputs/"$kind"-*.trunc."$ext" "$out"/inputs/"$kind"-*.err90."$ext"; do
        [ -e "$bad" ] || continue
        check "pego $g rejects $(basename "$bad") ($mode)" rejects "$grammar" "$bad" "$mode"
    done
done

for g in mixed calls; do
    grammar=$srcdir/bench/accuracy/$g.pego
    check "pego accepts the $g accuracy input" accepts "$grammar" "$out/inputs/acc-$g.txt"
    for bad in "$out/inputs/acc-$g.stray.txt" "$out/inputs/acc-$g.reversed.txt"; do
        check "pego rejects $(basename "$bad")" rejects "$grammar" "$bad"
    done
done

# 5. A parser that accepts garbage stops the run: a JSON grammar matching anything.
printf 'def main = .*\n' >"$work/anything.pego"
if "$srcdir/bench/run" "${opts[@]}" --no-build --out "$work/out-garbage" --json-grammar "$work/anything.pego" \
        >"$work/garbage.log" 2>&1; then
    fail "bench/run fails when a parser accepts corrupted input"
else
    check "bench/run fails when a parser accepts corrupted input" grep -q 'CHECK FAILED: pego json .* ACCEPTED the corrupted input' "$work/garbage.log"
fi
check "and prints no table then" test ! -e "$work/out-garbage/results.md"

echo "smoke: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
