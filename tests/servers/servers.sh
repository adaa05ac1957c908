#!/usr/bin/env bash
# The one entry point to the real-server harness.
#
# usage:
#   servers.sh up RUN_DIR [ganesha] [diod]   start (default: both); reuses
#                                            any that RUN_DIR already runs
#   servers.sh down RUN_DIR                  stop all that RUN_DIR started,
#                                            in reverse order (none: fine)
#   servers.sh env RUN_DIR                   print RUN_DIR/servers.env
#   servers.sh status RUN_DIR                one line per recorded server
#   servers.sh stop RUN_DIR ganesha|diod     SIGTERM: clean stop, ports kept
#   servers.sh kill RUN_DIR ganesha|diod     SIGKILL: a crash, ports kept
#   servers.sh start RUN_DIR ganesha|diod    start again on the SAME ports
#   servers.sh restart RUN_DIR ganesha|diod  stop + start on the same ports
# (for stop/kill/start/restart the server name may also come first.)
#
# `up` installs missing packages through scripts/deps.sh servers, starts
# rpcbind only if none answers (and records that it did), then the servers
# on free ports, and writes RUN_DIR/servers.env (KEY=VALUE, sourceable by
# sh, includable by make). Keys:
#   XPRT_SERVERS_RUN_DIR
#   XPRT_RPCBIND=127.0.0.1 XPRT_RPCBIND_OURS=0|1          (with ganesha)
#   XPRT_NFS_HOST XPRT_NFS_PORT XPRT_MNT_PORT XPRT_NFS_EXPORT=/export
#   XPRT_NFS_EXPORT_DIR XPRT_NFS_URL (libnfs URL with nfsport/mountport)
#   XPRT_GANESHA_9P_HOST XPRT_GANESHA_9P_PORT XPRT_GANESHA_9P_ANAME=/export
#   XPRT_GANESHA_PIDFILE XPRT_GANESHA_LOG
#   XPRT_DIOD_HOST XPRT_DIOD_PORT XPRT_DIOD_ANAME XPRT_DIOD_EXPORT_DIR
#   XPRT_DIOD_PIDFILE
#
# XPRT_SERVERS_ADDR=A: ganesha's NFS and MOUNT and diod listen on A (an
# address of this machine, such as a veth end that clients in other
# network namespaces reach) instead of 127.0.0.1; the *_HOST keys say A.
#
# Every command holds a machine-wide lock (flock) so that harnesses of
# parallel test runs do not race on rpcbind or on ganesha's registration.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# usage [RC]: the header above; to stdout for --help (RC 0), else stderr
usage() {
	local rc=${1:-2}
	if ((rc == 0)); then
		sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'
	else
		sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//' >&2
	fi
	exit "$rc"
}

cmd=${1:-}
[[ -n $cmd ]] || usage
shift
case $cmd in -h | --help | help) usage 0 ;; esac

# Split the remaining words into RUN_DIR and server names.
run_arg="" names=()
for a in "$@"; do
	case $a in
	ganesha | diod) names+=("$a") ;;
	*)
		[[ -z $run_arg ]] || xs_die "$cmd: more than one RUN_DIR ('$run_arg', '$a')"
		run_arg=$a
		;;
	esac
done
[[ -n $run_arg ]] || xs_die "$cmd: RUN_DIR missing (see servers.sh --help)"
RUN=$(xs_run_dir "$run_arg")

write_env() {
	local f
	{
		echo "# written by tests/servers/servers.sh; sourceable by sh and make"
		echo "XPRT_SERVERS_RUN_DIR=$RUN"
		for f in rpcbind/rpcbind.env ganesha/ganesha.env diod/diod.env; do
			[[ -f $RUN/$f ]] && cat "$RUN/$f"
		done
	} >"$RUN/servers.env.tmp"
	mv "$RUN/servers.env.tmp" "$RUN/servers.env"
}

