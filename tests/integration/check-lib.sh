# shellcheck shell=bash
# Shared by the integration scripts that check a bench's runs: each check
# prints "ok - ..." or "FAIL - ..." and failures are counted in $fails
# (the script's exit status).  Source it after setting fails=0.

ok() { echo "ok - $*"; }
bad() {
	echo "FAIL - $*"
	fails=$((fails + 1))
}

# check_exit NAME WANT_RC RC WANT_MSG ERRFILE: a run's exit status RC is
# WANT_RC and (when WANT_MSG is not empty) ERRFILE contains WANT_MSG;
# on failure the end of ERRFILE is shown.  Returns 1 on failure.
check_exit() {
	local name=$1 want=$2 rc=$3 msg=$4 err=$5
	if ((rc != want)); then
		bad "$name: exit status $rc, want $want"
		sed 's/^/    | /' "$err" | tail -8
		return 1
	fi
	if [[ -n $msg ]] && ! grep -qF -- "$msg" "$err"; then
		bad "$name: no '$msg' on stderr"
		sed 's/^/    | /' "$err" | tail -8
		return 1
	fi
	ok "$name (exit $rc)"
}

# start_port_server PORTFILE CMD...: start CMD in the background with its
# output in PORTFILE, set $srv to its pid and $port to the number on its
# "PORT n" line.  Waits up to 30 s (a loaded machine starts python slowly);
# on time-out it reports and exits the script.
start_port_server() {
	local pf=$1
	shift
	: >"$pf"
	"$@" >"$pf" 2>&1 &
	srv=$!
	port=
	for _ in $(seq 300); do
		grep -q '^PORT' "$pf" && break
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	port=$(awk '/^PORT/ {print $2; exit}' "$pf")
	[[ -n $port ]] && return 0
	bad "$* did not start in 30 s"
	sed 's/^/    | /' "$pf" | tail -8
	exit 1
}

# stop_server: stop the server start_port_server started ($srv), if any
stop_server() {
	[[ -n ${srv:-} ]] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	srv=
}

# scratch_dir NAME: a new temporary directory in $work; at exit the
# server is stopped and the directory removed
scratch_dir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	srv=
	trap 'stop_server; rm -rf "$work"' EXIT
}

# thread_samples PID WANT: PID's thread count (/proc/PID/status) every
# 50 ms until it ends: $tmax the most seen, $tat the samples at exactly
# WANT
thread_samples() {
	local n
	tmax=0 tat=0
	while kill -0 "$1" 2>/dev/null; do
		n=$(awk '/^Threads:/ {print $2}' "/proc/$1/status" 2>/dev/null)
		[[ -n $n ]] || break
		((n > tmax)) && tmax=$n
		((n == $2)) && tat=$((tat + 1))
		sleep 0.05
	done
}
