#!/usr/bin/env bash
# Run the libFuzzer targets of tests/fuzz, each for a bounded time.
#
# usage: run-fuzz.sh FUZZ_BUILD_DIR SECONDS TARGET...
#   For each TARGET (build/fuzz/fuzz_<name>):
#   1. replay tests/fuzz/crashes-fixed/fuzz_<name>/* (regressions: each
#      must run clean);
#   2. fuzz for SECONDS from the seed corpus tests/fuzz/corpus/fuzz_<name>
#      (read only) into a working corpus: a fresh temporary one, or
#      FUZZ_BUILD_DIR/corpus/fuzz_<name> kept across runs when
#      FUZZ_KEEP_CORPUS=1 (make fuzz-long).
#   A finding is written to FUZZ_BUILD_DIR/artifacts/fuzz_<name>/ and fails
#   the run.  Environment: FUZZ_MAX_LEN (16384), FUZZ_RUNS (no limit: stop
#   after that many executions instead of SECONDS), FUZZ_ARGS (more
#   libFuzzer flags).
set -uo pipefail
o=$1 secs=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
fail=0 n=0
for t in "$@"; do
	name=${t##*/}
	n=$((n + 1))
	log=$o/logs/$name.log
	art=$o/artifacts/$name
	mkdir -p "$o/logs" "$art"
	seeds=$top/tests/fuzz/corpus/$name
	fixed=$top/tests/fuzz/crashes-fixed/$name
	if [[ -d $fixed ]] && compgen -G "$fixed/*" >/dev/null; then
		if ! "$t" -runs=1 "$fixed"/* >"$log.fixed" 2>&1; then
			echo "FAIL $name: a fixed crash is back:"
			tail -40 "$log.fixed" | sed 's/^/    | /'
			fail=$((fail + 1))
			continue
		fi
	fi
	if [[ ${FUZZ_KEEP_CORPUS:-0} == 1 ]]; then
		work=$o/corpus/$name
		mkdir -p "$work"
	else
		work=$(mktemp -d "${TMPDIR:-/tmp}/xprt-fuzz.XXXXXX")
	fi
	dirs=("$work")
	[[ -d $seeds ]] && dirs+=("$seeds")
	limit=(-max_total_time="$secs")
	[[ -n ${FUZZ_RUNS:-} ]] && limit=(-runs="$FUZZ_RUNS")
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$t" "${limit[@]}" -max_len="${FUZZ_MAX_LEN:-16384}" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art/" ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1
	rc=$?
	[[ ${FUZZ_KEEP_CORPUS:-0} == 1 ]] || rm -rf "$work"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
	if ((rc == 0)); then
		res=ok
	else
		res=FAIL fail=$((fail + 1))
	fi
	printf '%-4s %-22s %10s execs %5ss  %s\n' "$res" "$name" "${execs:-?}" \
		"$(($(date +%s) - start))" "$cov"
	if [[ $res == FAIL ]]; then
		grep -E 'ERROR|invariant|SUMMARY|^ +#[0-9]+ ' "$log" | head -40 |
			sed 's/^/    | /'
		ls "$art" | sed 's/^/    artifact: /'
	fi
done
echo "fuzz: $((n - fail))/$n targets clean"
((fail == 0))
