#!/usr/bin/env bash
# usage: start-rpcbind.sh RUN_DIR
#
# Make sure a portmapper answers on 127.0.0.1:111 (ganesha 4.3 exits with
# "Cannot register NFS V3 on TCP" without one). If one already answers it is
# reused and NOT recorded as ours, so `stop.sh` will leave it alone. If we
# start it, its pid goes to RUN_DIR/rpcbind/rpcbind.pid and "rpcbind" is
# appended to RUN_DIR/started. Writes RUN_DIR/rpcbind/rpcbind.env.
# Normally called through servers.sh, which holds the harness lock.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[[ $# == 1 ]] || xs_die "usage: ${0##*/} RUN_DIR"
RUN=$(xs_run_dir "$1")
D=$RUN/rpcbind
mkdir -p "$D"

write_env() {
	printf 'XPRT_RPCBIND=127.0.0.1\nXPRT_RPCBIND_OURS=%s\n' "$1" >"$D/rpcbind.env"
}

if xs_pidfile_alive "$D/rpcbind.pid" rpcbind && xs_rpcbind_up; then
	xs_log "rpcbind: ours (pid $(<"$D/rpcbind.pid")) already running"
	write_env 1
	exit 0
fi
if xs_rpcbind_up; then
	xs_log "rpcbind: one already answers on 127.0.0.1:111; reusing it (not ours: will not stop it)"
	rm -f "$D/rpcbind.pid"
	write_env 0
	exit 0
fi
command -v rpcbind >/dev/null || xs_die "rpcbind not installed (run scripts/deps.sh servers)"

# rpcbind keeps its socket and warm-start state here and runs as _rpc.
install -d -m 0755 /run/rpcbind
if id _rpc >/dev/null 2>&1; then chown _rpc /run/rpcbind; fi
# -f: stay in the foreground so $! is the daemon itself (pid file is exact).
rpcbind -f </dev/null >"$D/rpcbind.out" 2>&1 9>&- &
pid=$!
echo "$pid" >"$D/rpcbind.pid"
for ((i = 0; i < 100; i++)); do
	xs_rpcbind_up && break
	xs_pid_alive "$pid" || break
	sleep 0.05
done
if ! xs_pid_alive "$pid"; then
	rm -f "$D/rpcbind.pid"
	# Another harness may have started one between our check and ours.
	if xs_rpcbind_up; then
		xs_log "rpcbind: another one came up meanwhile; reusing it (not ours)"
		write_env 0
		exit 0
	fi
	cat "$D/rpcbind.out" >&2
	xs_die "rpcbind exited at start (is port 111 taken by something else? ss -ltnp 'sport = :111')"
fi
if ! xs_rpcbind_up; then
	xs_stop_pidfile "$D/rpcbind.pid" rpcbind 2
	xs_die "rpcbind (pid $pid) did not answer on 127.0.0.1:111 within 5 s"
fi
grep -qx rpcbind "$RUN/started" 2>/dev/null || echo rpcbind >>"$RUN/started"
write_env 1
xs_log "rpcbind: started pid $pid"
