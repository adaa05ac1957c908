#!/bin/sh
# budget: 60
# The kernel nfsd's RDMA listener answers RPC-over-RDMA v1 NFSv3 NULL calls
# from a userspace client (what our own client must also do).
BIN=$RDMAVM_BIN/verbs_smoke
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start || { echo "FAIL: nfsd did not start"; exit 1; }
exec "$BIN" -t 15000 -n 50 rpcrdma
