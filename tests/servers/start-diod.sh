#!/usr/bin/env bash
# usage: start-diod.sh RUN_DIR
#
# Start diod (9P2000.L) on 127.0.0.1 (or XPRT_SERVERS_ADDR) at a free TCP
# port, exporting RUN_DIR/diod-export (its absolute path is also the 9P
# aname). The address and port are kept in RUN_DIR/diod/diod.env so a
# restart in the same RUN_DIR reuses them.
# Env: XPRT_DIOD_THREADS (16), XPRT_DIOD_DEBUG=1 to log every 9P message,
#      XPRT_SERVERS_ADDR (lib.sh: xs_bind_addr).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[[ $# == 1 ]] || xs_die "usage: ${0##*/} RUN_DIR"
RUN=$(xs_run_dir "$1")
D=$RUN/diod
EXPORT_DIR=$RUN/diod-export

command -v diod >/dev/null || xs_die "diod not installed (run scripts/deps.sh servers)"
mkdir -p "$D" "$EXPORT_DIR"
if xs_pidfile_alive "$D/diod.pid" diod; then
	xs_die "diod for $RUN already running (pid $(<"$D/diod.pid")); stop it first"
fi
if [[ -f $D/diod.env ]]; then
	# shellcheck disable=SC1091
	. "$D/diod.env"
	PORT=$XPRT_DIOD_PORT
	ADDR=$(xs_bind_addr "$XPRT_DIOD_HOST")
	xs_log "diod: restarting on the recorded address $ADDR:$PORT"
else
	PORT=$(xs_pick_ports 1)
	ADDR=$(xs_bind_addr)
fi
if xs_port_busy_after "$PORT" 10; then
	ss -Hltnp "( sport = :$PORT )" >&2
	xs_die "diod: TCP port $PORT is already in use by another process"
fi

opts=()
[[ ${XPRT_DIOD_DEBUG:-0} == 1 ]] && opts+=(-d 1)
t0=$(xs_now)
# -f foreground ($! is diod itself), -n no MUNGE auth (n_uname is trusted),
# -c /dev/null ignore /etc/diod.conf, -t worker threads. The export path
# must be absolute: diod answers a relative aname with EPERM.
diod -f -n -c /dev/null -l "$ADDR:$PORT" -e "$EXPORT_DIR" \
	-t "${XPRT_DIOD_THREADS:-16}" -L "$D/diod.log" "${opts[@]}" \
	</dev/null >>"$D/diod.out" 2>&1 9>&- &
pid=$!
echo "$pid" >"$D/diod.pid"
if ! xs_wait_listen "$PORT" "$pid" 20; then
	cat "$D/diod.out" "$D/diod.log" >&2 2>/dev/null || true
	xs_stop_pidfile "$D/diod.pid" diod 1 KILL
	xs_die "diod did not come up on $ADDR:$PORT"
fi
cat >"$D/diod.env" <<ENV
XPRT_DIOD_HOST=$ADDR
XPRT_DIOD_PORT=$PORT
XPRT_DIOD_ANAME=$EXPORT_DIR
XPRT_DIOD_EXPORT_DIR=$EXPORT_DIR
XPRT_DIOD_PIDFILE=$D/diod.pid
ENV
grep -qx diod "$RUN/started" 2>/dev/null || echo diod >>"$RUN/started"
xs_log "diod: pid $pid up in $(xs_since "$t0") s: 9P2000.L $ADDR:$PORT aname $EXPORT_DIR"
