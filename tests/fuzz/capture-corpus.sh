#!/usr/bin/env bash
# Rebuild the seed corpus of tests/fuzz from real replies of nfs-ganesha.
#
# usage: tests/fuzz/capture-corpus.sh [OUTDIR]   (default tests/fuzz/corpus)
#
# Starts the test servers in a run directory of its own, captures the
# NFS, MOUNT and 9P ports on lo with dumpcap while the NFSv3 integration
# test (every procedure, success and error replies) runs against
# ganesha and the 9P one against diod and ganesha, and turns the
# messages into seeds (pcap2corpus.py).  The
# seeds are small files committed to the repository; run this again
# when a decoder learns something new.  Needs root (capture) and the
# `wire` and `servers` dependency groups.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/tests/fuzz/corpus}
o=$top/build/plain
run=${XPRT_RUN_DIR:-/tmp/xprt-corpus-$$}
"$top/scripts/deps.sh" --check wire servers >/dev/null 2>&1 ||
	"$top/scripts/deps.sh" wire servers
make -C "$top" -s build/plain/tests/integration/test_nfs3_procs \
	build/plain/tests/integration/test_p9_real

# shellcheck source=../integration/tshark-lib.sh
. "$top/tests/integration/tshark-lib.sh"
cleanup() {
	cap_stop
	"$top/tests/servers/servers.sh" down "$run" >/dev/null 2>&1 || true
}
trap cleanup EXIT
XPRT_GANESHA_SHARE_RPCBIND=1 "$top/tests/servers/servers.sh" up "$run" >/dev/null
set -a
. "$run/servers.env"
set +a
pcap=$run/corpus.pcapng
cap_start "$pcap" "tcp port $XPRT_NFS_PORT or tcp port $XPRT_MNT_PORT or \
tcp port $XPRT_GANESHA_9P_PORT or tcp port $XPRT_DIOD_PORT"
cap_sentinel "$XPRT_MNT_PORT"
"$o/tests/integration/test_nfs3_procs" >"$run/workload.log" 2>&1 || {
	echo "capture-corpus: the workload failed:" >&2
	tail -20 "$run/workload.log" >&2
	exit 1
}
"$o/tests/integration/test_p9_real" >"$run/workload-p9.log" 2>&1 || {
	echo "capture-corpus: the 9P workload failed:" >&2
	tail -20 "$run/workload-p9.log" >&2
	exit 1
}
cap_stop
tmp=$(mktemp -d)
python3 "$top/tests/fuzz/pcap2corpus.py" "$pcap" "$tmp" \
	--p9-port "$XPRT_GANESHA_9P_PORT" --p9-port "$XPRT_DIOD_PORT"
for d in "$tmp"/*; do
	rm -rf "${out:?}/${d##*/}"
	mkdir -p "$out"
	mv "$d" "$out/"
done
rmdir "$tmp"
echo "capture-corpus: seeds in $out"
