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
	# a large buffer: a burst of 1 MiB writes on a busy machine must not
	# be dropped (the dissection would see holes in the streams)
	dumpcap -q -B 64 -i lo -f "$filter" -w "$file" >"$log" 2>&1 &
	CAP_PID=$!
	# dumpcap says "Capturing on 'Loopback: lo'" once the filter is set
	for ((i = 0; i < 100; i++)); do
		if grep -q 'Capturing on' "$log" 2>/dev/null; then
			# it says so before its capture ring is ready: give it
			# time, the caller then checks a sentinel (cap_sentinel)
			sleep 1
			return 0
		fi
		kill -0 "$CAP_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "dumpcap did not start:" >&2
	cat "$log" >&2
	return 1
}

cap_stop() {
	[[ -n ${CAP_PID:-} ]] || return 0
	sleep 1 # the last block of the capture ring is handed over on a timeout
	kill -INT "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
	CAP_PID=
}

# A connection to PORT that must show in the capture (cap_seen): proof
# that the capture started before the workload.
cap_sentinel() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null || true
}

# Whether FILE holds a SYN to PORT.
cap_seen() {
	[[ -n $(tshark -r "$1" -Y "tcp.flags.syn == 1 && tcp.dstport == $2" \
		-c 1 2>/dev/null) ]]
}

# Packets the kernel or dumpcap dropped during the last capture of FILE
# (dumpcap reports them when it stops).
cap_dropped() {
	sed -n 's/.*received\/dropped on interface .*: [0-9]*\/\([0-9]*\).*/\1/p' \
		"$1.dumpcap.log" | tail -1
}
