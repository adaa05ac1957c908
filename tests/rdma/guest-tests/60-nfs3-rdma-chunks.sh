#!/bin/sh
# budget: 150
# NFSv3 over RDMA with our client (tests/rdma/nfs3_rdma, hand-written XDR):
# MOUNT over TCP, then GETATTR, CREATE, a WRITE whose payload goes in a
# Read chunk, a READ whose data comes back through a Write chunk (bytes
# checked), a small READ with the data inline, a READDIR big enough for a
# Reply chunk (every entry counted), and WRITE/READ bandwidth; all of it
# with memory windows (the default: nfsd invalidates the windows of calls
# with one key, we those of calls with several), without offering Send
# With Invalidate (all invalidations ours), then as on a device without windows
# (XPRT_RDMA_NO_MW=1: per-I/O registration) and with the registration
# cache.  Last, a READ nfsd drops
# (mountd frozen, export cache flushed: nfsd drops a call whose export
# lookup waits for mountd) must time out, be resent only after a
# reconnect (never on the same connection; a fresh window bound on every
# new connection, the dead ones' deallocated) and deliver its data once
# mountd thaws.
BIN=$RDMAVM_BIN/nfs3_rdma
N=600
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "FAIL: nfsd did not start"; exit 1; }
# a directory whose listing is far larger than the 4 KiB inline threshold
mkdir -p /export/many
i=0
while [ $i -lt $N ]; do
	: >/export/many/a-file-with-a-rather-long-name-to-fill-replies-$i
	i=$((i + 1))
done
"$BIN" -n $N -M 8 -X window || exit 1
echo "--- chunks of several segments (8 KiB limit: a 64 KiB READ's Write chunk and"
echo "    each READDIR's Reply chunk take 8 windows, all invalidated by us)"
"$BIN" -n $N -M 0 -s 65536 -X window -G 8192 || exit 1
echo "--- the same per-I/O: a registration per segment"
XPRT_RDMA_NO_MW=1 "$BIN" -n $N -M 0 -s 65536 -X per-io -G 4096 || exit 1
echo "--- the same without offering Send With Invalidate: all local"
"$BIN" -n $N -M 2 -X window -I || exit 1
echo "--- the same on a device without memory windows: per-I/O registration"
XPRT_RDMA_NO_MW=1 "$BIN" -n $N -M 2 -X per-io || exit 1
echo "--- the same with the registration cache"
"$BIN" -n $N -M 2 -c -X cache || exit 1
echo "--- a call the server drops"
rm -f /tmp/nfs3-stall /tmp/nfs3-stall.ok
(
	while [ ! -e /tmp/nfs3-stall ]; do sleep 0.1; done
	kill -STOP $(pidof rpc.mountd)
	exportfs -f
	touch /tmp/nfs3-stall.ok
	sleep 3
	kill -CONT $(pidof rpc.mountd)
) &
thaw=$!
"$BIN" -n $N -M 0 -T /tmp/nfs3-stall
rc=$?
wait $thaw
kill -CONT $(pidof rpc.mountd) 2>/dev/null
exit $rc
