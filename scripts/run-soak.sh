#!/usr/bin/env bash
# Fault soak: NFSv3 and 9P data integrity while the server is killed and
# restarted.
#
# usage: run-soak.sh BUILDDIR SECONDS
#   Starts the test servers (own run dir), runs nfs3-soak (tests/soak) for
#   SECONDS while ganesha is SIGKILLed every 2-4 s and started again on
#   the same ports, then checks every acknowledged (committed) generation
#   through two other paths: the export directory on disk and libnfs's
#   nfs-cat.  With nfs3-bench built, also runs its verify workloads under
#   the same kill loop.  Then p9-bench's verify workloads against diod,
#   SIGKILLed and restarted the same way: random reads and writes for
#   SECONDS, sequential writes (one in flight per job) for SECONDS/2
#   whose files are then checked on disk (scripts/check-pattern.py).
#   Each must exit 0 with its sessions re-established after the
#   restarts, no I/O completed twice, and VmRSS at the end within 24 MiB
#   of VmRSS at the first reconnect.
#
# The faults must have happened: in each run, at least one kill per 10 s
# of its length (one at the least), a kill being a server process that
# was running and then was gone, and each killed server running again
# after it; and the client must have seen them (nfs3-soak and nfs3-bench:
# connections lost, p9-bench: sessions re-established).
#
# The pause between kill and start is 1.5 s for ganesha: it derives its
# write verifier from its start time in seconds, so a restart within ~1 s
# of the previous start reuses the verifier and the client cannot know
# that unstable data was lost - ganesha's fault, not a client bug.  diod
# has no such state: 1 s.
set -uo pipefail
o=$1 secs=$2
top=$(cd "$(dirname "$0")/.." && pwd)
run=${XPRT_RUN_DIR:-/tmp/xprt-soak-$$}
servers=$top/tests/servers/servers.sh
export XPRT_GANESHA_SHARE_RPCBIND=${XPRT_GANESHA_SHARE_RPCBIND:-1}
# a small quarantine: ASan keeps freed memory (256 MiB by default), which
# would read as growth to the RSS check
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=1 quarantine_size_mb=4 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$top/tests/tsan.supp ${TSAN_OPTIONS:-}"
logdir=$o/test-logs
mkdir -p "$logdir"
log=$logdir/soak.log

cleanup() { "$servers" down "$run" >/dev/null 2>&1 || true; }
trap cleanup EXIT
if ! "$servers" up "$run" >"$logdir/soak-servers-up.log" 2>&1; then
	echo "soak: could not start the servers" >&2
	tail -20 "$logdir/soak-servers-up.log" >&2
	exit 1
fi
set -a
. "$run/servers.env"
set +a

# alive PID: PID runs (and is not a zombie)
alive() {
	[[ -r /proc/$1/stat ]] && [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) != [ZX] ]]
}

# server_pid SERVER: the pid in SERVER's pid file, if it runs
server_pid() {
	local pid
	pid=$(cat "$run/$1/$1.pid" 2>/dev/null) && [[ -n $pid ]] && alive "$pid" &&
		echo "$pid"
}

# killer SERVER PAUSE STOP COUNT: SIGKILL SERVER (through its pid file)
# every 2-4 s and start it again PAUSE seconds later on the same ports,
# until the file STOP exists.  The file COUNT says "KILLS RESTARTS": a
# kill counts when the process that ran is gone after it, a restart when
# a new one runs.
killer() {
	local server=$1 pause=$2 stop=$3 count=$4 kills=0 restarts=0 pid i killed
	echo "0 0" >"$count"
	while [[ ! -e $stop ]]; do
		sleep "$((2 + RANDOM % 3))"
		[[ -e $stop ]] && break
		killed=0
		if pid=$(server_pid "$server"); then
			"$servers" kill "$run" "$server" >>"$log.servers" 2>&1
			for ((i = 0; i < 40; i++)); do
				alive "$pid" || break
				sleep 0.05
			done
			if alive "$pid"; then
				echo "soak: $server (pid $pid) survived SIGKILL" >&2
			else
				killed=1 kills=$((kills + 1))
			fi
		else
			echo "soak: $server was not running when its kill came" >&2
		fi
		sleep "$pause"
		"$servers" start "$run" "$server" >>"$log.servers" 2>&1
		if ! server_pid "$server" >/dev/null; then
			echo "soak: $server did not start again" >&2
		elif ((killed)); then
			restarts=$((restarts + 1))
		fi
		echo "$kills $restarts" >"$count"
	done
}

