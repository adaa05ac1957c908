#!/bin/sh
# budget: 60
# The kernel nfsd's RDMA listener answers RPC-over-RDMA v1 NFSv3 NULL calls
# from a userspace client (what our own client must also do), and the smoke
# program reports a refused connection as FAIL rather than passing.
BIN=$RDMAVM_BIN/verbs_smoke
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start || { echo "FAIL: nfsd did not start"; exit 1; }
"$BIN" -t 15000 -n 50 rpcrdma || exit 1
# nothing listens on 20050: the connect is rejected
if "$BIN" -t 5000 -p 20050 rpcrdma >/tmp/neg.out 2>&1 ||
	! grep -q '^FAIL rpcrdma' /tmp/neg.out; then
	echo "FAIL: verbs_smoke did not report a closed port as FAIL:"
	cat /tmp/neg.out
	exit 1
fi
echo "ok: a closed port is reported: $(grep '^FAIL' /tmp/neg.out)"
