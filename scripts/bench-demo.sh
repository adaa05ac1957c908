#!/usr/bin/env bash
# make demo: start nfs-ganesha on loopback in a RUN_DIR of our own, run two
# short nfs3-bench workloads against it, print their reports, and stop the
# server whatever happens.  About 15 s once built.
#
# usage: scripts/bench-demo.sh [BUILD_DIR]    (default build/plain)
# The Makefile's demo target installs the packages and builds first.
set -euo pipefail
BL_NAME=demo
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
O=${1:-build/plain}
[[ $O == /* ]] || O=$BL_TOP/$O
BENCH=$O/bench/nfs3-bench
[[ -x $BENCH ]] || bl_die "$BENCH is missing (make demo builds it)"
trap bl_servers_down EXIT
trap 'exit 130' INT TERM

bl_log "starting nfs-ganesha on 127.0.0.1 (run dir $O/demo-run)"
bl_servers_up "$O/demo-run"
bl_log "ganesha serves $XPRT_NFS_EXPORT (NFSv3 port $XPRT_NFS_PORT, MOUNT port $XPRT_MNT_PORT) from $XPRT_NFS_EXPORT_DIR"
SRV=(--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT"
	--export "$XPRT_NFS_EXPORT")

echo
echo "=== 4 KiB random reads, 16 in flight, 4 s (a 64 MiB file is laid out first)"
echo "    \$ nfs3-bench --server $XPRT_NFS_HOST:$XPRT_NFS_PORT --mount-port $XPRT_MNT_PORT --export $XPRT_NFS_EXPORT \\"
echo "          --rw randread --bs 4k --iodepth 16 --size 64m --time_based --runtime 4"
echo
"$BENCH" "${SRV[@]}" --name demo --rw randread --bs 4k --iodepth 16 --size 64m \
	--time_based --runtime 4 --eta never

echo
echo "=== 1 MiB sequential writes, 4 in flight, 4 s (UNSTABLE, COMMIT at the end)"
echo "    \$ nfs3-bench ... --rw write --bs 1m --iodepth 4 --size 256m --time_based --runtime 4"
echo
"$BENCH" "${SRV[@]}" --name demo-write --rw write --bs 1m --iodepth 4 \
	--size 256m --time_based --runtime 4 --eta never

rm -f "$XPRT_NFS_EXPORT_DIR"/demo.0.0 "$XPRT_NFS_EXPORT_DIR"/demo-write.0.0
echo
bl_log "done; stopping ganesha (man nfs3-bench, or docs/man/nfs3-bench.1, for more)"
