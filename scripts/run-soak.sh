#!/usr/bin/env bash
# Fault soak: NFSv3 data integrity while ganesha is killed and restarted.
#
# usage: run-soak.sh BUILDDIR SECONDS
#   Starts the test servers (own run dir), runs nfs3-soak (tests/soak) for
#   SECONDS while ganesha is SIGKILLed every 2-4 s and started again on
#   the same ports, then checks every acknowledged (committed) generation
#   through two other paths: the export directory on disk and libnfs's
#   nfs-cat.  With nfs3-bench built, also runs its verify workload under
#   the same kill loop.
#
# The pause between kill and start is 1.5 s: ganesha derives its write
# verifier from its start time in seconds, so a restart within ~1 s of
# the previous start reuses the verifier and the client cannot know that
# unstable data was lost - ganesha's fault, not a client bug.
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

# kill ganesha every 2-4 s until the file $1 exists; count restarts in $2
killer() {
	local stop=$1 count=$2 n=0
	while [[ ! -e $stop ]]; do
		sleep "$((2 + RANDOM % 3))"
		[[ -e $stop ]] && break
		"$servers" kill "$run" ganesha >>"$log.servers" 2>&1
		sleep 1.5 # > 1.1 s: see the top of this file
		"$servers" start "$run" ganesha >>"$log.servers" 2>&1 ||
			echo "soak: ganesha did not start again" >&2
		n=$((n + 1))
		echo "$n" >"$count"
	done
}

soak_under_kills() { # NAME COMMAND...
	local name=$1 stop=$run/$1.stop count=$run/$1.restarts rc kpid
	shift
	rm -f "$stop" "$count"
	killer "$stop" "$count" &
	kpid=$!
	"$@" >"$logdir/$name.log" 2>&1
	rc=$?
	touch "$stop"
	wait "$kpid"
	"$servers" status "$run" 2>/dev/null | grep -q 'ganesha.*running' ||
		"$servers" start "$run" ganesha >>"$log.servers" 2>&1
	echo "$name: exit $rc, ganesha restarted $(cat "$count" 2>/dev/null || echo 0) times"
	return $rc
}

fail=0
start=$(date +%s)
state=$run/soak.state
soak_under_kills nfs3-soak "$o/tests/soak/nfs3-soak" --seconds "$secs" \
	--state "$state" || fail=1
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
	soak_under_kills nfs3-bench-unstable "$bench" \
		--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --export "$XPRT_NFS_EXPORT" \
		--mount-port "$XPRT_MNT_PORT" --verify --stable unstable \
		--name soak-unstable --rw randwrite --bs 64k --size 16m \
		--numjobs 2 --iodepth 8 --runtime "$((secs / 2))s" || fail=1
	grep -E 'verifier|resent|commits|verify|error' \
		"$logdir/nfs3-bench-unstable.log" | tail -6 | sed 's/^/  | /'
	soak_under_kills nfs3-bench-filesync "$bench" \
		--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --export "$XPRT_NFS_EXPORT" \
		--mount-port "$XPRT_MNT_PORT" --verify --stable filesync \
		--name soak-filesync --rw randrw --bs 64k --size 16m \
		--numjobs 2 --iodepth 8 --runtime "$((secs / 2))s" || fail=1
	tail -5 "$logdir/nfs3-bench-filesync.log" | sed 's/^/  | /'
fi

echo "soak: $(($(date +%s) - start)) s, $([[ $fail == 0 ]] && echo ok || echo FAIL)"
exit $fail
