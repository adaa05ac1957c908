#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# Real fio (Debian's /usr/bin/fio) with libxprt's engine
# (build/<variant>/fio/libxprt-fio.so) against ganesha over NFSv3 and
# diod over 9P2000.L (run by scripts/run-integration.sh, which exports
# servers.env and XPRT_BUILD_DIR).  For each server:
#   1. a job file with two jobs: randwrite with verify=crc32c and
#      verify_backlog, randwrite in bssplit sizes with verify=md5, both
#      do_verify after the writes, on files that do not exist yet: the
#      engine creates them on the server, fio lays nothing out locally;
#   2. a read without size=: the file's size is the server's;
#      fio's verify_only over the crc32c file: passes as written, fails
#      once a byte of it is changed on the server's disk (so the reads
#      are real and verify is not vacuous);
#   3. randrw with rwmixread=70, bs 8k, iodepth 16, 8 jobs in processes
#      with norandommap, randrepeat=0 and group_reporting, time_based;
#      then 4 jobs of 2 files each with --thread;
#   4. fsync=4 and end_fsync (COMMIT, Tfsync), counted by fio as for
#      psync on a local file;
#   5. a read job on a missing file: created and sized on the server;
#      unlink=1 removes it afterwards;
#   6. trim refused with a message;
#   7. the example job file (fio/examples), smaller;
#   8. the threads: a job in its own process runs on that one thread (the
#      client is caller-driven: libxprt starts none), jobs with --thread
#      leave fio's process with no more threads than fio's null engine
#      does; libxprt_mode=threaded (the library's receive threads and
#      transmit workers) is seen as more, so the count can fail;
#   9. verify_state_save, the server restarted, verify_state_load; over
#      NFS, ganesha killed and started again mid-run: FILE_SYNC writes
#      (sync=1) all verified, unstable ones reported at the next COMMIT
#      (its write verifier changed); then killed for good mid-run: the
#      job ends with an error within seconds.
# Then a URL of another scheme and a server that is not there: fio ends
# the job at once with its error report.  fio's JSON output is read with
# Python.  Each check prints "ok - ..." or "FAIL - ..."; the exit status
# is the number of failures.  About 70 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
eng=${XPRT_BUILD_DIR:-$top/build/plain}/fio/libxprt-fio.so
[[ -n ${XPRT_NFS_URL:-}${XPRT_DIOD_PORT:-} ]] ||
	{ echo "FAIL - no servers.env (run through scripts/run-integration.sh)"; exit 1; }
[[ -f $eng ]] || { echo "FAIL - $eng not built (make fio-engine)"; exit 1; }
command -v fio >/dev/null || { echo "FAIL - fio is not installed"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fio-engine-test.XXXXXX")
sub=fio-engine.$$
cleanup() {
	rm -rf "$work"
	[[ -n ${XPRT_DIOD_EXPORT_DIR:-} ]] && rm -f "${XPRT_DIOD_EXPORT_DIR:?}/$sub".*
	[[ -n ${XPRT_NFS_EXPORT_DIR:-} ]] && rm -f "${XPRT_NFS_EXPORT_DIR:?}/$sub".*
}
trap cleanup EXIT
fails=0

# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"
# shellcheck source=tests/integration/unpriv-lib.sh
. "$top/tests/integration/unpriv-lib.sh"
unpriv_own "$work"

# fio is not instrumented: in the sanitizer builds the engine's runtime
# is preloaded into it.  ASan: every check, without leak detection
# (fio never frees what it allocates for its jobs).  TSan: fio's
# processes fork with threads running, which TSan cannot follow, and
# its semaphores in shared memory look racy to it: the jobs run as
# threads, fio's own functions suppressed, and only the thread checks run.
build=${XPRT_BUILD_DIR:-$top/build/plain}
pre=()
case ${build##*/} in
asan)
	pre=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so)"
		"ASAN_OPTIONS=detect_leaks=0 abort_on_error=1") ;;
tsan)
	{ cat "$top/tests/tsan.supp"; printf 'race:%s\n' fio_sem_remove \
		options_free; } >"$work/tsan.supp"
	pre=(env "LD_PRELOAD=$(gcc -print-file-name=libtsan.so)"
		"TSAN_OPTIONS=halt_on_error=1 suppressions=$work/tsan.supp") ;;