# soak_under_kills SERVER PAUSE NAME SECS COMMAND...: run COMMAND (SECS
# long; its output in $logdir/NAME.log) while killer SERVER PAUSE runs;
# fails when COMMAND does, or when fewer than one kill per 10 s (one at
# the least) happened or a killed server did not come back.  The kills
# are left in $run/NAME.restarts
soak_under_kills() {
	local server=$1 pause=$2 name=$3 secs=$4 rc kpid kills restarts want
	local stop=$run/$name.stop count=$run/$name.restarts
	shift 4
	rm -f "$stop" "$count"
	killer "$server" "$pause" "$stop" "$count" &
	kpid=$!
	"$@" >"$logdir/$name.log" 2>&1
	rc=$?
	touch "$stop"
	wait "$kpid"
	"$servers" status "$run" 2>/dev/null | grep -q "$server.*running" ||
		"$servers" start "$run" "$server" >>"$log.servers" 2>&1
	read -r kills restarts <"$count"
	want=$((secs / 10 > 1 ? secs / 10 : 1))
	echo "$name: exit $rc, $server killed $kills times and running again $restarts times"
	if ((kills < want)); then
		echo "soak: $name: $kills kills of $server in $secs s, want at least $want" >&2
		rc=1
	fi
	if ((restarts != kills)); then
		echo "soak: $name: $server came back $restarts times after $kills kills" >&2
		rc=1
	fi
	return $rc
}

kills() { local k _; read -r k _ <"$run/$1.restarts" && echo "${k:-0}"; }

# seen NAME WHAT KEY LINE: the number KEY matches in the log of NAME (on
# a line LINE matches), WHAT it counts, is at least 1: the client saw
# the restarts
seen() {
	local n
	n=$(grep -E "$4" "$logdir/$1.log" | grep -oE "$3" | grep -oE '[0-9]+' | tail -1)
	if ((${n:-0} < 1)); then
		echo "soak: $1: the client never saw the server go (${n:-no} $2 in its report)" >&2
		return 1
	fi
}

fail=0
start=$(date +%s)
state=$run/soak.state
# 1.5 s > 1.1 s between kill and start: see the top of this file
soak_under_kills ganesha 1.5 nfs3-soak "$secs" "$o/tests/soak/nfs3-soak" \
	--seconds "$secs" --state "$state" || fail=1
seen nfs3-soak "connections lost" '[0-9]+ lost' '^soak: transport' || fail=1
sed 's/^/  | /' "$logdir/nfs3-soak.log" | grep -v 'retrying' | tail -8
echo "  | $(grep -c retrying "$logdir/nfs3-soak.log") operations retried after a restart"

