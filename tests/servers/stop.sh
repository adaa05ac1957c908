#!/usr/bin/env bash
# usage: stop.sh [--kill] RUN_DIR [rpcbind|ganesha|diod ...]
#
# Without server names: stop everything RUN_DIR/started recorded, in reverse
# order of start, then forget the RUN_DIR's ports and env files (logs and
# export directories stay for inspection). Stopping nothing is fine.
# With names: stop just those and keep their recorded ports, so a later
# start-*.sh on the same RUN_DIR brings them back on the same addresses.
#
# Only pids from RUN_DIR's own pid files are signalled, and only while
# /proc/PID/comm still names the expected program.
#
# Default stop: SIGTERM, wait until the server has closed its listeners (for
# ganesha: NFS + MOUNT, and its rpcbind registration - within ~50 ms),
# then give it XPRT_STOP_GRACE seconds (default 0.3) to exit before SIGKILL.
# A full clean exit takes ganesha 2-5 s and diod 1-2 s of idle thread
# teardown that guards nothing on disk (both write straight to the export
# directory), so waiting for it would only slow every test run down.
# --kill: SIGKILL at once, like a crash; ganesha's rpcbind registrations stay
# behind (a restarted ganesha overwrites them).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kill_now=0
if [[ ${1:-} == --kill ]]; then
	kill_now=1
	shift
fi
[[ $# -ge 1 ]] || xs_die "usage: ${0##*/} [--kill] RUN_DIR [rpcbind|ganesha|diod ...]"
RUN=$(xs_run_dir "$1")
shift
GRACE=${XPRT_STOP_GRACE:-0.3}

# stop_server NAME COMM PIDFILE ENVFILE PORTVARS...
stop_server() {
	local name=$1 comm=$2 pidfile=$3 envfile=$4 pid i p busy
	shift 4
	[[ -f $pidfile ]] || return 0
	pid=$(<"$pidfile")
	if ! xs_pid_is "$pid" "$comm"; then
		xs_log "$name: not running (stale pid '$pid')"
		rm -f "$pidfile"
		return 0
	fi
	if ((kill_now)); then
		xs_log "$name: SIGKILL pid $pid"
		xs_stop_pidfile "$pidfile" "$comm" 2 KILL
		return 0
	fi
	local ports=()
	if [[ -f $envfile ]]; then
		for p in "$@"; do
			ports+=("$(sed -n "s/^$p=//p" "$envfile")")
		done
	fi
	local t0
	t0=$(xs_now)
	kill -TERM "$pid" 2>/dev/null || true
	# wait (max 5 s) until the listeners are closed and registrations gone
	for ((i = 0; i < 100; i++)); do
		xs_pid_alive "$pid" || break
		busy=0
		for p in "${ports[@]}"; do
			[[ -n $p ]] && xs_port_owned_by "$p" "$pid" && busy=1
		done
		if [[ $name == ganesha && -n ${ports[0]:-} &&
			$(xs_rpcbind_port 100003 3) == "${ports[0]}" ]]; then
			busy=1
		fi
		((busy)) || break
		sleep 0.05
	done
	if xs_pid_alive "$pid"; then
		xs_stop_pidfile "$pidfile" "$comm" "$GRACE" TERM
	else
		rm -f "$pidfile"
	fi
	xs_log "$name: pid $pid stopped in $(xs_since "$t0") s"
}

stop_rpcbind() {
	local pidfile=$RUN/rpcbind/rpcbind.pid p users=""
	[[ -f $pidfile ]] || return 0
	xs_pidfile_alive "$pidfile" rpcbind || {
		rm -f "$pidfile"
		return 0
	}
	# Someone else's live server still registered with the rpcbind we
	# started (another RUN_DIR's ganesha): stopping it would break their
	# rpcbind lookups. Stale entries (nothing listens there) do not count.
	while read -r prog port; do
		if xs_port_busy "$port"; then users+=" $prog@$port"; fi
	done < <(rpcinfo -p 127.0.0.1 2>/dev/null | awk 'NR > 1 && $1 != 100000 { print $1, $4 }' | sort -u)
	if [[ -n $users ]]; then
		xs_log "rpcbind: started by this RUN_DIR but still serving live registrations ($users); leaving it running"
		rm -f "$pidfile"
		return 0
	fi
	xs_stop_pidfile "$pidfile" rpcbind 3 TERM
	xs_log "rpcbind: stopped"
}

stop_one() {
	case $1 in
	# ganesha drops its NFS/MOUNT listeners and rpcbind entries within
	# ~50 ms of SIGTERM but keeps the 9P listener until its final exit
	# (2-5 s later): wait for the first two only.
	ganesha) stop_server ganesha ganesha.nfsd "$RUN/ganesha/ganesha.pid" \
		"$RUN/ganesha/ganesha.env" XPRT_NFS_PORT XPRT_MNT_PORT ;;
	diod) stop_server diod diod "$RUN/diod/diod.pid" "$RUN/diod/diod.env" XPRT_DIOD_PORT ;;
	rpcbind) stop_rpcbind ;;
	*) xs_die "unknown server '$1' (rpcbind|ganesha|diod)" ;;
	esac
}

[[ -d $RUN ]] || exit 0
if (($#)); then
	for s in "$@"; do stop_one "$s"; done
	exit 0
fi
if [[ -f $RUN/started ]]; then
	mapfile -t started < <(tac "$RUN/started")
	for s in "${started[@]}"; do
		[[ -n $s ]] && stop_one "$s"
	done
fi
# Anything with a pid file but not in `started` (interrupted start) too.
for s in diod ganesha rpcbind; do stop_one "$s"; done
rm -f "$RUN/started" "$RUN/servers.env" "$RUN/ganesha/ganesha.env" \
	"$RUN/diod/diod.env" "$RUN/rpcbind/rpcbind.env"