running() {
	case $1 in
	ganesha) xs_pidfile_alive "$RUN/ganesha/ganesha.pid" ganesha.nfsd ;;
	diod) xs_pidfile_alive "$RUN/diod/diod.pid" diod ;;
	esac
}

# The lock lives on fd 9 for the whole command. Daemons are started with
# 9>&- (see start-*.sh): one that inherited the fd would hold the lock for
# its lifetime and block every later command.
lock() {
	local lf=${TMPDIR:-/tmp}/libxprt-servers.lock
	exec 9>>"$lf"
	flock -w 120 9 || xs_die "could not take $lf within 120 s (another servers.sh hung?)"
}

need_names() {
	((${#names[@]})) || xs_die "$cmd: name a server (ganesha|diod)"
}

start_one() {
	if [[ $1 == ganesha ]]; then
		"$XS_HERE/start-rpcbind.sh" "$RUN"
	fi
	"$XS_HERE/start-$1.sh" "$RUN"
}

case $cmd in
up)
	((${#names[@]})) || names=(ganesha diod)
	xs_need_packages
	mkdir -p "$RUN"
	lock
	t0=$(xs_now)
	fresh=()
	# Undo what this invocation started if a later step fails, so a failed
	# `up` leaves nothing behind that `down` would not know about.
	cleanup() {
		local rc=$?
		if ((rc != 0)) && ((${#fresh[@]})); then
			xs_log "up failed: stopping what this call started (${fresh[*]})"
			"$XS_HERE/stop.sh" "$RUN" "${fresh[@]}" || true
		fi
	}
	trap cleanup EXIT
	for s in "${names[@]}"; do
		if running "$s"; then
			xs_log "$s: already running for $RUN; reusing it"
			continue
		fi
		if [[ $s == ganesha ]]; then
			had=0
			[[ -f $RUN/rpcbind/rpcbind.pid ]] && had=1
			"$XS_HERE/start-rpcbind.sh" "$RUN"
			if ((!had)) && [[ -f $RUN/rpcbind/rpcbind.pid ]]; then
				fresh=(rpcbind "${fresh[@]}")
			fi
		fi
		"$XS_HERE/start-$s.sh" "$RUN"
		fresh=("$s" "${fresh[@]}")
	done
	write_env
	trap - EXIT
	xs_log "up in $(xs_since "$t0") s; env: $RUN/servers.env"
	;;
down)
	lock
	t0=$(xs_now)
	"$XS_HERE/stop.sh" "$RUN"
	xs_log "down in $(xs_since "$t0") s"
	;;
env)
	[[ -f $RUN/servers.env ]] || xs_die "no $RUN/servers.env (run: servers.sh up $RUN)"
	cat "$RUN/servers.env"
	;;
status)
	for s in rpcbind ganesha diod; do
		f=$RUN/$s/$s.pid
		comm=$s
		[[ $s == ganesha ]] && comm=ganesha.nfsd
		if [[ -f $f ]] && xs_pid_is "$(<"$f")" "$comm"; then
			echo "$s running pid $(<"$f")"
		elif [[ $s == rpcbind ]]; then
			[[ -f $RUN/$s/$s.env ]] && xs_rpcbind_up && echo "rpcbind answering (not ours)"
		elif [[ -f $RUN/$s/$s.env ]]; then
			echo "$s stopped (ports kept)"
		fi
	done
	;;
stop | kill)
	need_names
	lock
	opt=()
	[[ $cmd == kill ]] && opt=(--kill)
	"$XS_HERE/stop.sh" "${opt[@]}" "$RUN" "${names[@]}"
	;;
start)
	need_names
	lock
	for s in "${names[@]}"; do
		[[ -f $RUN/$s/$s.env ]] ||
			xs_die "$s was never up in $RUN (no ports to reuse): use servers.sh up"
		running "$s" || start_one "$s"
	done
	write_env
	;;
restart)
	need_names
	lock
	"$XS_HERE/stop.sh" "$RUN" "${names[@]}"
	for s in "${names[@]}"; do start_one "$s"; done
	write_env
	;;
*) usage ;;
esac
