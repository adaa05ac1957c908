#!/bin/sh
# budget: 60
# The floor of make bench-cost's RDMA rows (perf/peers/peer_verbs.c): its
# ping-pong runs at both sizes the rows use, every round trip is answered,
# and both sides end promptly (the client's goodbye: neither waits for
# the other's disconnect).
PV=$RDMAVM_BIN/peers/peer_verbs
IP=${RDMAVM_IP:-10.0.2.15}
[ -x "$PV" ] || { echo "FAIL: $PV not built (make rdma-tools builds it)"; exit 1; }
for size in 64 4096; do
	"$PV" --server --size $size >/tmp/pv-server.log 2>&1 &
	spid=$!
	sleep 2 # listening by then, even under TCG
	out=$(timeout 20 "$PV" --size $size --count 200 --warmup-count 10 "$IP" 2>&1)
	rc=$?
	i=0
	while kill -0 $spid 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $spid 2>/dev/null; then
		kill $spid
		echo "FAIL: size $size: the server did not end after the goodbye"
		exit 1
	fi
	wait $spid
	src=$?
	[ $rc = 0 ] || { echo "FAIL: size $size: client exit $rc: $out"; exit 1; }
	[ $src = 0 ] || { echo "FAIL: size $size: server exit $src: $(cat /tmp/pv-server.log)"; exit 1; }
	echo "$out" | grep -q "^RESULT peer=verbs op=pingpong depth=1 bs=$size ops=200 .* errors=0" ||
		{ echo "FAIL: size $size: no RESULT line of 200 round trips: $out"; exit 1; }
	echo "PASS: size $size, 200 round trips, $(echo "$out" | grep -o 'inline=[01]')"
done
