#!/usr/bin/env bash
# examples/loop_uv against ganesha (NFSv3) and diod and ganesha (9P): one
# file read over both protocols from one libuv loop, both clients
# caller-driven with several reads in flight on each (-d); the byte
# counts must be the file's, each client must have had that many reads
# out at once, and the process must have kept its one thread (the
# example checks and prints it, and that both read the same bytes).
# Runs under scripts/run-integration.sh (servers.env exported).
set -euo pipefail
# shellcheck source=tests/integration/loop-lib.sh
. "$(dirname "$0")/loop-lib.sh" loop_uv 1000000

# 1000000 bytes are 16 chunks of 64 KiB, the last one short: 8 reads in
# flight (the default) take each client through two rounds, 3 through six
for s in "${loop_servers[@]}"; do
	for d in 8 3; do
		args=()
		((d == 8)) || args=(-d "$d")
		out=$(loop_run "$s" "${args[@]}") ||
			fail "9P from $s, -d $d: exited $?: $out"
		echo "9P from $s, -d $d: $out"
		grep -qx "nfs3: 1000000 bytes (.*, $d in flight), 9p: 1000000 bytes (.*, $d in flight), threads 1" <<<"$out" ||
			fail "9P from $s, -d $d: not the file through both, $d at once, from one thread"
	done
done
loop_usage
echo "test_loop_uv: all passed"
