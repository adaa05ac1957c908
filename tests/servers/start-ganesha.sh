#!/usr/bin/env bash
# usage: start-ganesha.sh RUN_DIR
#
# Start nfs-ganesha (VFS FSAL) serving RUN_DIR/ganesha-export as pseudo path
# /export over NFSv3 + MOUNT (TCP, 127.0.0.1 or XPRT_SERVERS_ADDR) and
# 9P2000.L (TCP, wildcard).  A portmapper must answer already
# (start-rpcbind.sh).
#
# Ports are picked free the first time and kept in RUN_DIR/ganesha/ganesha.env;
# a later start in the same RUN_DIR (after `servers.sh kill|stop ganesha`)
# reuses them and the address, so clients can reconnect to the same
# address. stop.sh of the whole RUN_DIR forgets them.
#
# Env: XPRT_GANESHA_SHARE_RPCBIND=1 start even if another live NFS server is
#      registered with rpcbind (ganesha re-registers over it, and removes the
#      registration when it stops: the other server's rpcbind clients break).
#      XPRT_SERVERS_ADDR: the address NFS and MOUNT bind (lib.sh: xs_bind_addr).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[[ $# == 1 ]] || xs_die "usage: ${0##*/} RUN_DIR"
RUN=$(xs_run_dir "$1")
D=$RUN/ganesha
EXPORT_DIR=$RUN/ganesha-export
PSEUDO=/export
NFS_PROG=100003

if ! command -v ganesha.nfsd >/dev/null ||
	[[ ! -e /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so ]]; then
	xs_die "nfs-ganesha / nfs-ganesha-vfs not installed (run scripts/deps.sh servers)"
fi
mkdir -p "$D" "$EXPORT_DIR"

if xs_pidfile_alive "$D/ganesha.pid" ganesha.nfsd; then
	xs_die "ganesha for $RUN already running (pid $(<"$D/ganesha.pid")); stop it first"
fi
xs_rpcbind_up || xs_die "no rpcbind on 127.0.0.1:111 (ganesha cannot run without one): run start-rpcbind.sh first"

if [[ -f $D/ganesha.env ]]; then
	# shellcheck disable=SC1091
	. "$D/ganesha.env"
	NFS_PORT=$XPRT_NFS_PORT MNT_PORT=$XPRT_MNT_PORT P9_PORT=$XPRT_GANESHA_9P_PORT
	ADDR=$(xs_bind_addr "$XPRT_NFS_HOST")
	xs_log "ganesha: restarting on the recorded address $ADDR, ports nfs=$NFS_PORT mnt=$MNT_PORT 9p=$P9_PORT"
else
	read -r NFS_PORT MNT_PORT P9_PORT < <(xs_pick_ports 3)
	ADDR=$(xs_bind_addr)
fi
for p in "$NFS_PORT" "$MNT_PORT" "$P9_PORT"; do
	if xs_port_busy_after "$p" 10; then
		ss -Hltnp "( sport = :$p )" >&2
		xs_die "ganesha: TCP port $p is already in use by another process"
	fi
done

# ganesha unsets and re-sets the NFS and MOUNT registrations at start and
# unsets them at stop, whoever owned them: two ganeshas cannot share one
# rpcbind. Refuse if a live server holds the registration; a stale one (its
# port no longer listens, e.g. after a SIGKILL) is simply overwritten.
reg=$(xs_rpcbind_port $NFS_PROG 3)
if [[ -n $reg && $reg != "$NFS_PORT" ]] && xs_port_busy "$reg"; then
	owner=$(ss -Hltnp "( sport = :$reg )" | grep -o 'users:.*' | head -1)
	opid=$(xs_listen_pids "$reg" | head -1)
	conf=""
	if [[ -n $opid ]]; then
		conf=$(tr '\0' ' ' <"/proc/$opid/cmdline" 2>/dev/null | grep -o -- '-f [^ ]*' || true)
	fi
	msg="another NFS server is registered with rpcbind for NFSv3 on port $reg ($owner${conf:+ $conf})."
	msg+=" Only one ganesha can register with rpcbind at a time: stop it first"
	msg+=" (tests/servers/servers.sh down ITS_RUN_DIR), or set XPRT_GANESHA_SHARE_RPCBIND=1 to take the registration over"
	if [[ ${XPRT_GANESHA_SHARE_RPCBIND:-0} == 1 ]]; then
		xs_log "WARNING: $msg (XPRT_GANESHA_SHARE_RPCBIND=1: taking it over)"
	else
		xs_die "$msg"
	fi
