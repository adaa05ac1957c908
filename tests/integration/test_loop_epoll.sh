#!/usr/bin/env bash
# examples/loop_epoll against ganesha (NFSv3) and diod and ganesha (9P):
# one file read over both protocols from one epoll loop, both clients
# caller-driven; the byte counts must be the file's and the process must
# have kept its one thread (the example checks and prints it).
# Runs under scripts/run-integration.sh (servers.env exported).
set -euo pipefail
# shellcheck source=tests/integration/loop-lib.sh
. "$(dirname "$0")/loop-lib.sh" loop_epoll 1000000

for s in "${loop_servers[@]}"; do
	out=$(loop_run "$s") || fail "9P from $s: exited $?: $out"
	echo "9P from $s: $out"
	grep -qx 'nfs3: 1000000 bytes (.*), 9p: 1000000 bytes (.*), threads 1' <<<"$out" ||
		fail "9P from $s: not the file through both from one thread: $out"
done
loop_usage
echo "test_loop_epoll: all passed"
