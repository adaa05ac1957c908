#!/bin/sh
# budget: 120
# LX_CALL_NOWAIT past the credits over RPC-over-RDMA,
# against the kernel nfsd: a client with 16 slots more than nfsd's credit
# grant takes every slot with NOWAIT NULL calls while its receive thread
# is held in the first done() (so no slot comes back).  The calls past the
# credit window must be accepted at once (queued for a credit, not
# refused), the next NOWAIT call refused with -EBUSY at once (under 50 ms),
# and every accepted call must complete when the thread is released; a
# call after that succeeds again (tests/rdma/rdma_null -W).
BIN=$RDMAVM_BIN/rdma_null
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "FAIL: nfsd did not start"; exit 1; }
# streamed (a stall shows where it stopped), kept for the checks below
timeout -s KILL 90 "$BIN" -W 16 >/tmp/nw.out 2>&1 &
pid=$!
tail -f /tmp/nw.out &
tailpid=$!
wait $pid
rc=$?
sleep 0.2
kill $tailpid 2>/dev/null
[ $rc = 0 ] || { echo "FAIL: rdma_null -W 16 exited $rc"; exit 1; }
grep -q "^PASS nowait: " /tmp/nw.out || { echo "FAIL: no NOWAIT refusal reported"; exit 1; }
grep -q '^PASS nowait-after' /tmp/nw.out || { echo "FAIL: no call after the release"; exit 1; }