fi

sed -e "s|@EXPORT_DIR@|$EXPORT_DIR|g" -e "s|@PSEUDO@|$PSEUDO|g" \
	-e "s|@BIND_ADDR@|$ADDR|g" \
	-e "s|@NFS_PORT@|$NFS_PORT|g" -e "s|@MNT_PORT@|$MNT_PORT|g" \
	-e "s|@P9_PORT@|$P9_PORT|g" "$XS_HERE/ganesha.conf.in" >"$D/ganesha.conf"

t0=$(xs_now)
# -F: foreground, so $! is the server itself and our pid file is exact
# (ganesha writes its own copy to ganesha.nfsd.pid). cd so any stray
# relative output lands in the run directory.
(cd "$D" && exec ganesha.nfsd -F -f "$D/ganesha.conf" -L "$D/ganesha.log" \
	-p "$D/ganesha.nfsd.pid" -N NIV_EVENT </dev/null >>"$D/ganesha.out" 2>&1 9>&-) &
pid=$!
echo "$pid" >"$D/ganesha.pid"

ok=0
if xs_wait_listen "$NFS_PORT" "$pid" 30 && xs_wait_listen "$MNT_PORT" "$pid" 10 &&
	xs_wait_listen "$P9_PORT" "$pid" 10; then
	for ((i = 0; i < 200; i++)); do
		if [[ $(xs_rpcbind_port $NFS_PROG 3) == "$NFS_PORT" ]] &&
			rpcinfo -n "$NFS_PORT" -t "$ADDR" $NFS_PROG 3 >/dev/null 2>&1; then
			ok=1
			break
		fi
		xs_pid_alive "$pid" || break
		sleep 0.05
	done
fi
if ((!ok)); then
	xs_log "ganesha failed to start; last log lines:"
	grep -vE 'DBUS|credentials for principal|krb5|keytab|RADOS' "$D/ganesha.log" | tail -15 >&2 || true
	tail -5 "$D/ganesha.out" >&2 || true
	xs_stop_pidfile "$D/ganesha.pid" ganesha.nfsd 1 KILL
	xs_die "ganesha did not come up (nfs $NFS_PORT, mount $MNT_PORT, 9p $P9_PORT); log: $D/ganesha.log"
fi

cat >"$D/ganesha.env" <<ENV
XPRT_NFS_HOST=$ADDR
XPRT_NFS_PORT=$NFS_PORT
XPRT_MNT_PORT=$MNT_PORT
XPRT_NFS_EXPORT=$PSEUDO
XPRT_NFS_EXPORT_DIR=$EXPORT_DIR
XPRT_NFS_URL='nfs://$ADDR$PSEUDO?nfsport=$NFS_PORT&mountport=$MNT_PORT'
XPRT_GANESHA_9P_HOST=$ADDR
XPRT_GANESHA_9P_PORT=$P9_PORT
XPRT_GANESHA_9P_ANAME=$PSEUDO
XPRT_GANESHA_PIDFILE=$D/ganesha.pid
XPRT_GANESHA_LOG=$D/ganesha.log
ENV
grep -qx ganesha "$RUN/started" 2>/dev/null || echo ganesha >>"$RUN/started"
xs_log "ganesha: pid $pid up in $(xs_since "$t0") s: NFSv3 $ADDR:$NFS_PORT MOUNT :$MNT_PORT 9P *:$P9_PORT export $PSEUDO -> $EXPORT_DIR"
