#!/bin/sh
# budget: 90
# fio with libxprt's engine over RPC-over-RDMA against the kernel nfsd
# (make rdma-tools builds both for the guest: a fio from the cached fio
# source without the engines whose libraries the guest lacks, and the
# engine against its headers; tests/rdma/build-fio.sh):
#   1. write 8 MiB at random in 4 KiB (inline), 64 KiB and 256 KiB (Read
#      and Write chunks) blocks with verify=crc32c, then read every block
#      back and verify it; the engine's libxprt_stats=1 line must show
#      RDMA with memory windows, chunks of both kinds, every window bound
#      ended (invalidated by nfsd or by us, or deallocated), none live
#      and none named wrongly, no chunk registration (fio's buffers are
#      registered once), no timeout;
#   2. the control: a block of the file corrupted on the server's disk,
#      fio verify_only=1 must fail naming the verify failure, and the job
#      that ended on it must leave no window live either.
FIO=$RDMAVM_BIN/fio/fio
ENG=$RDMAVM_BIN/fio/libxprt-fio.so
IP=${RDMAVM_IP:-10.0.2.15}
[ -x "$FIO" ] || { echo "FAIL: $FIO not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
[ -f "$ENG" ] || { echo "FAIL: $ENG not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "FAIL: nfsd did not start"; exit 1; }
NAME=fio-rdma.0
trap 'rm -f /export/$NAME /tmp/fio-rdma.log' EXIT
rm -f "/export/$NAME"

# An ASan engine (RDMA_BUILD=asan) in the uninstrumented fio: the runtime
# comes first, and libtirpc, whose XDR functions ASan intercepts, is there
# when it looks them up.  No leak check: fio leaks its option strings at
# its exit, and its frames sit below every allocation of the engine.
PRELOAD="" ASAN=""
if grep -q __asan_init "$ENG"; then
	PRELOAD="libasan.so.8 libtirpc.so.3"
	ASAN=detect_leaks=0
fi

# the same job both times: the same blocks at the same offsets (fio's
# random sequence repeats), so verify_only reads what the first wrote
run_fio() {
	LD_PRELOAD=$PRELOAD ASAN_OPTIONS=$ASAN "$FIO" --name=fio-rdma \
		--ioengine="external:$ENG" --filename="$NAME" \
		--nfs_url="nfs://$IP/export?transport=rdma" \
		--size=8m --rw=randwrite --bssplit=4k/30:64k/40:256k/30 \
		--iodepth=8 --verify=crc32c --verify_fatal=1 \
		--verify_state_save=0 --libxprt_stats=1 --eta=never "$@" \
		>/tmp/fio-rdma.log 2>&1
}
# field NAME: its value in the stats line ($S)
field() {
	echo " $S " | sed -n "s/.* $1=\([^ ]*\) .*/\1/p"
}
# windows WHEN: every window bound ended, none live, none named wrongly
windows() {
	S=$(grep '^libxprt-stats:' /tmp/fio-rdma.log)
	[ "$(echo "$S" | grep -c .)" = 1 ] ||
		{ echo "FAIL: $1: not one libxprt-stats line"; exit 1; }
	echo "$1: $S"
	[ "$(field transport)" = rdma ] && [ "$(field reg_mode)" = window ] ||
		{ echo "FAIL: $1: not RDMA with memory windows"; exit 1; }
	binds=$(field win_binds)
	ended=$(($(field win_remote_inv) + $(field win_local_inv) + $(field win_deallocs)))
	[ "$(field win_live)" = 0 ] && [ "$(field win_bad_inv)" = 0 ] &&
		[ "$binds" = "$ended" ] ||
		{ echo "FAIL: $1: windows left with access: $binds bound, $ended ended, $(field win_live) live"; exit 1; }
	[ "$(field timeouts)" = 0 ] || { echo "FAIL: $1: calls timed out"; exit 1; }
}

# 1. write, then verify every block
run_fio --do_verify=1
rc=$?
[ $rc = 0 ] || { cat /tmp/fio-rdma.log; echo "FAIL: fio write+verify (status $rc)"; exit 1; }
grep -E '^ *(READ|WRITE):' /tmp/fio-rdma.log
for d in READ WRITE; do
	grep -Eq "^ *$d: .*io=8192KiB" /tmp/fio-rdma.log ||
		{ cat /tmp/fio-rdma.log; echo "FAIL: fio did not $d 8 MiB"; exit 1; }
done
windows write+verify
rchunks=$(field read_chunks) wchunks=$(field write_chunks)
[ "$rchunks" -gt 0 ] && [ "$wchunks" -gt 0 ] &&
	[ "$(field win_binds)" -ge $((rchunks + wchunks)) ] ||
	{ echo "FAIL: WRITEs and READs did not go through windowed chunks"; exit 1; }
[ "$(field regs)" = 0 ] ||
	{ echo "FAIL: chunks registered per call: fio's buffers were not registered"; exit 1; }
[ "$(stat -c %s "/export/$NAME")" = 8388608 ] ||
	{ echo "FAIL: /export/$NAME is not 8 MiB on the server's disk"; exit 1; }

# 2. the control: corrupt 4 bytes in the middle, verify must fail
printf 'XXXX' | dd of="/export/$NAME" bs=1 seek=4195000 conv=notrunc 2>/dev/null
run_fio --verify_only=1
rc=$?
[ $rc != 0 ] || { cat /tmp/fio-rdma.log; echo "FAIL: verify_only passed a corrupted file"; exit 1; }
grep -E 'verify failed|verify: bad' /tmp/fio-rdma.log | head -3
grep -Eq 'crc32c: verify failed|verify: bad' /tmp/fio-rdma.log ||
	{ cat /tmp/fio-rdma.log; echo "FAIL: fio failed, but not on the corruption (status $rc)"; exit 1; }
windows "verify of the corrupted file"
echo "fio-rdma: write+verify passed, the corrupted block refused"
