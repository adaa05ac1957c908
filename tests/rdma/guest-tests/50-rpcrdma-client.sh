#!/bin/sh
# budget: 120
# Our SunRPC client over RPC-over-RDMA v1 to the kernel nfsd (NFSv3 NULL):
# RFC 8797 connection parameters, the server's credit grant reaching the
# congestion window, many calls in flight with receive and send batching
# visible, calls in flight across a dropped connection resent on the new
# one, client timeouts going through a disconnect (never a resend on the
# same connection), a closed port refused, two connections sharing one
# registered buffer pool (nconnect).
BIN=$RDMAVM_BIN/rdma_null
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "FAIL: nfsd did not start"; exit 1; }
"$BIN" -n 3000 -d 32 -T -r 20050 || exit 1
# run ARGS...: rdma_null ARGS, which must exit 0 with no FAIL line and a
# PASS pipeline line (shown); its whole output when not (dash has no
# pipefail: the status is taken before any grep)
run() {
	out=$("$BIN" "$@")
	rc=$?
	if [ $rc != 0 ] || echo "$out" | grep -q '^FAIL' ||
		! echo "$out" | grep -q '^PASS pipeline'; then
		echo "$out"
		echo "FAIL: rdma_null $* (exit status $rc)"
		exit 1
	fi
	echo "$out" | grep '^PASS pipeline'
}
# one call at a time: the latency of a round trip through our stack
run -n 500 -d 1
# two connections (queue pairs) sharing one registered pool
run -n 2000 -d 64 -c 2

