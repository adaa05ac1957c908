#!/usr/bin/env bash
# Run the micro benchmarks; each prints its tables, JSON goes to
# BUILDDIR/bench/micro-results/NAME.json.
# usage: run-bench-micro.sh BUILDDIR BIN...   (MB_QUICK=1 for a short run)
set -euo pipefail
o=$1; shift
out=$o/bench/micro-results
mkdir -p "$out"
for b in "$@"; do
	name=${b##*/}
	"$b" --json "$out/$name.json" ${MB_ARGS:-}
	echo
done
echo "micro benchmark JSON: $out/"
