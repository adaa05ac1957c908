# shellcheck shell=bash
# Helpers shared by the real-server harness scripts. Source, don't run.
#
# Rules these helpers enforce:
#  - a process is only ever stopped through the pid file of the RUN_DIR that
#    started it, and only after /proc/PID/comm confirms the pid still names
#    that program (pids get reused; never kill by name);
#  - ports are picked free at start, outside the kernel's ephemeral range so
#    an outgoing connection cannot steal one between pick and bind, and a
#    listener is accepted only when the pid we started owns it (a stranger
#    listening on the same port must not look like success).

XS_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
XS_REPO=$(cd "$XS_HERE/../.." && pwd)

xs_log() { printf '[servers %s] %s\n' "$(date +%T)" "$*" >&2; }
xs_die() {
	xs_log "ERROR: $*"
	exit 1
}

# xs_now -> seconds since the epoch with sub-second precision (for timings)
xs_now() { date +%s.%N; }
xs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# xs_pid_alive PID -> true if running and not a zombie
xs_pid_alive() {
	local st
	[[ $1 =~ ^[0-9]+$ && -r /proc/$1/stat ]] || return 1
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && $st != Z && $st != X ]]
}

# xs_pid_is PID COMM -> PID alive and /proc/PID/comm is COMM (guards pid reuse)
xs_pid_is() {
	xs_pid_alive "$1" && [[ $(cat "/proc/$1/comm" 2>/dev/null) == "$2" ]]
}

# xs_pidfile_alive PIDFILE COMM -> the pid recorded in PIDFILE is a live COMM
xs_pidfile_alive() {
	[[ -f $1 ]] && xs_pid_is "$(<"$1")" "$2"
}

# xs_stop_pidfile PIDFILE COMM TIMEOUT [SIGNAL]
# Send SIGNAL (default TERM) to the pid in PIDFILE if it is still a COMM
# process, wait up to TIMEOUT seconds, then SIGKILL. Removes PIDFILE.
# A missing or stale pid file is not an error: stopping is idempotent.
xs_stop_pidfile() {
	local pidfile=$1 comm=$2 timeout=$3 sig=${4:-TERM} pid i ticks
	[[ -f $pidfile ]] || return 0
	# TIMEOUT may be fractional; count it in 50 ms ticks
	ticks=$(awk -v t="$timeout" 'BEGIN { printf "%d", t * 20 }')
	pid=$(<"$pidfile")
	if ! xs_pid_is "$pid" "$comm"; then
		xs_log "$comm: pid '$pid' from $pidfile is gone; dropping the pid file"
		rm -f "$pidfile"
		return 0
	fi
	kill "-$sig" "$pid" 2>/dev/null || true
	for ((i = 0; i < ticks; i++)); do
		xs_pid_alive "$pid" || break
		sleep 0.05
	done
	if xs_pid_alive "$pid"; then
		xs_log "$comm pid $pid still exiting ${timeout} s after SIG$sig: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		for ((i = 0; i < 40; i++)); do
			xs_pid_alive "$pid" || break
			sleep 0.05
		done
	fi
	rm -f "$pidfile"
}

# xs_listen_pids PORT -> pids owning a TCP listener on PORT (any address)
xs_listen_pids() {
	ss -Hltnp "( sport = :$1 )" 2>/dev/null | grep -o 'pid=[0-9]*' |
		cut -d= -f2 | sort -u
}

# xs_port_busy PORT -> true if anything listens on TCP PORT
xs_port_busy() { ss -Hltn "( sport = :$1 )" 2>/dev/null | grep -q .; }

# xs_port_busy_after PORT SECS -> PORT is still listened on after SECS:
# a server just killed can hold its listening socket a moment after its
# pid is gone (the threads of a killed process still exiting; ss shows
# the socket with no process), so a restart on the same ports waits
# that long, bounded, before it calls the port taken
xs_port_busy_after() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		xs_port_busy "$1" || return 1
		sleep 0.1
	done
	xs_port_busy "$1"
}

# xs_port_owned_by PORT PID -> PID (a process we started) listens on PORT
xs_port_owned_by() { xs_listen_pids "$1" | grep -qx "$2"; }

