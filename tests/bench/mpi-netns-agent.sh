#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Open MPI's launch agent for tests/bench/test_mpi_netns.sh: what ssh is
# to a real cluster (mpirun --mca plm_rsh_agent THIS), for "nodes" that
# are network namespaces of this machine.  mpirun runs it as
#   mpi-netns-agent.sh HOST COMMAND...
# (COMMAND: the orted command line, words for a shell as ssh would pass
# them).  HOST is one of the addresses of the hostfile; XPRT_MPI_NODES
# maps each to its namespace and its hostname:
#   XPRT_MPI_NODES="ADDR=NETNS=HOSTNAME ..."
# The command runs in that network namespace (ip netns exec), in a UTS
# namespace of its own named HOSTNAME (unshare --uts), as nobody
# (setpriv: uid and gid 65534, no supplementary groups), with HOME and
# TMPDIR in XPRT_MPI_HOME/HOSTNAME (Open MPI's session directory).
set -euo pipefail
host=${1:?usage: mpi-netns-agent.sh HOST COMMAND...}
shift
for n in ${XPRT_MPI_NODES:?}; do
	IFS='=' read -r addr ns name <<<"$n"
	[[ $addr == "$host" ]] || continue
	home=${XPRT_MPI_HOME:?}/$name
	# $1 of the inner shell: the hostname; $2: the command, joined as ssh
	# joins its words
	# shellcheck disable=SC2016,SC2093 # for the inner shell; the first match
	exec ip netns exec "$ns" unshare --uts -- /bin/sh -c '
		hostname "$1" || exit 255
		exec setpriv --reuid 65534 --regid 65534 --clear-groups -- \
		    env HOME="$3" TMPDIR="$3" USER=nobody LOGNAME=nobody \
		    /bin/sh -c "$2"' agent "$name" "$*" "$home"
done
echo "mpi-netns-agent: $host is not a node of XPRT_MPI_NODES ($XPRT_MPI_NODES)" >&2
exit 255
