#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# shellcheck disable=SC2015 # "A && ok ... || bad ...": ok never fails
# A server whose file system is full, then one that is read-only (run by
# scripts/run-integration.sh, which exports servers.env, XPRT_SERVERS_SH
# and XPRT_BUILD_DIR).  ganesha and diod are restarted with a 2 MiB tmpfs
# mounted over their export, then:
#   1. nfs3cp uploads 4 MiB, UNSTABLE + COMMIT and FILE_SYNC: exit 1 with
#      "no space left on the server's file system", and every byte that
#      reached the disk is the source's byte at that offset;
#   2. nfs3-bench writes 4 MiB, one 64 KiB write in flight: exit 1 naming
#      ENOSPC, the offset of the write that failed and the full file
#      system (host and export: what to do about it); on disk exactly the
#      blocks before that offset hold the pattern, the rest nothing
#      (scripts/check-pattern.py);
#   3. p9-bench, the same over 9P against diod and against ganesha;
#   4. the space freed: the same programs write and read back again
#      (--verify), so neither client nor server is left broken.
# Then the tmpfs is read-only (with a file on it):
#   5. nfs3cp, nfs3-bench and p9-bench (diod, ganesha) writes: exit 1,
#      "read-only" said; reads of the file that is there: exit 0 (p9-bench
#      opens it for reading only); reads of more than is there (the file
#      would need laying out): exit 1, saying why.
# The servers get their own export directories back whatever happens.
# Each check prints "ok - ..." or "FAIL - ..."; the exit status is the
# number of failures (77, with a SKIP line: no tmpfs can be mounted here:
# not root, or no CAP_SYS_ADMIN; see scripts/skips.sh).  About 30 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
o=${XPRT_BUILD_DIR:-$top/build/plain}
srv=${XPRT_SERVERS_SH:-$top/tests/servers/servers.sh}
if [[ -z ${XPRT_SERVERS_RUN_DIR:-} || -z ${XPRT_DIOD_PORT:-} ]]; then
	echo "SKIP(servers): no servers.env (run through scripts/run-integration.sh)"
	exit 77
fi
if (($(id -u) != 0)); then
	echo "SKIP(root): filling a server's disk needs a tmpfs mount"
	exit 77