# xs_wait_listen PORT PID SECS -> wait until PID listens on PORT; fail early
# if PID dies or somebody else took the port.
xs_wait_listen() {
	local port=$1 pid=$2 secs=$3 i
	for ((i = 0; i < secs * 20; i++)); do
		xs_port_owned_by "$port" "$pid" && return 0
		xs_pid_alive "$pid" || return 1
		sleep 0.05
	done
	return 1
}

# xs_pick_ports N -> prints N distinct TCP ports that are free on every
# address right now. They come from 20000-32000, below the ephemeral range
# (ip_local_port_range starts at 32768 on Debian), so client sockets cannot
# take them before the server binds. All N are held bound at once while
# choosing so the picks are distinct and really bindable on 0.0.0.0 (ganesha's
# 9P listener binds the wildcard address whatever Bind_addr says).
xs_pick_ports() {
	python3 - "$1" <<'EOF'
import random, socket, sys
n = int(sys.argv[1])
held, ports = [], []
rng = random.SystemRandom()
for _ in range(2000):
    if len(ports) == n:
        break
    p = rng.randrange(20000, 32000)
    if p in ports:
        continue
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("0.0.0.0", p))
    except OSError:
        s.close()
        continue
    held.append(s)
    ports.append(p)
if len(ports) != n:
    sys.exit("could not find %d free ports" % n)
print(" ".join(map(str, ports)))
EOF
}

# xs_bind_addr RECORDED -> the IPv4 address the servers listen on: the one
# a server's env file recorded (a restart keeps its address, like its
# ports), else XPRT_SERVERS_ADDR, else 127.0.0.1.  Any other address must
# be one of this machine's (a veth end, for clients in other network
# namespaces: tests/bench/test_mpi_netns.sh).
xs_bind_addr() {
	local a=${1:-${XPRT_SERVERS_ADDR:-127.0.0.1}}
	[[ $a =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
		xs_die "server address '$a' is not an IPv4 address"
	if [[ $a != 127.* ]] && ! ip -4 -o addr show 2>/dev/null | grep -q " $a/"; then
		xs_die "server address $a is not an address of this machine (ip -4 addr)"
	fi
	printf '%s\n' "$a"
}

# xs_rpcbind_up -> a portmapper answers on 127.0.0.1:111
xs_rpcbind_up() { rpcinfo -p 127.0.0.1 >/dev/null 2>&1; }

# xs_rpcbind_port PROG VERS -> TCP port registered for PROG/VERS, or nothing
xs_rpcbind_port() {
	rpcinfo -p 127.0.0.1 2>/dev/null |
		awk -v p="$1" -v v="$2" '$1 == p && $2 == v && $3 == "tcp" { print $4; exit }'
}

# xs_rpcbind_foreign_progs -> programs registered other than the portmapper
xs_rpcbind_foreign_progs() {
	rpcinfo -p 127.0.0.1 2>/dev/null |
		awk 'NR > 1 && $1 != 100000 { print $1 }' | sort -u
}

# xs_need_packages -> install the `servers` group through the repo's own
# installer when a binary we need is missing (fast no-op otherwise).
xs_need_packages() {
	if ! "$XS_REPO/scripts/deps.sh" --check servers >/dev/null 2>&1; then
		xs_log "installing missing packages (scripts/deps.sh servers)"
		"$XS_REPO/scripts/deps.sh" servers
	fi
}

# xs_run_dir PATH -> absolute RUN_DIR. Restricted to a plain character set so
# that servers.env needs no quoting (it is sourced by shells and may be
# included by make) and the diod aname is a simple absolute path.
xs_run_dir() {
	local d
	[[ -n ${1:-} ]] || xs_die "RUN_DIR missing"
	d=$(realpath -m -- "$1")
	[[ $d =~ ^/[A-Za-z0-9_./+-]*$ ]] ||
		xs_die "RUN_DIR '$d' has characters other than [A-Za-z0-9_./+-]"
	[[ $d != / ]] || xs_die "RUN_DIR must not be /"
	printf '%s\n' "$d"
}
