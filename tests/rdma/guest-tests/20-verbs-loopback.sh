#!/bin/sh
# budget: 40
# RDMA-CM + RC QP inside one process over rxe: SEND/RECV and RDMA WRITE.
BIN=$RDMAVM_BIN/verbs_smoke
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
exec "$BIN" -t 15000 loopback