# every acknowledged generation, through the disk and through libnfs
if [[ -s $state ]]; then
	while read -r path file gen size; do
		for how in disk nfs-cat; do
			tmp=$run/check.bin
			if [[ $how == disk ]]; then
				cp "$XPRT_NFS_EXPORT_DIR/$path" "$tmp"
			else
				url=${XPRT_NFS_URL/\?//$path?}
				nfs-cat "$url" >"$tmp" 2>"$run/nfs-cat.err" ||
					{ cat "$run/nfs-cat.err"; : >"$tmp"; }
			fi
			if python3 - "$tmp" "$file" "$gen" "$size" <<'PY'; then
import struct, sys
path, file, gen, size = sys.argv[1], *map(int, sys.argv[2:])
data = open(path, "rb").read()
exp = b"".join(struct.pack("<Q", file << 56 | (gen & 0xffffff) << 32 | i)
               for i in range(size // 8))
if data != exp:
    bad = next((i for i in range(min(len(data), len(exp)))
                if data[i] != exp[i]), min(len(data), len(exp)))
    print("    %s: %d bytes, first difference at %d" % (path, len(data), bad))
    sys.exit(1)
PY
				echo "  $path generation $gen: ok via $how"
			else
				echo "  $path generation $gen: WRONG via $how"
				fail=1
			fi
		done
	done <"$state"
else
	echo "soak: no state file: nothing acknowledged" >&2
	fail=1
fi

bench=$o/bench/nfs3-bench
if [[ -x $bench ]]; then
	# UNSTABLE writes and COMMITs while ganesha dies and comes back:
	# after the write phase each job COMMITs, sees a changed verifier
	# when the server restarted, writes its blocks again and COMMITs
	# again; the verify pass then reads every block back (also under the
	# kill loop).  A mixed read/write run with FILE_SYNC writes checks
	# reads of acknowledged writes in the middle of the restarts.
	soak_under_kills ganesha 1.5 nfs3-bench-unstable "$((secs / 2))" "$bench" \
		--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --export "$XPRT_NFS_EXPORT" \
		--mount-port "$XPRT_MNT_PORT" --verify --stable unstable \
		--name soak-unstable --rw randwrite --bs 64k --size 16m \
		--numjobs 2 --iodepth 8 --time_based --runtime "$((secs / 2))s" || fail=1
	seen nfs3-bench-unstable disconnects '\bdisconnects=[0-9]+' . || fail=1
	grep -E 'verifier|resent|commits|verify|error' \
		"$logdir/nfs3-bench-unstable.log" | tail -6 | sed 's/^/  | /'
	soak_under_kills ganesha 1.5 nfs3-bench-filesync "$((secs / 2))" "$bench" \
		--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --export "$XPRT_NFS_EXPORT" \
		--mount-port "$XPRT_MNT_PORT" --verify --stable filesync \
		--name soak-filesync --rw randrw --bs 64k --size 16m \
		--numjobs 2 --iodepth 8 --time_based --runtime "$((secs / 2))s" || fail=1
	seen nfs3-bench-filesync disconnects '\bdisconnects=[0-9]+' . || fail=1
	tail -5 "$logdir/nfs3-bench-filesync.log" | sed 's/^/  | /'
fi

# p9bench_check NAME: the counters of the p9-bench run NAME (normal
# report) say its sessions came back, nothing completed twice, VmRSS flat
p9bench_check() {
	local name=$1 f=$logdir/$1.log n rc=0 verify
	local kv=(reconnects resubmitted completed_twice rss_kib_first_reconnect
		rss_kib)
	declare -A v
	for n in "${kv[@]}"; do
		v[$n]=$(grep -o "\b$n=[0-9]*" "$f" | tail -1 | cut -d= -f2)
		[[ -n ${v[$n]} ]] || { echo "  $name: no $n= in its report"; return 1; }
	done
	grep -E '^ *(READ|WRITE): bw' "$f" | sed 's/^ */  | /'
	if grep -q 'verify: mismatch' "$f"; then
		verify="verify MISMATCH"
		rc=1
	else
		verify="verify clean"
	fi
	echo "  | ${v[reconnects]} sessions re-established, ${v[resubmitted]} I/Os" \
		"resubmitted, ${v[completed_twice]} completed twice, $verify," \
		"VmRSS ${v[rss_kib_first_reconnect]} KiB at the first reconnect," \
		"${v[rss_kib]} KiB at the end"
	if ((v[reconnects] == 0)); then
		echo "  $name: no session was re-established (diod killed $(kills "$name") times)"
		rc=1
	fi
	((v[completed_twice] == 0)) || rc=1
	if ((v[rss_kib_first_reconnect] &&
		v[rss_kib] - v[rss_kib_first_reconnect] > 24 * 1024)); then
		echo "  $name: VmRSS grew by more than 24 MiB after the first reconnect"
		rc=1
	fi
	return $rc
}

p9=$o/bench/p9-bench
if [[ -x $p9 && -n ${XPRT_DIOD_PORT:-} ]]; then
	# 9P: p9-bench re-establishes each session diod's death ends and
	# resends the I/Os it lost (an Rwrite means written: no COMMIT).
	sub=p9-soak.$$
	mkdir -p "$XPRT_DIOD_EXPORT_DIR/$sub"
	P9=("$p9" --server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT"
		--aname "$XPRT_DIOD_ANAME" --directory "$sub" --eta never)
	# random reads checked against the pattern all along, then every
	# block written read back by the verify pass
	soak_under_kills diod 1 p9-bench "$secs" "${P9[@]}" --name r --verify \
		--rw randrw --bs 128k --size 16m --numjobs 2 --nconnect 2 \
		--iodepth 8 --time_based --runtime "${secs}s" || fail=1
	p9bench_check p9-bench || fail=1
	# sequential writes, verified, then the files on diod's disk: the
	# staircase of generations a sequential run leaves, exact with one
	# I/O in flight per job (check-pattern.py); 4 jobs share the session
	soak_under_kills diod 1 p9-bench-write "$(((secs + 1) / 2))" "${P9[@]}" \
		--name w --verify \
		--rw write --bs 64k --size 8m --numjobs 4 --iodepth 1 \
		--time_based --runtime "$(((secs + 1) / 2))s" || fail=1
	p9bench_check p9-bench-write || fail=1
	if "$top/scripts/check-pattern.py" "$XPRT_DIOD_EXPORT_DIR/$sub" \
		$((8 << 20)) --sequential 65536 w.0.0 w.1.0 w.2.0 w.3.0 \
		>"$run/p9-disk.out"; then
		sed 's/^/  on disk: /' "$run/p9-disk.out"
	else
		sed 's/^/  on disk: /' "$run/p9-disk.out"
		fail=1
	fi
	rm -rf "${XPRT_DIOD_EXPORT_DIR:?}/$sub"
fi

echo "soak: $(($(date +%s) - start)) s, $([[ $fail == 0 ]] && echo ok || echo FAIL)"
exit $fail
