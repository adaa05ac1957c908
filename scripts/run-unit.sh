#!/usr/bin/env bash
# Run unit-test binaries, print one line per binary and a summary.
# usage: run-unit.sh BUILDDIR BIN...
# A binary whose cmocka tests skipped prints each skip with its reason; a
# skip this machine is not allowed (scripts/skips.sh) fails the binary.
set -uo pipefail
o=$1; shift
# shellcheck source=scripts/skips.sh
. "$(dirname "$0")/skips.sh"
logdir=$o/test-logs
mkdir -p "$logdir"
# TSan: liburcu's lock-free structures use inline asm that TSan cannot see;
# our wrappers annotate the happens-before edges, the rest is suppressed here.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=1 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"
fail=0 n=0 skipped=0
for t in "$@"; do
	name=${t##*/}
	n=$((n + 1))
	start=$(date +%s.%N)
	rc=0
	timeout 600 "$t" >"$logdir/$name.log" 2>&1 || rc=$?
	res=ok
	((rc == 0)) || res=FAIL
	skip_judge "$name" "$logdir/$name.log" "$rc" >"$logdir/$name.skips" ||
		res=FAIL
	skipped=$((skipped + skip_n))
	[[ $res == FAIL ]] && fail=$((fail + 1))
	printf '%-4s %-28s %6ss  (%s)\n' "$res" "$name" \
		"$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')" \
		"${o#build/}"
	sed 's/^/     /' "$logdir/$name.skips"
	if [[ $res == FAIL ]]; then
		sed 's/^/    | /' "$logdir/$name.log" | tail -60
	fi
done
echo "unit ($o): $((n - fail))/$n binaries passed, $skipped tests skipped"
((fail == 0))
