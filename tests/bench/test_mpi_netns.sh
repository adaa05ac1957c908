#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The benches' MPI mode over real separate "nodes": two network namespaces
# with their own addresses, each rank in a UTS namespace of its own
# (hostname), launched by mpirun through a launch agent that enters the
# namespace (tests/bench/mpi-netns-agent.sh, what ssh is to a cluster),
# talking to each other over TCP only (--mca btl tcp,self: no shared
# memory between nodes), unprivileged (uid 65534), all driving one server
# started by tests/servers/servers.sh on this machine's end of the veth
# links.  Rank 0's merged report must match the sum of the ranks: per
# rank, its jobs' operations, the operations it reported itself and the
# per-I/O lines of the fio latency logs it wrote in its own namespace;
# overall, the aggregate.  The server's files show each job's size and
# owner (65534: the clients were not root).
#
#          this machine (mpirun, ganesha, diod on S = 198.18.K.1)
#                 | veth H.0/24
#           router namespace (forwarding)
#          /veth H.1/24             \veth H.2/24
#   node a (198.18.K+1.2)      node b (198.18.K+2.2)
#   ranks 0 1, hostname a       ranks 2 3, hostname b
#
# Addresses come from 198.18.0.0/15 (RFC 2544: for benchmarks, never
# routed), a /22 that no address or route of this machine mentions.  The
# namespaces, links and route are made here and removed on exit, whatever
# happens.  Works in the root namespace of a machine and inside an
# isolated network namespace alike.  Needs root (namespaces); exit 77
# (skip, with a SKIP(root) line: scripts/skips.sh) without it.
#
# usage: tests/bench/test_mpi_netns.sh BUILDDIR      (make check-mpi)
set -euo pipefail
o=${1:?usage: test_mpi_netns.sh BUILDDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
o=$(cd "$o" && pwd)
fail() { echo "test_mpi_netns: FAIL: $*" >&2; exit 1; }
step() { printf '  %-58s' "$1"; }
ok() { echo "ok${1:+ ($1)}"; }
t0=$(date +%s)

if ((EUID)); then
	echo "test_mpi_netns: SKIP(root): needs root (network namespaces, veth links)" >&2
	exit 77
fi
for c in ip unshare setpriv mpirun python3; do
	command -v "$c" >/dev/null || fail "$c is not installed"
done
for p in nfs3-bench p9-bench; do
	[[ $(ldd "$o/bench/$p") == *libmpi* ]] || fail "$o/bench/$p is not built with MPI (make MPI=1)"
done

tag=xm$$ # interface names: at most 15 characters
ns_r=xprt-mpi-$$-r ns_a=xprt-mpi-$$-a ns_b=xprt-mpi-$$-b
host_a=xprt-node-a-$$ host_b=xprt-node-b-$$
tmp=$(mktemp -d /tmp/xprt-mpi-netns-XXXXXX)
run=$tmp/servers
d=mpi-netns-$$
made=()

cleanup() {
	local ns pids
	set +e
	for ns in $ns_a $ns_b $ns_r; do
		# what the test started there (orted, ranks): by pid, never by name
		mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null)
		((${#pids[@]})) && kill -KILL "${pids[@]}" 2>/dev/null
	done
	[[ -f $run/started ]] && "$top/tests/servers/servers.sh" down "$run" >/dev/null 2>&1
	# deleting the namespaces deletes their ends of the veth pairs, hence
	# the pairs, and the route through them
	for ns in "${made[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	ip link del "${tag}h" 2>/dev/null
	[[ -n ${KEEP:-} ]] || rm -rf "$tmp"
}
trap cleanup EXIT
trap "exit 130" INT TERM

# --- 1. the network -----------------------------------------------------
step "two node namespaces and a router, veth links"
# one /22 of 198.18.0.0/15 that this machine does not use, chosen under a
# lock so that two runs in one namespace do not pick the same
exec 8>>/tmp/libxprt-mpi-netns.lock
flock -w 60 8 || fail "could not take /tmp/libxprt-mpi-netns.lock"
net=$({ ip -4 -o addr show; ip -4 route show table all; } | python3 -c '
import ipaddress, re, sys
used = [ipaddress.ip_network(m, strict=False) for m in
        re.findall(r"\b\d+\.\d+\.\d+\.\d+(?:/\d+)?\b", sys.stdin.read())]
for cand in ipaddress.ip_network("198.18.0.0/15").subnets(new_prefix=22):
    if not any(cand.overlaps(u) for u in used if u.prefixlen > 0):
        print(str(cand.network_address).rsplit(".", 1)[0])
        break')
[[ -n $net ]] || fail "no free /22 in 198.18.0.0/15"
IFS=. read -r o1 o2 o3 <<<"$net"
n_h=$net n_a=$o1.$o2.$((o3 + 1)) n_b=$o1.$o2.$((o3 + 2))
srv=$n_h.1 addr_a=$n_a.2 addr_b=$n_b.2
for ns in $ns_r $ns_a $ns_b; do
	ip netns add "$ns"
	made+=("$ns")
	ip -n "$ns" link set lo up
done
ip netns exec "$ns_r" sysctl -qw net.ipv4.ip_forward=1
ip link add "${tag}h" type veth peer name "${tag}rh" netns "$ns_r"
ip addr add "$srv/24" dev "${tag}h"
ip link set "${tag}h" up
ip -n "$ns_r" addr add "$n_h.254/24" dev "${tag}rh"
ip -n "$ns_r" link set "${tag}rh" up
ip route add "$net.0/22" via "$n_h.254" dev "${tag}h"
for i in a b; do
	ns=ns_$i sub=n_$i addr=addr_$i
	ip -n "$ns_r" link add "${tag}r$i" type veth peer name "${tag}n$i" netns "${!ns}"
	ip -n "$ns_r" addr add "${!sub}.254/24" dev "${tag}r$i"
	ip -n "$ns_r" link set "${tag}r$i" up
	ip -n "${!ns}" addr add "${!addr}/24" dev "${tag}n$i"
	ip -n "${!ns}" link set "${tag}n$i" up
	ip -n "${!ns}" route add default via "${!sub}.254"
done
exec 8>&- # unlocked; no daemon started below inherits it
# through the router: this machine to each node, node a to node b
# (a TCP connection to a listener of the other side: no ping needed)
reach() { # NETNS_FROM|"" NETNS_TO|"" ADDR
	local from=() to=()
	[[ -n $1 ]] && from=(ip netns exec "$1")
	[[ -n $2 ]] && to=(ip netns exec "$2")
	"${to[@]}" timeout 5 python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT of an earlier check
s.bind((sys.argv[1], 29999)); s.listen(1)
print("up", flush=True); s.accept()' "$3" >"$tmp/listen" &
	local l=$! i
	for ((i = 0; i < 100; i++)); do
		[[ -s $tmp/listen ]] && break
		sleep 0.05
	done
	"${from[@]}" timeout 5 bash -c "exec 3<>/dev/tcp/$3/29999" 2>/dev/null
	local rc=$?
	wait "$l" 2>/dev/null
	rm -f "$tmp/listen"
	return $rc
}
reach "" "$ns_a" "$addr_a" || fail "this machine cannot reach node a ($addr_a)"
reach "" "$ns_b" "$addr_b" || fail "this machine cannot reach node b ($addr_b)"
reach "$ns_a" "$ns_b" "$addr_b" || fail "node a cannot reach node b ($addr_b)"
reach "$ns_b" "" "$srv" || fail "node b cannot reach this machine ($srv)"
ok "server $srv, nodes $addr_a $addr_b"

# --- 2. one server of each kind on this machine's end -------------------
step "ganesha and diod on $srv"
# The servers see the nodes under names, as on a cluster: diod drops a
# client whose address getnameinfo() cannot resolve for a "temporary
# failure" (no DNS server reachable, as in a private namespace), so they
# run with an /etc/hosts of their own (a private mount namespace) that
# adds the nodes to this machine's.
{ cat /etc/hosts; printf '%s %s\n' "$addr_a" "$host_a" "$addr_b" "$host_b" \
	"$srv" "xprt-mpi-server-$$"; } >"$tmp/hosts"
# shellcheck disable=SC2016 # for the inner shell
unshare --mount --propagation private -- /bin/sh -c \
	'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$tmp/hosts" \
	env XPRT_SERVERS_ADDR="$srv" "$top/tests/servers/servers.sh" up "$run" \
	ganesha diod >"$tmp/servers.log" 2>&1 ||
	{ cat "$tmp/servers.log" >&2; fail "servers.sh up"; }
# shellcheck disable=SC1091
. "$run/servers.env"
[[ $XPRT_NFS_HOST == "$srv" && $XPRT_DIOD_HOST == "$srv" ]] || fail "servers.env: $XPRT_NFS_HOST $XPRT_DIOD_HOST"
ok

# what the unprivileged ranks need: the programs, a home (Open MPI's
# session directory), an output folder and a folder on each export
install -d -m 0755 "$tmp/bin"
install -m 0755 "$o/bench/nfs3-bench" "$o/bench/p9-bench" "$tmp/bin/"
# the launch agent too: Open MPI's daemons, as nobody on the nodes, look
# for it at the path mpirun was given, and a clone in a 0700 home (root's
# /root on a new machine) is out of their reach (they stop: "not found")
install -m 0755 "$top/tests/bench/mpi-netns-agent.sh" "$tmp/bin/"
agent=$tmp/bin/mpi-netns-agent.sh
chmod 0755 "$tmp"
install -d -o 65534 -g 65534 "$tmp/home" "$tmp/home/$host_a" "$tmp/home/$host_b" \
	"$tmp/out" "$XPRT_NFS_EXPORT_DIR/$d" "$XPRT_DIOD_EXPORT_DIR/$d"
printf '%s slots=2\n%s slots=2\n' "$addr_a" "$addr_b" >"$tmp/hostfile"
export XPRT_MPI_NODES="$addr_a=$ns_a=$host_a $addr_b=$ns_b=$host_b"
export XPRT_MPI_HOME=$tmp/home
# sanitizer builds: Open MPI's own allocations are not our leaks (the
# agent's environment reaches the ranks through Open MPI's daemons)
export ASAN_OPTIONS="${ASAN_OPTIONS:-} detect_leaks=0"
# shellcheck disable=SC2054 # tcp,self is one word
MPIRUN=(timeout 120 mpirun --allow-run-as-root --hostfile "$tmp/hostfile" -np 4
	--mca plm_rsh_agent "$agent" --mca plm_rsh_no_tree_spawn 1
	--mca routed direct
	--mca pml ob1 --mca btl tcp,self
	--mca btl_tcp_if_include "$net.0/22" --mca oob_tcp_if_include "$net.0/22"
	--wdir "$tmp/out")

# check NAME JSON EXPORT_DIR: the merged report against the ranks
check() {
	python3 - "$@" "$host_a" "$host_b" <<'PY' || fail "$1: the merged report"
import glob, json, os, re, sys
name, path, root, ha, hb = sys.argv[1:6]
d = json.load(open(path))
x = d["xprt"]
assert x["status"]["ok"] is True, x["status"]
mpi, jobs, agg = x["mpi"], d["jobs"], x["aggregate"]
ri = mpi["rank_info"]
# Open MPI saw two nodes: ranks 0-1 on a, 2-3 on b, by their hostnames
assert mpi["ranks"] == 4 and [r["rank"] for r in ri] == [0, 1, 2, 3], mpi
assert [r["host"] for r in ri] == [ha, ha, hb, hb], [r["host"] for r in ri]
assert len(jobs) == 8 and agg["xprt"]["jobs"] == 8
assert sorted(j["xprt"]["jobid"] for j in jobs) == list(range(8))
dirs = ("read", "write")
# a full log ring would drop lines (none at these rates)
assert x["backend_stats"]["log_dropped"] == 0, x["backend_stats"]
# each rank's own figures: its jobs in the report, the operations it
# counted itself (rank_info), the per-I/O lines of the latency logs it
# wrote in its namespace (one per completed I/O, direction 0 read, 1 write)
total = {k: 0 for k in dirs}
for r in ri:
    mine = [j for j in jobs if j["xprt"]["rank"] == r["rank"]]
    assert len(mine) == 2 and all(j["xprt"]["host"] == r["host"] for j in mine), mine
    ops = sum(j[k]["total_ios"] for j in mine for k in dirs)
    assert ops == r["ops"] and ops > 0, (r, ops)
    for j in mine:
        n = j["xprt"]["jobid"] + 1
        lines = [l.split(",") for l in open(f"{name}_lat.{n}.log")]
        for i, k in enumerate(dirs):
            logged = sum(1 for l in lines if int(l[2]) == i)
            assert logged == j[k]["total_ios"], (name, n, k, logged, j[k]["total_ios"])
            total[k] += logged
    assert r["errno"] == 0 and r["merged"] is True, r
# the aggregate is the sum of the ranks
for k in dirs:
    assert agg[k]["total_ios"] == total[k] == sum(j[k]["total_ios"] for j in jobs), k
    assert agg[k]["io_bytes"] == sum(j[k]["io_bytes"] for j in jobs), k
    assert total[k] > 0, k
# on the server: one file per job, laid out, created by uid 65534
size = x["options"]["size"]
files = {j["xprt"]["filename"] for j in jobs}
assert len(files) == 8, "ranks shared files"
for f in files:
    st = os.stat(os.path.join(root, f))
    assert st.st_size >= size and st.st_uid == 65534, (f, st.st_size, st.st_uid)
print(f"{sum(total.values())} I/Os")
PY
}

# --- 3. nfs3-bench against ganesha, p9-bench against diod ---------------
common=(--directory "$d" --rw randrw --bs 4k --size 1m --numjobs 2 --iodepth 4
	--ramp_time 300ms --time_based --runtime 2 --eta never --output-format json)
step "nfs3-bench: 2 nodes x 2 ranks x 2 jobs against ganesha"
"${MPIRUN[@]}" "$tmp/bin/nfs3-bench" --server "$srv:$XPRT_NFS_PORT" \
	--mount-port "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT" --name nfs \
	"${common[@]}" --output "$tmp/out/nfs.json" --write_lat_log nfs \
	>"$tmp/nfs.out" 2>&1 || { cat "$tmp/nfs.out" >&2; fail "nfs3-bench under mpirun"; }
n=$(cd "$tmp/out" && check nfs "$tmp/out/nfs.json" "$XPRT_NFS_EXPORT_DIR")
ok "$n"

step "p9-bench: 2 nodes x 2 ranks x 2 jobs against diod"
"${MPIRUN[@]}" "$tmp/bin/p9-bench" --server "$srv:$XPRT_DIOD_PORT" \
	--aname "$XPRT_DIOD_ANAME" --name p9 \
	"${common[@]}" --output "$tmp/out/p9.json" --write_lat_log p9 \
	>"$tmp/p9.out" 2>&1 || { cat "$tmp/p9.out" >&2; fail "p9-bench under mpirun"; }
n=$(cd "$tmp/out" && check p9 "$tmp/out/p9.json" "$XPRT_DIOD_EXPORT_DIR")
ok "$n"

echo "test_mpi_netns: all passed ($(($(date +%s) - t0)) s)"
