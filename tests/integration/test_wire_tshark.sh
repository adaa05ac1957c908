#!/usr/bin/env bash
# Wire conformance: what our client puts on the wire, as Wireshark sees it.
#
# Captures the NFS and MOUNT ports of the test ganesha on lo (dumpcap,
# capture filter on the ports of servers.env, so other helpers' servers
# are not seen) while a workload runs through our client:
#   - rpcping: NULL calls to NFS and MOUNT, 4 in flight
#   - test_nfs3_procs: every NFSv3 procedure and MOUNT MNT/DUMP/UMNT/
#     UMNTALL/EXPORT, success and error replies, sync and async
#   - nfs3-soak --short, when built: UNSTABLE WRITEs of up to 1 MiB,
#     COMMIT, READs, i.e. records spanning many TCP segments
# then dissects the capture (wire_check.py) and requires: no malformed
# frame, no expert error, every call answered, and each of the 22 NFSv3
# procedures and the MOUNT ones above seen as calls.
#
# Run by `make integration` (scripts/run-integration.sh exports
# servers.env).  Needs root for the capture and the `wire` deps group.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
o=${XPRT_BUILD_DIR:-$top/build/plain}
: "${XPRT_NFS_PORT:?run through make integration}" "${XPRT_MNT_PORT:?}"
"$top/scripts/deps.sh" --check wire >/dev/null 2>&1 || "$top/scripts/deps.sh" wire

# shellcheck source=tshark-lib.sh
. "$top/tests/integration/tshark-lib.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/xprt-wire.XXXXXX")
trap 'cap_stop; rm -rf "$dir"' EXIT
pcap=$dir/wire.pcapng

# workload NAME CMD...: CMD must succeed, else the test ends here (its
# status checked: capture_once runs as "capture_once || rc=$?", where
# set -e does not apply)
workload() {
	local name=$1 rc=0
	shift
	"$@" >"$dir/$name.log" 2>&1 || rc=$?
	((rc == 0)) && return 0
	echo "workload $name failed (exit status $rc):"
	tail -30 "$dir/$name.log"
	exit 1
}

# One capture of the whole workload.  Returns wire_check.py's status:
# 0 conforming, 1 not, 3 inconclusive (the capture itself missed bytes).
# Every command's status is checked by hand: called in an || list,
# the function runs without set -e.
capture_once() {
	cap_start "$pcap" "tcp port $XPRT_NFS_PORT or tcp port $XPRT_MNT_PORT" ||
		exit 1
	cap_sentinel "$XPRT_MNT_PORT"
	workload rpcping-nfs "$o/examples/rpcping" -q -c 200 -d 4 \
		-p "$XPRT_NFS_PORT" "$XPRT_NFS_HOST" 100003 3
	workload rpcping-mount "$o/examples/rpcping" -q -c 50 \
		-p "$XPRT_MNT_PORT" "$XPRT_NFS_HOST" 100005 3
	workload test_nfs3_procs "$o/tests/integration/test_nfs3_procs"
	if [[ -x $o/tests/soak/nfs3-soak ]]; then
		workload nfs3-soak "$o/tests/soak/nfs3-soak" --short
	fi
	cap_stop
	ls -l "$pcap"
	if ! cap_seen "$pcap" "$XPRT_MNT_PORT"; then
		echo "the capture started after the workload: cannot judge it"
		return 3
	fi
	dropped=$(cap_dropped "$pcap")
	if [[ ${dropped:-0} != 0 ]]; then
		echo "the capture dropped $dropped packets: cannot judge the streams"
		cat "$pcap.dumpcap.log"
		return 3
	fi
	python3 "$top/tests/integration/wire_check.py" "$pcap" "$XPRT_NFS_PORT" \
		"$XPRT_MNT_PORT" -- "${req[@]}"
}

req=()
for p in $(seq 0 21); do req+=("100003:$p"); done
for p in 0 1 2 3 4 5; do req+=("100005:$p"); done

# A loaded machine's capture sometimes misses a segment: such a capture
# is run again (three tries); a capture that saw everything is judged.
for try in 1 2 3; do
	rc=0
	capture_once || rc=$?
	[[ $rc == 3 ]] || exit "$rc"
	echo "capture $try was incomplete; capturing again"
done
echo "wire: three captures in a row were incomplete"
exit 1