esac

# fio NAME WANT_RC WANT_MSG ARGS...: run fio as the tests' user in $work
# (where fio keeps its verify state), JSON report in $work/NAME.json,
# stderr in $work/NAME.err; check its exit status and message
fio_run() {
	local name=$1 want=$2 msg=$3 rc
	shift 3
	(cd "$work" && timeout 60 "${AS[@]}" "${pre[@]}" fio --output-format=json \
		--output="$work/out.json" --ioengine="external:$eng" "$@" \
		2>"$work/err")
	rc=$?
	check_exit "$name" "$want" "$rc" "$msg" "$work/err"
}

# expect NAME EXPR: the Python expression over fio's report d is true
# (fio writes its warnings to the same file, before the report)
expect() {
	local v
	v=$(python3 -c 'import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("{"):])
print(eval(sys.argv[2]))' "$work/out.json" "$2" 2>&1)
	if [[ $v == True ]]; then
		ok "$1"
	else
		bad "$1: $2 is ${v:0:200}"
	fi
}

# ondisk NAME PATH SIZE: the server's file PATH has SIZE bytes
ondisk() {
	local size
	size=$(stat -c %s "$2" 2>/dev/null || echo none)
	if [[ $size == "$3" ]]; then ok "$1"; else bad "$1: $2 has $size bytes, want $3"; fi
}

# server NAME URL EXPORT_DIR EXAMPLE_JOB_FILE
server() {
	local s=$1 url=$2 dir=$3 f

	cat >"$work/verify.fio" <<EOF
[global]
nfs_url=$url
size=2m
iodepth=8
do_verify=1

[crc]
filename=$sub.crc
rw=randwrite
bs=4k
verify=crc32c
verify_backlog=64

[md5]
filename=$sub.md5
rw=randwrite
bssplit=4k/40:64k/30:256k/30
verify=md5
EOF
	fio_run "$s: randwrite, verify=crc32c and md5, new files" 0 "" \
		"$work/verify.fio" &&
		expect "$s: 2 MiB written and read back per job, no error" \
			'[(j["jobname"], j["error"], j["write"]["io_bytes"] >= 2 << 20, j["read"]["io_bytes"] >= 2 << 20) for j in d["jobs"]] == [("crc", 0, True, True), ("md5", 0, True, True)]'
	ondisk "$s: crc file made on the server, 2 MiB" "$dir/$sub.crc" 2097152
	ondisk "$s: md5 file made on the server, 2 MiB" "$dir/$sub.md5" 2097152
	for f in crc md5; do
		[[ -e $work/$sub.$f ]] && bad "$s: fio laid out $sub.$f locally"
	done

	# no size=: fio takes the file's from the server
	fio_run "$s: read with no size=" 0 "" --name=ns --nfs_url="$url" \
		--filename="$sub.crc" --rw=read --bs=64k &&
		expect "$s: the server's 2 MiB read" \
			'd["jobs"][0]["read"]["io_bytes"] == 2 << 20'

	# verify_only replays the crc job's writes and checks the data
	fio_run "$s: verify_only over the written file" 0 "" --name=crc \
		--nfs_url="$url" --filename="$sub.crc" --size=2m --rw=randwrite \
		--bs=4k --verify=crc32c --verify_only=1 &&
		expect "$s: verify_only read 2 MiB, no error" \
			'd["jobs"][0]["error"] == 0 and d["jobs"][0]["read"]["io_bytes"] == 2 << 20'
	printf 'X' | dd of="$dir/$sub.crc" bs=1 seek=123456 conv=notrunc status=none
	fio_run "$s: verify_only after a byte changed on disk" 1 "verify" \
		--name=crc --nfs_url="$url" --filename="$sub.crc" --size=2m \
		--rw=randwrite --bs=4k --verify=crc32c --verify_only=1

	# the fair-queueing command line, in seconds; then threads
	fio_run "$s: randrw 70/30, 8 jobs in processes, time_based" 0 "" \
		--name=mix --nfs_url="$url" --filename="$sub.mix" --rw=randrw \
		--bs=8k --rwmixread=70 --iodepth=16 --numjobs=8 --size=4m \
		--norandommap --randrepeat=0 --group_reporting --time_based \
		--runtime=2 &&
		expect "$s: 8 jobs grouped, about 70% reads, no error" \
			'(lambda j: j["error"] == 0 and j["job_runtime"] >= 8 * 1900 and 0.6 < j["read"]["total_ios"] / (j["read"]["total_ios"] + j["write"]["total_ios"]) < 0.8)(d["jobs"][0])'
	fio_run "$s: randrw, 4 jobs x 2 files, --thread" 0 "" --thread \
		--name=thr --nfs_url="$url" --filename_format="$sub.thr.\$jobnum.\$filenum" \
		--nrfiles=2 --rw=randrw --bs=4k --iodepth=4 --numjobs=4 --size=1m \
		--time_based --runtime=1 &&
		expect "$s: 4 jobs read and wrote, no error" \
			'len(d["jobs"]) == 4 and all(j["error"] == 0 and j["read"]["total_ios"] > 0 and j["write"]["total_ios"] > 0 for j in d["jobs"])'
	ondisk "$s: --thread job 3's second file, 512 KiB" "$dir/$sub.thr.3.1" 524288

	# at iodepth 1 fio counts what it counts with psync on a local
	# file: a sync after writes 4, 8 and 12, the end_fsync apart
	fio_run "$s: fsync=4, end_fsync" 0 "" --name=fs --nfs_url="$url" \
		--filename="$sub.fs" --rw=write --bs=4k --size=64k --iodepth=1 \
		--fsync=4 --end_fsync=1 &&
		expect "$s: 16 writes, 3 fsyncs counted" \
			'(d["jobs"][0]["write"]["total_ios"], d["jobs"][0]["sync"]["total_ios"]) == (16, 3)'

	fio_run "$s: read of a missing file, unlink=1" 0 "" --name=rd \
		--nfs_url="$url" --filename="$sub.rd" --rw=read --bs=64k \
		--size=1m --unlink=1 &&
		expect "$s: 1 MiB read" 'd["jobs"][0]["read"]["io_bytes"] == 1 << 20'
	if [[ -e $dir/$sub.rd ]]; then
		bad "$s: unlink=1 left $sub.rd"
	else
		ok "$s: unlink=1 removed the file"
	fi

	fio_run "$s: trim refused" 1 "no trim" --name=tr --nfs_url="$url" \
		--filename="$sub.tr" --rw=randtrim --size=64k

	# the example job file, smaller: this engine, this server
	sed -e "s|^ioengine=.*|ioengine=external:$eng|" \
		-e "s|^nfs_url=.*|nfs_url=${url//&/\\&}|" -e "s|^size=64m|size=2m|" \
		-e "s|^size=1m|size=16k|" -e "s|^runtime=10|runtime=1|" \
		-e "/^\[global\]/a filename_format=$sub.ex.\$jobname.\$jobnum" \
		"$top/fio/examples/$4" >"$work/$4"
	fio_run "$s: example job file $4" 0 "" "$work/$4" &&
		expect "$s: $4: every job ran, no error" \
			'len(d["jobs"]) >= 2 and all(j["error"] == 0 and j["read"]["io_bytes"] + j["write"]["io_bytes"] > 0 for j in d["jobs"])'
}

# tsan_server NAME URL: the engine's threads and fio's job threads
# under TSan: verify and mixed I/O, four jobs of two files each; mixed
# I/O with the library's threads too
tsan_server() {
	fio_run "$1: TSan: randwrite verify, 4 threads x 2 files" 0 "" \
		--thread --name=tv --nfs_url="$2" --nrfiles=2 \
		--filename_format="$sub.tv.\$jobnum.\$filenum" --rw=randwrite \
		--bssplit=4k/50:128k/50 --iodepth=8 --numjobs=4 --size=2m \
		--verify=crc32c --verify_backlog=32 --do_verify=1 --fsync=8 &&
		expect "$1: TSan: 4 jobs verified, no error" \
			'len(d["jobs"]) == 4 and all(j["error"] == 0 and j["read"]["io_bytes"] > 0 for j in d["jobs"])'
	fio_run "$1: TSan: randrw, 4 threads, time_based" 0 "" --thread \
		--name=tr --nfs_url="$2" --filename_format="$sub.tr.\$jobnum" \
		--rw=randrw --bs=8k --iodepth=16 --numjobs=4 --size=1m \
		--time_based --runtime=1 &&
		expect "$1: TSan: 4 jobs read and wrote, no error" \
			'all(j["error"] == 0 and j["read"]["total_ios"] > 0 and j["write"]["total_ios"] > 0 for j in d["jobs"])'
	# the threaded mode's ring (RDMA's), its lock and condition
	fio_run "$1: TSan: randrw, 4 threads, libxprt_mode=threaded" 0 "" \
		--thread --name=tt --nfs_url="$2" --libxprt_mode=threaded \
		--filename_format="$sub.tt.\$jobnum" --rw=randrw --bs=8k \
		--iodepth=16 --numjobs=4 --size=1m --time_based --runtime=1 &&
		expect "$1: TSan: threaded: 4 jobs read and wrote, no error" \
			'all(j["error"] == 0 and j["read"]["total_ios"] > 0 and j["write"]["total_ios"] > 0 for j in d["jobs"])'
}
if [[ ${build##*/} == tsan ]]; then
	[[ -n ${XPRT_NFS_URL:-} ]] && tsan_server ganesha "$XPRT_NFS_URL"
	[[ -n ${XPRT_DIOD_PORT:-} ]] &&
		tsan_server diod "9p://$XPRT_DIOD_HOST:$XPRT_DIOD_PORT$XPRT_DIOD_ANAME"
	exit "$fails"
fi

# tasks NAME WANT_RC ARGS...: fio in the background, its threads (the
# Threads: line of /proc/PID/status) sampled every 0.1 s while it runs:
# tk_main is the most fio's first process had (with --thread: the jobs'
# too), tk_job the most a job's process had, tk_seen the samples that
# found a job's process.  fio's main process is timeout's child, a job's
# process its child, all named fio.
threads_of() { sed -n 's/^Threads:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
tasks() {
	local name=$1 want=$2 pid main j n rc
	shift 2
	(cd "$work" && exec timeout 60 "${AS[@]}" "${pre[@]}" fio \
		--output-format=json --output="$work/out.json" "$@" \
		2>"$work/err") &
	pid=$!
	tk_main=0 tk_job=0 tk_seen=0
	while kill -0 "$pid" 2>/dev/null; do
		main=$(pgrep -P "$pid" -x fio | head -1)
		if [[ -n $main ]]; then
			n=$(threads_of "$main")
			((${n:-0} > tk_main)) && tk_main=$n
			for j in $(pgrep -P "$main" -x fio); do
				n=$(threads_of "$j")
				[[ -n $n ]] || continue
				tk_seen=$((tk_seen + 1))
				((n > tk_job)) && tk_job=$n
			done
		fi
		sleep 0.1
	done
	wait "$pid"
	rc=$?
	check_exit "$name" "$want" "$rc" "" "$work/err"
}

# threads NAME URL: see 8. above
null_main=
threads() {
	local s=$1 args
	args=(--ioengine="external:$eng" --nfs_url="$2" --rw=randread --bs=4k
		--size=1m --iodepth=8 --time_based --runtime=2)
	tasks "$s: randread in a process, sampled" 0 --name=tk \
		--filename="$sub.tk" "${args[@]}" &&
		expect "$s: the sampled job read, no error" \
			'd["jobs"][0]["error"] == 0 and d["jobs"][0]["read"]["total_ios"] > 0'
	if ((tk_seen >= 5 && tk_job == 1)); then
		ok "$s: the job's process had one thread ($tk_seen samples)"
	else
		bad "$s: the job's process had up to $tk_job threads ($tk_seen samples), want 1"
	fi
	tasks "$s: libxprt_mode=threaded, sampled" 0 --name=tk \
		--filename="$sub.tk" "${args[@]}" --libxprt_mode=threaded
	if ((tk_seen >= 5 && tk_job > 1)); then
		ok "$s: libxprt_mode=threaded: $tk_job threads seen in the job's process"
	else
		bad "$s: libxprt_mode=threaded: up to $tk_job threads ($tk_seen samples): the count sees no library thread"
	fi
	# fio's own threads with --thread: its null engine, the same jobs
	if [[ -z $null_main ]]; then
		tasks "fio's null engine, 2 jobs, --thread, sampled" 0 --thread \
			--name=nl --ioengine=null --numjobs=2 --rw=randread \
			--bs=4k --size=1m --time_based --runtime=2 --rate_iops=500
		null_main=$tk_main
	fi
	tasks "$s: randread, 2 jobs, --thread, sampled" 0 --thread --name=tk \
		--filename_format="$sub.tk.\$jobnum" --numjobs=2 "${args[@]}"
	if ((tk_main >= 3 && tk_main <= null_main)); then
		ok "$s: --thread: fio's process had $tk_main threads, as many as with its null engine ($null_main)"
	else
		bad "$s: --thread: fio's process had up to $tk_main threads, $null_main with its null engine"
	fi
}

if [[ -n ${XPRT_NFS_URL:-} ]]; then
	server ganesha "$XPRT_NFS_URL" "$XPRT_NFS_EXPORT_DIR" nfs-verify.fio
fi
if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	server diod "9p://$XPRT_DIOD_HOST:$XPRT_DIOD_PORT$XPRT_DIOD_ANAME" \
		"$XPRT_DIOD_EXPORT_DIR" 9p-write.fio
fi
[[ -n ${XPRT_NFS_URL:-} ]] && threads ganesha "$XPRT_NFS_URL"
[[ -n ${XPRT_DIOD_PORT:-} ]] &&
	threads diod "9p://$XPRT_DIOD_HOST:$XPRT_DIOD_PORT$XPRT_DIOD_ANAME"

# bg_fio NAME ARGS...: fio_run in the background (pid in $bg), with its
# own output files; bg_check NAME WANT_RC WANT_MSG: wait and check
bg_fio() {
	local name=$1
	shift
	(cd "$work" && exec timeout 90 "${AS[@]}" "${pre[@]}" fio --output-format=json \
		--output="$work/bg.json" --ioengine="external:$eng" "$@" \
		2>"$work/bg.err") &
	bg=$!
}
bg_check() {
	local rc
	wait "$bg"
	rc=$?
	check_exit "$1" "$2" "$rc" "$3" "$work/bg.err"
}

# srv VERB NAME: servers.sh VERB on NAME; on failure its output is shown
srv() {
	"$XPRT_SERVERS_SH" "$1" "$XPRT_SERVERS_RUN_DIR" "$2" >"$work/srv.log" 2>&1 &&
		return 0
	sed 's/^/    | /' "$work/srv.log" | tail -15
	return 1
}

# kill_srv NAME: SIGKILL the server now (by its pid file: servers.sh
# waits for a machine-wide lock, and the kill must land mid-job)
kill_srv() {
	local pf
	pf=$([[ $1 == ganesha ]] && echo "$XPRT_GANESHA_PIDFILE" ||
		echo "$XPRT_DIOD_PIDFILE")
	kill -9 "$(cat "$pf")" 2>/dev/null || bad "could not kill $1"
}

# started FILE: the job has written to FILE on the server: the engine
# creates it sparse at its full size, so its allocated blocks say that
# writes arrived (64 KiB of them: replies came back, and on a slow
# machine the job is past its set-up); then 0.3 s more of the job
started() {
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -e $1 ]] && (($(stat -c %b "$1") >= 128)) && break
		sleep 0.1
	done
	[[ -e $1 ]] && (($(stat -c %b "$1") >= 128)) ||
		bad "the job wrote no 64 KiB to $1 in 30 s"
	sleep 0.3
}

# kill_start NAME FILE: once the job runs on FILE, the server killed,
# 1.5 s later started again on its ports
kill_start() {
	started "$2"
	kill_srv "$1"
	sleep 1.5
	srv start "$1" || bad "$1 did not start again"
}

# restarts NAME URL DIR: the server stopped and started again, or killed
restarts() {
	local s=$1 url=$2 dir=$3 t0 args
	args=(--nfs_url="$url" --filename="$sub.st" --rw=randwrite --bs=4k
		--size=1m --verify=crc32c)
	fio_run "$s: write, verify state saved" 0 "" --name=st "${args[@]}" \
		--do_verify=0 --verify_state_save=1 --end_fsync=1
	srv restart "$s" || bad "$s did not restart"
	fio_run "$s: verify_state_load after a server restart" 0 "" --name=st \
		"${args[@]}" --verify_only=1 --verify_state_load=1 &&
		expect "$s: 1 MiB verified after the restart" \
			'd["jobs"][0]["error"] == 0 and d["jobs"][0]["read"]["io_bytes"] == 1 << 20'

	if [[ $s == ganesha ]]; then
		# killed and started again mid-run (1.5 s: ganesha's write
		# verifier is its start time in seconds): FILE_SYNC writes are
		# all there, verify_backlog reads them back as the job goes
		args=(--nfs_url="$url" --rw=randwrite --bs=4k --size=4m
			--iodepth=8 --verify=crc32c --verify_backlog=64
			--time_based --runtime=6)
		bg_fio kill "${args[@]}" --name=kill --filename="$sub.kill" \
			--sync=1
		kill_start "$s" "$dir/$sub.kill"
		bg_check "$s: sync=1 writes across a kill and restart, verified" 0 ""
		# unstable writes: the next COMMIT's new verifier is an error,
		# not a silent loss
		bg_fio kill "${args[@]}" --name=unst --filename="$sub.unst" \
			--fsync=16 --end_fsync=1
		kill_start "$s" "$dir/$sub.unst"
		bg_check "$s: unstable writes across a restart: reported" 1 \
			"write verifier changed"
		url+="&timeo=10&retrans=1"
	else
		url+="?timeo=10"
	fi

	# killed for good mid-run: the job ends with an error within the
	# calls' timeout (1 s here) and the reconnection attempts
	bg_fio down --name=down --nfs_url="$url" --filename="$sub.down" \
		--rw=randwrite --bs=4k --size=4m --iodepth=8 --time_based \
		--runtime=60
	started "$dir/$sub.down"
	kill_srv "$s"
	t0=$(date +%s)
	bg_check "$s: killed mid-run: the job ends with an error" 1 \
		"io_u error on file"
	if (($(date +%s) - t0 <= 15)); then
		ok "$s: killed mid-run: ended in $(($(date +%s) - t0)) s"
	else
		bad "$s: killed mid-run: took $(($(date +%s) - t0)) s"
	fi
	srv start "$s" || bad "$s did not start again"
}

if [[ -z ${XPRT_SERVERS_SH:-} || -z ${XPRT_SERVERS_RUN_DIR:-} ]]; then
	bad "no XPRT_SERVERS_SH / XPRT_SERVERS_RUN_DIR: cannot restart servers"
else
	[[ -n ${XPRT_NFS_URL:-} ]] &&
		restarts ganesha "$XPRT_NFS_URL" "$XPRT_NFS_EXPORT_DIR"
	[[ -n ${XPRT_DIOD_PORT:-} ]] &&
		restarts diod "9p://$XPRT_DIOD_HOST:$XPRT_DIOD_PORT$XPRT_DIOD_ANAME" \
			"$XPRT_DIOD_EXPORT_DIR"
fi

# errors: fio's report, at once
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# URL|MESSAGE|ERRNO: the engine's sentence, fio's report with the errno
for u in "ftp://127.0.0.1/x|libxprt reads nfs:// and 9p:// URLs|93" \
	"nfs://127.0.0.1/export?nconnect=99|nconnect must be a number|22" \
	"nfs://127.0.0.1/export?nfsport=$closed&mountport=$closed|Connection refused|111" \
	"9p://127.0.0.1:$closed/x|Connection refused|111" \
	"not a url|is not a URL|22"; do
	IFS='|' read -r url msg errno <<<"$u"
	t0=$(date +%s)
	fio_run "error: $url" 1 "$msg" --name=e --nfs_url="$url" --rw=read \
		--size=64k &&
		expect "error: $url: fio's report says error $errno" \
			"d['jobs'][0]['error'] == $errno"
	(($(date +%s) - t0 <= 10)) || bad "error: $url: took over 10 s"
done
fio_run "error: no nfs_url" 1 "nfs_url= is missing" --name=e --rw=read \
	--size=64k &&
	expect "error: no nfs_url: fio's report says error 22" \
		'd["jobs"][0]["error"] == 22'

exit "$fails"
