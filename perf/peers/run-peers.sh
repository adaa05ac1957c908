#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# usage: perf/peers/run-peers.sh RUN_DIR [SECONDS=5] [BIN_DIR]
#
# Run the standard peer workloads against the servers that
# `tests/servers/servers.sh up RUN_DIR` started, and print one RESULT line
# per run (the peer's own line plus server=NAME server_cpu_pct=P: the
# server's user+system CPU over the run, in % of one core, from
# /proc/PID/stat). BIN_DIR defaults to build/plain/bench/peers (built here
# if missing). Creates 64 MiB bench files in the export directories once.
# Client and server share the machine's cores: read the numbers together.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then # the comment above
	sed -n '3,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"
	exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
RUN=${1:?usage: run-peers.sh RUN_DIR [SECONDS] [BIN_DIR]}
SECS=${2:-5}
BIN=${3:-$repo/build/plain/bench/peers}
[[ -f $RUN/servers.env ]] || { echo "run-peers: no $RUN/servers.env (servers.sh up first)" >&2; exit 1; }
# shellcheck disable=SC1091
. "$RUN/servers.env"
[[ -x $BIN/peer_p9 ]] || make -s -C "$here" O="$BIN"
TCK=$(getconf CLK_TCK)

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run SERVER PIDFILE CMD...: one peer run, RESULT line + server CPU
run() {
	local server=$1 pid t0 t1 s0 s1 out
	pid=$(<"$2")
	shift 2
	s0=$(ticks "$pid")
	t0=$(date +%s.%N)
	out=$("$@" 2>/dev/null | grep '^RESULT') || {
		echo "run-peers: FAILED: $*" >&2
		return 1
	}
	t1=$(date +%s.%N)
	s1=$(ticks "$pid")
	awk -v o="$out" -v s="$server" -v d=$((s1 - s0)) -v tck="$TCK" -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%s server=%s server_cpu_pct=%.0f\n", o, s, 100 * d / tck / (b - a) }'
}

mkfile() { [[ -f $1 && $(stat -c %s "$1") == 67108864 ]] || head -c 64M /dev/urandom >"$1"; }

if [[ -n ${XPRT_NFS_PORT:-} ]]; then
	mkfile "$XPRT_NFS_EXPORT_DIR/bench64m.dat"
	cat "$XPRT_NFS_EXPORT_DIR/bench64m.dat" >/dev/null # page cache
	G=$XPRT_GANESHA_PIDFILE
	N=(--nfsport "$XPRT_NFS_PORT" --mountport "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT" --seconds "$SECS")
	run ganesha "$G" "$BIN/peer_tirpc_null" --port "$XPRT_NFS_PORT" --seconds "$SECS"
	run ganesha "$G" "$BIN/peer_tirpc_null" --port "$XPRT_NFS_PORT" --auth sys --seconds "$SECS"
	for d in 1 16; do
		run ganesha "$G" "$BIN/peer_libnfs" "${N[@]}" --mode null --depth $d
	done
	for d in 1 16; do
		run ganesha "$G" "$BIN/peer_libnfs" "${N[@]}" --mode randread --bs 4k --depth $d --file /bench64m.dat
	done
	run ganesha "$G" "$BIN/peer_libnfs" "${N[@]}" --mode seqread --bs 1m --depth 4 --file /bench64m.dat
	run ganesha "$G" "$BIN/peer_libnfs" "${N[@]}" --mode seqwrite --bs 1m --depth 4 --file /peerwrite.dat --size 64m
	for d in 1 16; do
		run ganesha "$G" "$BIN/peer_p9" --depth $d --seconds "$SECS" \
			"$XPRT_GANESHA_9P_HOST" "$XPRT_GANESHA_9P_PORT" "$XPRT_GANESHA_9P_ANAME" bench64m.dat
	done
fi
if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	mkfile "$XPRT_DIOD_EXPORT_DIR/bench64m.dat"
	cat "$XPRT_DIOD_EXPORT_DIR/bench64m.dat" >/dev/null
	for d in 1 16; do
		run diod "$XPRT_DIOD_PIDFILE" "$BIN/peer_p9" --depth $d --seconds "$SECS" \
			"$XPRT_DIOD_HOST" "$XPRT_DIOD_PORT" "$XPRT_DIOD_ANAME" bench64m.dat
	done
fi
