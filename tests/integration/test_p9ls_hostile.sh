#!/usr/bin/env bash
# examples/p9ls against tests/hostile/p9_hostile.py's directories:
#   1. readdir_loop (every Treaddir answered with the same entry, its
#      offset the one asked for): exit 1 within 5 s after two Treaddirs,
#      the loop named, the entry listed once;
#   2. readdir_names (names holding a NUL, a '/', "../", a backslash):
#      each printed escaped, one line each, so no made-up name reads as a
#      real one; with -l the names no path can hold are not looked up
#      (no Twalk of them) and the run exits 1.
# Needs no real server; a few seconds.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
p9ls=${XPRT_BUILD_DIR:-$top/build/plain}/examples/p9ls
[[ -x $p9ls ]] || { echo "FAIL - $p9ls not built (make examples)"; exit 1; }
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"
scratch_dir p9ls-hostile

start_hostile() {
	stop_server
	: >"$work/log"
	start_port_server "$work/port" python3 \
		"$top/tests/hostile/p9_hostile.py" --scenario "$1" --port 0 \
		--log "$work/log"
}

# 1. an offset loop
start_hostile readdir_loop
t0=$(date +%s.%N)
timeout 20 "$p9ls" -p "$port" -A /hostile 127.0.0.1 >"$work/out" \
	2>"$work/err"
rc=$?
t=$(echo "$(date +%s.%N) - $t0" | bc)
n=$(grep -c 'type=Treaddir' "$work/log")
echo "# loop: exit $rc after ${t} s, $n Treaddirs"
check_exit "loop" 1 "$rc" "directory offsets loop" "$work/err"
(($(echo "$t < 5" | bc))) && ok "loop: within 5 s" || bad "loop: ${t} s"
((n == 2)) && ok "loop: 2 Treaddirs" || bad "loop: $n Treaddirs, want 2"
[[ $(cat "$work/out") == x ]] && ok "loop: the entry listed once" ||
	bad "loop: listed '$(head -c 200 "$work/out")'"

# 2. names no file can have
start_hostile readdir_names
timeout 20 "$p9ls" -p "$port" -A /hostile 127.0.0.1 >"$work/out" \
	2>"$work/err"
rc=$?
check_exit "names" 0 "$rc" "" "$work/err"
printf '%s\n' '..\057x' 'a\000b\057..\057etc' 'back\\slash' ok \
	>"$work/want"
if cmp -s "$work/want" "$work/out"; then
	ok "names: printed escaped"
else
	bad "names: printed:"
	od -c "$work/out" | sed 's/^/    | /'
fi
: >"$work/log"
timeout 20 "$p9ls" -l -p "$port" -A /hostile 127.0.0.1 >"$work/out" \
	2>"$work/err"
rc=$?
check_exit "names -l" 1 "$rc" \
	"a\\000b\\057..\\057etc: the server sent a name holding a '/' or a NUL" \
	"$work/err"
# the two good names are looked up (one Twalk each, and the attach's),
# the two others not
n=$(grep -c 'type=Twalk' "$work/log")
((n == 3)) && ok "names -l: $n Twalks (root, back\\\\slash, ok)" ||
	bad "names -l: $n Twalks, want 3"
grep -q ' ok$' "$work/out" && ok "names -l: ok listed" ||
	bad "names -l: ok not listed"
exit "$fails"
