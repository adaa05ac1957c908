# Count the system calls of an strace -f -y -x -s 8 trace (make bench-rdma):
# one output line per kind, "NAME COUNT".  A write(2) or ioctl(2) on the
# verbs device (/dev/infiniband/uverbsN) is named by the uverbs command in
# the first byte of its header (include/uapi/rdma/ib_user_verbs.h): with
# rxe a Send doorbell is a POST_SEND write, a registration a REG_MR write.
BEGIN {
	cmd["09"] = "reg_mr"; cmd["0d"] = "dereg_mr"
	cmd["0e"] = "alloc_mw"; cmd["10"] = "dealloc_mw"
	cmd["15"] = "poll_cq"; cmd["17"] = "req_notify_cq"
	cmd["1c"] = "post_send"; cmd["1d"] = "post_recv"
}
{
	sub(/^[0-9]+ +/, "")
	# a resumed call (counted when it started), exits, signals
	if ($0 ~ /^(<\.\.\.|\+\+\+|---)/)
		next
	name = $0
	sub(/\(.*/, "", name)
	if ((name == "write" || name == "ioctl") && index($0, "uverbs")) {
		if (name == "ioctl") {
			n["verbs:ioctl"]++
			next
		}
		# -x writes a buffer with unprintable bytes all in \xNN
		q = index($0, ", \"\\x")
		c = q ? substr($0, q + 5, 2) : "?"
		n["verbs:" (c in cmd ? cmd[c] : "cmd_" c)]++
		next
	}
	n[name]++
}
END {
	for (k in n)
		print k, n[k]
}
