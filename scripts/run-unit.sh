#!/usr/bin/env bash
# Run unit-test binaries, print one line per binary and a summary.
# usage: run-unit.sh BUILDDIR BIN...
set -uo pipefail
o=$1; shift
logdir=$o/test-logs
mkdir -p "$logdir"
# TSan: liburcu's lock-free structures use inline asm that TSan cannot see;
# our wrappers annotate the happens-before edges, the rest is suppressed here.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=1 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"
fail=0 n=0
for t in "$@"; do
	name=${t##*/}
	n=$((n + 1))
	start=$(date +%s.%N)
	if timeout 600 "$t" >"$logdir/$name.log" 2>&1; then
		res=ok
	else
		res=FAIL fail=$((fail + 1))
	fi
	printf '%-4s %-28s %6ss  (%s)\n' "$res" "$name" \
		"$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')" \
		"${o#build/}"
	if [[ $res == FAIL ]]; then
		sed 's/^/    | /' "$logdir/$name.log" | tail -60
	fi
done
echo "unit ($o): $((n - fail))/$n binaries passed"
((fail == 0))