fi
for b in examples/nfs3cp bench/nfs3-bench bench/p9-bench; do
	[[ -x $o/$b ]] || { echo "FAIL - $o/$b not built"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/server-disk-test.XXXXXX")
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

NFS_DIR=$XPRT_NFS_EXPORT_DIR
DIOD_DIR=$XPRT_DIOD_EXPORT_DIR

TAG=xprt-disk-test # the source name of our tmpfs mounts
# 4 KiB pages: 2 MiB hold exactly 32 blocks of 64 KiB
TMPFS_OPTS=size=2m,mode=0777,huge=never

srv_do() { # CMD NAME: servers.sh CMD for NAME, logged
	"$srv" "$1" "$XPRT_SERVERS_RUN_DIR" "$2" >>"$work/servers.log" 2>&1
}
# unmount_ours DIR: take off every tmpfs of ours over DIR (a run killed
# before its cleanup may have left one: it would shadow the export)
unmount_ours() {
	while [[ $(findmnt -n -o SOURCE --mountpoint "$1" 2>/dev/null | tail -1) == "$TAG" ]]; do
		umount "$1" 2>/dev/null || umount -l "$1" || return 1
	done
}
# serve_tmpfs NAME DIR [ro]: NAME serves a fresh 2 MiB tmpfs mounted over
# DIR; with ro, read-only, holding one file of 1 MiB: ro.0.0.  On failure
# NAME serves DIR again.
serve_tmpfs() {
	srv_do stop "$1" || { echo "FAIL - could not stop $1"; srv_do start "$1"; return 1; }
	if ! mount -t tmpfs -o "$TMPFS_OPTS" "$TAG" "$2"; then
		echo "FAIL - cannot mount a tmpfs over $2"
		srv_do start "$1"
		return 1
	fi
	if [[ ${3:-} == ro ]]; then
		head -c $((1 << 20)) /dev/zero >"$2/ro.0.0"
		if ! mount -o remount,ro "$2"; then
			echo "FAIL - cannot make $2 read-only"
			restore "$1" "$2"
			return 1
		fi
	fi
	srv_do start "$1" || { echo "FAIL - $1 did not start on the tmpfs"; return 1; }
}
# restore NAME DIR: NAME serves DIR itself again (and runs, whatever
# happened before: `start` starts only what is not running)
restore() {
	if [[ $(findmnt -n -o SOURCE --mountpoint "$2" 2>/dev/null | tail -1) == "$TAG" ]]; then
		srv_do stop "$1"
		unmount_ours "$2"
	fi
	srv_do start "$1"
}
restore_both() {
	restore ganesha "$NFS_DIR"
	restore diod "$DIOD_DIR"
}
cleanup() {
	restore_both
	rm -rf "$work"
}

# Can we mount at all (uid 0 in a container may lack CAP_SYS_ADMIN)?
# Ask before touching the servers.
mkdir "$work/probe"
if ! mount -t tmpfs -o size=64k "$TAG" "$work/probe" 2>"$work/probe.err"; then
	echo "SKIP(sys-admin): cannot mount a tmpfs here: $(cat "$work/probe.err")"
	rm -rf "$work"
	exit 77
fi
umount "$work/probe"
trap cleanup EXIT
restore_both # a tmpfs a killed run left behind

# serve_both [ro]: both servers on a tmpfs; the run ends if that fails
serve_both() {
	if ! serve_tmpfs ganesha "$NFS_DIR" "$@" || ! serve_tmpfs diod "$DIOD_DIR" "$@"; then
		sed 's/^/    | /' "$work/servers.log" | tail -20
		exit 1
	fi
	set -a
	# the restarted servers keep their ports; read them again all the same
	# shellcheck disable=SC1091
	. "$XPRT_SERVERS_RUN_DIR/servers.env"
	set +a
	ok "ganesha and diod serve a ${1:-rw} 2 MiB tmpfs each"
}

# run NAME WANT_RC WANT_MSG PROG ARGS...: exit status and stderr message
run() {
	local name=$1 want=$2 msg=$3 rc
	shift 3
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	check_exit "$name" "$want" "$rc" "$msg" "$work/err"
}

# same_bytes SRC DISK: every byte DISK holds that is not zero (never
# written: tmpfs holes read as zeros) is SRC's byte at that offset
same_bytes() {
	python3 - "$1" "$2" <<'EOF'
import sys
src = open(sys.argv[1], "rb").read()
disk = open(sys.argv[2], "rb").read()
if len(disk) > len(src):
    sys.exit("the file on the server is longer than the source")
bad = [i for i, b in enumerate(disk) if b and b != src[i]]
if bad:
    sys.exit("%d bytes differ from the source, the first at %d" % (len(bad), bad[0]))
print("%d bytes on disk, %d of them written, all the source's" %
      (len(disk), sum(1 for b in disk if b)))
EOF
}

# staircase DIR FILE: sequential 64 KiB --verify writes (the pattern) that
# failed at the offset named in $work/err left exactly the blocks before
# it on disk
staircase() {
	local off acked
	off=$(grep -o 'at offset [0-9]*' "$work/err" | head -1 | grep -o '[0-9]*$')
	if [[ -z $off ]]; then
		bad "$2: no failed offset on stderr"
		return
	fi
	acked=$((off / 65536))
	if ((acked == 0)); then
		bad "$2: the first write failed already (offset $off)"
		return
	fi
	if "$top/scripts/check-pattern.py" "$1" $((4 << 20)) --sequential 65536 \
		"$2" >"$work/pattern" 2>&1 &&
		grep -q "generation 1 up to block $acked, 0 after" "$work/pattern"; then
		ok "$2: the $acked acknowledged blocks are on disk, nothing after them"
	else
		bad "$2: on disk: $(cat "$work/pattern"), want $acked blocks of generation 1"
	fi
}

# free_space FILE: give FILE's blocks back.  Truncate first: the server may
# hold the file open, and an unlinked open file keeps its blocks.  Names
# are never reused afterwards (ganesha caches the directory).
free_space() {
	truncate -s 0 "$1" 2>/dev/null
	rm -f "$1"
}

# hint NAME WHERE: the run's stderr says what to do, naming the server
hint() {
	grep -qF "the file system behind $2 is full (or over quota): free space there" "$work/err" &&
		ok "$1 says the file system behind $2 is full" ||
		bad "$1: no hint naming $2 on stderr: $(tail -2 "$work/err")"
}

NFS=(-s "$XPRT_NFS_HOST" -e "$XPRT_NFS_EXPORT" -p "$XPRT_NFS_PORT" -m "$XPRT_MNT_PORT")
NB=(--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT"
	--export "$XPRT_NFS_EXPORT" --eta never)
NOSPC="No space left on device"
head -c $((4 << 20)) /dev/urandom >"$work/src"

# ------------------------------------------------------ 1. nfs3cp upload
serve_both
for mode in unstable sync; do
	flag=()
	[[ $mode == sync ]] && flag=(-S)
	if run "nfs3cp ${flag[*]:-(UNSTABLE + COMMIT)} of 4 MiB into 2 MiB" 1 \
		"no space left on the server's file system" \
		"$o/examples/nfs3cp" "${NFS[@]}" "${flag[@]}" "$work/src" ":up-$mode.dat"; then
		r=$(same_bytes "$work/src" "$NFS_DIR/up-$mode.dat" 2>&1) && ok "nfs3cp $mode: $r" ||
			bad "nfs3cp $mode: $r"
	fi
	free_space "$NFS_DIR/up-$mode.dat"
done

# ----------------------------------------------- 2. nfs3-bench, 3. p9-bench
if run "nfs3-bench: 4 MiB of sequential writes into 2 MiB" 1 "$NOSPC" \
	"$o/bench/nfs3-bench" "${NB[@]}" --rw write --bs 64k --size 4m --verify \
	--name full; then
	staircase "$NFS_DIR" full.0.0
	hint "nfs3-bench" "$XPRT_NFS_HOST:$XPRT_NFS_EXPORT"
fi
free_space "$NFS_DIR/full.0.0"
P9D=(--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" --aname "$XPRT_DIOD_ANAME" --eta never)
P9G=(--server "$XPRT_GANESHA_9P_HOST:$XPRT_GANESHA_9P_PORT"
	--aname "$XPRT_GANESHA_9P_ANAME" --eta never)
for s in diod ganesha; do
	if [[ $s == diod ]]; then a=("${P9D[@]}") d=$DIOD_DIR; else a=("${P9G[@]}") d=$NFS_DIR; fi
	if run "p9-bench ($s): 4 MiB of sequential writes into 2 MiB" 1 "$NOSPC" \
		"$o/bench/p9-bench" "${a[@]}" --rw write --bs 64k --size 4m --verify \
		--name "full$s"; then
		staircase "$d" "full$s.0.0"
		hint "p9-bench ($s)" "${a[1]%:*} (aname ${a[3]})"
	fi
	free_space "$d/full$s.0.0"
done

# --------------------------------------------------- 4. room again: works
head -c $((1 << 20)) "$work/src" >"$work/src1"
run "nfs3cp after the space was freed" 0 "" \
	"$o/examples/nfs3cp" "${NFS[@]}" "$work/src1" :again.dat &&
	{ cmp -s "$work/src1" "$NFS_DIR/again.dat" && ok "the copy on the server is the source" ||
		bad "the copy on the server differs from the source"; }
free_space "$NFS_DIR/again.dat"
run "nfs3-bench --verify after the space was freed" 0 "" \
	"$o/bench/nfs3-bench" "${NB[@]}" --rw write --bs 64k --size 1m --verify --name again
free_space "$NFS_DIR/again.0.0"
run "p9-bench --verify (diod) after the space was freed" 0 "" \
	"$o/bench/p9-bench" "${P9D[@]}" --rw write --bs 64k --size 1m --verify --name again
run "p9-bench --verify (ganesha) after the space was freed" 0 "" \
	"$o/bench/p9-bench" "${P9G[@]}" --rw write --bs 64k --size 1m --verify --name again9
restore_both

# ------------------------------------------------------- 5. read-only
serve_both ro
run "nfs3cp upload to a read-only export" 1 "read-only file system" \
	"$o/examples/nfs3cp" "${NFS[@]}" "$work/src1" :w.dat
run "nfs3-bench writes to a read-only export" 1 "Read-only file system" \
	"$o/bench/nfs3-bench" "${NB[@]}" --rw write --bs 64k --size 1m --name w
run "nfs3-bench reads from a read-only export" 0 "" \
	"$o/bench/nfs3-bench" "${NB[@]}" --rw read --bs 64k --size 1m --name ro
for s in diod ganesha; do
	if [[ $s == diod ]]; then a=("${P9D[@]}"); else a=("${P9G[@]}"); fi
	run "p9-bench ($s) writes to a read-only export" 1 "Read-only file system" \
		"$o/bench/p9-bench" "${a[@]}" --rw write --bs 64k --size 1m --name w
	run "p9-bench ($s) reads from a read-only export" 0 "" \
		"$o/bench/p9-bench" "${a[@]}" --rw read --bs 64k --size 1m --name ro
	run "p9-bench ($s) reads 2 MiB of a 1 MiB file on a read-only export" 1 \
		"ro.0.0 must be written first (it is shorter than --size) but the server lets it be opened for reading only" \
		"$o/bench/p9-bench" "${a[@]}" --rw read --bs 64k --size 2m --name ro
done
run "nfs3-bench reads 2 MiB of a 1 MiB file on a read-only export" 1 \
	"is read-only: only reading workloads" \
	"$o/bench/nfs3-bench" "${NB[@]}" --rw read --bs 64k --size 2m --name ro
exit "$fails"
