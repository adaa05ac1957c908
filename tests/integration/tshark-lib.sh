# shellcheck shell=bash
# Packet capture on loopback for the wire tests (sourced, not run):
# test_wire_tshark.sh and tests/fuzz/capture-corpus.sh.
#
#   cap_start FILE "CAPTURE FILTER"   start dumpcap on lo, return once it
#                                     captures (CAP_PID set)
#   cap_stop                          stop it and wait until FILE is closed
#
# dumpcap rather than tshark: it only writes, so nothing is dropped while
# a test runs, and tshark dissects the file afterwards.

cap_start() {
	local file=$1 filter=$2 log=$1.dumpcap.log i
	rm -f "$file" "$log"
	dumpcap -q -i lo -f "$filter" -w "$file" >"$log" 2>&1 &
	CAP_PID=$!
	# dumpcap says "Capturing on 'Loopback: lo'" once the filter is set
	for ((i = 0; i < 100; i++)); do
		grep -q 'Capturing on' "$log" 2>/dev/null && return 0
		kill -0 "$CAP_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "dumpcap did not start:" >&2
	cat "$log" >&2
	return 1
}

cap_stop() {
	[[ -n ${CAP_PID:-} ]] || return 0
	sleep 0.2 # the last segments
	kill -INT "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
	CAP_PID=
}

# Dissection with every RPC-over-TCP heuristic on, whatever the ports.
TSHARK_OPTS=(-o rpc.desegment_rpc_over_tcp:TRUE -o tcp.desegment_tcp_streams:TRUE
	-o tcp.analyze_sequence_numbers:TRUE)

# tshark decodes our ports as RPC (they are not 2049/111/...).
tshark_decode_as() {
	local p args=()
	for p in "$@"; do
		args+=(-d "tcp.port==$p,rpc")
	done
	printf '%s\n' "${args[@]}"
}
